package dev.quiver.errors;

/**
 * Memory or a size limit ran out while evaluating: an allocator at its limit ({@code QuiverOutOfMemoryException}), a result larger than an Arrow vector can hold (2 GiB of text in a Utf8 column, 2^31 list elements). Nothing is left allocated; the same evaluation with more room, or over a smaller batch, can succeed.
 */
public class ResourceException extends QuiverException {
    public ResourceException(String detail) {
        super(ErrorKind.RESOURCE, detail, null);
    }

    public ResourceException(String detail, Throwable cause) {
        super(ErrorKind.RESOURCE, detail, cause);
    }
}
