package dev.quiver.backend;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The span in which {@link ResidentKey#inScope scoped keys} are valid: one evaluation of a batch.
 * A backend that keeps a scoped argument on its device registers a release action the first time
 * it does; {@link #close()} runs every action once, so nothing of the batch stays on any device.
 * Used by one evaluation at a time (the thread that evaluates the batch); close is idempotent.
 */
public final class ResidencyScope implements AutoCloseable {
    private final List<Consumer<ResidencyScope>> onClose = new ArrayList<>(2);
    private boolean closed;

    /**
     * Registers {@code release}, run with this scope when it closes. Returns false (and registers
     * nothing) when the scope is already closed: then nothing may be kept for it.
     */
    public synchronized boolean onClose(Consumer<ResidencyScope> release) {
        if (closed) {
            return false;
        }
        if (!onClose.contains(release)) {
            onClose.add(release);
        }
        return true;
    }

    public synchronized boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        List<Consumer<ResidencyScope>> actions;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            actions = List.copyOf(onClose);
            onClose.clear();
        }
        RuntimeException first = null;
        for (Consumer<ResidencyScope> a : actions) {
            try {
                a.accept(this);
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
