package dev.quiver.opencl;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The OpenCL objects of one backend alive now, per kind: +1 when a {@code clCreate*} call
 * returned one, -1 when it was released (once, by {@link ClObject#close()}). Read by
 * {@link OpenClBackend#liveObjects()} so that tests can prove nothing outlives a run, a failure or
 * a close. Two atomic adds per object: nothing next to the OpenCL call that creates it.
 */
final class ClObjectCounts {
    /** The kinds of object, in the order of {@link OpenClBackend.LiveObjects}'s components. */
    enum Kind { CONTEXT, QUEUE, PROGRAM, KERNEL, MEM }

    private final AtomicLongArray live = new AtomicLongArray(Kind.values().length);

    void created(Kind kind) {
        live.incrementAndGet(kind.ordinal());
    }

    void released(Kind kind) {
        live.decrementAndGet(kind.ordinal());
    }

    OpenClBackend.LiveObjects snapshot() {
        return new OpenClBackend.LiveObjects(live.get(0), live.get(1), live.get(2), live.get(3), live.get(4));
    }
}
