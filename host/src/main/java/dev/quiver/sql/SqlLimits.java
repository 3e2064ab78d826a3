package dev.quiver.sql;

import dev.quiver.expr.ExprThreads;

/**
 * How much SQL text the parser takes: {@code maxNesting} levels of parentheses, brackets, braces and
 * {@code CASE ... END} (default {@value #DEFAULT_MAX_NESTING}, or {@code -Dquiver.sql.maxNesting}). Deeper
 * text is a {@link dev.quiver.functions.PlanningException} found by one pass over the tokens, before the
 * parser runs; within the limit, parsing runs on a thread whose stack is sized from it
 * ({@link #stackBytes()}), so no text overflows a stack. Chains of operators ({@code a + b + ... },
 * {@code NOT NOT ...}, {@code x::INT::INT...}) are not nesting: the grammar reads them in loops, whatever
 * their length. The planner bounds the trees it takes on its own (docs/expressions.md#limits).
 *
 * @param maxNesting the deepest nesting accepted, at least 1
 */
public record SqlLimits(int maxNesting) {
    /** The default nesting limit: {@value} levels. */
    public static final int DEFAULT_MAX_NESTING = 1_000;

    /** Stack per level of nesting: about fifteen rule invocations of the parser and three of the tree builder. */
    private static final long STACK_PER_LEVEL = 12L << 10;

    public SqlLimits {
        if (maxNesting < 1) {
            throw new IllegalArgumentException("maxNesting must be at least 1, got " + maxNesting);
        }
    }

    /** {@value #DEFAULT_MAX_NESTING} levels, or what {@code -Dquiver.sql.maxNesting} says (read on every call). */
    public static SqlLimits configured() {
        return new SqlLimits(Integer.getInteger("quiver.sql.maxNesting", DEFAULT_MAX_NESTING));
    }

    /** The stack a parse within these limits needs, with room to spare. */
    public long stackBytes() {
        return Math.max(ExprThreads.STACK_BYTES, (maxNesting + 64L) * STACK_PER_LEVEL);
    }
}
