package dev.quiver.rowfn.ir;

import dev.quiver.types.ElementType;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Constant folding for {@link Ir#fold}: bottom-up, with the reference interpreter. Past the
 * subtrees of literals only, a Boolean AND or OR with a literal operand and a select on a
 * literal condition (or with two equal sides) keep only the part that decides the value, when
 * the part dropped cannot fail: {@code b & true} is {@code b}, {@code b | true} is {@code true},
 * {@code select(false, t, e)} is {@code e}; a Boolean select with a literal side is the logic it
 * stands for ({@code select(c, true, false)} is {@code c}). A null condition whose validity operands became
 * literals for a batch (no nulls in it) folds to {@code false} this way.
 */
final class Folding {
    private static final Number[] NO_ARGS = new Number[0];

    private Folding() {}

    static IrNode fold(IrNode node) {
        return new Folding.Walk().fold(node);
    }

    /** One fold: what each shared subtree folded to, and which subtrees can fail. */
    private static final class Walk {
        private final Map<IrNode, IrNode> done = new IdentityHashMap<>();
        private final Map<IrNode, Boolean> fallible = new IdentityHashMap<>();

        /** Shared subtrees are folded once and stay shared. */
        IrNode fold(IrNode node) {
            IrNode seen = done.get(node);
            if (seen != null) {
                return seen;
            }
            IrNode out = foldOnce(node, this);
            done.put(node, out);
            return out;
        }

        /** Whether a row can fail in {@code n}: a check, or an integer division or remainder. */
        boolean canFail(IrNode n) {
            Boolean known = fallible.get(n);
            if (known != null) {
                return known;
            }
            boolean f = n instanceof IrNode.Check
                    || n instanceof IrNode.Binary b
                            && b.op().failsOnZeroDivisor()
                            && b.type().isInteger();
            for (IrNode c : n.children()) {
                f |= canFail(c);
            }
            fallible.put(n, f);
            return f;
        }
    }

    private static IrNode foldOnce(IrNode node, Walk walk) {
        if (node instanceof IrNode.Arg || node instanceof IrNode.Const) {
            return node;
        }
        List<IrNode> kids = node.children();
        List<IrNode> folded = new ArrayList<>(kids.size());
        boolean changed = false;
        boolean allConst = true;
        for (IrNode k : kids) {
            IrNode f = walk.fold(k);
            changed |= f != k;
            allConst &= f instanceof IrNode.Const;
            folded.add(f);
        }
        IrNode rebuilt = changed ? withChildren(node, folded) : node;
        if (!allConst) {
            return simplify(rebuilt, walk);
        }
        try {
            return new IrNode.Const(rebuilt.type(), RowInterpreter.evaluate(rebuilt, NO_ARGS));
        } catch (ArithmeticException e) {
            return rebuilt; // it fails for every row that reaches it: leave that to the rows
        }
    }

    /** {@code n} (its operands folded, not all literals) with a literal operand's identity applied; see the class comment. */
    private static IrNode simplify(IrNode n, Walk walk) {
        switch (n) {
            case IrNode.Binary b
            when b.type() == ElementType.BOOL && (b.op() == BinaryOp.AND || b.op() == BinaryOp.OR) -> {
                int absorbing = b.op() == BinaryOp.AND ? 0 : 1; // false decides an AND, true an OR
                for (int side = 0; side < 2; side++) {
                    IrNode lit = side == 0 ? b.left() : b.right();
                    IrNode other = side == 0 ? b.right() : b.left();
                    if (lit instanceof IrNode.Const c) {
                        if (c.value().intValue() != absorbing) {
                            return other; // the identity: b & true, b | false
                        }
                        if (!walk.canFail(other)) {
                            return c;
                        }
                    }
                }
                return n;
            }
            case IrNode.Select s -> {
                if (s.condition() instanceof IrNode.Const c) {
                    IrNode taken = c.value().intValue() != 0 ? s.ifTrue() : s.ifFalse();
                    IrNode dropped = c.value().intValue() != 0 ? s.ifFalse() : s.ifTrue();
                    return walk.canFail(dropped) ? n : taken;
                }
                if (s.ifTrue().equals(s.ifFalse()) && !walk.canFail(s.condition())) {
                    return s.ifTrue();
                }
                if (s.type() == ElementType.BOOL) {
                    return booleanSelect(s);
                }
                return n;
            }
            case IrNode.Unary u
            when u.op() == UnaryOp.NOT && u.input() instanceof IrNode.Unary v && v.op() == UnaryOp.NOT -> {
                return v.input();
            }
            default -> {
                return n;
            }
        }
    }

    /** A Boolean select with a literal side is logic: {@code select(c, true, x)} is {@code c | x}, and so on. */
    private static IrNode booleanSelect(IrNode.Select s) {
        IrNode c = s.condition();
        if (s.ifTrue() instanceof IrNode.Const t) {
            IrNode x = s.ifFalse();
            if (x instanceof IrNode.Const f) {
                // Two different literals (equal ones were taken above): the condition, or its negation.
                return t.value().intValue() != 0 && f.value().intValue() == 0 ? c : Ir.not(c);
            }
            return t.value().intValue() != 0 ? Ir.or(c, x) : Ir.and(Ir.not(c), x);
        }
        if (s.ifFalse() instanceof IrNode.Const f) {
            IrNode x = s.ifTrue();
            return f.value().intValue() != 0 ? Ir.or(Ir.not(c), x) : Ir.and(c, x);
        }
        return s;
    }

    /** {@code node} with its operands replaced, in {@link IrNode#children()} order: {@link Ir#withChildren}. */
    static IrNode withChildren(IrNode node, List<IrNode> c) {
        return Ir.withChildren(node, c);
    }
}
