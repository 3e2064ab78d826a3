package dev.quiver.rowfn.ir;

import dev.quiver.types.ElementType;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;

/**
 * A row computation ready for a backend: the argument types and the IR tree over them.
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
        this.argTypes = List.copyOf(argTypes);
        this.root = Objects.requireNonNull(root, "root is null");
        this.text = Objects.requireNonNull(text, "text is null");
        validate(root, this.argTypes);
        List<IrNode.Const> found = new ArrayList<>();
        collectConstants(root, found);
        this.constants = List.copyOf(found);
        this.constantBits = found.stream().mapToLong(IrNode.Const::bits).toArray();
        this.shape = new Shape(this.argTypes, slotted(root, new int[1]));
        this.hash = Objects.hash(this.argTypes, root);
    }

    public KernelProgram(List<ElementType> argTypes, IrNode root) {
        this(argTypes, root, render(root));
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

    /** Equal when the argument types and the tree are; the display text does not count. */
    @Override
    public boolean equals(Object o) {
        return o instanceof KernelProgram p && p.hash == hash && p.argTypes.equals(argTypes) && p.root.equals(root);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "KernelProgram[" + text + ": " + render(root) + " over " + argTypes + "]";
    }

    public ElementType resultType() {
        return root.type();
    }

    public int arity() {
        return argTypes.size();
    }

    /** The literals in evaluation order (leaves left to right), which is the order backends bind them. */
    public List<IrNode.Const> constants() {
        return constants;
    }

    /** {@link IrNode.Const#bits()} of each of {@link #constants()}, in that order (a copy). */
    public long[] constantBits() {
        return constantBits.clone();
    }

    /** True when the tree contains an integer division (the only operation that can fail). */
    public boolean hasIntegerDivision() {
        return anyNode(root, n -> n instanceof IrNode.Binary b && b.op() == BinaryOp.DIV && !b.type().isFloatingPoint());
    }

    /** True when any node of the tree matches. */
    public boolean anyNode(java.util.function.Predicate<IrNode> p) {
        return anyNode(root, p);
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
        private final int hash;

        Shape(List<ElementType> argTypes, IrNode root) {
            this.argTypes = argTypes;
            this.root = root;
            this.hash = Objects.hash(argTypes, root);
        }

        @Override
        public boolean equals(Object o) {
            return o == this || o instanceof Shape s && s.hash == hash && s.argTypes.equals(argTypes) && s.root.equals(root);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    private static IrNode slotted(IrNode n, int[] next) {
        return switch (n) {
            case IrNode.Const c -> new IrNode.Arg(1_000_000 + next[0]++, c.type());
            case IrNode.Arg a -> a;
            case IrNode.Unary u -> new IrNode.Unary(u.op(), slotted(u.input(), next));
            case IrNode.Binary b -> {
                IrNode l = slotted(b.left(), next);
                yield new IrNode.Binary(b.op(), l, slotted(b.right(), next));
            }
            case IrNode.Fma f -> {
                IrNode a = slotted(f.a(), next);
                IrNode b = slotted(f.b(), next);
                yield new IrNode.Fma(a, b, slotted(f.c(), next));
            }
            case IrNode.Cast c -> new IrNode.Cast(slotted(c.input(), next), c.type());
        };
    }

    private static void collectConstants(IrNode n, List<IrNode.Const> out) {
        if (n instanceof IrNode.Const c) {
            out.add(c);
        }
        for (IrNode child : n.children()) {
            collectConstants(child, out);
        }
    }

    private static boolean anyNode(IrNode n, java.util.function.Predicate<IrNode> p) {
        if (p.test(n)) {
            return true;
        }
        for (IrNode c : n.children()) {
            if (anyNode(c, p)) {
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

    /** Renders a tree as text: {@code sqrt(($0 * $0) + ($1 * $1))}. */
    public static String render(IrNode n) {
        return switch (n) {
            case IrNode.Arg a -> "$" + a.index();
            case IrNode.Const c -> c.value().toString();
            case IrNode.Unary u -> u.op() == UnaryOp.NEG ? "-(" + render(u.input()) + ")"
                    : u.op().symbol() + "(" + render(u.input()) + ")";
            case IrNode.Binary b -> b.op().isInfix()
                    ? "(" + render(b.left()) + " " + b.op().symbol() + " " + render(b.right()) + ")"
                    : b.op().symbol() + "(" + render(b.left()) + ", " + render(b.right()) + ")";
            case IrNode.Fma f -> "fma(" + render(f.a()) + ", " + render(f.b()) + ", " + render(f.c()) + ")";
            case IrNode.Cast c -> "cast(" + render(c.input()) + " as " + c.type() + ")";
        };
    }
}
