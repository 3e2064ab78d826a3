package dev.quiver.rowfn.ir;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/** Constant folding for {@link Ir#fold}: bottom-up, with the reference interpreter. */
final class Folding {
    private static final Number[] NO_ARGS = new Number[0];

    private Folding() {}

    static IrNode fold(IrNode node) {
        return fold(node, new IdentityHashMap<>());
    }

    /** Shared subtrees are folded once and stay shared. */
    private static IrNode fold(IrNode node, Map<IrNode, IrNode> done) {
        IrNode seen = done.get(node);
        if (seen != null) {
            return seen;
        }
        IrNode out = foldOnce(node, done);
        done.put(node, out);
        return out;
    }

    private static IrNode foldOnce(IrNode node, Map<IrNode, IrNode> done) {
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

    /** {@code node} with its operands replaced, in {@link IrNode#children()} order: {@link Ir#withChildren}. */
    static IrNode withChildren(IrNode node, List<IrNode> c) {
        return Ir.withChildren(node, c);
    }
}
