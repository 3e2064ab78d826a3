package dev.quiver.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Device;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.backend.DeviceKind;
import dev.quiver.backend.DeviceTraits;
import dev.quiver.backend.KernelBackend;
import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.expr.Expr;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.UnaryOp;
import dev.quiver.types.ElementType;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * One thread and several are two alternatives of a device that splits batches: estimated from the
 * figures, learnt from what runs measure, never more threads than the spare cores, and EXPLAIN
 * names the threads of what runs.
 */
class ThreadAlternativesTest {
    private static final int LARGE = 1 << 20, SMALL = 1_000;
    private static final DeviceTraits CALLER_CPU =
            new DeviceTraits(DeviceKind.CPU, DeviceTraits.Memory.HOST, true, Long.MAX_VALUE, Long.MAX_VALUE, false);

    /** A CPU of two threads that splits batches from 32K rows; it only counts the threads each run was given. */
    private static final class TwoThreads implements KernelBackend {
        final AtomicInteger lastThreads = new AtomicInteger(-1);

        @Override
        public String name() {
            return "cpu";
        }

        @Override
        public DeviceTraits traits() {
            return CALLER_CPU;
        }

        @Override
        public int threads() {
            return 2;
        }

        @Override
        public int threadsFor(KernelProgram program, long rows) {
            return 1; // the backend's own guess: one thread (as for a memory-bound loop)
        }

        @Override
        public int maxThreadsFor(KernelProgram program, long rows) {
            return rows >= 1 << 15 ? 2 : 1;
        }

        @Override
        public Optional<String> unsupportedReason(KernelProgram program) {
            return Optional.empty();
        }

        @Override
        public KernelRun execute(KernelProgram program, KernelInvocation invocation) {
            lastThreads.set(invocation.threads());
            return new KernelRun(name(), 0, 0, 0, invocation.rows());
        }

        @Override
        public void close() {}
    }

    /** Transcendental work per row: compute-bound, so that two threads halve the estimate. */
    private static KernelProgram sinProgram() {
        IrNode x = Ir.arg(0, ElementType.FLOAT64);
        return new KernelProgram(List.of(ElementType.FLOAT64), Ir.add(Ir.unary(UnaryOp.SIN, x), x));
    }

    private static DeviceFigures figures(double efficiency) {
        return new DeviceFigures(
                "test cpu", 2_000, 0.05, 0.05, 0, 0.1, 0.5, 5, 2, efficiency, 0, 0, DeviceFigures.Source.GIVEN);
    }

    private static SegmentScheduler scheduler(TwoThreads cpu, double efficiency, AtomicInteger spare) {
        Device d = new Device("cpu", Device.Kind.CPU, "two threads", cpu);
        Devices devices = new Devices(
                List.of(d),
                d,
                DeviceHealth.Policy.DEFAULT,
                System::nanoTime,
                false,
                new FigureSource(Map.of("cpu", figures(efficiency)), false, null),
                0,
                "none",
                spare::get);
        KernelProgram p = sinProgram();
        return new SegmentScheduler(new ProgramSupport(), "p", p, null, devices);
    }

    @Test
    void twoThreadsWinByTheFiguresUntilTheirRunsMeasureSlower() {
        TwoThreads cpu = new TwoThreads();
        AtomicInteger spare = new AtomicInteger(2);
        SegmentScheduler s = scheduler(cpu, 0.95, spare);
        Choice first = s.auto(s.program, LARGE, false);
        assertEquals(2, first.threads(), first.toString());
        assertEquals("cpu, 2 threads", first.where());
        // Two threads measure three times their estimate (a busy machine, a memory-bound loop): after a few batches
        // the one-thread alternative, at its estimate, is cheaper.
        Choice c = first;
        for (int i = 0; i < 30 && c.threads() == 2; i++) {
            s.record(c, LARGE, (long) (3 * c.rawEstimateNanos()));
            c = s.auto(s.program, LARGE, false);
        }
        assertEquals(1, c.threads(), "learnt: two threads are slower here");
        assertEquals("cpu, 1 thread", c.where());
        assertEquals(s.candidates() - 1, c.candidate(), "the one-thread alternative");
        // Learnt per batch size: a small batch was never split in the first place.
        Choice small = s.auto(s.program, SMALL, false);
        assertEquals(1, small.threads());
        assertEquals("cpu", small.where(), "no alternative where the batch is not split");
        assertNull(s.estimates(SMALL)[s.candidates() - 1], "no one-thread alternative at 1,000 rows");
    }

