package dev.quiver.physical;

import dev.quiver.backend.RowMode;
import dev.quiver.rowfn.ir.KernelProgram;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * Runs a fused kernel program over whole columns on a device chosen for the batch. The
 * scheduler supplies one per evaluation, bound to the placement the caller asked for.
 */
public interface KernelExecutor {

    /**
     * Runs {@code program} over {@code args} (one per program argument, {@code rows} rows each,
     * borrowed; a Boolean argument is a BitVector) and returns a new vector of {@code rows} rows
     * from {@code allocator}. For a strict program a row is null when any argument is null in it;
     * a row is also null where the program's null condition holds.
     *
     * @param mode which rows the device computes and where a failure counts ({@link RowMode})
     */
    Result run(KernelProgram program, List<FieldVector> args, int rows, BufferAllocator allocator, RowMode mode);

    /**
     * {@link #run(KernelProgram, List, int, BufferAllocator, RowMode)} for a run of the kernel
     * segment {@code segment} ({@code program} is its program, or the program specialized for
     * this batch's constants): a scheduler places and learns per segment.
     */
    default Result run(
            FusedKernelExpr segment,
            KernelProgram program,
            List<FieldVector> args,
            int rows,
            BufferAllocator allocator,
            RowMode mode) {
        return run(program, args, rows, allocator, mode);
    }

    /** {@link #run(KernelProgram, List, int, BufferAllocator, RowMode)} computing valid rows only; the vector. */
    default FieldVector run(KernelProgram program, List<FieldVector> args, int rows, BufferAllocator allocator) {
        return run(program, args, rows, allocator, RowMode.VALID_ROWS).vector();
    }

    /**
     * @param vector       the result, owned by the caller
     * @param rowsComputed rows the device computed (-1 when it did not count)
     * @param device       the device's name
     */
    record Result(FieldVector vector, long rowsComputed, String device) {}
}
