package dev.quiver;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.cancel.Cancellation;
import dev.quiver.errors.CancelledException;
import dev.quiver.functions.ExecutionConfig;
import dev.quiver.memory.OutputVectors;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.memory.VectorView;
import dev.quiver.kernels.Kernels;
import dev.quiver.kernels.Selection;
import dev.quiver.physical.EvalContext;
import dev.quiver.physical.KernelExecutor;
import dev.quiver.backend.RowMode;
import dev.quiver.planning.PhysicalPlan;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.Values;
import dev.quiver.validation.BatchValidation;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.util.TransferPair;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.IdentityHashMap;
import dev.quiver.physical.FusedKernelExpr;
import dev.quiver.physical.PhysicalExpr;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.placement.DeviceHealth;
import java.util.function.Function;

/**
 * An expression planned against a schema, ready to evaluate batch after batch.
 *
 * <p>Per batch it checks the batch against the plan, and the buffers of the columns it reads
 * against their lengths ({@link BatchValidation}: a malformed batch is an
 * {@link dev.quiver.errors.InputException} naming the column and the first bad row, raised before
 * anything is computed or allocated), and evaluates the physical tree once:
 * each node runs over whole columns; each fused numeric subtree runs as one kernel on the
 * device {@link Placement} picks for the batch, reading the batch's own memory. On any
 * failure everything allocated for the batch is freed before the exception leaves.
 *
 * <p>Threads: thread-safe. Several threads may evaluate batches at once, the same batch
 * included (a batch is only read, and must not change while it is evaluated); {@link #metrics()},
 * {@link #lastBatch()} and {@link #explain} may be read meanwhile. An evaluation runs on the
 * calling thread (and, for a large CPU batch, on the CPU device's helper threads too). It stops
 * at its next kernel boundary, within 100 ms, with a {@link dev.quiver.errors.CancelledException},
 * when that thread is interrupted or a {@link dev.quiver.cancel.CancelHandle} it runs under is
 * cancelled; the expression stays usable (docs/evaluation.md#cancellation).
 */
public final class CompiledExpression {
    /** The batch size EXPLAIN estimates for before any batch has run. */
    public static final int DEFAULT_EXPLAIN_ROWS = 1 << 16;

    private final Quiver quiver;
    private final PhysicalPlan plan;
    private final ExecutionConfig config;
    private final Field outputField;
    private final KernelProgram rootProgram;
    private final ExpressionMetrics metrics = new ExpressionMetrics();
    /** Whether each device can run each program: fixed per program and device, asked on every batch. */
    private final Map<Device, Map<KernelProgram, Optional<String>>> unsupported = new ConcurrentHashMap<>();

    /** One scheduler per kernel segment of the plan, in plan order (outermost first). */
    private final Map<FusedKernelExpr, SegmentScheduler> segments = new IdentityHashMap<>();
    private final List<SegmentScheduler> segmentList = new ArrayList<>();
    /** Schedulers for programs run without their segment (an executor called directly). */
    private final Map<KernelProgram, SegmentScheduler> loose = new ConcurrentHashMap<>();
    private volatile int lastBatchRows;
    /** The dictionary decodes of the plan: their dictionaries' values are constant inputs (resident keys by contents). */
    private final List<dev.quiver.physical.DictionaryDecodeExpr> decodes = new ArrayList<>();
    /** Whether any device copies batches to its own memory: only then are resident keys worth making. */
    private final boolean anyDeviceCopies;

    CompiledExpression(Quiver quiver, PhysicalPlan plan, ExecutionConfig config) {
        this.quiver = quiver;
        this.plan = plan;
        this.config = config;
        DataType t = plan.outputType().valueType();
        this.outputField = t.toField(plan.outputName(), true);
        this.rootProgram = plan.root() instanceof FusedKernelExpr f ? f.program() : null;
        collectSegments(plan.root());
        this.deep = depth(plan.root()) > SHALLOW || plan.programs().stream()
                .anyMatch(p -> KernelProgram.depth(p.root(), SHALLOW_PROGRAM) > SHALLOW_PROGRAM
                        || p.nullWhen().isPresent() && KernelProgram.depth(p.nullWhen().get(), SHALLOW_PROGRAM) > SHALLOW_PROGRAM);
        boolean copies = false;
        for (DeviceRuntime r : quiver.runtimes()) {
            copies |= r.copies;
        }
        this.anyDeviceCopies = copies;
    }

    /**
     * The deepest physical tree evaluated on the caller's thread. Deeper, each batch is evaluated
     * on a thread with a large stack ({@link dev.quiver.expr.ExprThreads}; a hand-off of some
     * microseconds), so no depth the limits allow depends on the caller's stack: a level of
     * evaluation takes up to about 300 bytes of stack (a nested CASE, interpreted), and the first run
     * of a code path may link a lambda at the bottom of the recursion, which takes far more.
     */
    static final int SHALLOW = 128;

    /**
     * The deepest kernel program whose batches run on the caller's thread: deeper (a RowFn body such
     * as {@code gcd}'s, 590 levels), the reference interpreter's row-by-row runs and the folding of a
     * batch's constants, which recurse over the program, run on a large-stack thread too.
     */
    static final int SHALLOW_PROGRAM = 256;

    /** Whether the tree is deeper than {@link #SHALLOW}, or a program deeper than {@link #SHALLOW_PROGRAM}. */
    private final boolean deep;

    /** The deepest path of the tree, walked with a stack of its own. */
    private static int depth(PhysicalExpr root) {
        int deepest = 0;
        java.util.Deque<PhysicalExpr> nodes = new java.util.ArrayDeque<>();
        java.util.Deque<Integer> depths = new java.util.ArrayDeque<>();
        nodes.push(root);
        depths.push(1);
        while (!nodes.isEmpty()) {
            PhysicalExpr e = nodes.pop();
            int d = depths.pop();
            deepest = Math.max(deepest, d);
            for (PhysicalExpr c : e.children()) {
                nodes.push(c);
                depths.push(d + 1);
            }
        }
        return deepest;
    }

    private void collectSegments(PhysicalExpr root) {
        for (PhysicalExpr e : dev.quiver.planning.PhysicalPlan.preOrder(root)) {
            collectSegment(e);
        }
    }

    private void collectSegment(PhysicalExpr e) {
        if (e instanceof dev.quiver.physical.DictionaryDecodeExpr d && !decodes.contains(d)) {
            decodes.add(d);
        }
        if (e instanceof FusedKernelExpr f && !segments.containsKey(f)) {
            List<String> cpuOnly = new ArrayList<>();
            for (dev.quiver.rowfn.RowFn r : f.rowFns()) {
                if (r.isCpuOnly()) {
                    cpuOnly.add(r.name());
                }
            }
            SegmentScheduler s = new SegmentScheduler(this, f.program().text(), f.program(),
                    cpuOnly.isEmpty() ? null : String.join(", ", cpuOnly), quiver.runtimes(), quiver.explorationShare());
            segments.put(f, s);
            segmentList.add(s);
        }
    }

