package dev.quiver.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * {@link StringBenchmark}'s data: one nullable Utf8 column {@code s} of short ASCII strings, from a
 * fixed seed (the same arguments give the same batches). Each row:
 * <ul>
 * <li>is null with probability {@link #NULL_FRACTION}; a null row still has bytes behind it, a
 *     string that contains {@link #NEEDLE} (as Arrow writers commonly leave a value behind a null),
 *     so a kernel that reads them as text gives a wrong answer;</li>
 * <li>otherwise holds 5 to 20 characters (uniform) from the small alphabet {@link #ALPHABET}, so
 *     partial matches such as {@code "ab"} and {@code "bc"} are frequent;</li>
 * <li>contains {@link #NEEDLE} with probability {@link #MATCH_FRACTION}, planted at the start, in
 *     the middle or at the end of the row (one third each); no other row contains it (accidental
 *     occurrences are broken by replacing their {@code 'c'} with {@code 'd'});</li>
 * <li>of the rows that do not contain it, a fraction {@link #SPLIT_FRACTION} end with {@code "ab"}
 *     and the next row starts with {@code 'c'}: the needle occurs across the boundary of two
 *     adjacent rows in the data buffer, where it must not match.</li>
 * </ul>
 */
public final class StringBatches {
    /** The string the benchmarks look for. */
    public static final String NEEDLE = "abc";
    /** The characters of every row. */
    public static final String ALPHABET = "abcdefgh";

    public static final int MIN_LENGTH = 5;
    public static final int MAX_LENGTH = 20;
    public static final double NULL_FRACTION = 0.01;
    public static final double MATCH_FRACTION = 0.10;
    public static final double SPLIT_FRACTION = 0.02;

    private StringBatches() {}

    /** The schema: one nullable Utf8 column {@code s}. */
    public static Schema schema() {
        return new Schema(List.of(Field.nullable("s", ArrowType.Utf8.INSTANCE)));
    }

    /**
     * {@code rows} rows in batches of {@code batchRows} (the last one shorter when they do not
     * divide), allocated from {@code allocator}. The caller closes every batch.
     */
    public static List<VectorSchemaRoot> generate(BufferAllocator allocator, long seed, long rows, int batchRows) {
        if (rows < 0 || batchRows <= 0) {
            throw new IllegalArgumentException("rows " + rows + ", batch rows " + batchRows);
        }
        SplittableRandom random = new SplittableRandom(seed);
        Schema schema = schema();
        List<VectorSchemaRoot> batches = new ArrayList<>();
        byte[] row = new byte[MAX_LENGTH];
        boolean startWithC = false;
        try {
            for (long start = 0; start < rows || (rows == 0 && batches.isEmpty()); start += batchRows) {
                int n = (int) Math.min(batchRows, rows - start);
                VectorSchemaRoot batch = VectorSchemaRoot.create(schema, allocator);
                batches.add(batch);
                VarCharVector s = (VarCharVector) batch.getVector(0);
                s.allocateNew((long) n * MAX_LENGTH, n);
                for (int i = 0; i < n; i++) {
                    boolean isNull = random.nextDouble() < NULL_FRACTION;
                    boolean match = random.nextDouble() < MATCH_FRACTION;
                    int length = MIN_LENGTH + random.nextInt(MAX_LENGTH - MIN_LENGTH + 1);
                    for (int j = 0; j < length; j++) {
                        row[j] = (byte) ALPHABET.charAt(random.nextInt(ALPHABET.length()));
                    }
                    if (startWithC) {
                        row[0] = 'c';
                    }
                    breakNeedles(row, length);
                    startWithC = false;
                    if (match || isNull) {
                        plant(row, length, random.nextInt(3), random);
                    } else if (random.nextDouble() < SPLIT_FRACTION) {
                        // Ending in "ab" makes no needle inside the row: its last byte is not 'c'.
                        row[length - 2] = 'a';
                        row[length - 1] = 'b';
                        startWithC = true;
                    }
                    s.set(i, row, 0, length);
                    if (isNull) {
                        // Clears the validity bit only: the bytes stay behind the null.
                        s.setNull(i);
                    }
                }
                s.setValueCount(n);
                batch.setRowCount(n);
            }
            return batches;
        } catch (RuntimeException | Error e) {
            batches.forEach(VectorSchemaRoot::close);
            throw e;
        }
    }

    /** Replaces the {@code 'c'} of every {@link #NEEDLE} in {@code row[0, length)} with {@code 'd'}. */
    private static void breakNeedles(byte[] row, int length) {
        for (int j = 0; j + 2 < length; j++) {
            if (row[j] == 'a' && row[j + 1] == 'b' && row[j + 2] == 'c') {
                row[j + 2] = 'd';
            }
        }
    }

    /** Writes {@link #NEEDLE} at the start (where 0), in the middle (1) or at the end (2) of {@code row[0, length)}. */
    private static void plant(byte[] row, int length, int where, SplittableRandom random) {
        int at = switch (where) {
            case 0 -> 0;
            case 1 -> 1 + random.nextInt(length - NEEDLE.length() - 1);
            default -> length - NEEDLE.length();
        };
        for (int j = 0; j < NEEDLE.length(); j++) {
            row[at + j] = (byte) NEEDLE.charAt(j);
        }
    }
}
