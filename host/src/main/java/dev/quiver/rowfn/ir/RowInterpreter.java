package dev.quiver.rowfn.ir;

import dev.quiver.cancel.Cancellation;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.types.ElementType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.IdentityHashMap;
import java.util.List;

/**
 * The scalar reference semantics of the IR: evaluates one row at a time with plain Java
 * arithmetic. Every backend must produce exactly these values (bit for bit, including NaN
 * payload-insensitive equality and signed zeros); tests use this interpreter as their oracle.
 * It is deliberately simple and slow.
 */
public final class RowInterpreter {
    /** {@link #run} and {@link #firstFailingRow} check for cancellation when {@code (row & CHECK_ROWS) == 0}. */
    private static final int CHECK_ROWS = 63;

    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    private RowInterpreter() {}

    /**
     * Evaluates {@code node} for one row whose arguments are {@code args} (boxed as the argument
     * types say; a Boolean is an Integer 0 or 1). Throws {@link RowFailure} when a check fires or
     * an integer division or remainder has a zero divisor. A NaN that an operation computes is
     * returned as the canonical NaN ({@link Double#NaN}, {@link Float#NaN}): which operand's
     * payload {@code NaN + NaN} keeps depends on the JIT (the interpreter keeps the right one's,
     * compiled code the left one's), and a result depends on its input alone.
     */
    public static Number evaluate(IrNode node, Number[] args) {
        return switch (node) {
            case IrNode.Arg a -> args[a.index()];
            case IrNode.Const c -> c.value();
            // A DAG: a subtree shared by several parents (a RowFn body that uses a value twice)
            // is computed once per row, not once per path to it.
            default -> canonicalNaN(new Row(args).eval(node));
        };
    }

    private static Number canonicalNaN(Number v) {
        return switch (v) {
            case Double d when d.isNaN() -> Double.NaN;
            case Float f when f.isNaN() -> Float.NaN;
            default -> v;
        };
    }

    /** One row's evaluation, remembering the value of every operation node it has computed. */
    private static final class Row {
        private final Number[] args;
        private final IdentityHashMap<IrNode, Number> done = new IdentityHashMap<>();

        Row(Number[] args) {
            this.args = args;
        }

        Number eval(IrNode node) {
            if (node instanceof IrNode.Arg a) {
                return args[a.index()];
            }
            if (node instanceof IrNode.Const c) {
                return c.value();
            }
            Number seen = done.get(node);
            if (seen != null) {
                return seen;
            }
            Number v = compute(node);
            done.put(node, v);
            return v;
        }

        private Number compute(IrNode node) {
            return switch (node) {
                case IrNode.Arg a -> args[a.index()];
                case IrNode.Const c -> c.value();
                case IrNode.Unary u -> unary(u.op(), u.type(), eval(u.input()));
                case IrNode.Binary b -> binary(b.op(), b.type(), eval(b.left()), eval(b.right()));
                case IrNode.Fma f -> fma(f.type(), eval(f.a()), eval(f.b()), eval(f.c()));
                case IrNode.Cast c -> cast(eval(c.input()), c.type());
                case IrNode.Compare c -> compare(c.op(), c.left().type(), eval(c.left()), eval(c.right())) ? 1 : 0;
                case IrNode.Select s -> {
                    // Both sides are computed (and may fail), as the kernels do.
                    boolean cond = eval(s.condition()).intValue() != 0;
                    Number t = eval(s.ifTrue());
                    Number f = eval(s.ifFalse());
                    yield cond ? t : f;
                }
                case IrNode.Check c -> {
                    boolean fails = eval(c.failWhen()).intValue() != 0;
                    Number v = eval(c.value());
                    Number shown = eval(c.shown());
                    if (fails) {
                        throw new RowFailure(c.message(), shown);
                    }
                    yield v;
                }
            };
        }
    }

