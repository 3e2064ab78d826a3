package dev.quiver.rowfn.ir;

import dev.quiver.types.ElementType;

import java.util.List;
import java.util.Objects;

/**
 * One node of the RowFn kernel IR: what one row computes, as a typed expression tree over the
 * row's arguments and constants. The same tree is interpreted by the scalar reference, compiled
 * into a fused Vector API loop on the CPU and translated to an OpenCL C kernel.
 *
 * <p>Nodes are immutable records with structural equality. Operands of {@link Binary} and
 * {@link Fma} have the node's own type; {@link Cast} is the only node that changes type. Build
 * trees with {@link Ir}, which inserts the widening casts.
 */
public sealed interface IrNode permits IrNode.Arg, IrNode.Const, IrNode.Unary, IrNode.Binary, IrNode.Fma, IrNode.Cast {

    /** The type of the value this node produces. */
    ElementType type();

    /** The operands, in order. */
    List<IrNode> children();

    /** The {@code index}-th argument of the row. */
    record Arg(int index, ElementType type) implements IrNode {
        public Arg {
            if (index < 0) {
                throw new IllegalArgumentException("argument index must be >= 0, got " + index);
            }
            Objects.requireNonNull(type, "type is null");
        }

        @Override
        public List<IrNode> children() {
            return List.of();
        }
    }

    /**
     * A literal. {@code value} is an {@link Integer}, {@link Long}, {@link Float} or
     * {@link Double} matching {@code type}.
     */
    record Const(ElementType type, Number value) implements IrNode {
        public Const {
            Objects.requireNonNull(type, "type is null");
            Objects.requireNonNull(value, "value is null");
            boolean ok = switch (type) {
                case INT32 -> value instanceof Integer;
                case INT64 -> value instanceof Long;
                case FLOAT32 -> value instanceof Float;
                case FLOAT64 -> value instanceof Double;
            };
            if (!ok) {
                throw new IllegalArgumentException("a " + type + " constant needs a "
                        + type.openClName() + " value, got " + value.getClass().getSimpleName());
            }
        }

        /** The value's bits as a long: the integer itself, or the IEEE bits of a float. */
        public long bits() {
            return switch (type) {
                case INT32, INT64 -> value.longValue();
                case FLOAT32 -> Float.floatToRawIntBits(value.floatValue());
                case FLOAT64 -> Double.doubleToRawLongBits(value.doubleValue());
            };
        }

        @Override
        public boolean equals(Object o) {
            // Bitwise, so that NaN equals NaN and -0.0 differs from +0.0.
            return o instanceof Const c && c.type == type && c.bits() == bits();
        }

        @Override
        public int hashCode() {
            return type.hashCode() * 31 + Long.hashCode(bits());
        }

        @Override
        public List<IrNode> children() {
            return List.of();
        }
    }

    record Unary(UnaryOp op, IrNode input) implements IrNode {
        public Unary {
            Objects.requireNonNull(op, "op is null");
            Objects.requireNonNull(input, "input is null");
            if (op == UnaryOp.SQRT && !input.type().isFloatingPoint()) {
                throw new IllegalArgumentException("sqrt needs a floating-point operand, got " + input.type());
            }
        }

        @Override
        public ElementType type() {
            return input.type();
        }

        @Override
        public List<IrNode> children() {
            return List.of(input);
        }
    }

    record Binary(BinaryOp op, IrNode left, IrNode right) implements IrNode {
        public Binary {
            Objects.requireNonNull(op, "op is null");
            Objects.requireNonNull(left, "left is null");
            Objects.requireNonNull(right, "right is null");
            if (left.type() != right.type()) {
                throw new IllegalArgumentException("operands of " + op + " must have one type, got "
                        + left.type() + " and " + right.type() + " (use Ir to insert casts)");
            }
        }

        @Override
        public ElementType type() {
            return left.type();
        }

        @Override
        public List<IrNode> children() {
            return List.of(left, right);
        }
    }

    /**
     * {@code a * b + c}. For floating point, one rounding (as {@link Math#fma}); for integers,
     * wrapping multiply then add.
     */
    record Fma(IrNode a, IrNode b, IrNode c) implements IrNode {
        public Fma {
            Objects.requireNonNull(a, "a is null");
            Objects.requireNonNull(b, "b is null");
            Objects.requireNonNull(c, "c is null");
            if (a.type() != b.type() || b.type() != c.type()) {
                throw new IllegalArgumentException("operands of fma must have one type, got "
                        + a.type() + ", " + b.type() + " and " + c.type());
            }
        }

        @Override
        public ElementType type() {
            return a.type();
        }

        @Override
        public List<IrNode> children() {
            return List.of(a, b, c);
        }
    }

    /**
     * A widening conversion: INT32 to INT64/FLOAT32/FLOAT64, INT64 to FLOAT32/FLOAT64, FLOAT32
     * to FLOAT64. Conversions to floating point round to nearest, as Java's casts do.
     */
    record Cast(IrNode input, ElementType type) implements IrNode {
        public Cast {
            Objects.requireNonNull(input, "input is null");
            Objects.requireNonNull(type, "type is null");
            if (!isWidening(input.type(), type)) {
                throw new IllegalArgumentException("cast from " + input.type() + " to " + type
                        + " is not a widening conversion");
            }
        }

        public static boolean isWidening(ElementType from, ElementType to) {
            return switch (from) {
                case INT32 -> to != ElementType.INT32;
                case INT64 -> to == ElementType.FLOAT32 || to == ElementType.FLOAT64;
                case FLOAT32 -> to == ElementType.FLOAT64;
                case FLOAT64 -> false;
            };
        }

        @Override
        public List<IrNode> children() {
            return List.of(input);
        }
    }
}
