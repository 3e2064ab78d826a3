package dev.quiver.rowfn;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the framework did with one RowFn, counted since it was declared (or {@link #reset()}):
 * how many rows its body computed, how many times parts of it over constants were computed
 * once for a batch, and which strategy each batch took. Thread-safe. For a fused segment, every
 * RowFn in it counts the segment's rows.
 */
public final class RowFnStats {
    private final LongAdder bodyRows = new LongAdder();
    private final LongAdder constantEvaluations = new LongAdder();
    private final Map<Strategy, LongAdder> strategies = new EnumMap<>(Strategy.class);

    RowFnStats() {
        for (Strategy s : Strategy.values()) {
            strategies.put(s, new LongAdder());
        }
    }

    /** Rows the body was computed for, on any device (vector lanes of a step that had to run count). */
    public long bodyRows() {
        return bodyRows.sum();
    }

    /**
     * Evaluations of constant parts: a body over all-constant arguments (once per batch), or a
     * part of the body that depends only on arguments constant in a batch (once per batch).
     */
    public long constantEvaluations() {
        return constantEvaluations.sum();
    }

    /** Batches computed with {@code strategy}. */
    public long batches(Strategy strategy) {
        return strategies.get(strategy).sum();
    }

    public void reset() {
        bodyRows.reset();
        constantEvaluations.reset();
        strategies.values().forEach(LongAdder::reset);
    }

    /** Records a batch (the framework calls this). */
    public void record(Strategy strategy, long rows, long constantParts) {
        strategies.get(strategy).increment();
        bodyRows.add(rows);
        constantEvaluations.add(constantParts);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(
                "rows computed " + bodyRows() + ", constant parts computed " + constantEvaluations() + ", batches:");
        strategies.forEach((s, n) -> {
            if (n.sum() > 0) {
                sb.append(' ')
                        .append(s.name().toLowerCase(Locale.ROOT))
                        .append('=')
                        .append(n.sum());
            }
        });
        return sb.toString();
    }
}
