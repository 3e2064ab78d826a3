package dev.quiver.rowfn;

import dev.quiver.rowfn.ir.BinaryOp;
import dev.quiver.rowfn.ir.CmpOp;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.UnaryOp;
import dev.quiver.types.ElementType;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A value of one row inside a RowFn body: an argument, a constant, or what operations on them
 * give. Operations do not compute anything; they record the computation as kernel IR, which
 * Quiver then runs as a Vector API loop, an OpenCL kernel or, for constants, once.
 *
 * <p>Types: operands of different number types meet at their common type (Int32 &lt; Int64 &lt;
 * Float32 &lt; Float64, and Int64 with Float32 gives Float64). A Java number written as an
 * operand ({@code x.mul(2)}, {@code x.add(0.5)}) takes the type of the other operand when that is
 * a floating-point type, or when both are integers; an integer value meets a Java {@code double}
 * at Float64. Comparisons give a Boolean; Booleans combine with {@link #and}, {@link #or},
 * {@link #xor} and {@link #not}, and choose values with {@link #select}.
 *
 * <p>Branches: there are none. {@link #select} computes both sides and picks one per row, so
 * guard a divisor before dividing: {@code x.div(select(y.eq(0), Val.of(1), y))}.
 *
 * <p>Null: {@link #nullIf} makes the value null where a condition holds (an optional output,
 * for functions declared with {@link RowFn.Builder#optionalOutput()}); anything computed from a
 * null value is null.
 */
public final class Val {
    private final IrNode node;
    /** Where this value is null although the row's arguments are valid, or null for "never". */
    private final IrNode nullWhen;

    Val(IrNode node, IrNode nullWhen) {
        this.node = Objects.requireNonNull(node, "node is null");
        this.nullWhen = nullWhen;
    }

    Val(IrNode node) {
        this(node, null);
    }

    /** The IR this value records. */
    public IrNode node() {
        return node;
    }

    IrNode nullWhen() {
        return nullWhen;
    }

    public ElementType type() {
        return node.type();
    }

    // ---- constants ----------------------------------------------------------------------

    public static Val of(double v) {
        return new Val(Ir.lit(v));
    }

    public static Val of(float v) {
        return new Val(Ir.lit(v));
    }

    public static Val of(long v) {
        return new Val(Ir.lit(v));
    }

    public static Val of(int v) {
        return new Val(Ir.lit(v));
    }

    public static Val of(boolean v) {
        return new Val(Ir.lit(v));
    }

    /** A constant of {@code type} ({@code value} converted as Java's casts do). */
    public static Val of(ElementType type, Number value) {
        return new Val(Ir.lit(type, value));
    }

    /** A Java number as an operand next to {@code other}: see the class comment. */
    private static Val operand(Number n, Val other) {
        ElementType t = other.type();
        boolean javaFloat = n instanceof Double || n instanceof Float;
        if (t.isFloatingPoint()) {
            return of(t, n);
        }
        if (t.isInteger() && !javaFloat) {
            return of(n instanceof Long && t == ElementType.INT32 ? ElementType.INT64 : t, n);
        }
        if (t.isInteger()) {
            return of(ElementType.FLOAT64, n);
        }
        throw new IllegalArgumentException("a number does not combine with a Boolean (" + n + ")");
    }

    // ---- building blocks ----------------------------------------------------------------

    private static IrNode orNull(IrNode a, IrNode b) {
        return a == null ? b : b == null ? a : Ir.or(a, b);
    }

    private Val derive(IrNode result, Val... others) {
        IrNode n = nullWhen;
        for (Val o : others) {
            n = orNull(n, o.nullWhen);
        }
        return new Val(result, n);
    }

    private Val unary(UnaryOp op) {
        return derive(wrap(() -> Ir.unary(op, node), op.symbol()));
    }

    private Val binary(BinaryOp op, Val o) {
        return derive(wrap(() -> Ir.binary(op, node, o.node), op.symbol()), o);
    }

    private Val compare(CmpOp op, Val o) {
        return derive(wrap(() -> Ir.compare(op, node, o.node), op.symbol()), o);
    }

    /** Builds IR, turning a type error into one that names the operation and the operand types. */
    private static IrNode wrap(Supplier<IrNode> build, String op) {
        try {
            return build.get();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + op + "': " + e.getMessage(), e);
        }
    }

    // ---- arithmetic ---------------------------------------------------------------------

    public Val add(Val o) {
        return binary(BinaryOp.ADD, o);
    }

    public Val add(Number o) {
        return add(operand(o, this));
    }

    public Val sub(Val o) {
        return binary(BinaryOp.SUB, o);
    }

    public Val sub(Number o) {
        return sub(operand(o, this));
    }

    public Val mul(Val o) {
        return binary(BinaryOp.MUL, o);
    }

    public Val mul(Number o) {
        return mul(operand(o, this));
    }

    /** Division: IEEE for floats; for integers truncating, and a zero divisor fails the row (a fallible body). */
    public Val div(Val o) {
        return binary(BinaryOp.DIV, o);
    }

    public Val div(Number o) {
        return div(operand(o, this));
    }

    /** Integer remainder (Java's {@code %}); a zero divisor fails the row. */
    public Val rem(Val o) {
        return binary(BinaryOp.REM, o);
    }

    public Val rem(Number o) {
        return rem(operand(o, this));
    }

    public Val neg() {
        return unary(UnaryOp.NEG);
    }

    public Val abs() {
        return unary(UnaryOp.ABS);
    }

    /** As {@link Math#min}: NaN wins, -0.0 is below +0.0. */
    public Val min(Val o) {
        return binary(BinaryOp.MIN, o);
    }

    public Val min(Number o) {
        return min(operand(o, this));
    }

    /** As {@link Math#max}: NaN wins, +0.0 is above -0.0. */
    public Val max(Val o) {
        return binary(BinaryOp.MAX, o);
    }

    public Val max(Number o) {
        return max(operand(o, this));
    }

    /** {@code this * b + c}, one rounding for floats. */
    public Val fma(Val b, Val c) {
        return derive(wrap(() -> Ir.fma(node, b.node, c.node), "fma"), b, c);
    }

    // ---- bits and logic -----------------------------------------------------------------

    /** Bitwise AND of integers, logical AND of Booleans. */
    public Val and(Val o) {
        return binary(BinaryOp.AND, o);
    }

    public Val or(Val o) {
        return binary(BinaryOp.OR, o);
    }

    public Val xor(Val o) {
        return binary(BinaryOp.XOR, o);
    }

    /** Bitwise complement of an integer, negation of a Boolean. */
    public Val not() {
        return unary(UnaryOp.NOT);
    }

    public Val shl(Val count) {
        return binary(BinaryOp.SHL, count);
    }

    public Val shl(int count) {
        return shl(operand(count, this));
    }

    public Val shr(Val count) {
        return binary(BinaryOp.SHR, count);
    }

    public Val shr(int count) {
        return shr(operand(count, this));
    }

    public Val ushr(Val count) {
        return binary(BinaryOp.USHR, count);
    }

    public Val ushr(int count) {
        return ushr(operand(count, this));
    }

    // ---- comparisons (IEEE: false with NaN, except ne) ----------------------------------

    public Val eq(Val o) {
        return compare(CmpOp.EQ, o);
    }

    public Val eq(Number o) {
        return eq(operand(o, this));
    }

    public Val ne(Val o) {
        return compare(CmpOp.NE, o);
    }

    public Val ne(Number o) {
        return ne(operand(o, this));
    }

    public Val lt(Val o) {
        return compare(CmpOp.LT, o);
    }

    public Val lt(Number o) {
        return lt(operand(o, this));
    }

    public Val le(Val o) {
        return compare(CmpOp.LE, o);
    }

    public Val le(Number o) {
        return le(operand(o, this));
    }

    public Val gt(Val o) {
        return compare(CmpOp.GT, o);
    }

    public Val gt(Number o) {
        return gt(operand(o, this));
    }

    public Val ge(Val o) {
        return compare(CmpOp.GE, o);
    }

    public Val ge(Number o) {
        return ge(operand(o, this));
    }

    /** True where this float is NaN. */
    public Val isNaN() {
        return ne(this);
    }

    /** {@code condition ? ifTrue : ifFalse} per row, without a branch: both sides are computed. */
    public static Val select(Val condition, Val ifTrue, Val ifFalse) {
        return condition.derive(
                wrap(() -> Ir.select(condition.node, ifTrue.node, ifFalse.node), "select"), ifTrue, ifFalse);
    }

    /** {@code this ? ifTrue : ifFalse}: this must be a Boolean. */
    public Val choose(Val ifTrue, Val ifFalse) {
        return select(this, ifTrue, ifFalse);
    }

    // ---- conversions --------------------------------------------------------------------

    /** Java's cast to {@code type} (float to integer truncates and saturates, NaN gives 0). */
    public Val as(ElementType type) {
        return type == type() ? this : derive(wrap(() -> Ir.cast(node, type), "cast to " + type));
    }

    public Val asInt32() {
        return as(ElementType.INT32);
    }

    public Val asInt64() {
        return as(ElementType.INT64);
    }

    public Val asFloat32() {
        return as(ElementType.FLOAT32);
    }

    public Val asFloat64() {
        return as(ElementType.FLOAT64);
    }

    // ---- math (integers are read as Float64) -----------------------------------------------

    public Val sqrt() {
        return unary(UnaryOp.SQRT);
    }

    public Val cbrt() {
        return unary(UnaryOp.CBRT);
    }

    public Val exp() {
        return unary(UnaryOp.EXP);
    }

    public Val expm1() {
        return unary(UnaryOp.EXPM1);
    }

    /** Natural logarithm. */
    public Val ln() {
        return unary(UnaryOp.LOG);
    }

    public Val log1p() {
        return unary(UnaryOp.LOG1P);
    }

    public Val log2() {
        return unary(UnaryOp.LOG2);
    }

    public Val log10() {
        return unary(UnaryOp.LOG10);
    }

    public Val sin() {
        return unary(UnaryOp.SIN);
    }

    public Val cos() {
        return unary(UnaryOp.COS);
    }

    public Val tan() {
        return unary(UnaryOp.TAN);
    }

    public Val asin() {
        return unary(UnaryOp.ASIN);
    }

    public Val acos() {
        return unary(UnaryOp.ACOS);
    }

    public Val atan() {
        return unary(UnaryOp.ATAN);
    }

    public Val sinh() {
        return unary(UnaryOp.SINH);
    }

    public Val cosh() {
        return unary(UnaryOp.COSH);
    }

    public Val tanh() {
        return unary(UnaryOp.TANH);
    }

    public Val floor() {
        return unary(UnaryOp.FLOOR);
    }

    public Val ceil() {
        return unary(UnaryOp.CEIL);
    }

    /** Rounds toward zero. */
    public Val trunc() {
        return unary(UnaryOp.TRUNC);
    }

    /** Rounds to the nearest integral value, ties to even. */
    public Val rint() {
        return unary(UnaryOp.RINT);
    }

    /** This to the power {@code e} (StrictMath.pow's special cases). */
    public Val pow(Val e) {
        return binary(BinaryOp.POW, e);
    }

    public Val pow(Number e) {
        return pow(operand(e, this));
    }

    /** The angle of the point ({@code x}, this): {@code atan2(this, x)}. */
    public Val atan2(Val x) {
        return binary(BinaryOp.ATAN2, x);
    }

    /** {@code sqrt(this² + o²)} without intermediate overflow. */
    public Val hypot(Val o) {
        return binary(BinaryOp.HYPOT, o);
    }

    // ---- failure and null ---------------------------------------------------------------

    /**
     * This value, but the row fails where {@code condition} holds, with {@code message} and the
     * value of {@code shown} in the error (the function's name is added in front). Makes the
     * function fallible. Rows that are null are never checked.
     */
    public Val failIf(Val condition, String message, Val shown) {
        IrNode cond = nullWhen == null ? condition.node : Ir.and(condition.node, Ir.not(nullWhen));
        return derive(wrap(() -> Ir.check(cond, node, message, shown.node), "failIf"), condition);
    }

    /** {@link #failIf(Val, String, Val)} showing this value. */
    public Val failIf(Val condition, String message) {
        return failIf(condition, message, this);
    }

    /** This value, but null where {@code condition} holds (an optional output). */
    public Val nullIf(Val condition) {
        if (condition.type() != ElementType.BOOL) {
            throw new IllegalArgumentException("nullIf needs a Boolean condition, got " + condition.type());
        }
        return new Val(node, orNull(orNull(nullWhen, condition.nullWhen), condition.node));
    }

    @Override
    public String toString() {
        return KernelProgram.render(node)
                + (nullWhen == null ? "" : " (null when " + KernelProgram.render(nullWhen) + ")");
    }
}
