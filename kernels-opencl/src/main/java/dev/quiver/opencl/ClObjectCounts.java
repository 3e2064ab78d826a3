package dev.quiver.opencl;

import java.util.concurrent.atomic.LongAdder;

/**
 * The OpenCL objects of one backend alive now, per kind: +1 when a {@code clCreate*} call
 * returned one, -1 when it was released (once, by {@link ClObject#close()}). Read by
 * {@link OpenClBackend#liveObjects()} so that tests can prove nothing outlives a run, a failure or
 * a close. {@link LongAdder}s: runs on many threads create and release kernels and buffers at
 * once, and must not contend on one counter; a read is exact once no run is in progress.
 */
final class ClObjectCounts {
    /** The kinds of object, in the order of {@link OpenClBackend.LiveObjects}'s components. */
    enum Kind {
        CONTEXT,
        QUEUE,
        PROGRAM,
        KERNEL,
        MEM,
        /** Events of the overlapped copy path: per run. */
        EVENT,
        /** Buffers kept across runs: resident arguments and pinned staging buffers. */
        HELD
    }

    private final LongAdder[] live = new LongAdder[Kind.values().length];

    ClObjectCounts() {
        for (int i = 0; i < live.length; i++) {
            live[i] = new LongAdder();
        }
    }

    void created(Kind kind) {
        live[kind.ordinal()].increment();
    }

    void released(Kind kind) {
        live[kind.ordinal()].decrement();
    }

    OpenClBackend.LiveObjects snapshot() {
        return new OpenClBackend.LiveObjects(
                live[0].sum(),
                live[1].sum(),
                live[2].sum(),
                live[3].sum(),
                live[4].sum(),
                live[5].sum(),
                live[6].sum());
    }
}