    private SegmentScheduler scheduler(FusedKernelExpr segment, KernelProgram program) {
        SegmentScheduler s = segment == null ? null : segments.get(segment);
        if (s != null) {
            return s;
        }
        return loose.computeIfAbsent(program, p -> new SegmentScheduler(this, p.text(), p, null, quiver.runtimes(),
                quiver.explorationShare()));
    }

    /** The field of the vectors this expression returns (nullable, named after the alias or the expression). */
    public Field outputField() {
        return outputField;
    }

    /** The plan: the logical expression, the physical tree, the columns it reads. */
    public PhysicalPlan plan() {
        return plan;
    }

    /** The fused kernel programs the plan runs (none when no numeric subtree was fused). */
    public List<KernelProgram> programs() {
        return plan.programs();
    }

    /**
     * The outermost fused kernel program.
     *
     * @throws IllegalStateException when the plan runs no fused kernel
     */
    public KernelProgram program() {
        List<KernelProgram> ps = plan.programs();
        if (ps.isEmpty()) {
            throw new IllegalStateException("the plan of " + plan.logical() + " runs no fused kernel:\n" + plan.explain());
        }
        return ps.getFirst();
    }

    /** The schema fields the expression reads, in input order. */
    public List<Field> inputColumns() {
        return plan.columns();
    }

    public ExpressionMetrics metrics() {
        return metrics;
    }

    /**
     * The most recently evaluated batch: its rows, the devices its kernels ran on, the bytes copied
     * to and from devices, and its time; empty before the first batch completes. With several
     * threads evaluating, the last to finish.
     */
    public Optional<ExpressionMetrics.BatchReport> lastBatch() {
        return metrics.lastBatch();
    }

    /** Evaluates with the Quiver's default placement into its allocator. The caller closes the result. */
    public FieldVector evaluate(VectorSchemaRoot batch) {
        return evaluate(batch, quiver.defaultPlacement(), quiver.allocator());
    }

    public FieldVector evaluate(VectorSchemaRoot batch, Placement placement) {
        return evaluate(batch, placement, quiver.allocator());
    }

    /**
     * Evaluates over {@code batch} and returns a new vector of {@code batch.getRowCount()} rows
     * allocated from {@code allocator}, typed and named as {@link #outputField()}; the caller
     * owns and closes it. An expression over literals only is broadcast to the batch's rows
     * here (use {@link #evaluateValue} to keep it a scalar).
     *
     * <p>Everything it throws on purpose is a {@link dev.quiver.errors.QuiverException} carrying
     * this expression (and where known the column, row and device):
     *
     * @throws dev.quiver.errors.InputException      when the batch does not match the planned schema,
     *                                               its columns have different lengths, or its
     *                                               buffers are malformed (invalid UTF-8 included)
     * @throws dev.quiver.errors.EvaluationException when a row cannot be computed: a CAST meets a
     *                                               value that does not convert ({@code EVALUATION}),
     *                                               a non-null row divides an integer by zero or
     *                                               overflows checked arithmetic ({@code ARITHMETIC},
     *                                               a {@link KernelArithmeticException})
     * @throws dev.quiver.errors.ResourceException   when the allocator cannot give memory
     *                                               ({@link QuiverOutOfMemoryException}) or a result
     *                                               is larger than an Arrow vector holds
     * @throws dev.quiver.errors.DeviceException     when {@code placement} is OPENCL and no OpenCL
     *                                               device can run a fused kernel of the expression
     *                                               (the message says why)
     * @throws dev.quiver.errors.CancelledException  when the calling thread is interrupted (its flag
     *                                               stays set) or a {@link dev.quiver.cancel.CancelHandle}
     *                                               it runs under is cancelled, before or while it runs
     */
    public FieldVector evaluate(VectorSchemaRoot batch, Placement placement, BufferAllocator allocator) {
        return evaluate(batch, placement, allocator, null);
    }

    /**
     * As {@link #evaluate(VectorSchemaRoot, Placement, BufferAllocator)}, for an engine that
     * evaluates several expressions over one batch: on an OpenCL device that copies batches to its
     * own memory (a discrete GPU, docs/transfers.md), a column of {@code batch} that several of
     * them read is uploaded once while {@code shared} is open. Open one scope per batch, pass it
     * to every expression evaluated over that batch, and close it before the batch's buffers are
     * reused or freed (closing releases the device copies); the batch must not change meanwhile.
     * Null: a scope of this evaluation alone, as the three-argument form.
     */
    public FieldVector evaluate(VectorSchemaRoot batch, Placement placement, BufferAllocator allocator,
                         dev.quiver.backend.ResidencyScope shared) {
        Objects.requireNonNull(placement, "placement is null");
        Executor executor = new Executor(placement, null);
        executor.scope = shared;
        executor.ownsScope = shared == null;
        return guard(batch, allocator, executor,
                () -> toVector(run(batch, executor, allocator), batch.getRowCount(), allocator));
    }

    /**
     * As {@link #evaluate(VectorSchemaRoot, Placement, BufferAllocator)}, but an expression
     * over literals only gives a {@link ColumnarValue.Scalar} instead of a filled array, and an
     * expression that is just a column gives that column of the batch itself, borrowed
     * ({@code owned() == false}: closing it leaves the batch alone; it lives as long as the batch).
     * Close the value in every case.
     */
    public ColumnarValue evaluateValue(VectorSchemaRoot batch, Placement placement, BufferAllocator allocator) {
        Objects.requireNonNull(placement, "placement is null");
        Executor executor = new Executor(placement, null);
        return guard(batch, allocator, executor, () -> run(batch, executor, allocator));
    }

    /**
     * Evaluates with every fused kernel on one named device, as
     * {@link #evaluate(VectorSchemaRoot, Placement, BufferAllocator)} does, with no fallback: a
     * device error is thrown (this is for tests and benchmarks of one device). A segment that calls
     * a {@code cpuOnly} RowFn still runs on the CPU. Throws
     * {@link IllegalStateException} when that device cannot run one of them.
     */
    public FieldVector evaluate(VectorSchemaRoot batch, Device device, BufferAllocator allocator) {
        Objects.requireNonNull(device, "device is null");
        for (KernelProgram p : plan.programs()) {
            unsupportedOn(device, p).ifPresent(r -> {
                throw new dev.quiver.errors.DeviceException(device.name() + " cannot run " + p.text() + ": " + r);
            });
        }
        Executor executor = new Executor(null, quiver.runtime(device));
        return guard(batch, allocator, executor,
                () -> toVector(run(batch, executor, allocator), batch.getRowCount(), allocator));
    }

