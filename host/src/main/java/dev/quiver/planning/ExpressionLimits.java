package dev.quiver.planning;

import dev.quiver.expr.Expr;
import dev.quiver.expr.ExprText;
import dev.quiver.expr.ExprThreads;
import dev.quiver.functions.PlanningException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * How large an expression the planner takes. Planning, fusion, code generation and evaluation
 * walk the tree, most of them recursively; {@link #check} refuses a tree past these limits first,
 * with a {@link PlanningException} that names the limit, walking the tree with a stack of its own.
 * Below them, the recursive work runs where the tree's depth cannot overflow a stack: planning and
 * code generation on Quiver's own threads ({@link dev.quiver.expr.ExprThreads}) with a stack of
 * {@link #stackBytes()}, and the evaluation of a tree deeper than 128 levels as well; a shallower
 * tree evaluates on the caller's thread, whatever its stack (256 KiB is plenty: docs/expressions.md#limits).
 *
 * <ul>
 *   <li>{@code maxDepth}: the most levels from the root to a leaf (a column is one level,
 *   {@code a + b} two), default {@value #DEFAULT_MAX_DEPTH}. A chain of more than
 *   {@value LogicChains#BALANCED_FROM} terms of one AND or OR counts as balanced (the planner
 *   makes it so; a chain's terms run in the order written either way), so
 *   {@code a = 1 OR a = 2 OR ... OR a = 50000} is 18 levels deep. Any other chain written
 *   left-deep, such as a sum {@code x1 + x2 + ... + xn}, is {@code n} levels deep: arithmetic is
 *   not reassociated, as that would change rounding and where an overflow is found.</li>
 *   <li>{@code maxNodes}: the most nodes (every column, literal, operator, call and CASE counts
 *   one), default {@value #DEFAULT_MAX_NODES}. It bounds the time and memory planning takes.</li>
 * </ul>
 *
 * <p>Set them with {@code Quiver.builder().maxExpressionDepth(int)} and
 * {@code maxExpressionNodes(int)}.
 *
 * @param maxDepth the deepest tree accepted, at least 1
 * @param maxNodes the most nodes accepted, at least 1
 */
public record ExpressionLimits(int maxDepth, int maxNodes) {
    /** The default depth limit. */
    public static final int DEFAULT_MAX_DEPTH = 1_000;
    /** The default node limit. */
    public static final int DEFAULT_MAX_NODES = 200_000;
    /** {@value #DEFAULT_MAX_DEPTH} levels, {@value #DEFAULT_MAX_NODES} nodes. */
    public static final ExpressionLimits DEFAULT = new ExpressionLimits(DEFAULT_MAX_DEPTH, DEFAULT_MAX_NODES);

    /** How much of the expression a limit's message quotes. */
    private static final int QUOTED = 120;

    public ExpressionLimits {
        if (maxDepth < 1) {
            throw new IllegalArgumentException("maxDepth must be at least 1, got " + maxDepth);
        }
        if (maxNodes < 1) {
            throw new IllegalArgumentException("maxNodes must be at least 1, got " + maxNodes);
        }
    }

    /**
     * The stack of the threads that plan and evaluate trees as deep as this allows: 4 KiB a level
     * (four times the most a level was measured to take, interpreted), at least the 16 MiB of the
     * pooled threads ({@link dev.quiver.expr.ExprThreads#STACK_BYTES}), at most 1 GiB. Above 16 MiB
     * (limits past 4,096 levels) each deep plan or batch gets a thread of its own.
     */
    public long stackBytes() {
        return Math.min(1L << 30, Math.max(ExprThreads.STACK_BYTES, maxDepth * 4096L));
    }

    public ExpressionLimits withMaxDepth(int depth) {
        return new ExpressionLimits(depth, maxNodes);
    }

    public ExpressionLimits withMaxNodes(int nodes) {
        return new ExpressionLimits(maxDepth, nodes);
    }

    /**
     * Checks {@code expr} against both limits, without recursion: first its size (the walk stops
     * at the first node past the limit), then its depth. A subquery's select and where count as
     * part of the tree.
     *
     * @throws PlanningException naming the limit passed, its value and how to raise it
     */
    public void check(Expr expr) {
        Deque<Expr> nodes = new ArrayDeque<>();
        Deque<Integer> depths = new ArrayDeque<>();
        nodes.push(expr);
        depths.push(1);
        long count = 0;
        int deepest = 0;
        while (!nodes.isEmpty()) {
            Expr e = nodes.pop();
            int d = depths.pop();
            deepest = Math.max(deepest, d);
            if (++count > maxNodes) {
                throw new PlanningException(
                        "the expression has more than " + maxNodes + " nodes, the limit: raise it with"
                                + " Quiver.builder().maxExpressionNodes(int) (docs/expressions.md#limits); in "
                                + ExprText.sql(expr, QUOTED));
            }
            for (Expr c : parts(e)) {
                nodes.push(c);
                depths.push(d + 1);
            }
        }
        if (deepest > maxDepth) {
            throw new PlanningException(
                    "the expression is nested " + deepest + " levels deep, more than the limit of " + maxDepth
                            + ": raise it with Quiver.builder().maxExpressionDepth(int), on threads with a stack to match"
                            + " (docs/expressions.md#limits), or write a long sum or product in parenthesized groups; in "
                            + ExprText.sql(expr, QUOTED));
        }
    }

    /** The subexpressions of {@code e}, a subquery's select and where included. */
    private static List<Expr> parts(Expr e) {
        if (e instanceof Expr.ScalarSubquery s) {
            return s.where() == null ? List.of(s.select()) : List.of(s.select(), s.where());
        }
        return e.children();
    }
}
