package dev.quiver.stream;

import dev.quiver.CompiledExpression;
import dev.quiver.CompiledProjection;
import dev.quiver.expr.Expr;
import dev.quiver.functions.AsyncScalarFunction;
import dev.quiver.functions.ExecutionConfig;
import dev.quiver.types.DataType;
import dev.quiver.types.SqlTypes;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.time.Instant;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One run of a {@link PipelinePlan}: one query. Its scalar subqueries are computed once, before
 * any batch, and shared by every partition and thread; then each partition's operators are
 * built over its source. The output streams are pulled by the caller ({@link BatchStream}).
 * {@link #explain(boolean) explain(true)} shows what each operator did so far: rows, batches,
 * compute time, and for each async call the calls made, rows sent, wall time spent waiting,
 * peak calls in flight, retries, timeouts and failures. {@link #close()} (or {@link #cancel()})
 * cancels everything still running, pending calls included, and a batch being evaluated stops at
 * its next kernel boundary (within 100 ms, see docs/evaluation.md#cancellation);
 * {@link #whenReleased()} tells when the last of them has ended and its buffers are freed.
 *
 * <p>Threads: thread-safe; {@link #cancel()} and {@link #explain} may be called from any thread.
 * Each output stream has one consumer at a time ({@link BatchStream}); the work runs on the
 * {@link QueryRuntime}'s workers.
 */
public final class QueryExecution implements AutoCloseable {
    private final PipelinePlan plan;
    private final QueryRuntime runtime;
    private final BufferAllocator allocator;
    private final Outstanding outstanding = new Outstanding();
    private final List<OperatorMetrics> metrics = new ArrayList<>();
    private final Map<Expr.ScalarSubquery, SubqueryRun> subqueries = new LinkedHashMap<>();
    private final CompletableFuture<Prepared> prepared;
    private final List<DeferredStream> streams = new ArrayList<>();
    private final List<QueryExecution> children = new CopyOnWriteArrayList<>();
    private final ExecutionConfig config;
    private final long startNanos = System.nanoTime();
    private volatile boolean cancelled;

    /** What one execution compiled once its subqueries were known. */
    private record Prepared(List<Object> perOp) {}

    private static final class SubqueryRun {
        final PipelinePlan.Subquery subquery;
        final CompletableFuture<ScalarValue> value = new CompletableFuture<>();
        volatile long nanos = -1;
        volatile long rows;

        SubqueryRun(PipelinePlan.Subquery subquery) {
            this.subquery = subquery;
        }
    }

    QueryExecution(PipelinePlan plan, QueryRuntime runtime, List<BatchStream> partitions, BufferAllocator allocator) {
        this.plan = plan;
        this.runtime = Objects.requireNonNull(runtime, "runtime is null");
        this.allocator = Objects.requireNonNull(allocator, "allocator is null");
        Objects.requireNonNull(partitions, "partitions is null");
        if (partitions.isEmpty()) {
            throw new IllegalArgumentException("an execution needs at least one partition");
        }
        for (int i = 0; i < partitions.size(); i++) {
            if (!Operator.sameFields(partitions.get(i).schema(), plan.input)) {
                Schema got = partitions.get(i).schema();
                partitions.forEach(BatchStream::close);
                throw new IllegalArgumentException(
                        "partition " + i + " has schema " + got + " but the pipeline was planned for " + plan.input);
            }
        }
        this.config = new ExecutionConfig(allocator, Instant.now(), true, Map.of());
        for (int i = 0; i < plan.ops.size(); i++) {
            metrics.add(new OperatorMetrics());
        }
        List<CompletableFuture<ScalarValue>> values = new ArrayList<>();
        for (PipelinePlan.Subquery s : plan.subqueries.values()) {
            SubqueryRun run = new SubqueryRun(s);
            subqueries.put(s.expr(), run);
            values.add(run.value);
        }
        // Subqueries first (once for the whole query), then compile with their values, then the operators.
        this.prepared = CompletableFuture.allOf(values.toArray(CompletableFuture[]::new))
                .thenApplyAsync(v -> prepare(), runtime.executor());
        for (BatchStream source : partitions) {
            streams.add(new DeferredStream(plan.output, prepared.thenApply(p -> build(p, source)), source));
        }
        for (SubqueryRun run : subqueries.values()) {
            startSubquery(run);
        }
    }

    /** The output stream of a single-partition execution. */
    public BatchStream stream() {
        if (streams.size() != 1) {
            throw new IllegalStateException("this execution has " + streams.size() + " partitions: use streams()");
        }
        return streams.getFirst();
    }

    /** One output stream per input partition, in order. */
    public List<BatchStream> streams() {
        return List.copyOf(streams);
    }

    public Schema schema() {
        return plan.output;
    }

    /** The value of each scalar subquery computed so far, by its text. */
    public Map<String, ScalarValue> subqueryValues() {
        Map<String, ScalarValue> out = new LinkedHashMap<>();
        subqueries.forEach((k, v) -> {
            if (v.value.isDone() && !v.value.isCompletedExceptionally()) {
                out.put(k.toString(), v.value.join());
            }
        });
        return out;
    }

    /** The metrics of each async call, in operator order (empty until the execution has compiled). */
    public List<AsyncCallMetrics> asyncMetrics() {
        List<AsyncCallMetrics> out = new ArrayList<>();
        Prepared p = nowOrNull(prepared);
        if (p != null) {
            for (Object o : p.perOp()) {
                if (o instanceof List<?> l) {
                    for (Object x : l) {
                        if (x instanceof AsyncCallSite s) {
                            out.add(s.metrics);
                        }
                    }
                }
            }
        }
        return out;
    }

    /**
     * Cancels the query: every stream is closed, pending calls and subqueries are cancelled, and a
     * batch being evaluated stops at its next kernel boundary, freeing what it held. Returns at once.
     */
    public void cancel() {
        cancelled = true;
        prepared.cancel(false);
        for (SubqueryRun run : subqueries.values()) {
            run.value.cancel(false);
        }
        children.forEach(QueryExecution::cancel);
        streams.forEach(DeferredStream::close);
    }

    @Override
    public void close() {
        cancel();
    }

    /**
     * Completes once no call of this execution (or of its subqueries) is in flight any more:
     * after {@link #close()}, every buffer the execution allocated has then been freed, except
     * the batches it handed out.
     */
    public CompletableFuture<Void> whenReleased() {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        all.add(outstanding.whenIdle());
        children.forEach(c -> all.add(c.whenReleased()));
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    /** The operators, output first; with {@code analyze}, what each has done so far. */
    public String explain(boolean analyze) {
        return describe(plan, analyze ? this : null);
    }

    // ---------------------------------------------------------------- running

    private void startSubquery(SubqueryRun run) {
        PipelinePlan.Subquery s = run.subquery;
        long t0 = System.nanoTime();
        QueryExecution sub;
        try {
            sub = s.plan().execute(runtime, List.of(s.table().source().open(runtime.executor())), allocator);
        } catch (RuntimeException e) {
            run.value.completeExceptionally(e);
            return;
        }
        children.add(sub);
        if (cancelled) {
            sub.cancel();
        }
        ScalarValue[] value = new ScalarValue[1];
        long[] rows = new long[1];
        BatchStreams.forEach(sub.stream(), batch -> {
                    for (int r = 0; r < batch.getRowCount(); r++) {
                        if (++rows[0] > 1) {
                            throw new IllegalStateException(
                                    "the scalar subquery " + s.expr() + " returned more than one row");
                        }
                        value[0] = Values.get(batch.getVector(0), r, s.type());
                    }
                })
                .whenComplete((n, e) -> {
                    run.nanos = System.nanoTime() - t0;
                    run.rows = rows[0];
                    if (e != null) {
                        run.value.completeExceptionally(Operator.unwrap(e));
                    } else {
                        run.value.complete(rows[0] == 0 ? ScalarValue.nullOf(s.type()) : value[0]);
                    }
                });
    }

    private Prepared prepare() {
        Map<Expr.ScalarSubquery, ScalarValue> values = new LinkedHashMap<>();
        subqueries.forEach((k, v) -> values.put(k, v.value.join()));
        List<Object> perOp = new ArrayList<>();
        // One share of each function's runtime-wide limit for the whole query (all its call sites and partitions).
        Map<AsyncScalarFunction, AsyncLimiter.Group> groups = new IdentityHashMap<>();
        CompiledProjection fused = null; // a filter's, for the projection right above it
        for (PipelinePlan.Op op : plan.ops) {
            if (op instanceof PipelinePlan.FilterOp f && f.intoProjection()) {
                // Over the filter's input: the projection's columns are its first ones, at the same places.
                PipelinePlan.ProjectOp above = (PipelinePlan.ProjectOp) plan.ops.get(perOp.size() + 1);
                fused = plan.quiver.compileProjection(
                        f.in(),
                        PipelinePlan.substitute(f.predicate(), values),
                        above.columns().stream()
                                .map(c -> PipelinePlan.substitute(c, values))
                                .toList());
                perOp.add(fused.filter().orElseThrow());
                continue;
            }
            if (op instanceof PipelinePlan.ProjectOp && fused != null) {
                perOp.add(fused);
                fused = null;
                continue;
            }
            perOp.add(
                    switch (op) {
                        case PipelinePlan.AsyncOp a -> {
                            List<AsyncCallSite> sites = new ArrayList<>();
                            for (PipelinePlan.LiftedCall c : a.calls()) {
                                List<CompiledExpression> args = new ArrayList<>();
                                for (Expr arg : c.args()) {
                                    args.add(plan.quiver.compile(a.in(), PipelinePlan.substitute(arg, values)));
                                }
                                AsyncLimiter.Group group = groups.computeIfAbsent(
                                        c.function(),
                                        f -> new AsyncLimiter.Group(
                                                plan.options.maxConcurrentCalls() > 0
                                                        ? plan.options.maxConcurrentCalls()
                                                        : Integer.MAX_VALUE));
                                sites.add(new AsyncCallSite(
                                        c.function(),
                                        PipelinePlan.substitute(c.call(), values)
                                                .toString(),
                                        c.column(),
                                        args,
                                        c.type(),
                                        runtime.limiter(c.function()),
                                        group,
                                        config));
                            }
                            yield sites;
                        }
                        case PipelinePlan.FilterOp f ->
                            plan.quiver.compile(f.in(), PipelinePlan.substitute(f.predicate(), values));
                        case PipelinePlan.ProjectOp p ->
                            plan.quiver.compileProjection(
                                    p.in(),
                                    null,
                                    p.columns().stream()
                                            .map(c -> PipelinePlan.substitute(c, values))
                                            .toList());
                        case PipelinePlan.LimitOp l -> l;
                    });
        }
        return new Prepared(perOp);
    }

    @SuppressWarnings("unchecked")
    private BatchStream build(Prepared p, BatchStream source) {
        if (source instanceof Operator o) {
            o.track(outstanding); // a source read in flight holds a batch too
        }
        BatchStream s = new ValidatedStream(source);
        var executor = runtime.executor();
        for (int i = 0; i < plan.ops.size(); i++) {
            PipelinePlan.Op op = plan.ops.get(i);
            Object compiled = p.perOp().get(i);
            if (op instanceof PipelinePlan.FilterOp f && f.intoProjection()) {
                continue; // runs in the projection's operator, above
            }
            s = switch (op) {
                case PipelinePlan.AsyncOp a ->
                    new AsyncFunctionOperator(
                            s,
                            (List<AsyncCallSite>) compiled,
                            a.out(),
                            a.readAhead() ? plan.options : plan.options.withBatchesInFlight(1),
                            a.fetch(),
                            plan.placement,
                            allocator,
                            outstanding,
                            executor,
                            metrics.get(i));
                case PipelinePlan.FilterOp f ->
                    new FilterOperator(
                            s,
                            (CompiledExpression) compiled,
                            f.keep(),
                            f.fetch(),
                            f.out(),
                            plan.placement,
                            allocator,
                            executor,
                            metrics.get(i));
                case PipelinePlan.ProjectOp pr ->
                    new ProjectOperator(
                            s,
                            (CompiledProjection) compiled,
                            pr.fetch(),
                            i > 0 && plan.ops.get(i - 1) instanceof PipelinePlan.FilterOp f && f.intoProjection()
                                    ? metrics.get(i - 1)
                                    : null,
                            pr.out(),
                            plan.placement,
                            allocator,
                            executor,
                            metrics.get(i));
                case PipelinePlan.LimitOp l -> new LimitOperator(s, l.rows(), allocator, executor, metrics.get(i));
            };
            ((Operator) s).track(outstanding);
        }
        return s;
    }

    // ---------------------------------------------------------------- explain

    static String describe(PipelinePlan plan, QueryExecution run) {
        StringBuilder sb = new StringBuilder();
        sb.append("Pipeline -> ").append(fields(plan.output)).append('\n');
        Prepared p = run == null ? null : nowOrNull(run.prepared);
        String indent = "  ";
        for (int i = plan.ops.size() - 1; i >= 0; i--) {
            PipelinePlan.Op op = plan.ops.get(i);
            sb.append(indent);
            switch (op) {
                case PipelinePlan.AsyncOp a -> {
                    sb.append("AsyncFunction: batches of ")
                            .append(AsyncFunctionOperator.batchRows(
                                    a.calls().stream()
                                            .map(PipelinePlan.LiftedCall::function)
                                            .toList(),
                                    plan.options.batchSize()))
                            .append(" rows");
                    if (a.fetch() >= 0) {
                        sb.append(" (at most ").append(a.fetch()).append(" rows in all: limit above)");
                    }
                    int inFlight = a.readAhead() ? plan.options.batchesInFlight() : 1;
                    sb.append(", ")
                            .append(inFlight)
                            .append(inFlight == 1 ? " batch" : " batches")
                            .append(" in flight");
                    if (!a.readAhead() && plan.options.batchesInFlight() > 1) {
                        sb.append(" (no reading ahead under a limit)");
                    }
                    sb.append(", timeout ")
                            .append(plan.options.callTimeout().toMillis())
                            .append(" ms, ")
                            .append(plan.options.retry())
                            .append('\n');
                    for (int c = 0; c < a.calls().size(); c++) {
                        PipelinePlan.LiftedCall call = a.calls().get(c);
                        sb.append(indent).append("    ");
                        if (p != null) {
                            @SuppressWarnings("unchecked")
                            AsyncCallSite site =
                                    ((List<AsyncCallSite>) p.perOp().get(i)).get(c);
                            sb.append(site.describe())
                                    .append('\n')
                                    .append(indent)
                                    .append("      ")
                                    .append(site.metrics.describe());
                        } else {
                            var ideal = call.function().idealBatchSize();
                            sb.append(call.call())
                                    .append(" AS ")
                                    .append(call.column())
                                    .append(" (")
                                    .append(
                                            ideal.isPresent()
                                                    ? ideal.getAsInt() + " rows per call"
                                                    : "one call per batch")
                                    .append(")");
                        }
                        sb.append('\n');
                    }
                }
                case PipelinePlan.FilterOp f -> {
                    sb.append("Filter: ").append(f.predicate());
                    if (f.early()) {
                        sb.append("  (the conjuncts without async calls, first)");
                    }
                    if (f.keep() < f.in().getFields().size()) {
                        sb.append("  (drops the async columns)");
                    }
                    if (f.fetch() >= 0) {
                        sb.append("  (at most ").append(f.fetch()).append(" rows in all: limit above)");
                    }
                    if (f.intoProjection()) {
                        sb.append(
                                "  (runs with the projection above, in its time: only the columns it reads are compacted)");
                    }
                    sb.append('\n');
                }
                case PipelinePlan.ProjectOp pr -> {
                    sb.append("Project: ")
                            .append(String.join(
                                    ", ",
                                    pr.columns().stream()
                                            .map(QueryExecution::column)
                                            .toList()));
                    if (pr.fetch() >= 0) {
                        sb.append("  (at most ").append(pr.fetch()).append(" rows in all: limit above)");
                    }
                    sb.append('\n');
                }
                case PipelinePlan.LimitOp l ->
                    sb.append("Limit: ").append(l.rows()).append('\n');
            }
            if (run != null) {
                sb.append(indent)
                        .append("  ")
                        .append(run.metrics.get(i).describe())
                        .append('\n');
                String kernels = p == null ? null : kernels(p.perOp().get(i));
                if (kernels != null) {
                    sb.append(indent).append("  kernels: ").append(kernels).append('\n');
                }
            }
            indent += "  ";
        }
        sb.append(indent).append("Source: ").append(fields(plan.input));
        if (run != null) {
            sb.append(" (").append(run.streams.size()).append(run.streams.size() == 1 ? " partition)" : " partitions)");
        }
        sb.append('\n');
        if (!plan.subqueries.isEmpty()) {
            sb.append("Scalar subqueries (computed once per query):\n");
            for (PipelinePlan.Subquery s : plan.subqueries.values()) {
                sb.append("  ").append(s.expr()).append(" : ").append(s.type());
                SubqueryRun r = run == null ? null : run.subqueries.get(s.expr());
                if (r != null && r.value.isDone()) {
                    if (r.value.isCompletedExceptionally()) {
                        sb.append(" failed");
                    } else {
                        sb.append(String.format(
                                Locale.ROOT,
                                " = %s (%d row%s, %.3f ms)",
                                r.value.join().toSql(),
                                r.rows,
                                r.rows == 1 ? "" : "s",
                                r.nanos / 1e6));
                    }
                }
                sb.append('\n');
                for (String line : s.plan().explain().split("\n")) {
                    sb.append("    ").append(line).append('\n');
                }
            }
        }
        if (run != null) {
            sb.append(String.format(Locale.ROOT, "Elapsed: %.3f ms%n", (System.nanoTime() - run.startNanos) / 1e6));
        }
        return sb.toString();
    }

    /**
     * Per device, the kernel runs of an operator's expressions (filter, projections, async call
     * arguments) and the bytes they copied each way, in total and per batch; null when none ran.
     */
    private static String kernels(Object compiled) {
        List<CompiledExpression> expressions = new ArrayList<>();
        switch (compiled) {
            case CompiledExpression e -> expressions.add(e);
            case CompiledProjection p -> expressions.addAll(p.columns()); // a fused filter's are the filter's
            case List<?> l -> {
                for (Object o : l) {
                    if (o instanceof CompiledExpression e) {
                        expressions.add(e);
                    } else if (o instanceof AsyncCallSite site) {
                        expressions.addAll(site.args);
                    }
                }
            }
            default -> {}
        }
        Map<String, long[]> byDevice = new TreeMap<>(); // batches, bytes to device, bytes from device
        for (CompiledExpression e : expressions) {
            e.metrics().byDevice().forEach((device, t) -> {
                long[] sum = byDevice.computeIfAbsent(device, d -> new long[3]);
                sum[0] += t.batches();
                sum[1] += t.bytesToDevice();
                sum[2] += t.bytesFromDevice();
            });
        }
        List<String> parts = new ArrayList<>();
        byDevice.forEach((device, sum) -> {
            if (sum[0] > 0) {
                parts.add(String.format(
                        Locale.ROOT,
                        "%s %d batches, %d B to device, %d B from device (per batch %.0f B to, %.0f B from)",
                        device,
                        sum[0],
                        sum[1],
                        sum[2],
                        sum[1] / (double) sum[0],
                        sum[2] / (double) sum[0]));
            }
        });
        return parts.isEmpty() ? null : String.join("; ", parts);
    }

    /** The value of a future that completed normally, else null (never throws). */
    static <T> T nowOrNull(CompletableFuture<T> f) {
        return f.isDone() && !f.isCompletedExceptionally() ? f.join() : null;
    }

    private static String column(Expr e) {
        return e instanceof Expr.Alias a && a.name().equals(a.expr().toString())
                ? a.expr().toString()
                : e.toString();
    }

    private static String fields(Schema s) {
        return String.join(
                ", ",
                s.getFields().stream()
                        .map(f -> f.getName() + " " + SqlTypes.sqlName(DataType.fromField(f)))
                        .toList());
    }

    /** A partition's stream before its operators exist (they need the subqueries' values). */
    private static final class DeferredStream implements BatchStream {
        private final Schema schema;
        private final CompletableFuture<BatchStream> inner;
        private final BatchStream source;
        private volatile boolean closed;

        DeferredStream(Schema schema, CompletableFuture<BatchStream> inner, BatchStream source) {
            this.schema = schema;
            this.inner = inner;
            this.source = source;
            inner.whenComplete((s, e) -> {
                if (e != null) {
                    source.close(); // never built: the source is still ours
                } else if (closed) {
                    s.close();
                }
            });
        }

        @Override
        public Schema schema() {
            return schema;
        }

        @Override
        public CompletableFuture<VectorSchemaRoot> next() {
            if (closed) {
                return CompletableFuture.failedFuture(new CancellationException("the stream is closed"));
            }
            return inner.thenCompose(BatchStream::next);
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            BatchStream s = nowOrNull(inner);
            if (s != null) {
                s.close();
            } else if (inner.isDone()) {
                source.close();
            }
        }
    }
}
