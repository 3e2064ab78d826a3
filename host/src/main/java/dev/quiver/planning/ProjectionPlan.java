package dev.quiver.planning;

import java.util.List;
import java.util.Objects;

/**
 * The expressions of one projection (a filter's included) planned together
 * ({@link ExpressionPlanner#planTogether}): one {@link PhysicalPlan} per expression, in the order
 * given, and the subtrees that several of them read, each a {@link dev.quiver.physical.SharedExpr}
 * of one id in every plan that reads it, computed once per batch for all of them.
 *
 * @param plans  the plans, in the order of the expressions
 * @param shared the subtrees read by more than one expression, by id
 */
public record ProjectionPlan(List<PhysicalPlan> plans, List<SharedSubtree> shared) {
    public ProjectionPlan {
        plans = List.copyOf(Objects.requireNonNull(plans, "plans is null"));
        shared = List.copyOf(Objects.requireNonNull(shared, "shared is null"));
    }

    /**
     * A subtree several expressions of a projection read.
     *
     * @param id      its id ({@code shared #id} in each plan's EXPLAIN)
     * @param sql     the subtree as SQL text, before fusion
     * @param readers the positions (in {@link #plans}) of the expressions that read it, ascending
     */
    public record SharedSubtree(int id, String sql, List<Integer> readers) {
        public SharedSubtree {
            Objects.requireNonNull(sql, "sql is null");
            readers = List.copyOf(readers);
        }
    }
}
