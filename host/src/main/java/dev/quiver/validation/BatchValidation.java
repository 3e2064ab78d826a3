package dev.quiver.validation;

import dev.quiver.errors.InputException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.NonNullableStructVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.util.ValueVectorUtility;

/**
 * Checks a column's Arrow buffers against its declared lengths before anything computes on it,
 * so that a malformed batch (from an IPC file written by a buggy producer, or a vector assembled
 * by hand with {@code loadFieldBuffers}) is an {@link InputException} and never a wrong result,
 * an {@code IndexOutOfBoundsException} or a read past a buffer.
 *
 * <p>What is checked, per column and recursively through list and struct children:
 * <ul>
 *   <li>the declared value count is not negative;</li>
 *   <li>the validity bitmap holds {@code ceil(rows / 8)} bytes;</li>
 *   <li>a fixed-width data buffer holds {@code rows * width} bytes ({@code ceil(rows / 8)} for
 *       Booleans);</li>
 *   <li>an offsets buffer (strings, binary, lists; 4- or 8-byte offsets) holds {@code rows + 1}
 *       offsets (none are needed for zero rows); the first offset is not negative, no offset is
 *       smaller than the one before it, and none is past the end of the data buffer (strings) or
 *       the child's values (lists). This is the one check that reads every row: one Vector API
 *       pass over the offsets;</li>
 *   <li>a fixed-size list's child holds {@code rows * size} values; a struct's children hold at
 *       least the struct's rows;</li>
 *   <li>with {@link #checkDictionaryIndices}: every non-null index of a dictionary-encoded
 *       column is within its dictionary (one pass over the indices; a null row's index is not
 *       looked at).</li>
 * </ul>
 * Other vector kinds (unions, string views, run-end encoded), which Quiver does not compute on,
 * get Arrow's own {@code ValueVectorUtility.validate}. The contents of the values (valid UTF-8,
 * say) are checked where they are read, not here.
 *
 * <p>The exception's detail names the column (a struct's child as {@code parent.child}, a list's
 * elements as {@code list[]}), the buffer and
 * the sizes; {@link InputException#column()} is the batch's column and
 * {@link InputException#row()} the first bad row where the fault is in one row of the batch.
 * Nothing is allocated: a check that fails leaves nothing behind. Thread-safe (stateless).
 */
public final class BatchValidation {
    private BatchValidation() {}

    /**
     * Checks every column of {@code batch}: its row count is not negative, every column holds
     * that many values, and each column's buffers as {@link #checkColumn} does (dictionary
     * indices are not checked: that needs the dictionaries, see {@link #checkDictionaryIndices}).
     *
     * @throws InputException naming the first malformed column
     */
    public static void checkBatch(VectorSchemaRoot batch) {
        Objects.requireNonNull(batch, "batch is null");
        int rows = batch.getRowCount();
        if (rows < 0) {
            throw new InputException("the batch declares " + rows + " rows");
        }
        for (FieldVector v : batch.getFieldVectors()) {
            if (v.getValueCount() != rows) {
                throw (InputException) new InputException("column '" + v.getName() + "' has " + v.getValueCount()
                                + " values but the batch has " + rows + " rows")
                        .fillColumn(v.getName());
            }
            checkColumn(v, v.getName());
        }
    }

    /**
     * Checks that the buffers of {@code vector} hold its {@code getValueCount()} values (see the
     * class comment for what that means per kind of vector).
     *
     * @param column the column's name in messages and in {@link InputException#column()}
     * @throws InputException naming the column, the buffer and the first bad row where there is one
     */
    public static void checkColumn(FieldVector vector, String column) {
        Objects.requireNonNull(vector, "vector is null");
        Objects.requireNonNull(column, "column is null");
        check(vector, column, column, true);
    }

    /**
     * Checks that every non-null row of the dictionary-encoded column {@code indices} (its
     * buffers already checked by {@link #checkColumn}) holds an index within
     * {@code dictionary}'s values: at least 0 and less than {@code dictionary.getValueCount()}.
     * Also checks the dictionary's own buffers.
     *
     * @throws InputException naming the column and the first row whose index is out of range
     */
    public static void checkDictionaryIndices(FieldVector indices, String column, FieldVector dictionary) {
        Objects.requireNonNull(indices, "indices is null");
        Objects.requireNonNull(dictionary, "dictionary is null");
        check(dictionary, column, column + " (its dictionary)", false);
        if (!(indices instanceof BaseFixedWidthVector fixed)
                || !(indices instanceof BaseIntVector)
                || !(indices.getField().getType() instanceof ArrowType.Int type)) {
            throw (InputException)
                    new InputException("column '" + column + "' is dictionary-encoded but its indices are "
                                    + indices.getField().getType() + ", not integers")
                            .fillColumn(column);
        }
        int rows = indices.getValueCount();
        int size = dictionary.getValueCount();
        int width = fixed.getTypeWidth();
        MemorySegment data = segment(fixed.getDataBuffer(), (long) rows * width);
        MemorySegment validity = segment(fixed.getValidityBuffer(), validityBytes(rows));
        long row = IndexScan.firstOutOfRange(data, validity, width, type.getIsSigned(), rows, size);
        if (row >= 0) {
            long index = IndexScan.index(data, width, type.getIsSigned(), row);
            String shown = type.getIsSigned() || width < 8 ? Long.toString(index) : Long.toUnsignedString(index);
            throw malformed(
                    column,
                    column,
                    row,
                    "dictionary index " + shown + " at row " + row + " is outside its dictionary of "
                            + count(size, "value") + (size == 0 ? "" : " (indices 0 to " + (size - 1) + ")"));
        }
    }

