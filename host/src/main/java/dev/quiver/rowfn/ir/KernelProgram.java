package dev.quiver.rowfn.ir;

import dev.quiver.expr.ExprThreads;
import dev.quiver.types.ElementType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

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
        // Before the first walk that recurses (folding): a tree past the limit would overflow the stack there.
        int depth = Math.max(
                checkDepth(Objects.requireNonNull(root, "root is null"), "the program's value"),
                nullWhen == null ? 0 : checkDepth(nullWhen, "the program's null condition"));
        this.text = Objects.requireNonNull(text, "text is null");
        List<ElementType> types = List.copyOf(argTypes);
        // A deep tree (a RowFn body such as gcd's) is folded, checked and slotted on a thread with a stack for it.
        Parts p = depth > IN_PLACE_DEPTH
                ? ExprThreads.call(() -> Parts.of(types, root, nullWhen, strict))
                : Parts.of(types, root, nullWhen, strict);
        this.argTypes = types;
        this.root = p.root;
        this.nullWhen = p.nullWhen;
        this.strict = strict;
        this.slots = p.slots;
        this.constants = p.constants;
        this.constantBits = constants.stream().mapToLong(IrNode.Const::bits).toArray();
        this.shape = p.shape;
        this.hash = p.hash;
        // Asked on every batch (which strategy runs it): walked once, here.
        this.integerDivision = anyNode(n -> n instanceof IrNode.Binary b
                && b.op().failsOnZeroDivisor()
                && b.type().isInteger());
        this.fallible = integerDivision || anyNode(n -> n instanceof IrNode.Check);
    }

    private final boolean integerDivision;
    private final boolean fallible;

    /** The deepest tree whose program is made on the constructing thread; deeper ones on a large-stack thread. */
    static final int IN_PLACE_DEPTH = 256;

    /** What a program computes from its trees, by walks that recurse. */
    private record Parts(
            IrNode root,
            IrNode nullWhen,
            Map<IrNode.Const, Integer> slots,
            List<IrNode.Const> constants,
            Object shape,
            int hash) {
        static Parts of(List<ElementType> argTypes, IrNode value, IrNode nullCondition, boolean strict) {
            IrNode root = Ir.fold(value);
            IrNode nullWhen = nullCondition == null ? null : Ir.fold(nullCondition);
            validate(root, argTypes);
            if (nullWhen != null) {
                if (nullWhen.type() != ElementType.BOOL) {
                    throw new IllegalArgumentException("the null condition must be a Boolean, got " + nullWhen.type());
                }
                validate(nullWhen, argTypes);
            }
            if (!strict && nullWhen == null) {
                throw new IllegalArgumentException("a non-strict program needs a null condition");
            }
            Map<IrNode.Const, Integer> slots = new LinkedHashMap<>();
            collectConstants(root, slots);
            if (nullWhen != null) {
                collectConstants(nullWhen, slots);
            }
            IrNode shapeNull = nullWhen == null ? null : slotted(nullWhen, slots);
            Object shape = new Shape(argTypes, slotted(root, slots), shapeNull, strict);
            // The constants in slot order (Map.copyOf keeps no order).
            return new Parts(
                    root,
                    nullWhen,
                    Map.copyOf(slots),
                    List.copyOf(slots.keySet()),
                    shape,
                    Objects.hash(argTypes, root, nullWhen, strict));
        }
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
        return fallible;
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
        return o instanceof KernelProgram p
                && p.hash == hash
                && p.argTypes.equals(argTypes)
                && p.root.equals(root)
                && Objects.equals(p.nullWhen, nullWhen)
                && p.strict == strict;
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "KernelProgram[" + text + ": " + render(root)
                + (nullWhen == null ? "" : " null when " + render(nullWhen)) + " over " + argTypes + "]";
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
        return integerDivision;
    }

    /** True when any node of the value's tree or of the null condition matches. */
    public boolean anyNode(Predicate<IrNode> p) {
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
            return o == this
                    || o instanceof Shape s
                            && s.hash == hash
                            && s.argTypes.equals(argTypes)
                            && s.root.equals(root)
                            && Objects.equals(s.nullWhen, nullWhen)
                            && s.strict == strict;
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
            default -> {
                List<IrNode> kids = new ArrayList<>(3); // a loop, not a stream: fewer frames per level of a deep tree
                for (IrNode k : n.children()) {
                    kids.add(slotted(k, slots, done));
                }
                yield Folding.withChildren(n, kids);
            }
        };
        done.put(n, out);
        return out;
    }

    /** Pre-order; a shared subtree is visited once (its literals are already in {@code out} the second time). */
    private static void collectConstants(IrNode n, Map<IrNode.Const, Integer> out) {
        collectConstants(n, out, new IdentityHashMap<>());
    }

    private static void collectConstants(
            IrNode n, Map<IrNode.Const, Integer> out, IdentityHashMap<IrNode, Boolean> seen) {
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

    /** Pre-order, each shared node once, with a stack of its own: callers ask on any thread, and the tree may be deep. */
    private static boolean anyNode(IrNode n, Predicate<IrNode> p) {
        IdentityHashMap<IrNode, Boolean> seen = new IdentityHashMap<>();
        ArrayDeque<IrNode> todo = new ArrayDeque<>();
        todo.push(n);
        while (!todo.isEmpty()) {
            IrNode x = todo.pop();
            if (seen.put(x, Boolean.TRUE) != null) {
                continue;
            }
            if (p.test(x)) {
                return true;
            }
            List<IrNode> children = x.children();
            for (int i = children.size() - 1; i >= 0; i--) {
                todo.push(children.get(i));
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

    /**
     * The deepest tree a program may have, in levels from its root to a leaf (a shared subtree counts
     * at its deepest place; one {@code gcd} body is 590 levels, four nested ones 2,357). Folding,
     * slotting, hashing, the reference interpreter and both code generators recurse over the tree:
     * the code generators run on threads with a large stack ({@code dev.quiver.expr.ExprThreads}),
     * and so does the evaluation of a plan with a program deeper than 256 levels, so this many
     * levels never meet a small stack there (docs/expressions.md#limits). A backend called directly
     * recurses on its caller's thread. The planner cuts its fused segments far shorter; a RowFn body
     * deeper than this is refused when the function is declared.
     */
    public static final int MAX_DEPTH = 4_096;

    /**
     * Checks that {@code tree} is at most {@value #MAX_DEPTH} levels deep, without recursion, and
     * returns its depth.
     *
     * @param what what the tree is, for the message ("RowFn f: the body")
     * @throws IllegalArgumentException naming {@code what}, its depth and the limit
     */
    public static int checkDepth(IrNode tree, String what) {
        int d = depth(tree, MAX_DEPTH);
        if (d > MAX_DEPTH) {
            throw new IllegalArgumentException(
                    what + " is nested more than " + MAX_DEPTH + " levels deep, the most a kernel"
                            + " program may be (its code is generated by walking the tree; docs/expressions.md#limits)");
        }
        return d;
    }

    /**
     * The depth of {@code tree}: 1 for a leaf, else 1 more than its deepest operand; a subtree
     * shared by several parents is measured once. Walks with a stack of its own, and stops
     * (returning {@code limit + 1}) as soon as it has measured a subtree deeper than {@code limit}.
     */
    public static int depth(IrNode tree, int limit) {
        IdentityHashMap<IrNode, Integer> depths = new IdentityHashMap<>();
        ArrayDeque<IrNode> todo = new ArrayDeque<>();
        todo.push(tree);
        while (!todo.isEmpty()) {
            IrNode n = todo.peek();
            if (depths.containsKey(n)) {
                todo.pop();
                continue;
            }
            int deepest = 0;
            boolean ready = true;
            for (IrNode c : n.children()) {
                Integer d = depths.get(c);
                if (d == null) {
                    todo.push(c);
                    ready = false;
                } else {
                    deepest = Math.max(deepest, d);
                }
            }
            if (ready) {
                todo.pop();
                if (deepest + 1 > limit) {
                    return limit + 1;
                }
                depths.put(n, deepest + 1);
            }
        }
        return depths.getOrDefault(tree, 1);
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
        // A stack of its own rather than recursion (the tree may be deep): a String is appended, a node expanded.
        Deque<Object> todo = new ArrayDeque<>();
        todo.push(n);
        while (!todo.isEmpty() && sb.length() <= RENDER_LIMIT) {
            Object next = todo.pop();
            if (next instanceof String str) {
                sb.append(str);
                continue;
            }
            List<Object> pieces = switch ((IrNode) next) {
                case IrNode.Arg a -> List.of("$" + a.index());
                case IrNode.Const c ->
                    List.of(
                            c.type() == ElementType.BOOL
                                    ? (c.value().intValue() != 0 ? "true" : "false")
                                    : c.value().toString());
                case IrNode.Unary u ->
                    call(u.op() == UnaryOp.NEG ? "-" : u.op() == UnaryOp.NOT ? "!" : u.op().symbol(), u.input());
                case IrNode.Binary b ->
                    b.op().isInfix()
                            ? infix(b.left(), b.op().symbol(), b.right())
                            : call(b.op().symbol(), b.left(), b.right());
                case IrNode.Fma f -> call("fma", f.a(), f.b(), f.c());
                case IrNode.Cast c -> List.of("cast(", c.input(), " as " + c.type() + ")");
                case IrNode.Compare c -> infix(c.left(), c.op().symbol(), c.right());
                case IrNode.Select x -> call("select", x.condition(), x.ifTrue(), x.ifFalse());
                case IrNode.Check c -> List.of("check(", c.value(), ", fails when ", c.failWhen(), ")");
            };
            for (int i = pieces.size() - 1; i >= 0; i--) {
                todo.push(pieces.get(i));
            }
        }
        return sb.length() > RENDER_LIMIT ? sb.substring(0, RENDER_LIMIT) + "…" : sb.toString();
    }

    private static List<Object> call(String name, IrNode... args) {
        List<Object> out = new ArrayList<>();
        out.add(name + "(");
        for (int i = 0; i < args.length; i++) {
            if (i > 0) {
                out.add(", ");
            }
            out.add(args[i]);
        }
        out.add(")");
        return out;
    }

    private static List<Object> infix(IrNode left, String op, IrNode right) {
        return List.of("(", left, " " + op + " ", right, ")");
    }
}
