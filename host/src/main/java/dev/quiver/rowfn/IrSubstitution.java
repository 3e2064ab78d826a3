package dev.quiver.rowfn;

import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/** Replaces the arguments of an IR tree by other trees (inlining a body at a call site). */
public final class IrSubstitution {
    private IrSubstitution() {}

    /** {@code body} with each {@code Arg(i)} replaced by {@code args.get(i)}; shared subtrees stay shared. */
    public static IrNode substitute(IrNode body, List<IrNode> args) {
        return substitute(body, args, new IdentityHashMap<>());
    }

    private static IrNode substitute(IrNode n, List<IrNode> args, Map<IrNode, IrNode> done) {
        IrNode seen = done.get(n);
        if (seen != null) {
            return seen;
        }
        IrNode out = switch (n) {
            case IrNode.Arg a -> args.get(a.index());
            case IrNode.Const c -> c;
            default -> {
                List<IrNode> kids = new ArrayList<>(3); // a loop, not a stream: fewer frames per level of a deep tree
                for (IrNode k : n.children()) {
                    kids.add(substitute(k, args, done));
                }
                yield withChildren(n, kids);
            }
        };
        done.put(n, out);
        return out;
    }

    /** {@code node} with its operands replaced, in {@link IrNode#children()} order: {@link Ir#withChildren}. */
    public static IrNode withChildren(IrNode node, List<IrNode> c) {
        return Ir.withChildren(node, c);
    }
}
