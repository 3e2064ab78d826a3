package dev.quiver.stream;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.expr.Expr;
import dev.quiver.expr.Operator;
import dev.quiver.functions.AsyncScalarFunction;
import dev.quiver.functions.PlanningException;
import dev.quiver.functions.SignatureResolver;
import dev.quiver.functions.Volatility;
import dev.quiver.types.DataType;
import dev.quiver.value.ScalarValue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A planned {@link Pipeline}: its operators from the source up, with every async call lifted
 * into an async-function operator below the filter or projection that used it, and its scalar
 * subqueries. Immutable and thread-safe; {@link #execute} runs it, as often as needed (each
 * execution is one query: its subqueries are computed once for it).
 */
public final class PipelinePlan {
    /** Prefix of the columns async operators append (a suffix keeps them apart from the input's). */
    public static final String ASYNC_COLUMN_PREFIX = "__quiver_async_";

    final Quiver quiver;
    final Schema input;
    final Schema output;
    final List<Op> ops;
    final Map<Expr.ScalarSubquery, Subquery> subqueries;
    final Map<String, Pipeline.Table> tables;
    final AsyncOptions options;
    final Placement placement;

    /** One operator of the plan. */
    sealed interface Op permits AsyncOp, FilterOp, ProjectOp, LimitOp {
        Schema out();
    }

    /** Appends {@code calls}' columns to {@code in}; reads at most {@code fetch} rows when not negative. */
    record AsyncOp(List<LiftedCall> calls, Schema in, Schema out, long fetch, boolean readAhead) implements Op {}

    /**
     * Keeps the rows where {@code predicate} holds, and the first {@code keep} columns; at most
     * {@code fetch} rows in all when not negative (a limit above, with no filter between).
     * {@code intoProjection}: the projection right above reads this filter's output, so the two
     * run as one operator, which compacts only the columns the projection reads.
     */
    record FilterOp(Expr predicate, int keep, Schema in, Schema out, boolean early, long fetch, boolean intoProjection)
            implements Op {
        FilterOp(Expr predicate, int keep, Schema in, Schema out, boolean early) {
            this(predicate, keep, in, out, early, -1, false);
        }
    }

    /** One column per expression; at most {@code fetch} rows in all when not negative (a limit above). */
    record ProjectOp(List<Expr> columns, Schema in, Schema out, long fetch) implements Op {
        ProjectOp(List<Expr> columns, Schema in, Schema out) {
            this(columns, in, out, -1);
        }
    }

    record LimitOp(long rows, Schema out) implements Op {}

    /** An async call lifted out of its expression: {@code args} are over the async operator's input, cast as its signature wants. */
    record LiftedCall(AsyncScalarFunction function, Expr call, List<Expr> args, String column, DataType type) {}

    /** A scalar subquery: a plan over its table, whose one column holds the value. */
    record Subquery(Expr.ScalarSubquery expr, Pipeline.Table table, PipelinePlan plan, DataType type) {}

    PipelinePlan(Quiver quiver, Pipeline p) {
        this.quiver = quiver;
        this.input = p.input;
        this.tables = Map.copyOf(p.tables);
        this.options = p.options;
        this.placement = p.placement == null ? quiver.defaultPlacement() : p.placement;
        this.subqueries = new LinkedHashMap<>();
        List<Op> list = new ArrayList<>();
        Schema schema = input;
        Set<String> taken = new HashSet<>();
        for (Pipeline.Step step : p.steps) {
            schema.getFields().forEach(f -> taken.add(f.getName()));
            switch (step) {
                case Pipeline.Filter f -> {
                    Expr predicate = subqueries(f.predicate(), p, schema);
                    List<Expr> cheap = new ArrayList<>();
                    List<Expr> costly = new ArrayList<>();
                    for (Expr c : conjuncts(predicate)) {
                        (callsAsync(c) ? costly : cheap).add(c);
                    }
                    if (costly.isEmpty()) {
                        check(schema, predicate, "filter");
                        list.add(new FilterOp(predicate, schema.getFields().size(), schema, schema, false));
                    } else {
                        if (!cheap.isEmpty()) {
                            Expr c = and(cheap);
                            check(schema, c, "filter");
                            list.add(new FilterOp(c, schema.getFields().size(), schema, schema, true));
                        }
                        Lifter l = new Lifter(schema, taken);
                        Expr lifted = l.lift(and(costly));
                        list.addAll(l.ops());
                        check(l.schema(), lifted, "filter");
                        list.add(new FilterOp(lifted, schema.getFields().size(), l.schema(), schema, false));
                    }
                }
                case Pipeline.Project pr -> {
                    Lifter l = new Lifter(schema, taken);
                    List<Expr> cols = new ArrayList<>();
                    List<Field> fields = new ArrayList<>();
                    for (Expr e : pr.columns()) {
                        String name = e instanceof Expr.Alias a ? a.name() : e.toString();
                        Expr body = e instanceof Expr.Alias a ? a.expr() : e;
                        Expr lifted = new Expr.Alias(l.lift(subqueries(body, p, schema)), name);
                        cols.add(lifted);
                    }
                    list.addAll(l.ops());
                    for (Expr c : cols) {
                        Field f = check(l.schema(), c, "projection").outputField();
                        if (fields.stream().anyMatch(g -> g.getName().equals(f.getName()))) {
                            throw new PlanningException("two projected columns are named '" + f.getName()
                                    + "': give one an alias (AS ...)");
                        }
                        fields.add(f);
                    }
                    Schema out = new Schema(fields);
                    list.add(new ProjectOp(cols, l.schema(), out));
                    schema = out;
                }
                case Pipeline.Limit lim -> list.add(new LimitOp(lim.rows(), schema));
            }
        }
        this.ops = fuseFiltersIntoProjections(pushLimitsInto(list));
        this.output = schema;
    }

