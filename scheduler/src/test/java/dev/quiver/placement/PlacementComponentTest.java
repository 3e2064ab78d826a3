package dev.quiver.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Device;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.backend.DeviceKind;
import dev.quiver.backend.DeviceTraits;
import dev.quiver.cpu.CpuBackend;
import dev.quiver.expr.Expr;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The placement component on its own, with scripted devices that say what they are only through
 * their {@link DeviceTraits} and given figures (so every decision is the machine's no matter where
 * the test runs): AUTO follows the figures; EXPLAIN's {@code <- auto} and {@code choose} are the
 * device the next batch runs on, also while a program builds in the background; a failed batch is
 * recomputed on the fallback with the same result and counts against the device's health, a batch
 * short of device memory does not; a third device added through the public builder competes like
 * any other; and the fallback need not be the first device.
 */
class PlacementComponentTest {
    private static final Schema XY = new Schema(List.of(float64("x"), float64("y")));
    private static final String EXPR = "(x * y + 1) / (y - 0.5)";
    private static final int SMALL = 1_000, LARGE = 1 << 16;
    /** A GPU that copies batches to 8 GiB of its own memory. */
    private static final DeviceTraits COPYING_GPU =
            new DeviceTraits(DeviceKind.GPU, DeviceTraits.Memory.COPY, false, 1L << 31, 8L << 30, false);
    /** An accelerator of the user's own, on the host's memory. */
    private static final DeviceTraits ACCELERATOR = new DeviceTraits(
            DeviceKind.ACCELERATOR, DeviceTraits.Memory.HOST, false, Long.MAX_VALUE, Long.MAX_VALUE, false);