    /**
     * Runs one evaluation; Arrow's {@link org.apache.arrow.memory.OutOfMemoryException}, wherever
     * it was raised (and however a kernel wrapped it), leaves as a {@link QuiverOutOfMemoryException}
     * that names this expression. Every node closes what it allocated before its exception leaves,
     * so the allocator is back where it was by the time this sees the exception.
     */
    private <T> T guard(VectorSchemaRoot batch, BufferAllocator allocator, Executor executor,
                        java.util.function.Supplier<T> evaluation) {
        Objects.requireNonNull(batch, "batch is null");
        Objects.requireNonNull(allocator, "allocator is null");
        try {
            Cancellation.check(); // cancelled (or interrupted) before it started: nothing is allocated
            // Evaluation recurses over the tree: a deep one runs on a thread with a stack for it.
            return deep ? dev.quiver.expr.ExprThreads.call(quiver.limits().stackBytes(), evaluation) : evaluation.get();
        } catch (QuiverOutOfMemoryException e) {
            throw e;
        } catch (CancelledException e) {
            throw named(e);
        } catch (RuntimeException e) {
            org.apache.arrow.memory.OutOfMemoryException oom = arrowOutOfMemory(e);
            if (oom == null) {
                if (e instanceof dev.quiver.errors.QuiverException q) {
                    q.fillExpression(plan.logical().toString());
                }
                throw e;
            }
            QuiverOutOfMemoryException clear = outOfMemory(oom, batch.getRowCount(), allocator, executor);
            if (e != oom) {
                clear.addSuppressed(e); // how a kernel reported it, for the stack trace
            }
            throw clear;
        } finally {
            executor.closeScope(); // nothing of this batch stays on any device
        }
    }

    /**
     * A cancellation found at a kernel boundary (which knows nothing of the expression), as one
     * that names this expression; the boundary's exception is its cause. Named once: an outer
     * evaluation (a filter's, a projection's) keeps what the inner one said.
     */
    private CancelledException named(CancelledException e) {
        if (e.expression() != null) {
            return e;
        }
        String expression = plan.logical().toString();
        CancelledException named = new CancelledException("evaluation of " + expression + " " + e.detail(), e);
        named.fillExpression(expression);
        return named;
    }

    private static org.apache.arrow.memory.OutOfMemoryException arrowOutOfMemory(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof org.apache.arrow.memory.OutOfMemoryException oom) {
                return oom;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return null;
    }

    private static final java.util.regex.Pattern NEEDED = java.util.regex.Pattern.compile("buffer of size (\\d+)");
    private static final java.util.regex.Pattern HELD = java.util.regex.Pattern.compile("Current allocation: (\\d+)");

    private QuiverOutOfMemoryException outOfMemory(org.apache.arrow.memory.OutOfMemoryException oom, int rows,
                                                   BufferAllocator allocator, Executor executor) {
        // Arrow says the size and what the allocator held only in its message; the allocator that
        // refused (the one passed, or an ancestor at its limit) is in the outcome details.
        String text = String.valueOf(oom.getMessage());
        java.util.regex.Matcher n = NEEDED.matcher(text), h = HELD.matcher(text);
        long needed = n.find() ? Long.parseLong(n.group(1)) : -1;
        long held = h.find() ? Long.parseLong(h.group(1)) : -1;
        BufferAllocator refused = oom.getOutcomeDetails()
                .map(org.apache.arrow.memory.AllocationOutcomeDetails::getFailedAllocator).orElse(allocator);
        String where = executor.where();
        return new QuiverOutOfMemoryException(plan.logical().toString(), needed, refused.getName(), refused.getLimit(),
                held, rows, where, oom);
    }

    private ColumnarValue run(VectorSchemaRoot batch, Executor executor, BufferAllocator allocator) {
        Objects.requireNonNull(batch, "batch is null");
        Objects.requireNonNull(allocator, "allocator is null");
        quiver.ensureOpen();
        int rows = batch.getRowCount();
        List<FieldVector> inputs = bind(batch, rows);
        lastBatchRows = rows;
        executor.batchColumns = inputs;
        long start = System.nanoTime();
        ColumnarValue value = plan.root().evaluate(new EvalContext(inputs, rows, config.withAllocator(allocator), executor));
        metrics.batch(executor.report(rows, System.nanoTime() - start));
        return value;
    }

    /** Runs each kernel of one evaluation where its placement (or the requested device) says. */
    private final class Executor implements KernelExecutor {
        private final Placement placement;
        private final DeviceRuntime requested;
        // Where a fused kernel of this evaluation is running (null between kernels), for an out-of-memory message;
        // references only: no string is built unless memory runs out.
        Device kernelDevice;
        /** The device a kernel failed on before it was recomputed on the CPU, or null. */
        Device failedDevice;
        /** The batch's input columns (read-only while it is evaluated): resident keys scoped to this evaluation. */
        List<FieldVector> batchColumns = List.of();
        /** The scope of this evaluation's resident keys: the caller's, or made by the first kernel that has one. */
        private dev.quiver.backend.ResidencyScope scope;
        /** Whether this evaluation closes {@link #scope} when it ends (it is not a caller's). */
        private boolean ownsScope = true;
        /** This batch's dictionary value vectors, looked up once; null before. */
        private List<FieldVector> dictionaryValues;

        /**
         * Per kernel argument, the key under which a device that copies may keep it (see
         * {@link dev.quiver.backend.ResidentKey}): a batch column by its address within this
         * evaluation, a dictionary's values by their contents across batches; null for values
         * computed during the evaluation (their memory may be reused). Empty when no device copies.
         */
        List<dev.quiver.backend.ResidentKey> residentKeys(KernelProgram program, List<FieldVector> inputs,
                                                          List<VectorView> views, int rows) {
            if (!anyDeviceCopies || placement == Placement.CPU || requested != null && !requested.copies) {
                return List.of(); // no device that copies can run it: no key is worth its cost (hashing a dictionary)
            }
            List<dev.quiver.backend.ResidentKey> keys = null;
            for (int i = 0; i < inputs.size(); i++) {
                FieldVector in = inputs.get(i);
                dev.quiver.types.ElementType t = program.argTypes().get(i);
                long bytes = t.isBitPacked() ? VectorView.validityBytes(rows) : (long) rows * t.byteWidth();
                dev.quiver.backend.ResidentKey key = null;
                if (containsIdentical(batchColumns, in)) {
                    if (scope == null) {
                        scope = new dev.quiver.backend.ResidencyScope();
                    }
                    key = dev.quiver.backend.ResidentKey.inScope(scope, views.get(i).data(), bytes);
                } else if (!decodes.isEmpty() && containsIdentical(dictionaryValues(), in)) {
                    key = dev.quiver.backend.ResidentKey.constant(views.get(i).data(), bytes);
                }
                if (key != null) {
                    if (keys == null) {
                        keys = new ArrayList<>(java.util.Collections.nCopies(inputs.size(), null));
                    }
                    keys.set(i, key);
                }
            }
            return keys == null ? List.of() : keys;
        }

