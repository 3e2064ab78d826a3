package dev.quiver.kernels;

import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.expr.Operator;
import dev.quiver.kernels.FixedWidth.IntKind;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.lang.foreign.MemorySegment;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Objects;
import java.util.function.IntFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;

/**
 * {@code + - * / %} and unary minus over integers, floats, decimals and dates.
 *
 * <p>How a batch is computed: the result's validity is the AND of the operands' validity, 64
 * rows at a time. Then, {@link #CHUNK} rows at a time, the operands are widened into
 * {@code long[]} (every integer width, Date32, and decimals that fit in a long) or
 * {@code double[]} (both float widths), one tight loop per operator and operand shape
 * (array–array, array–scalar, scalar–array) computes every row, garbage behind nulls included,
 * and the result is narrowed back into the output vector. Those loops cannot fail: a zero
 * divisor is replaced by one, and integer results wrap. Alongside, cheap whole-chunk checks
 * (a range check, or the sign bits of the two's complement overflow identities) say whether
 * some row of the chunk may have overflowed or divided by zero; only then is the chunk checked
 * again row by row, on its valid rows only, where {@link ArithmeticMode} decides: throw a
 * {@link KernelArithmeticException} naming the operation, the types and the row, or make the
 * row NULL. Rows are checked in order, so the row named is the first failing one.
 */
final class ArithmeticKernels {
    static final String BACKEND = "host kernels";
    /** Rows per step of the loops: 16 bitmap words, and chunk arrays that stay in the L1 cache. */
    static final int CHUNK = 1024;

    private static final long[] POW10 = new long[19];

    static {
        POW10[0] = 1;
        for (int i = 1; i < POW10.length; i++) {
            POW10[i] = POW10[i - 1] * 10;
        }
    }

    private ArithmeticKernels() {}

    static ColumnarValue arithmetic(
            Operator op,
            ColumnarValue l,
            ColumnarValue r,
            DataType resultType,
            ArithmeticMode mode,
            int rows,
            BufferAllocator allocator) {
        if (!op.isArithmetic()) {
            throw new IllegalArgumentException(op + " is not an arithmetic operator");
        }
        Objects.requireNonNull(l, "l is null");
        Objects.requireNonNull(r, "r is null");
        Objects.requireNonNull(allocator, "allocator is null");
        if (rows < 0) {
            throw new IllegalArgumentException("rows must be >= 0, not " + rows);
        }
        DataType lt = l.dataType().valueType();
        DataType rt = r.dataType().valueType();
        DataType result = resultType.valueType();
        String expression = lt + " " + op.sql() + " " + rt;
        Family family = family(op, lt, rt, result);
        if (family == null) {
            // Unreachable from a plan: the planner types + - * / % with ArithmeticCoercion.arithmetic and refuses the
            // rest.
            throw new UnsupportedOperationException("arithmetic " + expression + " -> " + result + " is not supported");
        }
        if (l instanceof ColumnarValue.Scalar ls && r instanceof ColumnarValue.Scalar rs) {
            return scalars(op, ls, rs, result, mode, allocator);
        }
        Operand a = Operand.of(l, rows);
        Operand b = Operand.of(r, rows);
        FieldVector out = ResultVector.allocate(result, rows, allocator);
        try {
            if (a.allNull() || b.allNull()) {
                return new ColumnarValue.Array(out, true); // all null, the other side unread
            }
            Call c = new Call(op, mode, expression, a, b, out, rows);
            switch (family) {
                case INTEGER -> integers(c);
                case FLOAT -> floats(c);
                case DECIMAL -> decimals(c, (DataType.Decimal) result);
            }
            return new ColumnarValue.Array(out, true);
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }

    /** Two scalars: computed as one row of two one-row arrays, so scalars and arrays agree exactly. */
    private static ColumnarValue scalars(
            Operator op,
            ColumnarValue.Scalar l,
            ColumnarValue.Scalar r,
            DataType result,
            ArithmeticMode mode,
            BufferAllocator allocator) {
        if (l.isNull() || r.isNull()) {
            return new ColumnarValue.Scalar(ScalarValue.nullOf(result));
        }
        try (FieldVector lv = Values.broadcast(l.value(), "l", 1, allocator)) {
            try (FieldVector rv = Values.broadcast(r.value(), "r", 1, allocator);
                    ColumnarValue out = arithmetic(
                            op,
                            ColumnarValue.Array.borrowed(lv),
                            ColumnarValue.Array.borrowed(rv),
                            result,
                            mode,
                            1,
                            allocator)) {
                return new ColumnarValue.Scalar(Values.get(((ColumnarValue.Array) out).vector(), 0, result));
            }
        }
    }

    private enum Family {
        INTEGER,
        FLOAT,
        DECIMAL
    }

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
        if (lt instanceof DataType.Date32
                && dayCount
                && (op == Operator.PLUS || op == Operator.MINUS)
                && result instanceof DataType.Date32) {
            return Family.INTEGER;
        }
        boolean leftDayCount = lt instanceof DataType.Int i && i.signed() && i.bitWidth() >= 32;
        if (leftDayCount && rt instanceof DataType.Date32 && op == Operator.PLUS && result instanceof DataType.Date32) {
            return Family.INTEGER;
        }
        if (lt instanceof DataType.Date32
                && rt instanceof DataType.Date32
                && op == Operator.MINUS
                && result.equals(DataType.INT64)) {
            return Family.INTEGER;
        }
        return null;
    }

