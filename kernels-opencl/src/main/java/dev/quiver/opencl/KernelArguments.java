package dev.quiver.opencl;

import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import java.util.List;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_kernel;
import org.jocl.cl_mem;

/**
 * The argument list and grid of a generated kernel ({@link KernelSource}), shared by a launch over
 * a whole batch ({@link SingleLaunch}) and one over a chunk ({@link OverlapPipeline}): rows,
 * all-rows flag, one buffer per argument, the output, the validity (NULL when the run needs
 * none), the status word of a fallible program, then the literals. Owns no state.
 */
final class KernelArguments {
    private KernelArguments() {}

    /**
     * Sets every argument of {@code kernel} for {@code rows} rows: {@code buffers} holds the
     * arguments' buffers then the output's; {@code validity} and {@code status} may be null.
     */
    static void set(
            KernelLaunch launch,
            cl_kernel kernel,
            int rows,
            boolean allRows,
            List<cl_mem> buffers,
            cl_mem validity,
            cl_mem status,
            KernelProgram program) {
        int index = 0;
        launch.setArg(kernel, index++, Sizeof.cl_int, Pointer.to(new int[] {rows}));
        launch.setArg(kernel, index++, Sizeof.cl_int, Pointer.to(new int[] {allRows ? 1 : 0}));
        for (cl_mem mem : buffers) {
            launch.setArg(kernel, index++, Sizeof.cl_mem, Pointer.to(mem));
        }
        // A NULL buffer argument is a NULL pointer in the kernel, which then never reads it.
        launch.setArg(kernel, index++, Sizeof.cl_mem, validity == null ? null : Pointer.to(validity));
        if (status != null) {
            launch.setArg(kernel, index++, Sizeof.cl_mem, Pointer.to(status));
        }
        for (IrNode.Const c : program.constants()) {
            // Raw bits, so NaN payloads and -0.0 reach the device unchanged.
            long bits = c.bits();
            switch (c.type()) {
                case INT32, FLOAT32, BOOL ->
                    launch.setArg(kernel, index++, Sizeof.cl_int, Pointer.to(new int[] {(int) bits}));
                case INT64, FLOAT64 -> launch.setArg(kernel, index++, Sizeof.cl_long, Pointer.to(new long[] {bits}));
            }
        }
    }

    /** The global work size of a launch over {@code rows} rows: whole work groups of {@code compiled}'s size. */
    static long globalSize(CompiledProgram compiled, int rows) {
        long group = compiled.workGroupSize();
        long items = (rows + (long) compiled.source().rowsPerItem() - 1)
                / compiled.source().rowsPerItem();
        return (items + group - 1) / group * group;
    }
}