    /** The schema of the batches the pipeline's input must have. */
    public Schema inputSchema() {
        return input;
    }

    /** The schema of the batches the pipeline produces. */
    public Schema outputSchema() {
        return output;
    }

    /** The async calls lifted out of the expressions, in operator order. */
    public List<String> asyncCalls() {
        List<String> out = new ArrayList<>();
        for (Op op : ops) {
            if (op instanceof AsyncOp a) {
                a.calls().forEach(c -> out.add(c.call() + " AS " + c.column()));
            }
        }
        return out;
    }

    /** Runs the plan over one stream of input batches; the execution owns {@code source}. */
    public QueryExecution execute(QueryRuntime runtime, BatchStream source) {
        return execute(runtime, List.of(source), quiver.allocator());
    }

    /**
     * Runs the plan over several partitions at once, as one query: one output stream per
     * partition, with the async call limits, the metrics and the scalar subqueries shared.
     * Results are allocated from {@code allocator}. The execution owns the sources.
     */
    public QueryExecution execute(QueryRuntime runtime, List<BatchStream> partitions, BufferAllocator allocator) {
        return new QueryExecution(this, runtime, partitions, allocator);
    }

    /** The operators, output first, with what each does. */
    public String explain() {
        return QueryExecution.describe(this, null);
    }

    // ---------------------------------------------------------------- planning

    private static List<Op> pushLimitsInto(List<Op> list) {
        List<Op> out = new ArrayList<>(list);
        long fetch = -1;
        boolean limited = false;
        boolean cut = false; // a limit above, and a filter between it and what is below
        for (int i = out.size() - 1; i >= 0; i--) {
            Op op = out.get(i);
            switch (op) {
                case LimitOp l -> {
                    fetch = fetch < 0 ? l.rows() : Math.min(fetch, l.rows());
                    limited = true;
                }
                case ProjectOp p -> out.set(i, new ProjectOp(p.columns(), p.in(), p.out(), fetch));
                // Reading ahead under a limit it does not know the reach of (a filter between) could pay for calls
                // whose rows are never needed; with the limit pushed down it reads only rows that are.
                case AsyncOp a -> out.set(i, new AsyncOp(a.calls(), a.in(), a.out(), fetch, !cut));
                case FilterOp f -> {
                    // It keeps no more rows than the limit needs; below it, every row may be needed.
                    out.set(i, new FilterOp(f.predicate(), f.keep(), f.in(), f.out(), f.early(), fetch, false));
                    fetch = -1;
                    cut |= limited;
                }
            }
        }
        return List.copyOf(out);
    }

    /**
     * Marks each filter whose output the projection right above reads: the two then run as one
     * operator (a {@link dev.quiver.CompiledProjection} with that filter), so the filter hands the
     * projection its selection and only the columns the projection reads are compacted, once.
     */
    private static List<Op> fuseFiltersIntoProjections(List<Op> list) {
        List<Op> out = new ArrayList<>(list);
        for (int i = 0; i + 1 < out.size(); i++) {
            if (out.get(i) instanceof FilterOp f
                    && out.get(i + 1) instanceof ProjectOp p
                    && p.in().getFields().equals(f.out().getFields())) {
                out.set(i, new FilterOp(f.predicate(), f.keep(), f.in(), f.out(), f.early(), f.fetch(), true));
            }
        }
        return List.copyOf(out);
    }