    /** One call: its operands, its output, and what a failing row does. */
    private static final class Call {
        final Operator op;
        final ArithmeticMode mode;
        final String expression;
        final Operand a;
        final Operand b;
        final FieldVector out;
        final int rows;
        final MemorySegment validity;
        final MemorySegment data;

        Call(Operator op, ArithmeticMode mode, String expression, Operand a, Operand b, FieldVector out, int rows) {
            this.op = op;
            this.mode = mode;
            this.expression = expression;
            this.a = a;
            this.b = b;
            this.out = out;
            this.rows = rows;
            this.validity = Bitmaps.view(out.getValidityBuffer());
            this.data = Bitmaps.view(out.getDataBuffer());
            Operand.andValidity(a, b, validity, rows);
        }

        boolean valid(int row) {
            return Bitmaps.get(validity, row);
        }

        /** Valid row {@code row} cannot be computed: it becomes NULL (NULL_ON_ERROR) or the call throws. */
        void fail(String what, int row) {
            if (mode == ArithmeticMode.NULL_ON_ERROR) {
                Bitmaps.clear(validity, row);
            } else {
                throw new KernelArithmeticException(what, expression, row, BACKEND);
            }
        }

        /** Every valid row fails (a scalar zero divisor). */
        void failAll(String what) {
            for (int w = 0; w < Bitmaps.words(rows); w++) {
                long v = Bitmaps.word(validity, w) & Bitmaps.liveMask(w, rows);
                if (v != 0) {
                    fail(what, (w << 6) + Long.numberOfTrailingZeros(v)); // throws unless NULL_ON_ERROR
                    Bitmaps.setWord(validity, w, 0, rows);
                }
            }
        }
    }

    // ---- integers and Date32, computed in long

    /** What the integer loops of one call need to know about its types. */
    private record IntPlan(
            IntKind x, IntKind y, IntKind result, boolean checkOverflow, boolean unsigned64, String what) {
        /** Some operand is 64 bits wide, so the long computation itself can overflow. */
        boolean wide() {
            return x.wide() || y.wide();
        }

        /** The result is narrower than a long, so a computed value can be out of its range. */
        boolean narrowResult() {
            return !result.wide();
        }
    }