        private List<FieldVector> dictionaryValues() {
            if (dictionaryValues == null) {
                List<FieldVector> values = new ArrayList<>();
                for (dev.quiver.physical.DictionaryDecodeExpr d : decodes) {
                    org.apache.arrow.vector.dictionary.Dictionary dict = d.dictionaries().lookup(d.dictionaryId());
                    if (dict != null) {
                        values.add(dict.getVector());
                    }
                }
                dictionaryValues = values;
            }
            return dictionaryValues;
        }

        /**
         * Closes this evaluation's own scope, releasing its device copies. A release that fails is
         * logged, not thrown: the result is computed, and a device that cannot release memory shows
         * its trouble on its next run.
         */
        void closeScope() {
            if (scope != null && ownsScope) {
                try {
                    scope.close();
                } catch (RuntimeException e) {
                    System.getLogger(CompiledExpression.class.getName()).log(System.Logger.Level.WARNING,
                            "releasing a batch's device copies failed: " + e.getMessage(), e);
                }
                scope = null;
            }
        }

        // What this evaluation's kernels did, for its BatchReport: one evaluation runs on one thread.
        private int kernelRuns;
        private long bytesToDevice, bytesFromDevice, kernelNanos;
        private Device firstDevice;
        private List<Device> moreDevices; // only when a second device ran a segment of the batch

        void ran(Device device, KernelRun run) {
            kernelRuns++;
            bytesToDevice += run.bytesToDevice();
            bytesFromDevice += run.bytesFromDevice();
            kernelNanos += run.nanos();
            if (firstDevice == null) {
                firstDevice = device;
            } else if (!firstDevice.equals(device) && (moreDevices == null || !moreDevices.contains(device))) {
                if (moreDevices == null) {
                    moreDevices = new ArrayList<>(2);
                }
                moreDevices.add(device);
            }
        }

        ExpressionMetrics.BatchReport report(int rows, long nanos) {
            List<String> devices;
            if (firstDevice == null) {
                devices = List.of();
            } else if (moreDevices == null) {
                devices = List.of(firstDevice.name());
            } else {
                devices = new ArrayList<>(1 + moreDevices.size());
                devices.add(firstDevice.name());
                moreDevices.forEach(d -> devices.add(d.name()));
            }
            return new ExpressionMetrics.BatchReport(rows, devices, kernelRuns, bytesToDevice, bytesFromDevice, kernelNanos, nanos);
        }

        String where() {
            if (kernelDevice == null) {
                return (requested != null ? requested.device.name() : quiver.runtime(0).device.name()) + " (host kernels)";
            }
            return kernelDevice.name() + (failedDevice == null ? " (fused kernel)"
                    : " (fused kernel, after " + failedDevice.name() + " failed)");
        }

        Executor(Placement placement, DeviceRuntime requested) {
            this.placement = placement;
            this.requested = requested;
        }

        @Override
        public Result run(KernelProgram program, List<FieldVector> args, int rows, BufferAllocator allocator, RowMode mode) {
            return run(null, program, args, rows, allocator, mode);
        }

        @Override
        public Result run(FusedKernelExpr segment, KernelProgram program, List<FieldVector> args, int rows,
                          BufferAllocator allocator, RowMode mode) {
            return runKernel(scheduler(segment, program), this, program, args, rows, allocator, mode);
        }
    }

    /**
     * The rows of {@code batch} where this Boolean expression is TRUE (NULL counts as not TRUE):
     * a new batch with every column of {@code batch}, in order, holding just those rows, allocated
     * from {@code allocator}; the caller closes it. The columns keep their fields (names, types,
     * dictionary encodings); an empty result has zero rows. Every column is copied, so every
     * column's buffers are checked, not only those the expression reads.
     *
     * @throws IllegalStateException when the expression is not Boolean, and as {@link #evaluate}
     */
    public VectorSchemaRoot filter(VectorSchemaRoot batch, Placement placement, BufferAllocator allocator) {
        Objects.requireNonNull(batch, "batch is null");
        checkCopiedColumns(batch);
        Selection keep = select(batch, placement, allocator);
        return guard(batch, allocator, new Executor(placement, null), () -> {
            List<FieldVector> out = new ArrayList<>(batch.getFieldVectors().size());
            try {
                for (FieldVector v : batch.getFieldVectors()) {
                    Cancellation.check(); // a boundary per column filtered
                    out.add(Kernels.filter(v, keep, allocator));
                }
                VectorSchemaRoot result = new VectorSchemaRoot(out);
                result.setRowCount(keep.count());
                return result;
            } catch (RuntimeException | Error e) {
                out.forEach(FieldVector::close);
                throw e;
            }
        });
    }

    Placement quiverPlacement() {
        return quiver.defaultPlacement();
    }

    BufferAllocator quiverAllocator() {
        return quiver.allocator();
    }

    /** {@link #filter(VectorSchemaRoot, Placement, BufferAllocator)} with the Quiver's placement and allocator. */
    public VectorSchemaRoot filter(VectorSchemaRoot batch) {
        return filter(batch, quiver.defaultPlacement(), quiver.allocator());
    }

    /**
     * The rows of {@code batch} where this Boolean expression is TRUE, as a {@link Selection}
     * (temporary memory comes from {@code allocator} and is freed before this returns).
     */
    public Selection select(VectorSchemaRoot batch, Placement placement, BufferAllocator allocator) {
        if (!(plan.root().dataType() instanceof DataType.Bool || plan.root().dataType() instanceof DataType.Null)) {
            throw new IllegalStateException("a filter needs a Boolean expression, but " + plan.logical() + " is "
                    + plan.root().dataType());
        }
        try (ColumnarValue v = evaluateValue(batch, placement, allocator)) {
            return Selection.ofTrue(v, batch.getRowCount());
        }
    }

    private static boolean containsIdentical(List<FieldVector> vectors, FieldVector v) {
        for (FieldVector x : vectors) {
            if (x == v) {
                return true;
            }
        }
        return false;
    }

