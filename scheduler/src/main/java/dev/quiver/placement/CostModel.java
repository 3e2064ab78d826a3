package dev.quiver.placement;

import java.util.Locale;

/**
 * The estimate of one segment's run on one device: the calibrated {@link DeviceFigures} applied
 * to a {@link SegmentProfile} and a batch size. The device's time is its queue (work already
 * sent to it), the launch, the copies to and from it (none where it reads host memory; less the
 * bytes already resident there), and then the longer of the computation and the memory traffic,
 * which overlap:
 *
 * <pre>
 * total = queue + launch + transfer - hidden
 *       + max(rows * (arith * arith ns + div * div ns + transc * transc ns) / speedup(threads),
 *             rows * bytes/row * memory ns/B)
 * transfer = (rows * bytes/row - resident bytes) * transfer ns/B
 * </pre>
 *
 * where {@code speedup(t) = max(1, t * efficiency)} for a CPU batch split between {@code t}
 * threads, and the memory term uses the all-threads bandwidth when {@code t > 1}. With
 * overlapped transfers (a batch of more than two chunks on a device that copies), chunk
 * {@code c+1} uploads while {@code c} computes, so only the first upload and the last download
 * ({@code transfer / chunks}) and whatever transfer exceeds the computation stay exposed:
 * {@code hidden = max(0, min(transfer, work) - transfer / chunks)}. The scheduler multiplies the
 * total by what it has learnt (see {@code SegmentScheduler}).
 */
public final class CostModel {
    private CostModel() {}

    /**
     * How a batch reaches a device that copies: the bytes of its arguments already on the device
     * ({@code residentBytes}) and the rows per chunk of overlapped transfers ({@code 0}: none).
     */
    public record Path(long residentBytes, int overlapChunkRows) {
        public static final Path NONE = new Path(0, 0);
    }

    /**
     * One device's estimate for one batch, nanoseconds.
     *
     * @param threads       the threads the batch runs on (CPU), 1 elsewhere
     * @param hiddenNanos   the part of {@code transferNanos} overlapped with the computation
     * @param residentBytes bytes not transferred because they are on the device already
     */
    public record Estimate(
            double queueNanos,
            double launchNanos,
            double transferNanos,
            double computeNanos,
            double memoryNanos,
            int threads,
            double hiddenNanos,
            long residentBytes) {
        public double totalNanos() {
            return queueNanos + launchNanos + transferNanos - hiddenNanos + Math.max(computeNanos, memoryNanos);
        }

        public String describe() {
            return String.format(
                    Locale.ROOT,
                    "%s (launch %s, %s%s%s, memory %s%s)",
                    ms(totalNanos()),
                    ms(launchNanos),
                    "compute " + ms(computeNanos),
                    threads > 1 ? " on " + threads + " threads" : "",
                    transferNanos > 0
                            ? ", transfer " + ms(transferNanos)
                                    + (hiddenNanos > 0 ? " (" + ms(hiddenNanos) + " hidden by overlap)" : "")
                            : "",
                    ms(memoryNanos),
                    (residentBytes > 0 ? ", " + residentBytes + " B resident" : "")
                            + (queueNanos > 0 ? ", queued " + ms(queueNanos) : ""));
        }
    }

    /** Nanoseconds as milliseconds with three decimals. */
    public static String ms(double nanos) {
        return String.format(Locale.ROOT, "%.3f ms", nanos / 1e6);
    }

    public static Estimate estimate(DeviceFigures f, SegmentProfile p, long rows, int threads, double queueNanos) {
        return estimate(f, p, rows, threads, queueNanos, Path.NONE);
    }

    public static Estimate estimate(
            DeviceFigures f, SegmentProfile p, long rows, int threads, double queueNanos, Path path) {
        int t = Math.max(1, threads);
        double speedup = t == 1 ? 1 : Math.max(1, t * f.parallelEfficiency());
        double compute = rows * p.opNanos(f) / speedup;
        double bytes = rows * p.bytesPerRow();
        double memory = bytes * (t > 1 ? f.parallelNanosPerByte() : f.nanosPerByte());
        long resident = f.transferNanosPerByte() > 0 ? (long) Math.min(bytes, path.residentBytes()) : 0;
        double transfer = (bytes - resident) * f.transferNanosPerByte();
        double hidden = hidden(transfer, Math.max(compute, memory), rows, path.overlapChunkRows());
        return new Estimate(queueNanos, f.launchNanos(), transfer, compute, memory, t, hidden, resident);
    }

    /** The transfer time overlapped with the work, for chunks of {@code chunkRows} (0: none). */
    static double hidden(double transfer, double work, long rows, int chunkRows) {
        if (transfer <= 0 || chunkRows <= 0 || rows <= 2L * chunkRows) {
            return 0;
        }
        long chunks = (rows + chunkRows - 1) / chunkRows;
        return Math.max(0, Math.min(transfer, work) - transfer / chunks);
    }

    /** The total of {@link #estimate} without building the record: what the per-batch decision uses. */
    public static double totalNanos(DeviceFigures f, SegmentProfile p, long rows, int threads, double queueNanos) {
        return totalNanos(f, p, rows, threads, queueNanos, Path.NONE);
    }

    /** {@link #totalNanos(DeviceFigures, SegmentProfile, long, int, double)} for a batch that reaches the device by {@code path}. */
    public static double totalNanos(
            DeviceFigures f, SegmentProfile p, long rows, int threads, double queueNanos, Path path) {
        int t = Math.max(1, threads);
        double speedup = t == 1 ? 1 : Math.max(1, t * f.parallelEfficiency());
        double bytes = rows * p.bytesPerRow();
        double work =
                Math.max(rows * p.opNanos(f) / speedup, bytes * (t > 1 ? f.parallelNanosPerByte() : f.nanosPerByte()));
        double transfer = f.transferNanosPerByte() > 0
                ? (bytes - Math.min(bytes, path.residentBytes())) * f.transferNanosPerByte()
                : 0;
        return queueNanos + f.launchNanos() + transfer - hidden(transfer, work, rows, path.overlapChunkRows()) + work;
    }
}
