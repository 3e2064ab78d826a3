package dev.quiver.tests;

import com.google.flatbuffers.Table;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One table of a flatbuffer (Arrow's IPC metadata), read for where its fields lie, so that
 * {@link IpcMutator} can overwrite a chosen field in place. Positions are absolute indexes into
 * the buffer the table was read from (the whole IPC file). A field is named by its slot: the
 * order it is declared in Arrow's {@code Message.fbs}/{@code Schema.fbs}/{@code File.fbs}.
 */
final class FlatTable extends Table {
    private FlatTable(int position, ByteBuffer buffer) {
        __reset(position, buffer);
    }

    /** The root table of the flatbuffer that starts at {@code start} of {@code bytes}. */
    static FlatTable root(byte[] bytes, int start) {
        ByteBuffer bb = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        return new FlatTable(start + bb.getInt(start), bb);
    }

    private int offsetOf(int slot) {
        return __offset(4 + 2 * slot);
    }

    /** Where the scalar in {@code slot} is stored, or -1 when the table leaves it at its default (not stored). */
    int field(int slot) {
        int o = offsetOf(slot);
        return o == 0 ? -1 : bb_pos + o;
    }

    /** The table in {@code slot} (a table field or a union's value), or null when absent. */
    FlatTable table(int slot) {
        int o = offsetOf(slot);
        return o == 0 ? null : new FlatTable(__indirect(bb_pos + o), bb);
    }

    /** Where the elements of the vector in {@code slot} start, or -1 when absent. */
    int vectorStart(int slot) {
        int o = offsetOf(slot);
        return o == 0 ? -1 : __vector(o);
    }

    /** How many elements the vector in {@code slot} has (0 when absent). */
    int vectorLength(int slot) {
        int o = offsetOf(slot);
        return o == 0 ? 0 : __vector_len(o);
    }

    /** Where the 4-byte length of the vector (or string) in {@code slot} is, or -1 when absent. */
    int vectorLengthField(int slot) {
        int o = offsetOf(slot);
        return o == 0 ? -1 : __vector(o) - 4;
    }

    /** The {@code j}-th table of the vector of tables in {@code slot}. */
    FlatTable tableAt(int slot, int j) {
        return new FlatTable(__indirect(vectorStart(slot) + 4 * j), bb);
    }

    byte byteAt(int slot, byte otherwise) {
        int p = field(slot);
        return p < 0 ? otherwise : bb.get(p);
    }

    long longAt(int slot, long otherwise) {
        int p = field(slot);
        return p < 0 ? otherwise : bb.getLong(p);
    }

    long longAtPosition(int position) {
        return bb.getLong(position);
    }
}