    private BufferAllocator allocator;
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeEach
    void open() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closing.reversed()) {
            c.close();
        }
        assertEquals(0, allocator.getAllocatedMemory(), "every buffer is freed");
        allocator.close();
    }

    /** A CPU: 2 us per run, 1 GB/s, 1 ns per operation, one thread. */
    static DeviceFigures cpuFigures() {
        return new DeviceFigures("test cpu", 2_000, 1, 1, 0, 1, 4, 20, 1, 1, 0, 0, DeviceFigures.Source.GIVEN);
    }

    /** A fast GPU: 50 us per run, copies at 10 GB/s, then 100x the CPU's throughput. */
    static DeviceFigures gpuFigures() {
        return new DeviceFigures(
                "test gpu", 50_000, 0.01, 0.01, 0.1, 0.01, 0.04, 0.2, 1, 1, 0, 0, DeviceFigures.Source.GIVEN);
    }

    /** A device no other beats by the figures: a microsecond a batch, on the host's memory. */
    static DeviceFigures instantFigures() {
        return new DeviceFigures(
                "test instant",
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

    private Quiver quiver(Map<Device, DeviceFigures> extra) {
        Quiver.Builder b = Quiver.builder()
                .allocator(allocator)
                .openCl(false)
                .deviceFigures("cpu", cpuFigures())
                .explorationShare(0)
                .loadAware(false) // the same decisions whatever else runs on the machine
                .clock(clock::get)
                .healthPolicy(new DeviceHealth.Policy(3, Duration.ofSeconds(10), Duration.ofSeconds(40)));
        extra.forEach((d, f) -> b.addDevice(d).deviceFigures(d.name(), f));
        Quiver q = b.build();
        closing.add(q);
        return q;
    }

    private static Field float64(String name) {
        return new Field(name, FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null);
    }

    /** x = i - 100 (null every seventh row), y = i % 13. */
    private VectorSchemaRoot batch(int rows) {
        VectorSchemaRoot b = VectorSchemaRoot.create(XY, allocator);
        Float8Vector x = (Float8Vector) b.getVector("x"), y = (Float8Vector) b.getVector("y");
        x.allocateNew(rows);
        y.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
            if (i % 7 == 3) {
                x.setNull(i);
            } else {
                x.set(i, i - 100);
            }
            y.set(i, i % 13);
        }
        b.setRowCount(rows);
        return b;
    }

    /** Evaluates {@code e} over a batch of {@code rows}, checks every row against Java, and says where its kernel ran. */
    private String evaluate(CompiledExpression e, int rows, Placement placement) {
        try (VectorSchemaRoot b = batch(rows);
                FieldVector out = e.evaluate(b, placement, allocator)) {
            Float8Vector x = (Float8Vector) b.getVector("x"), y = (Float8Vector) b.getVector("y");
            Float8Vector o = (Float8Vector) out;
            for (int i = 0; i < rows; i++) {
                if (x.isNull(i)) {
                    assertTrue(o.isNull(i), "row " + i + " is null");
                } else {
                    double want = (x.get(i) * y.get(i) + 1) / (y.get(i) - 0.5);
                    assertEquals(Double.doubleToLongBits(want), Double.doubleToLongBits(o.get(i)), "row " + i);
                }
            }
            List<String> devices = e.lastBatch().orElseThrow().devices();
            assertEquals(1, devices.size(), devices::toString);
            return devices.getFirst();
        }
    }

    /** The device EXPLAIN marks {@code <- auto} for the (only) segment at {@code rows} rows. */
    private static String explainedAuto(CompiledExpression e, int rows) {
        String text = e.explain(false, rows);
        List<String> marked = text.lines()
                .filter(l -> l.endsWith("<- auto"))
                .map(l -> l.strip().substring(0, l.strip().indexOf(": ")))
                .toList();
        assertEquals(1, marked.size(), text);
        return marked.getFirst();
    }

    /** EXPLAIN, choose and the next batch agree on the device; returns it. */
    private String agreed(CompiledExpression e, int rows) {
        String explained = explainedAuto(e, rows);
        String chosen = e.choose(Placement.AUTO, rows).where();
        String ran = evaluate(e, rows, Placement.AUTO);
        assertEquals(explained, chosen, "EXPLAIN and choose at " + rows + " rows");
        // EXPLAIN names the threads of a device that splits batches ("cpu, 2 threads"); the batch's report the device.
        String device = explained.contains(", ") ? explained.substring(0, explained.indexOf(", ")) : explained;
        assertEquals(device, ran, "EXPLAIN and the batch at " + rows + " rows:\n" + e.explain(true, rows));
        return ran;
    }

    @Test
    void autoFollowsTheFiguresAndExplainIsWhatRuns() {
        ScriptedDevice gpu = new ScriptedDevice("gpu", COPYING_GPU);
        Quiver q = quiver(Map.of(new Device("gpu", Device.Kind.OPENCL_GPU, "scripted", gpu), gpuFigures()));
        CompiledExpression e = q.compile(XY, Expr.parse(EXPR));
        assertEquals("cpu", agreed(e, SMALL), "a small batch: the GPU's launch costs more than the CPU's work");
        assertEquals("gpu", agreed(e, LARGE), "a large batch: the GPU's throughput wins");
        assertEquals(1, gpu.runs.get());
        // Then AUTO learns from what the runs measured (the scripted GPU is a CPU underneath): whatever it
        // learns, EXPLAIN and choose still say where the next batch runs.
        for (int round = 0; round < 20; round++) {
            agreed(e, round % 2 == 0 ? SMALL : LARGE);
        }
    }

    @Test
    void explainAgreesWithExecutionWhileAProgramBuildsInTheBackground() {
        ScriptedDevice gpu = new ScriptedDevice("gpu", COPYING_GPU);
        gpu.ready = false;
        Quiver q = quiver(Map.of(new Device("gpu", Device.Kind.OPENCL_GPU, "scripted", gpu), gpuFigures()));
        CompiledExpression e = q.compile(XY, Expr.parse(EXPR));
        assertEquals(
                "cpu", agreed(e, LARGE), "the GPU would win, but its program is not built: the batch waits for nobody");
        assertTrue(
                e.metrics().byDevice().get("cpu").lastReason().contains("building in the background"),
                e.metrics().byDevice().get("cpu").lastReason());
        assertEquals(1, gpu.prepared.get(), "the build was started once, in the background");
        assertEquals(0, gpu.attempts.get());
        assertEquals("cpu", agreed(e, LARGE));
        assertEquals(1, gpu.prepared.get(), "and not again");
        gpu.ready = true;
        gpu.build.complete(null);
        assertEquals("gpu", agreed(e, LARGE), "built: the GPU wins");
    }

    @Test
    void aFailedBatchIsRecomputedOnTheFallbackAndTheDeviceIsFencedThenProbed() {
        ScriptedDevice gpu = new ScriptedDevice("gpu", COPYING_GPU);
        Device device = new Device("gpu", Device.Kind.OPENCL_GPU, "scripted", gpu);
        Quiver q = quiver(Map.of(device, gpuFigures()));
        CompiledExpression e = q.compile(XY, Expr.parse(EXPR));
        gpu.failure = ScriptedDevice.deviceFailure();
        for (int i = 0; i < 3; i++) {
            assertEquals("cpu", evaluate(e, LARGE, Placement.AUTO), "recomputed on the cpu, every row right");
        }
        assertEquals(3, gpu.attempts.get());
        assertEquals(3, e.metrics().byDevice().get("gpu").fallbacks());
        DeviceHealth.Snapshot h = q.health(device);
        assertEquals(DeviceHealth.State.FENCED, h.state(), h.describe());
        assertEquals(3, h.failures());
        assertEquals("cpu", agreed(e, LARGE), "fenced: AUTO passes it over");
        assertEquals(3, gpu.attempts.get());
        assertTrue(
                e.explain(false, LARGE).contains("gpu: can run every kernel; transfer copy; fenced"),
                e.explain(false, LARGE));
        clock.addAndGet(Duration.ofSeconds(11).toNanos());
        gpu.failure = null;
        Choice probe = e.choose(Placement.AUTO, LARGE);
        assertEquals("gpu", probe.device().name());
        assertTrue(probe.probe(), probe::toString);
        assertEquals("gpu", evaluate(e, LARGE, Placement.AUTO), "the probe runs on it, and succeeds");
        assertEquals(DeviceHealth.State.HEALTHY, q.health(device).state());
        assertEquals("gpu", agreed(e, LARGE));
    }

    @Test
    void aBatchShortOfDeviceMemoryGoesToTheFallbackWithoutCountingAsAFailure() {
        ScriptedDevice gpu = new ScriptedDevice("gpu", COPYING_GPU);
        Device device = new Device("gpu", Device.Kind.OPENCL_GPU, "scripted", gpu);
        Quiver q = quiver(Map.of(device, gpuFigures()));
        CompiledExpression e = q.compile(XY, Expr.parse(EXPR));
        gpu.failure = ScriptedDevice.outOfMemory();
        for (int i = 0; i < 4; i++) {
            assertEquals("cpu", evaluate(e, LARGE, Placement.AUTO));
        }
        DeviceHealth.Snapshot h = q.health(device);
        assertEquals(DeviceHealth.State.HEALTHY, h.state(), h.describe());
        assertEquals(0, h.failures());
        assertEquals(4, h.memoryFallbacks());
        gpu.failure = null;
        assertEquals("gpu", agreed(e, LARGE), "the device itself is fine");
    }

    @Test
    void aThirdDeviceAddedThroughTheBuilderCompetesLikeAnyOther() {
        ScriptedDevice gpu = new ScriptedDevice("gpu", COPYING_GPU);
        ScriptedDevice accel = new ScriptedDevice("accel", ACCELERATOR);
        Device gpuDevice = new Device("gpu", Device.Kind.OPENCL_GPU, "scripted", gpu);
        Device accelDevice = new Device("accel", Device.Kind.CUSTOM, "a scripted accelerator of our own", accel);
        Map<Device, DeviceFigures> extra = new LinkedHashMap<>();
        extra.put(gpuDevice, gpuFigures());
        extra.put(accelDevice, instantFigures());
        Quiver q = quiver(extra);
        assertEquals(
                List.of("cpu", "gpu", "accel"),
                q.devices().stream().map(Device::name).toList());
        assertEquals(List.of(gpuDevice), q.openClDevices(), "a device of our own is not an OpenCL one");
        assertTrue(accelDevice.transferMode().isEmpty(), "it reads the host's memory");
        CompiledExpression e = q.compile(XY, Expr.parse(EXPR));
        assertEquals("accel", agreed(e, LARGE), "the fastest by its figures");
        assertEquals("gpu", evaluate(e, LARGE, Placement.OPENCL), "placement OPENCL takes an OpenCL device");
        accel.failure = ScriptedDevice.deviceFailure();
        for (int i = 0; i < 3; i++) {
            assertEquals("cpu", evaluate(e, LARGE, Placement.AUTO), "recomputed on the fallback");
        }
        assertEquals(DeviceHealth.State.FENCED, q.health(accelDevice).state());
        assertEquals("gpu", agreed(e, LARGE), "fenced: the next best device takes the batches");
        assertEquals(DeviceHealth.State.HEALTHY, q.health(gpuDevice).state());
    }

    @Test
    void theFallbackIsFoundByItsRoleNotItsPosition() {
        ScriptedDevice gpu = new ScriptedDevice("gpu", COPYING_GPU);
        try (CpuBackend cpu = new CpuBackend(1);
                gpu) {
            Device cpuDevice = new Device("cpu", Device.Kind.CPU, "the cpu", cpu);
            Device gpuDevice = new Device("gpu", Device.Kind.OPENCL_GPU, "scripted", gpu);
            FigureSource figures = new FigureSource(Map.of("cpu", cpuFigures(), "gpu", gpuFigures()), false, null);
            Devices devices = new Devices(
                    List.of(gpuDevice, cpuDevice),
                    cpuDevice,
                    DeviceHealth.Policy.DEFAULT,
                    clock::get,
                    true,
                    figures,
                    0,
                    "none");
            KernelProgram p = new KernelProgram(
                    List.of(ElementType.FLOAT64, ElementType.FLOAT64),
                    Ir.div(
                            Ir.add(Ir.mul(Ir.arg(0, ElementType.FLOAT64), Ir.arg(1, ElementType.FLOAT64)), Ir.lit(1.0)),
                            Ir.sub(Ir.arg(1, ElementType.FLOAT64), Ir.lit(0.5))));
            SegmentScheduler s = new SegmentScheduler(new ProgramSupport(), "p", p, null, devices);
            assertEquals(cpuDevice, s.auto(p, SMALL, true).device());
            assertEquals(gpuDevice, s.auto(p, LARGE, true).device());
            assertEquals(cpuDevice, s.fallback(LARGE, Why.FALLBACK).device());
            assertFalse(s.crossover(1).isPresent(), "no crossover of the fallback with itself");
            assertTrue(s.crossover(0).isPresent(), "the gpu's crossover, against the fallback wherever it stands");
            assertThrows(
                    IllegalArgumentException.class,
                    () -> new Devices(
                            List.of(gpuDevice, cpuDevice),
                            gpuDevice,
                            DeviceHealth.Policy.DEFAULT,
                            clock::get,
                            true,
                            figures,
                            0,
                            "none"),
                    "a fallback must run on the caller");
        }
    }
}
