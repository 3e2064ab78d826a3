package dev.quiver.tests;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.BaseListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;

/**
 * Malformed vectors made the way an IPC reader makes every vector: by
 * {@link FieldVector#loadFieldBuffers} with a field node (declared length, null count) and
 * buffers the reader does not check, or by bytes of a buffer that a producer wrote wrong.
 *
 * <p>A corruption is {@code <column> <what> <arguments>}, the column a top-level name or a path
 * to a child: {@code st.a} (a struct's child), {@code l[]} (a list's elements):
 * <ul>
 *   <li>{@code offset I V}: offset {@code I} (of a string, binary or list column) becomes {@code V};</li>
 *   <li>{@code index ROW V}: the dictionary index (or any 4-byte value) of row {@code ROW} becomes
 *       {@code V}, its validity bit left as it is;</li>
 *   <li>{@code validity-bytes N}, {@code offset-bytes N}, {@code data-bytes N}: that buffer is
 *       replaced by its first {@code N} bytes (a validity buffer is kept by Arrow only when the
 *       column has some nulls and some values: give the column a NULL);</li>
 *   <li>{@code value-count N}: the column declares {@code N} values over the same buffers (a
 *       top-level column also makes the batch {@code N} rows, as a record batch's length
 *       does).</li>
 * </ul>
 */
final class BatchCorruption {
    private BatchCorruption() {}

    /** Applies {@code spec} to {@code batch}; replacement buffers come from {@code allocator} and end up owned by the vector. */
    static void apply(VectorSchemaRoot batch, String spec, BufferAllocator allocator) {
        String[] w = spec.trim().split("\\s+");
        if (w.length < 2) {
            throw new IllegalArgumentException("a corruption is '<column> <what> <arguments>', got '" + spec + "'");
        }
        Matcher step = Pattern.compile("\\[]|[^.\\[]+").matcher(w[0]);
        FieldVector v = null;
        int depth = 0;
        while (step.find()) {
            String name = step.group();
            FieldVector parent = v;
            if (parent == null) {
                v = batch.getVector(name);
            } else if (name.equals("[]") && parent instanceof BaseListVector list) {
                v = (FieldVector) list.getChildrenFromFields().getFirst();
            } else {
                v = parent.getChildrenFromFields().stream()
                        .filter(c -> c.getName().equals(name))
                        .findFirst()
                        .orElse(null);
            }
            if (v == null) {
                throw new IllegalArgumentException("no column '" + name + "' to corrupt in '" + spec + "'");
            }
            depth++;
        }
        boolean topLevel = depth == 1;
        switch (w[1]) {
            case "offset" -> setOffset(v, Integer.parseInt(w[2]), Long.parseLong(w[3]));
            case "index" ->
                ((BaseFixedWidthVector) v)
                        .getDataBuffer()
                        .setInt((long) Integer.parseInt(w[2]) * 4, Integer.parseInt(w[3]));
            case "validity-bytes" -> truncate(v, 0, Long.parseLong(w[2]), allocator);
            case "offset-bytes" -> truncate(v, 1, Long.parseLong(w[2]), allocator);
            case "data-bytes" -> truncate(v, v.getFieldBuffers().size() - 1, Long.parseLong(w[2]), allocator);
            case "value-count" -> declare(batch, v, topLevel, Integer.parseInt(w[2]));
            default -> throw new IllegalArgumentException("unknown corruption '" + w[1] + "' in '" + spec + "'");
        }
    }

    private static void setOffset(FieldVector v, int index, long value) {
        ArrowBuf offsets = v.getOffsetBuffer();
        if (v instanceof BaseLargeVariableWidthVector || v instanceof LargeListVector) {
            offsets.setLong((long) index * 8, value);
        } else {
            offsets.setInt((long) index * 4, (int) value);
        }
    }

    /**
     * {@code v} declares {@code rows} values over the buffers it has; a top-level column makes
     * the batch {@code rows} rows (which grows the other columns to that many, as valid columns).
     */
    private static void declare(VectorSchemaRoot batch, FieldVector v, boolean topLevel, int rows) {
        List<ArrowBuf> buffers = new ArrayList<>(v.getFieldBuffers());
        int nulls = nullCount(v, rows);
        buffers.forEach(b -> b.getReferenceManager().retain()); // setRowCount would reallocate and free them
        try {
            if (topLevel) {
                batch.setRowCount(rows);
            }
            load(v, rows, nulls, buffers);
        } finally {
            buffers.forEach(b -> b.getReferenceManager().release());
        }
    }

    /** Buffer {@code which} of {@code v}'s field buffers replaced by a copy of its first {@code bytes} bytes. */
    private static void truncate(FieldVector v, int which, long bytes, BufferAllocator allocator) {
        List<ArrowBuf> buffers = new ArrayList<>(v.getFieldBuffers());
        ArrowBuf old = buffers.get(which);
        int nulls = nullCount(v, v.getValueCount());
        try (ArrowBuf copy = allocator.buffer(Math.max(1, bytes))) {
            copy.setBytes(0, old, 0, Math.min(bytes, old.capacity()));
            // A slice has exactly the bytes asked for (an allocation is rounded up), as a buffer of an IPC message body
            // has.
            buffers.set(which, copy.slice(0, bytes));
            buffers.forEach(b -> b.getReferenceManager().retain());
            try {
                load(v, v.getValueCount(), nulls, buffers);
            } finally {
                buffers.forEach(b -> b.getReferenceManager().release());
            }
        }
        if (which == 0 && v.getValidityBuffer().capacity() > bytes) {
            throw new IllegalArgumentException("Arrow replaced the short validity buffer of '" + v.getName()
                    + "' (a column without nulls, or all null): give the column a NULL row and a value");
        }
    }

    /**
     * What an IPC reader does: {@code v} over {@code buffers}, declared to hold {@code rows}
     * values of which {@code nulls} are null. loadFieldBuffers releases the vector's buffers
     * before it retains the new ones: the caller holds a reference to each across it.
     */
    private static void load(FieldVector v, int rows, int nulls, List<ArrowBuf> buffers) {
        v.loadFieldBuffers(new ArrowFieldNode(rows, nulls), buffers);
    }

    /**
     * The null count a reader would be told: the column's own over its first {@code rows} rows
     * while it has them; else 1, so that Arrow keeps the bitmap given (it makes a new one for a
     * count of 0).
     */
    private static int nullCount(FieldVector v, int rows) {
        if (rows > v.getValueCount()) {
            return Math.min(1, rows);
        }
        int n = 0;
        for (int i = 0; i < rows; i++) {
            n += v.isNull(i) ? 1 : 0;
        }
        return n;
    }
}