    /** True when the row is null in the result for a valid input row: the program's null condition holds. */
    public static boolean isNullResult(KernelProgram program, Number[] args) {
        return program.nullWhen().isPresent()
                && evaluate(program.nullWhen().get(), args).intValue() != 0;
    }

    /**
     * Runs {@code program} over Arrow memory, row by row: for each row valid in
     * {@code validity}, reads the arguments from {@code args}, evaluates, and writes the value
     * into {@code out} (a bitmap for a Boolean result); rows that are null get zero. Where the
     * program's {@linkplain KernelProgram#nullWhen() null condition} holds, clears the row's
     * bit in {@code validity}. Throws {@link dev.quiver.errors.KernelArithmeticException} for
     * the first valid row that fails.
     */
    public static void run(
            KernelProgram program,
            List<MemorySegment> args,
            MemorySegment validity,
            MemorySegment out,
            int rows,
            String backendName) {
        List<ElementType> types = program.argTypes();
        Number[] row = new Number[types.size()];
        ElementType rt = program.resultType();
        for (int r = 0; r < rows; r++) {
            if ((r & CHECK_ROWS) == 0) {
                Cancellation.check(); // row by row is slow: a boundary every few rows
            }
            if (!ValidityBitmaps.isValid(validity, r)) {
                write(out, rt, r, zero(rt));
                continue;
            }
            for (int k = 0; k < row.length; k++) {
                row[k] = read(args.get(k), types.get(k), r);
            }
            Number v;
            boolean isNull;
            try {
                v = evaluate(program.root(), row);
                isNull = isNullResult(program, row);
            } catch (RowFailure e) {
                throw failure(program, e, r, backendName);
            }
            write(out, rt, r, v);
            if (isNull) {
                ValidityBitmaps.clear(validity, r);
            }
        }
    }

    /** The exception a backend raises for {@code failure} at {@code row}: what failed, where, on which device. */
    public static KernelArithmeticException failure(
            KernelProgram program, RowFailure failure, long row, String backendName) {
        return new KernelArithmeticException(failure.getMessage(), program.text(), row, backendName);
    }

    /**
     * The exception for the row {@code row} that a backend found failing (it knows the row, not
     * why): the row is evaluated again here, so every device reports the same message. When the
     * row does not fail here, reports an integer division by zero (what a kernel that only
     * divides can mean).
     */
    public static KernelArithmeticException failureAt(
            KernelProgram program, List<MemorySegment> args, long row, String backendName) {
        List<ElementType> types = program.argTypes();
        Number[] values = new Number[types.size()];
        for (int k = 0; k < values.length; k++) {
            values[k] = read(args.get(k), types.get(k), row);
        }
        try {
            evaluate(program.root(), values);
            if (program.nullWhen().isPresent()) {
                evaluate(program.nullWhen().get(), values);
            }
        } catch (RowFailure e) {
            return failure(program, e, row, backendName);
        }
        boolean checks = program.anyNode(n -> n instanceof IrNode.Check);
        return new KernelArithmeticException(
                checks && !program.hasIntegerDivision()
                        ? "a check failed on the device (the reference, computing within the documented accuracy, does not fail this row)"
                        : "integer division by zero",
                program.text(),
                row,
                backendName);
    }

    /**
     * The first row valid in {@code validity} whose evaluation fails, or -1 when every valid row
     * evaluates. Backends that cannot locate the failing row themselves call this on their slow path.
     */
    public static long firstFailingRow(
            KernelProgram program, List<MemorySegment> args, MemorySegment validity, int rows) {
        List<ElementType> types = program.argTypes();
        Number[] row = new Number[types.size()];
        for (int r = 0; r < rows; r++) {
            if ((r & CHECK_ROWS) == 0) {
                Cancellation.check();
            }
            if (!ValidityBitmaps.isValid(validity, r)) {
                continue;
            }
            for (int k = 0; k < row.length; k++) {
                row[k] = read(args.get(k), types.get(k), r);
            }
            try {
                evaluate(program.root(), row);
                isNullResult(program, row);
            } catch (RowFailure e) {
                return r;
            }
        }
        return -1;
    }

