package dev.quiver.placement;

import dev.quiver.Device;
import dev.quiver.Placement;
import dev.quiver.rowfn.ir.KernelProgram;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * EXPLAIN's placement sections for one expression: the devices and what they cannot run; per
 * kernel segment the estimated time on each device at a batch size, with the device AUTO picks
 * marked {@code <- auto} by the dispatcher's own decision in its side-effect-free mode (so it is
 * the device the next batch runs on, unless that batch explores or probes), and the batch size
 * from which each other device is estimated faster than the fallback; and, for EXPLAIN ANALYZE,
 * what each segment ran where.
 */
public final class PlacementExplain {
    private PlacementExplain() {}

    /** The devices, and what each cannot run of {@code programs}. */
    public static void devices(StringBuilder sb, KernelDispatcher dispatcher, List<KernelProgram> programs) {
        Devices devices = dispatcher.devices();
        sb.append("Devices:\n");
        boolean anyOpenCl = false;
        for (DeviceRuntime rt : devices.all()) {
            Device d = rt.device;
            anyOpenCl |= d.isOpenCl();
            List<String> cannot = new ArrayList<>();
            for (KernelProgram p : programs) {
                dispatcher.unsupportedOn(d, p).ifPresent(cannot::add);
            }
            sb.append("  ")
                    .append(d.name())
                    .append(": ")
                    .append(cannot.isEmpty() ? "can run every kernel" : "cannot run: " + String.join("; ", cannot));
            d.transferMode().ifPresent(m -> sb.append("; transfer ").append(m.label()));
            if (!rt.fallback) {
                sb.append("; ").append(rt.health.snapshot().describe());
            }
            sb.append('\n');
        }
        if (!anyOpenCl) {
            sb.append("  OpenCL: ").append(devices.openClStatus()).append('\n');
        }
    }

    /** Per segment, the estimates at {@code batchRows} rows, AUTO's pick and the crossovers. */
    public static void placement(StringBuilder sb, KernelDispatcher dispatcher, int batchRows) {
        sb.append(String.format(Locale.ROOT, "Placement (auto) at %d rows per batch:%n", batchRows));
        for (SegmentScheduler s : dispatcher.segments()) {
            sb.append("  segment ")
                    .append(s.text)
                    .append(": ")
                    .append(s.profile.describe())
                    .append('\n');
            if (s.cpuOnly != null) {
                sb.append("    runs on the cpu only: ").append(s.cpuOnly).append(" cpuOnly\n");
                continue;
            }
            CostModel.Estimate[] est = s.estimates(batchRows);
            Choice auto = dispatcher.decide(s, Placement.AUTO, null, s.program, batchRows, true, null);
            for (int i = 0; i < est.length; i++) {
                if (est[i] == null && !s.stands(i, batchRows)) {
                    continue; // a device's one-thread alternative, where the batch is not split anyway
                }
                sb.append("    ").append(s.name(i, batchRows)).append(": ");
                if (est[i] == null) {
                    sb.append("cannot run it\n");
                    continue;
                }
                double c = s.correction(i, batchRows);
                sb.append(est[i].describe());
                if (c != 1) {
                    sb.append(String.format(Locale.ROOT, " x%.2f learnt = %s", c, CostModel.ms(corrected(est[i], c))));
                }
                sb.append(auto.candidate() == i ? "  <- auto" : "").append('\n');
            }
            for (int i = 0; i < est.length; i++) {
                if (est[i] != null && !s.deviceOf(i).fallback) {
                    Optional<Long> x = s.crossover(i);
                    sb.append("    ")
                            .append(s.deviceOf(i).device.name())
                            .append(x.map(r -> " is estimated faster than the cpu from " + r + " rows per batch")
                                    .orElse(" is not estimated faster than the cpu below 2^31 rows"))
                            .append('\n');
                }
            }
        }
    }

    /** For EXPLAIN ANALYZE: per segment that ran, its AUTO decisions and what ran on each device. */
    public static void ran(StringBuilder sb, KernelDispatcher dispatcher) {
        for (SegmentScheduler s : dispatcher.segments()) {
            SegmentStats st = s.stats();
            if (st.devices().stream().allMatch(o -> o.batches() == 0 && o.fallbacks() == 0)) {
                continue;
            }
            sb.append("  segment ")
                    .append(s.text)
                    .append(" (")
                    .append(st.decisions())
                    .append(" auto decisions):\n");
            for (SegmentStats.OnDevice o : st.devices()) {
                if (o.batches() > 0 || o.fallbacks() > 0) {
                    sb.append("    ").append(o.describe()).append('\n');
                }
            }
        }
    }

    /** An estimate with a learnt correction: the device's own time scaled, the queue before it as it is. */
    private static double corrected(CostModel.Estimate e, double correction) {
        return (e.totalNanos() - e.queueNanos()) * correction + e.queueNanos();
    }
}
