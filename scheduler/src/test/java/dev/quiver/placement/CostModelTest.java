package dev.quiver.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The cost model's transfer term: resident bytes are not transferred, overlapped chunks hide transfer behind work. */
class CostModelTest {
    /** A copying device: 1 ns per byte transferred, 0.1 ns per byte of device memory, 10 ns per transcendental. */
    private static final DeviceFigures GPU =
            new DeviceFigures("test gpu", 10_000, 0.1, 0.1, 1.0, 0.01, 0.1, 10, 1, 1, 0, 0, DeviceFigures.Source.GIVEN);

    private static final DeviceFigures SHARED = new DeviceFigures(
            "test igpu", 10_000, 0.1, 0.1, 0.0, 0.01, 0.1, 10, 1, 1, 0, 0, DeviceFigures.Source.GIVEN);
    /** One transcendental per row, 16 bytes read and 8 written. */
    private static final SegmentProfile TRANSCENDENTAL = new SegmentProfile(0, 0, 1, 16, 8);

    private static final long ROWS = 16L << 20;

    @Test
    void withoutResidencyOrOverlapEveryByteIsTransferred() {
        CostModel.Estimate e = CostModel.estimate(GPU, TRANSCENDENTAL, ROWS, 1, 0);
        assertEquals(ROWS * 24.0, e.transferNanos(), 1e-3);
        assertEquals(0, e.hiddenNanos());
        assertEquals(10_000 + ROWS * 24.0 + ROWS * 10.0, e.totalNanos(), 1e-3);
        assertEquals(e.totalNanos(), CostModel.totalNanos(GPU, TRANSCENDENTAL, ROWS, 1, 0), 1e-3);
    }

    @Test
    void residentBytesAreNotTransferred() {
        CostModel.Path path = new CostModel.Path(ROWS * 8, 0);
        CostModel.Estimate e = CostModel.estimate(GPU, TRANSCENDENTAL, ROWS, 1, 0, path);
        assertEquals(ROWS * 16.0, e.transferNanos(), 1e-3);
        assertEquals(ROWS * 8, e.residentBytes());
        assertEquals(e.totalNanos(), CostModel.totalNanos(GPU, TRANSCENDENTAL, ROWS, 1, 0, path), 1e-3);
        assertTrue(e.describe().contains(ROWS * 8 + " B resident"), e.describe());
        // A device that reads host memory transfers nothing, resident or not.
        assertEquals(
                0, CostModel.estimate(SHARED, TRANSCENDENTAL, ROWS, 1, 0, path).residentBytes());
    }

    @Test
    void overlapHidesTheTransferBehindTheWorkButTheFirstAndLastChunk() {
        int chunk = 1 << 20; // 16 chunks
        CostModel.Path path = new CostModel.Path(0, chunk);
        CostModel.Estimate e = CostModel.estimate(GPU, TRANSCENDENTAL, ROWS, 1, 0, path);
        double transfer = ROWS * 24.0, work = ROWS * 10.0;
        // Transfer (24 ns/row) exceeds the work (10 ns/row): all the work's time hides transfer, less one chunk's
        // share.
        assertEquals(work - transfer / 16, e.hiddenNanos(), 1e-3);
        assertEquals(e.totalNanos(), CostModel.totalNanos(GPU, TRANSCENDENTAL, ROWS, 1, 0, path), 1e-3);
        assertTrue(e.describe().contains("hidden by overlap"), e.describe());
        // Two chunks or fewer: no overlap.
        assertEquals(
                0,
                CostModel.estimate(GPU, TRANSCENDENTAL, 2L * chunk, 1, 0, path).hiddenNanos());
        // Work longer than the transfer hides all of it but the first upload and last download.
        SegmentProfile heavy = new SegmentProfile(0, 0, 10, 16, 8);
        CostModel.Estimate h = CostModel.estimate(GPU, heavy, ROWS, 1, 0, path);
        assertEquals(transfer - transfer / 16, h.hiddenNanos(), 1e-3);
    }
}
