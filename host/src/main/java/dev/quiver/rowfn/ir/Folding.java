package dev.quiver.rowfn.ir;

import java.util.ArrayList;
import java.util.List;

/** Constant folding for {@link Ir#fold}: bottom-up, with the reference interpreter. */
final class Folding {
    private static final Number[] NO_ARGS = new Number[0];

    private Folding() {
    }

    static IrNode fold(IrNode node) {
        return fold(node, new java.util.IdentityHashMap<>());
    }

    /** Shared subtrees are folded once and stay shared. */
    private static IrNode fold(IrNode node, java.util.Map<IrNode, IrNode> done) {
        IrNode seen = done.get(node);
        if (seen != null) {
            return seen;
        }
        IrNode out = foldOnce(node, done);
        done.put(node, out);
        return out;
    }

    private static IrNode foldOnce(IrNode node, java.util.Map<IrNode, IrNode> done) {
        if (node instanceof IrNode.Arg || node instanceof IrNode.Const) {
            return node;
        }
        List<IrNode> kids = node.children();
        List<IrNode> folded = new ArrayList<>(kids.size());
        boolean changed = false;
        boolean allConst = true;
        for (IrNode k : kids) {
            IrNode f = fold(k, done);
            changed |= f != k;
            allConst &= f instanceof IrNode.Const;
            folded.add(f);
        }
        IrNode rebuilt = changed ? withChildren(node, folded) : node;
        if (!allConst) {
            return rebuilt;
        }
        try {
            return new IrNode.Const(rebuilt.type(), RowInterpreter.evaluate(rebuilt, NO_ARGS));
        } catch (ArithmeticException e) {
            return rebuilt; // it fails for every row that reaches it: leave that to the rows
        }
    }

    /** {@code node} with its operands replaced, in {@link IrNode#children()} order. */
    static IrNode withChildren(IrNode node, List<IrNode> c) {
        return switch (node) {
            case IrNode.Arg a -> a;
            case IrNode.Const k -> k;
            case IrNode.Unary u -> new IrNode.Unary(u.op(), c.get(0));
            case IrNode.Binary b -> new IrNode.Binary(b.op(), c.get(0), c.get(1));
            case IrNode.Fma f -> new IrNode.Fma(c.get(0), c.get(1), c.get(2));
            case IrNode.Cast k -> new IrNode.Cast(c.get(0), k.type());
            case IrNode.Compare k -> new IrNode.Compare(k.op(), c.get(0), c.get(1));
            case IrNode.Select s -> new IrNode.Select(c.get(0), c.get(1), c.get(2));
            case IrNode.Check k -> new IrNode.Check(c.get(0), c.get(1), k.message(), c.get(2));
        };
    }
}
