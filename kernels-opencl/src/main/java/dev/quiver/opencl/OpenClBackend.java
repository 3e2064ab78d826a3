package dev.quiver.opencl;

import dev.quiver.backend.KernelBackend;
import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.backend.ResidentKey;
import dev.quiver.backend.RowMode;
import dev.quiver.memory.Resources;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.memory.VectorView;
import dev.quiver.rowfn.ir.BinaryOp;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.rowfn.ir.UnaryOp;
import dev.quiver.types.ElementType;
import org.jocl.CL;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_command_queue;
import org.jocl.cl_context;
import org.jocl.cl_context_properties;
import org.jocl.cl_device_id;
import org.jocl.cl_event;
import org.jocl.cl_kernel;
import org.jocl.cl_mem;
import org.jocl.cl_queue_properties;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs {@link KernelProgram}s on one OpenCL device: each program becomes one OpenCL C kernel
 * with Java's arithmetic, bit for bit but for the ulp error of the math functions' finite results
 * (see {@link #unsupportedReason} for what a device must offer for that), compiled once per
 * program shape (see {@link KernelSource}).
 *
 * <p>Rows: in {@link RowMode#VALID_ROWS} a null row is not computed (its value is 0) and cannot
 * fail, and {@link KernelRun#rowsComputed()} is the number of valid rows; in
 * {@link RowMode#ALL_ROWS} every row is computed and can fail. A failing row (a check, or an
 * integer division or remainder by zero) is found on the device, the first one; the reference
 * ({@link RowInterpreter#failureAt}) then evaluates that row again on the host for the message,
 * so every device reports the same {@link dev.quiver.errors.KernelArithmeticException}. Boolean
 * arguments and results are Arrow bitmaps, and a program's null condition clears bits of the
 * output validity.
 *
 * <p>Memory: on a device that shares host memory (PoCL, integrated GPUs) the kernel reads and
 * writes the Arrow buffers themselves, with no copy; elsewhere ({@link TransferMode#COPY}) each
 * argument is written to the device, unless it is resident there under its {@link ResidentKey},
 * and the output read back (the validity too, when the row mode or a null condition needs it);
 * a batch of more than two chunks goes chunk by chunk, overlapping transfers with the kernel
 * (see {@link #overlapChunkRows()}). The bytes moved are reported in the {@link KernelRun}. See
 * docs/transfers.md. Cancellation ({@link dev.quiver.cancel.Cancellation}) is checked before
 * each overlapped chunk is enqueued; a single launch runs to its end.
 *
 * <p>Programs: each shape is built once per backend, by the first run that needs it or ahead of
 * it by {@link #prepareAsync} on the backend's build thread (one daemon thread, started on first
 * use). A program built from source is stored in the backend's {@link ProgramBinaryCache} (by
 * the build thread, after the build), and a later backend, in this process or another, loads
 * that binary instead of compiling the source; {@link #programStats()} counts both.
 *
 * <p>Ownership: the backend owns its OpenCL context, command queue and compiled programs, and
 * releases them in {@link #close()}. It never owns Arrow memory: the segments of an invocation
 * must stay alive for the duration of {@link #execute}, and no command touches them after it
 * returns or throws. Thread-safe: runs from several threads share the queues; a plain run takes
 * no lock (one atomic add as it starts and one as it ends, and a volatile read of a built
 * program), resident arguments and staging slots take a short lock of their own;
 * {@link #close()} waits for runs in progress, and a run that starts once close has begun throws
 * {@link IllegalStateException}.
 *
 * <pre>{@code
 * OpenClDevice device = OpenClRuntime.discover().devices().getFirst();
 * try (OpenClBackend gpu = OpenClBackend.open(device)) {
 *     KernelRun run = gpu.execute(program, invocation);
 * }
 * }</pre>
 */
public final class OpenClBackend implements KernelBackend {
    private static final String CORRECTLY_ROUNDED_FP32 = "-cl-fp32-correctly-rounded-divide-sqrt";

    private final OpenClDevice device;
    private final TransferMode mode;
    private final String name;
    private final ClObject<cl_context> context;
    private final ClObject<cl_command_queue> queue;
    private final ProgramCache programs;
    private final ClObjectCounts counts;
    /** Arguments kept on the device across runs (the COPY path; see {@link ResidentKey}). */
    private final ResidentBuffers resident;
    /** Rows per chunk of the overlapped COPY path; 0: no overlap. */
    private volatile int chunkRows;
    /** The device's base address alignment in bytes: sub-buffer origins must be multiples of it. */
    private final long baseAlignBytes;
    /** The overlapped COPY path's extra queues and pinned buffers, made on its first run; null before. */
    private volatile Overlap overlap;
    private final ProgramBinaryCache binaries;
    /** Programs built from source, loaded from {@link #binaries}, binaries rejected, binaries stored. */
    private final LongAdder built = new LongAdder(), loaded = new LongAdder(), rejected = new LongAdder(),
            stored = new LongAdder();
    /** The build thread, started by the first background task; guarded by {@link #buildsLock}. */
    private ExecutorService builds;
    /** The thread of {@link #builds}, once started. */
    private volatile Thread buildThread;
    /** Set by close once runs have ended: background builds not yet started then fail. Guarded by {@link #buildsLock}. */
    private boolean buildsClosed;
    private final Object buildsLock = new Object();
    private static final System.Logger LOG = System.getLogger(OpenClBackend.class.getName());
    /** Faults to inject ({@link FaultInjection}), or null: always, outside tests. */
    private volatile FaultInjection.Plan faults;
    /**
     * Bit 0 ({@link #CLOSED}): close has begun; the other bits: twice the runs in progress. One
     * word, so that a run registers and learns whether the backend is closed in a single atomic
     * add, and close sees every run that did not see it. (Not a LongAdder: its sum is no snapshot,
     * so a run still in progress could be missed while others come and go.)
     */
    private final AtomicInteger state = new AtomicInteger();
    /**
     * Null while open; then the thread that closes (the first to set it), woken by the last run to
     * end; then {@link #DONE} once released.
     */
    private final AtomicReference<Object> closer = new AtomicReference<>();
    private static final Object DONE = new Object();
    /** Open until close has released everything; a second close waits on it. */
    private final CountDownLatch released = new CountDownLatch(1);
    private static final int CLOSED = 1;
    private static final int RUN = 2;
    /** How long close spins for runs to end before it parks, and the longest it parks at a time. */
    private static final long SPIN_NANOS = 20_000;
    private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private OpenClBackend(OpenClDevice device, TransferMode mode, ClObject<cl_context> context,
                          ClObject<cl_command_queue> queue, ClObjectCounts counts, ProgramBinaryCache binaries) {
        this.device = device;
        this.binaries = binaries;
        this.counts = counts;
        this.mode = mode;
        this.name = "opencl:" + device.name();
        this.context = context;
        this.queue = queue;
        // The source generator recurses over the program's tree: on a thread with a stack for that.
        this.programs = new ProgramCache(p -> compile(dev.quiver.expr.ExprThreads.call(() -> KernelSource.of(p))));
        this.resident = new ResidentBuffers(context.handle(), counts, defaultResidentBudget(device));
        this.baseAlignBytes = Math.max(1, baseAlignBits(device) / 8);
        overlapChunkRows(defaultChunkRows(device));
    }

    /**
     * Rows per overlapped chunk unless configured ({@code -Dquiver.opencl.chunkRows}): this on a
     * GPU or accelerator; 0 on an OpenCL CPU device (PoCL), whose "transfers" are copies by the
     * same cores that compute, so that there is nothing to hide them behind (measured with
     * {@code quiver bench --overlap}: the staged chunks took 1.02x the time of one copy each way).
     */
    public static final int DEFAULT_CHUNK_ROWS = 1 << 20;
    /** Chunks are whole multiples of this many rows, so that every chunk of every buffer (bitmaps too) starts aligned. */
    public static final int CHUNK_GRAIN = 1 << 16;

    private static int defaultChunkRows(OpenClDevice device) {
        return Integer.getInteger("quiver.opencl.chunkRows", device.type() == OpenClDevice.Type.CPU ? 0 : DEFAULT_CHUNK_ROWS);
    }

    /**
     * Device memory kept for resident arguments unless configured: {@code -Dquiver.opencl.residentBytes},
     * default a fifth of the device's global memory.
     */
    private static long defaultResidentBudget(OpenClDevice device) {
        String given = System.getProperty("quiver.opencl.residentBytes");
        if (given != null) {
            try {
                return Long.parseLong(given.strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("-Dquiver.opencl.residentBytes must be a number of bytes, got '" + given + "'");
            }
        }
        return device.globalMemoryBytes() / 5;
    }

    private static long baseAlignBits(OpenClDevice device) {
        try {
            return OpenClRuntime.deviceUInt(device.id(), CL.CL_DEVICE_MEM_BASE_ADDR_ALIGN);
        } catch (RuntimeException e) {
            return 4096 * 8; // a page: what the largest alignment drivers ask for
        }
    }

    /**
     * A backend on {@code device} in {@link TransferMode#AUTO} mode, with programs cached in
     * {@link ProgramBinaryCache#defaultDirectory()}. The caller closes it.
     */
    public static OpenClBackend open(OpenClDevice device) {
        return open(device, TransferMode.AUTO);
    }

    /**
     * A backend on {@code device} that moves memory as {@code mode} says, with programs cached in
     * {@link ProgramBinaryCache#defaultDirectory()}. The caller closes it. Throws
     * {@link OpenClException} when the context or queue cannot be created.
     */
    public static OpenClBackend open(OpenClDevice device, TransferMode mode) {
        return open(device, mode, ProgramBinaryCache.atDefaultDirectory());
    }

    /**
     * A backend on {@code device} that moves memory as {@code mode} says and keeps the programs
     * it builds in {@code programCache} ({@link ProgramBinaryCache#disabled()}: builds every
     * program from source). The caller closes it. Throws {@link OpenClException} when the
     * context or queue cannot be created.
     */
    public static OpenClBackend open(OpenClDevice device, TransferMode mode, ProgramBinaryCache programCache) {
        Objects.requireNonNull(device, "device is null");
        Objects.requireNonNull(mode, "mode is null");
        Objects.requireNonNull(programCache, "programCache is null");
        if (device.id() == null) {
            throw new IllegalArgumentException("device " + device.name() + " was not found by OpenClRuntime.discover()");
        }
        CL.setExceptionsEnabled(false);
        TransferMode resolved = mode.resolveFor(device);
        cl_device_id[] ids = {device.id()};
        cl_context_properties properties = new cl_context_properties();
        properties.addProperty(CL.CL_CONTEXT_PLATFORM, device.platformId());
        int[] err = new int[1];
        ClObjectCounts counts = new ClObjectCounts();
        ClObject<cl_context> context = ClObject.created(CL.clCreateContext(properties, 1, ids, null, null, err), err,
                "clCreateContext", CL::clReleaseContext, "clReleaseContext", counts, ClObjectCounts.Kind.CONTEXT);
        try {
            ClObject<cl_command_queue> queue = newQueue(context, device, counts);
            try {
                return new OpenClBackend(device, resolved, context, queue, counts, programCache);
            } catch (RuntimeException e) {
                queue.closeAfterFailure(e);
                throw e;
            }
        } catch (RuntimeException e) {
            context.closeAfterFailure(e);
            throw e;
        }
    }

    /** An in-order command queue on {@code device}. */
    private static ClObject<cl_command_queue> newQueue(ClObject<cl_context> context, OpenClDevice device, ClObjectCounts counts) {
        int[] err = new int[1];
        // clCreateCommandQueue is deprecated from OpenCL 2.0 on, and its successor absent before it.
        return device.versionAtLeast(2, 0)
                ? ClObject.created(CL.clCreateCommandQueueWithProperties(context.handle(), device.id(),
                        new cl_queue_properties(), err), err, "clCreateCommandQueueWithProperties",
                        CL::clReleaseCommandQueue, "clReleaseCommandQueue", counts, ClObjectCounts.Kind.QUEUE)
                : ClObject.created(createLegacyQueue(context.handle(), device.id(), err), err,
                        "clCreateCommandQueue", CL::clReleaseCommandQueue, "clReleaseCommandQueue", counts,
                        ClObjectCounts.Kind.QUEUE);
    }

    @SuppressWarnings("deprecation")
    private static cl_command_queue createLegacyQueue(cl_context context, cl_device_id device, int[] err) {
        return CL.clCreateCommandQueue(context, device, 0, err);
    }

    /** {@code opencl:} followed by the device name. */
    @Override
    public String name() {
        return name;
    }

    public OpenClDevice device() {
        return device;
    }

    /** How this backend moves memory: {@link TransferMode#ZERO_COPY} or {@link TransferMode#COPY}, never AUTO. */
    public TransferMode transferMode() {
        return mode;
    }

    /**
     * Rows per chunk of the overlapped copy path: in {@link TransferMode#COPY}, a batch of more
     * than two chunks is uploaded, computed and read back chunk by chunk on three queues, so that
     * one chunk's transfers run while another computes. 0: no overlap (one transfer each way).
     * A run takes smaller chunks when a chunk of its program would need staging slots of more
     * than {@value #MAX_SLOT_BYTES} bytes.
     */
    public int overlapChunkRows() {
        return chunkRows;
    }

    /**
     * The chunk rows in effect: {@link #overlapChunkRows()} in COPY mode when every chunk of every
     * buffer starts at an offset the device can make a sub-buffer at (its base address
     * alignment), else 0.
     */
    public int effectiveChunkRows() {
        int c = chunkRows;
        return mode == TransferMode.COPY && c > 0 && c % baseAlignBytes == 0 && (c / 8) % baseAlignBytes == 0 ? c : 0;
    }

    /** The most bytes of one pinned staging slot: chunks shrink (by whole grains) to stay under it. */
    public static final long MAX_SLOT_BYTES = 256L << 20;

    /** The chunk rows of a run of {@code program}: the effective chunk, shrunk so one slot stays under {@link #MAX_SLOT_BYTES}. */
    private int chunkFor(KernelProgram program) {
        int c = effectiveChunkRows();
        if (c == 0) {
            return 0;
        }
        double perRow = 2.0 / 8 + bytesPerRow(program.resultType()); // validity in and out, the result
        for (ElementType t : program.argTypes()) {
            perRow += bytesPerRow(t);
        }
        long fit = (long) (MAX_SLOT_BYTES / perRow) / CHUNK_GRAIN * CHUNK_GRAIN;
        return (int) Math.max(CHUNK_GRAIN, Math.min(c, fit));
    }

    /**
     * Sets {@link #overlapChunkRows()}: 0 turns overlap off; otherwise rounded up to a multiple of
     * {@value #CHUNK_GRAIN} rows. Applies to runs that start afterwards.
     */
    public OpenClBackend overlapChunkRows(int rows) {
        if (rows < 0) {
            throw new IllegalArgumentException("chunk rows must be >= 0, got " + rows);
        }
        this.chunkRows = rows == 0 ? 0 : (int) Math.min(1 << 30, ((long) rows + CHUNK_GRAIN - 1) / CHUNK_GRAIN * CHUNK_GRAIN);
        return this;
    }

    /** The most device memory resident arguments take together ({@link ResidentKey}); default a fifth of the device's. */
    public long residentBudget() {
        return resident.budget();
    }

    /** Sets {@link #residentBudget()}; 0 keeps nothing. Entries over a lowered budget go as new ones need room. */
    public OpenClBackend residentBudget(long bytes) {
        resident.budget(bytes);
        return this;
    }

    /** What the resident arguments take and have saved so far. */
    public ResidentStats residentStats() {
        return resident.stats();
    }

    /**
     * Bytes of {@code invocation}'s arguments already on the device under their keys: what a run
     * would not upload. 0 in {@link TransferMode#ZERO_COPY}, which uploads nothing anyway.
     */
    public long residentBytes(KernelInvocation invocation) {
        return mode == TransferMode.COPY && !invocation.resident().isEmpty() ? resident.residentBytes(invocation.resident()) : 0;
    }

    /**
     * Whether a COPY run of {@code rows} rows goes in overlapped chunks: more than two chunks'
     * worth (so calibration's two-chunk memory run measures plain transfers).
     */
    public boolean overlaps(long rows) {
        int c = effectiveChunkRows();
        return c > 0 && rows > 2L * c;
    }

    /**
     * Why this device cannot compute {@code program} exactly as Java does, or empty. Reasons:
     * FLOAT64 values on a device without double precision; FLOAT32 division or square root
     * where the device cannot round them correctly; FLOAT32 values where it flushes subnormals;
     * math functions (exp, sin, pow, ...) or {@code fma} on a device of the embedded profile,
     * whose builtins promise neither the full profile's ulp bounds nor its special cases (nor
     * infinities and NaN at all); more arguments and literals than a kernel can take. Everything
     * else the IR expresses (Booleans, comparisons, selects, checks, shifts, remainders, casts,
     * null conditions) runs on every device.
     */
    @Override
    public Optional<String> unsupportedReason(KernelProgram program) {
        return unsupportedReason(device, program);
    }

    static Optional<String> unsupportedReason(OpenClDevice device, KernelProgram program) {
        Objects.requireNonNull(program, "program is null");
        String on = " on OpenCL device " + device.name();
        if (!device.fp64() && uses(program, ElementType.FLOAT64)) {
            return Optional.of(program.text() + " computes with Float64, but" + on
                    + " there is no double precision (cl_khr_fp64)");
        }
        if (!device.fp32CorrectlyRoundedDivideSqrt() && program.anyNode(n -> n.type() == ElementType.FLOAT32
                && (n instanceof IrNode.Binary b && b.op() == BinaryOp.DIV
                || n instanceof IrNode.Unary u && u.op() == UnaryOp.SQRT))) {
            return Optional.of(program.text() + " divides or takes a square root in Float32, but" + on
                    + " these are not correctly rounded (no CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)");
        }
        if (!device.fp32Denormals() && uses(program, ElementType.FLOAT32)) {
            return Optional.of(program.text() + " computes with Float32, but" + on
                    + " subnormal Float32 values are flushed to zero (no CL_FP_DENORM)");
        }
        if (!device.fullProfile() && program.anyNode(n -> isMathBuiltin(n) || n instanceof IrNode.Fma f
                && f.type().isFloatingPoint())) {
            return Optional.of(program.text() + " calls a floating-point math function, but" + on
                    + " (embedded profile) its accuracy and special cases (infinities, NaN) are not those of the"
                    + " full profile, which Quiver needs to match Java");
        }
        long parameterBytes = parameterBytes(program);
        if (parameterBytes > device.maxParameterBytes()) {
            return Optional.of(program.text() + " needs " + parameterBytes + " bytes of kernel arguments ("
                    + program.arity() + " columns, " + program.constants().size() + " literals), but" + on
                    + " a kernel takes at most " + device.maxParameterBytes());
        }
        return Optional.empty();
    }

    /** A function computed by an OpenCL builtin with the full profile's ulp bound (not exact, unlike sqrt or floor). */
    static boolean isMathBuiltin(IrNode node) {
        return node instanceof IrNode.Unary u && u.type().isFloatingPoint() && !u.op().isExact()
                || node instanceof IrNode.Binary b && (b.op() == BinaryOp.POW || b.op() == BinaryOp.ATAN2
                || b.op() == BinaryOp.HYPOT);
    }

    private static boolean uses(KernelProgram program, ElementType type) {
        return program.argTypes().contains(type) || program.anyNode(n -> n.type() == type);
    }

    private static long parameterBytes(KernelProgram program) {
        // rows and all_rows, then one buffer per argument, the output, the validity and the status when the program
        // can fail: device pointers of at most 8 bytes. Plain constants, so that deciding needs no OpenCL library.
        long bytes = 2L * Integer.BYTES + (long) Long.BYTES * (program.arity() + 2 + (program.isFallible() ? 1 : 0));
        for (IrNode.Const c : program.constants()) {
            bytes += c.type() == ElementType.BOOL ? Integer.BYTES : c.type().byteWidth();
        }
        return bytes;
    }

    private static double bytesPerRow(ElementType t) {
        return t.isBitPacked() ? 1.0 / 8 : t.byteWidth();
    }

    /** Bytes of {@code rows} values of {@code type} in Arrow memory: a bitmap for Booleans. */
    static long dataBytes(ElementType type, long rows) {
        return type.isBitPacked() ? VectorView.validityBytes(rows) : rows * type.byteWidth();
    }

    /**
     * Computes {@code program} over {@code invocation} as {@link KernelBackend#execute} says.
     * Throws {@link IllegalArgumentException} when the invocation does not fit the program
     * (argument count, segment sizes, heap segments, buffers over 2 GiB) and
     * {@link OpenClException} on a device error.
     */
    @Override
    public KernelRun execute(KernelProgram program, KernelInvocation invocation) {
        return run(program, invocation, false, RunProbes.NONE).run();
    }

    /**
     * As {@link #execute}, with one transfer each way however large the batch: what calibration
     * measures the plain transfer rate with (the cost model then applies the overlap itself).
     */
    public KernelRun executeWithoutOverlap(KernelProgram program, KernelInvocation invocation) {
        return run(program, invocation, true, false, RunProbes.NONE).run();
    }

    /**
     * As {@link #execute}, and reports where each buffer lived: the proof that a zero-copy run
     * used the Arrow memory itself. Costs a few extra queries per run.
     */
    public TracedRun executeTraced(KernelProgram program, KernelInvocation invocation) {
        return run(program, invocation, true, RunProbes.NONE);
    }

    /**
     * Builds {@code source} for this device, bypassing the in-memory {@link ProgramCache}; the
     * caller closes the result. Loads the binary from the {@link ProgramBinaryCache} when it has
     * one (a binary it rejects, or the driver does, is deleted and the source built instead);
     * otherwise builds the source and stores the binary, later, from the build thread. Build
     * options never relax IEEE semantics (no fast math); correctly rounded Float32 division and
     * square root are asked for where the device has them. An injected {@code BUILD_PROGRAM}
     * fault fails the build from source, as before there was a cache.
     */
    CompiledProgram compile(KernelSource source) {
        synchronized (buildsLock) {
            if (buildsClosed) {
                throw new IllegalStateException("backend " + name + " is closed");
            }
        }
        String options = buildOptions();
        FaultInjection.Plan plan = faults;
        int injected = plan == null ? 0 : plan.occurrence(FaultInjection.Call.BUILD_PROGRAM);
        String key = injected == 0 && binaries.enabled() ? programKey(source) : null;
        if (key != null) {
            switch (binaries.load(key)) {
                case ProgramBinaryCache.Lookup.Found found -> {
                    try {
                        CompiledProgram p = CompiledProgram.load(context.handle(), queue.handle(), device.id(), source,
                                options, found.binary(), counts);
                        loaded.increment();
                        return p;
                    } catch (OpenClException e) {
                        rejected.increment();
                        binaries.discard(key, e.getMessage());
                    }
                }
                case ProgramBinaryCache.Lookup.Rejected r -> rejected.increment();
                case ProgramBinaryCache.Lookup.Absent a -> { }
            }
        }
        CompiledProgram p = CompiledProgram.build(context.handle(), queue.handle(), device.id(), source, options, counts,
                injected);
        built.increment();
        if (key != null && binaries.writable()) {
            if (Thread.currentThread() == buildThread) {
                store(p, key); // a background build: no batch runs this program yet, nor waits for it
            } else {
                storeLater(p, key);
            }
        }
        return p;
    }

    private String buildOptions() {
        return device.fp32CorrectlyRoundedDivideSqrt() ? CORRECTLY_ROUNDED_FP32 : "";
    }

    /** The key of {@code source}'s program on this device in the {@link ProgramBinaryCache}. */
    String programKey(KernelSource source) {
        return ProgramBinaryCache.key(device, source.text(), buildOptions());
    }

    /**
     * Stores {@code program}'s binary as {@code key} from the build thread, so that the batch
     * that built it does not wait: reading a binary back may compile (PoCL: tens to hundreds of
     * milliseconds). Binaries not stored by the time the backend closes are stored by close.
     */
    private void storeLater(CompiledProgram program, String key) {
        if (!program.hold()) {
            return;
        }
        try {
            inBackground(() -> {
                try {
                    store(program, key);
                } finally {
                    program.releaseHold();
                }
            });
        } catch (RejectedExecutionException e) {
            program.releaseHold(); // closing: the program is not stored
        }
    }

    private void store(CompiledProgram program, String key) {
        try {
            if (binaries.store(key, program.binary())) {
                stored.increment();
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, () -> "the binary of a program built on " + name
                    + " could not be read back, so it is not cached: " + e.getMessage());
        }
    }

    /** Runs {@code task} on the build thread (started now if it is the first); throws {@link RejectedExecutionException} once closing. */
    private void inBackground(Runnable task) {
        ExecutorService executor;
        synchronized (buildsLock) {
            if (buildsClosed) {
                throw new RejectedExecutionException("backend " + name + " is closed");
            }
            if (builds == null) {
                ThreadFactory named = Thread.ofPlatform().daemon().name("quiver-opencl-build " + device.name()).factory();
                builds = Executors.newSingleThreadExecutor(r -> {
                    Thread t = named.newThread(r);
                    buildThread = t;
                    return t;
                });
            }
            executor = builds;
        }
        executor.execute(task);
    }

    /** Whether the program of {@code program}'s shape is built: its runs start without a build. */
    @Override
    public boolean isReady(KernelProgram program) {
        return programs.isBuilt(program);
    }

    /**
     * Builds the program of {@code program}'s shape on the build thread (or loads it from the
     * {@link ProgramBinaryCache}) unless it is built or was asked for before; never waits. The
     * future completes when {@link #isReady} turns true; it fails when the build did (the error,
     * as {@link #execute} would throw it), when {@code program} is unsupported here, or when the
     * backend closed first. A failed background build is not retried here: the next
     * {@link #execute} of the shape builds it again, in its own thread. {@link #close()} waits for a
     * build in progress; builds not started by then fail.
     */
    @Override
    public CompletableFuture<Void> prepareAsync(KernelProgram program) {
        Objects.requireNonNull(program, "program is null");
        if (programs.isBuilt(program)) {
            return CompletableFuture.completedFuture(null);
        }
        Optional<String> unsupported = unsupportedReason(program);
        if (unsupported.isPresent()) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException(unsupported.get()));
        }
        return programs.prepare(program, this::inBackground);
    }

    /**
     * What this backend did to get its programs: built from source, loaded from the
     * {@link ProgramBinaryCache}, binaries it rejected (corrupt or refused by the driver, then
     * deleted and built from source), binaries it stored.
     */
    public record ProgramStats(long built, long loaded, long rejected, long stored) {
    }

    public ProgramStats programStats() {
        return new ProgramStats(built.sum(), loaded.sum(), rejected.sum(), stored.sum());
    }

    /** Where this backend keeps built programs. */
    public ProgramBinaryCache programCache() {
        return binaries;
    }

    /**
     * The OpenCL objects of this backend alive now, by kind.
     *
     * @param contexts its context: 1 while open
     * @param queues   its command queues: 1 while open, 3 once a batch was copied in overlapped chunks
     * @param programs its compiled programs, one per program shape built (kept until close)
     * @param kernels  kernel objects: one per run in progress (a build holds one briefly)
     * @param buffers  memory objects: those of the runs in progress
     * @param events   events of the runs in progress (the overlapped copy path)
     * @param held     buffers kept across runs until evicted or closed: resident arguments and
     *                 pinned staging buffers
     */
    public record LiveObjects(long contexts, long queues, long programs, long kernels, long buffers, long events,
                              long held) {
        /** Counts with no event and no held buffer. */
        public LiveObjects(long contexts, long queues, long programs, long kernels, long buffers) {
            this(contexts, queues, programs, kernels, buffers, 0, 0);
        }

        /** The objects that belong to runs (kernels, buffers, events): 0 when no run is in progress. */
        public long runScoped() {
            return kernels + buffers + events;
        }

        /** Every object together: 0 once the backend is closed. */
        public long total() {
            return contexts + queues + programs + kernels + buffers + events + held;
        }
    }

    /**
     * How many OpenCL objects of each kind this backend holds now: for tests that prove a run,
     * a failed run or a close leaves nothing behind. Every object is counted from its
     * {@code clCreate*} call to its release. Exact when no run is in progress (while runs go on,
     * a moment's counts may mix).
     */
    public LiveObjects liveObjects() {
        return counts.snapshot();
    }

    /** Installs a fault plan ({@link FaultInjection#inject}). */
    synchronized void faults(FaultInjection.Plan plan) {
        faults = plan;
    }

    /** Removes {@code plan} if it is still the one installed. */
    synchronized void clearFaults(FaultInjection.Plan plan) {
        if (faults == plan) {
            faults = null;
        }
    }

    /** Whether close has begun (runs now throw), for tests of closing under runs. */
    boolean closing() {
        return (state.get() & CLOSED) != 0;
    }

    /** How many programs this backend has built, for tests of the cache. */
    int compiledPrograms() {
        return programs.size();
    }

    /**
     * As {@link #executeTraced}, calling {@code probes} at two moments of the run, for tests
     * that prove where the kernel reads and writes (package-private: not an API).
     */
    TracedRun executeProbed(KernelProgram program, KernelInvocation invocation, RunProbes probes) {
        return run(program, invocation, true, probes);
    }

    /**
     * Callbacks into a run: {@code afterBind} once every buffer exists and before the kernel is
     * enqueued; {@code afterKernel} once the kernel has finished and before the output is mapped
     * or read back.
     */
    record RunProbes(Runnable afterBind, Runnable afterKernel) {
        static final RunProbes NONE = new RunProbes(() -> { }, () -> { });
    }

    private TracedRun run(KernelProgram program, KernelInvocation invocation, boolean trace, RunProbes probes) {
        return run(program, invocation, trace, true, probes);
    }

    private TracedRun run(KernelProgram program, KernelInvocation invocation, boolean trace, boolean mayOverlap,
                          RunProbes probes) {
        Objects.requireNonNull(program, "program is null");
        Objects.requireNonNull(invocation, "invocation is null");
        unsupportedReason(program).ifPresent(reason -> {
            throw new UnsupportedOperationException(reason);
        });
        checkFits(program, invocation);
        long start = System.nanoTime();
        // Counted before the kernel runs: a null condition clears validity bits in place. Every row valid here is
        // computed in VALID_ROWS mode (a null row, or a byte of null rows, is skipped), and only those.
        long rowsComputed = invocation.mode() == RowMode.ALL_ROWS ? invocation.rows()
                : ValidityBitmaps.count(invocation.validity(), invocation.rows());
        enter();
        LaunchResult result;
        try {
            if (invocation.rows() == 0) {
                // OpenCL rejects zero-sized buffers and work sizes; there is nothing to do anyway.
                return new TracedRun(new KernelRun(name, 0, 0, System.nanoTime() - start, 0), 0, List.of());
            }
            CompiledProgram compiled = programs.get(program);
            List<ResidentBuffers.Lease> leases = new ArrayList<>();
            List<StagingPool.Slot> slots = new ArrayList<>();
            // Read once: a concurrent overlapChunkRows(..) must not change this run half way.
            int chunk = mayOverlap && probes == RunProbes.NONE && !trace ? chunkFor(program) : 0;
            KernelLaunch launch = new KernelLaunch(context.handle(), queue.handle(), counts, faults);
            try {
                try (launch) {
                    result = chunk > 0 && invocation.rows() > 2L * chunk
                            ? launchChunked(launch, compiled, program, invocation, chunk, leases, slots)
                            : launch(launch, compiled, program, invocation, trace, probes, leases);
                }
            } finally {
                // The run's commands have all finished (the launch waited): its resident and pinned buffers are free.
                // When that wait failed nobody knows what the device still does: its staging slots are not reused.
                Resources.closeAll(leases);
                if (!slots.isEmpty()) {
                    if (launch.drained()) {
                        overlap.staging.giveBack(slots);
                    } else {
                        Resources.closeAll(slots);
                    }
                }
            }
        } finally {
            exit();
        }
        if (result.failingRow() != Integer.MAX_VALUE) {
            // The kernel knows the row, not why: the reference evaluates it again (from host memory, which the
            // arguments are on either path), so every device reports the same message.
            throw RowInterpreter.failureAt(program, invocation.args(), result.failingRow(), name);
        }
        KernelRun run = new KernelRun(name, result.bytesToDevice(), result.bytesFromDevice(), System.nanoTime() - start,
                rowsComputed);
        return new TracedRun(run, result.mappedOutputAddress(), result.hostPointers());
    }

    /** {@code failingRow} is {@link Integer#MAX_VALUE} when no computed row failed. */
    private record LaunchResult(long bytesToDevice, long bytesFromDevice, int failingRow,
                                long mappedOutputAddress, List<Long> hostPointers) {
    }

    private LaunchResult launch(KernelLaunch launch, CompiledProgram compiled, KernelProgram program,
                                KernelInvocation invocation, boolean trace, RunProbes probes,
                                List<ResidentBuffers.Lease> leases) {
        int rows = invocation.rows();
        KernelSource source = compiled.source();
        boolean allRows = invocation.mode() == RowMode.ALL_ROWS;
        boolean writesValidity = program.nullWhen().isPresent();
        cl_kernel kernel = launch.own(compiled.newKernel());
        List<cl_mem> buffers = new ArrayList<>();
        long bytesToDevice = 0;
        for (int i = 0; i < program.arity(); i++) {
            long bytes = dataBytes(program.argTypes().get(i), rows);
            MemorySegment arg = invocation.args().get(i);
            if (mode == TransferMode.ZERO_COPY) {
                buffers.add(launch.hostBuffer(arg, bytes, CL.CL_MEM_READ_ONLY));
            } else if (residentLease(invocation, i, bytes, leases) instanceof ResidentBuffers.Lease lease) {
                buffers.add(lease.mem());
                bytesToDevice += lease.uploaded;
            } else {
                cl_mem mem = launch.deviceBuffer(bytes, CL.CL_MEM_READ_ONLY);
                launch.write(mem, arg, bytes);
                buffers.add(mem);
                bytesToDevice += bytes;
            }
        }
        ElementType resultType = program.resultType();
        long outBytes = dataBytes(resultType, rows);
        // A bitmap result is written a byte at a time, keeping the bits past the last row: the kernel reads its
        // last byte. On the COPY path that byte goes to the device first, so the read-back returns it intact.
        boolean bitmapOut = resultType.isBitPacked();
        long outAccess = bitmapOut ? CL.CL_MEM_READ_WRITE : CL.CL_MEM_WRITE_ONLY;
        cl_mem out;
        if (mode == TransferMode.ZERO_COPY) {
            out = launch.hostBuffer(invocation.out(), outBytes, outAccess);
        } else {
            out = launch.deviceBuffer(outBytes, outAccess);
            if (bitmapOut && rows % 8 != 0) {
                launch.write(out, outBytes - 1, invocation.out(), 1);
                bytesToDevice += 1;
            }
        }
        buffers.add(out);
        // The validity says which rows to compute (VALID_ROWS) and takes the null condition's cleared bits; a run
        // that needs neither passes NULL.
        long validityBytes = VectorView.validityBytes(rows);
        cl_mem validityBuffer = null;
        if (!allRows || writesValidity) {
            long access = writesValidity ? CL.CL_MEM_READ_WRITE : CL.CL_MEM_READ_ONLY;
            if (mode == TransferMode.ZERO_COPY) {
                validityBuffer = launch.hostBuffer(invocation.validity(), validityBytes, access);
            } else {
                validityBuffer = launch.deviceBuffer(validityBytes, access);
                launch.write(validityBuffer, invocation.validity(), validityBytes);
                bytesToDevice += validityBytes;
            }
        }
        // Programs that can fail take a status word where the kernel keeps the first failing row.
        int[] status = {Integer.MAX_VALUE};
        cl_mem statusBuffer = source.hasStatus() ? launch.deviceBuffer(status) : null;

        int index = 0;
        launch.setArg(kernel, index++, Sizeof.cl_int, Pointer.to(new int[] {rows}));
        launch.setArg(kernel, index++, Sizeof.cl_int, Pointer.to(new int[] {allRows ? 1 : 0}));
        for (cl_mem mem : buffers) {
            launch.setArg(kernel, index++, Sizeof.cl_mem, Pointer.to(mem));
        }
        // A NULL buffer argument is a NULL pointer in the kernel, which then never reads it.
        launch.setArg(kernel, index++, Sizeof.cl_mem, validityBuffer == null ? null : Pointer.to(validityBuffer));
        if (statusBuffer != null) {
            launch.setArg(kernel, index++, Sizeof.cl_mem, Pointer.to(statusBuffer));
        }
        setConstants(launch, kernel, index, program);

        long group = compiled.workGroupSize();
        long items = (rows + (long) source.rowsPerItem() - 1) / source.rowsPerItem();
        if (probes != RunProbes.NONE) {
            launch.finish(); // transfers enqueued so far are done before the probe looks
            probes.afterBind().run();
        }
        launch.launch(kernel, (items + group - 1) / group * group, group);
        if (probes != RunProbes.NONE) {
            launch.finish();
            probes.afterKernel().run();
        }

        long mapped = 0;
        long bytesFromDevice = 0;
        if (mode == TransferMode.ZERO_COPY) {
            mapped = launch.synchronizeToHost(out, outBytes);
            if (writesValidity) {
                launch.synchronizeToHost(validityBuffer, validityBytes);
            }
        } else {
            launch.read(out, invocation.out(), outBytes);
            bytesFromDevice = outBytes;
            if (writesValidity) {
                launch.read(validityBuffer, invocation.validity(), validityBytes);
                bytesFromDevice += validityBytes;
            }
        }
        if (statusBuffer != null) {
            launch.read(statusBuffer, status);
        }
        List<Long> hostPointers = new ArrayList<>();
        if (trace) {
            for (cl_mem mem : buffers) {
                hostPointers.add(KernelLaunch.hostPointer(mem));
            }
        }
        return new LaunchResult(bytesToDevice, bytesFromDevice, status[0], mapped, hostPointers);
    }

    /** The device copy of argument {@code i} under its resident key (pinned into {@code leases}), or null: upload it for this run. */
    private ResidentBuffers.Lease residentLease(KernelInvocation invocation, int i, long bytes,
                                                List<ResidentBuffers.Lease> leases) {
        ResidentKey key = invocation.residentKey(i);
        if (key == null || key.bytes() != bytes) {
            return null;
        }
        ResidentBuffers.Lease lease = resident.acquire(key, invocation.args().get(i), faults);
        if (lease != null) {
            leases.add(lease);
        }
        return lease;
    }

    /** The overlapped path's extra queues and pinned buffers, made once (under the backend's lock). */
    private record Overlap(ClObject<cl_command_queue> upload, ClObject<cl_command_queue> download, StagingPool staging)
            implements AutoCloseable {
        @Override
        public void close() {
            Resources.closeAll(List.of(staging, upload, download));
        }
    }

    private Overlap overlap() {
        Overlap o = overlap;
        if (o == null) {
            synchronized (this) {
                o = overlap;
                if (o == null) {
                    ClObject<cl_command_queue> up = newQueue(context, device, counts);
                    try {
                        ClObject<cl_command_queue> down = newQueue(context, device, counts);
                        overlap = o = new Overlap(up, down, new StagingPool(context.handle(), queue.handle(), counts));
                    } catch (RuntimeException e) {
                        up.closeAfterFailure(e);
                        throw e;
                    }
                }
            }
        }
        return o;
    }

    /**
     * The COPY path for a large batch: chunks of {@link #overlapChunkRows()} rows go through three
     * pinned staging slots. For each chunk the host copies its arguments into a slot, the upload
     * queue writes them to the device, the main queue runs the kernel over sub-buffers of the
     * batch's device buffers, and the download queue reads the result into the slot; the host
     * copies it out into Arrow memory when the slot comes round again. So chunk {@code c+1}
     * uploads while {@code c} computes and {@code c-1} downloads. Resident arguments are not
     * uploaded at all. A failing row is the smallest over the chunks, as one run would report.
     */
    private LaunchResult launchChunked(KernelLaunch launch, CompiledProgram compiled, KernelProgram program,
                                       KernelInvocation invocation, int chunk, List<ResidentBuffers.Lease> leases,
                                       List<StagingPool.Slot> slots) {
        Overlap o = overlap();
        cl_command_queue up = o.upload().handle(), compute = queue.handle(), down = o.download().handle();
        launch.alsoOn(up);
        launch.alsoOn(down);
        int rows = invocation.rows();
        int chunks = (int) (((long) rows + chunk - 1) / chunk);
        KernelSource source = compiled.source();
        boolean allRows = invocation.mode() == RowMode.ALL_ROWS;
        boolean writesValidity = program.nullWhen().isPresent();
        boolean readsValidity = !allRows || writesValidity;
        ElementType resultType = program.resultType();
        boolean bitmapOut = resultType.isBitPacked();
        int arity = program.arity();

        // The batch's device buffers: resident arguments as they are, the others filled chunk by chunk.
        cl_mem[] args = new cl_mem[arity];
        boolean[] staged = new boolean[arity];
        long bytesToDevice = 0, bytesFromDevice = 0;
        long stageIn = 0;
        for (int i = 0; i < arity; i++) {
            long bytes = dataBytes(program.argTypes().get(i), rows);
            if (residentLease(invocation, i, bytes, leases) instanceof ResidentBuffers.Lease lease) {
                args[i] = lease.mem();
                bytesToDevice += lease.uploaded;
            } else {
                args[i] = launch.deviceBuffer(bytes, CL.CL_MEM_READ_ONLY);
                staged[i] = true;
                stageIn += dataBytes(program.argTypes().get(i), chunk);
            }
        }
        long outBytes = dataBytes(resultType, rows);
        cl_mem out = launch.deviceBuffer(outBytes, bitmapOut ? CL.CL_MEM_READ_WRITE : CL.CL_MEM_WRITE_ONLY);
        long validityBytes = VectorView.validityBytes(rows);
        cl_mem validity = readsValidity
                ? launch.deviceBuffer(validityBytes, writesValidity ? CL.CL_MEM_READ_WRITE : CL.CL_MEM_READ_ONLY) : null;
        long chunkValidity = chunk / 8;
        if (readsValidity) {
            stageIn += chunkValidity;
        }
        // Per slot: the inputs, then (8-aligned) the output, its validity and the status word.
        long outAt = (stageIn + 1 + 63) / 64 * 64; // one spare byte for a bitmap result's last byte
        long validityAt = outAt + dataBytes(resultType, chunk);
        long statusAt = validityAt + (writesValidity ? chunkValidity : 0);
        long slotBytes = statusAt + Integer.BYTES;
        int depth = Math.min(3, chunks);
        for (int k = 0; k < depth; k++) {
            slots.add(o.staging().lease(slotBytes, faults));
        }
        cl_kernel kernel = launch.own(compiled.newKernel());
        long group = compiled.workGroupSize();
        cl_event[] readDone = new cl_event[chunks];
        int failingRow = Integer.MAX_VALUE;
        for (int c = 0; c < chunks + depth; c++) {
            // Retire chunk c - depth: its slot is needed now (or the loop is draining).
            int old = c - depth;
            if (old >= 0) {
                failingRow = Math.min(failingRow, retire(launch, readDone[old], slots.get(old % depth), invocation,
                        program, source.hasStatus(), old, chunk, outAt, validityAt, statusAt));
                bytesFromDevice += dataBytes(resultType, rowsOf(old, chunk, rows))
                        + (writesValidity ? VectorView.validityBytes(rowsOf(old, chunk, rows)) : 0);
            }
            if (c >= chunks) {
                continue;
            }
            // A kernel boundary: a cancelled run enqueues no more chunks; closing the launch waits for those enqueued.
            dev.quiver.cancel.Cancellation.check();
            StagingPool.Slot slot = slots.get(c % depth);
            long lo = (long) c * chunk;
            int n = rowsOf(c, chunk, rows);
            // The chunk's sub-buffers first: every command of the chunk, uploads included, goes through them, so no
            // command touches a whole buffer while another works on a part of it (OpenCL leaves that undefined).
            cl_mem[] subs = new cl_mem[arity];
            for (int i = 0; i < arity; i++) {
                ElementType t = program.argTypes().get(i);
                subs[i] = launch.subBuffer(args[i], dataBytes(t, lo), dataBytes(t, n), CL.CL_MEM_READ_ONLY);
            }
            long outChunkBytes = dataBytes(resultType, n);
            cl_mem outChunk = launch.subBuffer(out, dataBytes(resultType, lo), outChunkBytes,
                    bitmapOut ? CL.CL_MEM_READ_WRITE : CL.CL_MEM_WRITE_ONLY);
            cl_mem validityChunk = validity == null ? null : launch.subBuffer(validity, lo / 8, VectorView.validityBytes(n),
                    writesValidity ? CL.CL_MEM_READ_WRITE : CL.CL_MEM_READ_ONLY);
            cl_event uploaded = null;
            long at = 0;
            for (int i = 0; i < arity; i++) {
                if (!staged[i]) {
                    continue;
                }
                ElementType t = program.argTypes().get(i);
                long from = dataBytes(t, lo), bytes = dataBytes(t, n);
                MemorySegment.copy(invocation.args().get(i), from, slot.segment(), at, bytes);
                uploaded = launch.writeAsync(up, subs[i], 0, slot.view(at, bytes));
                bytesToDevice += bytes;
                at += bytes;
            }
            if (readsValidity) {
                long from = lo / 8, bytes = VectorView.validityBytes(n);
                MemorySegment.copy(invocation.validity(), from, slot.segment(), at, bytes);
                uploaded = launch.writeAsync(up, validityChunk, 0, slot.view(at, bytes));
                bytesToDevice += bytes;
                at += bytes;
            }
            if (bitmapOut && c == chunks - 1 && rows % 8 != 0) {
                // The kernel keeps the bits past the last row of the last byte: the device needs that byte first.
                MemorySegment.copy(invocation.out(), outBytes - 1, slot.segment(), at, 1);
                uploaded = launch.writeAsync(up, outChunk, outChunkBytes - 1, slot.view(at, 1));
                bytesToDevice += 1;
            }
            cl_mem status = source.hasStatus() ? launch.deviceBuffer(new int[] {Integer.MAX_VALUE}) : null;
            launch.flush(up);

            int index = 0;
            launch.setArg(kernel, index++, Sizeof.cl_int, Pointer.to(new int[] {n}));
            launch.setArg(kernel, index++, Sizeof.cl_int, Pointer.to(new int[] {allRows ? 1 : 0}));
            for (int i = 0; i < arity; i++) {
                launch.setArg(kernel, index++, Sizeof.cl_mem, Pointer.to(subs[i]));
            }
            launch.setArg(kernel, index++, Sizeof.cl_mem, Pointer.to(outChunk));
            launch.setArg(kernel, index++, Sizeof.cl_mem, validityChunk == null ? null : Pointer.to(validityChunk));
            if (status != null) {
                launch.setArg(kernel, index++, Sizeof.cl_mem, Pointer.to(status));
            }
            setConstants(launch, kernel, index, program);
            long items = (n + (long) source.rowsPerItem() - 1) / source.rowsPerItem();
            cl_event computed = launch.launchAsync(compute, kernel, (items + group - 1) / group * group, group, uploaded);
            launch.flush(compute);

            cl_event read = launch.readAsync(down, outChunk, 0, slot.view(outAt, dataBytes(resultType, n)), computed);
            if (writesValidity) {
                read = launch.readAsync(down, validityChunk, 0, slot.view(validityAt, VectorView.validityBytes(n)), computed);
            }
            if (status != null) {
                read = launch.readAsync(down, status, 0, slot.view(statusAt, Integer.BYTES), computed);
            }
            launch.flush(down);
            readDone[c] = read;
        }
        return new LaunchResult(bytesToDevice, bytesFromDevice, failingRow, 0, List.of());
    }

    private static int rowsOf(int c, int chunk, int rows) {
        return (int) Math.min(chunk, rows - (long) c * chunk);
    }

    /**
     * Waits for chunk {@code c}'s read-back and copies it from its slot into the Arrow output;
     * returns its first failing row in batch numbering, or {@link Integer#MAX_VALUE}.
     */
    private static int retire(KernelLaunch launch, cl_event readDone, StagingPool.Slot slot, KernelInvocation invocation,
                              KernelProgram program, boolean hasStatus, int c, int chunk, long outAt, long validityAt,
                              long statusAt) {
        launch.await(readDone); // the download queue is in order: every read of the chunk is done
        int rows = invocation.rows();
        long lo = (long) c * chunk;
        int n = rowsOf(c, chunk, rows);
        ElementType t = program.resultType();
        MemorySegment.copy(slot.segment(), outAt, invocation.out(), dataBytes(t, lo), dataBytes(t, n));
        if (program.nullWhen().isPresent()) {
            MemorySegment.copy(slot.segment(), validityAt, invocation.validity(), lo / 8, VectorView.validityBytes(n));
        }
        if (!hasStatus) {
            return Integer.MAX_VALUE;
        }
        int row = slot.segment().get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, statusAt);
        return row == Integer.MAX_VALUE ? row : (int) (lo + row);
    }

    private static void setConstants(KernelLaunch launch, cl_kernel kernel, int index, KernelProgram program) {
        for (IrNode.Const c : program.constants()) {
            // Raw bits, so NaN payloads and -0.0 reach the device unchanged.
            long bits = c.bits();
            switch (c.type()) {
                case INT32, FLOAT32, BOOL -> launch.setArg(kernel, index++, Sizeof.cl_int, Pointer.to(new int[] {(int) bits}));
                case INT64, FLOAT64 -> launch.setArg(kernel, index++, Sizeof.cl_long, Pointer.to(new long[] {bits}));
            }
        }
    }

    private static void checkFits(KernelProgram program, KernelInvocation invocation) {
        if (invocation.args().size() != program.arity()) {
            throw new IllegalArgumentException(program.text() + " takes " + program.arity() + " argument(s), the invocation has "
                    + invocation.args().size());
        }
        long rows = invocation.rows();
        for (int i = 0; i < program.arity(); i++) {
            checkSegment("argument " + i, invocation.args().get(i), dataBytes(program.argTypes().get(i), rows));
        }
        checkSegment("the output", invocation.out(), dataBytes(program.resultType(), rows));
        if (invocation.validity().byteSize() < VectorView.validityBytes(rows)) {
            throw new IllegalArgumentException("the validity bitmap holds " + invocation.validity().byteSize()
                    + " bytes, fewer than the " + VectorView.validityBytes(rows) + " of " + rows + " rows");
        }
    }

    private static void checkSegment(String what, MemorySegment segment, long bytes) {
        Objects.requireNonNull(segment, what + " is null");
        if (segment.byteSize() < bytes) {
            throw new IllegalArgumentException(what + " holds " + segment.byteSize() + " bytes, fewer than the " + bytes
                    + " its rows need");
        }
        if (bytes == 0) {
            return;
        }
        if (!segment.isNative()) {
            throw new IllegalArgumentException(what + " is a heap segment; OpenCL needs native (Arrow) memory");
        }
        if (bytes > Integer.MAX_VALUE) {
            // JOCL hands memory to OpenCL through ByteBuffers, which end at 2 GiB.
            throw new IllegalArgumentException(what + " spans " + bytes + " bytes; buffers over 2 GiB ("
                    + Integer.MAX_VALUE + " bytes) are not supported by the OpenCL backend: split the batch");
        }
    }

    /**
     * Registers a run, or throws {@link IllegalStateException} when close has begun: then the run
     * must touch none of the backend's OpenCL objects. A run that gets past here is waited for
     * by close until its {@link #exit()}.
     */
    private void enter() {
        if ((state.getAndAdd(RUN) & CLOSED) != 0) {
            exit();
            throw new IllegalStateException("backend " + name + " is closed");
        }
    }

    /** Ends a run registered by {@link #enter()}; the last one to end after close has begun wakes the closer. */
    private void exit() {
        if (state.addAndGet(-RUN) == CLOSED) {
            if (closer.get() instanceof Thread t) {
                LockSupport.unpark(t);
            }
        }
    }

    /**
     * Refuses new runs, waits for runs in progress and for the build thread's task in progress
     * (builds not started yet fail; binaries waiting to be stored are stored), then releases the
     * resident arguments, the staging slots and extra queues of the overlapped path, the compiled
     * programs, the queue and the context. Idempotent: a later or concurrent call waits until the
     * first has released everything, then returns. Not interruptible (an interrupt is kept for the
     * caller).
     * Must not be called from within a run of this backend (it would wait for itself).
     */
    @Override
    public void close() {
        if (!closer.compareAndSet(null, Thread.currentThread())) {
            awaitReleased();
            return;
        }
        // Set after the closer, so the last run to end finds whom to wake; only this thread sets it.
        state.getAndAdd(CLOSED);
        try {
            awaitRunsEnded();
            awaitBuildsEnded();
            Overlap o = overlap;
            Resources.closeAll(List.<AutoCloseable>of(resident, () -> {
                if (o != null) {
                    o.close();
                }
            }, programs::close, queue::close, context::close));
        } finally {
            closer.set(DONE);
            released.countDown();
        }
    }

    /** Spins briefly, then parks (woken by the last run, or after at most a millisecond) until no run is in progress. */
    private void awaitRunsEnded() {
        boolean interrupted = false;
        long start = System.nanoTime();
        long park = 1_000;
        while (state.get() != CLOSED) {
            if (System.nanoTime() - start < SPIN_NANOS) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(this, park);
                park = Math.min(MAX_PARK_NANOS, park * 2);
                interrupted |= Thread.interrupted(); // else park returns at once, forever
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the build thread after the tasks it was given (builds then fail at once), and waits for it. */
    private void awaitBuildsEnded() {
        ExecutorService executor;
        synchronized (buildsLock) {
            buildsClosed = true;
            executor = builds;
        }
        if (executor == null) {
            return;
        }
        executor.shutdown();
        boolean interrupted = false;
        while (true) {
            try {
                if (executor.awaitTermination(1, TimeUnit.MINUTES)) {
                    break;
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void awaitReleased() {
        boolean interrupted = false;
        while (true) {
            try {
                released.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return name + " [" + mode + "]";
    }
}
