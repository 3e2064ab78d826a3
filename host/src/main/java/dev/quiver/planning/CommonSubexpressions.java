package dev.quiver.planning;

import dev.quiver.functions.AsyncScalarFunction;
import dev.quiver.functions.Volatility;
import dev.quiver.physical.ColumnExpr;
import dev.quiver.physical.DictionaryDecodeExpr;
import dev.quiver.physical.LiteralExpr;
import dev.quiver.physical.Names;
import dev.quiver.physical.PhysicalExpr;
import dev.quiver.physical.ScalarFunctionExpr;
import dev.quiver.physical.SharedExpr;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Common-subexpression elimination over unfused physical trees (one expression's, or a
 * projection's several: {@link #share(List)}): a deterministic subtree that stands in more than
 * one place is planned once, as a {@link SharedExpr} every place reads (computed once per batch).
 * As DataFusion's planner does, with two rules of Quiver's own:
 *
 * <ul>
 * <li>Only what a kernel would compute twice is shared: where every place of a subtree lies in
 * one fused segment (a chain of fusable operations joins them), the fused loop computes it once
 * already, in registers, and sharing would only cut the segment in two.
 * <li>The largest subtrees first: a subtree that stands only inside another shared one is
 * computed once with it and is not shared on its own.
 * </ul>
 *
 * Nothing changes but how often a subtree runs: a shared subtree inside a CASE branch or behind
 * AND/OR still runs on the rows that reach it only ({@link SharedExpr}). Volatile functions are
 * never shared (each call is its own value). Trees larger than {@link #MAX_NODES} nodes are left
 * as they are (the search compares subtrees structurally).
 */
final class CommonSubexpressions {
    /** Trees with more nodes than this are not searched. */
    static final int MAX_NODES = 4_000;

    private CommonSubexpressions() {}

    /** One place of a node in the tree. */
    private static final class Place {
        final PhysicalExpr node;
        final Place parent;
        final List<Place> children = new ArrayList<>();
        /** The shared subtree that replaces this place, once decided; dropped: a copy of it that no longer runs. */
        SharedExpr shared;

        boolean dropped;
        int size = 1;

        Place(PhysicalExpr node, Place parent) {
            this.node = node;
            this.parent = parent;
        }
    }

    /** {@code root} with its common subtrees shared; {@code root} itself when there are none. */
    static PhysicalExpr share(PhysicalExpr root) {
        return share(List.of(root)).getFirst();
    }

    /**
     * The trees of one projection planned together: a subtree that stands in several of them (or
     * twice in one) becomes one {@link SharedExpr}, of one id in every tree that reads it, so the
     * batch computes it once for all of them. The ids are unique across {@code roots}; their
     * column references must be numbered alike (by schema position). A tree is returned as it is
     * when nothing in it is shared. Where the trees together have more than {@link #MAX_NODES}
     * nodes, each is searched on its own (ids still unique).
     */
    static List<PhysicalExpr> share(List<PhysicalExpr> roots) {
        List<PhysicalExpr> out = shareTogether(roots, 0);
        if (out != null) {
            return out;
        }
        out = new ArrayList<>(roots.size());
        int firstId = 0;
        for (PhysicalExpr r : roots) {
            List<PhysicalExpr> one = shareTogether(List.of(r), firstId);
            PhysicalExpr shared = one == null ? r : one.getFirst();
            out.add(shared);
            firstId = Math.max(firstId, maxId(shared));
        }
        return out;
    }

    /** {@link #share(List)} numbering from {@code lastId + 1}; null when the trees are too large to search. */
    private static List<PhysicalExpr> shareTogether(List<PhysicalExpr> roots, int lastId) {
        List<Place> places = new ArrayList<>();
        List<Place> tops = new ArrayList<>(roots.size());
        Deque<Place> todo = new ArrayDeque<>();
        for (PhysicalExpr root : roots) {
            Place top = new Place(root, null);
            tops.add(top);
            todo.push(top);
        }
        while (!todo.isEmpty()) {
            Place p = todo.pop();
            places.add(p);
            if (places.size() > MAX_NODES) {
                return null;
            }
            for (PhysicalExpr c : p.node.children()) {
                Place cp = new Place(c, p);
                p.children.add(cp);
                todo.push(cp);
            }
        }
        // Sizes bottom-up: places were listed parents first.
        for (int i = places.size() - 1; i >= 0; i--) {
            Place p = places.get(i);
            if (p.parent != null) {
                p.parent.size += p.size;
            }
        }
        Map<PhysicalExpr, List<Place>> groups = new LinkedHashMap<>();
        for (Place p : places) {
            if (candidate(p.node)) {
                groups.computeIfAbsent(p.node, k -> new ArrayList<>()).add(p);
            }
        }
        List<List<Place>> repeated = new ArrayList<>();
        for (List<Place> g : groups.values()) {
            if (g.size() > 1) {
                repeated.add(g);
            }
        }
        if (repeated.isEmpty()) {
            return roots;
        }
        repeated.sort(Comparator.comparingInt((List<Place> g) -> -g.getFirst().size));
        int id = lastId;
        // Per shared subtree, the place that is rebuilt (with what is shared inside it); the others are copies.
        Map<SharedExpr, Place> canonical = new IdentityHashMap<>();
        for (List<Place> g : repeated) {
            List<Place> live = new ArrayList<>();
            for (Place p : g) {
                if (!underDropped(p)) {
                    live.add(p);
                }
            }
            // Places in different trees never share a segment: each tree is fused on its own.
            if (live.size() < 2 || oneSegment(live)) {
                continue;
            }
            SharedExpr s = new SharedExpr(++id, live.getFirst().node);
            canonical.put(s, live.getFirst());
            for (int i = 0; i < live.size(); i++) {
                live.get(i).shared = s;
                live.get(i).dropped = i > 0; // the first place is rebuilt; the others read it
            }
        }
        List<PhysicalExpr> out = new ArrayList<>(roots.size());
        Map<SharedExpr, SharedExpr> built = new IdentityHashMap<>();
        for (int i = 0; i < roots.size(); i++) {
            // Each tree that reads a shared subtree holds the same node for it, of the same id.
            out.add(hasShared(tops.get(i)) ? rebuild(tops.get(i), built, canonical) : roots.get(i));
        }
        return out;
    }

    private static boolean hasShared(Place top) {
        Deque<Place> todo = new ArrayDeque<>();
        todo.push(top);
        while (!todo.isEmpty()) {
            Place p = todo.pop();
            if (p.shared != null) {
                return true;
            }
            p.children.forEach(todo::push);
        }
        return false;
    }

    /** Whether sharing {@code e} can pay: an operation (not a leaf) without a volatile or async function in it. */
    private static boolean candidate(PhysicalExpr e) {
        if (e instanceof ColumnExpr || e instanceof LiteralExpr || e instanceof DictionaryDecodeExpr) {
            return false;
        }
        Deque<PhysicalExpr> todo = new ArrayDeque<>();
        todo.push(e);
        while (!todo.isEmpty()) {
            PhysicalExpr n = todo.pop();
            // Each call of a volatile function is its own value; an async one (lifted out by a pipeline) is never
            // merged either.
            if (n instanceof ScalarFunctionExpr f
                    && (f.function().signature().volatility() == Volatility.VOLATILE
                            || f.function() instanceof AsyncScalarFunction)) {
                return false;
            }
            n.children().forEach(todo::push);
        }
        return true;
    }

    private static boolean underDropped(Place p) {
        for (Place a = p.parent; a != null; a = a.parent) {
            if (a.dropped) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether every place lies in one fused segment: the subtree fuses, and from each place a
     * chain of fusable operations (not crossing a subtree already shared) reaches one common node.
     */
    private static boolean oneSegment(List<Place> places) {
        if (!Fusion.isFusableOp(places.getFirst().node)) {
            return false;
        }
        Set<Place> roots = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Place p : places) {
            Place r = p;
            while (r.parent != null && r.shared == null && Fusion.isFusableOp(r.parent.node)) {
                r = r.parent;
            }
            roots.add(r);
        }
        return roots.size() == 1;
    }

    /**
     * The tree below {@code p} with the shared places replaced; each shared subtree is rebuilt once,
     * from its canonical place (the others are copies whose insides were not searched), whichever
     * place is met first.
     */
    private static PhysicalExpr rebuild(Place p, Map<SharedExpr, SharedExpr> built, Map<SharedExpr, Place> canonical) {
        if (p.shared != null) {
            SharedExpr done = built.get(p.shared);
            if (done != null) {
                return done;
            }
            SharedExpr s = new SharedExpr(p.shared.id(), rebuildChildren(canonical.get(p.shared), built, canonical));
            built.put(p.shared, s);
            return s;
        }
        return p.children.isEmpty() ? p.node : rebuildChildren(p, built, canonical);
    }

    private static PhysicalExpr rebuildChildren(
            Place p, Map<SharedExpr, SharedExpr> built, Map<SharedExpr, Place> canonical) {
        if (p.children.isEmpty()) {
            return p.node;
        }
        List<PhysicalExpr> kids = new ArrayList<>(p.children.size());
        for (Place c : p.children) {
            kids.add(rebuild(c, built, canonical));
        }
        return Fusion.withChildren(p.node, kids);
    }

    /** The shared subtrees that more than one of {@code roots} reads, by id, with the positions of those that read each. */
    static List<ProjectionPlan.SharedSubtree> readers(List<PhysicalExpr> roots) {
        Map<Integer, List<Integer>> readers = new TreeMap<>();
        Map<Integer, String> sql = new HashMap<>();
        for (int i = 0; i < roots.size(); i++) {
            for (SharedExpr s : sharedNodes(roots.get(i))) {
                List<Integer> r = readers.computeIfAbsent(s.id(), k -> new ArrayList<>());
                if (r.isEmpty() || r.getLast() != i) {
                    r.add(i);
                }
                sql.computeIfAbsent(s.id(), k -> Names.sql(s.input()));
            }
        }
        List<ProjectionPlan.SharedSubtree> out = new ArrayList<>();
        readers.forEach((id, r) -> {
            if (r.size() > 1) {
                out.add(new ProjectionPlan.SharedSubtree(id, sql.get(id), r));
            }
        });
        return out;
    }

    /** The largest id of a shared subtree in {@code root}; 0 when there is none. */
    static int maxId(PhysicalExpr root) {
        int max = 0;
        for (int id : sharedIds(root)) {
            max = Math.max(max, id);
        }
        return max;
    }

    /** The ids of the shared subtrees in {@code root}. */
    static Set<Integer> sharedIds(PhysicalExpr root) {
        Set<Integer> ids = new TreeSet<>();
        for (SharedExpr s : sharedNodes(root)) {
            ids.add(s.id());
        }
        return ids;
    }

    /** Every shared node in {@code root}, each place it stands (a shared subtree is walked once). */
    private static List<SharedExpr> sharedNodes(PhysicalExpr root) {
        List<SharedExpr> out = new ArrayList<>();
        Set<PhysicalExpr> walked = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<PhysicalExpr> todo = new ArrayDeque<>();
        todo.push(root);
        while (!todo.isEmpty()) {
            PhysicalExpr n = todo.pop();
            if (n instanceof SharedExpr s) {
                out.add(s);
                if (!walked.add(s)) {
                    continue;
                }
            }
            n.children().forEach(todo::push);
        }
        return out;
    }

    /** For tests: how many distinct shared subtrees {@code root} has. */
    static int sharedCount(PhysicalExpr root) {
        return sharedIds(root).size();
    }
}
