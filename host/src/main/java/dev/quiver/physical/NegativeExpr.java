package dev.quiver.physical;

import dev.quiver.cancel.Cancellation;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.expr.Operator;
import dev.quiver.kernels.ArithmeticMode;
import dev.quiver.kernels.Kernels;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;
import java.util.Objects;

/**
 * Arithmetic negation. An integer's {@code -MIN_VALUE} overflows: an error under
 * {@link ArithmeticMode#CHECKED}, {@code MIN_VALUE} under {@link ArithmeticMode#WRAPPING} (as in
 * the fused kernels). Floats flip the sign ({@code -0.0} included); decimals are exact.
 */
public record NegativeExpr(PhysicalExpr input, ArithmeticMode mode) implements PhysicalExpr {
    public NegativeExpr {
        Objects.requireNonNull(input, "input is null");
        Objects.requireNonNull(mode, "mode is null");
    }

    /** Checked negation. */
    public NegativeExpr(PhysicalExpr input) {
        this(input, ArithmeticMode.CHECKED);
    }

    @Override
    public DataType dataType() {
        return input.dataType();
    }

    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        Cancellation.check(); // a kernel boundary
        try (ColumnarValue v = input.evaluate(ctx)) {
            if (dataType() instanceof DataType.Int) {
                // 0 - x: the subtraction kernel's overflow check is exactly -MIN_VALUE's.
                try {
                    return Kernels.arithmetic(
                            Operator.MINUS,
                            ColumnarValue.scalar(dataType(), zero()),
                            v,
                            dataType(),
                            mode,
                            ctx.rows(),
                            ctx.allocator());
                } catch (KernelArithmeticException e) {
                    KernelArithmeticException named =
                            new KernelArithmeticException(e.what(), Names.sql(this), e.row(), "cpu");
                    named.initCause(e);
                    throw named;
                }
            }
            return Kernels.negate(v, ctx.rows(), ctx.allocator());
        }
    }

    private Object zero() {
        return switch (((DataType.Int) dataType()).bitWidth()) {
            case 8 -> (byte) 0;
            case 16 -> (short) 0;
            case 32 -> 0;
            default -> 0L;
        };
    }

    @Override
    public boolean isCheapAndInfallible() {
        return input.isCheapAndInfallible()
                && !(dataType() instanceof DataType.Decimal)
                && (!(dataType() instanceof DataType.Int) || mode == ArithmeticMode.WRAPPING);
    }

    @Override
    public List<PhysicalExpr> children() {
        return List.of(input);
    }

    @Override
    public String describe() {
        return "NEGATE";
    }
}
