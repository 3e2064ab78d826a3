package dev.quiver.expr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.SmallStack;
import dev.quiver.cancel.CancelHandle;
import dev.quiver.cancel.Cancellation;
import dev.quiver.errors.CancelledException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The large-stack threads that parsing, planning and deep evaluation run on. */
class ExprThreadsTest {

    /** A recursion of {@code n} levels. */
    private static int depth(int n) {
        return n == 0 ? 0 : 1 + depth(n - 1);
    }

    @Test
    void aRecursionTooDeepForTheCallersStackRunsThere() {
        SmallStack.run(() -> {
            assertThrows(StackOverflowError.class, () -> depth(200_000));
            assertEquals(200_000, ExprThreads.call(() -> depth(200_000)));
            // A stack above the pool's: a thread of its own.
            assertEquals(400_000, ExprThreads.call(64L << 20, () -> depth(400_000)));
        });
    }

    @Test
    void whatTheTaskThrowsIsThrownToTheCaller() {
        IllegalStateException thrown = new IllegalStateException("from the task");
        assertSame(
                thrown,
                assertThrows(
                        IllegalStateException.class,
                        () -> ExprThreads.call(() -> {
                            throw thrown;
                        })));
    }

    @Test
    void anInterruptOfTheCallerReachesTheTaskAndStaysSet() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        boolean[] sawInterrupt = new boolean[1];
        boolean[] callerFlag = new boolean[1];
        Thread caller = new Thread(() -> {
            ExprThreads.call(() -> {
                started.countDown();
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    sawInterrupt[0] = true;
                }
                return null;
            });
            callerFlag[0] = Thread.currentThread().isInterrupted();
        });
        caller.start();
        assertTrue(started.await(60, TimeUnit.SECONDS));
        caller.interrupt();
        caller.join(60_000);
        assertFalse(caller.isAlive());
        assertTrue(sawInterrupt[0], "the task was interrupted");
        assertTrue(callerFlag[0], "the caller's interrupt flag is kept");
        // The pooled thread starts its next task uninterrupted.
        assertFalse(ExprThreads.call(() -> Thread.currentThread().isInterrupted()));
    }

    @Test
    void aTaskPastItsTimeIsLeftAndTheCallerGetsTheError() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        IllegalStateException late = assertThrows(
                IllegalStateException.class,
                () -> ExprThreads.call(
                        () -> {
                            try {
                                release.await(); // a task that does not stop when asked
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            return 1;
                        },
                        50,
                        () -> new IllegalStateException("too late")));
        assertEquals("too late", late.getMessage());
        release.countDown();
        assertEquals(2, ExprThreads.call(() -> 2, 60_000, () -> new IllegalStateException("not expected")));
    }

    @Test
    void theTaskSeesTheCallersCancelHandles() {
        CancelHandle handle = new CancelHandle();
        CancelledException e = assertThrows(
                CancelledException.class,
                () -> handle.call(() -> ExprThreads.call(() -> {
                    handle.cancel(); // while the task runs, on the other thread
                    Cancellation.check();
                    return null;
                })));
        assertEquals(Cancellation.CANCELLED, e.detail());
    }
}
