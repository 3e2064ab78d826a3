package dev.quiver.rowfn.ir;

import dev.quiver.types.ElementType;

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
    private Ir() {
    }

    public static IrNode arg(int index, ElementType type) {
        return new IrNode.Arg(index, type);
    }

    /** A literal typed by its Java class: Integer, Long, Float or Double. */
    public static IrNode lit(Number value) {
        ElementType type = switch (value) {
            case Integer i -> ElementType.INT32;
            case Long l -> ElementType.INT64;
            case Float f -> ElementType.FLOAT32;
            case Double d -> ElementType.FLOAT64;
            default -> throw new IllegalArgumentException("unsupported literal type " + value.getClass().getName());
        };
        return new IrNode.Const(type, value);
    }

    /**
     * Widens {@code node} to {@code to}. A literal is converted here, once (the conversion is
     * exact or rounds as Java's cast does), so kernels never convert a constant per row.
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

    public static IrNode binary(BinaryOp op, IrNode left, IrNode right) {
        ElementType t = ElementType.common(left.type(), right.type());
        return new IrNode.Binary(op, cast(left, t), cast(right, t));
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
        IrNode f = a.type().isFloatingPoint() ? a : cast(a, ElementType.FLOAT64);
        return new IrNode.Unary(UnaryOp.SQRT, f);
    }

    public static IrNode fma(IrNode a, IrNode b, IrNode c) {
        ElementType t = ElementType.common(ElementType.common(a.type(), b.type()), c.type());
        return new IrNode.Fma(cast(a, t), cast(b, t), cast(c, t));
    }
}
