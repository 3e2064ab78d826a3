package dev.quiver.physical;

import dev.quiver.rowfn.ir.KernelProgram;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

import java.util.List;

/**
 * Runs a fused kernel program over whole columns on a device chosen for the batch. The
 * scheduler supplies one per evaluation, bound to the placement the caller asked for.
 */
public interface KernelExecutor {

    /**
     * Runs {@code program} over {@code args} (one per program argument, {@code rows} rows each,
     * borrowed) and returns a new vector of {@code rows} rows from {@code allocator}; a row is
     * null when any argument is null in it.
     */
    FieldVector run(KernelProgram program, List<FieldVector> args, int rows, BufferAllocator allocator);
}
