package dev.quiver.kernels;

import dev.quiver.memory.Resources;
import dev.quiver.strings.Utf8Input;
import dev.quiver.strings.Utf8Output;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * String concatenation straight from the input buffers into the output's: per row, nothing but
 * copies of the parts' bytes. Each part has one row (a constant every row reads) or
 * {@code rows} rows; all parts are Utf8 or LargeUtf8, and the result is LargeUtf8 when
 * {@code large}. Inputs are borrowed; the result belongs to the caller ({@code allocator}).
 */
public final class ConcatKernels {
    private ConcatKernels() {}

    /** How NULL parts are treated. */
    public enum Nulls {
        /** {@code concat}: NULL parts are skipped; the result is never NULL. */
        SKIP,
        /** {@code ||}: NULL when any part is NULL. */
        STRICT
    }

    /** {@code concat(parts...)} ({@link Nulls#SKIP}) or {@code a || b || ...} ({@link Nulls#STRICT}). */
    public static FieldVector concat(
            List<FieldVector> parts, int rows, Nulls nulls, boolean large, BufferAllocator allocator) {
        return run(null, parts, rows, nulls, large, allocator);
    }

    /**
     * {@code concat_ws(separator, parts...)}: NULL where the separator is NULL; otherwise the
     * non-NULL parts joined by the separator (NULL parts are skipped with their separator).
     */
    public static FieldVector concatWs(
            FieldVector separator, List<FieldVector> parts, int rows, boolean large, BufferAllocator allocator) {
        return run(Objects.requireNonNull(separator, "separator is null"), parts, rows, Nulls.SKIP, large, allocator);
    }

    private static FieldVector run(
            FieldVector separator,
            List<FieldVector> parts,
            int rows,
            Nulls nulls,
            boolean large,
            BufferAllocator allocator) {
        Objects.requireNonNull(allocator, "allocator is null");
        List<Utf8Input> inputs = new ArrayList<>(parts.size() + 1);
        try {
            long bytes = 0;
            boolean anyNulls = false;
            for (FieldVector v : parts) {
                Utf8Input in = view(v, rows);
                inputs.add(in);
                bytes += in.constant() ? in.byteLength(0) * rows : in.rows() == 0 ? 0 : in.end(rows - 1) - in.start(0);
                anyNulls |= in.hasNulls();
            }
            Utf8Input sep = separator == null ? null : view(separator, rows);
            long sepBytes = 0;
            if (sep != null) {
                inputs.add(sep);
                sepBytes = sep.constant()
                        ? sep.byteLength(0) * (long) rows * Math.max(0, parts.size() - 1)
                        : rows == 0 ? 0 : (sep.end(rows - 1) - sep.start(0)) * Math.max(0, parts.size() - 1);
            }
            int n = parts.size();
            Utf8Input[] in = inputs.subList(0, n).toArray(new Utf8Input[0]);
            MemorySegment[] data = new MemorySegment[n];
            for (int k = 0; k < n; k++) {
                data[k] = in[k].data();
            }
            try (Utf8Output out = Utf8Output.allocate(large, "result", rows, bytes + sepBytes, allocator)) {
                if (sep != null) {
                    MemorySegment sd = sep.data();
                    for (int r = 0; r < rows; r++) {
                        if (!sep.isValid(r)) {
                            out.nullRow();
                            continue;
                        }
                        long ss = sep.start(r);
                        long sl = sep.end(r) - ss;
                        boolean first = true;
                        for (int k = 0; k < n; k++) {
                            if (in[k].isValid(r)) {
                                if (!first) {
                                    out.append(sd, ss, sl);
                                }
                                first = false;
                                long s = in[k].start(r);
                                out.append(data[k], s, in[k].end(r) - s);
                            }
                        }
                        out.endRow();
                    }
                } else if (!anyNulls) {
                    // No part has a null: the loop only copies.
                    for (int r = 0; r < rows; r++) {
                        for (int k = 0; k < n; k++) {
                            long s = in[k].start(r);
                            out.append(data[k], s, in[k].end(r) - s);
                        }
                        out.endRow();
                    }
                } else {
                    for (int r = 0; r < rows; r++) {
                        boolean isNull = false;
                        for (int k = 0; k < n; k++) {
                            if (in[k].isValid(r)) {
                                long s = in[k].start(r);
                                out.append(data[k], s, in[k].end(r) - s);
                            } else if (nulls == Nulls.STRICT) {
                                isNull = true;
                                break;
                            }
                        }
                        if (isNull) {
                            out.nullRow();
                        } else {
                            out.endRow();
                        }
                    }
                }
                return out.finish();
            }
        } finally {
            Resources.closeAll(inputs);
        }
    }

    private static Utf8Input view(FieldVector v, int rows) {
        if (v.getValueCount() == 1 && rows != 1) {
            return Utf8Input.constant(v);
        }
        if (v.getValueCount() != rows) {
            throw new IllegalArgumentException("a string part of " + v.getValueCount() + " rows for " + rows + " rows");
        }
        return Utf8Input.of(v);
    }
}
