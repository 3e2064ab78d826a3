package dev.quiver.placement;

import dev.quiver.Device;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where a device's figures come from: given to the builder, measured or read earlier in this JVM,
 * read from the on-disk {@link CalibrationCache}, or measured now by the {@link Calibrator}
 * (about a second per device, then cached), in that order. With calibration off, or when it
 * fails, the rough defaults for the device's kind.
 */
public final class FigureSource {
    /** Figures by device identity, measured or read once per JVM (every Quiver instance shares them). */
    private static final ConcurrentHashMap<String, DeviceFigures> MEASURED_IN_THIS_JVM = new ConcurrentHashMap<>();

    private static final Logger LOG = System.getLogger(FigureSource.class.getName());

    private final Map<String, DeviceFigures> given;
    private final boolean calibrate;
    private final CalibrationCache cache;

    /**
     * @param given     figures by device name, used as they are
     * @param calibrate whether to measure devices (else the defaults)
     * @param directory the calibration cache's directory; null: {@link CalibrationCache#defaultDirectory()}
     */
    public FigureSource(Map<String, DeviceFigures> given, boolean calibrate, Path directory) {
        this.given = Map.copyOf(given);
        this.calibrate = calibrate;
        this.cache = directory == null ? null : new CalibrationCache(directory);
    }

    /** The figures of {@code device}; {@code force}: measure even when known or cached. */
    DeviceFigures figures(Device device, boolean force) {
        DeviceFigures g = given.get(device.name());
        if (g != null) {
            return g;
        }
        String identity = DeviceIdentity.of(device);
        if (!calibrate) {
            return Calibrator.defaults(device, identity);
        }
        CalibrationCache c = cache != null ? cache : new CalibrationCache(CalibrationCache.defaultDirectory());
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
            DeviceFigures measured = Calibrator.measure(device, identity);
            LOG.log(
                    Level.INFO,
                    "calibrated " + device.name() + " in " + measured.calibrationMillis() + " ms: "
                            + measured.describe());
            if (measured.source() == DeviceFigures.Source.MEASURED) {
                c.store(measured);
            }
            MEASURED_IN_THIS_JVM.put(identity, measured);
            return measured;
        } catch (RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    "calibrating " + device.name() + " failed, placement uses rough defaults: " + e.getMessage());
            return Calibrator.defaults(device, identity);
        }
    }
}
