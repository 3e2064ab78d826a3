package dev.quiver;

import dev.quiver.backend.ResidencyScope;
import dev.quiver.kernels.Selection;
import dev.quiver.physical.SharedValues;
import dev.quiver.planning.ProjectionPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Several expressions over one schema, optionally behind a filter: {@link #project} turns a
 * batch into a new batch with one column per expression (named by each expression's output
 * name, e.g. its alias), computed on the rows the filter keeps. Built by
 * {@link Quiver#compileProjection}, which plans the filter and the columns together: a
 * deterministic subtree several of them read is computed once per batch (the filter's value, where
 * it computed it on every row, gathered for the kept rows) and read by each
 * ({@link #sharedSubtrees}, docs/evaluation.md).
 *
 * <p>Threads: thread-safe, like {@link CompiledExpression}: several threads may project batches at
 * once, and a projection is cancelled as an evaluation is (an interrupt, or a
 * {@link dev.quiver.cancel.CancelHandle}), freeing the columns it had computed.
 *
 * <pre>{@code
 * CompiledProjection q = quiver.compileProjection(schema, "x > 0.5 AND y < 0.25",
 *         List.of("x + y AS s", "CASE WHEN x < 0.7 THEN 'low' ELSE 'high' END AS band"));
 * try (VectorSchemaRoot out = q.project(batch, Placement.AUTO, allocator)) {
 *     ...
 * }
 * }</pre>
 */
public final class CompiledProjection {
    private final CompiledExpression filter;
    private final List<CompiledExpression> columns;
    private final Schema outputSchema;
    private final ProjectionSharing sharing;

    CompiledProjection(CompiledExpression filter, List<CompiledExpression> columns) {
        this(filter, columns, List.of());
    }

    /** {@code shared}: the subtrees the filter and columns (planned together, in that order) share. */
    CompiledProjection(
            CompiledExpression filter, List<CompiledExpression> columns, List<ProjectionPlan.SharedSubtree> shared) {
        if (Objects.requireNonNull(columns, "columns is null").isEmpty()) {
            throw new IllegalArgumentException("a projection needs at least one expression");
        }
        this.filter = filter;
        this.columns = List.copyOf(columns);
        List<Field> fields = new ArrayList<>();
        for (CompiledExpression c : this.columns) {
            Field f = c.outputField();
            if (fields.stream().anyMatch(g -> g.getName().equals(f.getName()))) {
                throw new IllegalArgumentException(
                        "two projected columns are named '" + f.getName() + "': give one an alias (AS ...)");
            }
            fields.add(f);
        }
        this.outputSchema = new Schema(fields);
        this.sharing = new ProjectionSharing(shared);
    }

    /** The schema of {@link #project}'s batches. */
    public Schema outputSchema() {
        return outputSchema;
    }

    /** The filter, when there is one. */
    public Optional<CompiledExpression> filter() {
        return Optional.ofNullable(filter);
    }

    /** The projected expressions, in output order. */
    public List<CompiledExpression> columns() {
        return columns;
    }

    /**
     * The projected batch: one vector per expression, allocated from {@code allocator}, over the
     * rows the filter keeps (all rows without one). The caller closes it; {@code batch} stays the
     * caller's, unchanged. On any error everything allocated so far is freed.
     *
     * <p>What moves: the filter gives a {@link dev.quiver.kernels.Selection}; when it keeps every
     * row the expressions run on {@code batch} as it is, when it keeps none nothing runs, and
     * otherwise only the columns the expressions read are compacted to the kept rows, each once
     * (one gather, or a shared slice when the kept rows are consecutive) when first read, and the
     * expressions run on those; a subtree the filter computed on every row (shared with the
     * columns) is gathered, not computed again, and the columns only it reads are not compacted.
     * A column that is projected as it is (a bare column reference) is not copied: its
     * vector shares the buffers of the batch's column, or of its compacted rows (reference
     * counted, so closing the result or the batch leaves the other intact; a write into one is
     * seen by the other), where the batch's vectors and {@code allocator} share a root allocator.
     */
    public VectorSchemaRoot project(VectorSchemaRoot batch, Placement placement, BufferAllocator allocator) {
        return project(batch, Integer.MAX_VALUE, placement, allocator);
    }

    /**
     * As {@link #project(VectorSchemaRoot, Placement, BufferAllocator)}, over at most {@code limit}
     * rows: the first {@code limit} rows the filter keeps (the first {@code limit} rows of the
     * batch without a filter), as a {@code LIMIT} above the projection would keep them. The rows
     * past the limit are neither compacted nor computed, so they raise no error.
     *
     * @throws IllegalArgumentException when {@code limit < 0}
     */
    public VectorSchemaRoot project(VectorSchemaRoot batch, int limit, Placement placement, BufferAllocator allocator) {
        Objects.requireNonNull(batch, "batch is null");
        Objects.requireNonNull(placement, "placement is null");
        Objects.requireNonNull(allocator, "allocator is null");
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be >= 0, got " + limit);
        }
        int rows = batch.getRowCount();
        // The values of shared subtrees for this batch: what the filter computed on every row is read by the
        // columns through the selection (gathered once), what one column computed by the next.
        SharedValues onBatch = new SharedValues(rows, allocator);
        SharedValues onKept = null;
        try (onBatch) {
            Selection keep = null;
            if (filter != null) {
                // Only the columns something reads are checked (when they are bound): the others are never touched.
                keep = filter.select(batch, placement, allocator, onBatch);
            }
            if (limit < (keep == null ? rows : keep.count())) {
                keep = (keep == null ? Selection.all(rows) : keep).first(limit);
            }
            if (keep == null || keep.isAll()) {
                return evaluate(batch, null, placement, allocator, onBatch);
            }
            if (keep.isNone()) {
                return empty(allocator);
            }
            onKept = onBatch.select(keep, allocator);
            try (KeptRows kept = new KeptRows(keep, allocator);
                    SharedValues values = onKept) {
                return evaluate(batch, kept, placement, allocator, values);
            }
        } finally {
            sharing.batch(onBatch, onKept);
        }
    }

    private VectorSchemaRoot evaluate(
            VectorSchemaRoot batch,
            KeptRows kept,
            Placement placement,
            BufferAllocator allocator,
            SharedValues values) {
        List<FieldVector> out = new ArrayList<>(columns.size());
        // One scope for the batch: a column several expressions read goes to a device that copies once.
        try (ResidencyScope scope = new ResidencyScope()) {
            for (CompiledExpression c : columns) {
                out.add(c.project(batch, kept, placement, allocator, scope, values));
            }
            VectorSchemaRoot result = new VectorSchemaRoot(out);
            result.setRowCount(kept == null ? batch.getRowCount() : kept.rows());
            return result;
        } catch (RuntimeException | Error e) {
            out.forEach(FieldVector::close);
            throw e;
        }
    }

    /** A batch of no rows with the output's fields. */
    private VectorSchemaRoot empty(BufferAllocator allocator) {
        List<FieldVector> out = new ArrayList<>(columns.size());
        try {
            for (CompiledExpression c : columns) {
                FieldVector v = c.outputField().createVector(allocator);
                out.add(v);
                v.setInitialCapacity(0);
                v.allocateNew();
                v.setValueCount(0);
            }
            VectorSchemaRoot result = new VectorSchemaRoot(out);
            result.setRowCount(0);
            return result;
        } catch (RuntimeException | Error e) {
            out.forEach(FieldVector::close);
            throw e;
        }
    }

    /** {@link #project(VectorSchemaRoot, Placement, BufferAllocator)} with the Quiver's placement and allocator. */
    public VectorSchemaRoot project(VectorSchemaRoot batch) {
        return project(
                batch, columns.getFirst().quiverPlacement(), columns.getFirst().quiverAllocator());
    }

    /** {@link #explain(boolean) explain(true)}: the filter's and each column's plans, estimates and what has run. */
    public String explain() {
        return explain(true);
    }

    /**
     * The subtrees several expressions share (each {@code shared #n}, its SQL and the expressions
     * that read it; with {@code analyze} the evaluations of it the batches saved), then the filter's
     * explanation (when there is one), then each column's, as
     * {@link CompiledExpression#explain(boolean)} gives them: the plans, the devices, the placement
     * estimates at the last batch size each evaluated, and with {@code analyze} what has run.
     */
    public String explain(boolean analyze) {
        return explain(e -> e.explain(analyze), analyze);
    }

    /** {@link #explain(boolean)} with the estimates for batches of {@code batchRows} rows. */
    public String explain(boolean analyze, int batchRows) {
        if (batchRows < 1) {
            throw new IllegalArgumentException("batchRows must be >= 1, got " + batchRows);
        }
        return explain(e -> e.explain(analyze, batchRows), analyze);
    }

    /** The subtrees several of the expressions read (computed once per batch), by id; empty when none. */
    public List<ProjectionPlan.SharedSubtree> sharedSubtrees() {
        return sharing.subtrees();
    }

    private String explain(Function<CompiledExpression, String> each, boolean analyze) {
        List<String> readers = new ArrayList<>();
        if (filter != null) {
            readers.add("Filter");
        }
        for (CompiledExpression c : columns) {
            readers.add("'" + c.outputField().getName() + "'");
        }
        StringBuilder sb = new StringBuilder(sharing.explain(readers, analyze));
        if (filter != null) {
            sb.append("Filter:\n").append(each.apply(filter).indent(2));
        }
        for (CompiledExpression c : columns) {
            sb.append("Column '")
                    .append(c.outputField().getName())
                    .append("':\n")
                    .append(each.apply(c).indent(2));
        }
        return sb.toString();
    }
}