    private CompiledExpression check(Schema schema, Expr e, String where) {
        CompiledExpression c = quiver.compile(schema, placeholders(e));
        DataType t = c.plan().root().dataType();
        if (where.equals("filter") && !(t instanceof DataType.Bool || t instanceof DataType.Null)) {
            throw new PlanningException("a filter must be Boolean, but " + e + " is " + t);
        }
        return c;
    }

    /** {@code e} with each scalar subquery replaced by a NULL of its type (for checking types at planning). */
    Expr placeholders(Expr e) {
        return ExprRewriter.transformUp(
                e,
                n -> n instanceof Expr.ScalarSubquery s
                        ? new Expr.Literal(ScalarValue.nullOf(subqueries.get(s).type()))
                        : n);
    }

    /** {@code e} with each scalar subquery replaced by its value. */
    static Expr substitute(Expr e, Map<Expr.ScalarSubquery, ScalarValue> values) {
        if (values.isEmpty()) {
            return e;
        }
        return ExprRewriter.transformUp(
                e, n -> n instanceof Expr.ScalarSubquery s ? new Expr.Literal(values.get(s)) : n);
    }

    /** Plans every scalar subquery of {@code e}; returns {@code e}. */
    private Expr subqueries(Expr e, Pipeline p, Schema schema) {
        ExprRewriter.transformUp(e, n -> {
            if (n instanceof Expr.ScalarSubquery s && !subqueries.containsKey(s)) {
                subqueries.put(s, planSubquery(s, p, schema));
            }
            return n;
        });
        return e;
    }

    private Subquery planSubquery(Expr.ScalarSubquery s, Pipeline outer, Schema outerSchema) {
        Pipeline.Table t = outer.tables.get(s.table().toLowerCase(Locale.ROOT));
        if (t == null) {
            throw new PlanningException("the scalar subquery " + s + " reads table '" + s.table()
                    + "', which the pipeline does not have"
                    + (outer.tables.isEmpty()
                            ? " (it has no tables: add them with Pipeline.table)"
                            : "; it has "
                                    + String.join(
                                            ", ",
                                            outer.tables.values().stream()
                                                    .map(Pipeline.Table::name)
                                                    .toList())));
        }
        Pipeline sub = Pipeline.from(t.schema()).options(outer.options);
        if (outer.placement != null) {
            sub.placement(outer.placement);
        }
        sub.tables.putAll(outer.tables);
        if (s.where() != null) {
            sub.filter(s.where());
        }
        sub.project(List.of(new Expr.Alias(s.select(), "value")));
        // Two rows are enough to tell one row from several.
        sub.limit(s.limit() == null ? 2 : Math.min(s.limit(), 2));
        PipelinePlan plan;
        try {
            plan = sub.plan(quiver);
        } catch (PlanningException e) {
            String hint = readsOuterColumn(s, t.schema(), outerSchema)
                    ? " (a subquery reads only the columns of its table: correlated subqueries are not supported)"
                    : "";
            throw new PlanningException("in the scalar subquery " + s + ": " + e.getMessage() + hint, e);
        }
        return new Subquery(
                s, t, plan, DataType.fromField(plan.output.getFields().getFirst()));
    }

    /** Whether the subquery names a column its table lacks but the outer input has: a correlated reference. */
    private static boolean readsOuterColumn(Expr.ScalarSubquery s, Schema table, Schema outer) {
        Predicate<Expr> outerColumn = n -> n instanceof Expr.Column c
                && table.getFields().stream().noneMatch(f -> f.getName().equalsIgnoreCase(c.name()))
                && outer.getFields().stream().anyMatch(f -> f.getName().equalsIgnoreCase(c.name()));
        return ExprRewriter.any(s.select(), outerColumn)
                || (s.where() != null && ExprRewriter.any(s.where(), outerColumn));
    }

    private boolean callsAsync(Expr e) {
        return ExprRewriter.any(e, n -> n instanceof Expr.Call c && async(c) != null);
    }

    private AsyncScalarFunction async(Expr.Call c) {
        return quiver.functions().find(c.function()).orElse(null) instanceof AsyncScalarFunction a ? a : null;
    }