    private static void integers(Call c) {
        IntKind xk = FixedWidth.intKind(c.a.type);
        IntKind yk = FixedWidth.intKind(c.b.type);
        DataType resultType = DataType.fromField(c.out.getField());
        IntKind rk = FixedWidth.intKind(resultType);
        boolean date = resultType instanceof DataType.Date32;
        // Dates never wrap: a Date32 out of range is an error in every mode.
        IntPlan p = new IntPlan(
                xk,
                yk,
                rk,
                c.mode != ArithmeticMode.WRAPPING || date,
                xk == IntKind.UINT64 && yk == IntKind.UINT64,
                date ? "Date32 overflow" : "integer overflow");
        Operator op = c.op;
        boolean divides = op == Operator.DIVIDE || op == Operator.MODULO;
        boolean xArray = !c.a.isScalar();
        boolean yArray = !c.b.isScalar();
        long xs = xArray ? 0 : FixedWidth.toLong(c.a.scalar);
        long ys = yArray ? 0 : FixedWidth.toLong(c.b.scalar);
        if (divides && !yArray && ys == 0) {
            c.failAll("division by zero");
            return;
        }
        MemorySegment xd = xArray ? c.a.data() : null;
        MemorySegment yd = yArray ? c.b.data() : null;
        long[] x = xArray ? new long[Math.min(CHUNK, c.rows)] : null;
        long[] y = yArray ? new long[Math.min(CHUNK, c.rows)] : null;
        long[] r = new long[Math.min(CHUNK, c.rows)];
        boolean signedWide = p.checkOverflow() && p.wide() && !p.unsigned64();
        boolean rangeCheck = p.checkOverflow() && p.narrowResult();
        long lo = rk.min;
        long hi = rk.max;
        for (int from = 0; from < c.rows; from += CHUNK) {
            int n = Math.min(CHUNK, c.rows - from);
            if (xArray) {
                FixedWidth.widen(xd, xk, from, n, x);
            }
            if (yArray) {
                FixedWidth.widen(yd, yk, from, n, y);
            }
            // Whether some row of the chunk may have failed; the row-by-row check decides.
            // UInt64 (rare) has no whole-chunk check: its chunks are always checked row by row.
            boolean suspect = p.checkOverflow() && p.unsigned64();
            switch (op) {
                case PLUS -> {
                    if (xArray && yArray) {
                        add(x, y, r, n);
                        suspect |= signedWide && addOverflow(x, y, r, n) < 0;
                    } else if (xArray) {
                        add(x, ys, r, n);
                        suspect |= signedWide && addOverflow(x, ys, r, n) < 0;
                    } else {
                        add(y, xs, r, n);
                        suspect |= signedWide && addOverflow(y, xs, r, n) < 0;
                    }
                }
                case MINUS -> {
                    if (xArray && yArray) {
                        subtract(x, y, r, n);
                        suspect |= signedWide && subtractOverflow(x, y, r, n) < 0;
                    } else if (xArray) {
                        subtract(x, ys, r, n);
                        suspect |= signedWide && subtractOverflow(x, ys, r, n) < 0;
                    } else {
                        subtract(xs, y, r, n);
                        suspect |= signedWide && subtractOverflow(xs, y, r, n) < 0;
                    }
                }
                case MULTIPLY -> {
                    if (xArray && yArray) {
                        multiply(x, y, r, n);
                        suspect |= signedWide && multiplyOverflows(x, y, r, n);
                    } else if (xArray) {
                        multiply(x, ys, r, n);
                        suspect |= signedWide && multiplyOverflows(x, ys, r, n);
                    } else {
                        multiply(y, xs, r, n);
                        suspect |= signedWide && multiplyOverflows(y, xs, r, n);
                    }
                }
                case DIVIDE, MODULO -> {
                    boolean remainder = op == Operator.MODULO;
                    boolean unsigned = p.unsigned64();
                    // The loops report divisors of 0 (always an error) and -1 (MIN / -1 overflows).
                    if (xArray && yArray) {
                        suspect |= divide(x, y, r, n, remainder, unsigned);
                    } else if (xArray) {
                        divide(x, ys, r, n, remainder, unsigned);
                        suspect |= ys == -1 && signedWide;
                    } else {
                        suspect |= divide(xs, y, r, n, remainder, unsigned);
                    }
                }
                default -> throw new AssertionError(op);
            }
            suspect |= rangeCheck && outOfRange(r, n, lo, hi);
            if (suspect) {
                checkIntegers(c, p, from, n, x, xs, y, ys, r);
            }
            FixedWidth.narrow(r, n, rk, c.data, from);
        }
    }

    /** The row-by-row check of a suspect chunk: each valid row that divides by zero or overflows fails. */
    private static void checkIntegers(
            Call c, IntPlan p, int from, int n, long[] x, long xs, long[] y, long ys, long[] r) {
        boolean divides = c.op == Operator.DIVIDE || c.op == Operator.MODULO;
        for (int i = 0; i < n; i++) {
            int row = from + i;
            if (!c.valid(row)) {
                continue;
            }
            long xv = x == null ? xs : x[i];
            long yv = y == null ? ys : y[i];
            if (divides && yv == 0) {
                c.fail("division by zero", row);
            } else if (p.checkOverflow() && overflows(c.op, p, xv, yv, r[i])) {
                c.fail(p.what(), row);
            }
        }
    }

