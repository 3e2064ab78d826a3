package dev.quiver.expr;

import dev.quiver.types.ArithmeticPlan;
import dev.quiver.types.DataType;
import dev.quiver.types.TypeCoercion;
import java.util.Objects;
import java.util.Optional;

/**
 * The types of the arithmetic operators {@code + - * / %}: the cast of each operand and the result type, on
 * {@link TypeCoercion}'s lattice (docs/coercion.md). Here rather than in {@code types} because the rules depend on
 * the {@link Operator}. Every method is a pure function of its arguments; none returns null.
 */
public final class ArithmeticCoercion {
    private ArithmeticCoercion() {}

    /**
     * How to compute {@code left op right} for {@code + - * / %}, or empty when the operator
     * does not apply to these types.
     * <ul>
     *   <li>Integers and floats: both operands are cast to their {@link TypeCoercion#commonType}, and the
     *       result has that type ({@code Int32 / Int32} is an integer division).</li>
     *   <li>When the common type is a decimal (a decimal with an integer or a decimal, or
     *       Int64 with UInt64): each operand keeps its own decimal type, integers taking their
     *       {@link TypeCoercion#decimalForm}, and the result follows DataFusion/Spark: + and −:
     *       s = max(s1, s2), p = max(p1−s1, p2−s2)+s+1; *: p = p1+p2+1, s = s1+s2;
     *       /: s = max(6, s1+p2+1), p = p1−s1+s2+s; %: s = max(s1, s2),
     *       p = min(p1−s1, p2−s2)+s. A precision over 38 becomes 38, keeping at least
     *       min(s, 6) fractional digits (Spark's {@code adjustPrecisionScale}).</li>
     *   <li>A decimal with a float computes in Float64.</li>
     *   <li>Date32 ± integer → Date32 (the integer counts days and is cast to Int32, or Int64
     *       for Int64/UInt32/UInt64); integer + Date32 → Date32; Date32 − Date32 → Int64 days.</li>
     *   <li>Null with a numeric type: both are that type; Null with Null: Int64; Null with
     *       Date32 under + or −: the Null counts days (Int32).</li>
     * </ul>
     *
     * @throws IllegalArgumentException when {@code op} is not arithmetic
     */
    public static Optional<ArithmeticPlan> arithmetic(Operator op, DataType left, DataType right) {
        Objects.requireNonNull(op, "op is null");
        if (!op.isArithmetic()) {
            throw new IllegalArgumentException(op + " is not an arithmetic operator");
        }
        DataType l = Objects.requireNonNull(left, "left is null").valueType();
        DataType r = Objects.requireNonNull(right, "right is null").valueType();
        boolean lNull = l instanceof DataType.Null;
        boolean rNull = r instanceof DataType.Null;
        if (lNull && rNull) {
            return plan(DataType.INT64, DataType.INT64, DataType.INT64);
        }
        if (l instanceof DataType.Date32 || r instanceof DataType.Date32) {
            return dateArithmetic(op, l, r);
        }
        if (lNull && r.isNumeric()) {
            return plan(r, r, r);
        }
        if (rNull && l.isNumeric()) {
            return plan(l, l, l);
        }
        if (!l.isNumeric() || !r.isNumeric()) {
            return Optional.empty();
        }
        DataType common = TypeCoercion.commonType(l, r).orElseThrow();
        if (common instanceof DataType.Decimal) {
            DataType.Decimal dl = TypeCoercion.decimalForm(l);
            DataType.Decimal dr = TypeCoercion.decimalForm(r);
            return plan(dl, dr, decimalResult(op, dl, dr));
        }
        return plan(common, common, common);
    }

    private static Optional<ArithmeticPlan> plan(DataType l, DataType r, DataType result) {
        return Optional.of(new ArithmeticPlan(l, r, result));
    }

    private static Optional<ArithmeticPlan> dateArithmetic(Operator op, DataType l, DataType r) {
        boolean lDate = l instanceof DataType.Date32;
        boolean rDate = r instanceof DataType.Date32;
        if (op == Operator.MINUS && lDate && rDate) {
            return plan(DataType.DATE32, DataType.DATE32, DataType.INT64);
        }
        if (op == Operator.PLUS || op == Operator.MINUS) {
            if (lDate && isDayCount(r)) {
                return plan(DataType.DATE32, dayCountType(r), DataType.DATE32);
            }
            if (op == Operator.PLUS && rDate && isDayCount(l)) {
                return plan(dayCountType(l), DataType.DATE32, DataType.DATE32);
            }
        }
        return Optional.empty();
    }

    private static boolean isDayCount(DataType t) {
        return t instanceof DataType.Int || t instanceof DataType.Null;
    }

    private static DataType dayCountType(DataType t) {
        if (t instanceof DataType.Int i && (i.bitWidth() == 64 || (!i.signed() && i.bitWidth() == 32))) {
            return DataType.INT64;
        }
        return DataType.INT32;
    }

    /** The result type of {@code a op b} for two decimals, following DataFusion and Spark. */
    private static DataType.Decimal decimalResult(Operator op, DataType.Decimal a, DataType.Decimal b) {
        int p1 = a.precision(), s1 = a.scale(), p2 = b.precision(), s2 = b.scale();
        int p;
        int s;
        switch (op) {
            case PLUS, MINUS -> {
                s = Math.max(s1, s2);
                p = Math.max(p1 - s1, p2 - s2) + s + 1;
            }
            case MULTIPLY -> {
                s = s1 + s2;
                p = p1 + p2 + 1;
            }
            case DIVIDE -> {
                s = Math.max(6, s1 + p2 + 1);
                p = p1 - s1 + s2 + s;
            }
            case MODULO -> {
                s = Math.max(s1, s2);
                p = Math.min(p1 - s1, p2 - s2) + s;
            }
            default -> throw new IllegalArgumentException(op + " is not an arithmetic operator");
        }
        return adjustPrecisionScale(p, s);
    }

    /**
     * Spark's {@code DecimalPrecision.adjustPrecisionScale}: a precision over 38 becomes 38,
     * giving up fractional digits before integer digits but keeping at least min(s, 6) of them.
     */
    private static DataType.Decimal adjustPrecisionScale(int precision, int scale) {
        if (precision <= DataType.Decimal.MAX_PRECISION) {
            return new DataType.Decimal(precision, scale);
        }
        int integerDigits = precision - scale;
        int minScale = Math.min(scale, 6);
        int adjustedScale = Math.max(DataType.Decimal.MAX_PRECISION - integerDigits, minScale);
        return new DataType.Decimal(DataType.Decimal.MAX_PRECISION, adjustedScale);
    }
}
