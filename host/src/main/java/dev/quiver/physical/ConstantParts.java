package dev.quiver.physical;

import dev.quiver.rowfn.ir.IrNode;
import java.util.IdentityHashMap;
import java.util.Map;

/** Counts the parts of a tree that depend on literals only: the maximal non-literal subtrees without arguments. */
final class ConstantParts {
    private ConstantParts() {}

    static int count(IrNode root) {
        Map<IrNode, Boolean> constant = new IdentityHashMap<>();
        int[] parts = {0};
        count(root, constant, parts, new IdentityHashMap<>());
        if (isConstant(root, constant) && !(root instanceof IrNode.Const)) {
            parts[0]++;
        }
        return parts[0];
    }

    private static void count(IrNode n, Map<IrNode, Boolean> constant, int[] parts, Map<IrNode, Boolean> seen) {
        if (seen.put(n, Boolean.TRUE) != null) {
            return;
        }
        boolean mine = isConstant(n, constant);
        for (IrNode c : n.children()) {
            if (!mine && isConstant(c, constant) && !(c instanceof IrNode.Const)) {
                parts[0]++;
            }
            count(c, constant, parts, seen);
        }
    }

    private static boolean isConstant(IrNode n, Map<IrNode, Boolean> memo) {
        Boolean m = memo.get(n);
        if (m != null) {
            return m;
        }
        boolean r = !(n instanceof IrNode.Arg) && n.children().stream().allMatch(c -> isConstant(c, memo));
        memo.put(n, r);
        return r;
    }
}
