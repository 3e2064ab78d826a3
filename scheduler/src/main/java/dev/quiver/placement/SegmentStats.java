package dev.quiver.placement;

import java.util.List;
import java.util.Locale;

/**
 * What the scheduler did with one kernel segment of one expression: per device, the batches it
 * ran, estimated against measured time, explorations, fallbacks and the learnt correction.
 *
 * @param segment   the segment's expression text
 * @param profile   its operation mix and bytes per row
 * @param decisions batches placed by AUTO
 * @param devices   one entry per device, in the Quiver's device order
 */
public record SegmentStats(String segment, SegmentProfile profile, long decisions, List<OnDevice> devices) {

    /**
     * @param device         the device's name
     * @param batches        batches the device ran (explorations and probes included)
     * @param rows           rows of those batches
     * @param estimatedNanos the sum of their estimates (with the correction learnt at the time)
     * @param measuredNanos  the sum of their measured times
     * @param explorations   batches sent to it to refresh a stale estimate
     * @param fallbacks      batches that failed on it and were recomputed on the CPU
     * @param probes         batches sent to it to test it after a fence
     * @param correction     the learnt factor measured / estimated over all batch sizes (1: none yet)
     */
    public record OnDevice(
            String device,
            long batches,
            long rows,
            long estimatedNanos,
            long measuredNanos,
            long explorations,
            long fallbacks,
            long probes,
            double correction) {
        public String describe() {
            return String.format(
                    Locale.ROOT,
                    "%s: %d batches, %d rows, estimated %s, measured %s, %d explorations,"
                            + " %d fallbacks, %d probes, correction x%.2f",
                    device,
                    batches,
                    rows,
                    CostModel.ms(estimatedNanos),
                    CostModel.ms(measuredNanos),
                    explorations,
                    fallbacks,
                    probes,
                    correction);
        }
    }

    /** The entry of {@code device}, or null. */
    public OnDevice on(String device) {
        return devices.stream()
                .filter(d -> d.device().equals(device))
                .findFirst()
                .orElse(null);
    }
}
