package dev.quiver.rowfn.ir;

import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Structural hashing and equality of IR trees that share subtrees. A RowFn body that uses a
 * value twice gives a DAG: the value's node has two parents. Walking it as a tree visits the
 * shared node once per path, which doubles with every level that shares (an unrolled loop
 * such as gcd's has hundreds of nodes but astronomically many paths); these walks visit each
 * node once. The operation nodes of {@link IrNode} use them for {@code equals} and {@code hashCode}.
 */
final class IrStructure {
    private IrStructure() {}

    /** A hash of the tree's structure, the same for equal trees however they share subtrees. */
    static int hash(IrNode root) {
        return hash(root, new IdentityHashMap<>());
    }

    private static int hash(IrNode n, Map<IrNode, Integer> done) {
        if (n instanceof IrNode.Arg || n instanceof IrNode.Const) {
            return n.hashCode();
        }
        Integer seen = done.get(n);
        if (seen != null) {
            return seen;
        }
        int h = switch (n) {
            case IrNode.Unary u -> 1 + 31 * u.op().hashCode();
            case IrNode.Binary b -> 2 + 31 * b.op().hashCode();
            case IrNode.Fma _ -> 3;
            case IrNode.Cast c -> 4 + 31 * c.type().hashCode();
            case IrNode.Compare c -> 5 + 31 * c.op().hashCode();
            case IrNode.Select _ -> 6;
            case IrNode.Check c -> 7 + 31 * c.message().hashCode();
            case IrNode.Arg a -> a.hashCode();
            case IrNode.Const c -> c.hashCode();
        };
        for (IrNode child : n.children()) {
            h = h * 31 + hash(child, done);
        }
        done.put(n, h);
        return h;
    }

    /** Whether two trees compute the same thing: the same nodes, operands and literals (bitwise). */
    static boolean equal(IrNode a, IrNode b) {
        return equal(a, b, new HashSet<>());
    }

    /** Two nodes by identity, for the set of pairs already found equal. */
    private record Pair(IrNode a, IrNode b) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Pair p && p.a == a && p.b == b;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(a) * 31 + System.identityHashCode(b);
        }
    }

    private static boolean equal(IrNode a, IrNode b, Set<Pair> equalPairs) {
        if (a == b) {
            return true;
        }
        if (a == null || b == null || a.getClass() != b.getClass()) {
            return false;
        }
        if (a instanceof IrNode.Arg || a instanceof IrNode.Const) {
            return a.equals(b);
        }
        Pair pair = new Pair(a, b);
        if (equalPairs.contains(pair)) {
            return true;
        }
        boolean sameNode = switch (a) {
            case IrNode.Unary u -> u.op() == ((IrNode.Unary) b).op();
            case IrNode.Binary x -> x.op() == ((IrNode.Binary) b).op();
            case IrNode.Cast c -> c.type() == ((IrNode.Cast) b).type();
            case IrNode.Compare c -> c.op() == ((IrNode.Compare) b).op();
            case IrNode.Check c -> Objects.equals(c.message(), ((IrNode.Check) b).message());
            default -> true;
        };
        if (!sameNode) {
            return false;
        }
        List<IrNode> ka = a.children();
        List<IrNode> kb = b.children();
        for (int i = 0; i < ka.size(); i++) {
            if (!equal(ka.get(i), kb.get(i), equalPairs)) {
                return false;
            }
        }
        equalPairs.add(pair);
        return true;
    }
}
