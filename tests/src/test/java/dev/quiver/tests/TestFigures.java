package dev.quiver.tests;

import dev.quiver.placement.DeviceFigures;

/** Device figures given to a Quiver so placement decisions in a test do not depend on the machine. */
final class TestFigures {
    private TestFigures() {}

    /** A CPU: 2 us per run, 1 GB/s, 1 ns per operation, one thread. */
    static DeviceFigures cpu() {
        return new DeviceFigures("test cpu", 2_000, 1, 1, 0, 1, 4, 20, 1, 1, 0, 0, DeviceFigures.Source.GIVEN);
    }

    /** A fast GPU: 50 us per run, copies at 10 GB/s, then 100x the CPU's throughput. */
    static DeviceFigures fastGpu() {
        return new DeviceFigures(
                "test gpu", 50_000, 0.01, 0.01, 0.1, 0.01, 0.04, 0.2, 1, 1, 0, 0, DeviceFigures.Source.GIVEN);
    }

    /** A device no CPU can beat by the figures (a microsecond a batch, reads host memory): for tests of what happens on it. */
    static DeviceFigures instantGpu() {
        return new DeviceFigures(
                "test instant gpu",
                1_000,
                0.000_01,
                0.000_01,
                0,
                0.000_01,
                0.000_01,
                0.000_01,
                1,
                1,
                0,
                0,
                DeviceFigures.Source.GIVEN);
    }
}
