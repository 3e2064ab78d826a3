package dev.quiver;

import dev.quiver.physical.SharedValues;
import dev.quiver.planning.ProjectionPlan.SharedSubtree;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a {@link CompiledProjection}'s expressions share: the subtrees several of them read
 * (computed once per batch, planned by {@link dev.quiver.planning.ExpressionPlanner#planTogether}),
 * for EXPLAIN, and with ANALYZE how many evaluations of them the batches saved: each read of a
 * value a batch kept (the filter's, gathered through its selection, or an earlier column's) is an
 * evaluation of that subtree not run. Thread-safe.
 */
final class ProjectionSharing {
    private final List<SharedSubtree> subtrees;
    /** Per shared id, the evaluations saved so far. */
    private final Map<Integer, LongAdder> saved = new ConcurrentHashMap<>();

    private final LongAdder batches = new LongAdder();

    ProjectionSharing(List<SharedSubtree> subtrees) {
        this.subtrees = List.copyOf(Objects.requireNonNull(subtrees, "subtrees is null"));
    }

    /** The subtrees several expressions read, by id. */
    List<SharedSubtree> subtrees() {
        return subtrees;
    }

    /** Counts the reads of one batch's kept values ({@code values}: the batch's, then its kept rows'; nulls skipped). */
    void batch(SharedValues... values) {
        batches.increment();
        for (SharedValues v : values) {
            if (v != null) {
                v.reads()
                        .forEach((id, n) ->
                                saved.computeIfAbsent(id, k -> new LongAdder()).add(n));
            }
        }
    }

    /** The evaluations of shared subtree {@code id} the batches saved so far. */
    long saved(int id) {
        LongAdder a = saved.get(id);
        return a == null ? 0 : a.sum();
    }

    /**
     * EXPLAIN's lines for the shared subtrees, empty when there are none: each with the expressions
     * that read it ({@code readers}: the names of the projection's expressions, the filter's first
     * when there is one, in plan order), and with {@code analyze} the evaluations saved.
     */
    String explain(List<String> readers, boolean analyze) {
        if (subtrees.isEmpty()) {
            return "";
        }
        StringBuilder sb =
                new StringBuilder("Shared across expressions (computed once per batch, read by each named):\n");
        for (SharedSubtree s : subtrees) {
            sb.append("  shared #").append(s.id()).append(' ').append(s.sql()).append(": ");
            for (int i = 0; i < s.readers().size(); i++) {
                sb.append(i > 0 ? ", " : "").append(readers.get(s.readers().get(i)));
            }
            if (analyze) {
                sb.append("; ")
                        .append(saved(s.id()))
                        .append(" evaluation(s) saved in ")
                        .append(batches.sum())
                        .append(" batch(es)");
            }
            sb.append('\n');
        }
        return sb.toString();
    }
}