    /** Reads element {@code row} of a segment holding {@code type} values (a bitmap for BOOL). */
    public static Number read(MemorySegment data, ElementType type, long row) {
        long off = row * type.byteWidth();
        return switch (type) {
            case BOOL -> ValidityBitmaps.isValid(data, row) ? 1 : 0;
            case INT32 -> data.get(I32, off);
            case INT64 -> data.get(I64, off);
            case FLOAT32 -> data.get(F32, off);
            case FLOAT64 -> data.get(F64, off);
        };
    }

    /** Writes element {@code row} of a segment holding {@code type} values (a bitmap for BOOL). */
    public static void write(MemorySegment data, ElementType type, long row, Number v) {
        long off = row * type.byteWidth();
        switch (type) {
            case BOOL -> {
                if (v.intValue() != 0) {
                    ValidityBitmaps.set(data, row);
                } else {
                    ValidityBitmaps.clear(data, row);
                }
            }
            case INT32 -> data.set(I32, off, v.intValue());
            case INT64 -> data.set(I64, off, v.longValue());
            case FLOAT32 -> data.set(F32, off, v.floatValue());
            case FLOAT64 -> data.set(F64, off, v.doubleValue());
        }
    }

    private static Number zero(ElementType t) {
        return switch (t) {
            case INT32, BOOL -> 0;
            case INT64 -> 0L;
            case FLOAT32 -> 0f;
            case FLOAT64 -> 0d;
        };
    }

    private static Number unary(UnaryOp op, ElementType t, Number x) {
        return switch (t) {
            case BOOL ->
                switch (op) {
                    case NOT -> x.intValue() ^ 1;
                    default -> throw new IllegalStateException(op + " on Boolean");
                };
            case INT32 ->
                switch (op) {
                    case NEG -> -x.intValue();
                    case ABS -> Math.abs(x.intValue());
                    case NOT -> ~x.intValue();
                    default -> throw new IllegalStateException(op + " on Int32");
                };
            case INT64 ->
                switch (op) {
                    case NEG -> -x.longValue();
                    case ABS -> Math.abs(x.longValue());
                    case NOT -> ~x.longValue();
                    default -> throw new IllegalStateException(op + " on Int64");
                };
            case FLOAT32 ->
                switch (op) {
                    case NEG -> -x.floatValue();
                    case ABS -> Math.abs(x.floatValue());
                    // Computed in double and rounded once: correctly rounded for sqrt and the exact
                    // operations; within 1 ulp of the float result for the others.
                    default -> (float) unaryDouble(op, x.floatValue());
                };
            case FLOAT64 ->
                switch (op) {
                    case NEG -> -x.doubleValue();
                    case ABS -> Math.abs(x.doubleValue());
                    default -> unaryDouble(op, x.doubleValue());
                };
        };
    }

    /** The reference of the floating-point functions: StrictMath (fdlibm), identical on every JVM. */
    static double unaryDouble(UnaryOp op, double x) {
        return switch (op) {
            case SQRT -> StrictMath.sqrt(x);
            case CBRT -> StrictMath.cbrt(x);
            case EXP -> StrictMath.exp(x);
            case EXPM1 -> StrictMath.expm1(x);
            case LOG -> StrictMath.log(x);
            case LOG1P -> StrictMath.log1p(x);
            case LOG2 -> log2(x);
            case LOG10 -> StrictMath.log10(x);
            case SIN -> StrictMath.sin(x);
            case COS -> StrictMath.cos(x);
            case TAN -> StrictMath.tan(x);
            case ASIN -> StrictMath.asin(x);
            case ACOS -> StrictMath.acos(x);
            case ATAN -> StrictMath.atan(x);
            case SINH -> StrictMath.sinh(x);
            case COSH -> StrictMath.cosh(x);
            case TANH -> StrictMath.tanh(x);
            case FLOOR -> StrictMath.floor(x);
            case CEIL -> StrictMath.ceil(x);
            case TRUNC -> x < 0 ? StrictMath.ceil(x) : StrictMath.floor(x);
            case RINT -> StrictMath.rint(x);
            case NEG, ABS, NOT -> throw new IllegalStateException(op + " is not a floating-point function");
        };
    }

