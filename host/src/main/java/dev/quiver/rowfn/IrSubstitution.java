package dev.quiver.rowfn;

import dev.quiver.rowfn.ir.IrNode;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/** Replaces the arguments of an IR tree by other trees (inlining a body at a call site). */
public final class IrSubstitution {
    private IrSubstitution() {
    }

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
            default -> withChildren(n, n.children().stream().map(k -> substitute(k, args, done)).toList());
        };
        done.put(n, out);
        return out;
    }

    /** {@code node} with its operands replaced, in {@link IrNode#children()} order. */
    public static IrNode withChildren(IrNode node, List<IrNode> c) {
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
