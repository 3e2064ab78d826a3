package dev.quiver.planning;

import dev.quiver.functions.Volatility;
import dev.quiver.physical.ColumnExpr;
import dev.quiver.physical.DictionaryDecodeExpr;
import dev.quiver.physical.LiteralExpr;
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

/**
 * Common-subexpression elimination over one unfused physical tree: a deterministic subtree that
 * stands in more than one place is planned once, as a {@link SharedExpr} every place reads
 * (computed once per batch). As DataFusion's planner does, with two rules of Quiver's own:
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
        List<Place> places = new ArrayList<>();
        Place top = new Place(root, null);
        Deque<Place> todo = new ArrayDeque<>();
        todo.push(top);
        while (!todo.isEmpty()) {
            Place p = todo.pop();
            places.add(p);
            if (places.size() > MAX_NODES) {
                return root;
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
            return root;
        }
        repeated.sort(Comparator.comparingInt((List<Place> g) -> -g.getFirst().size));
        int id = 0;
        boolean any = false;
        for (List<Place> g : repeated) {
            List<Place> live = new ArrayList<>();
            for (Place p : g) {
                if (!underDropped(p)) {
                    live.add(p);
                }
            }
            if (live.size() < 2 || oneSegment(live)) {
                continue;
            }
            SharedExpr s = new SharedExpr(++id, live.getFirst().node);
            for (int i = 0; i < live.size(); i++) {
                live.get(i).shared = s;
                live.get(i).dropped = i > 0; // the first place is rebuilt; the others read it
            }
            any = true;
        }
        return any ? rebuild(top, new IdentityHashMap<>()) : root;
    }

    /** Whether sharing {@code e} can pay: an operation (not a leaf) without a volatile function in it. */
    private static boolean candidate(PhysicalExpr e) {
        if (e instanceof ColumnExpr || e instanceof LiteralExpr || e instanceof DictionaryDecodeExpr) {
            return false;
        }
        Deque<PhysicalExpr> todo = new ArrayDeque<>();
        todo.push(e);
        while (!todo.isEmpty()) {
            PhysicalExpr n = todo.pop();
            if (n instanceof ScalarFunctionExpr f && f.function().signature().volatility() == Volatility.VOLATILE) {
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

    /** The tree below {@code p} with the shared places replaced (each shared subtree rebuilt once). */
    private static PhysicalExpr rebuild(Place p, Map<SharedExpr, SharedExpr> built) {
        if (p.shared != null) {
            SharedExpr done = built.get(p.shared);
            if (done != null) {
                return done;
            }
            SharedExpr s = new SharedExpr(p.shared.id(), rebuildChildren(p, built));
            built.put(p.shared, s);
            return s;
        }
        return p.children.isEmpty() ? p.node : rebuildChildren(p, built);
    }

    private static PhysicalExpr rebuildChildren(Place p, Map<SharedExpr, SharedExpr> built) {
        if (p.children.isEmpty()) {
            return p.node;
        }
        List<PhysicalExpr> kids = new ArrayList<>(p.children.size());
        for (Place c : p.children) {
            kids.add(rebuild(c, built));
        }
        return Fusion.withChildren(p.node, kids);
    }

    /** For tests: how many distinct shared subtrees {@code root} has. */
    static int sharedCount(PhysicalExpr root) {
        Map<Integer, Boolean> ids = new HashMap<>();
        Deque<PhysicalExpr> todo = new ArrayDeque<>();
        todo.push(root);
        while (!todo.isEmpty()) {
            PhysicalExpr n = todo.pop();
            if (n instanceof SharedExpr s) {
                ids.put(s.id(), true);
            }
            n.children().forEach(todo::push);
        }
        return ids.size();
    }
}