    private KernelExecutor.Result runKernel(SegmentScheduler segment, Executor executor,
                                            KernelProgram program, List<FieldVector> inputs, int rows,
                                            BufferAllocator allocator, RowMode mode) {
        Placement placement = executor.placement;
        DeviceRuntime requested = executor.requested;
        Cancellation.check(); // before each kernel of the tree (a segment may run its body more than once)
        if (placement == Placement.AUTO && requested == null) {
            quiver.ensureCalibrated(); // once: calibrating is not the scheduler's time per batch
        }
        // The outermost kernel of a fully fused plan writes the result vector itself (no rename later).
        Field field = program == rootProgram ? outputField : new Field("result", FieldType.nullable(program.resultType().arrowType()), null);
        FieldVector out;
        try {
            out = allocate(field, rows, allocator);
        } catch (RuntimeException e) {
            executor.kernelDevice = deviceFor(segment, placement, requested, program, rows);
            executor.failedDevice = null;
            throw e;
        }
        List<VectorView> views = new ArrayList<>(inputs.size() + 1);
        Choice choice = null;
        boolean verdict = false;
        try {
            List<MemorySegment> args = new ArrayList<>(inputs.size());
            List<MemorySegment> validities = new ArrayList<>();
            for (FieldVector in : inputs) {
                VectorView view = VectorView.of(in);
                views.add(view);
                args.add(view.data());
                if (in.getNullCount() > 0) {
                    validities.add(view.validity());
                }
            }
            VectorView outView = VectorView.of(out);
            views.add(outView);
            // A non-strict program decides every row's validity itself (its null condition).
            List<MemorySegment> strictInputs = program.isStrict() ? validities : List.of();
            ValidityBitmaps.and(outView.validity(), strictInputs, rows);
            List<dev.quiver.backend.ResidentKey> keys = executor.residentKeys(program, inputs, views, rows);
            KernelInvocation invocation = new KernelInvocation(args, outView.validity(), outView.data(), rows, mode, keys);
            // Everything that can fail before the device runs has run: a probe claimed now always gets a verdict.
            // The scheduler times itself on a sample of runs: two clock reads cost a tenth of a decision.
            boolean timed = java.util.concurrent.ThreadLocalRandom.current().nextInt(ExpressionMetrics.SAMPLE) == 0;
            long t0 = timed ? System.nanoTime() : 0;
            choice = decide(segment, placement, requested, program, rows, false, resident(invocation));
            executor.kernelDevice = choice.device();
            executor.failedDevice = null;
            long t1 = timed ? System.nanoTime() : 0;
            DeviceRuntime device = quiver.runtime(choice.deviceIndex());
            long t2 = System.nanoTime();
            KernelRun run;
            try {
                run = execute(device, choice, program, invocation, rows);
                verdict = true;
            } catch (CancelledException e) {
                throw e; // between the chunks of a run: no fault of the device, and nothing to recompute
            } catch (KernelArithmeticException e) {
                // A row of the data failed (the same on every device): the device itself worked.
                device.health.success(choice.probe());
                verdict = true;
                throw e;
            } catch (RuntimeException e) {
                if (choice.deviceIndex() == 0 || requested != null) {
                    throw e;
                }
                // The device could not run the batch: it is recomputed on the CPU, with the same result.
                String what = device.device.name() + ": " + e.getMessage();
                boolean memory = isMemoryError(e);
                if (memory) {
                    // Out of device memory: the batch goes to the CPU, later batches get less of the device.
                    device.health.memoryFallback(what);
                    device.shrinkMemoryBudget((long) (rows * segment.profile.bytesPerRow()));
                } else if (e instanceof IllegalArgumentException || e instanceof UnsupportedOperationException) {
                    // This batch does not fit the device (a buffer over its limit): no fault of the device.
                    device.health.releaseProbe();
                } else {
                    device.health.failure(what, choice.probe());
                }
                verdict = true;
                segment.recordFallback(choice);
                metrics.fallback(device.device.name(), memory);
                ValidityBitmaps.and(outView.validity(), strictInputs, rows);
                choice = segment.fixed(0, rows, SegmentScheduler.Why.FALLBACK, false);
                executor.kernelDevice = choice.device();
                executor.failedDevice = device.device;
                t2 = System.nanoTime();
                run = execute(quiver.runtime(0), choice, program, invocation, rows);
            }
            long t3 = System.nanoTime();
            segment.record(choice, rows, t3 - t2);
            metrics.record(choice.device().name(), rows, run, choice);
            executor.ran(choice.device(), run);
            if (timed) {
                metrics.scheduled(t1 - t0 + System.nanoTime() - t3);
            }
            executor.kernelDevice = null;
            executor.failedDevice = null;
            return new KernelExecutor.Result(out, run.rowsComputed(), choice.device().name());
        } catch (RuntimeException | Error e) {
            if (choice != null && choice.probe() && !verdict) {
                quiver.runtime(choice.deviceIndex()).health.releaseProbe();
            }
            out.close();
            throw e;
        } finally {
            for (VectorView v : views) {
                v.close();
            }
        }
    }

    /** The device a kernel whose output could not be allocated would have run on, as the next batch would see it. */
    private Device deviceFor(SegmentScheduler segment, Placement placement, DeviceRuntime requested, KernelProgram program,
                             int rows) {
        try {
            return decide(segment, placement, requested, program, rows, true).device();
        } catch (RuntimeException e) {
            return quiver.runtime(0).device; // OPENCL with no device that can run it: that error comes later anyway
        }
    }

    private static KernelRun execute(DeviceRuntime device, Choice choice, KernelProgram program, KernelInvocation invocation,
                                     int rows) {
        if (choice.deviceIndex() == 0) {
            return device.device.backend().execute(program, invocation);
        }
        long queued = (long) choice.ownNanos();
        long bytes = device.copies ? (long) (rows * choice.segment().profile.bytesPerRow()) : 0;
        device.queuedNanos.addAndGet(queued);
        if (bytes > 0) {
            device.bytesInFlight.addAndGet(bytes);
        }
        try {
            KernelRun run = device.device.backend().execute(program, invocation);
            device.health.success(choice.probe());
            if (bytes > 0) {
                device.growMemoryBudget();
            }
            return run;
        } finally {
            device.queuedNanos.addAndGet(-queued);
            if (bytes > 0) {
                device.bytesInFlight.addAndGet(-bytes);
            }
        }
    }

