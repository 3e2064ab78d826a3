package dev.quiver.opencl;

import dev.quiver.backend.DeviceKind;
import dev.quiver.backend.DeviceTraits;
import dev.quiver.backend.IdentityText;
import dev.quiver.backend.KernelBackend;
import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.backend.ResidentKey;
import dev.quiver.backend.RowMode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowInterpreter;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jocl.CL;
import org.jocl.cl_command_queue;
import org.jocl.cl_context;

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
 * <p>Memory ({@code DataPath}): on a device that shares host memory (PoCL, integrated GPUs) the
 * kernel reads and writes the Arrow buffers themselves, with no copy ({@code ZeroCopyPath});
 * elsewhere ({@link TransferMode#COPY}, {@code CopyPath}) each argument is written to the device,
 * unless it is resident there under its {@link ResidentKey}, and the output read back (the
 * validity too, when the row mode or a null condition needs it); a batch of more than two chunks
 * goes chunk by chunk, overlapping transfers with the kernel (see {@link #overlapChunkRows()},
 * {@code OverlapPipeline}). The bytes moved are reported in the {@link KernelRun}. See
 * docs/transfers.md. Cancellation ({@link dev.quiver.cancel.Cancellation}) is checked before
 * each overlapped chunk is enqueued; a single launch runs to its end.
 *
 * <p>Programs ({@code ProgramBuilds}): each shape is built once per backend, by the first run
 * that needs it or ahead of it by {@link #prepareAsync} on the backend's build thread (one daemon
 * thread, started on first use). A program built from source is stored in the backend's
 * {@link ProgramBinaryCache} (by the build thread, after the build), and a later backend, in this
 * process or another, loads that binary instead of compiling the source; {@link #programStats()}
 * counts both.
 *
 * <p>Ownership: the backend owns its OpenCL context, command queue and compiled programs, and
 * releases them in {@link #close()}. It never owns Arrow memory: the segments of an invocation
 * must stay alive for the duration of {@link #execute}, and no command touches them after it
 * returns or throws. Thread-safe: runs from several threads share the queues; a plain run takes
 * no lock (one atomic add as it starts and one as it ends, and a volatile read of a built
 * program), resident arguments and staging slots take a short lock of their own;
 * {@link #close()} waits for runs in progress ({@code Lifecycle}), and a run that starts once
 * close has begun throws {@link IllegalStateException}.
 *
 * <pre>{@code
 * OpenClDevice device = OpenClRuntime.discover().devices().getFirst();
 * try (OpenClBackend gpu = OpenClBackend.open(device)) {
 *     KernelRun run = gpu.execute(program, invocation);
 * }
 * }</pre>
 */
public final class OpenClBackend implements KernelBackend {
    /**
     * Rows per overlapped chunk unless configured ({@code -Dquiver.opencl.chunkRows}): this on a
     * GPU or accelerator; 0 on an OpenCL CPU device (PoCL), whose "transfers" are copies by the
     * same cores that compute, so that there is nothing to hide them behind (measured with
     * {@code quiver bench --overlap}: the staged chunks took 1.02x the time of one copy each way).
     */
    public static final int DEFAULT_CHUNK_ROWS = ChunkRows.DEFAULT_ROWS;
    /** Chunks are whole multiples of this many rows, so that every chunk of every buffer (bitmaps too) starts aligned. */
    public static final int CHUNK_GRAIN = ChunkRows.GRAIN;
    /** The most bytes of one pinned staging slot: chunks shrink (by whole grains) to stay under it. */
    public static final long MAX_SLOT_BYTES = ChunkRows.MAX_SLOT_BYTES;

    private final OpenClDevice device;
    private final TransferMode mode;
    private final DeviceTraits traits;
    private final String name;
    private final ClObject<cl_context> context;
    private final ClObject<cl_command_queue> queue;
    private final ClObjectCounts counts;
    private final InjectedFaults faults = new InjectedFaults();
    private final ProgramBuilds programs;
    /** Arguments kept on the device across runs (the COPY path; see {@link ResidentKey}). */
    private final ResidentBuffers resident;

    private final ChunkRows chunks;
    private final DataPath dataPath;
    private final Lifecycle lifecycle;
    private final BatchRunner runner;

    private OpenClBackend(
            OpenClDevice device,
            TransferMode mode,
            ClObject<cl_context> context,
            ClObject<cl_command_queue> queue,
            ClObjectCounts counts,
            ProgramBinaryCache binaries) {
        this.device = device;
        this.counts = counts;
        this.mode = mode;
        this.traits = traitsOf(device, mode);
        this.name = "opencl:" + device.name();
        this.context = context;
        this.queue = queue;
        this.programs = new ProgramBuilds(device, name, context, queue, counts, binaries, faults);
        this.resident = new ResidentBuffers(context.handle(), counts, ResidentBuffers.defaultBudget(device));
        this.chunks = new ChunkRows(device);
        this.dataPath = mode == TransferMode.ZERO_COPY
                ? new ZeroCopyPath()
                : new CopyPath(resident, chunks, new OverlapPipeline(device, context, queue, counts));
        this.lifecycle = new Lifecycle(name);
        this.runner = new BatchRunner(device, name, context, queue, counts, lifecycle, programs, dataPath, faults);
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
            throw new IllegalArgumentException(
                    "device " + device.name() + " was not found by OpenClRuntime.discover()");
        }
        CL.setExceptionsEnabled(false);
        TransferMode resolved = mode.resolveFor(device);
        ClObjectCounts counts = new ClObjectCounts();
        ClObject<cl_context> context = DeviceContexts.context(device, counts);
        try {
            ClObject<cl_command_queue> queue = DeviceContexts.inOrderQueue(context, device, counts);
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

    /** {@code opencl:} followed by the device name. */
    @Override
    public String name() {
        return name;
    }

    public OpenClDevice device() {
        return device;
    }

    /**
     * The device's kind, as OpenCL reports it; how batches reach it (its transfer mode); its
     * largest buffer (at most 2 GiB: no buffer of this backend is larger) and its global memory.
     */
    @Override
    public DeviceTraits traits() {
        return traits;
    }

    /**
     * {@code opencl | platform <name> <version> | device <name> | vendor <vendor> | driver
     * <driver version> | <device version> | zero copy|copies}: one device driven both ways has two
     * sets of figures.
     */
    @Override
    public Optional<String> identity() {
        return Optional.of(IdentityText.join(
                "opencl",
                "platform " + IdentityText.clean(device.platform().name()) + " "
                        + IdentityText.clean(device.platform().version()),
                "device " + device.name(),
                "vendor " + device.vendor(),
                "driver " + device.driverVersion(),
                device.version(),
                mode == TransferMode.COPY ? "copies" : "zero copy"));
    }

    private static DeviceTraits traitsOf(OpenClDevice device, TransferMode mode) {
        DeviceKind kind = switch (device.type()) {
            case CPU -> DeviceKind.CPU;
            case GPU -> DeviceKind.GPU;
            case ACCELERATOR -> DeviceKind.ACCELERATOR;
            case OTHER -> DeviceKind.OTHER;
        };
        boolean copies = mode == TransferMode.COPY;
        long limit = Integer.MAX_VALUE; // no buffer of this backend is over 2 GiB
        return new DeviceTraits(
                kind,
                copies ? DeviceTraits.Memory.COPY : DeviceTraits.Memory.ZERO_COPY,
                false,
                copies ? Math.min(limit, device.maxAllocationBytes()) : limit,
                copies ? Math.max(1, device.globalMemoryBytes()) : Long.MAX_VALUE,
                false);
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
        return chunks.rows();
    }

    /**
     * The chunk rows in effect: {@link #overlapChunkRows()} in COPY mode when every chunk of every
     * buffer starts at an offset the device can make a sub-buffer at (its base address
     * alignment), else 0.
     */
    public int effectiveChunkRows() {
        return dataPath.effectiveChunkRows();
    }

    /**
     * Sets {@link #overlapChunkRows()}: 0 turns overlap off; otherwise rounded up to a multiple of
     * {@value #CHUNK_GRAIN} rows. Applies to runs that start afterwards.
     */
    public OpenClBackend overlapChunkRows(int rows) {
        chunks.set(rows);
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
        return dataPath.residentBytes(invocation);
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
        return DeviceSupport.unsupportedReason(device, program);
    }

    /**
     * Computes {@code program} over {@code invocation} as {@link KernelBackend#execute} says.
     * Throws {@link IllegalArgumentException} when the invocation does not fit the program
     * (argument count, segment sizes, heap segments, buffers over 2 GiB) and
     * {@link OpenClException} on a device error.
     */
    @Override
    public KernelRun execute(KernelProgram program, KernelInvocation invocation) {
        return runner.run(program, invocation, false, true, null).run();
    }

    /**
     * As {@link #execute}, with one transfer each way however large the batch: what calibration
     * measures the plain transfer rate with (the cost model then applies the overlap itself).
     */
    public KernelRun executeWithoutOverlap(KernelProgram program, KernelInvocation invocation) {
        return runner.run(program, invocation, true, false, null).run();
    }

    /**
     * As {@link #execute}, and reports where each buffer lived: the proof that a zero-copy run
     * used the Arrow memory itself. Costs a few extra queries per run.
     */
    public TracedRun executeTraced(KernelProgram program, KernelInvocation invocation) {
        return runner.run(program, invocation, true, true, null);
    }

    /** Whether the program of {@code program}'s shape is built: its runs start without a build. */
    @Override
    public boolean isReady(KernelProgram program) {
        return programs.isReady(program);
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
        return programs.prepare(program);
    }

    /**
     * What this backend did to get its programs: built from source, loaded from the
     * {@link ProgramBinaryCache}, binaries it rejected (corrupt or refused by the driver, then
     * deleted and built from source), binaries it stored.
     */
    public record ProgramStats(long built, long loaded, long rejected, long stored) {}

    public ProgramStats programStats() {
        return programs.stats();
    }

    /** Where this backend keeps built programs. */
    public ProgramBinaryCache programCache() {
        return programs.cache();
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
    public record LiveObjects(
            long contexts, long queues, long programs, long kernels, long buffers, long events, long held) {
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
        lifecycle.close(programs::stopBuilds, List.of(resident, dataPath, programs, queue, context));
    }

    @Override
    public String toString() {
        return name + " [" + mode + "]";
    }

    // Package-private hooks for tests: FaultInjection installs its plans here; this package's tests look inside.

    /** Where {@link FaultInjection#inject} installs its plans. */
    InjectedFaults injectedFaults() {
        return faults;
    }

    /** Whether close has begun (runs now throw), for tests of closing under runs. */
    boolean closing() {
        return lifecycle.closing();
    }

    /** How many programs this backend has built, for tests of the cache. */
    int compiledPrograms() {
        return programs.size();
    }

    /** {@link ProgramBuilds#compile}: builds {@code source}, bypassing the in-memory cache; the caller closes the result. */
    CompiledProgram compile(KernelSource source) {
        return programs.compile(source);
    }

    /** The key of {@code source}'s program on this device in the {@link ProgramBinaryCache}. */
    String programKey(KernelSource source) {
        return programs.programKey(source);
    }

    /** As {@link #executeTraced}, calling {@code probes} at two moments of the run ({@link RunProbes}). */
    TracedRun executeProbed(KernelProgram program, KernelInvocation invocation, RunProbes probes) {
        return runner.run(program, invocation, true, true, Objects.requireNonNull(probes, "probes is null"));
    }
}
