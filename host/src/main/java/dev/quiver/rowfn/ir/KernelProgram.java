package dev.quiver.rowfn.ir;

import dev.quiver.types.ElementType;

import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A row computation ready for a backend: the argument types, the IR tree over them (the
 * row's value) and, for a function that may return null from valid input, a Boolean tree that
 * says when the result is null ({@link #nullWhen()}). Subtrees over literals only are folded
 * when the program is made ({@link Ir#fold}).
 *
 * <p>A program is <em>strict</em> (the default): a row whose arguments are not all valid is null
 * and is not computed. Validity is then the AND of the arguments' validity, less the rows where
 * {@code nullWhen} holds. A non-strict program receives the validity of the arguments it needs
 * as Boolean arguments of its own and decides every row's validity with {@code nullWhen}.
 *
 * <p>Immutable, with structural equality (on argument types and tree), so backends cache
 * compiled code by it. Use {@link #shape()} for a key that ignores literal values (backends
 * pass literals in at run time, so {@code x * 2} and {@code x * 3} share one compiled kernel).
 * The shape, the literals and the hash are computed once, here: backends look them up on
 * every batch.
 */
public final class KernelProgram {
    private final List<ElementType> argTypes;
    private final IrNode root;
    private final IrNode nullWhen;
    private final boolean strict;
    private final String text;
    private final List<IrNode.Const> constants;
    private final long[] constantBits;
    private final Object shape;
    private final int hash;

    /**
     * @param argTypes the type of each argument; argument {@code i} is {@code argTypes.get(i)}
     * @param root     the value the row produces
     * @param text     a human-readable form for messages and EXPLAIN
     */
    public KernelProgram(List<ElementType> argTypes, IrNode root, String text) {
        this(argTypes, root, null, true, text);
    }

    public KernelProgram(List<ElementType> argTypes, IrNode root) {
        this(argTypes, root, render(root));
    }

    /**
     * @param nullWhen a Boolean tree over the same arguments: where it is true the row's result is
     *                 null (an optional output); null when the result is null only for null input
     * @param strict   whether a row with a null argument is null without being computed
     */
    public KernelProgram(List<ElementType> argTypes, IrNode root, IrNode nullWhen, boolean strict, String text) {
        this.argTypes = List.copyOf(argTypes);
        this.root = Ir.fold(Objects.requireNonNull(root, "root is null"));
        this.nullWhen = nullWhen == null ? null : Ir.fold(nullWhen);
        this.strict = strict;
        this.text = Objects.requireNonNull(text, "text is null");
        validate(this.root, this.argTypes);
        if (this.nullWhen != null) {
            if (this.nullWhen.type() != ElementType.BOOL) {
                throw new IllegalArgumentException("the null condition must be a Boolean, got " + this.nullWhen.type());
            }
            validate(this.nullWhen, this.argTypes);
        }
        if (!strict && this.nullWhen == null) {
            throw new IllegalArgumentException("a non-strict program needs a null condition");
        }
        Map<IrNode.Const, Integer> slots = new LinkedHashMap<>();
        collectConstants(this.root, slots);
        if (this.nullWhen != null) {
            collectConstants(this.nullWhen, slots);
        }
        this.slots = Map.copyOf(slots);
        this.constants = List.copyOf(slots.keySet());
        this.constantBits = constants.stream().mapToLong(IrNode.Const::bits).toArray();
        IrNode shapeNull = this.nullWhen == null ? null : slotted(this.nullWhen, slots);
        this.shape = new Shape(this.argTypes, slotted(this.root, slots), shapeNull, strict);
        this.hash = Objects.hash(this.argTypes, this.root, this.nullWhen, strict);
    }

    private final Map<IrNode.Const, Integer> slots;

    /** The Boolean tree that makes a valid row's result null, if the program has one. */
    public Optional<IrNode> nullWhen() {
        return Optional.ofNullable(nullWhen);
    }

    /** Whether a row with a null argument is null without being computed (see the class comment). */
    public boolean isStrict() {
        return strict;
    }

    /** True when a row can fail: the program has a {@link IrNode.Check} or an integer division or remainder. */
    public boolean isFallible() {
        return hasIntegerDivision() || anyNode(n -> n instanceof IrNode.Check);
    }

    /** Whether the result is a Boolean, which Arrow and the backends store as a bitmap. */
    public boolean hasBooleanResult() {
        return resultType() == ElementType.BOOL;
    }

    /**
     * The parameter slot of literal {@code c}: its index in {@link #constants()}. Equal literals
     * (same type and bits) share a slot, wherever they appear.
     */
    public int constantSlot(IrNode.Const c) {
        Integer slot = slots.get(c);
        if (slot == null) {
            throw new IllegalArgumentException("literal " + c.value() + " is not in " + text);
        }
        return slot;
    }

    public List<ElementType> argTypes() {
        return argTypes;
    }

    public IrNode root() {
        return root;
    }

    public String text() {
        return text;
    }

    /** Equal when the argument types, the trees and strictness are; the display text does not count. */
    @Override
    public boolean equals(Object o) {
        return o instanceof KernelProgram p && p.hash == hash && p.argTypes.equals(argTypes) && p.root.equals(root)
                && Objects.equals(p.nullWhen, nullWhen) && p.strict == strict;
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "KernelProgram[" + text + ": " + render(root) + (nullWhen == null ? "" : " null when " + render(nullWhen))
                + " over " + argTypes + "]";
    }

    public ElementType resultType() {
        return root.type();
    }

    public int arity() {
        return argTypes.size();
    }

    /**
     * The distinct literals, in first-visit order (pre-order, operands in {@link IrNode#children()}
     * order, the root's tree then the null condition's): the order backends bind them.
     * Find a literal's slot with {@link #constantSlot}.
     */
    public List<IrNode.Const> constants() {
        return constants;
    }

    /** {@link IrNode.Const#bits()} of each of {@link #constants()}, in that order (a copy). */
    public long[] constantBits() {
        return constantBits.clone();
    }

    /** True when the program contains an integer division or remainder (which fail on a zero divisor). */
    public boolean hasIntegerDivision() {
        return anyNode(n -> n instanceof IrNode.Binary b && b.op().failsOnZeroDivisor() && b.type().isInteger());
    }

    /** True when any node of the value's tree or of the null condition matches. */
    public boolean anyNode(java.util.function.Predicate<IrNode> p) {
        return anyNode(root, p) || nullWhen != null && anyNode(nullWhen, p);
    }

    /**
     * A key equal for programs that differ only in literal values: the tree with each literal
     * replaced by a numbered slot of the same type.
     */
    public Object shape() {
        return shape;
    }

    /** A map key looked up on every batch, so its deep hash is computed once. */
    private static final class Shape {
        private final List<ElementType> argTypes;
        private final IrNode root;
        private final IrNode nullWhen;
        private final boolean strict;
        private final int hash;

        Shape(List<ElementType> argTypes, IrNode root, IrNode nullWhen, boolean strict) {
            this.argTypes = argTypes;
            this.root = root;
            this.nullWhen = nullWhen;
            this.strict = strict;
            this.hash = Objects.hash(argTypes, root, nullWhen, strict);
        }

        @Override
        public boolean equals(Object o) {
            return o == this || o instanceof Shape s && s.hash == hash && s.argTypes.equals(argTypes) && s.root.equals(root)
                    && Objects.equals(s.nullWhen, nullWhen) && s.strict == strict;
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    private static IrNode slotted(IrNode n, Map<IrNode.Const, Integer> slots) {
        return slotted(n, slots, new IdentityHashMap<>());
    }

    /** Shared subtrees stay shared (each is rebuilt once). */
    private static IrNode slotted(IrNode n, Map<IrNode.Const, Integer> slots, IdentityHashMap<IrNode, IrNode> done) {
        IrNode seen = done.get(n);
        if (seen != null) {
            return seen;
        }
        IrNode out = switch (n) {
            case IrNode.Const c -> new IrNode.Arg(1_000_000 + slots.get(c), c.type());
            case IrNode.Arg a -> a;
            default -> Folding.withChildren(n, n.children().stream().map(k -> slotted(k, slots, done)).toList());
        };
        done.put(n, out);
        return out;
    }

    /** Pre-order; a shared subtree is visited once (its literals are already in {@code out} the second time). */
    private static void collectConstants(IrNode n, Map<IrNode.Const, Integer> out) {
        collectConstants(n, out, new IdentityHashMap<>());
    }

    private static void collectConstants(IrNode n, Map<IrNode.Const, Integer> out, IdentityHashMap<IrNode, Boolean> seen) {
        if (seen.put(n, Boolean.TRUE) != null) {
            return;
        }
        if (n instanceof IrNode.Const c) {
            out.putIfAbsent(c, out.size());
        }
        for (IrNode child : n.children()) {
            collectConstants(child, out, seen);
        }
    }

    private static boolean anyNode(IrNode n, java.util.function.Predicate<IrNode> p) {
        return anyNode(n, p, new IdentityHashMap<>());
    }

    private static boolean anyNode(IrNode n, java.util.function.Predicate<IrNode> p, IdentityHashMap<IrNode, Boolean> seen) {
        if (seen.put(n, Boolean.TRUE) != null) {
            return false;
        }
        if (p.test(n)) {
            return true;
        }
        for (IrNode c : n.children()) {
            if (anyNode(c, p, seen)) {
                return true;
            }
        }
        return false;
    }

    private static void validate(IrNode n, List<ElementType> argTypes) {
        IdentityHashMap<IrNode, Boolean> seen = new IdentityHashMap<>();
        validate(n, argTypes, seen);
    }

    private static void validate(IrNode n, List<ElementType> argTypes, IdentityHashMap<IrNode, Boolean> seen) {
        if (seen.put(n, Boolean.TRUE) != null) {
            return;
        }
        if (n instanceof IrNode.Arg a) {
            if (a.index() >= argTypes.size()) {
                throw new IllegalArgumentException("argument " + a.index() + " is out of range: the program has "
                        + argTypes.size() + " argument(s)");
            }
            if (argTypes.get(a.index()) != a.type()) {
                throw new IllegalArgumentException("argument " + a.index() + " is used as " + a.type()
                        + " but declared " + argTypes.get(a.index()));
            }
        }
        for (IrNode c : n.children()) {
            validate(c, argTypes, seen);
        }
    }

    /** The longest text {@link #render} writes; past it, the rest of the tree is elided. */
    static final int RENDER_LIMIT = 4_000;

    /**
     * Renders a tree as text: {@code sqrt(($0 * $0) + ($1 * $1))}. A shared subtree is written
     * at each place it is used; a tree whose text would pass {@value #RENDER_LIMIT} characters
     * (an unrolled loop shares a lot) is cut there and ends with {@code …}.
     */
    public static String render(IrNode n) {
        StringBuilder sb = new StringBuilder();
        render(n, sb);
        return sb.length() > RENDER_LIMIT ? sb.substring(0, RENDER_LIMIT) + "…" : sb.toString();
    }

    private static void render(IrNode n, StringBuilder sb) {
        if (sb.length() > RENDER_LIMIT) {
            return;
        }
        switch (n) {
            case IrNode.Arg a -> sb.append('$').append(a.index());
            case IrNode.Const c -> sb.append(c.type() == ElementType.BOOL ? (c.value().intValue() != 0 ? "true" : "false")
                    : c.value().toString());
            case IrNode.Unary u -> call(sb, u.op() == UnaryOp.NEG ? "-" : u.op() == UnaryOp.NOT ? "!" : u.op().symbol(), u.input());
            case IrNode.Binary b -> {
                if (b.op().isInfix()) {
                    infix(sb, b.left(), b.op().symbol(), b.right());
                } else {
                    call(sb, b.op().symbol(), b.left(), b.right());
                }
            }
            case IrNode.Fma f -> call(sb, "fma", f.a(), f.b(), f.c());
            case IrNode.Cast c -> {
                sb.append("cast(");
                render(c.input(), sb);
                sb.append(" as ").append(c.type()).append(')');
            }
            case IrNode.Compare c -> infix(sb, c.left(), c.op().symbol(), c.right());
            case IrNode.Select s -> call(sb, "select", s.condition(), s.ifTrue(), s.ifFalse());
            case IrNode.Check c -> {
                sb.append("check(");
                render(c.value(), sb);
                sb.append(", fails when ");
                render(c.failWhen(), sb);
                sb.append(')');
            }
        }
    }

    private static void call(StringBuilder sb, String name, IrNode... args) {
        sb.append(name).append('(');
        for (int i = 0; i < args.length; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            render(args[i], sb);
        }
        sb.append(')');
    }

    private static void infix(StringBuilder sb, IrNode left, String op, IrNode right) {
        sb.append('(');
        render(left, sb);
        sb.append(' ').append(op).append(' ');
        render(right, sb);
        sb.append(')');
    }
}