    /**
     * Out of device (or driver host) memory, or a buffer too large for the device. Not
     * {@code CL_OUT_OF_RESOURCES}: drivers also report kernel faults and watchdog timeouts with it.
     */
    private static boolean isMemoryError(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof dev.quiver.opencl.OpenClException ocl) {
                int c = ocl.errorCode();
                return c == org.jocl.CL.CL_MEM_OBJECT_ALLOCATION_FAILURE || c == org.jocl.CL.CL_OUT_OF_HOST_MEMORY
                        || c == org.jocl.CL.CL_INVALID_BUFFER_SIZE;
            }
            if (t instanceof org.apache.arrow.memory.OutOfMemoryException || t instanceof OutOfMemoryError) {
                return true;
            }
        }
        return false;
    }

    /** Per device, the bytes of the invocation's arguments on it already; null when no argument has a resident key. */
    private long[] resident(KernelInvocation invocation) {
        if (invocation.resident().isEmpty()) {
            return null;
        }
        DeviceRuntime[] all = quiver.runtimes();
        long[] bytes = new long[all.length];
        for (int i = 1; i < all.length; i++) {
            bytes[i] = all[i].residentBytes(invocation);
        }
        return bytes;
    }

    private Choice decide(SegmentScheduler s, Placement placement, DeviceRuntime requested, KernelProgram program, int rows,
                          boolean peek) {
        return decide(s, placement, requested, program, rows, peek, null);
    }

    private Choice decide(SegmentScheduler s, Placement placement, DeviceRuntime requested, KernelProgram program, int rows,
                          boolean peek, long[] resident) {
        if (s.cpuOnly != null) {
            // Even on a requested device: the function's author said it must never leave the CPU.
            return s.fixed(0, rows, SegmentScheduler.Why.CPU_ONLY, false);
        }
        if (requested != null) {
            return s.fixed(requested.index, rows, SegmentScheduler.Why.REQUESTED, false);
        }
        return switch (placement) {
            case CPU -> s.fixed(0, rows, SegmentScheduler.Why.PLACEMENT_CPU, false);
            case AUTO -> s.auto(program, rows, peek, resident);
            case OPENCL -> {
                List<String> why = new ArrayList<>();
                boolean fenced = false, noMemory = false;
                DeviceRuntime[] all = quiver.runtimes();
                for (int i = 1; i < all.length; i++) {
                    DeviceRuntime d = all[i];
                    if (!d.device.isOpenCl()) {
                        continue;
                    }
                    Optional<String> reason = unsupportedOn(d.device, program);
                    if (reason.isPresent()) {
                        why.add(d.device.name() + ": " + reason.get());
                        continue;
                    }
                    if (!d.fits((long) (rows * s.profile.bytesPerRow()), (long) rows * 8)) {
                        noMemory = true;
                        continue;
                    }
                    if (d.health.isHealthy()) {
                        yield s.fixed(i, rows, SegmentScheduler.Why.PLACEMENT_OPENCL, false);
                    }
                    if (!peek && d.health.tryProbe()) {
                        yield s.fixed(i, rows, SegmentScheduler.Why.PROBE, true);
                    }
                    fenced = true;
                }
                if (fenced || noMemory) {
                    yield s.fixed(0, rows, fenced ? SegmentScheduler.Why.FENCED : SegmentScheduler.Why.NO_MEMORY, false);
                }
                throw new dev.quiver.errors.DeviceException("placement OPENCL, but no OpenCL device can run " + program.text() + ": "
                        + (why.isEmpty() ? quiver.openClStatus() : String.join("; ", why)));
            }
        };
    }

    /**
     * The device {@code placement} picks for a batch of {@code rows} rows, for the outermost
     * kernel, and why, as the next batch would see it (without exploring or probing).
     */
    public Choice choose(Placement placement, int rows) {
        if (segmentList.isEmpty()) {
            SegmentScheduler none = new SegmentScheduler(this, "(none)", new KernelProgram(List.of(),
                    dev.quiver.rowfn.ir.Ir.lit(0.0)), null, quiver.runtimes(), 0);
            return none.fixed(0, rows, SegmentScheduler.Why.NO_KERNEL, false);
        }
        SegmentScheduler s = segmentList.getFirst();
        return decide(s, placement, null, s.program, rows, true);
    }

    Optional<String> unsupportedOn(Device device, KernelProgram program) {
        // get before computeIfAbsent: the latter may lock a bin even when the key is there.
        Map<KernelProgram, Optional<String>> byProgram = unsupported.get(device);
        if (byProgram == null) {
            byProgram = unsupported.computeIfAbsent(device, d -> new ConcurrentHashMap<>());
        }
        Optional<String> known = byProgram.get(program);
        return known != null ? known : byProgram.computeIfAbsent(program, p -> device.backend().unsupportedReason(p));
    }

    /**
     * A placement decision: the device, why, and the estimate it was made on.
     */
    public static final class Choice {
        private final Device device;
        private final int deviceIndex;
        private final SegmentScheduler.Why why;
        private final double rawEstimateNanos;
        private final double ownNanos;
        private final double estimatedNanos;
        private final boolean exploration;
        private final boolean probe;
        private final SegmentScheduler segment;

        Choice(Device device, int deviceIndex, SegmentScheduler.Why why, double rawEstimateNanos, double ownNanos,
               double estimatedNanos, boolean exploration, boolean probe, SegmentScheduler segment) {
            this.ownNanos = ownNanos;
            this.device = device;
            this.deviceIndex = deviceIndex;
            this.why = why;
            this.rawEstimateNanos = rawEstimateNanos;
            this.estimatedNanos = estimatedNanos;
            this.exploration = exploration;
            this.probe = probe;
            this.segment = segment;
        }

        public Device device() {
            return device;
        }

        int deviceIndex() {
            return deviceIndex;
        }

        SegmentScheduler.Why why() {
            return why;
        }

        SegmentScheduler segment() {
            return segment;
        }

        /** Why this device: the placement, a cpuOnly function, the fastest estimate, an exploration, a probe, a fallback. */
        public String reason() {
            return why.text + (estimatedNanos > 0 ? String.format(java.util.Locale.ROOT, ", estimated %.3f ms",
                    estimatedNanos / 1e6) : "");
        }

        /** The estimate with the learnt correction and the device's queue (0 when the device's figures were not needed). */
        public double estimatedNanos() {
            return estimatedNanos;
        }

        double rawEstimateNanos() {
            return rawEstimateNanos;
        }

        /** The device's own time for the batch as estimated (corrected), without the work queued before it. */
        double ownNanos() {
            return ownNanos;
        }

        /** Whether AUTO sent this batch to refresh a stale estimate rather than to the fastest device. */
        public boolean exploration() {
            return exploration;
        }

        /** Whether this batch tests a device after its fence ended. */
        public boolean probe() {
            return probe;
        }

        @Override
        public String toString() {
            return device.name() + " (" + reason() + ")";
        }
    }

    /** {@link #explain(boolean) explain(true)}: the plans, placement estimates and what has run. */
    public String explain() {
        return explain(true);
    }

    /**
     * The plans, the devices, and per kernel segment the estimated time on each device at the
     * last batch size evaluated ({@link #DEFAULT_EXPLAIN_ROWS} before any), with the batch size
     * from which each OpenCL device is estimated faster than the CPU; with {@code analyze}, also
     * what has run: batches and time per device, estimated against measured per segment,
     * explorations, fallbacks, device health and the scheduler's own time per decision.
     * Estimating calibrates the devices if that has not happened yet.
     */
    public String explain(boolean analyze) {
        int rows = lastBatchRows;
        return explain(analyze, rows > 0 ? rows : DEFAULT_EXPLAIN_ROWS);
    }

    /** {@link #explain(boolean)} with estimates for batches of {@code batchRows} rows. */
    public String explain(boolean analyze, int batchRows) {
        if (batchRows < 1) {
            throw new IllegalArgumentException("batchRows must be >= 1, got " + batchRows);
        }
        StringBuilder sb = new StringBuilder(plan.explain());
        List<KernelProgram> ps = plan.programs();
        DeviceRuntime[] runtimes = quiver.runtimes();
        if (!ps.isEmpty()) {
            sb.append("Devices:\n");
            for (DeviceRuntime rt : runtimes) {
                Device d = rt.device;
                List<String> cannot = new ArrayList<>();
                for (KernelProgram p : ps) {
                    unsupportedOn(d, p).ifPresent(cannot::add);
                }
                sb.append("  ").append(d.name()).append(": ").append(cannot.isEmpty() ? "can run every kernel" : "cannot run: "
                        + String.join("; ", cannot));
                d.transferMode().ifPresent(m -> sb.append("; transfer ").append(m.label()));
                if (d.isOpenCl()) {
                    sb.append("; ").append(rt.health.snapshot().describe());
                }
                sb.append('\n');
            }
            if (quiver.openClDevices().isEmpty()) {
                sb.append("  OpenCL: ").append(quiver.openClStatus()).append('\n');
            }
            sb.append(String.format(java.util.Locale.ROOT, "Placement (auto) at %d rows per batch:%n", batchRows));
            for (SegmentScheduler s : segmentList) {
                sb.append("  segment ").append(s.text).append(": ").append(s.profile.describe()).append('\n');
                if (s.cpuOnly != null) {
                    sb.append("    runs on the cpu only: ").append(s.cpuOnly).append(" cpuOnly\n");
                    continue;
                }
                dev.quiver.placement.CostModel.Estimate[] est = s.estimates(batchRows);
                int best = -1;
                double bestTotal = Double.POSITIVE_INFINITY;
                for (int i = 0; i < est.length; i++) {
                    if (est[i] != null && (i == 0 || runtimes[i].health.state() == DeviceHealth.State.HEALTHY
                            || runtimes[i].health.state() == DeviceHealth.State.PROBE_DUE)
                            && (i == 0 || runtimes[i].fits((long) (batchRows * s.profile.bytesPerRow()), batchRows * 8L))
                            && corrected(est[i], s.correction(i, batchRows)) < bestTotal) {
                        best = i;
                        bestTotal = corrected(est[i], s.correction(i, batchRows));
                    }
                }
                for (int i = 0; i < est.length; i++) {
                    sb.append("    ").append(runtimes[i].device.name()).append(": ");
                    if (est[i] == null) {
                        sb.append("cannot run it\n");
                        continue;
                    }
                    double c = s.correction(i, batchRows);
                    sb.append(est[i].describe());
                    if (c != 1) {
                        sb.append(String.format(java.util.Locale.ROOT, " x%.2f learnt = %s", c,
                                dev.quiver.placement.CostModel.ms(corrected(est[i], c))));
                    }
                    sb.append(i == best ? "  <- auto" : "").append('\n');
                }
                for (int i = 1; i < est.length; i++) {
                    if (est[i] != null) {
                        Optional<Long> x = s.crossover(i);
                        sb.append("    ").append(runtimes[i].device.name()).append(x.map(r -> " is estimated faster than the cpu from "
                                + r + " rows per batch").orElse(" is not estimated faster than the cpu below 2^31 rows")).append('\n');
                    }
                }
            }
        }
        List<dev.quiver.rowfn.RowFn> rowFns = rowFns(plan.root(), new ArrayList<>());
        if (!rowFns.isEmpty()) {
            sb.append("RowFns (counted since each was declared, in every expression):\n");
            for (dev.quiver.rowfn.RowFn f : rowFns) {
                sb.append("  ").append(f.name()).append(": ").append(f.stats()).append('\n');
            }
        }
        if (analyze) {
            sb.append(metrics.describe());
            for (SegmentScheduler s : segmentList) {
                dev.quiver.placement.SegmentStats st = s.stats();
                if (st.devices().stream().allMatch(o -> o.batches() == 0 && o.fallbacks() == 0)) {
                    continue;
                }
                sb.append("  segment ").append(s.text).append(" (").append(st.decisions()).append(" auto decisions):\n");
                for (dev.quiver.placement.SegmentStats.OnDevice o : st.devices()) {
                    if (o.batches() > 0 || o.fallbacks() > 0) {
                        sb.append("    ").append(o.describe()).append('\n');
                    }
                }
            }
        }
        return sb.toString();
    }

    /** An estimate with a learnt correction: the device's own time scaled, the queue before it as it is. */
    private static double corrected(dev.quiver.placement.CostModel.Estimate e, double correction) {
        return (e.totalNanos() - e.queueNanos()) * correction + e.queueNanos();
    }

    /** Per kernel segment, in plan order: what ran where, estimated against measured. */
    public List<dev.quiver.placement.SegmentStats> placementStats() {
        return segmentList.stream().map(SegmentScheduler::stats).toList();
    }

    private static List<dev.quiver.rowfn.RowFn> rowFns(dev.quiver.physical.PhysicalExpr root, List<dev.quiver.rowfn.RowFn> out) {
        for (dev.quiver.physical.PhysicalExpr e : dev.quiver.planning.PhysicalPlan.preOrder(root)) {
            if (e instanceof dev.quiver.physical.FusedKernelExpr f) {
                for (dev.quiver.rowfn.RowFn r : f.rowFns()) {
                    if (!out.contains(r)) {
                        out.add(r);
                    }
                }
            }
        }
        return out;
    }

    /**
     * The batch's vectors for the plan's inputs, checked before anything computes on them: each
     * has the planned type (and dictionary) and the batch's rows, its buffers hold those rows
     * ({@link BatchValidation#checkColumn}: O(1) per column, one pass over the offsets of string
     * and list columns), and a dictionary-encoded column's non-null indices are within its
     * dictionary. A column is read at the position it was planned at when the batch has a column
     * of that name there, else by name when the batch has exactly one column of that name.
     */
    private List<FieldVector> bind(VectorSchemaRoot batch, int rows) {
        if (rows < 0) {
            throw new dev.quiver.errors.InputException("the batch declares " + rows + " rows");
        }
        List<FieldVector> all = batch.getFieldVectors();
        List<FieldVector> inputs = new ArrayList<>(plan.columns().size());
        for (int i = 0; i < plan.columns().size(); i++) {
            Field f = plan.columns().get(i);
            FieldVector v = vectorFor(all, f.getName(), plan.schemaIndexes().get(i));
            if (v.getField().getDictionary() != null && f.getDictionary() == null) {
                throw input(f, "column '" + f.getName() + "' is dictionary-encoded in the batch (indices "
                        + v.getField().getType() + ") but was planned as " + f.getType() + ": decode it first");
            }
            if (f.getDictionary() != null && (v.getField().getDictionary() == null
                    || v.getField().getDictionary().getId() != f.getDictionary().getId())) {
                throw input(f, "column '" + f.getName() + "' was planned dictionary-encoded with dictionary "
                        + f.getDictionary().getId() + " but the batch's column " + (v.getField().getDictionary() == null
                        ? "is not dictionary-encoded" : "uses dictionary " + v.getField().getDictionary().getId()));
            }
            if (!v.getField().getType().equals(f.getType())) {
                throw input(f, "column '" + f.getName() + "' is " + v.getField().getType()
                        + " in the batch but was planned as " + f.getType());
            }
            if (v.getValueCount() != rows) {
                throw input(f, "column '" + f.getName() + "' has " + v.getValueCount()
                        + " values but the batch has " + rows + " rows");
            }
            BatchValidation.checkColumn(v, f.getName());
            if (f.getDictionary() != null) {
                FieldVector values = dictionaryValues(f.getDictionary().getId());
                if (values != null) { // none: the decode says so when it runs
                    BatchValidation.checkDictionaryIndices(v, f.getName(), values);
                }
            }
            inputs.add(v);
        }
        return inputs;
    }

    private static dev.quiver.errors.InputException input(Field f, String detail) {
        return (dev.quiver.errors.InputException) new dev.quiver.errors.InputException(detail).fillColumn(f.getName());
    }

    /**
     * The column named {@code name} that was planned at schema position {@code plannedAt}: the
     * batch's column there when it has that name (a schema may repeat names the expression does
     * not read), else the batch's only column of that name.
     */
    private static FieldVector vectorFor(List<FieldVector> columns, String name, int plannedAt) {
        if (plannedAt < columns.size() && columns.get(plannedAt).getName().equals(name)) {
            return columns.get(plannedAt);
        }
        FieldVector found = null;
        for (FieldVector v : columns) {
            if (v.getName().equals(name)) {
                if (found != null) {
                    throw (dev.quiver.errors.InputException) new dev.quiver.errors.InputException("the batch has several columns named '"
                            + name + "' and none at position " + plannedAt + ", where it was planned: which one to read is ambiguous")
                            .fillColumn(name);
                }
                found = v;
            }
        }
        if (found == null) {
            throw (dev.quiver.errors.InputException) new dev.quiver.errors.InputException("the batch has no column '" + name
                    + "' (it was planned against a schema with it)").fillColumn(name);
        }
        return found;
    }

    /** The values of the plan's dictionary {@code id} as its decode will read them this batch, or null. */
    private FieldVector dictionaryValues(long id) {
        for (dev.quiver.physical.DictionaryDecodeExpr d : decodes) {
            if (d.dictionaryId() == id) {
                org.apache.arrow.vector.dictionary.Dictionary dict = d.dictionaries().lookup(id);
                return dict == null ? null : dict.getVector();
            }
        }
        return null;
    }

    /**
     * Checks the columns {@link #filter} copies without the expression reading them (those it
     * reads, {@link #bind} checks): copying reads their buffers too.
     */
    private void checkCopiedColumns(VectorSchemaRoot batch) {
        try {
            List<FieldVector> all = batch.getFieldVectors();
            for (int i = 0; i < all.size(); i++) {
                FieldVector v = all.get(i);
                int pos = plan.schemaIndexes().indexOf(i);
                if (pos >= 0 && plan.columns().get(pos).getName().equals(v.getName())) {
                    continue;
                }
                if (v.getValueCount() != batch.getRowCount()) {
                    throw (dev.quiver.errors.InputException) new dev.quiver.errors.InputException("column '" + v.getName() + "' has "
                            + v.getValueCount() + " values but the batch has " + batch.getRowCount() + " rows").fillColumn(v.getName());
                }
                BatchValidation.checkColumn(v, v.getName());
            }
        } catch (dev.quiver.errors.QuiverException e) {
            e.fillExpression(plan.logical().toString());
            throw e;
        }
    }

    private FieldVector allocate(Field field, int rows, BufferAllocator allocator) {
        try {
            return OutputVectors.uninitialized(field, rows, allocator);
        } catch (RuntimeException e) {
            throw new dev.quiver.errors.ResourceException("cannot allocate the " + rows + "-row result of " + outputField.getName()
                    + " from allocator '" + allocator.getName() + "': " + e.getMessage(), e);
        }
    }

    /** The value as a vector the caller owns, named as {@link #outputField()}. */
    private FieldVector toVector(ColumnarValue v, int rows, BufferAllocator allocator) {
        return switch (v) {
            case ColumnarValue.Scalar s -> {
                try {
                    yield rename(Values.broadcast(s.value(), outputField.getName(), rows, allocator), allocator);
                } catch (org.apache.arrow.memory.OutOfMemoryException e) {
                    throw new dev.quiver.errors.ResourceException("cannot allocate the " + rows + "-row result of " + outputField.getName()
                            + " from allocator '" + allocator.getName() + "': " + e.getMessage(), e);
                }
            }
            case ColumnarValue.Array a when !a.owned() && a.vector() instanceof org.apache.arrow.vector.NullVector -> {
                yield new org.apache.arrow.vector.NullVector(outputField, rows);
            }
            case ColumnarValue.Array a when !a.owned() ->
                // A column of the batch itself: the caller gets a copy it can close.
                    rename(Kernels.filter(a.vector(), Selection.all(rows), allocator), allocator);
            case ColumnarValue.Array a -> rename(a.vector(), allocator);
        };
    }

    private FieldVector rename(FieldVector v, BufferAllocator allocator) {
        if (v.getField().equals(outputField)) {
            return v;
        }
        try (v) {
            TransferPair tp = v.getTransferPair(outputField, allocator);
            tp.transfer();
            return (FieldVector) tp.getTo();
        }
    }
}
