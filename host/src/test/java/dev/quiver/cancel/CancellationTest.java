package dev.quiver.cancel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.errors.CancelledException;
import dev.quiver.errors.ErrorKind;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What a kernel boundary sees: the handles watching its thread, the thread's interrupt flag, and nothing else. */
class CancellationTest {
    @AfterEach
    void clearInterrupt() {
        Thread.interrupted(); // a test that failed half way must not interrupt the next one
    }

    @Test
    void nothingIsRequestedOutsideAHandleOrWithAHandleNotCancelled() {
        Cancellation.check();
        assertFalse(Cancellation.isRequested());
        CancelHandle handle = new CancelHandle();
        assertEquals("done", handle.call(() -> {
            Cancellation.check();
            assertFalse(Cancellation.isRequested());
            return "done";
        }));
        assertFalse(handle.isCancelled());
    }

    @Test
    void aCancelledHandleStopsTheWorkItWatchesAndOnlyThat() {
        CancelHandle handle = new CancelHandle();
        handle.cancel();
        handle.cancel(); // idempotent
        assertTrue(handle.isCancelled());
        CancelledException e = assertThrows(CancelledException.class, () -> handle.run(Cancellation::check));
        assertEquals(ErrorKind.CANCELLED, e.kind());
        assertEquals(Cancellation.CANCELLED, e.detail());
        // Outside the call, and inside another handle's, nothing is cancelled.
        Cancellation.check();
        new CancelHandle().run(Cancellation::check);
        assertFalse(Cancellation.isRequested());
    }

    @Test
    void aHandleCancelledFromAnotherThreadIsSeenAtTheNextCheck() throws Exception {
        CancelHandle handle = new CancelHandle();
        CountDownLatch inside = new CountDownLatch(1), cancelled = new CountDownLatch(1);
        AtomicReference<Throwable> seen = new AtomicReference<>();
        Thread worker = Thread.ofPlatform().start(() -> {
            try {
                handle.run(() -> {
                    Cancellation.check(); // not yet
                    inside.countDown();
                    await(cancelled);
                    Cancellation.check();
                });
            } catch (Throwable t) {
                seen.set(t);
            }
        });
        assertTrue(inside.await(30, TimeUnit.SECONDS));
        handle.cancel();
        cancelled.countDown();
        worker.join(30_000);
        CancelledException e = assertInstanceOf(CancelledException.class, seen.get());
        assertEquals(Cancellation.CANCELLED, e.detail());
        assertFalse(Cancellation.isRequested(), "the cancelled handle watches no call any more");
    }

    @Test
    void nestedCallsStopWhenEitherHandleIsCancelled() {
        CancelHandle outer = new CancelHandle(), inner = new CancelHandle();
        outer.cancel();
        assertThrows(CancelledException.class, () -> outer.run(() -> inner.run(Cancellation::check)));
        CancelHandle outer2 = new CancelHandle(), inner2 = new CancelHandle();
        inner2.cancel();
        assertThrows(CancelledException.class, () -> outer2.run(() -> inner2.run(Cancellation::check)));
        // The inner call has ended: the outer one goes on.
        outer2.run(() -> {
            assertThrows(CancelledException.class, () -> inner2.run(Cancellation::check));
            Cancellation.check();
        });
    }

    @Test
    void anInterruptIsACancellationAndItsFlagStaysSet() {
        Thread.currentThread().interrupt();
        CancelledException e = assertThrows(CancelledException.class, Cancellation::check);
        assertEquals(Cancellation.INTERRUPTED, e.detail());
        assertTrue(Thread.currentThread().isInterrupted(), "the flag is read, never cleared");
        assertTrue(Cancellation.isRequested());
        assertTrue(Thread.interrupted());
        Cancellation.check();
    }

    @Test
    void aTokenWatchesTheThreadThatCapturedItFromAnyThread() throws Exception {
        CancelHandle handle = new CancelHandle();
        Cancellation.Token token = handle.call(Cancellation::capture);
        // Captured inside the call: it watches the handle while a call of it runs.
        CancelHandle running = new CancelHandle();
        CountDownLatch captured = new CountDownLatch(1), checked = new CountDownLatch(1);
        AtomicReference<Cancellation.Token> inside = new AtomicReference<>();
        CompletableFuture<Void> evaluating = CompletableFuture.runAsync(() -> running.run(() -> {
            inside.set(Cancellation.capture());
            captured.countDown();
            await(checked);
        }));
        assertTrue(captured.await(30, TimeUnit.SECONDS));
        Cancellation.Token t = inside.get();
        t.check(); // from this thread, for the evaluating one: nothing yet
        running.cancel();
        assertTrue(t.isRequested());
        assertEquals(
                Cancellation.CANCELLED,
                assertThrows(CancelledException.class, t::check).detail());
        checked.countDown();
        evaluating.get(30, TimeUnit.SECONDS);
        token.check(); // its handle was never cancelled

        // The token of an interrupted thread, checked from another thread (as a helper checks the caller's).
        AtomicBoolean done = new AtomicBoolean();
        CountDownLatch interrupted = new CountDownLatch(1);
        AtomicReference<Cancellation.Token> theirs = new AtomicReference<>();
        Thread owner = Thread.ofPlatform().start(() -> {
            theirs.set(Cancellation.capture());
            Thread.currentThread().interrupt();
            interrupted.countDown();
            while (!done.get()) {
                Thread.onSpinWait(); // no blocking call: it would clear the flag
            }
        });
        try {
            assertTrue(interrupted.await(30, TimeUnit.SECONDS));
            assertTrue(theirs.get().isRequested());
            assertEquals(
                    Cancellation.INTERRUPTED,
                    assertThrows(CancelledException.class, theirs.get()::check).detail());
            Cancellation.check(); // this thread is not interrupted
        } finally {
            done.set(true);
            owner.join(30_000);
        }
    }

    @Test
    void workThatFailsLeavesItsExceptionAndTheBindingEnds() {
        CancelHandle handle = new CancelHandle();
        IllegalStateException failure = new IllegalStateException("boom");
        assertSame(
                failure,
                assertThrows(
                        IllegalStateException.class,
                        () -> handle.run(() -> {
                            throw failure;
                        })));
        handle.cancel(); // after the work ended: harmless
        Cancellation.check();
        assertFalse(Cancellation.isRequested());
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new AssertionError("timed out");
            }
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
