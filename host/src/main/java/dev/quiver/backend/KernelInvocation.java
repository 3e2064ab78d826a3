package dev.quiver.backend;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;

/**
 * The memory of one kernel run: views of Arrow buffers (see {@link dev.quiver.memory.VectorView}).
 *
 * @param args     one data segment per program argument, {@code rows * width} bytes each
 * @param validity the output's validity bitmap, already computed (the AND of the inputs')
 * @param out      the output's data segment, {@code rows * width} bytes
 * @param rows     number of rows
 */
public record KernelInvocation(List<MemorySegment> args, MemorySegment validity, MemorySegment out, int rows) {
    public KernelInvocation {
        args = List.copyOf(args);
        Objects.requireNonNull(validity, "validity is null");
        Objects.requireNonNull(out, "out is null");
        if (rows < 0) {
            throw new IllegalArgumentException("rows must be >= 0, got " + rows);
        }
    }
}
