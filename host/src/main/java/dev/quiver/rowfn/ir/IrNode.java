package dev.quiver.rowfn.ir;

import dev.quiver.types.ElementType;
import java.util.List;
import java.util.Objects;

/**
 * One node of the RowFn kernel IR: what one row computes, as a typed expression tree over the
 * row's arguments and constants. The same tree is interpreted by the scalar reference, compiled
 * into a fused Vector API loop on the CPU and translated to an OpenCL C kernel.
 *
 * <p>Nodes are immutable records with structural equality (computed visiting each shared
 * subtree once: a body that uses a value twice makes a DAG). Operands of {@link Binary} and
 * {@link Fma} have the node's own type; {@link Cast} and {@link Compare} are the only nodes that
 * change type. Build trees with {@link Ir}, which inserts the widening casts. A tree is
 * evaluated whole for every row it runs on: {@link Select} picks a value but both sides are
 * computed, so a {@link Check} or an integer division under the side not taken still fails.
 *
 * <p>{@link ElementType#BOOL} values are 0 (false) or 1 (true) {@link Integer}s wherever a
 * value is boxed ({@link Const}, {@link RowInterpreter}).
 */
public sealed interface IrNode
        permits IrNode.Arg,
                IrNode.Const,
                IrNode.Unary,
                IrNode.Binary,
                IrNode.Fma,
                IrNode.Cast,
                IrNode.Compare,
                IrNode.Select,
                IrNode.Check {

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
                case BOOL -> value instanceof Integer i && (i == 0 || i == 1);
            };
            if (!ok) {
                throw new IllegalArgumentException("a " + type + " constant needs a " + type.openClName()
                        + " value, got " + value.getClass().getSimpleName());
            }
        }

        /** The value's bits as a long: the integer itself, or the IEEE bits of a float. */
        public long bits() {
            return switch (type) {
                case INT32, INT64, BOOL -> value.longValue();
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
            requireDomain(op.symbol(), op.domain(), input.type());
        }

        @Override
        public ElementType type() {
            return input.type();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof IrNode n && IrStructure.equal(this, n);
        }

        @Override
        public int hashCode() {
            return IrStructure.hash(this);
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
                throw new IllegalArgumentException("operands of " + op + " must have one type, got " + left.type()
                        + " and " + right.type() + " (use Ir to insert casts)");
            }
            requireDomain(op.symbol(), op.domain(), left.type());
        }

        @Override
        public ElementType type() {
            return left.type();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof IrNode n && IrStructure.equal(this, n);
        }

        @Override
        public int hashCode() {
            return IrStructure.hash(this);
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
                throw new IllegalArgumentException(
                        "operands of fma must have one type, got " + a.type() + ", " + b.type() + " and " + c.type());
            }
            requireDomain("fma", UnaryOp.Domain.NUMBER, a.type());
        }

        @Override
        public ElementType type() {
            return a.type();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof IrNode n && IrStructure.equal(this, n);
        }

        @Override
        public int hashCode() {
            return IrStructure.hash(this);
        }

        @Override
        public List<IrNode> children() {
            return List.of(a, b, c);
        }
    }

    /**
     * A conversion between two number types, as Java's casts: integer to float rounds to
     * nearest even; float to integer truncates toward zero, saturates at the integer's range
     * and gives 0 for NaN; Int64 to Int32 keeps the low 32 bits; Float64 to Float32 rounds to
     * nearest even. Booleans are not numbers: use {@link Select}.
     */
    record Cast(IrNode input, ElementType type) implements IrNode {
        public Cast {
            Objects.requireNonNull(input, "input is null");
            Objects.requireNonNull(type, "type is null");
            if (!input.type().isNumeric() || !type.isNumeric() || input.type() == type) {
                throw new IllegalArgumentException("no cast from " + input.type() + " to " + type
                        + (input.type() == type ? " (same type)" : " (Booleans are not numbers: use select)"));
            }
        }

        /** True when every value of {@code from} is a value of {@code to} (or rounds to one, int to float). */
        public static boolean isWidening(ElementType from, ElementType to) {
            return switch (from) {
                case INT32 -> to.isNumeric() && to != ElementType.INT32;
                case INT64 -> to == ElementType.FLOAT32 || to == ElementType.FLOAT64;
                case FLOAT32 -> to == ElementType.FLOAT64;
                case FLOAT64, BOOL -> false;
            };
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof IrNode n && IrStructure.equal(this, n);
        }

        @Override
        public int hashCode() {
            return IrStructure.hash(this);
        }

        @Override
        public List<IrNode> children() {
            return List.of(input);
        }
    }

    /** A comparison of two operands of one type (numbers, or Booleans for EQ/NE); a Boolean. */
    record Compare(CmpOp op, IrNode left, IrNode right) implements IrNode {
        public Compare {
            Objects.requireNonNull(op, "op is null");
            Objects.requireNonNull(left, "left is null");
            Objects.requireNonNull(right, "right is null");
            if (left.type() != right.type()) {
                throw new IllegalArgumentException("operands of " + op.symbol() + " must have one type, got "
                        + left.type() + " and " + right.type() + " (use Ir to insert casts)");
            }
            if (left.type() == ElementType.BOOL && op != CmpOp.EQ && op != CmpOp.NE) {
                throw new IllegalArgumentException("Booleans compare only with == and !=, not " + op.symbol());
            }
        }

        @Override
        public ElementType type() {
            return ElementType.BOOL;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof IrNode n && IrStructure.equal(this, n);
        }

        @Override
        public int hashCode() {
            return IrStructure.hash(this);
        }

        @Override
        public List<IrNode> children() {
            return List.of(left, right);
        }
    }

    /** {@code condition ? ifTrue : ifFalse}, without a branch: both sides are computed. */
    record Select(IrNode condition, IrNode ifTrue, IrNode ifFalse) implements IrNode {
        public Select {
            Objects.requireNonNull(condition, "condition is null");
            Objects.requireNonNull(ifTrue, "ifTrue is null");
            Objects.requireNonNull(ifFalse, "ifFalse is null");
            if (condition.type() != ElementType.BOOL) {
                throw new IllegalArgumentException(
                        "the condition of select must be a Boolean, got " + condition.type());
            }
            if (ifTrue.type() != ifFalse.type()) {
                throw new IllegalArgumentException("both sides of select must have one type, got " + ifTrue.type()
                        + " and " + ifFalse.type() + " (use Ir to insert casts)");
            }
        }

        @Override
        public ElementType type() {
            return ifTrue.type();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof IrNode n && IrStructure.equal(this, n);
        }

        @Override
        public int hashCode() {
            return IrStructure.hash(this);
        }

        @Override
        public List<IrNode> children() {
            return List.of(condition, ifTrue, ifFalse);
        }
    }

    /**
     * {@code value}, unless {@code failWhen} is true: then the row fails, with {@code message}
     * and the value of {@code shown} (the offending input) in the error. What makes a function
     * fallible. Failures count only in rows that are computed and not null.
     *
     * @param message what went wrong, e.g. {@code "mod: division by zero"}
     */
    record Check(IrNode failWhen, IrNode value, String message, IrNode shown) implements IrNode {
        public Check {
            Objects.requireNonNull(failWhen, "failWhen is null");
            Objects.requireNonNull(value, "value is null");
            Objects.requireNonNull(message, "message is null");
            Objects.requireNonNull(shown, "shown is null");
            if (failWhen.type() != ElementType.BOOL) {
                throw new IllegalArgumentException(
                        "the condition of a check must be a Boolean, got " + failWhen.type());
            }
        }

        @Override
        public ElementType type() {
            return value.type();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof IrNode n && IrStructure.equal(this, n);
        }

        @Override
        public int hashCode() {
            return IrStructure.hash(this);
        }

        @Override
        public List<IrNode> children() {
            return List.of(failWhen, value, shown);
        }
    }

    private static void requireDomain(String op, UnaryOp.Domain domain, ElementType t) {
        boolean ok = switch (domain) {
            case NUMBER -> t.isNumeric();
            case INTEGER -> t.isInteger();
            case FLOAT -> t.isFloatingPoint();
            case INTEGER_OR_BOOL -> t.isInteger() || t == ElementType.BOOL;
        };
        if (!ok) {
            throw new IllegalArgumentException(op + " takes "
                    + switch (domain) {
                        case NUMBER -> "a number";
                        case INTEGER -> "an Int32 or Int64";
                        case FLOAT -> "a Float32 or Float64";
                        case INTEGER_OR_BOOL -> "an integer or a Boolean";
                    }
                    + ", not " + t);
        }
    }
}