    // ------------------------------------------------------------------ per kind of vector

    /** {@code rowsAreBatchRows}: whether row i of {@code v} is row i of the batch (not of a list's elements). */
    private static void check(ValueVector v, String column, String path, boolean rowsAreBatchRows) {
        int rows = v.getValueCount();
        if (rows < 0) {
            throw malformed(column, path, -1, "it declares " + rows + " values");
        }
        switch (v) {
            case NullVector _ -> {}
            case BaseFixedWidthVector f -> {
                validity(f, column, path, rows, rowsAreBatchRows);
                if (f instanceof BitVector) {
                    long need = validityBytes(rows);
                    long have = capacity(f.getDataBuffer());
                    if (have < need) {
                        String unit = unit(rowsAreBatchRows);
                        throw malformed(
                                column,
                                path,
                                firstRow(rowsAreBatchRows, have * 8),
                                "its data buffer holds " + bytes(have)
                                        + ", fewer than the " + bytes(need) + " " + count(rows, "Boolean " + unit)
                                        + " need (" + unit + " "
                                        + have * 8 + " is the first past its end)");
                    }
                } else {
                    int width = f.getTypeWidth();
                    long need = (long) rows * width;
                    long have = capacity(f.getDataBuffer());
                    if (have < need) {
                        String unit = unit(rowsAreBatchRows);
                        throw malformed(
                                column,
                                path,
                                firstRow(rowsAreBatchRows, have / width),
                                "its data buffer holds " + bytes(have)
                                        + ", fewer than the " + bytes(need) + " " + count(rows, unit) + " of "
                                        + bytes(width)
                                        + " need (" + unit + " " + have / width + " is the first past its end)");
                    }
                }
            }
            case BaseVariableWidthVector b -> {
                validity(b, column, path, rows, rowsAreBatchRows);
                offsets(
                        b.getOffsetBuffer(),
                        4,
                        capacity(b.getDataBuffer()),
                        "byte",
                        "of its data buffer",
                        column,
                        path,
                        rows,
                        rowsAreBatchRows);
            }
            case BaseLargeVariableWidthVector b -> {
                validity(b, column, path, rows, rowsAreBatchRows);
                offsets(
                        b.getOffsetBuffer(),
                        8,
                        capacity(b.getDataBuffer()),
                        "byte",
                        "of its data buffer",
                        column,
                        path,
                        rows,
                        rowsAreBatchRows);
            }
            case ListVector l -> {
                validity(l, column, path, rows, rowsAreBatchRows);
                FieldVector child = l.getDataVector();
                offsets(
                        l.getOffsetBuffer(),
                        4,
                        child.getValueCount(),
                        "element",
                        "it has",
                        column,
                        path,
                        rows,
                        rowsAreBatchRows);
                check(child, column, path + "[]", false);
            }
            case LargeListVector l -> {
                validity(l, column, path, rows, rowsAreBatchRows);
                FieldVector child = l.getDataVector();
                offsets(
                        l.getOffsetBuffer(),
                        8,
                        child.getValueCount(),
                        "element",
                        "it has",
                        column,
                        path,
                        rows,
                        rowsAreBatchRows);
                check(child, column, path + "[]", false);
            }
            case FixedSizeListVector l -> {
                validity(l, column, path, rows, rowsAreBatchRows);
                FieldVector child = l.getDataVector();
                long need = (long) rows * l.getListSize();
                if (child.getValueCount() < need) {
                    throw malformed(
                            column,
                            path,
                            firstRow(rowsAreBatchRows, child.getValueCount() / Math.max(1, l.getListSize())),
                            "it has " + count(child.getValueCount(), "element") + ", fewer than the " + need + " that "
                                    + count(rows, unit(rowsAreBatchRows)) + " of " + l.getListSize() + " need");
                }
                check(child, column, path + "[]", false);
            }
            case NonNullableStructVector s -> {
                if (s instanceof StructVector) {
                    validity(s, column, path, rows, rowsAreBatchRows);
                }
                for (FieldVector child : s.getChildrenFromFields()) {
                    if (child.getValueCount() < rows) {
                        String unit = unit(rowsAreBatchRows);
                        throw malformed(
                                column,
                                path,
                                firstRow(rowsAreBatchRows, child.getValueCount()),
                                "its child '" + child.getName()
                                        + "' has " + count(child.getValueCount(), "value") + ", fewer than its "
                                        + count(rows, unit)
                                        + " (" + unit + " " + child.getValueCount() + " is the first without one)");
                    }
                    check(child, column, path + "." + child.getName(), rowsAreBatchRows);
                }
            }
            default -> {
                // Kinds Quiver does not compute on: Arrow's own check of buffer sizes against lengths.
                try {
                    ValueVectorUtility.validate(v);
                } catch (RuntimeException e) {
                    throw (InputException) malformed(column, path, -1, String.valueOf(e.getMessage()))
                            .initCause(e);
                }
            }
        }
    }