    /** Whether {@code x op y}, computed in long as {@code r}, is not the exact result or does not fit the result type. */
    private static boolean overflows(Operator op, IntPlan p, long x, long y, long r) {
        boolean u = p.unsigned64();
        // Operands narrower than 64 bits compute exactly in long, except an unsigned 32-bit product
        // of 2^63 or more, which the signed identity below also reports (and which is out of range).
        boolean inexact = switch (op) {
            case PLUS -> u ? Long.compareUnsigned(r, x) < 0 : ((x ^ r) & (y ^ r)) < 0;
            case MINUS -> u ? Long.compareUnsigned(x, y) < 0 : ((x ^ y) & (x ^ r)) < 0;
            case MULTIPLY -> u ? Math.unsignedMultiplyHigh(x, y) != 0 : Math.multiplyHigh(x, y) != (r >> 63);
            case DIVIDE -> !u && x == Long.MIN_VALUE && y == -1;
            default -> false;
        };
        return inexact || (p.narrowResult() && (r < p.result().min || r > p.result().max));
    }

    // The loops: one per operator and operand shape, over chunks of longs. Results wrap.

    private static void add(long[] x, long[] y, long[] r, int n) {
        for (int i = 0; i < n; i++) {
            r[i] = x[i] + y[i];
        }
    }

    private static void add(long[] x, long y, long[] r, int n) {
        for (int i = 0; i < n; i++) {
            r[i] = x[i] + y;
        }
    }

    private static void subtract(long[] x, long[] y, long[] r, int n) {
        for (int i = 0; i < n; i++) {
            r[i] = x[i] - y[i];
        }
    }

    private static void subtract(long[] x, long y, long[] r, int n) {
        for (int i = 0; i < n; i++) {
            r[i] = x[i] - y;
        }
    }

    private static void subtract(long x, long[] y, long[] r, int n) {
        for (int i = 0; i < n; i++) {
            r[i] = x - y[i];
        }
    }

    private static void multiply(long[] x, long[] y, long[] r, int n) {
        for (int i = 0; i < n; i++) {
            r[i] = x[i] * y[i];
        }
    }

    private static void multiply(long[] x, long y, long[] r, int n) {
        for (int i = 0; i < n; i++) {
            r[i] = x[i] * y;
        }
    }

    /** {@code x / y} or {@code x % y} (unsigned: as 64-bit unsigned); a zero divisor gives 0. Whether some divisor was 0 or -1. */
    private static boolean divide(long[] x, long[] y, long[] r, int n, boolean remainder, boolean unsigned) {
        boolean special = false;
        for (int i = 0; i < n; i++) {
            long d = y[i];
            special |= d == 0 | d == -1;
            r[i] = quotient(x[i], d == 0 ? 1 : d, remainder, unsigned);
        }
        return special;
    }

    /** {@code x / y} or {@code x % y} for a divisor {@code y} that is not zero. */
    private static void divide(long[] x, long y, long[] r, int n, boolean remainder, boolean unsigned) {
        for (int i = 0; i < n; i++) {
            r[i] = quotient(x[i], y, remainder, unsigned);
        }
    }

    private static boolean divide(long x, long[] y, long[] r, int n, boolean remainder, boolean unsigned) {
        boolean special = false;
        for (int i = 0; i < n; i++) {
            long d = y[i];
            special |= d == 0 | d == -1;
            r[i] = quotient(x, d == 0 ? 1 : d, remainder, unsigned);
        }
        return special;
    }

    private static long quotient(long x, long d, boolean remainder, boolean unsigned) {
        if (unsigned) {
            return remainder ? Long.remainderUnsigned(x, d) : Long.divideUnsigned(x, d);
        }
        return remainder ? x % d : x / d;
    }

    /** Sign bit set when some {@code r = x + y} overflowed 64 bits. */
    private static long addOverflow(long[] x, long[] y, long[] r, int n) {
        long acc = 0;
        for (int i = 0; i < n; i++) {
            acc |= (x[i] ^ r[i]) & (y[i] ^ r[i]);
        }
        return acc;
    }

    private static long addOverflow(long[] x, long y, long[] r, int n) {
        long acc = 0;
        for (int i = 0; i < n; i++) {
            acc |= (x[i] ^ r[i]) & (y ^ r[i]);
        }
        return acc;
    }

    /** Sign bit set when some {@code r = x - y} overflowed 64 bits. */
    private static long subtractOverflow(long[] x, long[] y, long[] r, int n) {
        long acc = 0;
        for (int i = 0; i < n; i++) {
            acc |= (x[i] ^ y[i]) & (x[i] ^ r[i]);
        }
        return acc;
    }

