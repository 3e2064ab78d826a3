package dev.quiver.cpu;

import dev.quiver.backend.KernelArithmeticException;
import dev.quiver.backend.KernelBackend;
import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The CPU backend: runs each program as one fused Vector API loop over the Arrow memory
 * (see {@link FusedLoopCompiler}), on the calling thread. Compiled loops are cached by program
 * shape; literal values are passed in per run.
 *
 * <p>Rows that do not fill a whole vector at the end of a batch are copied into a small
 * padded scratch block, run through the same loop and copied back, so there is one code path
 * for every row and no masked or scalar tail to keep in step with it.
 */
public final class CpuBackend implements KernelBackend {
    private final ConcurrentHashMap<Object, FusedLoopCompiler.FusedLoop> loops = new ConcurrentHashMap<>();

    @Override
    public String name() {
        return "cpu";
    }

    @Override
    public Optional<String> unsupportedReason(KernelProgram program) {
        return Optional.empty();
    }

    /** Lanes (rows per step) of the loop this backend runs for {@code program}. */
    public int lanes(KernelProgram program) {
        return loop(program).lanes();
    }

    /** Number of distinct compiled loops held. */
    public int compiledLoops() {
        return loops.size();
    }

    @Override
    public KernelRun execute(KernelProgram program, KernelInvocation invocation) {
        long t0 = System.nanoTime();
        int rows = invocation.rows();
        if (invocation.args().size() != program.arity()) {
            throw new IllegalArgumentException("program " + program.text() + " takes " + program.arity()
                    + " argument(s), got " + invocation.args().size());
        }
        if (rows > 0) {
            FusedLoopCompiler.FusedLoop loop = loop(program);
            long[] consts = program.constantBits();
            MemorySegment[] args = invocation.args().toArray(MemorySegment[]::new);
            int lanes = loop.lanes();
            long whole = rows - rows % lanes;
            long bad = -1;
            if (whole > 0) {
                bad = invoke(loop, args, invocation.out(), consts, 0, whole, invocation.validity(), 0, rows);
            }
            if (bad < 0 && whole < rows) {
                bad = runTail(program, loop, args, invocation, consts, whole);
            }
            if (bad >= 0) {
                throw new KernelArithmeticException("integer division by zero", program.text(), bad, name());
            }
        }
        return new KernelRun(name(), 0, 0, System.nanoTime() - t0);
    }

    private long runTail(KernelProgram program, FusedLoopCompiler.FusedLoop loop, MemorySegment[] args,
                         KernelInvocation invocation, long[] consts, long from) {
        int lanes = loop.lanes();
        long count = invocation.rows() - from;
        List<ElementType> types = program.argTypes();
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment[] padded = new MemorySegment[args.length];
            for (int k = 0; k < args.length; k++) {
                long w = types.get(k).byteWidth();
                padded[k] = scratch.allocate(lanes * w, 64);
                MemorySegment.copy(args[k], from * w, padded[k], 0, count * w);
            }
            long w = program.resultType().byteWidth();
            MemorySegment out = scratch.allocate(lanes * w, 64);
            long bad = invoke(loop, padded, out, consts, 0, lanes, invocation.validity(), from, invocation.rows());
            MemorySegment.copy(out, 0, invocation.out(), from * w, count * w);
            return bad;
        }
    }

    private static long invoke(FusedLoopCompiler.FusedLoop loop, MemorySegment[] args, MemorySegment out, long[] consts,
                               long start, long end, MemorySegment validity, long rowBase, long rowLimit) {
        try {
            return (long) loop.run().invokeExact(args, out, consts, start, end, validity, rowBase, rowLimit);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private FusedLoopCompiler.FusedLoop loop(KernelProgram program) {
        return loops.computeIfAbsent(program.shape(), s -> FusedLoopCompiler.compile(program));
    }

    @Override
    public void close() {
        loops.clear();
    }
}