    private static void validity(ValueVector v, String column, String path, int rows, boolean rowsAreBatchRows) {
        long need = validityBytes(rows);
        long have = capacity(v.getValidityBuffer());
        if (have < need) {
            String unit = unit(rowsAreBatchRows);
            throw malformed(
                    column,
                    path,
                    firstRow(rowsAreBatchRows, have * 8),
                    "its validity buffer holds " + bytes(have)
                            + ", fewer than the " + bytes(need) + " " + count(rows, unit) + " need (" + unit + " "
                            + have * 8
                            + " is the first past its end)");
        }
    }

    /**
     * The {@code rows + 1} offsets of {@code width} bytes in {@code buffer}: there, starting at 0
     * or more, never decreasing, none past {@code limit} ({@code unit}s {@code of} what they index).
     */
    private static void offsets(
            ArrowBuf buffer,
            int width,
            long limit,
            String unit,
            String of,
            String column,
            String path,
            int rows,
            boolean rowsAreBatchRows) {
        if (rows == 0) {
            return; // zero rows need no offsets: Arrow writes an empty offsets buffer for them
        }
        String r = unit(rowsAreBatchRows);
        long need = ((long) rows + 1) * width;
        long have = capacity(buffer);
        if (have < need) {
            long firstBad = Math.max(0, have / width - 1); // the first row without its end offset
            throw malformed(
                    column,
                    path,
                    firstRow(rowsAreBatchRows, firstBad),
                    "its offset buffer holds " + bytes(have)
                            + ", fewer than the " + bytes(need) + " " + count(rows, r) + " need (" + (rows + 1)
                            + " offsets of "
                            + bytes(width) + "; " + r + " " + firstBad + " is the first without its end)");
        }
        MemorySegment offsets = segment(buffer, need);
        long bad = width == 4
                ? OffsetScan.firstBadInt(offsets, rows + 1L, limit)
                : OffsetScan.firstBadLong(offsets, rows + 1L, limit);
        if (bad < 0) {
            return;
        }
        long value = width == 4
                ? offsets.get(ValueLayout.JAVA_INT_UNALIGNED, bad << 2)
                : offsets.get(ValueLayout.JAVA_LONG_UNALIGNED, bad << 3);
        String past = limit + " " + unit + (limit == 1 ? "" : "s") + " " + of;
        if (bad == 0) {
            throw malformed(
                    column,
                    path,
                    firstRow(rowsAreBatchRows, 0),
                    value < 0
                            ? "its first offset is " + value + "; offsets start at 0 or more"
                            : r + " 0 starts at " + unit + " " + value + ", past the " + past);
        }
        long row = bad - 1;
        long previous = width == 4
                ? offsets.get(ValueLayout.JAVA_INT_UNALIGNED, row << 2)
                : offsets.get(ValueLayout.JAVA_LONG_UNALIGNED, row << 3);
        throw malformed(
                column,
                path,
                firstRow(rowsAreBatchRows, row),
                value < previous
                        ? "its offsets decrease at " + r + " " + row + " (from " + previous + " to " + value + ")"
                        : r + " " + row + " ends at " + unit + " " + value + ", past the " + past);
    }

    // ------------------------------------------------------------------ helpers

    private static InputException malformed(String column, String path, long row, String what) {
        InputException e = new InputException("column '" + path + "' is malformed: " + what);
        e.fillColumn(column);
        e.fillRow(row);
        return e;
    }

    private static long firstRow(boolean rowsAreBatchRows, long row) {
        return rowsAreBatchRows ? row : -1;
    }

    /** What the rows of a vector are called: the batch's rows, or the values (elements) of a list. */
    private static String unit(boolean rowsAreBatchRows) {
        return rowsAreBatchRows ? "row" : "value";
    }

    private static long capacity(ArrowBuf buffer) {
        return buffer == null ? 0 : buffer.capacity();
    }

    static long validityBytes(long rows) {
        return (rows + 7) / 8;
    }

    /**
     * The first {@code bytes} bytes of {@code buffer} (which holds at least that many) as a
     * segment for this check only: it is not kept, so it cannot outlive the buffer.
     */
    private static MemorySegment segment(ArrowBuf buffer, long bytes) {
        if (bytes == 0) {
            return MemorySegment.NULL;
        }
        return MemorySegment.ofAddress(buffer.memoryAddress()).reinterpret(bytes);
    }

    private static String bytes(long n) {
        return count(n, "byte");
    }

    private static String count(long n, String what) {
        return n + " " + what + (n == 1 ? "" : "s");
    }
}