    private static long subtractOverflow(long[] x, long y, long[] r, int n) {
        long acc = 0;
        for (int i = 0; i < n; i++) {
            acc |= (x[i] ^ y) & (x[i] ^ r[i]);
        }
        return acc;
    }

    private static long subtractOverflow(long x, long[] y, long[] r, int n) {
        long acc = 0;
        for (int i = 0; i < n; i++) {
            acc |= (x ^ y[i]) & (x ^ r[i]);
        }
        return acc;
    }

    /** Whether some {@code r = x * y} overflowed 64 bits. */
    private static boolean multiplyOverflows(long[] x, long[] y, long[] r, int n) {
        boolean any = false;
        for (int i = 0; i < n; i++) {
            any |= Math.multiplyHigh(x[i], y[i]) != (r[i] >> 63);
        }
        return any;
    }

    private static boolean multiplyOverflows(long[] x, long y, long[] r, int n) {
        boolean any = false;
        for (int i = 0; i < n; i++) {
            any |= Math.multiplyHigh(x[i], y) != (r[i] >> 63);
        }
        return any;
    }

    /** Whether some {@code r[i]} is outside {@code lo..hi} (the sign bit of either difference is set then). */
    private static boolean outOfRange(long[] r, int n, long lo, long hi) {
        long acc = 0;
        for (int i = 0; i < n; i++) {
            acc |= (r[i] - lo) | (hi - r[i]);
        }
        return acc < 0;
    }

    // ---- floats, computed in double (Float32 rounded once, which equals Float32 arithmetic for + - * / %)

    private static void floats(Call c) {
        boolean f32 = ((DataType.FloatingPoint) c.a.type).bitWidth() == 32;
        boolean xArray = !c.a.isScalar();
        boolean yArray = !c.b.isScalar();
        double xs = xArray ? 0 : FixedWidth.toDouble(c.a.scalar);
        double ys = yArray ? 0 : FixedWidth.toDouble(c.b.scalar);
        MemorySegment xd = xArray ? c.a.data() : null;
        MemorySegment yd = yArray ? c.b.data() : null;
        double[] x = xArray ? new double[Math.min(CHUNK, c.rows)] : null;
        double[] y = yArray ? new double[Math.min(CHUNK, c.rows)] : null;
        double[] r = new double[Math.min(CHUNK, c.rows)];
        for (int from = 0; from < c.rows; from += CHUNK) {
            int n = Math.min(CHUNK, c.rows - from);
            if (xArray) {
                FixedWidth.widen(xd, f32, from, n, x);
            }
            if (yArray) {
                FixedWidth.widen(yd, f32, from, n, y);
            }
            switch (c.op) {
                case PLUS -> {
                    if (xArray && yArray) {
                        add(x, y, r, n);
                    } else if (xArray) {
                        add(x, ys, r, n);
                    } else {
                        add(y, xs, r, n);
                    }
                }
                case MINUS -> {
                    if (xArray && yArray) {
                        subtract(x, y, r, n);
                    } else if (xArray) {
                        subtract(x, ys, r, n);
                    } else {
                        subtract(xs, y, r, n);
                    }
                }
                case MULTIPLY -> {
                    if (xArray && yArray) {
                        multiply(x, y, r, n);
                    } else if (xArray) {
                        multiply(x, ys, r, n);
                    } else {
                        multiply(y, xs, r, n);
                    }
                }
                case DIVIDE -> {
                    if (xArray && yArray) {
                        divide(x, y, r, n);
                    } else if (xArray) {
                        divide(x, ys, r, n);
                    } else {
                        divide(xs, y, r, n);
                    }
                }
                case MODULO -> {
                    if (xArray && yArray) {
                        remainder(x, y, r, n);
                    } else if (xArray) {
                        remainder(x, ys, r, n);
                    } else {
                        remainder(xs, y, r, n);
                    }
                }
                default -> throw new AssertionError(c.op);
            }
            canonicalNaNs(r, n);
            FixedWidth.narrow(r, n, f32, c.data, from);
        }
    }

    /**
     * Every NaN as {@link Double#NaN}: which operand's payload {@code NaN + NaN} keeps depends on
     * the JIT (the interpreter keeps the right one's, compiled code the left one's), and a result
     * depends on its input alone.
     */
    private static void canonicalNaNs(double[] r, int n) {
        for (int i = 0; i < n; i++) {
            if (r[i] != r[i]) {
                r[i] = Double.NaN;
            }
        }
    }

