package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.CompiledExpression;
import dev.quiver.CompiledProjection;
import dev.quiver.Placement;
import dev.quiver.cancel.CancelHandle;
import dev.quiver.cancel.Cancellation;
import dev.quiver.errors.CancelledException;
import dev.quiver.errors.ErrorKind;
import dev.quiver.placement.DeviceHealth;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.RowType;
import dev.quiver.stream.BatchStreams;
import dev.quiver.stream.Pipeline;
import dev.quiver.stream.QueryExecution;
import dev.quiver.stream.QueryRuntime;
import dev.quiver.types.DataType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.arrow.memory.AllocationListener;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Cancelling an evaluation (a {@link CancelHandle}, or an interrupt of the evaluating thread):
 * it ends at the next kernel boundary with a {@link CancelledException} naming the expression,
 * the allocator is back where it was, the compiled expression stays usable (its next batch gives
 * the reference's values), on the CPU and with OpenCL placement, in projections and pipelines.
 *
 * <p>The slow expressions take far longer uncancelled (about 20 s for the RowFn) than the time a
 * cancelled one is allowed to take to end ({@link #ENDS_WITHIN_NANOS}, generous for a loaded
 * machine; the guarantee is 100 ms), so a boundary that is never reached fails the test.
 */
class CancellationTest extends QuiverTestBase {
    /** How long a cancelled evaluation may take to end after the cancel (a hang guard; the guarantee is 100 ms). */
    private static final long ENDS_WITHIN_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** Each row of {@code slow_len} spins this long: 1M rows take 20 s. */
    private static final long SPIN_NANOS = 20_000;

    private static final int SLOW_ROWS = 1_000_000;
    private static final Schema SCHEMA =
            new Schema(List.of(DataType.UTF8.toField("s", true), DataType.FLOAT64.toField("x", true)));

    /** Counted down by the first row {@code slow_len} computes: the slow work has started. */
    private final CountDownLatch slowStarted = new CountDownLatch(1);

    @BeforeEach
    void registerSlowRowFn() {
        // The length of s in bytes, after spinning SPIN_NANOS: a RowFn the author made slow.
        quiver.functions()
                .register(RowFn.declare("slow_len")
                        .arg("s", RowType.UTF8)
                        .returns(RowType.INT64)
                        .perRow((row, out) -> {
                            slowStarted.countDown();
                            long until = System.nanoTime() + SPIN_NANOS;
                            while (System.nanoTime() < until) {
                                Thread.onSpinWait();
                            }
                            out.set(row.utf8(0).length());
                        }));
    }

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    // ---------------------------------------------------------------- from another thread

    @Test
    void aSlowRowFnCancelledFromAnotherThreadEndsAtItsNextRowAndFreesEverything() {
        CompiledExpression e = quiver.compile(SCHEMA, "slow_len(s) + 1");
        try (VectorSchemaRoot big = batch(SLOW_ROWS, i -> "r" + (i % 1000))) {
            long before = allocator.getAllocatedMemory();
            CancelHandle handle = new CancelHandle();
            Ended ended = runThenStop(
                    () -> handle.call(() -> e.evaluate(big, Placement.CPU, allocator)), t -> handle.cancel());
            CancelledException c = ended.cancelled();
            assertEquals(ErrorKind.CANCELLED, c.kind());
            assertEquals("(slow_len(s) + 1)", c.expression());
            assertEquals("evaluation of (slow_len(s) + 1) " + Cancellation.CANCELLED, c.detail());
            assertEquals(
                    Cancellation.CANCELLED,
                    assertInstanceOf(CancelledException.class, c.getCause()).detail(),
                    "the boundary's own exception is the cause");
            assertFalse(ended.interruptedAfter());
            assertEquals(before, allocator.getAllocatedMemory(), "everything the evaluation allocated is freed");
            assertLengthsPlusOne(e, Placement.CPU);
        }
    }

    @Test
    void anInterruptOfTheEvaluatingThreadDoesTheSameAndItsFlagStaysSet() {
        CompiledExpression e = quiver.compile(SCHEMA, "slow_len(s) + 1");
        try (VectorSchemaRoot big = batch(SLOW_ROWS, i -> "r" + (i % 1000))) {
            long before = allocator.getAllocatedMemory();
            Ended ended = runThenStop(() -> e.evaluate(big, Placement.CPU, allocator), Thread::interrupt);
            CancelledException c = ended.cancelled();
            assertEquals("evaluation of (slow_len(s) + 1) " + Cancellation.INTERRUPTED, c.detail());
            assertTrue(ended.interruptedAfter(), "the evaluating thread's interrupt flag is still set");
            assertEquals(before, allocator.getAllocatedMemory());
            assertLengthsPlusOne(e, Placement.CPU);
        }
    }

    @Test
    void aRegularExpressionOverLongStringsIsCancelledBetweenRows() {
        // 300K strings of 200 characters of 'a' and 'b' and no 'c': the pattern never matches, and every row
        // makes the engine scan the whole string (one that backtracks, quadratically).
        CompiledExpression e = quiver.compile(SCHEMA, "regexp_matches(s, '(a|b)*c')");
        usesSlowLen = false;
        String longText = "ab".repeat(100);
        try (VectorSchemaRoot big = batch(300_000, i -> longText)) {
            long before = allocator.getAllocatedMemory();
            CancelHandle handle = new CancelHandle();
            Ended ended = runThenStop(
                    () -> handle.call(() -> e.evaluate(big, Placement.CPU, allocator)), t -> handle.cancel());
            assertEquals("regexp_matches(s, '(a|b)*c')", ended.cancelled().expression());
            assertEquals(before, allocator.getAllocatedMemory());
        }
        // The next batch: java.util.regex as the reference for this pattern.
        String[] texts = {"abc", "ab", "", "xxabac", "c", "bbbb", null, "ababababc"};
        try (VectorSchemaRoot small = batch(texts.length * 50, i -> texts[i % texts.length]);
                FieldVector out = e.evaluate(small, Placement.CPU, allocator)) {
            BitVector bits = (BitVector) out;
            for (int i = 0; i < small.getRowCount(); i++) {
                String t = texts[i % texts.length];
                assertEquals(
                        t == null ? null : Pattern.compile("(a|b)*c").matcher(t).find(), bits.getObject(i), "row " + i);
            }
        }
    }

    @Test
    void withOpenClPlacementTheDeviceKernelAndTheHostRowFnStopAndTheDeviceStaysHealthy() {
        OpenClAvailability.requireOpenCl(quiver);
        // The CASE condition is a fused kernel on the OpenCL device; the ELSE branch the slow RowFn on the CPU.
        CompiledExpression e = quiver.compile(SCHEMA, "CASE WHEN sin(x) * cos(x) > 2 THEN -1 ELSE slow_len(s) + 1 END");
        assertLengthsPlusOne(e, Placement.OPENCL); // builds the program first: a build is not interruptible
        long fallbacks = e.metrics().fallbacks();
        try (VectorSchemaRoot big = batch(SLOW_ROWS, i -> "r" + (i % 1000))) {
            long before = allocator.getAllocatedMemory();
            CancelHandle handle = new CancelHandle();
            Ended ended = runThenStop(
                    () -> handle.call(() -> e.evaluate(big, Placement.OPENCL, allocator)), t -> handle.cancel());
            assertEquals(ErrorKind.CANCELLED, ended.cancelled().kind());
            assertEquals(before, allocator.getAllocatedMemory());
        }
        assertEquals(fallbacks, e.metrics().fallbacks(), "a cancellation is not a device failure");
        for (var d : quiver.openClDevices()) {
            assertEquals(DeviceHealth.State.HEALTHY, quiver.health(d).state(), d.name());
        }
        assertLengthsPlusOne(e, Placement.OPENCL);
    }

    @Test
    void cancellingAQueryStopsTheBatchItIsEvaluating() throws Exception {
        VectorSchemaRoot big = batch(SLOW_ROWS, i -> "r" + (i % 1000)); // handed to the query's source
        try (QueryRuntime runtime = QueryRuntime.create()) {
            QueryExecution q = Pipeline.from(SCHEMA)
                    .project("slow_len(s) AS n")
                    .plan(quiver)
                    .execute(
                            runtime,
                            BatchStreams.fromIterator(SCHEMA, List.of(big).iterator(), runtime.executor()));
            CompletableFuture<VectorSchemaRoot> next = q.stream().next();
            assertTrue(slowStarted.await(60, TimeUnit.SECONDS), "the batch never started");
            Thread.sleep(50);
            assertFalse(next.isDone(), "the batch takes about 20 s");
            long cancelledAt = System.nanoTime();
            q.cancel();
            q.whenReleased().get(30, TimeUnit.SECONDS);
            long released = System.nanoTime() - cancelledAt;
            assertTrue(
                    released < ENDS_WITHIN_NANOS,
                    "the running batch stopped " + released / 1_000_000 + " ms after the cancel");
            Throwable failed = assertThrows(Throwable.class, () -> next.get(30, TimeUnit.SECONDS));
            assertInstanceOf(
                    CancellationException.class,
                    failed instanceof ExecutionException ? failed.getCause() : failed,
                    String.valueOf(failed));
            q.close();
        }
        assertEquals(0, allocator.getAllocatedMemory(), "the batch and everything computed from it are freed");
    }

    // ---------------------------------------------------------------- inside a kernel, deterministically

    /**
     * Each expression is a single function node, whose kernel the handle is cancelled in: an
     * allocation listener cancels it when the kernel allocates its result, after every boundary
     * before the kernel has passed. Only a check inside the kernel's row loop can then stop it (the
     * evaluation would otherwise return its result); it frees the result it was writing.
     */
    @Test
    void aCancellationDuringAKernelIsSeenInsideItsRowLoop() {
        quiver.functions()
                .register(RowFn.declare("str_len")
                        .arg("s", RowType.UTF8)
                        .returns(RowType.INT64)
                        .perRow((row, out) -> out.set(row.utf8(0).length())));
        List<String> expressions = List.of(
                "reverse(s)", // strings written row by row (Utf8Output)
                "replace(s, 'é', 'ab')",
                "lpad(s, 30, 'xé')",
                "regexp_replace(s, 'é+', 'E', 'g')", // the regexp functions, row by row
                "regexp_matches(s, 'é.*x')",
                "s LIKE s", // a LIKE whose pattern varies by row (PredicateOutput)
                "str_len(s)"); // a per-row RowFn
        String[] texts = {"héllo", "éé x", "", "naïve", "日本語x", "é%"};
        try (VectorSchemaRoot b = batch(10_000, i -> i % 97 == 0 ? null : texts[i % texts.length] + i)) {
            for (String text : expressions) {
                CompiledExpression e = quiver.compile(SCHEMA, text);
                String expected;
                try (FieldVector reference = e.evaluate(b, Placement.CPU, allocator)) {
                    expected = reference.toString() + values(reference);
                }
                CancelHandle handle = new CancelHandle();
                AtomicBoolean armed = new AtomicBoolean(true);
                try (BufferAllocator child = allocator.newChildAllocator(
                        "cancel-in-kernel",
                        new AllocationListener() {
                            @Override
                            public void onAllocation(long size) {
                                if (armed.getAndSet(false)) {
                                    handle.cancel(); // the kernel's first allocation: its result
                                }
                            }
                        },
                        0,
                        Long.MAX_VALUE)) {
                    CancelledException c = assertThrows(
                            CancelledException.class,
                            () -> handle.call(() -> e.evaluate(b, Placement.CPU, child)),
                            text);
                    assertEquals(Cancellation.CANCELLED, ((CancelledException) c.getCause()).detail(), text);
                    assertFalse(armed.get(), text + ": the kernel allocated");
                    assertEquals(0, child.getAllocatedMemory(), text + ": the kernel freed its result");
                }
                try (FieldVector again = e.evaluate(b, Placement.CPU, allocator)) {
                    assertEquals(
                            expected, again.toString() + values(again), text + ": the next evaluation is the same");
                }
            }
        }
    }

    // ---------------------------------------------------------------- before, after, projections

    @Test
    void aHandleCancelledBeforeTheEvaluationStartsStopsItBeforeAnythingIsAllocated() {
        CompiledExpression e = quiver.compile(SCHEMA, "upper(s) || 'x'");
        try (VectorSchemaRoot b = batch(1000, i -> "v" + i)) {
            CancelHandle handle = new CancelHandle();
            handle.cancel();
            AtomicBoolean allocated = new AtomicBoolean();
            try (BufferAllocator child = allocator.newChildAllocator(
                    "before",
                    new AllocationListener() {
                        @Override
                        public void onAllocation(long size) {
                            allocated.set(true);
                        }
                    },
                    0,
                    Long.MAX_VALUE)) {
                CancelledException c = assertThrows(
                        CancelledException.class, () -> handle.call(() -> e.evaluate(b, Placement.AUTO, child)));
                assertEquals(ErrorKind.CANCELLED, c.kind());
                assertFalse(allocated.get(), "nothing was allocated");
            }
            // An interrupted thread likewise; its flag stays set.
            Thread.currentThread().interrupt();
            assertThrows(CancelledException.class, () -> e.evaluate(b, Placement.CPU, allocator));
            assertTrue(Thread.interrupted());
            assertUpperX(e, b);
        }
    }

    @Test
    void cancellingAfterTheEvaluationEndedIsHarmless() {
        CompiledExpression e = quiver.compile(SCHEMA, "upper(s) || 'x'");
        try (VectorSchemaRoot b = batch(1000, i -> "v" + i)) {
            CancelHandle handle = new CancelHandle();
            try (FieldVector out = handle.call(() -> e.evaluate(b, Placement.CPU, allocator))) {
                handle.cancel();
                assertEquals(
                        "V7x",
                        new String(((VarCharVector) out).get(7), StandardCharsets.UTF_8),
                        "the result is intact");
            }
            // The handle stays cancelled (a new one per unit of work); the expression is fine.
            assertThrows(CancelledException.class, () -> handle.call(() -> e.evaluate(b, Placement.CPU, allocator)));
            assertUpperX(e, b);
            new CancelHandle().run(() -> assertUpperX(e, b));
        }
    }

    @Test
    void aCancelledProjectionFreesTheColumnsItHadComputed() {
        CompiledProjection p =
                quiver.compileProjection(SCHEMA, List.of("upper(s) AS u", "slow_len(s) AS n", "x * 2 AS y"));
        try (VectorSchemaRoot big = batch(SLOW_ROWS, i -> "r" + (i % 1000))) {
            long before = allocator.getAllocatedMemory();
            CancelHandle handle = new CancelHandle();
            Ended ended = runThenStop(
                    () -> handle.call(() -> p.project(big, Placement.CPU, allocator)), t -> handle.cancel());
            assertEquals("slow_len(s) AS n", ended.cancelled().expression());
            assertEquals(before, allocator.getAllocatedMemory(), "the finished column 'u' is freed too");
        }
        try (VectorSchemaRoot small = batch(300, i -> i % 7 == 0 ? null : "r" + i);
                VectorSchemaRoot out = p.project(small, Placement.CPU, allocator)) {
            for (int i = 0; i < 300; i++) {
                String s = i % 7 == 0 ? null : "r" + i;
                assertEquals(
                        s == null ? null : s.toUpperCase(Locale.ROOT),
                        out.getVector("u").getObject(i) == null
                                ? null
                                : out.getVector("u").getObject(i).toString());
                assertEquals(s == null ? null : (long) s.length(), ((BigIntVector) out.getVector("n")).getObject(i));
                assertEquals(i * 0.001 * 2, ((Float8Vector) out.getVector("y")).get(i));
            }
        }
    }

    // ---------------------------------------------------------------- helpers

    /** Whether the work of {@link #runThenStop} calls slow_len: it is stopped 50 ms after slow_len's first row. */
    private boolean usesSlowLen = true;

    /** How a background evaluation ended after it was stopped. */
    private record Ended(CancelledException cancelled, boolean interruptedAfter) {}

    /**
     * Runs {@code work} on a new thread, stops it 50 ms later with {@code stop} (given that thread),
     * and waits for it: it must end with a CancelledException within {@link #ENDS_WITHIN_NANOS}.
     */
    private Ended runThenStop(Supplier<? extends AutoCloseable> work, Consumer<Thread> stop) {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicReference<AutoCloseable> result = new AtomicReference<>();
        AtomicBoolean interruptedAfter = new AtomicBoolean();
        AtomicLong endedAt = new AtomicLong();
        Thread t = Thread.ofPlatform().name("evaluating").start(() -> {
            try {
                result.set(work.get());
            } catch (Throwable x) {
                failure.set(x);
            } finally {
                endedAt.set(System.nanoTime());
                interruptedAfter.set(Thread.currentThread().isInterrupted());
            }
        });
        try {
            if (usesSlowLen) {
                assertTrue(slowStarted.await(60, TimeUnit.SECONDS), "slow_len never started");
            }
            Thread.sleep(50);
            assertTrue(t.isAlive(), "the work ended before it was stopped");
            long stoppedAt = System.nanoTime();
            stop.accept(t);
            t.join(60_000);
            assertFalse(t.isAlive(), "still running a minute after it was stopped");
            long took = endedAt.get() - stoppedAt;
            assertTrue(took < ENDS_WITHIN_NANOS, "ended " + took / 1_000_000 + " ms after it was stopped");
        } catch (InterruptedException x) {
            throw new AssertionError(x);
        } finally {
            if (result.get() != null) {
                try {
                    result.get().close();
                } catch (Exception x) {
                    throw new AssertionError(x);
                }
            }
        }
        if (result.get() != null) {
            fail("the work was not cancelled: it returned a result");
        }
        return new Ended(
                assertInstanceOf(CancelledException.class, failure.get(), String.valueOf(failure.get())),
                interruptedAfter.get());
    }

    /** {@code slow_len(s) + 1} (or the CASE around it) over a small batch: each row's byte length plus one. */
    private void assertLengthsPlusOne(CompiledExpression e, Placement placement) {
        try (VectorSchemaRoot small = batch(500, i -> i % 11 == 0 ? null : "é" + i);
                FieldVector out = e.evaluate(small, placement, allocator)) {
            BigIntVector n = (BigIntVector) out;
            for (int i = 0; i < 500; i++) {
                assertEquals(
                        i % 11 == 0 ? null : (long) ("é" + i).getBytes(StandardCharsets.UTF_8).length + 1,
                        n.getObject(i),
                        "row " + i);
            }
        }
    }

    private void assertUpperX(CompiledExpression e, VectorSchemaRoot b) {
        try (FieldVector out = e.evaluate(b, Placement.CPU, allocator)) {
            for (int i = 0; i < b.getRowCount(); i++) {
                assertEquals("V" + i + "x", new String(((VarCharVector) out).get(i), StandardCharsets.UTF_8));
            }
        }
    }

    private static String values(FieldVector v) {
        List<Object> out = new ArrayList<>(v.getValueCount());
        for (int i = 0; i < v.getValueCount(); i++) {
            out.add(v.getObject(i));
        }
        return out.toString();
    }

    /** A batch of {@code rows} rows: {@code s} from {@code text} (null for null), {@code x} = row * 0.001. */
    private VectorSchemaRoot batch(int rows, IntFunction<String> text) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        try {
            VarCharVector s = (VarCharVector) root.getVector("s");
            Float8Vector x = (Float8Vector) root.getVector("x");
            s.allocateNew(rows);
            x.allocateNew(rows);
            for (int i = 0; i < rows; i++) {
                String t = text.apply(i);
                if (t == null) {
                    s.setNull(i);
                } else {
                    s.setSafe(i, t.getBytes(StandardCharsets.UTF_8));
                }
                x.set(i, i * 0.001);
            }
            root.setRowCount(rows);
            return root;
        } catch (RuntimeException e) {
            root.close();
            throw e;
        }
    }
}
