package dev.quiver.stream;

import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.expr.Expr;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A query over a stream of batches: filters, projections and limits, in the order they are
 * added, each over the output of the one before. Expressions may call async functions
 * ({@link dev.quiver.functions.AsyncScalarFunction}) anywhere and may hold uncorrelated scalar
 * subqueries over the {@link #table tables} given here. {@link #plan} lifts the async calls into
 * async-function operators and checks everything; {@link PipelinePlan#execute} runs it.
 *
 * <pre>{@code
 * PipelinePlan plan = Pipeline.from(schema)
 *         .filter("lang = 'en' AND sentiment(review) > 0.5")     // the cheap test runs first
 *         .project("id", "sentiment(review) AS score")
 *         .limit(100)
 *         .plan(quiver);
 * try (var runtime = QueryRuntime.create();
 *      QueryExecution q = plan.execute(runtime, BatchStreams.fromReader(reader, runtime.executor()))) {
 *     BatchStreams.drain(q.stream(), batch -> ...);
 *     System.out.println(q.explain(true));
 * }
 * }</pre>
 *
 * Not thread-safe while being built; the plan it makes is.
 */
public final class Pipeline {
    final Schema input;
    final List<Step> steps = new ArrayList<>();
    final Map<String, Table> tables = new LinkedHashMap<>();
    AsyncOptions options = AsyncOptions.defaults();
    Placement placement;

    sealed interface Step permits Filter, Project, Limit {}

    record Filter(Expr predicate) implements Step {}

    record Project(List<Expr> columns) implements Step {}

    record Limit(long rows) implements Step {}

    record Table(String name, Schema schema, TableSource source) {}

    private Pipeline(Schema input) {
        this.input = Objects.requireNonNull(input, "schema is null");
    }

    /** A pipeline over batches of {@code schema}. */
    public static Pipeline from(Schema schema) {
        return new Pipeline(schema);
    }

    /** Keeps the rows where {@code predicate} (SQL) is TRUE. */
    public Pipeline filter(String predicate) {
        return filter(Expr.parse(predicate));
    }

    public Pipeline filter(Expr predicate) {
        steps.add(new Filter(Objects.requireNonNull(predicate, "predicate is null")));
        return this;
    }

    /** One column per expression (SQL; name them with {@code AS}). */
    public Pipeline project(String... columns) {
        return project(Arrays.stream(columns).map(Expr::parse).toList());
    }

    public Pipeline project(List<Expr> columns) {
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("a projection needs at least one expression");
        }
        steps.add(new Project(List.copyOf(columns)));
        return this;
    }

    /** At most {@code rows} rows; once they have passed, nothing more is read or called. */
    public Pipeline limit(long rows) {
        if (rows < 0) {
            throw new IllegalArgumentException("a limit must be >= 0, got " + rows);
        }
        steps.add(new Limit(rows));
        return this;
    }

    /** How async functions are called: batch size, timeout, retries, calls in flight. */
    public Pipeline options(AsyncOptions options) {
        this.options = Objects.requireNonNull(options, "options is null");
        return this;
    }

    /** Where kernels run (the Quiver's default placement when not given). */
    public Pipeline placement(Placement placement) {
        this.placement = Objects.requireNonNull(placement, "placement is null");
        return this;
    }

    /** A table scalar subqueries can read: {@code (SELECT rate FROM rates WHERE cur = 'EUR')}. */
    public Pipeline table(String name, Schema schema, TableSource source) {
        Objects.requireNonNull(name, "name is null");
        tables.put(
                name.toLowerCase(Locale.ROOT),
                new Table(
                        name,
                        Objects.requireNonNull(schema, "schema is null"),
                        Objects.requireNonNull(source, "source is null")));
        return this;
    }

    /**
     * Plans the pipeline: lifts async calls, splits filters so that conjuncts without async
     * calls run first, pushes a limit down to the async operators it can reach, and compiles
     * every expression once to check it.
     *
     * @throws dev.quiver.functions.PlanningException for anything the expressions get wrong
     */
    public PipelinePlan plan(Quiver quiver) {
        return new PipelinePlan(Objects.requireNonNull(quiver, "quiver is null"), this);
    }
}
