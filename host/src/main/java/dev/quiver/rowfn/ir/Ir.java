package dev.quiver.rowfn.ir;

import dev.quiver.types.ElementType;
import java.util.List;

/**
 * Builders for IR trees that promote mixed operand types to their
 * {@linkplain ElementType#common common type} by inserting {@link IrNode.Cast} nodes.
 *
 * <pre>{@code
 * IrNode x = Ir.arg(0, ElementType.FLOAT64), y = Ir.arg(1, ElementType.FLOAT64);
 * IrNode hypot = Ir.sqrt(Ir.add(Ir.mul(x, x), Ir.mul(y, y)));
 * }</pre>
 */
public final class Ir {
    private Ir() {}

    public static IrNode arg(int index, ElementType type) {
        return new IrNode.Arg(index, type);
    }

    /** A Boolean literal. */
    public static IrNode lit(boolean value) {
        return new IrNode.Const(ElementType.BOOL, value ? 1 : 0);
    }

    /** A literal of {@code type}: {@code value} is converted as Java's casts do. */
    public static IrNode lit(ElementType type, Number value) {
        return new IrNode.Const(
                type,
                switch (type) {
                    case INT32 -> value.intValue();
                    case INT64 -> value.longValue();
                    case FLOAT32 -> value.floatValue();
                    case FLOAT64 -> value.doubleValue();
                    case BOOL -> value.intValue() != 0 ? 1 : 0;
                });
    }

    /** A literal typed by its Java class: Integer, Long, Float or Double. */
    public static IrNode lit(Number value) {
        ElementType type = switch (value) {
            case Integer _ -> ElementType.INT32;
            case Long _ -> ElementType.INT64;
            case Float _ -> ElementType.FLOAT32;
            case Double _ -> ElementType.FLOAT64;
            default ->
                throw new IllegalArgumentException(
                        "unsupported literal type " + value.getClass().getName());
        };
        return new IrNode.Const(type, value);
    }

    /**
     * Converts {@code node} to {@code to} as Java's cast does (see {@link IrNode.Cast}). A literal
     * is converted here, once, so kernels never convert a constant per row.
     */
    public static IrNode cast(IrNode node, ElementType to) {
        if (node.type() == to) {
            return node;
        }
        IrNode cast = new IrNode.Cast(node, to);
        if (node instanceof IrNode.Const) {
            return new IrNode.Const(to, RowInterpreter.evaluate(cast, new Number[0]));
        }
        return cast;
    }

    /**
     * {@code left op right}, both promoted to their common type; for the floating-point-only
     * operations (pow, atan2, hypot) integers are promoted to Float64.
     */
    public static IrNode binary(BinaryOp op, IrNode left, IrNode right) {
        ElementType t = left.type() == right.type() ? left.type() : ElementType.common(left.type(), right.type());
        if (op.domain() == UnaryOp.Domain.FLOAT && t.isInteger()) {
            t = ElementType.FLOAT64;
        }
        return new IrNode.Binary(op, cast(left, t), cast(right, t));
    }

    /** {@code op(x)}; for the floating-point-only operations an integer operand is promoted to Float64. */
    public static IrNode unary(UnaryOp op, IrNode x) {
        if (op.domain() == UnaryOp.Domain.FLOAT && x.type().isInteger()) {
            x = cast(x, ElementType.FLOAT64);
        }
        return new IrNode.Unary(op, x);
    }

    /** {@code left op right}, both promoted to their common type. */
    public static IrNode compare(CmpOp op, IrNode left, IrNode right) {
        ElementType t = left.type() == right.type() ? left.type() : ElementType.common(left.type(), right.type());
        return new IrNode.Compare(op, cast(left, t), cast(right, t));
    }

    /** {@code condition ? ifTrue : ifFalse} (both computed), the sides promoted to their common type. */
    public static IrNode select(IrNode condition, IrNode ifTrue, IrNode ifFalse) {
        ElementType t =
                ifTrue.type() == ifFalse.type() ? ifTrue.type() : ElementType.common(ifTrue.type(), ifFalse.type());
        return new IrNode.Select(condition, cast(ifTrue, t), cast(ifFalse, t));
    }

    /** {@code value}, failing the row with {@code message} (and the value of {@code shown}) where {@code failWhen} holds. */
    public static IrNode check(IrNode failWhen, IrNode value, String message, IrNode shown) {
        return new IrNode.Check(failWhen, value, message, shown);
    }

    public static IrNode not(IrNode a) {
        return new IrNode.Unary(UnaryOp.NOT, a);
    }

    public static IrNode and(IrNode a, IrNode b) {
        return binary(BinaryOp.AND, a, b);
    }

    public static IrNode or(IrNode a, IrNode b) {
        return binary(BinaryOp.OR, a, b);
    }

    /**
     * {@code node} with every subtree whose leaves are all literals replaced by its value,
     * computed once here by the reference. A subtree that fails (a check that fires, an integer
     * division by zero) is kept, so the failure is raised for the rows that reach it.
     */
    public static IrNode fold(IrNode node) {
        return Folding.fold(node);
    }

    public static IrNode add(IrNode a, IrNode b) {
        return binary(BinaryOp.ADD, a, b);
    }

    public static IrNode sub(IrNode a, IrNode b) {
        return binary(BinaryOp.SUB, a, b);
    }

    public static IrNode mul(IrNode a, IrNode b) {
        return binary(BinaryOp.MUL, a, b);
    }

    public static IrNode div(IrNode a, IrNode b) {
        return binary(BinaryOp.DIV, a, b);
    }

    public static IrNode min(IrNode a, IrNode b) {
        return binary(BinaryOp.MIN, a, b);
    }

    public static IrNode max(IrNode a, IrNode b) {
        return binary(BinaryOp.MAX, a, b);
    }

    public static IrNode neg(IrNode a) {
        return new IrNode.Unary(UnaryOp.NEG, a);
    }

    public static IrNode abs(IrNode a) {
        return new IrNode.Unary(UnaryOp.ABS, a);
    }

    /** Square root; integer operands are converted to FLOAT64 first. */
    public static IrNode sqrt(IrNode a) {
        return unary(UnaryOp.SQRT, a);
    }

    public static IrNode fma(IrNode a, IrNode b, IrNode c) {
        ElementType t = ElementType.common(ElementType.common(a.type(), b.type()), c.type());
        return new IrNode.Fma(cast(a, t), cast(b, t), cast(c, t));
    }

    /** {@code node} with its operands replaced, in {@link IrNode#children()} order (leaves are returned as they are). */
    public static IrNode withChildren(IrNode node, List<IrNode> c) {
        return switch (node) {
            case IrNode.Arg a -> a;
            case IrNode.Const k -> k;
            case IrNode.Unary u -> new IrNode.Unary(u.op(), c.get(0));
            case IrNode.Binary b -> new IrNode.Binary(b.op(), c.get(0), c.get(1));
            case IrNode.Fma _ -> new IrNode.Fma(c.get(0), c.get(1), c.get(2));
            case IrNode.Cast k -> new IrNode.Cast(c.get(0), k.type());
            case IrNode.Compare k -> new IrNode.Compare(k.op(), c.get(0), c.get(1));
            case IrNode.Select _ -> new IrNode.Select(c.get(0), c.get(1), c.get(2));
            case IrNode.Check k -> new IrNode.Check(c.get(0), c.get(1), k.message(), c.get(2));
        };
    }
}
