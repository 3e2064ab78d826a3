package dev.quiver.rowfn.ir;

import dev.quiver.backend.KernelArithmeticException;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.types.ElementType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * The scalar reference semantics of the IR: evaluates one row at a time with plain Java
 * arithmetic. Every backend must produce exactly these values (bit for bit, including NaN
 * payload-insensitive equality and signed zeros); tests use this interpreter as their oracle.
 * It is deliberately simple and slow.
 */
public final class RowInterpreter {
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    private RowInterpreter() {
    }

    /**
     * Evaluates {@code node} for one row whose arguments are {@code args} (boxed as the argument
     * types say). Throws {@link ArithmeticException} on integer division by zero.
     */
    public static Number evaluate(IrNode node, Number[] args) {
        return switch (node) {
            case IrNode.Arg a -> args[a.index()];
            case IrNode.Const c -> c.value();
            case IrNode.Unary u -> unary(u.op(), u.type(), evaluate(u.input(), args));
            case IrNode.Binary b -> binary(b.op(), b.type(), evaluate(b.left(), args), evaluate(b.right(), args));
            case IrNode.Fma f -> fma(f.type(), evaluate(f.a(), args), evaluate(f.b(), args), evaluate(f.c(), args));
            case IrNode.Cast c -> cast(evaluate(c.input(), args), c.type());
        };
    }

    /**
     * Runs {@code program} over Arrow memory, row by row: for each row valid in
     * {@code validity}, reads the arguments from {@code args}, evaluates, and writes the value
     * into {@code out}; rows that are null get zero. Throws {@link KernelArithmeticException}
     * naming the first valid row whose integer division has a zero divisor.
     */
    public static void run(KernelProgram program, List<MemorySegment> args, MemorySegment validity,
                           MemorySegment out, int rows, String backendName) {
        List<ElementType> types = program.argTypes();
        Number[] row = new Number[types.size()];
        ElementType rt = program.resultType();
        for (int r = 0; r < rows; r++) {
            if (!ValidityBitmaps.isValid(validity, r)) {
                write(out, rt, r, zero(rt));
                continue;
            }
            for (int k = 0; k < row.length; k++) {
                row[k] = read(args.get(k), types.get(k), r);
            }
            Number v;
            try {
                v = evaluate(program.root(), row);
            } catch (ArithmeticException e) {
                throw new KernelArithmeticException("integer division by zero", program.text(), r, backendName);
            }
            write(out, rt, r, v);
        }
    }

    /**
     * The first row valid in {@code validity} whose evaluation fails (an integer division by
     * zero), or -1 when every valid row evaluates. Backends that cannot locate the failing row
     * themselves (an OpenCL kernel only raises a flag) call this on their slow path.
     */
    public static long firstFailingRow(KernelProgram program, List<MemorySegment> args, MemorySegment validity, int rows) {
        List<ElementType> types = program.argTypes();
        Number[] row = new Number[types.size()];
        for (int r = 0; r < rows; r++) {
            if (!ValidityBitmaps.isValid(validity, r)) {
                continue;
            }
            for (int k = 0; k < row.length; k++) {
                row[k] = read(args.get(k), types.get(k), r);
            }
            try {
                evaluate(program.root(), row);
            } catch (ArithmeticException e) {
                return r;
            }
        }
        return -1;
    }

    /** Reads element {@code row} of a segment holding {@code type} values. */
    public static Number read(MemorySegment data, ElementType type, long row) {
        long off = row * type.byteWidth();
        return switch (type) {
            case INT32 -> data.get(I32, off);
            case INT64 -> data.get(I64, off);
            case FLOAT32 -> data.get(F32, off);
            case FLOAT64 -> data.get(F64, off);
        };
    }

    /** Writes element {@code row} of a segment holding {@code type} values. */
    public static void write(MemorySegment data, ElementType type, long row, Number v) {
        long off = row * type.byteWidth();
        switch (type) {
            case INT32 -> data.set(I32, off, v.intValue());
            case INT64 -> data.set(I64, off, v.longValue());
            case FLOAT32 -> data.set(F32, off, v.floatValue());
            case FLOAT64 -> data.set(F64, off, v.doubleValue());
        }
    }

    private static Number zero(ElementType t) {
        return switch (t) {
            case INT32 -> 0;
            case INT64 -> 0L;
            case FLOAT32 -> 0f;
            case FLOAT64 -> 0d;
        };
    }

    private static Number unary(UnaryOp op, ElementType t, Number x) {
        return switch (t) {
            case INT32 -> switch (op) {
                case NEG -> -x.intValue();
                case ABS -> Math.abs(x.intValue());
                case SQRT -> throw new IllegalStateException("sqrt on Int32");
            };
            case INT64 -> switch (op) {
                case NEG -> -x.longValue();
                case ABS -> Math.abs(x.longValue());
                case SQRT -> throw new IllegalStateException("sqrt on Int64");
            };
            case FLOAT32 -> switch (op) {
                case NEG -> -x.floatValue();
                case ABS -> Math.abs(x.floatValue());
                case SQRT -> (float) Math.sqrt(x.floatValue()); // exact: sqrt of a float, correctly rounded via double
            };
            case FLOAT64 -> switch (op) {
                case NEG -> -x.doubleValue();
                case ABS -> Math.abs(x.doubleValue());
                case SQRT -> Math.sqrt(x.doubleValue());
            };
        };
    }

    private static Number binary(BinaryOp op, ElementType t, Number x, Number y) {
        return switch (t) {
            case INT32 -> {
                int a = x.intValue(), b = y.intValue();
                yield switch (op) {
                    case ADD -> a + b;
                    case SUB -> a - b;
                    case MUL -> a * b;
                    case DIV -> a / nonZero(b);
                    case MIN -> Math.min(a, b);
                    case MAX -> Math.max(a, b);
                };
            }
            case INT64 -> {
                long a = x.longValue(), b = y.longValue();
                yield switch (op) {
                    case ADD -> a + b;
                    case SUB -> a - b;
                    case MUL -> a * b;
                    case DIV -> a / nonZero(b);
                    case MIN -> Math.min(a, b);
                    case MAX -> Math.max(a, b);
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
            throw new ArithmeticException("/ by zero");
        }
        return divisor;
    }

    private static long nonZero(long divisor) {
        if (divisor == 0) {
            throw new ArithmeticException("/ by zero");
        }
        return divisor;
    }

    private static Number fma(ElementType t, Number a, Number b, Number c) {
        return switch (t) {
            case INT32 -> a.intValue() * b.intValue() + c.intValue();
            case INT64 -> a.longValue() * b.longValue() + c.longValue();
            case FLOAT32 -> Math.fma(a.floatValue(), b.floatValue(), c.floatValue());
            case FLOAT64 -> Math.fma(a.doubleValue(), b.doubleValue(), c.doubleValue());
        };
    }

    private static Number cast(Number x, ElementType to) {
        return switch (to) {
            case INT32 -> x.intValue();
            case INT64 -> x.longValue();
            case FLOAT32 -> x instanceof Long l ? (float) l : x.floatValue();
            case FLOAT64 -> x instanceof Long l ? (double) l : x.doubleValue();
        };
    }
}
