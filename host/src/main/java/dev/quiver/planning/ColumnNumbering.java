package dev.quiver.planning;

import dev.quiver.physical.ColumnExpr;
import dev.quiver.physical.PhysicalExpr;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntUnaryOperator;

/**
 * Renumbers the column references of an unfused tree. Each expression numbers the columns it
 * reads by its own input positions; a projection's expressions are compared with each other
 * numbered by schema position ({@link CommonSubexpressions#share(List)}), then numbered back.
 */
final class ColumnNumbering {
    private ColumnNumbering() {}

    /**
     * {@code root} with every {@link ColumnExpr} index {@code i} replaced by {@code map(i)}; nodes
     * with nothing renumbered below them are kept, and a node met twice (a shared subtree) is
     * renumbered once, so it stays one node.
     */
    static PhysicalExpr renumber(PhysicalExpr root, IntUnaryOperator map) {
        return renumber(root, map, new IdentityHashMap<>());
    }

    private static PhysicalExpr renumber(PhysicalExpr e, IntUnaryOperator map, Map<PhysicalExpr, PhysicalExpr> done) {
        PhysicalExpr seen = done.get(e);
        if (seen != null) {
            return seen;
        }
        PhysicalExpr out;
        if (e instanceof ColumnExpr c) {
            int to = map.applyAsInt(c.index());
            out = to == c.index() ? c : new ColumnExpr(to, c.name(), c.dataType());
        } else {
            List<PhysicalExpr> kids = e.children();
            List<PhysicalExpr> renumbered = new ArrayList<>(kids.size());
            boolean changed = false;
            for (PhysicalExpr k : kids) {
                PhysicalExpr r = renumber(k, map, done);
                changed |= r != k;
                renumbered.add(r);
            }
            out = changed ? Fusion.withChildren(e, renumbered) : e;
        }
        done.put(e, out);
        return out;
    }
}
