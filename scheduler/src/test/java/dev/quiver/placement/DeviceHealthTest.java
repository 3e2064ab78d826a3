package dev.quiver.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The circuit breaker: fence after failures in a row, probe when the fence ends, double the fence on a failed probe. */
class DeviceHealthTest {
    private final AtomicLong now = new AtomicLong(5_000_000_000L);
    private final DeviceHealth health =
            new DeviceHealth(new DeviceHealth.Policy(2, Duration.ofSeconds(1), Duration.ofSeconds(3)), now::get);

    private void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    @Test
    void failuresInARowFenceAndOnlyAProbesSuccessLiftsTheFence() {
        health.failure("a", false);
        health.success(false); // a success in between: the count starts again
        health.failure("b", false);
        assertEquals(DeviceHealth.State.HEALTHY, health.state());
        health.failure("c", false);
        assertEquals(DeviceHealth.State.FENCED, health.state());
        assertFalse(health.tryProbe(), "no probe before the fence ends");
        health.success(false); // a batch sent before the fence, finishing now
        assertEquals(DeviceHealth.State.FENCED, health.state(), "a straggler's success does not lift the fence");
        advance(Duration.ofSeconds(1));
        assertEquals(DeviceHealth.State.PROBE_DUE, health.state());
        assertTrue(health.tryProbe());
        assertFalse(health.tryProbe(), "one probe at a time");
        assertEquals(DeviceHealth.State.PROBING, health.state());
        health.success(true);
        assertEquals(DeviceHealth.State.HEALTHY, health.state());
        assertEquals(1, health.snapshot().fences());
        assertEquals(1, health.snapshot().probes());
        assertEquals(3, health.snapshot().failures());
    }

    @Test
    void aFailedProbeDoublesTheFenceUpToTheMostAndAReleasedProbeCanBeClaimedAgain() {
        health.failure("a", false);
        health.failure("b", false);
        advance(Duration.ofSeconds(1));
        assertTrue(health.tryProbe());
        health.failure("probe", true);
        advance(Duration.ofMillis(1999));
        assertEquals(DeviceHealth.State.FENCED, health.state(), "2 s after the failed probe");
        advance(Duration.ofMillis(1));
        assertTrue(health.tryProbe());
        health.failure("probe", true);
        advance(Duration.ofMillis(2999));
        assertEquals(DeviceHealth.State.FENCED, health.state(), "at most 3 s");
        advance(Duration.ofMillis(1));
        assertTrue(health.tryProbe());
        health.releaseProbe(); // the probe batch never reached the device
        assertEquals(DeviceHealth.State.PROBE_DUE, health.state());
        assertTrue(health.tryProbe());
        health.memoryFallback("out of memory");
        assertEquals(DeviceHealth.State.PROBE_DUE, health.state(), "memory is not a verdict on the device");
        assertEquals(1, health.snapshot().memoryFallbacks());
        assertEquals(3, health.snapshot().fences());
    }
}