    /** 1 / ln 2 as the sum of two doubles: the closest double and the remainder. */
    private static final double INV_LN2_HI = 1.4426950408889634;

    private static final double INV_LN2_LO = 2.0355273740931033e-17;
    private static final double SQRT2 = 1.4142135623730951;

    /**
     * Base-2 logarithm: the exponent plus the logarithm of the significand, so powers of two
     * are exact. The significand is taken in [sqrt(1/2), sqrt(2)), so the two never cancel
     * (x just below 1 is -2^-53/ln 2, not the exponent -1 plus almost 1), and the product and
     * sum are fused: within 1.5 ulp elsewhere (1.33 ulp measured).
     */
    static double log2(double x) {
        if (!(x > 0) || Double.isInfinite(x)) {
            return StrictMath.log(x); // NaN, -Infinity for ±0, +Infinity
        }
        int e = Math.getExponent(x);
        if (e == Double.MIN_EXPONENT - 1) { // subnormal: scale into the normal range
            x *= 0x1p54;
            e = Math.getExponent(x) - 54;
        }
        double m = x / Math.scalb(1.0, Math.getExponent(x)); // [1, 2)
        if (m == 1.0) {
            return e;
        }
        if (m > SQRT2) {
            m *= 0.5;
            e += 1;
        }
        double lnM = StrictMath.log(m);
        return Math.fma(lnM, INV_LN2_HI, Math.fma(lnM, INV_LN2_LO, e));
    }

    private static Number binary(BinaryOp op, ElementType t, Number x, Number y) {
        return switch (t) {
            case BOOL -> {
                int a = x.intValue(), b = y.intValue();
                yield switch (op) {
                    case AND -> a & b;
                    case OR -> a | b;
                    case XOR -> a ^ b;
                    default -> throw new IllegalStateException(op + " on Boolean");
                };
            }
            case INT32 -> {
                int a = x.intValue(), b = y.intValue();
                yield switch (op) {
                    case ADD -> a + b;
                    case SUB -> a - b;
                    case MUL -> a * b;
                    case DIV -> a / nonZero(b);
                    case REM -> a % nonZero(b);
                    case MIN -> Math.min(a, b);
                    case MAX -> Math.max(a, b);
                    case AND -> a & b;
                    case OR -> a | b;
                    case XOR -> a ^ b;
                    case SHL -> a << b;
                    case SHR -> a >> b;
                    case USHR -> a >>> b;
                    default -> throw new IllegalStateException(op + " on Int32");
                };
            }
            case INT64 -> {
                long a = x.longValue(), b = y.longValue();
                yield switch (op) {
                    case ADD -> a + b;
                    case SUB -> a - b;
                    case MUL -> a * b;
                    case DIV -> a / nonZero(b);
                    case REM -> a % nonZero(b);
                    case MIN -> Math.min(a, b);
                    case MAX -> Math.max(a, b);
                    case AND -> a & b;
                    case OR -> a | b;
                    case XOR -> a ^ b;
                    case SHL -> a << b;
                    case SHR -> a >> b;
                    case USHR -> a >>> b;
                    default -> throw new IllegalStateException(op + " on Int64");
                };
            }
            case FLOAT32 -> {
                float a = x.floatValue(), b = y.floatValue();
                yield switch (op) {
                    case ADD -> a + b;
                    case SUB -> a - b;
                    case MUL -> a * b;
                    case DIV -> a / b;
                    case MIN -> Math.min(a, b);
                    case MAX -> Math.max(a, b);
                    default -> (float) binaryDouble(op, a, b);
                };
            }
            case FLOAT64 -> {
                double a = x.doubleValue(), b = y.doubleValue();
                yield switch (op) {
                    case ADD -> a + b;
                    case SUB -> a - b;
                    case MUL -> a * b;
                    case DIV -> a / b;
                    case MIN -> Math.min(a, b);
                    case MAX -> Math.max(a, b);
                    default -> binaryDouble(op, a, b);
                };
            }
        };
    }

