package dev.quiver.placement;

import dev.quiver.Device;
import dev.quiver.backend.KernelRun;

/**
 * Where the {@link KernelDispatcher} reports what ran: an expression's metrics. Called on the
 * evaluating thread, once per kernel run; implementations are thread-safe and lock-free.
 */
public interface RunRecorder {
    /** {@code run} of {@code rows} rows ran on {@code device}, placed by {@code choice}. */
    void ran(Device device, int rows, KernelRun run, Choice choice);

    /** A batch failed on {@code device} and was recomputed on the fallback; {@code memory}: for want of device memory. */
    void fellBack(Device device, boolean memory);

    /** A sampled decision took {@code nanos} of the scheduler's own time. */
    void scheduled(long nanos);

    /** One kernel run in this many has the scheduler's own time measured. */
    int SAMPLE = 8;
}
