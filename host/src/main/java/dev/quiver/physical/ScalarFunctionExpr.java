package dev.quiver.physical;

import dev.quiver.cancel.Cancellation;
import dev.quiver.errors.EvaluationException;
import dev.quiver.errors.ResourceException;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.kernels.Kernels;
import dev.quiver.memory.Resources;
import dev.quiver.rowfn.StringRowFn;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.Values;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * A function call: evaluates each argument once per batch and calls the function once per
 * batch with {@link ScalarFunctionArgs}. It then checks the result: an array must have the
 * batch's row count, except that a one-row array returned for all-scalar arguments becomes a
 * scalar; with {@code ExecutionConfig#checkTypes} on, the result's type must be the planned one.
 */
public record ScalarFunctionExpr(ScalarFunction function, List<PhysicalExpr> args, DataType dataType)
        implements PhysicalExpr {
    public ScalarFunctionExpr {
        Objects.requireNonNull(function, "function is null");
        args = List.copyOf(args);
        Objects.requireNonNull(dataType, "dataType is null");
    }

    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        Cancellation.check(); // a kernel boundary
        List<ColumnarValue> values = new ArrayList<>(args.size());
        List<Field> fields = new ArrayList<>(args.size());
        ColumnarValue result = null;
        try {
            boolean allScalar = true;
            for (int i = 0; i < args.size(); i++) {
                ColumnarValue v = args.get(i).evaluate(ctx);
                values.add(v);
                fields.add(args.get(i).dataType().toField("arg" + i, true));
                allScalar &= v instanceof ColumnarValue.Scalar;
            }
            Cancellation.check(); // the arguments ran: another boundary before the function
            result = function.invoke(new ScalarFunctionArgs(
                    values, fields, ctx.rows(), dataType.toField(function.name(), true), ctx.config()));
            if (result == null) {
                // A broken function, not a null pointer of Quiver's: say so as the other result checks do.
                throw new EvaluationException(
                        "function " + function.name() + " returned null instead of a ColumnarValue "
                                + "(a NULL result is a ColumnarValue.Scalar holding a null value)");
            }
            result = checked(result, allScalar && !args.isEmpty(), ctx);
            // A function may hand back one of its own arguments: that one is now the result, not closed here.
            for (int i = 0; i < values.size(); i++) {
                if (values.get(i) instanceof ColumnarValue.Array a
                        && result instanceof ColumnarValue.Array r
                        && a.vector() == r.vector()) {
                    values.set(i, ColumnarValue.Array.borrowed(a.vector()));
                }
            }
            ColumnarValue out = result;
            result = null;
            return out;
        } finally {
            if (result != null) {
                result.close();
            }
            Resources.closeAll(values);
        }
    }

    private ColumnarValue checked(ColumnarValue result, boolean allScalar, EvalContext ctx) {
        if (result instanceof ColumnarValue.Array a) {
            int n = a.length();
            if (allScalar
                    && n == 1
                    && Values.bufferBytes(a.vector()) > ctx.config().maxFoldedValueBytes()) {
                result = everyRow(a, ctx);
            } else if (allScalar && n == 1) {
                ColumnarValue.Scalar s = new ColumnarValue.Scalar(Values.get(a.vector(), 0, dataType));
                a.close();
                result = s;
            } else if (n != ctx.rows()) {
                throw new EvaluationException("function " + function.name() + " returned " + n + " rows for a batch of "
                        + ctx.rows() + " rows");
            }
        }
        if (ctx.config().checkTypes()) {
            DataType got = result.dataType();
            if (!got.equals(dataType.valueType())) {
                throw new EvaluationException(
                        "function " + function.name() + " returned " + got + " but was planned to return " + dataType);
            }
        }
        return result;
    }

    /**
     * A one-row result over constants too large to hold as a Java value (more than
     * {@code ExecutionConfig#maxFoldedValueBytes}), copied to each row of the batch in Arrow memory;
     * refused, before anything is allocated, where the copies pass what a column of its type holds
     * (2 GiB of Utf8 or Binary data) or what the allocator has left. Takes ownership of {@code one}.
     */
    private ColumnarValue everyRow(ColumnarValue.Array one, EvalContext ctx) {
        int rows = ctx.rows();
        if (rows == 1) {
            return one;
        }
        try (one) {
            FieldVector v = one.vector();
            long bytes = Values.bufferBytes(v);
            long total = Math.multiplyHigh(bytes, rows) != 0 || bytes * rows < 0 ? Long.MAX_VALUE : bytes * rows;
            if (v instanceof BaseVariableWidthVector && total > Integer.MAX_VALUE) {
                throw new ResourceException(function.name() + ": its value over constants takes " + bytes
                        + " bytes, and" + " a copy for each of the batch's " + rows + " rows would pass the 2 GiB a "
                        + dataType + " column holds");
            }
            if (total > ctx.allocator().getHeadroom()) {
                throw new ResourceException(
                        function.name() + ": its value over constants takes " + bytes + " bytes, and"
                                + " a copy for each of the batch's " + rows + " rows (" + total
                                + " bytes) is more than the allocator's"
                                + " limit leaves (" + ctx.allocator().getHeadroom() + " bytes)");
            }
            return Kernels.take(one, new int[rows], ctx.allocator());
        }
    }

    @Override
    public List<PhysicalExpr> children() {
        return args;
    }

    @Override
    public String describe() {
        String call = "call " + function.name() + " ("
                + function.signature().volatility().name().toLowerCase(Locale.ROOT) + ")";
        return function instanceof StringRowFn ? call + " [per-row RowFn, runs on the CPU]" : call;
    }
}
