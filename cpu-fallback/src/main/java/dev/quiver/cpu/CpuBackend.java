package dev.quiver.cpu;

import dev.quiver.backend.KernelBackend;
import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.backend.RowMode;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.types.ElementType;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The CPU backend: runs each program as one fused Vector API loop over the Arrow memory
 * (see {@link FusedLoopCompiler}), on the calling thread. It runs every program the IR can
 * express. Compiled loops are cached by program shape and {@link RowMode}; literal values are
 * passed in per run.
 *
 * <p>Rows that do not fill a whole vector at the end of a batch are copied into a small
 * padded scratch block (bitmaps bit by bit), run through the same loop and copied back (only
 * the real rows, and only the validity bits the loop cleared), so there is one code path for
 * every row and no masked or scalar tail to keep in step with it. Padding lanes never fail:
 * the loop masks failures with the step's real lanes.
 *
 * <p>A failing row is reported with {@link RowInterpreter#failureAt}, which evaluates that row
 * again with the reference so every device gives the same message.
 */
public final class CpuBackend implements KernelBackend {
    private final ConcurrentHashMap<Object, FusedLoopCompiler.FusedLoop> allRowsLoops = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Object, FusedLoopCompiler.FusedLoop> validRowsLoops = new ConcurrentHashMap<>();
    private final int maxLanes;

    public CpuBackend() {
        this(64);
    }

    /** A backend whose loops use at most {@code maxLanes} lanes (narrower vectors), for tests of every lane count. */
    CpuBackend(int maxLanes) {
        if (maxLanes < 2 || Integer.bitCount(maxLanes) != 1) {
            throw new IllegalArgumentException("maxLanes must be a power of two >= 2, got " + maxLanes);
        }
        this.maxLanes = maxLanes;
    }

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
        return Math.min(FusedLoopCompiler.lanesFor(program), maxLanes);
    }

    /** Number of distinct compiled loops held. */
    public int compiledLoops() {
        return allRowsLoops.size() + validRowsLoops.size();
    }

    /** The size of the class file of the loop for {@code program} in {@code mode} (compiling it if needed). */
    int classBytes(KernelProgram program, RowMode mode) {
        return loop(program, mode).classBytes();
    }

    @Override
    public KernelRun execute(KernelProgram program, KernelInvocation invocation) {
        long t0 = System.nanoTime();
        int rows = invocation.rows();
        if (invocation.args().size() != program.arity()) {
            throw new IllegalArgumentException("program " + program.text() + " takes " + program.arity()
                    + " argument(s), got " + invocation.args().size());
        }
        long computed = 0;
        if (rows > 0) {
            FusedLoopCompiler.FusedLoop loop = loop(program, invocation.mode());
            long[] consts = program.constantBits();
            MemorySegment[] args = invocation.args().toArray(MemorySegment[]::new);
            int lanes = loop.lanes();
            long whole = rows - rows % lanes;
            if (whole > 0) {
                long r = invoke(loop, args, invocation.out(), consts, 0, whole, invocation.validity(), -1L);
                if (r < 0) {
                    throw RowInterpreter.failureAt(program, invocation.args(), -1 - r, name());
                }
                computed += r;
            }
            if (whole < rows) {
                computed += runTail(program, loop, args, invocation, consts, whole);
            }
        }
        return new KernelRun(name(), 0, 0, System.nanoTime() - t0, computed);
    }

    /** Rows {@code from..rows-1}, fewer than one step, through a padded block; returns the rows computed. */
    private long runTail(KernelProgram program, FusedLoopCompiler.FusedLoop loop, MemorySegment[] args,
                         KernelInvocation invocation, long[] consts, long from) {
        int lanes = loop.lanes();
        long count = invocation.rows() - from;
        List<ElementType> types = program.argTypes();
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment[] padded = new MemorySegment[args.length];
            for (int k = 0; k < args.length; k++) {
                ElementType t = types.get(k);
                if (t.isBitPacked()) {
                    padded[k] = scratch.allocate(8, 8);
                    LaneBits.copyBits(args[k], from, padded[k], 0, count);
                } else {
                    long w = t.byteWidth();
                    padded[k] = scratch.allocate(lanes * w, 64);
                    MemorySegment.copy(args[k], from * w, padded[k], 0, count * w);
                }
            }
            ElementType rt = program.resultType();
            long w = rt.byteWidth();
            MemorySegment out = scratch.allocate(rt.isBitPacked() ? 8 : lanes * w, 64);
            // The step's validity: the real bits (VALID_ROWS) or all real rows (ALL_ROWS); padding is null.
            MemorySegment validity = scratch.allocate(8, 8);
            if (invocation.mode() == RowMode.VALID_ROWS) {
                LaneBits.copyBits(invocation.validity(), from, validity, 0, count);
            } else {
                validity.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, LaneBits.laneMask((int) count));
            }
            long r = invoke(loop, padded, out, consts, 0, lanes, validity, LaneBits.laneMask((int) count));
            if (r < 0) {
                throw RowInterpreter.failureAt(program, invocation.args(), from + (-1 - r), name());
            }
            if (rt.isBitPacked()) {
                LaneBits.copyBits(out, 0, invocation.out(), from, count);
            } else {
                MemorySegment.copy(out, 0, invocation.out(), from * w, count * w);
            }
            if (program.nullWhen().isPresent()) {
                for (long k = 0; k < count; k++) {
                    if (!ValidityBitmaps.isValid(validity, k)) {
                        ValidityBitmaps.clear(invocation.validity(), from + k);
                    }
                }
            }
            return Math.min(r, count);
        }
    }

    private static long invoke(FusedLoopCompiler.FusedLoop loop, MemorySegment[] args, MemorySegment out, long[] consts,
                               long start, long end, MemorySegment validity, long laneMask) {
        try {
            return (long) loop.run().invokeExact(args, out, consts, start, end, validity, laneMask);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private FusedLoopCompiler.FusedLoop loop(KernelProgram program, RowMode mode) {
        var cache = mode == RowMode.ALL_ROWS ? allRowsLoops : validRowsLoops;
        return cache.computeIfAbsent(program.shape(), s -> FusedLoopCompiler.compile(program, mode, lanes(program), true));
    }

    @Override
    public void close() {
        allRowsLoops.clear();
        validRowsLoops.clear();
    }
}
