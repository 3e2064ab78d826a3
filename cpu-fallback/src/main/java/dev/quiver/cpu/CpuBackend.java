package dev.quiver.cpu;

import dev.quiver.backend.DeviceKind;
import dev.quiver.backend.DeviceTraits;
import dev.quiver.backend.KernelBackend;
import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.backend.RowMode;
import dev.quiver.cancel.Cancellation;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.rowfn.ir.UnaryOp;
import dev.quiver.types.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The CPU backend: runs each program as one fused Vector API loop over the Arrow memory
 * (see {@link FusedLoopCompiler}). It runs every program the IR can express.
 *
 * <p>Threads: a batch of a compute-bound program (a {@link #weight} of at least
 * {@link #MIN_SPLIT_WEIGHT} per row: memory-bound loops such as {@code a * b + c} gain nothing
 * from a second core) with at least {@link #PARALLEL_MIN_ROWS} rows and {@link #PARALLEL_MIN_WORK}
 * units of work per thread is split into
 * contiguous ranges (an eighth of a thread's share, at least 2048 rows, whole multiples of 64
 * rows so no two threads write the same byte of a bitmap) that the calling thread and the
 * backend's helper threads ({@link RangeWorkers}: they spin briefly between batches, then park)
 * take one by one; a helper that is late or busy only means the caller computes more of them.
 * A failing row is the earliest over all ranges. {@code new CpuBackend(1)}, or
 * {@code Quiver.builder().cpuThreads(1)}, keeps every batch on the calling thread. Compiled loops are cached by program shape and {@link RowMode}; literal values are
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
 *
 * <p>A program whose loop would not fit in one JVM method (64 KiB of bytecode: four nested Int64
 * {@code gcd} calls, some 8,000 IR nodes) runs row by row through the reference instead.
 *
 * <p>Cancellation ({@link dev.quiver.cancel.Cancellation}): a loop is never interrupted, so a batch
 * runs in calls of at most {@link #CHECK_WORK} units of work (rows times {@link #weight}), with a
 * check before each: every range of a split batch (on whichever thread takes it, for the caller's
 * cancellation), every chunk of a batch on one thread, every 64 rows of a row-by-row run. A batch
 * of at most {@link #CHECK_MIN_ROWS} rows runs in one call.
 */
public final class CpuBackend implements KernelBackend {
    private final ConcurrentHashMap<Object, FusedLoopCompiler.FusedLoop> allRowsLoops = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Object, FusedLoopCompiler.FusedLoop> validRowsLoops = new ConcurrentHashMap<>();
    /** The loops split batches run their ranges with: a class of their own (see {@link #rangeLoop}). */
    private final ConcurrentHashMap<Object, FusedLoopCompiler.FusedLoop> allRowsRangeLoops = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<Object, FusedLoopCompiler.FusedLoop> validRowsRangeLoops =
            new ConcurrentHashMap<>();
    private final int maxLanes;
    private final int threads;

    /** Rows one thread computes at the least before a batch is split between threads. */
    public static final int PARALLEL_MIN_ROWS = 1 << 14;

    /**
     * The work (rows times {@link #weight}) one thread does at the least before a batch is split:
     * waking a helper costs tens of microseconds, so a cheap streaming loop over 64K rows stays on
     * one thread while one with a few transcendental functions per row is split.
     */
    static final long PARALLEL_MIN_WORK = 2_000_000;

    /**
     * The least {@link #weight} per row of a program worth splitting at all: below it a loop is
     * bound by memory bandwidth, which one core nearly fills (a second thread gained nothing for
     * {@code a * b + c}), and short ranges only cost the JIT (see {@link #rangeLoop}).
     */
    static final long MIN_SPLIT_WEIGHT = 16;

    private final ConcurrentHashMap<Object, Long> weights = new ConcurrentHashMap<>();

    /** The rows of one range a thread takes at a time (a multiple of 64). */
    private static final long RANGE_ROWS = 1 << 10;

    /** A backend that uses every core of the machine for large batches. */
    public CpuBackend() {
        this(Runtime.getRuntime().availableProcessors());
    }

    /** A backend that splits large batches between at most {@code threads} threads (1: the calling thread only). */
    public CpuBackend(int threads) {
        this(64, threads);
    }

    /** A backend whose loops use at most {@code maxLanes} lanes (narrower vectors), for tests of every lane count. */
    CpuBackend(int maxLanes, int threads) {
        this(maxLanes, threads, PARALLEL_MIN_WORK);
    }

    /** As above, splitting batches from {@code minWork} units of work per thread (tests split cheap programs). */
    CpuBackend(int maxLanes, int threads, long minWork) {
        this(maxLanes, threads, minWork, CHECK_WORK);
    }

    /** As above, checking for cancellation every {@code checkWork} units of work (tests chunk small batches). */
    CpuBackend(int maxLanes, int threads, long minWork, long checkWork) {
        if (maxLanes < 2 || Integer.bitCount(maxLanes) != 1) {
            throw new IllegalArgumentException("maxLanes must be a power of two >= 2, got " + maxLanes);
        }
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        }
        this.maxLanes = maxLanes;
        this.threads = threads;
        this.minWork = Math.max(1, minWork);
        this.checkWork = Math.max(1, checkWork);
        this.checkMinRows = checkWork < CHECK_WORK ? 0 : CHECK_MIN_ROWS;
        // Tests that split cheap programs on purpose (a small minWork) split every weight.
        this.minWeight = minWork < PARALLEL_MIN_WORK ? 1 : MIN_SPLIT_WEIGHT;
    }

    private final long minWeight;

    private final long minWork;
    private final long checkWork;
    private final long checkMinRows;

    /** The most threads one batch is split between. */
    @Override
    public int threads() {
        return threads;
    }

    /** The JVM's own cores on the host's memory; its loops warm up through the JIT's tiers. */
    private static final DeviceTraits TRAITS =
            new DeviceTraits(DeviceKind.CPU, DeviceTraits.Memory.HOST, true, Long.MAX_VALUE, Long.MAX_VALUE, true);

    @Override
    public DeviceTraits traits() {
        return TRAITS;
    }

    @Override
    public Optional<String> identity() {
        return Optional.of(CpuIdentity.of(threads));
    }

    @Override
    public Optional<KernelBackend> openSingleThreaded() {
        return threads > 1 ? Optional.of(new CpuBackend(1)) : Optional.empty();
    }

    @Override
    public int rowsPerStep(KernelProgram program) {
        return lanes(program);
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
        return allRowsLoops.size() + validRowsLoops.size() + allRowsRangeLoops.size() + validRowsRangeLoops.size();
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
            if (loop.run() == null) {
                return runRowByRow(program, invocation, t0);
            }
            long[] consts = program.constantBits();
            MemorySegment[] args = invocation.args().toArray(MemorySegment[]::new);
            int lanes = loop.lanes();
            long whole = rows - rows % lanes;
            if (whole > 0) {
                int parts = invocation.threads() > 0
                        ? Math.min(invocation.threads(), maxParts(whole))
                        : parallelParts(program, whole);
                long r = parts > 1 && allNative(args, invocation)
                        ? invokeInParallel(
                                program, rangeLoop(program, invocation.mode()), args, invocation, consts, whole, parts)
                        : invokeInChunks(program, loop, args, invocation, consts, whole);
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

    /**
     * A program whose loop would exceed the JVM's 64 KiB method limit (nested {@code gcd} calls, a
     * large RowFn): the reference, row by row, with the same values, null rows and errors as a
     * loop (slowly: boxed values, no vectors).
     */
    private KernelRun runRowByRow(KernelProgram program, KernelInvocation invocation, long t0) {
        int rows = invocation.rows();
        if (invocation.mode() == RowMode.ALL_ROWS && program.isFallible()) {
            // ALL_ROWS reports a failing row whether or not it is null.
            try (Arena scratch = Arena.ofConfined()) {
                MemorySegment all = scratch.allocate((rows + 63) / 64 * 8L, 8);
                all.fill((byte) 0xFF);
                long failing = RowInterpreter.firstFailingRow(program, invocation.args(), all, rows);
                if (failing >= 0) {
                    throw RowInterpreter.failureAt(program, invocation.args(), failing, name());
                }
            }
        }
        // The reference computes the valid rows only, whatever the mode: those are the rows computed.
        long valid = 0;
        for (int i = 0; i < rows; i++) {
            valid += ValidityBitmaps.isValid(invocation.validity(), i) ? 1 : 0;
        }
        RowInterpreter.run(program, invocation.args(), invocation.validity(), invocation.out(), rows, name());
        return new KernelRun(name(), 0, 0, System.nanoTime() - t0, valid);
    }

    /** Rows {@code from..rows-1}, fewer than one step, through a padded block; returns the rows computed. */
    private long runTail(
            KernelProgram program,
            FusedLoopCompiler.FusedLoop loop,
            MemorySegment[] args,
            KernelInvocation invocation,
            long[] consts,
            long from) {
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

    /**
     * Rows {@code 0..whole-1} on the calling thread: one call of the loop, or for a batch of more
     * than {@link #chunkRows} rows several, with a cancellation check between them (a loop is
     * never interrupted inside). Returns what {@link #invoke} returns for the whole range.
     */
    private long invokeInChunks(
            KernelProgram program,
            FusedLoopCompiler.FusedLoop loop,
            MemorySegment[] args,
            KernelInvocation invocation,
            long[] consts,
            long whole) {
        if (whole <= checkMinRows) {
            return invoke(loop, args, invocation.out(), consts, 0, whole, invocation.validity(), -1L);
        }
        long chunk = chunkRows(program, loop.lanes());
        if (whole <= chunk) {
            return invoke(loop, args, invocation.out(), consts, 0, whole, invocation.validity(), -1L);
        }
        long computed = 0;
        for (long from = 0; from < whole; from += chunk) {
            Cancellation.check();
            long to = Math.min(whole, from + chunk);
            boolean last = to == whole;
            ElementType rt = program.resultType();
            MemorySegment[] a = new MemorySegment[args.length];
            for (int k = 0; k < a.length; k++) {
                ElementType t = program.argTypes().get(k);
                a[k] = rows(args[k], t.isBitPacked() ? 0 : t.byteWidth(), from, to, last);
            }
            long r = invoke(
                    loop,
                    a,
                    rows(invocation.out(), rt.isBitPacked() ? 0 : rt.byteWidth(), from, to, last),
                    consts,
                    0,
                    to - from,
                    rows(invocation.validity(), 0, from, to, last),
                    -1L);
            if (r < 0) {
                return -1 - (from + (-1 - r)); // the first failing row: later chunks cannot have an earlier one
            }
            computed += r;
        }
        return computed;
    }

    /** Batches of at most this many rows run in one call of the loop, whatever its cost (no weight is looked up). */
    static final long CHECK_MIN_ROWS = 1 << 14;

    /**
     * The work (rows times {@link #weight}) between two cancellation checks of a batch: about
     * 10 ms on one core even for a loop several times slower per weight than haversine's (about
     * 0.05 ns per unit), so a cheap loop of up to 1M rows (weight 16) runs in one call.
     */
    static final long CHECK_WORK = 16L << 20;

    /** The rows between two cancellation checks of {@code program}: {@link #CHECK_WORK} / weight, whole multiples of 64 and of the lanes. */
    long chunkRows(KernelProgram program, int lanes) {
        Long cached = weights.get(program.shape());
        long weight = cached != null ? cached : weights.computeIfAbsent(program.shape(), k -> weight(program));
        long unit = Math.max(64, lanes);
        return Math.max(RANGE_ROWS, checkWork / Math.max(1, weight)) / unit * unit;
    }

    /**
     * How many threads a batch of {@code rows} rows of {@code program} is split between (1: the
     * calling thread alone): what the placement cost model divides the CPU's work by.
     */
    @Override
    public int threadsFor(KernelProgram program, long rows) {
        int lanes = lanes(program);
        return parallelParts(program, rows - rows % lanes);
    }

    /**
     * The most threads {@code rows} rows of {@code program} can share: every thread from twice
     * {@link #PARALLEL_MIN_ROWS}, whatever the program's weight (placement measures whether a
     * memory-bound loop gains from them).
     */
    @Override
    public int maxThreadsFor(KernelProgram program, long rows) {
        return maxParts(rows - rows % lanes(program));
    }

    /** Threads for {@code whole} rows by their count alone: at least {@link #PARALLEL_MIN_ROWS} each. */
    private int maxParts(long whole) {
        if (threads == 1 || whole < 2L * PARALLEL_MIN_ROWS) {
            return 1;
        }
        return (int) Math.min(threads, whole / PARALLEL_MIN_ROWS);
    }

    /** How many threads share {@code whole} rows of {@code program}: 1 below twice the minimum rows or work. */
    private int parallelParts(KernelProgram program, long whole) {
        if (threads == 1 || whole < 2L * PARALLEL_MIN_ROWS) {
            return 1;
        }
        Long cached = weights.get(program.shape());
        long weight = cached != null ? cached : weights.computeIfAbsent(program.shape(), k -> weight(program));
        if (weight < minWeight) {
            return 1;
        }
        long work = whole * weight;
        return (int) Math.max(1, Math.min(threads, Math.min(whole / PARALLEL_MIN_ROWS, work / minWork)));
    }

    /**
     * A rough cost of one row: 16 per transcendental function (a vectorised fdlibm function takes
     * some 10 to 30 times an add), 8 per integer division or remainder, 1 per other node and per
     * argument.
     */
    static long weight(KernelProgram program) {
        Set<IrNode> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        long w = program.arity();
        // A stack of its own rather than recursion: this runs on the batch's thread, and the tree may be deep.
        Deque<IrNode> todo = new ArrayDeque<>();
        todo.push(program.root());
        program.nullWhen().ifPresent(todo::push);
        while (!todo.isEmpty()) {
            IrNode n = todo.pop();
            if (!seen.add(n)) {
                continue;
            }
            w += switch (n) {
                // Streams are counted once (the arity); Boolean logic is a few mask operations per 64 rows,
                // so a CASE or AND over cheap terms stays a memory-bound loop, which a second thread does not help.
                case IrNode.Arg _ -> 0;
                case IrNode.Unary u when u.op() == UnaryOp.NOT && u.type() == ElementType.BOOL -> 0;
                case IrNode.Binary b
                when b.op().domain() == UnaryOp.Domain.INTEGER_OR_BOOL && b.type() == ElementType.BOOL -> 0;
                case IrNode.Unary u when !u.op().isExact() -> 16;
                case IrNode.Binary b when b.op().domain() == UnaryOp.Domain.FLOAT -> 16;
                case IrNode.Binary b
                when b.op().failsOnZeroDivisor() && b.type().isInteger() -> 8;
                default -> 1;
            };
            for (IrNode c : n.children()) {
                todo.push(c);
            }
        }
        return w;
    }

    private static boolean allNative(MemorySegment[] args, KernelInvocation invocation) {
        for (MemorySegment a : args) {
            if (!a.isNative()) {
                return false;
            }
        }
        return invocation.out().isNative() && invocation.validity().isNative();
    }

    /**
     * Rows {@code 0..whole-1} split into ranges that this thread and the helper threads take one at
     * a time; what {@link #invoke} returns for all of them: the rows computed, or -1 - the
     * earliest failing row of any range.
     */
    private long invokeInParallel(
            KernelProgram program,
            FusedLoopCompiler.FusedLoop loop,
            MemorySegment[] args,
            KernelInvocation invocation,
            long[] consts,
            long whole,
            int parts) {
        long unit = Math.max(64, loop.lanes());
        // Ranges smaller than a thread's share: a helper that starts late leaves its ranges to the others;
        // and no longer than the rows between two cancellation checks.
        long size = Math.min(
                Math.max(RANGE_ROWS, (whole / parts + unit - 1) / unit * unit / 16) / unit * unit,
                chunkRows(program, loop.lanes()));
        // The views are confined to the caller's thread; the memory outlives this call (the SPI's contract),
        // so the helpers get unscoped views of the same bytes, bounds and all.
        MemorySegment[] shared = new MemorySegment[args.length];
        for (int k = 0; k < args.length; k++) {
            shared[k] = unscoped(args[k]);
        }
        MemorySegment out = unscoped(invocation.out());
        MemorySegment validity = unscoped(invocation.validity());
        int ranges = (int) ((whole + size - 1) / size);
        long[] results = new long[ranges];
        long[] widths = new long[args.length];
        for (int k = 0; k < args.length; k++) {
            ElementType t = program.argTypes().get(k);
            widths[k] = t.isBitPacked() ? 0 : t.byteWidth();
        }
        ElementType rt = program.resultType();
        long outWidth = rt.isBitPacked() ? 0 : rt.byteWidth();
        // Every range is a kernel boundary, whichever thread takes it: the token watches the caller's cancellation.
        Cancellation.Token cancellation = Cancellation.capture();
        workers()
                .run(new RangeWorkers.Job(
                        i -> {
                            cancellation.check();
                            long from = i * size, to = Math.min(whole, from + size);
                            boolean last = to == whole;
                            MemorySegment[] a = new MemorySegment[shared.length];
                            for (int k = 0; k < a.length; k++) {
                                a[k] = rows(shared[k], widths[k], from, to, last);
                            }
                            long r = invoke(
                                    loop,
                                    a,
                                    rows(out, outWidth, from, to, last),
                                    consts,
                                    0,
                                    to - from,
                                    rows(validity, 0, from, to, last),
                                    -1L);
                            results[i] = r < 0 ? -1 - (from + (-1 - r)) : r;
                        },
                        ranges,
                        parts - 1));
        long computed = 0;
        long firstFailure = Long.MAX_VALUE;
        for (long r : results) {
            if (r < 0) {
                firstFailure = Math.min(firstFailure, -1 - r);
            } else {
                computed += r;
            }
        }
        return firstFailure == Long.MAX_VALUE ? computed : -1 - firstFailure;
    }

    /**
     * The rows {@code from..to-1} of {@code s} ({@code width} bytes a row, or a bitmap for width 0;
     * {@code from} a multiple of 64), as a segment of their own; the last range keeps the rest.
     */
    private static MemorySegment rows(MemorySegment s, long width, long from, long to, boolean last) {
        long offset = width == 0 ? from >>> 3 : from * width;
        return last ? s.asSlice(offset) : s.asSlice(offset, width == 0 ? (to - from) >>> 3 : (to - from) * width);
    }

    private volatile RangeWorkers workers;

    /** Whether a batch has been split between threads yet (the helper threads start with the first). */
    boolean helpersStarted() {
        return workers != null;
    }

    /** The helper threads, started on the first batch worth splitting. */
    private RangeWorkers workers() {
        RangeWorkers w = workers;
        if (w == null) {
            synchronized (this) {
                w = workers;
                if (w == null) {
                    workers = w = new RangeWorkers(threads - 1);
                }
            }
        }
        return w;
    }

    private static MemorySegment unscoped(MemorySegment s) {
        return s.byteSize() == 0 ? s : MemorySegment.ofAddress(s.address()).reinterpret(s.byteSize());
    }

    private static long invoke(
            FusedLoopCompiler.FusedLoop loop,
            MemorySegment[] args,
            MemorySegment out,
            long[] consts,
            long start,
            long end,
            MemorySegment validity,
            long laneMask) {
        try {
            return (long) loop.run().invokeExact(args, out, consts, start, end, validity, laneMask);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * The loop of {@code program} for the ranges of split batches: the same code as {@link #loop},
     * in a class of its own, so whatever C2 learns from ranges never deoptimizes the loop whole
     * batches run. Ranges are short loops entered again and again, and C2's profiled loop
     * predicates fail on them now and then ({@code -Xlog:deoptimization=debug} shows
     * {@code profile_predicate} traps at the back edge, each followed by a recompilation; they
     * are gone with {@code -XX:-UseProfiledLoopPredicate}). For a memory-bound loop that made a
     * cheap 1M-row batch 30x slower than one thread, which is why such loops are never split
     * ({@link #MIN_SPLIT_WEIGHT}); a compute-bound loop keeps its speedup.
     */
    private FusedLoopCompiler.FusedLoop rangeLoop(KernelProgram program, RowMode mode) {
        var cache = mode == RowMode.ALL_ROWS ? allRowsRangeLoops : validRowsRangeLoops;
        FusedLoopCompiler.FusedLoop l = cache.get(program.shape());
        return l != null
                ? l
                : cache.computeIfAbsent(
                        program.shape(), s -> FusedLoopCompiler.compile(program, mode, lanes(program), true));
    }

    /** The compiled loop, or one without a method handle where the loop would exceed a JVM method's size (remembered too). */
    private FusedLoopCompiler.FusedLoop loop(KernelProgram program, RowMode mode) {
        var cache = mode == RowMode.ALL_ROWS ? allRowsLoops : validRowsLoops;
        FusedLoopCompiler.FusedLoop l = cache.get(program.shape());
        return l != null
                ? l
                : cache.computeIfAbsent(program.shape(), s -> {
                    try {
                        return FusedLoopCompiler.compile(program, mode, lanes(program), true);
                    } catch (FusedLoopCompiler.LoopTooLargeException e) {
                        return new FusedLoopCompiler.FusedLoop(null, lanes(program), mode, 0);
                    }
                });
    }

    @Override
    public void close() {
        allRowsLoops.clear();
        validRowsLoops.clear();
        allRowsRangeLoops.clear();
        validRowsRangeLoops.clear();
        synchronized (this) {
            if (workers != null) {
                workers.close();
                workers = null;
            }
        }
    }
}
