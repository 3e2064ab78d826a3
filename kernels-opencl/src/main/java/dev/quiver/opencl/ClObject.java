package dev.quiver.opencl;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToIntFunction;

/**
 * One OpenCL object (context, queue, program, kernel, buffer) released exactly once by
 * {@link #close()}, however often it is called and from whichever thread.
 *
 * @param <T> the JOCL handle type, e.g. {@code cl_mem}
 */
final class ClObject<T> implements AutoCloseable {
    private final T handle;
    private final ToIntFunction<T> release;
    private final String releaseCall;
    private final ClObjectCounts counts;
    private final ClObjectCounts.Kind kind;
    private final AtomicBoolean released = new AtomicBoolean();

    /**
     * Wraps a handle just returned by a {@code clCreate*} call together with that call's error
     * code: on failure nothing was created, so nothing is wrapped and the error is thrown. The
     * object counts as alive in {@code counts} (as {@code kind}) until it is released.
     */
    static <T> ClObject<T> created(
            T handle,
            int[] errorCode,
            String createCall,
            ToIntFunction<T> release,
            String releaseCall,
            ClObjectCounts counts,
            ClObjectCounts.Kind kind) {
        OpenClException.check(errorCode[0], createCall);
        Objects.requireNonNull(handle, createCall + " returned no object");
        counts.created(kind);
        return new ClObject<>(handle, release, releaseCall, counts, kind);
    }

    private ClObject(
            T handle, ToIntFunction<T> release, String releaseCall, ClObjectCounts counts, ClObjectCounts.Kind kind) {
        this.handle = handle;
        this.release = release;
        this.releaseCall = releaseCall;
        this.counts = counts;
        this.kind = kind;
    }

    /** The handle, valid until {@link #close()}. */
    T handle() {
        return handle;
    }

    /** Releases the object after {@code failure}; a release error joins the failure rather than hiding it. */
    void closeAfterFailure(Throwable failure) {
        try {
            close();
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    @Override
    public void close() {
        if (released.compareAndSet(false, true)) {
            // Counted as released even when the release call fails: it is never tried again.
            counts.released(kind);
            OpenClException.check(release.applyAsInt(handle), releaseCall);
        }
    }
}
