package dev.quiver;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.memory.OutputVectors;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.memory.VectorView;
import dev.quiver.planning.ExpressionPlanner;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.types.ElementType;
import dev.quiver.value.ColumnarValue;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An expression planned against a schema, ready to evaluate batch after batch. Thread-safe:
 * several threads may evaluate different batches at once.
 *
 * <p>Per batch it checks the batch against the plan, allocates the output vector from the
 * given allocator, computes the output validity as the AND of the inputs' (64 rows per step),
 * picks a device by {@link Placement}, and runs the fused kernel over the batch's own memory.
 * On any failure the output is closed before the exception leaves, so nothing leaks.
 */
public final class CompiledExpression {
    /** Smallest batch {@link Placement#AUTO} sends to an OpenCL GPU. */
    public static final int AUTO_GPU_MIN_ROWS = 1 << 20;

    private final Quiver quiver;
    private final ExpressionPlanner.Plan plan;
    private final Field outputField;
    private final ExpressionMetrics metrics = new ExpressionMetrics();
    /** Whether each device can run the program: fixed per program and device, asked on every batch. */
    private final java.util.concurrent.ConcurrentHashMap<Device, Optional<String>> unsupported = new java.util.concurrent.ConcurrentHashMap<>();

    CompiledExpression(Quiver quiver, ExpressionPlanner.Plan plan, String name) {
        this.quiver = quiver;
        this.plan = plan;
        ElementType rt = plan.program().resultType();
        this.outputField = new Field(name, FieldType.nullable(rt.arrowType()), null);
    }

    /** The field of the vectors this expression returns (nullable, named after the expression). */
    public Field outputField() {
        return outputField;
    }

    public KernelProgram program() {
        return plan.program();
    }

    /** The schema fields the expression reads, in argument order. */
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
     * allocated from {@code allocator}; the caller owns and closes it. A row is null when any
     * column it reads is null. An expression over literals only is broadcast to the batch's
     * rows here (use {@link #evaluateValue} to keep it a scalar).
     *
     * @throws IllegalArgumentException when the batch does not match the planned schema or its
     *                                  columns have different lengths
     * @throws IllegalStateException    when {@code placement} is OPENCL and no OpenCL device can
     *                                  run the expression (the message says why), or the
     *                                  allocator cannot give memory (for example, it is closed)
     * @throws ArithmeticException      when a non-null row divides an integer by zero
     */
    public FieldVector evaluate(VectorSchemaRoot batch, Placement placement, BufferAllocator allocator) {
        ColumnarValue v = evaluateValue(batch, placement, allocator);
        if (v instanceof ColumnarValue.Array a) {
            return a.vector();
        }
        return broadcast((ColumnarValue.Scalar) v, batch.getRowCount(), allocator);
    }

    /**
     * As {@link #evaluate(VectorSchemaRoot, Placement, BufferAllocator)}, but an expression
     * over literals only gives a {@link ColumnarValue.Scalar} instead of a filled array.
     */
    public ColumnarValue evaluateValue(VectorSchemaRoot batch, Placement placement, BufferAllocator allocator) {
        Objects.requireNonNull(placement, "placement is null");
        Objects.requireNonNull(batch, "batch is null");
        // Literals only: nothing runs on a device, so no placement can fail.
        Choice choice = plan.program().arity() == 0 ? new Choice(quiver.cpu(), "literals only")
                : choose(placement, batch.getRowCount());
        return evaluateValue(batch, choice, allocator);
    }

    /**
     * Evaluates on one named device, as {@link #evaluate(VectorSchemaRoot, Placement, BufferAllocator)}
     * does. Throws {@link IllegalStateException} when that device cannot run the expression.
     */
    public FieldVector evaluate(VectorSchemaRoot batch, Device device, BufferAllocator allocator) {
        Objects.requireNonNull(device, "device is null");
        unsupportedOn(device).ifPresent(r -> {
            throw new IllegalStateException(device.name() + " cannot run " + plan.program().text() + ": " + r);
        });
        ColumnarValue v = evaluateValue(batch, new Choice(device, "device " + device.name() + " requested"), allocator);
        if (v instanceof ColumnarValue.Array a) {
            return a.vector();
        }
        return broadcast((ColumnarValue.Scalar) v, batch.getRowCount(), allocator);
    }

    private ColumnarValue evaluateValue(VectorSchemaRoot batch, Choice choice, BufferAllocator allocator) {
        Objects.requireNonNull(batch, "batch is null");
        Objects.requireNonNull(allocator, "allocator is null");
        quiver.ensureOpen();
        KernelProgram program = plan.program();
        if (program.arity() == 0) {
            return new ColumnarValue.Scalar(program.resultType(), RowInterpreter.evaluate(program.root(), new Number[0]));
        }
        int rows = batch.getRowCount();
        List<FieldVector> inputs = bind(batch, rows);
        FieldVector out = allocate(rows, allocator);
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
            ValidityBitmaps.and(outView.validity(), validities, rows);
            KernelRun run = choice.device().backend().execute(program,
                    new KernelInvocation(args, outView.validity(), outView.data(), rows));
            metrics.record(choice.device().name(), rows, run, choice.reason());
            return new ColumnarValue.Array(out);
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        } finally {
            for (VectorView v : views) {
                v.close();
            }
        }
    }

    /** The device {@code placement} picks for a batch of {@code rows} rows, and why. */
    public Choice choose(Placement placement, int rows) {
        KernelProgram program = plan.program();
        return switch (placement) {
            case CPU -> new Choice(quiver.cpu(), "placement CPU");
            case OPENCL -> {
                List<String> why = new ArrayList<>();
                for (Device d : quiver.openClDevices()) {
                    Optional<String> reason = unsupportedOn(d);
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
                        if (d.kind() == Device.Kind.OPENCL_GPU && unsupportedOn(d).isEmpty()) {
                            yield new Choice(d, "auto: " + rows + " rows >= " + AUTO_GPU_MIN_ROWS + " on a GPU");
                        }
                    }
                    yield new Choice(quiver.cpu(), "auto: no OpenCL GPU can run it");
                }
                yield new Choice(quiver.cpu(), "auto: " + rows + " rows < " + AUTO_GPU_MIN_ROWS);
            }
        };
    }

