package dev.quiver.kernels;

import dev.quiver.backend.KernelArithmeticException;
import dev.quiver.expr.Operator;
import dev.quiver.types.DataType;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.function.BinaryOperator;
import java.util.function.DoubleBinaryOperator;
import java.util.function.IntFunction;
import java.util.function.LongBinaryOperator;

/** {@code + - * / %} and unary minus over integers, floats, decimals and dates. */
final class ArithmeticKernels {
    static final String BACKEND = "host kernels";

    private ArithmeticKernels() {
    }

    static FieldVector arithmetic(Operator op, KernelInput l, KernelInput r, DataType resultType, int rows, BufferAllocator allocator) {
        if (!op.isArithmetic()) {
            throw new IllegalArgumentException(op + " is not an arithmetic operator");
        }
        DataType lt = l.type;
        DataType rt = r.type;
        String expression = lt + " " + op.sql() + " " + rt;
        Family family = family(op, lt, rt, resultType);
        if (family == null) {
            throw new UnsupportedOperationException("arithmetic " + expression + " -> " + resultType + " is not supported");
        }
        FieldVector out = ResultVector.allocate(resultType, rows, allocator);
        try {
            if (l.isNullType() || r.isNullType()) {
                return out; // all null
            }
            ResultVector.intersectValidity(out, rows, l, r);
            switch (family) {
                case INTEGER -> integers(op, l, r, resultType, out, rows, expression);
                case FLOAT -> floats(op, l, r, resultType, out, rows);
                case DECIMAL -> decimals(op, l, r, (DataType.Decimal) resultType, out, rows, expression);
            }
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }

    private enum Family { INTEGER, FLOAT, DECIMAL }

    private static Family family(Operator op, DataType lt, DataType rt, DataType result) {
        boolean nullSide = lt instanceof DataType.Null || rt instanceof DataType.Null;
        if (nullSide) {
            return result.isNumeric() || result instanceof DataType.Date32 ? Family.INTEGER : null;
        }
        if (lt instanceof DataType.Int && lt.equals(rt) && result.equals(lt)) {
            return Family.INTEGER;
        }
        if (lt instanceof DataType.FloatingPoint && lt.equals(rt) && result.equals(lt)) {
            return Family.FLOAT;
        }
        if (lt instanceof DataType.Decimal && rt instanceof DataType.Decimal && result instanceof DataType.Decimal) {
            return Family.DECIMAL;
        }
        boolean dayCount = rt instanceof DataType.Int i && i.signed() && i.bitWidth() >= 32;
        if (lt instanceof DataType.Date32 && dayCount && (op == Operator.PLUS || op == Operator.MINUS) && result instanceof DataType.Date32) {
            return Family.INTEGER;
        }
        boolean leftDayCount = lt instanceof DataType.Int i && i.signed() && i.bitWidth() >= 32;
        if (leftDayCount && rt instanceof DataType.Date32 && op == Operator.PLUS && result instanceof DataType.Date32) {
            return Family.INTEGER;
        }
        if (lt instanceof DataType.Date32 && rt instanceof DataType.Date32 && op == Operator.MINUS && result.equals(DataType.INT64)) {
            return Family.INTEGER;
        }
        return null;
    }

    private static void integers(Operator op, KernelInput l, KernelInput r, DataType resultType, FieldVector out, int rows, String expression) {
        KernelInput.LongReader x = l.longs();
        KernelInput.LongReader y = r.longs();
        ResultVector.LongWriter w = ResultVector.longs(out, resultType);
        boolean unsigned64 = resultType.equals(DataType.UINT64);
        boolean dateResult = resultType instanceof DataType.Date32;
        LongBinaryOperator f = switch (op) {
            case PLUS -> dateResult ? Math::addExact : Long::sum;
            case MINUS -> dateResult ? Math::subtractExact : (a, b) -> a - b;
            case MULTIPLY -> (a, b) -> a * b;
            case DIVIDE -> unsigned64 ? Long::divideUnsigned : (a, b) -> a / b;
            case MODULO -> unsigned64 ? Long::remainderUnsigned : (a, b) -> a % b;
            default -> throw new AssertionError(op);
        };
        boolean divides = op == Operator.DIVIDE || op == Operator.MODULO;
        if (!divides && !dateResult) {
            // Wrapping arithmetic cannot fail: garbage behind nulls is computed and ignored.
            for (int i = 0; i < rows; i++) {
                w.set(i, f.applyAsLong(x.get(i), y.get(i)));
            }
            return;
        }
        ArrowBuf validity = out.getValidityBuffer();
        for (int i = 0; i < rows; i++) {
            if (!ResultVector.isValid(validity, i)) {
                continue;
            }
            long b = y.get(i);
            if (divides && b == 0) {
                throw new KernelArithmeticException("division by zero", expression, i, BACKEND);
            }
            long v;
            try {
                v = f.applyAsLong(x.get(i), b);
            } catch (ArithmeticException overflow) {
                v = Long.MIN_VALUE; // only date arithmetic is exact; reported below
            }
            if (dateResult && (int) v != v) {
                throw new ArithmeticException("Date32 overflow in " + expression + " at row " + i + ": " + v + " days");
            }
            w.set(i, v);
        }
    }

    private static void floats(Operator op, KernelInput l, KernelInput r, DataType resultType, FieldVector out, int rows) {
        KernelInput.DoubleReader x = l.doubles();
        KernelInput.DoubleReader y = r.doubles();
        ResultVector.DoubleWriter w = ResultVector.doubles(out, resultType);
        // Float32 computed in double and rounded once equals Float32 arithmetic for + - * / and %.
        DoubleBinaryOperator f = switch (op) {
            case PLUS -> Double::sum;
            case MINUS -> (a, b) -> a - b;
            case MULTIPLY -> (a, b) -> a * b;
            case DIVIDE -> (a, b) -> a / b;
            case MODULO -> (a, b) -> a % b;
            default -> throw new AssertionError(op);
        };
        for (int i = 0; i < rows; i++) {
            w.set(i, f.applyAsDouble(x.get(i), y.get(i)));
        }
    }

    private static void decimals(Operator op, KernelInput l, KernelInput r, DataType.Decimal resultType, FieldVector out, int rows, String expression) {
        IntFunction<BigDecimal> x = l.decimals();
        IntFunction<BigDecimal> y = r.decimals();
        int scale = resultType.scale();
        BinaryOperator<BigDecimal> f = switch (op) {
            case PLUS -> BigDecimal::add;
            case MINUS -> BigDecimal::subtract;
            case MULTIPLY -> BigDecimal::multiply;
            case DIVIDE -> (a, b) -> a.divide(b, scale, RoundingMode.HALF_UP);
            case MODULO -> BigDecimal::remainder;
            default -> throw new AssertionError(op);
        };
        boolean divides = op == Operator.DIVIDE || op == Operator.MODULO;
        DecimalVector d = (DecimalVector) out;
        ArrowBuf validity = out.getValidityBuffer();
        for (int i = 0; i < rows; i++) {
            if (!ResultVector.isValid(validity, i)) {
                continue;
            }
            BigDecimal b = y.apply(i);
            if (divides && b.signum() == 0) {
                throw new KernelArithmeticException("division by zero", expression, i, BACKEND);
            }
            d.set(i, fit(f.apply(x.apply(i), b), resultType, expression, i));
        }
    }

    /** {@code v} rescaled (HALF_UP) to {@code t}'s scale; throws when it needs more than {@code t}'s precision. */
    static BigDecimal fit(BigDecimal v, DataType.Decimal t, String expression, int row) {
        BigDecimal s = v.setScale(t.scale(), RoundingMode.HALF_UP);
        if (s.precision() > t.precision()) {
            throw new ArithmeticException("decimal overflow in " + expression + " at row " + row + ": " + s.toPlainString()
                    + " does not fit " + t);
        }
        return s;
    }

    static FieldVector negate(KernelInput v, int rows, BufferAllocator allocator) {
        DataType t = v.type;
        if (!(t.isNumeric() || t instanceof DataType.Null) || (t instanceof DataType.Int i && !i.signed())) {
            throw new UnsupportedOperationException("negation of " + t + " is not supported");
        }
        FieldVector out = ResultVector.allocate(t, rows, allocator);
        try {
            if (v.isNullType()) {
                return out;
            }
            ResultVector.intersectValidity(out, rows, v);
            switch (t) {
                case DataType.Int i -> {
                    KernelInput.LongReader x = v.longs();
                    ResultVector.LongWriter w = ResultVector.longs(out, t);
                    for (int r = 0; r < rows; r++) {
                        w.set(r, -x.get(r));
                    }
                }
                case DataType.FloatingPoint f -> {
                    KernelInput.DoubleReader x = v.doubles();
                    ResultVector.DoubleWriter w = ResultVector.doubles(out, t);
                    for (int r = 0; r < rows; r++) {
                        w.set(r, -x.get(r));
                    }
                }
                case DataType.Decimal d -> {
                    IntFunction<BigDecimal> x = v.decimals();
                    DecimalVector o = (DecimalVector) out;
                    for (int r = 0; r < rows; r++) {
                        if (v.isValid(r)) {
                            o.set(r, x.apply(r).negate());
                        }
                    }
                }
                default -> throw new AssertionError(t);
            }
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }
}