    private static void add(double[] x, double[] y, double[] r, int n) {
        for (int i = 0; i < n; i++) {
            r[i] = x[i] + y[i];
        }
    }

    private static void add(double[] x, double y, double[] r, int n) {
        for (int i = 0; i < n; i++) {
            r[i] = x[i] + y;
        }
    }

    private static void subtract(double[] x, double[] y, double[] r, int n) {
        for (int i = 0; i < n; i++) {
            r[i] = x[i] - y[i];
        }
    }

    private static void subtract(double[] x, double y, double[] r, int n) {
        for (int i = 0; i < n; i++) {
            r[i] = x[i] - y;
        }
    }

    private static void subtract(double x, double[] y, double[] r, int n) {
        for (int i = 0; i < n; i++) {
            r[i] = x - y[i];
        }
    }

    private static void multiply(double[] x, double[] y, double[] r, int n) {
        for (int i = 0; i < n; i++) {
            r[i] = x[i] * y[i];
        }
    }

    private static void multiply(double[] x, double y, double[] r, int n) {
        for (int i = 0; i < n; i++) {
            r[i] = x[i] * y;
        }
    }

    private static void divide(double[] x, double[] y, double[] r, int n) {
        for (int i = 0; i < n; i++) {
            r[i] = x[i] / y[i];
        }
    }

    private static void divide(double[] x, double y, double[] r, int n) {
        for (int i = 0; i < n; i++) {
            r[i] = x[i] / y;
        }
    }

    private static void divide(double x, double[] y, double[] r, int n) {
        for (int i = 0; i < n; i++) {
            r[i] = x / y[i];
        }
    }

    private static void remainder(double[] x, double[] y, double[] r, int n) {
        for (int i = 0; i < n; i++) {
            r[i] = x[i] % y[i];
        }
    }

    private static void remainder(double[] x, double y, double[] r, int n) {
        for (int i = 0; i < n; i++) {
            r[i] = x[i] % y;
        }
    }

    private static void remainder(double x, double[] y, double[] r, int n) {
        for (int i = 0; i < n; i++) {
            r[i] = x % y[i];
        }
    }

    // ---- decimals: unscaled values that fit in a long compute in the long loops; the rest, and /, in BigDecimal

