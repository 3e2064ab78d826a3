package dev.quiver.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.Device;
import dev.quiver.backend.DeviceKind;
import dev.quiver.backend.DeviceTraits;
import dev.quiver.cpu.CpuBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cold calibration is never what AUTO estimates with: the device's defaults stand in
 * ({@code PROVISIONAL}) while it is measured again in the background, until a warm measurement
 * replaces them and is cached; {@code calibrateNow} measures at once, retrying a cold result.
 */
class FigureSourceTest {
    private static final DeviceTraits GPU_TRAITS =
            new DeviceTraits(DeviceKind.GPU, DeviceTraits.Memory.COPY, false, Long.MAX_VALUE, 1L << 34, false);

    @TempDir
    Path cacheDir;

    /** A device of a name no other test uses: the figures measured in this JVM are shared by identity. */
    private static Device device(String test) {
        String name = "figures-" + test + "-" + System.nanoTime();
        return new Device(name, Device.Kind.OPENCL_GPU, "scripted", new ScriptedDevice(name, GPU_TRAITS));
    }

    private static DeviceFigures figures(String identity, DeviceFigures.Source source, double launchNanos) {
        return new DeviceFigures(identity, launchNanos, 0.01, 0.01, 0.1, 0.01, 0.04, 0.2, 1, 1, 0, 5, source);
    }

    /** Measurements that come out as {@code sources} say, one after the other (the last one repeats). */
    private static BiFunction<Device, String, DeviceFigures> scripted(
            AtomicInteger calls, DeviceFigures.Source... sources) {
        Deque<DeviceFigures.Source> left = new ArrayDeque<>(List.of(sources));
        return (d, identity) -> {
            calls.incrementAndGet();
            DeviceFigures.Source s = left.size() > 1 ? left.poll() : left.peek();
            return figures(identity, s, s == DeviceFigures.Source.MEASURED ? 42_000 : 1);
        };
    }

    private static void await(BooleanSupplier done, String what) throws InterruptedException {
        long end = System.nanoTime() + 10_000_000_000L;
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < end, "timed out waiting for: " + what);
            Thread.sleep(5);
        }
    }

    @Test
    void aColdMeasurementStandsAsTheDefaultsUntilAWarmOneIsTakenInTheBackground() throws InterruptedException {
        Device d = device("cold-then-warm");
        String identity = DeviceIdentity.of(d);
        AtomicInteger calls = new AtomicInteger();
        FigureSource source = new FigureSource(
                Map.of(),
                true,
                cacheDir,
                scripted(
                        calls,
                        DeviceFigures.Source.MEASURED_COLD,
                        DeviceFigures.Source.MEASURED_COLD,
                        DeviceFigures.Source.MEASURED),
                new long[] {10, 10, 10});
        DeviceFigures first = source.figures(d, false);
        assertEquals(DeviceFigures.Source.PROVISIONAL, first.source());
        DeviceFigures defaults = Calibrator.defaults(d, identity);
        assertEquals(defaults.launchNanos(), first.launchNanos(), "the defaults of the device's kind");
        assertEquals(defaults.transcendentalNanos(), first.transcendentalNanos());
        assertTrue(new CalibrationCache(cacheDir).load(identity).isEmpty(), "a cold measurement is not cached");
        await(() -> source.figures(d, false).source() == DeviceFigures.Source.MEASURED, "the warm measurement");
        assertEquals(42_000, source.figures(d, false).launchNanos());
        assertEquals(3, calls.get(), "measured once, then twice in the background");
        assertEquals(
                42_000,
                new CalibrationCache(cacheDir).load(identity).orElseThrow().launchNanos(),
                "cached");
    }

    @Test
    void whenEveryMeasurementIsColdTheDefaultsStayAndTheRetriesStop() throws Exception {
        Device d = device("always-cold");
        AtomicInteger calls = new AtomicInteger();
        FigureSource source = new FigureSource(
                Map.of(), true, cacheDir, scripted(calls, DeviceFigures.Source.MEASURED_COLD), new long[] {5, 5, 5});
        assertEquals(DeviceFigures.Source.PROVISIONAL, source.figures(d, false).source());
        await(() -> calls.get() == 4, "three retries");
        Thread.sleep(100);
        assertEquals(4, calls.get(), "no fourth retry");
        assertEquals(DeviceFigures.Source.PROVISIONAL, source.figures(d, false).source());
        assertEquals(4, calls.get(), "asking again does not measure again: the process keeps its defaults");
        try (var files = Files.list(cacheDir)) {
            assertEquals(0, files.count(), "nothing cold is cached");
        }
    }

    @Test
    void placementTakesUpTheWarmFiguresOnceTheyCome() throws InterruptedException {
        Device gpu = device("runtime");
        AtomicInteger calls = new AtomicInteger();
        FigureSource source = new FigureSource(
                Map.of(),
                true,
                cacheDir,
                scripted(calls, DeviceFigures.Source.MEASURED_COLD, DeviceFigures.Source.MEASURED),
                new long[] {10});
        DeviceRuntime r = new DeviceRuntime(
                gpu, 1, false, new DeviceHealth(DeviceHealth.Policy.DEFAULT, System::nanoTime), false, source::figures);
        assertEquals(DeviceFigures.Source.PROVISIONAL, r.figures().source());
        await(() -> r.figures().source() == DeviceFigures.Source.MEASURED, "the runtime sees the warm figures");
        assertEquals(42_000, r.figures().launchNanos());
    }

    @Test
    void calibrateNowMeasuresAtOnceAndRetriesAColdResult() {
        Device d = device("now");
        AtomicInteger calls = new AtomicInteger();
        // The fallback's figures are given: only the scripted device is measured.
        FigureSource source = new FigureSource(
                Map.of("cpu", PlacementComponentTest.cpuFigures()),
                true,
                cacheDir,
                scripted(
                        calls,
                        DeviceFigures.Source.MEASURED_COLD,
                        DeviceFigures.Source.MEASURED_COLD,
                        DeviceFigures.Source.MEASURED),
                new long[] {600_000}); // the background retry would come much later
        Device fallback = new Device("cpu", Device.Kind.CPU, "the cpu", new CpuBackend(1));
        Devices devices = new Devices(
                List.of(fallback, d),
                fallback,
                DeviceHealth.Policy.DEFAULT,
                System::nanoTime,
                false,
                source,
                0,
                "none");
        devices.calibrateNow();
        assertEquals(DeviceFigures.Source.MEASURED, devices.figures(d).source());
        assertEquals(42_000, devices.figures(d).launchNanos());
    }
}