    private Optional<String> unsupportedOn(Device device) {
        return unsupported.computeIfAbsent(device, d -> d.backend().unsupportedReason(plan.program()));
    }

    /** A placement decision. */
    public record Choice(Device device, String reason) {
    }

    /** The plan, the devices and what has run where. */
    public String explain() {
        StringBuilder sb = new StringBuilder();
        KernelProgram p = plan.program();
        sb.append("Expression ").append(outputField.getName()).append(" -> ").append(p.resultType()).append('\n');
        sb.append("  kernel: ").append(KernelProgram.render(p.root())).append('\n');
        for (int i = 0; i < plan.columns().size(); i++) {
            sb.append("  $").append(i).append(" = column '").append(plan.columns().get(i).getName()).append("' ")
                    .append(p.argTypes().get(i)).append('\n');
        }
        for (Device d : quiver.devices()) {
            sb.append("  device ").append(d.name()).append(": ")
                    .append(unsupportedOn(d).map(r -> "cannot run: " + r).orElse("can run")).append('\n');
        }
        if (quiver.openClDevices().isEmpty()) {
            sb.append("  OpenCL: ").append(quiver.openClStatus()).append('\n');
        }
        sb.append(metrics.describe());
        return sb.toString();
    }

    private List<FieldVector> bind(VectorSchemaRoot batch, int rows) {
        List<FieldVector> inputs = new ArrayList<>(plan.columns().size());
        for (Field f : plan.columns()) {
            FieldVector v = batch.getVector(f.getName());
            if (v == null) {
                throw new IllegalArgumentException("the batch has no column '" + f.getName() + "' (it was planned against a schema with it)");
            }
            if (v.getField().getDictionary() != null) {
                throw new IllegalArgumentException("column '" + f.getName() + "' is dictionary-encoded in the batch (indices "
                        + v.getField().getType() + "), which this version does not decode: decode it first");
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

    private FieldVector allocate(int rows, BufferAllocator allocator) {
        try {
            return OutputVectors.uninitialized(outputField, rows, allocator);
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot allocate the " + rows + "-row result of " + outputField.getName()
                    + " from allocator '" + allocator.getName() + "': " + e.getMessage(), e);
        }
    }

    private FieldVector broadcast(ColumnarValue.Scalar s, int rows, BufferAllocator allocator) {
        FieldVector out = allocate(rows, allocator);
        try (VectorView view = VectorView.of(out)) {
            if (s.isNull()) {
                view.validity().fill((byte) 0);
                view.data().fill((byte) 0);
            } else {
                ValidityBitmaps.and(view.validity(), List.of(), rows);
                for (int i = 0; i < rows; i++) {
                    RowInterpreter.write(view.data(), s.type(), i, s.value());
                }
            }
        } catch (RuntimeException e) {
            out.close();
            throw e;
        }
        return out;
    }
}
