package dev.quiver.tests;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.Type;
import org.apache.arrow.vector.BufferLayout;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Where everything lies in a valid Arrow IPC file or stream, for {@link IpcMutator}: the
 * messages (their framing, flatbuffer metadata and body), every scalar of the metadata that
 * says a length, an offset, a count, a type or an id ({@link Slot}), and every buffer of every
 * record batch and dictionary batch body with its role ({@link Region}: validity, offsets,
 * dictionary indices, data), read from the bytes themselves, through the flatbuffer tables.
 *
 * <p>The IPC stream format is a sequence of messages, each a continuation marker
 * ({@code 0xFFFFFFFF}), a 4-byte metadata length, a flatbuffer {@code Message} and a body of
 * {@code bodyLength} bytes, ended by a marker and a zero length. The file format is
 * {@code ARROW1} and two bytes of padding, that stream, a flatbuffer {@code Footer} (the schema
 * and a {@code Block} per dictionary and record batch: offset, metadata length, body length),
 * the footer's 4-byte length and {@code ARROW1}.
 */
final class IpcLayout {
    /** One message: [start, end) in the file, its metadata [metadataStart, +metadataLength) and body. */
    record Message(
            int start,
            int end,
            int metadataStart,
            int metadataLength,
            int bodyStart,
            int bodyLength,
            byte headerType) {}

    /** A scalar of the metadata: {@code width} bytes (1, 2, 4 or 8, little-endian) at {@code position}. */
    record Slot(int position, int width, String name) {}

    /** What a body buffer holds. */
    enum Role {
        VALIDITY,
        OFFSETS,
        DICTIONARY_INDICES,
        DATA
    }

    /**
     * One buffer of a body: [start, start + length) in the file, holding {@code role} of
     * {@code column}; {@code width} is the bytes of one element (offsets: 4 or 8; indices: the
     * index width; validity: 0).
     */
    record Region(int start, int length, Role role, int width, String column) {}

    final byte[] bytes;
    final boolean file;
    /** Where the stream of messages starts: 0, or 8 in a file. */
    final int streamStart;

    final List<Message> messages = new ArrayList<>();
    final List<Slot> slots = new ArrayList<>();
    final List<Region> regions = new ArrayList<>();

    private final Schema schema;
    private final Map<Long, Field> dictionaryValues;

    /**
     * The layout of {@code bytes}, a valid IPC file ({@code file}) or stream written with
     * {@code schema}; {@code dictionaryValues} gives each dictionary id's value field.
     */
    static IpcLayout of(byte[] bytes, boolean file, Schema schema, Map<Long, Field> dictionaryValues) {
        IpcLayout layout = new IpcLayout(bytes, file, schema, dictionaryValues);
        layout.parse();
        return layout;
    }

    private IpcLayout(byte[] bytes, boolean file, Schema schema, Map<Long, Field> dictionaryValues) {
        this.bytes = bytes;
        this.file = file;
        this.streamStart = file ? 8 : 0;
        this.schema = schema;
        this.dictionaryValues = dictionaryValues;
    }