    static double binaryDouble(BinaryOp op, double a, double b) {
        return switch (op) {
            case POW -> StrictMath.pow(a, b);
            case ATAN2 -> StrictMath.atan2(a, b);
            case HYPOT -> StrictMath.hypot(a, b);
            default -> throw new IllegalStateException(op + " is not a floating-point function");
        };
    }

    private static boolean compare(CmpOp op, ElementType t, Number x, Number y) {
        return switch (t) {
            case BOOL, INT32, INT64 -> {
                long a = x.longValue(), b = y.longValue();
                yield switch (op) {
                    case EQ -> a == b;
                    case NE -> a != b;
                    case LT -> a < b;
                    case LE -> a <= b;
                    case GT -> a > b;
                    case GE -> a >= b;
                };
            }
            case FLOAT32, FLOAT64 -> {
                double a = x.doubleValue(), b = y.doubleValue(); // exact for floats
                yield switch (op) {
                    case EQ -> a == b;
                    case NE -> a != b;
                    case LT -> a < b;
                    case LE -> a <= b;
                    case GT -> a > b;
                    case GE -> a >= b;
                };
            }
        };
    }

    /*
     * Integer division by zero is decided here, explicitly, not left to the hardware trap that
     * normally makes the JVM throw: native libraries loaded into the process (PoCL 3.1 among
     * them) may install a SIGFPE handler that skips the faulting instruction instead.
     */
    private static int nonZero(int divisor) {
        if (divisor == 0) {
            throw new RowFailure("integer division by zero", null);
        }
        return divisor;
    }

    private static long nonZero(long divisor) {
        if (divisor == 0) {
            throw new RowFailure("integer division by zero", null);
        }
        return divisor;
    }

    private static Number fma(ElementType t, Number a, Number b, Number c) {
        return switch (t) {
            case INT32 -> a.intValue() * b.intValue() + c.intValue();
            case INT64 -> a.longValue() * b.longValue() + c.longValue();
            case FLOAT32 -> Math.fma(a.floatValue(), b.floatValue(), c.floatValue());
            case FLOAT64 -> Math.fma(a.doubleValue(), b.doubleValue(), c.doubleValue());
            case BOOL -> throw new IllegalStateException("fma on Boolean");
        };
    }

    /** Java's cast from the boxed value's own type to {@code to}. */
    private static Number cast(Number x, ElementType to) {
        return switch (x) {
            case Integer i ->
                switch (to) {
                    case INT32, BOOL -> i;
                    case INT64 -> (long) i;
                    case FLOAT32 -> (float) i;
                    case FLOAT64 -> (double) i;
                };
            case Long l ->
                switch (to) {
                    case INT32 -> (int) (long) l;
                    case INT64 -> l;
                    case FLOAT32 -> (float) (long) l;
                    case FLOAT64 -> (double) (long) l;
                    case BOOL -> throw new IllegalStateException("cast to Boolean");
                };
            case Float f ->
                switch (to) {
                    case INT32 -> (int) (float) f;
                    case INT64 -> (long) (float) f;
                    case FLOAT32 -> f;
                    case FLOAT64 -> (double) (float) f;
                    case BOOL -> throw new IllegalStateException("cast to Boolean");
                };
            case Double d ->
                switch (to) {
                    case INT32 -> (int) (double) d;
                    case INT64 -> (long) (double) d;
                    case FLOAT32 -> (float) (double) d;
                    case FLOAT64 -> d;
                    case BOOL -> throw new IllegalStateException("cast to Boolean");
                };
            default -> throw new IllegalStateException("unexpected value " + x.getClass());
        };
    }
}
