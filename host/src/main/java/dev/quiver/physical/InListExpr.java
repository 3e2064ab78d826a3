package dev.quiver.physical;

import dev.quiver.cancel.Cancellation;
import dev.quiver.kernels.InList;
import dev.quiver.kernels.Kernels;
import dev.quiver.memory.Resources;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code input [NOT] IN (list)}; every element already has the input's type.
 *
 * <p>The literal elements are prepared into an {@link InList} when the node is built, once per
 * query (a linear scan, a bitmap or a hash set, shown in EXPLAIN: {@code IN (hash set of 12
 * values)}); a batch then takes one pass over the input. Elements that are not literals are
 * compared row by row and OR-ed in.
 */
public final class InListExpr implements PhysicalExpr {
    private final PhysicalExpr input;
    private final List<PhysicalExpr> list;
    private final boolean negated;
    /** The literal elements, prepared; null when the input's type has no prepared form (every element is then compared per batch). */
    private final InList prepared;
    /** The elements not in {@link #prepared}. */
    private final List<PhysicalExpr> others;

    public InListExpr(PhysicalExpr input, List<PhysicalExpr> list, boolean negated) {
        this.input = Objects.requireNonNull(input, "input is null");
        this.list = List.copyOf(list);
        this.negated = negated;
        List<ScalarValue> literals = new ArrayList<>();
        List<PhysicalExpr> rest = new ArrayList<>();
        for (PhysicalExpr e : this.list) {
            if (e instanceof LiteralExpr lit) {
                literals.add(lit.value());
            } else {
                rest.add(e);
            }
        }
        InList p = null;
        if (InList.supports(input.dataType().valueType())) {
            p = InList.of(input.dataType().valueType(), literals);
        } else {
            // Lists and structs: every element is compared with = per batch.
            rest = this.list;
        }
        this.prepared = p;
        this.others = List.copyOf(rest);
    }

    public PhysicalExpr input() {
        return input;
    }

    public List<PhysicalExpr> list() {
        return list;
    }

    public boolean negated() {
        return negated;
    }

    /** Whether every element is a literal, prepared when this node was built (no element is compared per batch). */
    public boolean literalsOnly() {
        return prepared != null && others.isEmpty();
    }

    /** The literal elements as prepared when this node was built. */
    public Optional<InList> prepared() {
        return Optional.ofNullable(prepared);
    }

    @Override
    public DataType dataType() {
        return DataType.BOOLEAN;
    }

    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        Cancellation.check(); // a kernel boundary
        List<ColumnarValue> values = new ArrayList<>(others.size());
        try (ColumnarValue v = input.evaluate(ctx)) {
            for (PhysicalExpr e : others) {
                values.add(e.evaluate(ctx));
            }
            if (prepared == null) {
                return Kernels.inList(v, values, negated, ctx.rows(), ctx.allocator());
            }
            return Kernels.inList(v, prepared, values, negated, ctx.rows(), ctx.allocator());
        } finally {
            Resources.closeAll(values);
        }
    }

    @Override
    public boolean isCheapAndInfallible() {
        return prepared != null
                && input.isCheapAndInfallible()
                && others.stream().allMatch(PhysicalExpr::isCheapAndInfallible);
    }

    @Override
    public List<PhysicalExpr> children() {
        List<PhysicalExpr> c = new ArrayList<>();
        c.add(input);
        c.addAll(list);
        return c;
    }

    @Override
    public String describe() {
        String how;
        if (prepared == null) {
            how = list.size() + " values";
        } else if (others.isEmpty()) {
            how = prepared.strategy();
        } else {
            how = prepared.strategy() + " + " + others.size() + (others.size() == 1 ? " expression" : " expressions");
        }
        return (negated ? "NOT IN (" : "IN (") + how + ")";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof InListExpr x && input.equals(x.input) && list.equals(x.list) && negated == x.negated;
    }

    @Override
    public int hashCode() {
        return Objects.hash(input, list, negated);
    }

    @Override
    public String toString() {
        return "InListExpr[input=" + input + ", list=" + list + ", negated=" + negated + "]";
    }
}