    private int intAt(int p) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt(p);
    }

    private void parse() {
        int p = streamStart;
        while (p + 8 <= bytes.length) {
            slots.add(new Slot(p, 4, "continuation marker"));
            slots.add(new Slot(p + 4, 4, "metadata length"));
            int metadataLength = intAt(p + 4);
            if (metadataLength == 0) {
                break; // the end-of-stream marker
            }
            int metadataStart = p + 8;
            FlatTable m = FlatTable.root(bytes, metadataStart);
            byte header = m.byteAt(1, MessageHeader.NONE);
            int bodyLength = (int) m.longAt(3, 0);
            int bodyStart = metadataStart + metadataLength;
            Message message = new Message(
                    p, bodyStart + bodyLength, metadataStart, metadataLength, bodyStart, bodyLength, header);
            messages.add(message);
            String where = "message " + (messages.size() - 1) + " (" + MessageHeader.name(header) + ")";
            slot(m, 0, 2, where + " version");
            slot(m, 1, 1, where + " header type");
            slot(m, 3, 8, where + " body length");
            FlatTable h = m.table(2);
            if (h != null) {
                switch (header) {
                    case MessageHeader.Schema -> schemaSlots(h, where);
                    case MessageHeader.RecordBatch -> recordBatch(h, message, schema.getFields(), where);
                    case MessageHeader.DictionaryBatch -> {
                        slot(h, 0, 8, where + " dictionary id");
                        slot(h, 2, 1, where + " isDelta");
                        Field values = dictionaryValues.get(h.longAt(0, 0));
                        FlatTable data = h.table(1);
                        if (data != null && values != null) {
                            recordBatch(data, message, List.of(values), where);
                        }
                    }
                    default -> {}
                }
            }
            p = message.end;
        }
        if (file) {
            int footerLengthAt = bytes.length - 10;
            slots.add(new Slot(footerLengthAt, 4, "footer length"));
            int footerStart = footerLengthAt - intAt(footerLengthAt);
            FlatTable footer = FlatTable.root(bytes, footerStart);
            slot(footer, 0, 2, "footer version");
            FlatTable s = footer.table(1);
            if (s != null) {
                schemaSlots(s, "footer");
            }
            blocks(footer, 2, "footer dictionary block");
            blocks(footer, 3, "footer record batch block");
        }
    }

    private void slot(FlatTable t, int field, int width, String name) {
        int p = t.field(field);
        if (p >= 0) {
            slots.add(new Slot(p, width, name));
        }
    }

    private void vectorLength(FlatTable t, int field, String name) {
        int p = t.vectorLengthField(field);
        if (p >= 0) {
            slots.add(new Slot(p, 4, name + " count"));
        }
    }

    private void blocks(FlatTable footer, int field, String name) {
        vectorLength(footer, field, name);
        int start = footer.vectorStart(field);
        for (int j = 0; j < footer.vectorLength(field); j++) {
            int b = start + 24 * j;
            slots.add(new Slot(b, 8, name + " " + j + " offset"));
            slots.add(new Slot(b + 8, 4, name + " " + j + " metadata length"));
            slots.add(new Slot(b + 16, 8, name + " " + j + " body length"));
        }
    }

    private void schemaSlots(FlatTable s, String where) {
        vectorLength(s, 1, where + " schema fields");
        for (int j = 0; j < s.vectorLength(1); j++) {
            fieldSlots(s.tableAt(1, j), where + " field " + j);
        }
    }

    private void fieldSlots(FlatTable f, String where) {
        vectorLength(f, 0, where + " name");
        slot(f, 1, 1, where + " nullable");
        slot(f, 2, 1, where + " type id");
        FlatTable type = f.table(3);
        if (type != null) {
            switch (f.byteAt(2, Type.NONE)) {
                case Type.Int -> {
                    slot(type, 0, 4, where + " int bit width");
                    slot(type, 1, 1, where + " int signed");
                }
                case Type.FloatingPoint -> slot(type, 0, 2, where + " float precision");
                case Type.Decimal -> {
                    slot(type, 0, 4, where + " decimal precision");
                    slot(type, 1, 4, where + " decimal scale");
                    slot(type, 2, 4, where + " decimal bit width");
                }
                case Type.Date -> slot(type, 0, 2, where + " date unit");
                case Type.Timestamp -> {
                    slot(type, 0, 2, where + " timestamp unit");
                    vectorLength(type, 1, where + " timezone");
                }
                default -> {}
            }
        }
        FlatTable dictionary = f.table(4);
        if (dictionary != null) {
            slot(dictionary, 0, 8, where + " dictionary id");
            FlatTable index = dictionary.table(1);
            if (index != null) {
                slot(index, 0, 4, where + " dictionary index bit width");
                slot(index, 1, 1, where + " dictionary index signed");
            }
        }
        vectorLength(f, 5, where + " children");
        for (int j = 0; j < f.vectorLength(5); j++) {
            fieldSlots(f.tableAt(5, j), where + "." + j);
        }
    }

    /** The slots of a RecordBatch table, and the regions of its body, whose buffers belong to {@code fields} depth first. */
    private void recordBatch(FlatTable rb, Message message, List<Field> fields, String where) {
        slot(rb, 0, 8, where + " length");
        vectorLength(rb, 1, where + " field nodes");
        int nodes = rb.vectorStart(1);
        for (int j = 0; j < rb.vectorLength(1); j++) {
            slots.add(new Slot(nodes + 16 * j, 8, where + " node " + j + " length"));
            slots.add(new Slot(nodes + 16 * j + 8, 8, where + " node " + j + " null count"));
        }
        vectorLength(rb, 2, where + " buffers");
        int buffers = rb.vectorStart(2);
        List<Region> roles = new ArrayList<>();
        for (Field f : fields) {
            roles(f, f.getName(), roles);
        }
        for (int j = 0; j < rb.vectorLength(2); j++) {
            int b = buffers + 16 * j;
            slots.add(new Slot(b, 8, where + " buffer " + j + " offset"));
            slots.add(new Slot(b + 8, 8, where + " buffer " + j + " length"));
            if (j < roles.size()) {
                Region r = roles.get(j);
                long offset = rb.longAtPosition(b), length = rb.longAtPosition(b + 8);
                if (length > 0) {
                    regions.add(
                            new Region((int) (message.bodyStart + offset), (int) length, r.role, r.width, r.column));
                }
            }
        }
    }

    /** The roles of {@code f}'s buffers and its children's, depth first, as an IPC body lists them (positions unset). */
    private static void roles(Field f, String column, List<Region> out) {
        boolean encoded = f.getDictionary() != null;
        var type = encoded ? f.getDictionary().getIndexType() : f.getType();
        for (BufferLayout b : TypeLayout.getTypeLayout(type).getBufferLayouts()) {
            Role role = switch (b.getType()) {
                case VALIDITY -> Role.VALIDITY;
                case OFFSET -> Role.OFFSETS;
                default -> encoded ? Role.DICTIONARY_INDICES : Role.DATA;
            };
            out.add(new Region(0, 0, role, Math.max(0, b.getTypeBitWidth() / 8), column));
        }
        if (!encoded) {
            for (Field child : f.getChildren()) {
                roles(child, column + "." + child.getName(), out);
            }
        }
    }
}
