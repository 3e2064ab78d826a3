package dev.quiver.physical;

import dev.quiver.cancel.Cancellation;
import dev.quiver.errors.EvaluationException;
import dev.quiver.functions.PlanningException;
import dev.quiver.kernels.Kernels;
import dev.quiver.kernels.LikePattern;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code input [NOT] LIKE | ILIKE pattern [ESCAPE escape]} over strings.
 *
 * <p>A literal pattern is compiled when the node is built, once per query, and its strategy
 * (prefix, contains, general, ...) shows in EXPLAIN: {@code LIKE (prefix)}. A literal pattern
 * ending in a lone escape character is a {@link PlanningException} here. Any other pattern is
 * compiled per batch, once per distinct value.
 */
public final class LikeExpr implements PhysicalExpr {
    private final PhysicalExpr input;
    private final PhysicalExpr pattern;
    private final Character escape;
    private final boolean negated;
    private final boolean caseInsensitive;
    /** The literal pattern, compiled; null when the pattern is not a literal, or is NULL. */
    private final LikePattern compiled;

    public LikeExpr(
            PhysicalExpr input, PhysicalExpr pattern, Character escape, boolean negated, boolean caseInsensitive) {
        this.input = Objects.requireNonNull(input, "input is null");
        this.pattern = Objects.requireNonNull(pattern, "pattern is null");
        this.escape = escape;
        this.negated = negated;
        this.caseInsensitive = caseInsensitive;
        LikePattern c = null;
        if (pattern instanceof LiteralExpr lit && lit.value().value() instanceof String text) {
            try {
                c = LikePattern.compile(text, escape, caseInsensitive);
            } catch (IllegalArgumentException | EvaluationException e) {
                throw new PlanningException(e.getMessage(), e);
            }
        }
        this.compiled = c;
    }

    public PhysicalExpr input() {
        return input;
    }

    public PhysicalExpr pattern() {
        return pattern;
    }

    /** The escape character, or null. */
    public Character escape() {
        return escape;
    }

    public boolean negated() {
        return negated;
    }

    public boolean caseInsensitive() {
        return caseInsensitive;
    }

    /** The literal pattern as compiled once when this node was built; empty when the pattern is not a (non-NULL) literal. */
    public Optional<LikePattern> compiled() {
        return Optional.ofNullable(compiled);
    }

    @Override
    public DataType dataType() {
        return DataType.BOOLEAN;
    }

    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        Cancellation.check(); // a kernel boundary
        if (compiled != null) {
            try (ColumnarValue v = input.evaluate(ctx)) {
                return Kernels.like(v, compiled, negated, ctx.rows(), ctx.allocator());
            }
        }
        try (ColumnarValue v = input.evaluate(ctx);
                ColumnarValue p = pattern.evaluate(ctx)) {
            return Kernels.like(v, p, escape, negated, caseInsensitive, ctx.rows(), ctx.allocator());
        }
    }

    /** A compiled pattern of a fast strategy over a cheap input is cheap, and LIKE never fails. */
    @Override
    public boolean isCheapAndInfallible() {
        return compiled != null && compiled.strategy() != LikePattern.Strategy.GENERAL && input.isCheapAndInfallible();
    }

    @Override
    public List<PhysicalExpr> children() {
        return List.of(input, pattern);
    }

    @Override
    public String describe() {
        String how = compiled != null
                ? compiled.strategyName()
                : pattern instanceof LiteralExpr ? "NULL pattern" : "pattern per row";
        return (negated ? "NOT " : "") + (caseInsensitive ? "ILIKE" : "LIKE") + " (" + how + ")"
                + (escape == null ? "" : " ESCAPE '" + escape + "'");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LikeExpr x
                && input.equals(x.input)
                && pattern.equals(x.pattern)
                && Objects.equals(escape, x.escape)
                && negated == x.negated
                && caseInsensitive == x.caseInsensitive;
    }

    @Override
    public int hashCode() {
        return Objects.hash(input, pattern, escape, negated, caseInsensitive);
    }

    @Override
    public String toString() {
        return "LikeExpr[input=" + input + ", pattern=" + pattern + ", escape=" + escape + ", negated=" + negated
                + ", caseInsensitive=" + caseInsensitive + "]";
    }
}
