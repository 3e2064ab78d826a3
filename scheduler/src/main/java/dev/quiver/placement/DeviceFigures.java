package dev.quiver.placement;

import java.util.Locale;
import java.util.Objects;

/**
 * The calibrated constants of one device: what the {@link CostModel} multiplies a segment's
 * rows, bytes and operations by. Measured once per device identity by {@link Calibrator} (short
 * micro-benchmarks through the device's own backend), cached on disk by {@link CalibrationCache}.
 *
 * <p>All times are nanoseconds. Per-operation figures are per row and per operation of that
 * class, at full throughput: for the CPU on one thread (the model divides by the threads a batch
 * is split between), for an OpenCL device for the whole device.
 *
 * @param identity             what the figures were measured on: platform, device, driver and
 *                             Quiver version; the cache key (see {@link CalibrationCache})
 * @param launchNanos          the fixed cost of one kernel run over a few rows: dispatch, launch,
 *                             synchronization (median)
 * @param nanosPerByte         streaming memory per byte the kernel reads or writes, one thread
 *                             (CPU) or the whole device (OpenCL)
 * @param parallelNanosPerByte the same with all {@code threads} threads of the CPU (memory
 *                             bandwidth is shared, so this does not shrink with threads);
 *                             equal to {@code nanosPerByte} on OpenCL
 * @param transferNanosPerByte host to device (or back) per byte copied; 0 where the device reads
 *                             and writes host memory itself (PoCL, integrated GPUs)
 * @param arithmeticNanos      per add, subtract, multiply, compare, select, cast, bit operation,
 *                             min/max/abs and the like
 * @param divideNanos          per division, remainder and square root
 * @param transcendentalNanos  per exp, log, sin, cos, tan, their inverses and hyperbolic forms,
 *                             pow, atan2, hypot, cbrt and the like
 * @param threads              the most threads one batch is split between (CPU); 1 for OpenCL
 * @param parallelEfficiency   measured speedup of {@code threads} threads over one, divided by
 *                             {@code threads}, in (0, 1]; 1 for OpenCL
 * @param calibratedAtMillis   when the figures were measured (epoch milliseconds)
 * @param calibrationMillis    how long measuring took
 * @param source               where these figures came from
 */
public record DeviceFigures(
        String identity,
        double launchNanos,
        double nanosPerByte,
        double parallelNanosPerByte,
        double transferNanosPerByte,
        double arithmeticNanos,
        double divideNanos,
        double transcendentalNanos,
        int threads,
        double parallelEfficiency,
        long calibratedAtMillis,
        long calibrationMillis,
        Source source) {

    /** Where a set of figures came from. */
    public enum Source {
        /** Measured by this process. */
        MEASURED,
        /**
         * Measured by this process before the JIT had compiled every benchmark loop (a freshly
         * started JVM on a busy machine): used by this process, not cached, measured again by the next.
         */
        MEASURED_COLD,
        /** Read from the on-disk cache (measured by an earlier process on the same device identity). */
        CACHED,
        /** Given by the application ({@code Quiver.builder().deviceFigures(...)}). */
        GIVEN,
        /** Rough defaults for the device's kind: calibration is off or failed. */
        DEFAULT,
        /**
         * The defaults for the device's kind, standing in for a cold measurement (not trusted) until
         * a warm one, taken again in the background, replaces them.
         */
        PROVISIONAL
    }

    public DeviceFigures {
        Objects.requireNonNull(identity, "identity is null");
        Objects.requireNonNull(source, "source is null");
        requireFinite("launchNanos", launchNanos);
        requireFinite("nanosPerByte", nanosPerByte);
        requireFinite("parallelNanosPerByte", parallelNanosPerByte);
        requireFinite("transferNanosPerByte", transferNanosPerByte);
        requireFinite("arithmeticNanos", arithmeticNanos);
        requireFinite("divideNanos", divideNanos);
        requireFinite("transcendentalNanos", transcendentalNanos);
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        }
        if (!(parallelEfficiency > 0 && parallelEfficiency <= 1)) {
            throw new IllegalArgumentException("parallelEfficiency must be in (0, 1], got " + parallelEfficiency);
        }
    }

    private static void requireFinite(String name, double v) {
        if (!Double.isFinite(v) || v < 0) {
            throw new IllegalArgumentException(name + " must be finite and >= 0, got " + v);
        }
    }

    /** The same figures, from another source (for example CACHED when read back). */
    public DeviceFigures withSource(Source s) {
        return new DeviceFigures(
                identity,
                launchNanos,
                nanosPerByte,
                parallelNanosPerByte,
                transferNanosPerByte,
                arithmeticNanos,
                divideNanos,
                transcendentalNanos,
                threads,
                parallelEfficiency,
                calibratedAtMillis,
                calibrationMillis,
                s);
    }

    /** One line for {@code quiver devices} and EXPLAIN. */
    public String describe() {
        return String.format(
                Locale.ROOT,
                "launch %.1f us, memory %.3f ns/B (%.2f GB/s)%s, per row: arith %.3f ns, divide %.3f ns,"
                        + " transcendental %.3f ns%s [%s]",
                launchNanos / 1e3,
                nanosPerByte,
                nanosPerByte == 0 ? 0 : 1 / nanosPerByte,
                transferNanosPerByte == 0
                        ? ", zero copy"
                        : String.format(
                                Locale.ROOT,
                                ", transfer %.3f ns/B (%.2f GB/s)",
                                transferNanosPerByte,
                                1 / transferNanosPerByte),
                arithmeticNanos,
                divideNanos,
                transcendentalNanos,
                threads == 1
                        ? ""
                        : String.format(
                                Locale.ROOT,
                                ", %d threads at %.0f%% efficiency (%.2f GB/s together)",
                                threads,
                                parallelEfficiency * 100,
                                parallelNanosPerByte == 0 ? 0 : 1 / parallelNanosPerByte),
                source.name().toLowerCase(Locale.ROOT));
    }
}
