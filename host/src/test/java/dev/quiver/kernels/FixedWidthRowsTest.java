package dev.quiver.kernels;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Dense filters of fixed-width values, by every path ({@link FixedWidthRows#filter} as this
 * machine runs it, the walk run by run, and {@link VectorCompress} whether or not the hardware
 * compresses in one instruction), against a byte-by-byte reference. Source and result are
 * native segments of exactly the rows' and the kept values' bytes, so a load or store past
 * either end throws. Randomized: the seed is printed; replay with {@code -Dquiver.seed=<seed>},
 * explore with {@code -Dquiver.seed=random}.
 */
class FixedWidthRowsTest {
    static final long SEED = "random".equals(System.getProperty("quiver.seed"))
            ? System.nanoTime()
            : Long.getLong("quiver.seed", 20261207L);
    private static final int[] WIDTHS = {1, 2, 4, 8, 16};
    private static final int[] ROWS = {0, 1, 63, 64, 65, 1000, 65536 + 7};
    private static final boolean VECTOR_API =
            ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();

    static {
        System.out.println("FixedWidthRowsTest seed " + SEED + " (replay with -Dquiver.seed=" + SEED + ")");
        if (VECTOR_API) {
            System.out.println("FixedWidthRowsTest: compress is one instruction here for widths "
                    + Arrays.stream(WIDTHS).filter(VectorCompress::fast).boxed().toList());
        }
    }

    /** A named selection of some rows. */
    private record Shape(String name, Selection selection) {}

    private static List<Shape> shapes(int rows, Random random) {
        List<Shape> out = new ArrayList<>();
        out.add(new Shape("all", Selection.all(rows)));
        out.add(new Shape("none", Selection.none(rows)));
        for (double density : new double[] {0.3, 0.9, 0.98, 0.999}) {
            long[] w = new long[(rows + 63) >>> 6];
            for (int r = 0; r < rows; r++) {
                if (random.nextDouble() < density) {
                    w[r >>> 6] |= 1L << r;
                }
            }
            out.add(new Shape("random " + density, Selection.ofWords(w, rows)));
        }
        for (long bits : new long[] {0x5555_5555_5555_5555L, 0xAAAA_AAAA_AAAA_AAAAL}) {
            long[] w = new long[(rows + 63) >>> 6];
            Arrays.fill(w, bits);
            out.add(new Shape("alternating " + Long.toHexString(bits), Selection.ofWords(w, rows)));
        }
        return out;
    }

    /** The kept values' bytes, row by row. */
    private static byte[] reference(byte[] src, int width, Selection selection) {
        byte[] out = new byte[selection.count() * width];
        int k = 0;
        for (int r = 0; r < selection.rows(); r++) {
            if (selection.get(r)) {
                System.arraycopy(src, r * width, out, k * width, width);
                k++;
            }
        }
        return out;
    }

    /** One way to filter: writes the kept values of {@code src} to {@code dst}. */
    @FunctionalInterface
    private interface Path {
        void filter(MemorySegment src, MemorySegment dst, int width, Selection selection);
    }

    private static void compressThenRuns(MemorySegment src, MemorySegment dst, int width, Selection selection) {
        long k = VectorCompress.filter(src, dst, width, selection);
        int whole = selection.rows() >>> 6;
        long expected = 0;
        for (int wi = 0; wi < whole; wi++) {
            expected += Long.bitCount(selection.word(wi));
        }
        assertEquals(expected, k, "values of the whole words");
        FixedWidthRows.filterRuns(src, dst, width, selection, whole, k);
    }

    private static void check(String path, Path filter, int width) {
        Random random = new Random(SEED ^ width);
        for (int rows : ROWS) {
            byte[] values = new byte[rows * width];
            random.nextBytes(values);
            for (Shape shape : shapes(rows, random)) {
                Selection s = shape.selection();
                byte[] expected = reference(values, width, s);
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment src = arena.allocate(values.length);
                    MemorySegment.copy(values, 0, src, ValueLayout.JAVA_BYTE, 0, values.length);
                    MemorySegment dst = arena.allocate(expected.length);
                    filter.filter(src, dst, width, s);
                    assertArrayEquals(
                            expected,
                            dst.toArray(ValueLayout.JAVA_BYTE),
                            path + " of " + rows + " rows of " + width + " bytes, selection " + shape.name() + " (seed "
                                    + SEED + ")");
                }
            }
        }
    }

    @Test
    void filterMatchesTheReference() {
        for (int width : WIDTHS) {
            check("filter", FixedWidthRows::filter, width);
        }
    }

    @Test
    void runsMatchTheReference() {
        for (int width : WIDTHS) {
            check("runs", (src, dst, w, s) -> FixedWidthRows.filterRuns(src, dst, w, s, 0, 0), width);
        }
    }

    @Test
    void compressMatchesTheReference() {
        assumeTrue(VECTOR_API, "the jdk.incubator.vector module is absent");
        for (int width : new int[] {1, 2, 4, 8}) {
            check("compress", FixedWidthRowsTest::compressThenRuns, width);
        }
    }

    @Test
    void compressRefusesOtherWidths() {
        assumeTrue(VECTOR_API, "the jdk.incubator.vector module is absent");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(128);
            assertThrows(IllegalArgumentException.class, () -> VectorCompress.filter(m, m, 16, Selection.all(64)));
        }
    }
}
