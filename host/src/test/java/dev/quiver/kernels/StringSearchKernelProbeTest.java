package dev.quiver.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.value.ColumnarValue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.junit.jupiter.api.Test;

/**
 * The search kernels at their edges: string columns whose buffers have exactly the bytes
 * they need (any read past them is an IndexOutOfBoundsException), offset[0] > 0, nulls with
 * needle bytes behind them, needles of 1 to 12 bytes; contains, starts_with, ends_with, strpos
 * and LIKE '%x%' / NOT LIKE against java.lang.String.
 */
class StringSearchKernelProbeTest {
    private static final String[] ALPHABET = {"a", "b", "c", "é", "日", "𝄞"};

    /** A string vector whose validity, offset and data buffers are exactly as long as needed. */
    static FieldVector exact(List<String> values, boolean large, int lead, BufferAllocator allocator) {
        int rows = values.size();
        List<byte[]> bytes = new ArrayList<>();
        long total = lead;
        for (String v : values) {
            byte[] b = v == null ? "abc".getBytes(StandardCharsets.UTF_8) : v.getBytes(StandardCharsets.UTF_8);
            bytes.add(b);
            total += b.length;
        }
        int width = large ? 8 : 4;
        try (ArrowBuf validity = allocator.buffer(Math.max(1, (rows + 7) / 8)).slice(0, (rows + 7) / 8);
                ArrowBuf offsets = allocator.buffer((long) (rows + 1) * width).slice(0, (long) (rows + 1) * width);
                ArrowBuf data = allocator.buffer(Math.max(1, total)).slice(0, total)) {
            validity.setZero(0, validity.capacity());
            long pos = 0;
            for (int k = 0; k < lead; k++) {
                data.setByte(pos++, 'a');
            }
            int nulls = 0;
            for (int i = 0; i < rows; i++) {
                if (large) {
                    offsets.setLong((long) i * width, pos);
                } else {
                    offsets.setInt((long) i * width, (int) pos);
                }
                data.setBytes(pos, bytes.get(i));
                pos += bytes.get(i).length;
                if (values.get(i) != null) {
                    validity.setByte(i >>> 3, validity.getByte(i >>> 3) | 1 << (i & 7));
                } else {
                    nulls++;
                }
            }
            if (large) {
                offsets.setLong((long) rows * width, pos);
            } else {
                offsets.setInt((long) rows * width, (int) pos);
            }
            FieldVector v = large ? new LargeVarCharVector("s", allocator) : new VarCharVector("s", allocator);
            v.loadFieldBuffers(new ArrowFieldNode(rows, nulls), List.of(validity, offsets, data));
            return v;
        }
    }

    private static Boolean bool(FieldVector v, int i) {
        return v.isNull(i) ? null : ((BitVector) v).get(i) != 0;
    }

    @Test
    void searchesOverExactBuffersAgreeWithString() {
        Random r = new Random(42);
        try (BufferAllocator allocator = new RootAllocator()) {
            for (int round = 0; round < 400; round++) {
                int rows = r.nextInt(200);
                int letters = 2 + r.nextInt(ALPHABET.length - 1);
                List<String> values = new ArrayList<>();
                for (int i = 0; i < rows; i++) {
                    if (r.nextInt(10) == 0) {
                        values.add(null);
                        continue;
                    }
                    int n = r.nextInt(8) == 0 ? r.nextInt(200) : r.nextInt(10);
                    StringBuilder sb = new StringBuilder();
                    for (int k = 0; k < n; k++) {
                        sb.append(ALPHABET[r.nextInt(letters)]);
                    }
                    values.add(sb.toString());
                }
                StringBuilder nb = new StringBuilder();
                int nl = 1 + r.nextInt(12);
                for (int k = 0; k < nl; k++) {
                    nb.append(r.nextInt(3) == 0 ? ALPHABET[r.nextInt(letters)] : "a");
                }
                String needle = r.nextInt(6) == 0 ? "abc" : nb.toString();
                // often a needle that is the tail of the last row
                if (!values.isEmpty()
                        && values.getLast() != null
                        && !values.getLast().isEmpty()
                        && r.nextBoolean()) {
                    String last = values.getLast();
                    int cps = last.codePointCount(0, last.length());
                    int from = last.offsetByCodePoints(0, r.nextInt(cps));
                    needle = last.substring(from);
                }
                boolean large = r.nextBoolean();
                int lead = r.nextInt(3) == 0 ? r.nextInt(20) : 0;
                String ctx = "round " + round + " needle '" + needle + "' large " + large + " lead " + lead + " values "
                        + values;
                try (FieldVector s = exact(values, large, lead, allocator);
                        FieldVector nd = exact(List.of(needle), large, 0, allocator);
                        FieldVector c = StringSearchKernels.contains(s, nd, allocator);
                        FieldVector sw = StringSearchKernels.startsWith(s, nd, allocator);
                        FieldVector ew = StringSearchKernels.endsWith(s, nd, allocator);
                        FieldVector pos = StringSearchKernels.position(s, nd, allocator)) {
                    LikePattern p = LikePattern.compile("%" + needle + "%", null, false);
                    try (ColumnarValue like =
                                    Kernels.like(new ColumnarValue.Array(s, false), p, false, rows, allocator);
                            ColumnarValue notLike =
                                    Kernels.like(new ColumnarValue.Array(s, false), p, true, rows, allocator)) {
                        FieldVector lv = ((ColumnarValue.Array) like).vector();
                        FieldVector nlv = ((ColumnarValue.Array) notLike).vector();
                        for (int i = 0; i < rows; i++) {
                            String v = values.get(i);
                            String at = ctx + " row " + i;
                            assertEquals(v == null ? null : v.contains(needle), bool(c, i), "contains " + at);
                            assertEquals(v == null ? null : v.startsWith(needle), bool(sw, i), "starts_with " + at);
                            assertEquals(v == null ? null : v.endsWith(needle), bool(ew, i), "ends_with " + at);
                            assertEquals(v == null ? null : v.contains(needle), bool(lv, i), "like " + at);
                            assertEquals(v == null ? null : !v.contains(needle), bool(nlv, i), "not like " + at);
                            Long want = null;
                            if (v != null) {
                                int k = v.indexOf(needle);
                                want = k < 0 ? 0L : 1L + v.codePointCount(0, k);
                            }
                            assertEquals(want, pos.isNull(i) ? null : ((BigIntVector) pos).get(i), "strpos " + at);
                        }
                    }
                }
                assertEquals(0, allocator.getAllocatedMemory(), ctx);
            }
        }
    }
}
