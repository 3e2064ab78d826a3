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
    private final AtomicBoolean released = new AtomicBoolean();

    /**
     * Wraps a handle just returned by a {@code clCreate*} call together with that call's error
     * code: on failure nothing was created, so nothing is wrapped and the error is thrown.
     */
    static <T> ClObject<T> created(T handle, int[] errorCode, String createCall,
                                   ToIntFunction<T> release, String releaseCall) {
        OpenClException.check(errorCode[0], createCall);
        Objects.requireNonNull(handle, createCall + " returned no object");
        return new ClObject<>(handle, release, releaseCall);
    }

    private ClObject(T handle, ToIntFunction<T> release, String releaseCall) {
        this.handle = handle;
        this.release = release;
        this.releaseCall = releaseCall;
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
            OpenClException.check(release.applyAsInt(handle), releaseCall);
        }
    }
}