    private static void decimals(Call c, DataType.Decimal rt) {
        DataType.Decimal xt = (DataType.Decimal) c.a.type;
        DataType.Decimal yt = (DataType.Decimal) c.b.type;
        int s = rt.scale();
        // The long path needs both operands at the result's scale, so nothing rounds: + - % at
        // max(s1, s2), * at s1 + s2 (no shift). / always takes BigDecimal.
        int xShift = -1;
        int yShift = -1;
        switch (c.op) {
            case PLUS, MINUS, MODULO -> {
                if (s == Math.max(xt.scale(), yt.scale())) {
                    xShift = s - xt.scale();
                    yShift = s - yt.scale();
                }
            }
            case MULTIPLY -> {
                if (s == xt.scale() + yt.scale()) {
                    xShift = 0;
                    yShift = 0;
                }
            }
            default -> {}
        }
        boolean xArray = !c.a.isScalar();
        boolean yArray = !c.b.isScalar();
        BigInteger xsBig = xArray ? null : ((BigDecimal) c.a.scalar.value()).unscaledValue();
        BigInteger ysBig = yArray ? null : ((BigDecimal) c.b.scalar.value()).unscaledValue();
        boolean longPath = xShift >= 0
                && yShift >= 0
                && xShift < POW10.length
                && yShift < POW10.length
                && (xArray || xsBig.bitLength() < 64)
                && (yArray || ysBig.bitLength() < 64);
        DecimalRows rowsOf = new DecimalRows(c, xt, yt, rt);
        if (!longPath) {
            for (int row = 0; row < c.rows; row++) {
                rowsOf.compute(row);
            }
            return;
        }
        long xs = xArray ? 0 : xsBig.longValueExact();
        long ys = yArray ? 0 : ysBig.longValueExact();
        boolean scalarRescaleOverflow = false;
        if (!xArray && xShift > 0) {
            scalarRescaleOverflow = xs > Long.MAX_VALUE / POW10[xShift] || xs < -(Long.MAX_VALUE / POW10[xShift]);
            xs *= POW10[xShift];
        }
        if (!yArray && yShift > 0) {
            scalarRescaleOverflow |= ys > Long.MAX_VALUE / POW10[yShift] || ys < -(Long.MAX_VALUE / POW10[yShift]);
            ys *= POW10[yShift];
        }
        if (scalarRescaleOverflow || (c.op == Operator.MODULO && !yArray && ys == 0)) {
            for (int row = 0; row < c.rows; row++) {
                rowsOf.compute(row);
            }
            return;
        }
        MemorySegment xd = xArray ? c.a.data() : null;
        MemorySegment yd = yArray ? c.b.data() : null;
        int size = Math.min(CHUNK, c.rows);
        long[] x = xArray ? new long[size] : null;
        long[] y = yArray ? new long[size] : null;
        long[] r = new long[size];
        // Results of at most 18 digits are range-checked; a long never has more than 19 digits.
        boolean rangeCheck = rt.precision() < POW10.length;
        long limit = rangeCheck ? POW10[rt.precision()] - 1 : 0;
        for (int from = 0; from < c.rows; from += CHUNK) {
            int n = Math.min(CHUNK, c.rows - from);
            boolean suspect = false;
            if (xArray) {
                suspect |= !widenDecimal(xd, from, n, x);
                if (xShift > 0) {
                    suspect |= rescale(x, POW10[xShift], n);
                }
            }
            if (yArray) {
                suspect |= !widenDecimal(yd, from, n, y);
                if (yShift > 0) {
                    suspect |= rescale(y, POW10[yShift], n);
                }
            }
            if (!suspect) {
                switch (c.op) {
                    case PLUS -> {
                        if (xArray && yArray) {
                            add(x, y, r, n);
                            suspect = addOverflow(x, y, r, n) < 0;
                        } else if (xArray) {
                            add(x, ys, r, n);
                            suspect = addOverflow(x, ys, r, n) < 0;
                        } else {
                            add(y, xs, r, n);
                            suspect = addOverflow(y, xs, r, n) < 0;
                        }
                    }
                    case MINUS -> {
                        if (xArray && yArray) {
                            subtract(x, y, r, n);
                            suspect = subtractOverflow(x, y, r, n) < 0;
                        } else if (xArray) {
                            subtract(x, ys, r, n);
                            suspect = subtractOverflow(x, ys, r, n) < 0;
                        } else {
                            subtract(xs, y, r, n);
                            suspect = subtractOverflow(xs, y, r, n) < 0;
                        }
                    }
                    case MULTIPLY -> {
                        if (xArray && yArray) {
                            multiply(x, y, r, n);
                            suspect = multiplyOverflows(x, y, r, n);
                        } else if (xArray) {
                            multiply(x, ys, r, n);
                            suspect = multiplyOverflows(x, ys, r, n);
                        } else {
                            multiply(y, xs, r, n);
                            suspect = multiplyOverflows(y, xs, r, n);
                        }
                    }
                    case MODULO -> {
                        // Same scale: the remainder of the unscaled values is exact, with the dividend's sign.
                        if (xArray && yArray) {
                            suspect = divide(x, y, r, n, true, false);
                        } else if (xArray) {
                            divide(x, ys, r, n, true, false);
                        } else {
                            suspect = divide(xs, y, r, n, true, false);
                        }
                    }
                    default -> throw new AssertionError(c.op);
                }
                suspect |= rangeCheck && outOfRange(r, n, -limit, limit);
            }
            if (suspect) {
                for (int i = 0; i < n; i++) {
                    rowsOf.compute(from + i);
                }
            } else {
                for (int i = 0; i < n; i++) {
                    long off = (long) (from + i) << 4;
                    c.data.set(FixedWidth.LONG, off, r[i]);
                    c.data.set(FixedWidth.LONG, off + 8, r[i] >> 63);
                }
            }
        }
    }

    /** Low words of rows {@code from .. from+n-1} of a Decimal128 column into {@code dst}; whether every one fits in a long. */
    private static boolean widenDecimal(MemorySegment data, int from, int n, long[] dst) {
        long acc = 0;
        for (int i = 0; i < n; i++) {
            long off = (long) (from + i) << 4;
            long low = data.get(FixedWidth.LONG, off);
            dst[i] = low;
            acc |= data.get(FixedWidth.LONG, off + 8) ^ (low >> 63);
        }
        return acc == 0;
    }

