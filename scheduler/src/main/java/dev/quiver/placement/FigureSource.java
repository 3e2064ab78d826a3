package dev.quiver.placement;

import dev.quiver.Device;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * Where a device's figures come from: given to the builder, measured or read earlier in this JVM,
 * read from the on-disk {@link CalibrationCache}, or measured now by the {@link Calibrator}
 * (about a second per device, then cached), in that order. With calibration off, or when it
 * fails, the rough defaults for the device's kind.
 *
 * <p>A measurement the calibrator calls cold (taken before the JIT had compiled its loops: a
 * fresh JVM on a busy machine) is not trusted: AUTO estimates with the device's defaults
 * ({@link DeviceFigures.Source#PROVISIONAL}) while the device is measured again in the
 * background, {@link #RETRY_DELAYS_MILLIS} after, until a warm measurement replaces them (and is
 * cached, so the next process reads it). Figures that swing by orders of magnitude from one
 * process to the next, as cold ones did, never reach placement.
 */
public final class FigureSource {
    /** Figures by device identity, measured or read once per JVM (every Quiver instance shares them). */
    private static final ConcurrentHashMap<String, DeviceFigures> MEASURED_IN_THIS_JVM = new ConcurrentHashMap<>();
    /** The identities being measured again in the background (one retry chain each). */
    private static final ConcurrentHashMap<String, Boolean> RETRYING = new ConcurrentHashMap<>();
    /** When a cold measurement is taken again: 30 s after it, then 2 and 10 minutes after that; then no more. */
    static final long[] RETRY_DELAYS_MILLIS = {30_000, 120_000, 600_000};

    private static final ScheduledExecutorService RETRIES = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "quiver-calibration");
        t.setDaemon(true);
        return t;
    });

    private static final Logger LOG = System.getLogger(FigureSource.class.getName());

    private final Map<String, DeviceFigures> given;
    private final boolean calibrate;
    private final CalibrationCache cache;
    private final BiFunction<Device, String, DeviceFigures> measure;
    private final long[] retryDelaysMillis;

    /**
     * @param given     figures by device name, used as they are
     * @param calibrate whether to measure devices (else the defaults)
     * @param directory the calibration cache's directory; null: {@link CalibrationCache#defaultDirectory()}
     */
    public FigureSource(Map<String, DeviceFigures> given, boolean calibrate, Path directory) {
        this(given, calibrate, directory, Calibrator::measure, RETRY_DELAYS_MILLIS);
    }

    /** As above, measuring with {@code measure} and retrying a cold measurement after {@code retryDelaysMillis} (tests). */
    FigureSource(
            Map<String, DeviceFigures> given,
            boolean calibrate,
            Path directory,
            BiFunction<Device, String, DeviceFigures> measure,
            long[] retryDelaysMillis) {
        this.given = Map.copyOf(given);
        this.calibrate = calibrate;
        this.cache = directory == null ? null : new CalibrationCache(directory);
        this.measure = measure;
        this.retryDelaysMillis = retryDelaysMillis.clone();
    }

    /** Whether devices are measured (else their defaults, or the figures given). */
    boolean calibrates() {
        return calibrate;
    }

    /**
     * The figures of {@code device}; {@code force}: measure now even when known or cached (and,
     * for a cold measurement, the provisional figures until a warm one comes).
     */
    DeviceFigures figures(Device device, boolean force) {
        DeviceFigures g = given.get(device.name());
        if (g != null) {
            return g;
        }
        String identity = DeviceIdentity.of(device);
        if (!calibrate) {
            return Calibrator.defaults(device, identity);
        }
        CalibrationCache c = cache();
        if (!force) {
            DeviceFigures known = MEASURED_IN_THIS_JVM.get(identity);
            if (known != null) {
                return known;
            }
            Optional<DeviceFigures> cached = c.load(identity);
            if (cached.isPresent()) {
                MEASURED_IN_THIS_JVM.put(identity, cached.get());
                return cached.get();
            }
        }
        try {
            LOG.log(
                    Level.INFO,
                    "calibrating " + device.name() + " for placement (once per device and driver,"
                            + " about a second; then cached in " + c.directory() + ")");
            DeviceFigures measured = measure.apply(device, identity);
            LOG.log(
                    Level.INFO,
                    "calibrated " + device.name() + " in " + measured.calibrationMillis() + " ms: "
                            + measured.describe());
            return settle(device, identity, measured);
        } catch (RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    "calibrating " + device.name() + " failed, placement uses rough defaults: " + e.getMessage());
            return Calibrator.defaults(device, identity);
        }
    }

    private CalibrationCache cache() {
        return cache != null ? cache : new CalibrationCache(CalibrationCache.defaultDirectory());
    }

    /** What a measurement leaves in use: a warm one is cached and kept; a cold one, provisional figures and a retry. */
    private DeviceFigures settle(Device device, String identity, DeviceFigures measured) {
        if (measured.source() != DeviceFigures.Source.MEASURED_COLD) {
            if (measured.source() == DeviceFigures.Source.MEASURED) {
                cache().store(measured);
            }
            MEASURED_IN_THIS_JVM.put(identity, measured);
            return measured;
        }
        DeviceFigures provisional = provisional(device, identity);
        MEASURED_IN_THIS_JVM.put(identity, provisional);
        if (RETRYING.putIfAbsent(identity, Boolean.TRUE) == null) {
            LOG.log(
                    Level.WARNING,
                    "the figures of " + device.name() + " were measured cold (the JIT had not compiled every"
                            + " benchmark; a busy machine?): placement uses the defaults for its kind until a warm"
                            + " measurement, taken again in the background in " + retryDelaysMillis[0] / 1000 + " s");
            retry(device, identity, 0);
        }
        return provisional;
    }

    /** Measures {@code device} again after the {@code attempt}-th delay, on the calibration thread. */
    private void retry(Device device, String identity, int attempt) {
        if (attempt >= retryDelaysMillis.length) {
            RETRYING.remove(identity);
            LOG.log(
                    Level.WARNING,
                    "every measurement of " + device.name() + " was cold: placement keeps its defaults in this"
                            + " process (Quiver.builder().calibrateNow() measures at startup, before the work)");
            return;
        }
        RETRIES.schedule(
                () -> {
                    DeviceFigures again;
                    try {
                        again = measure.apply(device, identity);
                    } catch (RuntimeException e) {
                        // The device went away (its Quiver closed) or broke: keep the provisional figures.
                        RETRYING.remove(identity);
                        return;
                    }
                    if (again.source() == DeviceFigures.Source.MEASURED_COLD) {
                        retry(device, identity, attempt + 1);
                        return;
                    }
                    RETRYING.remove(identity);
                    LOG.log(Level.INFO, "calibrated " + device.name() + " again, warm: " + again.describe());
                    settle(device, identity, again);
                },
                retryDelaysMillis[attempt],
                TimeUnit.MILLISECONDS);
    }

    /** The defaults of {@code device}'s kind, marked as standing in for a measurement to come. */
    static DeviceFigures provisional(Device device, String identity) {
        DeviceFigures d = Calibrator.defaults(device, identity);
        return new DeviceFigures(
                d.identity(),
                d.launchNanos(),
                d.nanosPerByte(),
                d.parallelNanosPerByte(),
                d.transferNanosPerByte(),
                d.arithmeticNanos(),
                d.divideNanos(),
                d.transcendentalNanos(),
                d.threads(),
                d.parallelEfficiency(),
                d.calibratedAtMillis(),
                0,
                DeviceFigures.Source.PROVISIONAL);
    }

    /** Forgets what this JVM measured or read (tests). */
    static void forgetMeasured() {
        MEASURED_IN_THIS_JVM.clear();
    }
}
