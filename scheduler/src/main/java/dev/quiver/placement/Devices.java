package dev.quiver.placement;

import dev.quiver.Device;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The devices of one Quiver as placement sees them: one {@link DeviceRuntime} each (figures,
 * health, queue, memory budget), and which of them is the fallback, the device that runs every
 * program and recomputes a batch another device failed (the JVM's CPU device). Nothing here
 * depends on a device's position in the list or on its backend's class. Thread-safe.
 */
public final class Devices {
    private final DeviceRuntime[] runtimes;
    private final DeviceRuntime fallback;
    private final String openClStatus;
    private final double explorationShare;
    private final boolean anyCopies;
    private final SpareCores spareCores;
    private volatile boolean calibrated;

    /**
     * @param devices               every device, in the order EXPLAIN and metrics list them
     * @param fallback              the one of them that runs every program (it must run on the caller's thread)
     * @param policy                the health policy of every other device
     * @param clock                 the clock health fences are timed with
     * @param backgroundCompilation whether AUTO builds programs in the background rather than in a batch
     * @param figures               where figures come from
     * @param explorationShare      the share of measured time AUTO may spend exploring
     * @param openClStatus          how OpenCL discovery went, for EXPLAIN
     */
    public Devices(
            List<Device> devices,
            Device fallback,
            DeviceHealth.Policy policy,
            LongSupplier clock,
            boolean backgroundCompilation,
            FigureSource figures,
            double explorationShare,
            String openClStatus) {
        this(
                devices,
                fallback,
                policy,
                clock,
                backgroundCompilation,
                figures,
                explorationShare,
                openClStatus,
                SpareCores.os());
    }

    /** As above, with the cores a batch may be split between taken from {@code spareCores}. */
    public Devices(
            List<Device> devices,
            Device fallback,
            DeviceHealth.Policy policy,
            LongSupplier clock,
            boolean backgroundCompilation,
            FigureSource figures,
            double explorationShare,
            String openClStatus,
            SpareCores spareCores) {
        this.spareCores = Objects.requireNonNull(spareCores, "spareCores is null");
        if (!devices.contains(fallback)) {
            throw new IllegalArgumentException("the fallback device " + fallback.name() + " is not one of the devices");
        }
        if (!fallback.backend().traits().runsOnCaller()) {
            throw new IllegalArgumentException(
                    "the fallback device " + fallback.name() + " must run on the caller's thread");
        }
        this.runtimes = new DeviceRuntime[devices.size()];
        DeviceRuntime fb = null;
        boolean copies = false;
        for (int i = 0; i < runtimes.length; i++) {
            Device d = devices.get(i);
            runtimes[i] = new DeviceRuntime(
                    d, i, d.equals(fallback), new DeviceHealth(policy, clock), backgroundCompilation, figures::figures);
            if (runtimes[i].fallback) {
                fb = runtimes[i];
            }
            copies |= runtimes[i].copies;
        }
        this.fallback = fb;
        this.anyCopies = copies;
        this.openClStatus = openClStatus;
        this.explorationShare = explorationShare;
    }

    DeviceRuntime[] all() {
        return runtimes;
    }

    DeviceRuntime fallback() {
        return fallback;
    }

    String openClStatus() {
        return openClStatus;
    }

    double explorationShare() {
        return explorationShare;
    }

    SpareCores spareCores() {
        return spareCores;
    }

    /** Whether any device copies batches to its own memory: only then are resident keys worth making. */
    boolean anyCopies() {
        return anyCopies;
    }

    DeviceRuntime runtime(Device device) {
        for (DeviceRuntime r : runtimes) {
            if (r.device.equals(device)) {
                return r;
            }
        }
        throw new IllegalArgumentException("device " + device.name() + " is not a device of this Quiver instance");
    }

    /** Makes sure every device has figures (calibrating those that have none), once. */
    void ensureCalibrated() {
        if (!calibrated) {
            for (DeviceRuntime r : runtimes) {
                r.figures();
            }
            calibrated = true;
        }
    }

    /**
     * Calibrates every device now rather than at the first AUTO batch
     * ({@code Quiver.builder().calibrateNow()}): a device whose measurement is cold is measured
     * again, up to twice, before its provisional figures are left to the background retries.
     */
    public void calibrateNow() {
        for (DeviceRuntime r : runtimes) {
            DeviceFigures f = r.figures();
            for (int again = 0; again < 2 && f.source() == DeviceFigures.Source.PROVISIONAL; again++) {
                f = r.recalibrate();
            }
        }
        calibrated = true;
    }

    /** The figures of {@code device} AUTO estimates with, calibrating it on first use. */
    public DeviceFigures figures(Device device) {
        return runtime(device).figures();
    }

    /** Measures {@code device} again, replacing its figures here and in the on-disk cache. */
    public DeviceFigures recalibrate(Device device) {
        return runtime(device).recalibrate();
    }

    /** The health of {@code device}. */
    public DeviceHealth.Snapshot health(Device device) {
        return runtime(device).health.snapshot();
    }
}