    @Test
    void noThreadIsAddedWhenNoCoreIsSpare() {
        TwoThreads cpu = new TwoThreads();
        AtomicInteger spare = new AtomicInteger(1);
        SegmentScheduler s = scheduler(cpu, 0.95, spare);
        Choice c = s.auto(s.program, LARGE, false);
        assertEquals(1, c.threads(), c.toString());
        assertEquals("cpu", c.where());
        assertFalse(s.stands(s.candidates() - 1, LARGE), "one thread is the only alternative");
        spare.set(2);
        assertEquals(2, s.auto(s.program, LARGE, false).threads(), "a core came free");
        // A fixed placement takes the backend's own guess (1 here), and never more than the spare cores.
        assertEquals(1, s.fallback(LARGE, Why.PLACEMENT_CPU).threads());
    }

    @Test
    void theThreadsChosenReachTheBackend() {
        TwoThreads cpu = new TwoThreads();
        AtomicInteger spare = new AtomicInteger(2);
        SegmentScheduler s = scheduler(cpu, 0.95, spare);
        Choice c = s.auto(s.program, LARGE, false);
        // What KernelDispatcher hands the backend: the invocation with the choice's threads.
        KernelInvocation invocation =
                new KernelInvocation(List.of(MemorySegment.NULL), MemorySegment.NULL, MemorySegment.NULL, 0);
        assertEquals(0, invocation.threads(), "by default the backend decides");
        cpu.execute(s.program, invocation.withThreads(c.threads()));
        assertEquals(2, cpu.lastThreads.get());
    }

    @Test
    void spareCoresAreTheCoresOtherProcessesLeave() {
        assertEquals(2, SpareCores.spare(2, 0.5, 0.5), "only this process is busy");
        assertEquals(1, SpareCores.spare(2, 1.0, 0.5), "another process keeps one core busy");
        assertEquals(1, SpareCores.spare(2, 1.0, 0.0), "at least one");
        assertEquals(6, SpareCores.spare(8, 0.5, 0.25), "two of eight cores busy elsewhere");
        assertEquals(4, SpareCores.spare(4, -1, 0.1), "load unknown: every core");
        assertEquals(4, SpareCores.spare(4, Double.NaN, 0.1), "load unknown: every core");
        int now = SpareCores.os().now();
        assertTrue(now >= 1 && now <= Runtime.getRuntime().availableProcessors(), "from the OS: " + now);
    }

    @Test
    void explainListsBothAlternativesOfTheCpu() {
        try (BufferAllocator allocator = new RootAllocator();
                Quiver q = Quiver.builder()
                        .allocator(allocator)
                        .openCl(false)
                        .cpuThreads(2)
                        .loadAware(false)
                        .deviceFigures("cpu", figures(0.95))
                        .build()) {
            Schema schema = new Schema(List.of(new Field(
                    "x", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null)));
            CompiledExpression e = q.compile(schema, Expr.parse("sin(x) + x"));
            String large = e.explain(false, LARGE);
            assertTrue(large.matches("(?s).*\\n    cpu, 2 threads: [0-9.]+ ms .*on 2 threads.*<- auto\\n.*"), large);
            assertTrue(large.matches("(?s).*\\n    cpu, 1 thread: [0-9.]+ ms .*"), large);
            assertEquals("cpu, 2 threads", e.choose(Placement.AUTO, LARGE).where());
            String small = e.explain(false, SMALL);
            assertTrue(small.matches("(?s).*\\n    cpu: [0-9.]+ ms .*<- auto\\n.*"), small);
            assertFalse(small.contains("1 thread"), small);
            assertEquals(0, allocator.getAllocatedMemory());
        }
    }
}
