package dev.quiver;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
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
import java.util.function.Function;

/**
 * An expression planned against a schema, ready to evaluate batch after batch. Thread-safe:
 * several threads may evaluate different batches at once.
 *
 * <p>Per batch it checks the batch against the plan and evaluates the physical tree once:
 * each node runs over whole columns; each fused numeric subtree runs as one kernel on the
 * device {@link Placement} picks for the batch, reading the batch's own memory. On any
 * failure everything allocated for the batch is freed before the exception leaves.
 */
public final class CompiledExpression {
    /** Smallest batch {@link Placement#AUTO} sends to an OpenCL GPU. */
    public static final int AUTO_GPU_MIN_ROWS = 1 << 20;

    private final Quiver quiver;
    private final PhysicalPlan plan;
    private final ExecutionConfig config;
    private final Field outputField;
    private final KernelProgram rootProgram;
    private final ExpressionMetrics metrics = new ExpressionMetrics();
    /** Whether each device can run each program: fixed per program and device, asked on every batch. */
    private final Map<Device, Map<KernelProgram, Optional<String>>> unsupported = new ConcurrentHashMap<>();

    CompiledExpression(Quiver quiver, PhysicalPlan plan, ExecutionConfig config) {
        this.quiver = quiver;
        this.plan = plan;
        this.config = config;
        DataType t = plan.outputType().valueType();
        this.outputField = t.toField(plan.outputName(), true);
        this.rootProgram = plan.root() instanceof dev.quiver.physical.FusedKernelExpr f ? f.program() : null;
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
     * @throws IllegalArgumentException when the batch does not match the planned schema or its
     *                                  columns have different lengths, or a CAST meets a value
     *                                  that does not convert
     * @throws IllegalStateException    when {@code placement} is OPENCL and no OpenCL device can
     *                                  run a fused kernel of the expression (the message says
     *                                  why), or the allocator cannot give memory
     * @throws ArithmeticException      when a non-null row divides an integer by zero
     */
    public FieldVector evaluate(VectorSchemaRoot batch, Placement placement, BufferAllocator allocator) {
        return toVector(evaluateValue(batch, placement, allocator), batch.getRowCount(), allocator);
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
        Objects.requireNonNull(batch, "batch is null");
        int rows = batch.getRowCount();
        return run(batch, program -> choose(placement, rows, program), allocator);
    }

    /**
     * Evaluates with every fused kernel on one named device, as
     * {@link #evaluate(VectorSchemaRoot, Placement, BufferAllocator)} does. Throws
     * {@link IllegalStateException} when that device cannot run one of them.
     */
    public FieldVector evaluate(VectorSchemaRoot batch, Device device, BufferAllocator allocator) {
        Objects.requireNonNull(device, "device is null");
        for (KernelProgram p : plan.programs()) {
            unsupportedOn(device, p).ifPresent(r -> {
                throw new IllegalStateException(device.name() + " cannot run " + p.text() + ": " + r);
            });
        }
        Choice choice = new Choice(device, "device " + device.name() + " requested");
        return toVector(run(batch, program -> choice, allocator), batch.getRowCount(), allocator);
    }

    private ColumnarValue run(VectorSchemaRoot batch, Function<KernelProgram, Choice> chooser, BufferAllocator allocator) {
        Objects.requireNonNull(batch, "batch is null");
        Objects.requireNonNull(allocator, "allocator is null");
        quiver.ensureOpen();
        int rows = batch.getRowCount();
        List<FieldVector> inputs = bind(batch, rows);
        KernelExecutor kernels = (program, args, n, alloc, mode) -> runKernel(chooser.apply(program), program, args, n, alloc, mode);
        return plan.root().evaluate(new EvalContext(inputs, rows, config.withAllocator(allocator), kernels));
    }

    /**
     * The rows of {@code batch} where this Boolean expression is TRUE (NULL counts as not TRUE):
     * a new batch with every column of {@code batch}, in order, holding just those rows, allocated
     * from {@code allocator}; the caller closes it. The columns keep their fields (names, types,
     * dictionary encodings); an empty result has zero rows.
     *
     * @throws IllegalStateException when the expression is not Boolean, and as {@link #evaluate}
     */
    public VectorSchemaRoot filter(VectorSchemaRoot batch, Placement placement, BufferAllocator allocator) {
        Selection keep = select(batch, placement, allocator);
        List<FieldVector> out = new ArrayList<>(batch.getFieldVectors().size());
        try {
            for (FieldVector v : batch.getFieldVectors()) {
                out.add(Kernels.filter(v, keep, allocator));
            }
            VectorSchemaRoot result = new VectorSchemaRoot(out);
            result.setRowCount(keep.count());
            return result;
        } catch (RuntimeException | Error e) {
            out.forEach(FieldVector::close);
            throw e;
        }
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

    private KernelExecutor.Result runKernel(Choice choice, KernelProgram program, List<FieldVector> inputs, int rows,
                                            BufferAllocator allocator, RowMode mode) {
        // The outermost kernel of a fully fused plan writes the result vector itself (no rename later).
        Field field = program == rootProgram ? outputField : new Field("result", FieldType.nullable(program.resultType().arrowType()), null);
        FieldVector out = allocate(field, rows, allocator);
        List<VectorView> views = new ArrayList<>(inputs.size() + 1);
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
            ValidityBitmaps.and(outView.validity(), program.isStrict() ? validities : List.of(), rows);
            KernelRun run = choice.device().backend().execute(program,
                    new KernelInvocation(args, outView.validity(), outView.data(), rows, mode));
            metrics.record(choice.device().name(), rows, run, choice.reason());
            return new KernelExecutor.Result(out, run.rowsComputed(), choice.device().name());
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        } finally {
            for (VectorView v : views) {
                v.close();
            }
        }
    }

    /** The device {@code placement} picks for a batch of {@code rows} rows, for the outermost kernel, and why. */
    public Choice choose(Placement placement, int rows) {
        List<KernelProgram> ps = plan.programs();
        if (ps.isEmpty()) {
            return new Choice(quiver.cpu(), "no fused kernel: the plan runs on the calling thread");
        }
        return choose(placement, rows, ps.getFirst());
    }

    private Choice choose(Placement placement, int rows, KernelProgram program) {
        return switch (placement) {
            case CPU -> new Choice(quiver.cpu(), "placement CPU");
            case OPENCL -> {
                List<String> why = new ArrayList<>();
                for (Device d : quiver.openClDevices()) {
                    Optional<String> reason = unsupportedOn(d, program);
                    if (reason.isEmpty()) {
                        yield new Choice(d, "placement OPENCL");
                    }
                    why.add(d.name() + ": " + reason.get());
                }
                throw new IllegalStateException("placement OPENCL, but no OpenCL device can run " + program.text() + ": "
                        + (why.isEmpty() ? quiver.openClStatus() : String.join("; ", why)));
            }
            case AUTO -> {
                if (rows >= AUTO_GPU_MIN_ROWS) {
                    for (Device d : quiver.openClDevices()) {
                        if (d.kind() == Device.Kind.OPENCL_GPU && unsupportedOn(d, program).isEmpty()) {
                            yield new Choice(d, "auto: " + rows + " rows >= " + AUTO_GPU_MIN_ROWS + " on a GPU");
                        }
                    }
                    yield new Choice(quiver.cpu(), "auto: no OpenCL GPU can run it");
                }
                yield new Choice(quiver.cpu(), "auto: " + rows + " rows < " + AUTO_GPU_MIN_ROWS);
            }
        };
    }

    private Optional<String> unsupportedOn(Device device, KernelProgram program) {
        return unsupported.computeIfAbsent(device, d -> new ConcurrentHashMap<>())
                .computeIfAbsent(program, p -> device.backend().unsupportedReason(p));
    }

    /** A placement decision. */
    public record Choice(Device device, String reason) {
    }

    /** Both plans (logical as written, physical as it will run), the devices and what has run where. */
    public String explain() {
        StringBuilder sb = new StringBuilder(plan.explain());
        List<KernelProgram> ps = plan.programs();
        if (!ps.isEmpty()) {
            sb.append("Devices:\n");
            for (Device d : quiver.devices()) {
                List<String> cannot = new ArrayList<>();
                for (KernelProgram p : ps) {
                    unsupportedOn(d, p).ifPresent(cannot::add);
                }
                sb.append("  ").append(d.name()).append(": ").append(cannot.isEmpty() ? "can run every kernel" : "cannot run: "
                        + String.join("; ", cannot)).append('\n');
            }
            if (quiver.openClDevices().isEmpty()) {
                sb.append("  OpenCL: ").append(quiver.openClStatus()).append('\n');
            }
        }
        List<dev.quiver.rowfn.RowFn> rowFns = rowFns(plan.root(), new ArrayList<>());
        if (!rowFns.isEmpty()) {
            sb.append("RowFns (counted since each was declared, in every expression):\n");
            for (dev.quiver.rowfn.RowFn f : rowFns) {
                sb.append("  ").append(f.name()).append(": ").append(f.stats()).append('\n');
            }
        }
        sb.append(metrics.describe());
        return sb.toString();
    }

    private static List<dev.quiver.rowfn.RowFn> rowFns(dev.quiver.physical.PhysicalExpr e, List<dev.quiver.rowfn.RowFn> out) {
        if (e instanceof dev.quiver.physical.FusedKernelExpr f) {
            for (dev.quiver.rowfn.RowFn r : f.rowFns()) {
                if (!out.contains(r)) {
                    out.add(r);
                }
            }
        }
        for (dev.quiver.physical.PhysicalExpr c : e.children()) {
            rowFns(c, out);
        }
        return out;
    }

    private List<FieldVector> bind(VectorSchemaRoot batch, int rows) {
        List<FieldVector> inputs = new ArrayList<>(plan.columns().size());
        for (Field f : plan.columns()) {
            FieldVector v = batch.getVector(f.getName());
            if (v == null) {
                throw new IllegalArgumentException("the batch has no column '" + f.getName() + "' (it was planned against a schema with it)");
            }
            if (v.getField().getDictionary() != null && f.getDictionary() == null) {
                throw new IllegalArgumentException("column '" + f.getName() + "' is dictionary-encoded in the batch (indices "
                        + v.getField().getType() + ") but was planned as " + f.getType() + ": decode it first");
            }
            if (f.getDictionary() != null && (v.getField().getDictionary() == null
                    || v.getField().getDictionary().getId() != f.getDictionary().getId())) {
                throw new IllegalArgumentException("column '" + f.getName() + "' was planned dictionary-encoded with dictionary "
                        + f.getDictionary().getId() + " but the batch's column " + (v.getField().getDictionary() == null
                        ? "is not dictionary-encoded" : "uses dictionary " + v.getField().getDictionary().getId()));
            }
            if (!v.getField().getType().equals(f.getType())) {
                throw new IllegalArgumentException("column '" + f.getName() + "' is " + v.getField().getType()
                        + " in the batch but was planned as " + f.getType());
            }
            if (v.getValueCount() != rows) {
                throw new IllegalArgumentException("column '" + f.getName() + "' has " + v.getValueCount()
                        + " values but the batch has " + rows + " rows");
            }
            inputs.add(v);
        }
        return inputs;
    }

    private FieldVector allocate(Field field, int rows, BufferAllocator allocator) {
        try {
            return OutputVectors.uninitialized(field, rows, allocator);
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot allocate the " + rows + "-row result of " + outputField.getName()
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
                    throw new IllegalStateException("cannot allocate the " + rows + "-row result of " + outputField.getName()
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
