package dev.quiver.placement;

import java.util.Locale;

/**
 * The estimate of one segment's run on one device: the calibrated {@link DeviceFigures} applied
 * to a {@link SegmentProfile} and a batch size. The device's time is its queue (work already
 * sent to it), the launch, the copies to and from it (none where it reads host memory), and
 * then the longer of the computation and the memory traffic, which overlap:
 *
 * <pre>
 * total = queue + launch + rows * bytes/row * transfer ns/B
 *       + max(rows * (arith * arith ns + div * div ns + transc * transc ns) / speedup(threads),
 *             rows * bytes/row * memory ns/B)
 * </pre>
 *
 * where {@code speedup(t) = max(1, t * efficiency)} for a CPU batch split between {@code t}
 * threads, and the memory term uses the all-threads bandwidth when {@code t > 1}. The scheduler
 * multiplies the total by what it has learnt (see {@code SegmentScheduler}).
 */
public final class CostModel {
    private CostModel() {
    }

    /**
     * One device's estimate for one batch, nanoseconds.
     *
     * @param threads the threads the batch runs on (CPU), 1 elsewhere
     */
    public record Estimate(double queueNanos, double launchNanos, double transferNanos, double computeNanos,
                           double memoryNanos, int threads) {
        public double totalNanos() {
            return queueNanos + launchNanos + transferNanos + Math.max(computeNanos, memoryNanos);
        }

        public String describe() {
            return String.format(Locale.ROOT, "%s (launch %s, %s%s%s, memory %s%s)", ms(totalNanos()),
                    ms(launchNanos), "compute " + ms(computeNanos), threads > 1 ? " on " + threads + " threads" : "",
                    transferNanos > 0 ? ", transfer " + ms(transferNanos) : "", ms(memoryNanos),
                    queueNanos > 0 ? ", queued " + ms(queueNanos) : "");
        }
    }

    /** Nanoseconds as milliseconds with three decimals. */
    public static String ms(double nanos) {
        return String.format(Locale.ROOT, "%.3f ms", nanos / 1e6);
    }

    public static Estimate estimate(DeviceFigures f, SegmentProfile p, long rows, int threads, double queueNanos) {
        int t = Math.max(1, threads);
        double speedup = t == 1 ? 1 : Math.max(1, t * f.parallelEfficiency());
        double compute = rows * p.opNanos(f) / speedup;
        double bytes = rows * p.bytesPerRow();
        double memory = bytes * (t > 1 ? f.parallelNanosPerByte() : f.nanosPerByte());
        double transfer = bytes * f.transferNanosPerByte();
        return new Estimate(queueNanos, f.launchNanos(), transfer, compute, memory, t);
    }

    /** The total of {@link #estimate} without building the record: what the per-batch decision uses. */
    public static double totalNanos(DeviceFigures f, SegmentProfile p, long rows, int threads, double queueNanos) {
        int t = Math.max(1, threads);
        double speedup = t == 1 ? 1 : Math.max(1, t * f.parallelEfficiency());
        double bytes = rows * p.bytesPerRow();
        return queueNanos + f.launchNanos() + bytes * f.transferNanosPerByte()
                + Math.max(rows * p.opNanos(f) / speedup, bytes * (t > 1 ? f.parallelNanosPerByte() : f.nanosPerByte()));
    }
}
