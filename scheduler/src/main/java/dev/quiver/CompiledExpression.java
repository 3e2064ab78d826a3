package dev.quiver;

import dev.quiver.backend.ResidencyScope;
import dev.quiver.cancel.Cancellation;
import dev.quiver.errors.CancelledException;
import dev.quiver.errors.QuiverException;
import dev.quiver.expr.ExprThreads;
import dev.quiver.functions.ExecutionConfig;
import dev.quiver.kernels.Kernels;
import dev.quiver.kernels.Selection;
import dev.quiver.physical.ConjunctionExpr;
import dev.quiver.physical.EvalContext;
import dev.quiver.physical.FusedKernelExpr;
import dev.quiver.physical.PhysicalExpr;
import dev.quiver.physical.SharedValues;
import dev.quiver.placement.Choice;
import dev.quiver.placement.Evaluation;
import dev.quiver.placement.KernelDispatcher;
import dev.quiver.placement.PlacementExplain;
import dev.quiver.placement.SegmentStats;
import dev.quiver.planning.PhysicalPlan;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * An expression planned against a schema, ready to evaluate batch after batch.
 *
 * <p>Per batch it checks the batch against the plan, and the buffers of the columns it reads
 * against their lengths ({@link dev.quiver.validation.BatchValidation}: a malformed batch is an
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
    private final ExpressionMetrics metrics = new ExpressionMetrics();
    /** Where each fused kernel of each batch runs: the placement component. */
    private final KernelDispatcher dispatcher;

    private final BatchBinder binder;
    private volatile int lastBatchRows;

    CompiledExpression(Quiver quiver, PhysicalPlan plan, ExecutionConfig config) {
        this.quiver = quiver;
        this.plan = plan;
        this.config = config;
        DataType t = plan.outputType().valueType();
        this.outputField = t.toField(plan.outputName(), true);
        this.dispatcher = new KernelDispatcher(quiver.placementDevices(), plan, outputField, metrics.recorder());
        this.binder = new BatchBinder(plan, dispatcher.decodes());
        this.deep = PhysicalPlan.depth(plan.root()) > SHALLOW
                || plan.programs().stream()
                        .anyMatch(p -> KernelProgram.depth(p.root(), SHALLOW_PROGRAM) > SHALLOW_PROGRAM
                                || p.nullWhen().isPresent()
                                        && KernelProgram.depth(p.nullWhen().get(), SHALLOW_PROGRAM) > SHALLOW_PROGRAM);
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
            throw new IllegalStateException(
                    "the plan of " + plan.logical() + " runs no fused kernel:\n" + plan.explain());
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
    public FieldVector evaluate(
            VectorSchemaRoot batch, Placement placement, BufferAllocator allocator, ResidencyScope shared) {
        Objects.requireNonNull(placement, "placement is null");
        Evaluation evaluation = dispatcher.evaluation(placement, shared);
        return guard(
                batch,
                allocator,
                evaluation,
                () -> ResultVector.of(
                        run(batch, evaluation, allocator, null), outputField, batch.getRowCount(), allocator, false));
    }

    /**
     * For {@link CompiledProjection}: evaluates over the rows {@code kept} keeps of {@code batch}
     * (every row when null), reading each column through {@code kept} (compacted once for the whole
     * projection), and returns a new vector of those rows the caller owns. A result that is a column
     * itself (of the batch, or its compacted rows) shares that column's buffers
     * ({@link SharedColumns}) instead of copying them; so does one that is a shared subtree's value
     * kept in {@code values} (the projection's, for those rows: see {@link SharedValues}).
     */
    FieldVector project(
            VectorSchemaRoot batch,
            KeptRows kept,
            Placement placement,
            BufferAllocator allocator,
            ResidencyScope shared,
            SharedValues values) {
        Objects.requireNonNull(placement, "placement is null");
        Evaluation evaluation = dispatcher.evaluation(placement, shared);
        int rows = kept == null ? batch.getRowCount() : kept.rows();
        return guard(batch, rows, allocator, evaluation, () -> {
            List<FieldVector> inputs = binder.bind(batch, batch.getRowCount(), values);
            // On kept rows, each column is compacted when a node first reads it: one only a value the filter
            // computed reads (gathered from it) is never compacted.
            ColumnarValue value = kept == null
                    ? runOn(inputs, rows, evaluation, allocator, values)
                    : runOn(
                            kept.compactedView(inputs),
                            rows,
                            evaluation,
                            cfg -> new EvalContext(
                                    inputs.size(), i -> kept.column(inputs.get(i)), rows, cfg, evaluation, values),
                            allocator);
            return ResultVector.of(value, outputField, rows, allocator, true);
        });
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
        Evaluation evaluation = dispatcher.evaluation(placement, null);
        return guard(batch, allocator, evaluation, () -> run(batch, evaluation, allocator, null));
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
        Evaluation evaluation = dispatcher.evaluationOn(device);
        return guard(
                batch,
                allocator,
                evaluation,
                () -> ResultVector.of(
                        run(batch, evaluation, allocator, null), outputField, batch.getRowCount(), allocator, false));
    }

    /**
     * Runs one evaluation; Arrow's {@link org.apache.arrow.memory.OutOfMemoryException}, wherever
     * it was raised (and however a kernel wrapped it), leaves as a {@link QuiverOutOfMemoryException}
     * that names this expression. Every node closes what it allocated before its exception leaves,
     * so the allocator is back where it was by the time this sees the exception.
     */
    private <T> T guard(VectorSchemaRoot batch, BufferAllocator allocator, Evaluation evaluation, Supplier<T> body) {
        Objects.requireNonNull(batch, "batch is null");
        return guard(batch, batch.getRowCount(), allocator, evaluation, body);
    }

    /** As above, for an evaluation over {@code rows} rows of {@code batch} (what an out-of-memory message names). */
    private <T> T guard(
            VectorSchemaRoot batch, int rows, BufferAllocator allocator, Evaluation evaluation, Supplier<T> body) {
        Objects.requireNonNull(batch, "batch is null");
        Objects.requireNonNull(allocator, "allocator is null");
        try {
            Cancellation.check(); // cancelled (or interrupted) before it started: nothing is allocated
            // Evaluation recurses over the tree: a deep one runs on a thread with a stack for it.
            return deep ? ExprThreads.call(quiver.limits().stackBytes(), body) : body.get();
        } catch (QuiverOutOfMemoryException e) {
            throw e;
        } catch (CancelledException e) {
            throw named(e);
        } catch (RuntimeException e) {
            OutOfMemoryException oom = QuiverOutOfMemoryException.arrowCause(e);
            if (oom == null) {
                if (e instanceof QuiverException q) {
                    q.fillExpression(plan.logical().toString());
                }
                throw e;
            }
            QuiverOutOfMemoryException clear =
                    QuiverOutOfMemoryException.of(oom, plan.logical().toString(), rows, allocator, evaluation.where());
            if (e != oom) {
                clear.addSuppressed(e); // how a kernel reported it, for the stack trace
            }
            throw clear;
        } finally {
            evaluation.close(); // nothing of this batch stays on any device
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

    private ColumnarValue run(
            VectorSchemaRoot batch, Evaluation evaluation, BufferAllocator allocator, SharedValues values) {
        int rows = batch.getRowCount();
        return runOn(binder.bind(batch, rows, values), rows, evaluation, allocator, values);
    }

    /**
     * Evaluates the plan over {@code inputs} (bound and checked: the plan's columns, in input order)
     * of {@code rows} rows; shared subtrees computed on every row are kept in {@code values} when
     * given (for the other expressions of a projection), else in this evaluation's context.
     */
    private ColumnarValue runOn(
            List<FieldVector> inputs, int rows, Evaluation evaluation, BufferAllocator allocator, SharedValues values) {
        return runOn(
                inputs, rows, evaluation, cfg -> new EvalContext(inputs, rows, cfg, evaluation, values), allocator);
    }

    /**
     * As above, in the context {@code context} makes from the evaluation's configuration; {@code inputs}
     * are the batch's columns as the kernels will see them (a live view where they are bound lazily).
     */
    private ColumnarValue runOn(
            List<FieldVector> inputs,
            int rows,
            Evaluation evaluation,
            Function<ExecutionConfig, EvalContext> context,
            BufferAllocator allocator) {
        quiver.ensureOpen();
        lastBatchRows = rows;
        evaluation.batchColumns(inputs);
        long start = System.nanoTime();
        ColumnarValue value;
        // The context keeps the values of shared subtrees for the batch: freed with it, unless the root is one.
        try (EvalContext ctx = context.apply(config.withAllocator(allocator))) {
            value = ctx.release(plan.root().evaluate(ctx));
        }
        metrics.batch(evaluation.report(rows, System.nanoTime() - start));
        return value;
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
        binder.checkCopiedColumns(batch);
        Selection keep = select(batch, placement, allocator);
        return guard(batch, allocator, dispatcher.evaluation(placement, null), () -> {
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
        return select(batch, placement, allocator, null);
    }

    /**
     * For {@link CompiledProjection}: as {@link #select(VectorSchemaRoot, Placement, BufferAllocator)},
     * keeping the shared subtrees computed on every row in {@code values} (the batch's, for the
     * projection to read through the selection); null: none kept.
     */
    Selection select(VectorSchemaRoot batch, Placement placement, BufferAllocator allocator, SharedValues values) {
        if (!(plan.root().dataType() instanceof DataType.Bool || plan.root().dataType() instanceof DataType.Null)) {
            throw new IllegalStateException("a filter needs a Boolean expression, but " + plan.logical() + " is "
                    + plan.root().dataType());
        }
        Objects.requireNonNull(placement, "placement is null");
        Evaluation evaluation = dispatcher.evaluation(placement, null);
        try (ColumnarValue v = guard(batch, allocator, evaluation, () -> run(batch, evaluation, allocator, values))) {
            return Selection.ofTrue(v, batch.getRowCount());
        }
    }

    /**
     * The device {@code placement} picks for a batch of {@code rows} rows, for the outermost
     * kernel, and why, as the next batch would see it (without exploring or probing).
     */
    public Choice choose(Placement placement, int rows) {
        return dispatcher.choose(placement, rows);
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
        if (!plan.programs().isEmpty()) {
            PlacementExplain.devices(sb, dispatcher, plan.programs());
            PlacementExplain.placement(sb, dispatcher, batchRows);
        }
        List<RowFn> rowFns = rowFns(plan.root());
        if (!rowFns.isEmpty()) {
            sb.append("RowFns (counted since each was declared, in every expression):\n");
            for (RowFn f : rowFns) {
                sb.append("  ").append(f.name()).append(": ").append(f.stats()).append('\n');
            }
        }
        if (analyze) {
            sb.append(metrics.describe());
            PlacementExplain.ran(sb, dispatcher);
            conjuncts(sb, plan.root());
        }
        return sb.toString();
    }

    /** Per kernel segment, in plan order: what ran where, estimated against measured. */
    public List<SegmentStats> placementStats() {
        return dispatcher.stats();
    }

    /** Each adaptive AND/OR chain's order now and its terms' measured selectivity and cost. */
    private static void conjuncts(StringBuilder sb, PhysicalExpr root) {
        boolean first = true;
        for (PhysicalExpr e : PhysicalPlan.preOrder(root)) {
            if (e instanceof ConjunctionExpr c) {
                if (first) {
                    sb.append("Adaptive AND/OR order (terms numbered as written; -D")
                            .append("quiver.conjuncts.adaptive=false keeps written order):\n");
                    first = false;
                }
                for (String line : c.analyze().split("\n")) {
                    sb.append("  ").append(line).append('\n');
                }
            }
        }
    }

    private static List<RowFn> rowFns(PhysicalExpr root) {
        List<RowFn> out = new ArrayList<>();
        for (PhysicalExpr e : PhysicalPlan.preOrder(root)) {
            if (e instanceof FusedKernelExpr f) {
                for (RowFn r : f.rowFns()) {
                    if (!out.contains(r)) {
                        out.add(r);
                    }
                }
            }
        }
        return out;
    }
}