    private static List<Expr> conjuncts(Expr e) {
        if (e instanceof Expr.Binary b && b.op() == Operator.AND) {
            List<Expr> out = new ArrayList<>(conjuncts(b.left()));
            out.addAll(conjuncts(b.right()));
            return out;
        }
        return List.of(e);
    }

    private static Expr and(List<Expr> terms) {
        Expr e = terms.getFirst();
        for (int i = 1; i < terms.size(); i++) {
            e = new Expr.Binary(e, Operator.AND, terms.get(i));
        }
        return e;
    }

    /** Lifts the async calls of one step's expressions into levels of async operators. */
    private final class Lifter {
        private final Schema base;
        private final Set<String> taken;
        private final List<Field> added = new ArrayList<>();
        private final Map<String, Integer> levelOf = new HashMap<>();
        private final List<List<LiftedCall>> levels = new ArrayList<>();
        private final Map<List<Object>, String> seen = new HashMap<>();

        Lifter(Schema base, Set<String> taken) {
            this.base = base;
            this.taken = taken;
        }

        Expr lift(Expr e) {
            return ExprRewriter.transformUp(
                    e, n -> n instanceof Expr.Call c && async(c) != null ? liftCall(c, async(c)) : n);
        }

        private Expr liftCall(Expr.Call c, AsyncScalarFunction fn) {
            if (c.hasNamedArgs()) {
                throw new PlanningException("async function '" + fn.name() + "' is called with named arguments in " + c
                        + ": pass them by position");
            }
            int level = 1;
            for (Expr a : c.args()) {
                level = Math.max(level, 1 + maxLevel(a));
            }
            Schema now = schemaWithAll();
            List<DataType> given = new ArrayList<>();
            for (Expr a : c.args()) {
                given.add(quiver.compile(now, placeholders(a)).plan().root().dataType());
            }
            List<DataType> target = SignatureResolver.resolve(fn, given);
            List<Expr> args = new ArrayList<>();
            for (int i = 0; i < c.args().size(); i++) {
                Expr a = c.args().get(i);
                args.add(given.get(i).equals(target.get(i)) ? a : new Expr.Cast(a, target.get(i)));
            }
            DataType rt = Objects.requireNonNull(fn.returnType(target), () -> fn.name() + " returned no return type");
            List<Object> key = new ArrayList<>();
            key.add(fn);
            key.addAll(args);
            if (fn.signature().volatility() != Volatility.VOLATILE && seen.containsKey(key)) {
                return new Expr.Column(null, seen.get(key));
            }
            String column = freshName();
            seen.put(key, column);
            added.add(rt.toField(column, true));
            levelOf.put(column, level);
            while (levels.size() < level) {
                levels.add(new ArrayList<>());
            }
            levels.get(level - 1).add(new LiftedCall(fn, new Expr.Call(c.function(), c.args()), args, column, rt));
            return new Expr.Column(null, column);
        }

        private int maxLevel(Expr e) {
            int[] max = {0};
            ExprRewriter.any(e, n -> {
                if (n instanceof Expr.Column col && levelOf.containsKey(col.name())) {
                    max[0] = Math.max(max[0], levelOf.get(col.name()));
                }
                return false;
            });
            return max[0];
        }

        private String freshName() {
            for (int i = 0; ; i++) {
                String n = ASYNC_COLUMN_PREFIX + i;
                if (taken.add(n)) {
                    return n;
                }
            }
        }

        private Schema schemaWithAll() {
            List<Field> fs = new ArrayList<>(base.getFields());
            fs.addAll(added);
            return new Schema(fs);
        }

        /** The async operators, lowest level first; each appends its level's columns. */
        List<Op> ops() {
            List<Op> out = new ArrayList<>();
            List<Field> fs = new ArrayList<>(base.getFields());
            for (List<LiftedCall> level : levels) {
                Schema in = new Schema(fs);
                for (LiftedCall c : level) {
                    fs.add(c.type().toField(c.column(), true));
                }
                out.add(new AsyncOp(level, in, new Schema(fs), -1, true));
            }
            return out;
        }

        /** The input plus every lifted column, in operator order: what the consuming operator reads. */
        Schema schema() {
            List<Field> fs = new ArrayList<>(base.getFields());
            for (List<LiftedCall> level : levels) {
                for (LiftedCall c : level) {
                    fs.add(c.type().toField(c.column(), true));
                }
            }
            return new Schema(fs);
        }
    }
}
