package dev.quiver.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Test;

/**
 * {@link Needle#searchAllRows}, the one-pass vector search behind {@code contains} and
 * {@code LIKE '%x%'}, against {@code String.contains} per row: a three-letter alphabet (matches
 * and near-matches everywhere), needles of 1 to 9 bytes (the vector compares at most four, the
 * rest is confirmed), rows from empty to longer than a vector step, needles split across rows,
 * multi-byte text, Utf8 and LargeUtf8, and a data buffer whose first row does not start at 0.
 */
class NeedleTest {
    @Test
    void everyRowAgreesWithStringContains() {
        long seed = 8_675_309L;
        Random r = new Random(seed);
        String[] alphabet = {"a", "b", "c", "é", "日"};
        try (BufferAllocator allocator = new RootAllocator()) {
            for (int round = 0; round < 300; round++) {
                int rows = r.nextInt(260);
                int letters = 2 + r.nextInt(4);
                List<String> values = new ArrayList<>();
                for (int i = 0; i < rows; i++) {
                    int n = r.nextInt(10) == 0 ? r.nextInt(300) : r.nextInt(12);
                    StringBuilder sb = new StringBuilder();
                    for (int k = 0; k < n; k++) {
                        sb.append(alphabet[r.nextInt(letters)]);
                    }
                    values.add(sb.toString());
                }
                StringBuilder nb = new StringBuilder();
                int nl = 1 + r.nextInt(5);
                for (int k = 0; k < nl; k++) {
                    nb.append(alphabet[r.nextInt(letters)]);
                }
                String needle = nb.toString();
                boolean large = r.nextBoolean();
                int skip = r.nextInt(3) == 0 ? 1 + r.nextInt(9) : 0;
                try (FieldVector v = vector(values, large, skip, allocator);
                        Arena arena = Arena.ofConfined()) {
                    if (skip > 0) {
                        values = values.subList(1, values.size());
                    }
                    long[] hits = Needle.of(needle.getBytes(StandardCharsets.UTF_8))
                            .searchAllRows(ByteColumn.of(v, arena), values.size());
                    for (int i = 0; i < values.size(); i++) {
                        boolean expected = values.get(i).contains(needle);
                        assertEquals(
                                expected,
                                (hits[i >>> 6] >>> i & 1) != 0,
                                "seed " + seed + " round " + round + " row " + i + " '" + values.get(i) + "' needle '"
                                        + needle + "'");
                    }
                }
            }
        }
    }

    /**
     * The values as a Utf8 or LargeUtf8 vector; with {@code skip > 0}, the first value is dropped
     * by moving the offsets (the data buffer then starts with bytes no row owns).
     */
    private static FieldVector vector(List<String> values, boolean large, int skip, BufferAllocator allocator) {
        FieldVector v = large ? new LargeVarCharVector("s", allocator) : new VarCharVector("s", allocator);
        v.allocateNew();
        List<String> all = new ArrayList<>(values);
        if (skip > 0) {
            if (all.isEmpty()) {
                all.add("");
            }
            all.set(0, "abc".repeat(skip));
        }
        for (int i = 0; i < all.size(); i++) {
            byte[] b = all.get(i).getBytes(StandardCharsets.UTF_8);
            if (large) {
                ((LargeVarCharVector) v).setSafe(i, b);
            } else {
                ((VarCharVector) v).setSafe(i, b);
            }
        }
        v.setValueCount(all.size());
        if (skip > 0) {
            // Shift the offsets down by one row: row i is the old row i + 1.
            int width = large ? 8 : 4;
            for (int i = 0; i < all.size(); i++) {
                long next = large
                        ? v.getOffsetBuffer().getLong((long) (i + 1) * width)
                        : v.getOffsetBuffer().getInt((long) (i + 1) * width);
                if (large) {
                    v.getOffsetBuffer().setLong((long) i * width, next);
                } else {
                    v.getOffsetBuffer().setInt((long) i * width, (int) next);
                }
            }
            v.setValueCount(all.size() - 1);
        }
        return v;
    }
}