    /** Multiplies every {@code x[i]} by {@code m > 0} in place; whether some product overflowed. */
    private static boolean rescale(long[] x, long m, int n) {
        long bound = Long.MAX_VALUE / m;
        boolean any = false;
        for (int i = 0; i < n; i++) {
            long v = x[i];
            any |= v > bound | v < -bound;
            x[i] = v * m;
        }
        return any;
    }

    /** Decimal rows computed one by one in BigDecimal: the exact reference the long path must agree with. */
    private static final class DecimalRows {
        private final Call c;
        private final DataType.Decimal xt;
        private final DataType.Decimal yt;
        private final DataType.Decimal rt;
        private final BigDecimal xs;
        private final BigDecimal ys;
        private final MemorySegment xd;
        private final MemorySegment yd;

        DecimalRows(Call c, DataType.Decimal xt, DataType.Decimal yt, DataType.Decimal rt) {
            this.c = c;
            this.xt = xt;
            this.yt = yt;
            this.rt = rt;
            this.xs = c.a.isScalar() ? (BigDecimal) c.a.scalar.value() : null;
            this.ys = c.b.isScalar() ? (BigDecimal) c.b.scalar.value() : null;
            this.xd = c.a.isScalar() ? null : c.a.data();
            this.yd = c.b.isScalar() ? null : c.b.data();
        }

        /** Computes and writes valid row {@code row}, or fails it; a null row is left alone. */
        void compute(int row) {
            if (!c.valid(row)) {
                return;
            }
            BigDecimal x = xs != null ? xs : read(xd, row, xt.scale());
            BigDecimal y = ys != null ? ys : read(yd, row, yt.scale());
            if ((c.op == Operator.DIVIDE || c.op == Operator.MODULO) && y.signum() == 0) {
                c.fail("division by zero", row);
                return;
            }
            BigDecimal v = switch (c.op) {
                case PLUS -> x.add(y);
                case MINUS -> x.subtract(y);
                case MULTIPLY -> x.multiply(y);
                case DIVIDE -> x.divide(y, rt.scale(), RoundingMode.HALF_UP);
                case MODULO -> x.remainder(y);
                default -> throw new AssertionError(c.op);
            };
            BigDecimal fitted = v.setScale(rt.scale(), RoundingMode.HALF_UP);
            if (fitted.precision() > rt.precision()) {
                c.fail("decimal overflow (" + fitted.toPlainString() + " does not fit " + rt + ")", row);
                return;
            }
            BigInteger u = fitted.unscaledValue();
            long off = (long) row << 4;
            c.data.set(FixedWidth.LONG, off, u.longValue());
            c.data.set(FixedWidth.LONG, off + 8, u.shiftRight(64).longValue());
        }

        private static BigDecimal read(MemorySegment d, int row, int scale) {
            long off = (long) row << 4;
            long low = d.get(FixedWidth.LONG, off);
            long high = d.get(FixedWidth.LONG, off + 8);
            BigInteger u = high == (low >> 63)
                    ? BigInteger.valueOf(low)
                    : BigInteger.valueOf(high)
                            .shiftLeft(64)
                            .or(BigInteger.valueOf(low).and(LOW_64));
            return new BigDecimal(u, scale);
        }
    }

    private static final BigInteger LOW_64 = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    static FieldVector negate(KernelInput v, int rows, BufferAllocator allocator) {
        DataType t = v.type;
        if (!(t.isNumeric() || t instanceof DataType.Null) || (t instanceof DataType.Int i && !i.signed())) {
            // Unreachable from a plan: the planner refuses to negate what is not a signed number.
            throw new UnsupportedOperationException("negation of " + t + " is not supported");
        }
        FieldVector out = ResultVector.allocate(t, rows, allocator);
        try {
            if (v.isNullType()) {
                return out;
            }
            ResultVector.intersectValidity(out, rows, v);
            switch (t) {
                case DataType.Int _ -> {
                    KernelInput.LongReader x = v.longs();
                    ResultVector.LongWriter w = ResultVector.longs(out, t);
                    for (int r = 0; r < rows; r++) {
                        w.set(r, -x.get(r));
                    }
                }
                case DataType.FloatingPoint _ -> {
                    KernelInput.DoubleReader x = v.doubles();
                    ResultVector.DoubleWriter w = ResultVector.doubles(out, t);
                    for (int r = 0; r < rows; r++) {
                        w.set(r, -x.get(r));
                    }
                }
                case DataType.Decimal _ -> {
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
