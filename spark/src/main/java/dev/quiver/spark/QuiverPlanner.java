package dev.quiver.spark;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.expr.Expr;
import dev.quiver.spark.arrow.SparkArrowTypes;
import dev.quiver.spark.exec.ExecutorQuivers;
import dev.quiver.spark.exec.NodeSpec;
import dev.quiver.spark.exec.QuiverExec;
import dev.quiver.spark.plan.CatalystTranslator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Alias$;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.BinaryExpression;
import org.apache.spark.sql.catalyst.expressions.Concat;
import org.apache.spark.sql.catalyst.expressions.ConditionalExpression;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Greatest;
import org.apache.spark.sql.catalyst.expressions.Least;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.Or;
import org.apache.spark.sql.catalyst.expressions.TernaryExpression;
import org.apache.spark.sql.catalyst.expressions.TryEval;
import org.apache.spark.sql.catalyst.expressions.UnaryExpression;
import org.apache.spark.sql.catalyst.trees.TreeNodeTag;
import org.apache.spark.sql.execution.CollectTailExec;
import org.apache.spark.sql.execution.FilterExec;
import org.apache.spark.sql.execution.LimitExec;
import org.apache.spark.sql.execution.ProjectExec;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.aggregate.HashAggregateExec;
import org.apache.spark.sql.execution.aggregate.ObjectHashAggregateExec;
import org.apache.spark.sql.execution.exchange.Exchange;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Rewrites a physical plan: {@code ProjectExec} and {@code FilterExec} nodes whose expressions
 * Quiver computes as Spark does become {@link QuiverExec} nodes. Per expression: a projected
 * expression Quiver cannot compute stays in a Spark {@code ProjectExec} above the Quiver node
 * (which still computes that expression's translatable, unconditionally evaluated parts); of a
 * filter's conjuncts, Quiver takes the longest translatable prefix and Spark filters the rest
 * above it (so no conjunct runs on rows Spark's order would not have given it). Each decision
 * that leaves work with Spark is logged once with its reason, shown in the Quiver node's
 * description, and tagged on the Spark node ({@link QuiverSpark#fallbacks}).
 */
final class QuiverPlanner {
    private static final Logger LOG = LoggerFactory.getLogger(QuiverPlanner.class);
    static final TreeNodeTag<String> FALLBACK = new TreeNodeTag<>("quiver.fallback");

    private final SQLConf conf;
    private final Placement placement;

    QuiverPlanner(SQLConf conf) {
        this.conf = conf;
        this.placement = QuiverSparkConf.placement(conf);
    }

    SparkPlan rewrite(SparkPlan plan) {
        return rewrite(plan, false);
    }

    /**
     * {@code partial}: the plan's parent may stop reading rows before the last (a LIMIT above it,
     * through operators that pass rows on as they read them). Spark then never evaluates the
     * plan's expressions on the rows after those it was asked for, while Quiver computes whole
     * batches: there, what can raise stays with Spark, as after a NULL operand.
     */
    private SparkPlan rewrite(SparkPlan plan, boolean partial) {
        boolean childrenPartial = stopsEarly(plan) || partial && !readsAll(plan);
        List<SparkPlan> children = CollectionConverters.asJava(plan.children());
        List<SparkPlan> rewritten = new ArrayList<>(children.size());
        boolean changed = false;
        for (SparkPlan c : children) {
            SparkPlan r = rewrite(c, childrenPartial);
            changed |= r != c;
            rewritten.add(r);
        }
        SparkPlan p = changed
                ? plan.withNewChildren(CollectionConverters.asScala(rewritten).toSeq())
                : plan;
        if (p instanceof ProjectExec project) {
            return project(project, partial);
        }
        if (p instanceof FilterExec filter) {
            return filter(filter, partial);
        }
        return p;
    }

    /** A limit: stops reading its child once it has its rows (CollectTail reads them all). */
    private static boolean stopsEarly(SparkPlan p) {
        return p instanceof LimitExec && !(p instanceof CollectTailExec);
    }

    /** Reads all of its input before it gives its first row, whoever reads it (or a stage already run). */
    private static boolean readsAll(SparkPlan p) {
        return p instanceof Exchange
                || p instanceof SortExec
                || p instanceof HashAggregateExec
                || p instanceof ObjectHashAggregateExec
                || p instanceof QueryStageExec;
    }

    // ------------------------------------------------------------------------------ projection

    private SparkPlan project(ProjectExec project, boolean partial) {
        SparkPlan child = project.child();
        CatalystTranslator t = new CatalystTranslator();
        String filterSql = null;
        List<String> notes = new ArrayList<>();
        // A Quiver filter right below: one node filters, then projects over the rows it keeps.
        if (child instanceof QuiverExec q
                && q.spec().filter() != null
                && !q.rowInput()
                && !project.projectList().isEmpty()
                && q.spec().columns().stream().allMatch(NodeSpec.Column::passThrough)) {
            List<Attribute> base = CollectionConverters.asJava(q.child().output());
            List<Attribute> filterInputs = new ArrayList<>();
            for (int i = 0; i < q.spec().referenced(); i++) {
                long id = q.spec().inputIds().get(i);
                filterInputs.add(base.stream()
                        .filter(a -> a.exprId().id() == id)
                        .findFirst()
                        .orElseThrow());
            }
            t.seed(filterInputs);
            try {
                t.inherit(q.spec().requiredMode(), q.spec().providers());
            } catch (CatalystTranslator.Unsupported u) {
                return keep(project, List.of(u.getMessage()));
            }
            filterSql = q.spec().filter();
            notes.addAll(q.spec().notes());
            child = q.child();
        }
        List<NamedExpression> list = CollectionConverters.asJava(project.projectList());
        List<NodeSpec.Column> columns = new ArrayList<>();
        List<Attribute> quiverOutput = new ArrayList<>();
        List<NamedExpression> sparkList = new ArrayList<>();
        Map<Long, Attribute> passThrough = new LinkedHashMap<>();
        boolean remainder = false;
        int quiverColumns = 0;
        // The node's columns in the project list's order, for when Spark has nothing left to do.
        List<NodeSpec.Column> orderedColumns = new ArrayList<>();
        List<Attribute> orderedOutput = new ArrayList<>();
        for (NamedExpression ne : list) {
            if (ne instanceof Attribute a) {
                passThrough.putIfAbsent(a.exprId().id(), a);
                sparkList.add(a);
                orderedColumns.add(new NodeSpec.Column(a.name(), null, -1));
                orderedOutput.add(a);
                continue;
            }
            try {
                Expression ex = (Expression) ne;
                String sql = translateChecked(t, ex, ex.dataType(), partial);
                columns.add(new NodeSpec.Column(ne.name(), sql, -1));
                quiverOutput.add(ne.toAttribute());
                sparkList.add(ne.toAttribute());
                orderedColumns.add(columns.getLast());
                orderedOutput.add(ne.toAttribute());
                quiverColumns++;
            } catch (CatalystTranslator.Unsupported u) {
                remainder = true;
                notes.add(((Expression) ne).sql() + ": " + u.getMessage());
                List<Alias> pulled = new ArrayList<>();
                List<String> pulledSql = new ArrayList<>();
                Expression rest = extract(t, ((Expression) ne), pulled, pulledSql, true, partial);
                for (int i = 0; i < pulled.size(); i++) {
                    columns.add(new NodeSpec.Column(pulled.get(i).name(), pulledSql.get(i), -1));
                    quiverOutput.add(pulled.get(i).toAttribute());
                    quiverColumns++;
                }
                sparkList.add((NamedExpression) rest);
                for (Attribute a : CollectionConverters.asJava(rest.references().toSeq())) {
                    if (pulled.stream().noneMatch(p -> p.exprId().equals(a.exprId()))) {
                        passThrough.putIfAbsent(a.exprId().id(), a);
                    }
                }
            }
        }
        if (quiverColumns == 0 && filterSql == null) {
            return keep(project, notes);
        }
        return build(
                project,
                child,
                t,
                filterSql,
                columns,
                quiverOutput,
                passThrough,
                remainder,
                sparkList,
                orderedColumns,
                orderedOutput,
                notes);
    }

    private SparkPlan build(
            ProjectExec project,
            SparkPlan child,
            CatalystTranslator t,
            String filterSql,
            List<NodeSpec.Column> columns,
            List<Attribute> quiverOutput,
            Map<Long, Attribute> passThrough,
            boolean remainder,
            List<NamedExpression> sparkList,
            List<NodeSpec.Column> orderedColumns,
            List<Attribute> orderedOutput,
            List<String> notes) {
        List<Attribute> inputs = new ArrayList<>(t.inputs());
        int referenced = inputs.size();
        List<NodeSpec.Column> outColumns = new ArrayList<>();
        List<Attribute> output = new ArrayList<>();
        if (remainder) {
            outColumns.addAll(columns);
            output.addAll(quiverOutput);
            for (Attribute a : passThrough.values()) {
                outColumns.add(new NodeSpec.Column(a.name(), null, inputIndex(inputs, a)));
                output.add(a);
            }
        } else {
            for (int i = 0; i < orderedColumns.size(); i++) {
                NodeSpec.Column c = orderedColumns.get(i);
                Attribute a = orderedOutput.get(i);
                outColumns.add(c.passThrough() ? new NodeSpec.Column(a.name(), null, inputIndex(inputs, a)) : c);
                output.add(a);
            }
        }
        if (filterSql != null) {
            String reason = unimportable(inputs.subList(referenced, inputs.size()));
            if (reason != null) {
                notes.add(reason);
                return keep(project, notes);
            }
        }
        NodeSpec spec = new NodeSpec(
                ids(inputs),
                types(inputs),
                referenced,
                filterSql,
                outColumns,
                t.requiredMode(),
                t.providers(),
                placement,
                notes);
        QuiverExec node = new QuiverExec(
                CollectionConverters.asScala(output).toSeq(), spec, child, false, QuiverSparkConf.rowBatchRows(conf));
        log(project, notes);
        if (!remainder) {
            return node;
        }
        ProjectExec top =
                new ProjectExec(CollectionConverters.asScala(sparkList).toSeq(), node);
        top.setTagValue(FALLBACK, String.join("\n", notes));
        return top;
    }

    /** Index of {@code a} among {@code inputs}, appending it when absent. */
    private static int inputIndex(List<Attribute> inputs, Attribute a) {
        for (int i = 0; i < inputs.size(); i++) {
            if (inputs.get(i).exprId().equals(a.exprId())) {
                return i;
            }
        }
        inputs.add(a);
        return inputs.size() - 1;
    }

    /**
     * {@code e} with its translatable parts replaced by attributes of new Quiver columns. Parts of
     * conditional expressions (CASE, IF, COALESCE, AND, OR, IN) are left alone: Spark evaluates
     * them only on some rows, and Quiver would evaluate them on all.
     */
    private Expression extract(
            CatalystTranslator t, Expression e, List<Alias> pulled, List<String> sql, boolean top, boolean skipped) {
        if (e instanceof Attribute || e instanceof Literal) {
            return e;
        }
        if (!top && !(e instanceof Alias)) {
            try {
                String s = translateChecked(t, e, e.dataType(), skipped);
                Alias alias = Alias$.MODULE$.apply(
                        e,
                        "_quiver" + pulled.size(),
                        Alias$.MODULE$.apply$default$3(e, "x"),
                        Alias$.MODULE$.apply$default$4(e, "x"),
                        Alias$.MODULE$.apply$default$5(e, "x"),
                        Alias$.MODULE$.apply$default$6(e, "x"));
                pulled.add(alias);
                sql.add(s);
                return alias.toAttribute();
            } catch (CatalystTranslator.Unsupported u) {
                // look inside
            }
        }
        if (!evaluatesChildrenInOrder(e)) {
            return e;
        }
        List<Expression> children = CollectionConverters.asJava(e.children());
        List<Expression> replaced = new ArrayList<>(children.size());
        boolean changed = false;
        for (int i = 0; i < children.size(); i++) {
            Expression c = children.get(i);
            Expression r = extract(t, c, pulled, sql, false, CatalystTranslator.childSkipped(e, i, skipped));
            changed |= r != c;
            replaced.add(r);
        }
        return changed
                ? e.withNewChildren(CollectionConverters.asScala(replaced).toSeq())
                : e;
    }

    /**
     * Whether Spark evaluates {@code e}'s children in order, skipping one only because an earlier
     * one is NULL (or, for / and %, because the divisor is NULL or zero): the expressions parts
     * may be taken out of ({@link CatalystTranslator#childSkipped} says on which rows Spark skips
     * them). Anything else (CASE, IF, COALESCE, AND, OR, IN, TRY, lambdas, elt, ...) evaluates
     * some children on some rows only, or catches what they raise: nothing is taken out of it.
     */
    private static boolean evaluatesChildrenInOrder(Expression e) {
        if (e instanceof ConditionalExpression || e instanceof And || e instanceof Or || e instanceof TryEval) {
            return false;
        }
        return e instanceof Alias
                || e instanceof UnaryExpression
                || e instanceof BinaryExpression
                || e instanceof TernaryExpression
                || e instanceof Greatest
                || e instanceof Least
                || e instanceof Concat;
    }

    // ------------------------------------------------------------------------------ filter

    private SparkPlan filter(FilterExec filter, boolean partial) {
        List<Expression> conjuncts = CollectionConverters.asJava(filter.splitConjunctivePredicates(filter.condition()));
        CatalystTranslator t = new CatalystTranslator();
        List<Expr> taken = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        int i = 0;
        // Spark drops a row at its first conjunct that is not TRUE; Quiver's AND goes on past a NULL.
        boolean skipped = partial;
        for (; i < conjuncts.size(); i++) {
            Expression c = conjuncts.get(i);
            CatalystTranslator.Mark mark = t.mark();
            try {
                String sql = translateChecked(t, c, c.dataType(), skipped);
                skipped |= c.nullable();
                taken.add(Expr.parse(sql));
            } catch (CatalystTranslator.Unsupported u) {
                t.reset(mark);
                notes.add("filter " + c.sql() + (i + 1 < conjuncts.size() ? " and the conjuncts after it" : "") + ": "
                        + u.getMessage());
                break;
            }
        }
        if (taken.isEmpty() || filter.child().output().isEmpty()) {
            return keep(filter, notes);
        }
        List<Attribute> inputs = new ArrayList<>(t.inputs());
        int referenced = inputs.size();
        List<Attribute> out = CollectionConverters.asJava(filter.child().output());
        String reason = unimportable(out);
        if (reason != null) {
            notes.add(reason);
            return keep(filter, notes);
        }
        List<NodeSpec.Column> columns = new ArrayList<>();
        for (Attribute a : out) {
            columns.add(new NodeSpec.Column(a.name(), null, inputIndex(inputs, a)));
        }
        Expr condition = taken.getFirst();
        for (int k = 1; k < taken.size(); k++) {
            condition = condition.and(taken.get(k));
        }
        NodeSpec spec = new NodeSpec(
                ids(inputs),
                types(inputs),
                referenced,
                condition.toString(),
                columns,
                t.requiredMode(),
                t.providers(),
                placement,
                notes);
        QuiverExec node = new QuiverExec(
                filter.child().output(), spec, filter.child(), false, QuiverSparkConf.rowBatchRows(conf));
        log(filter, notes);
        if (i == conjuncts.size()) {
            return node;
        }
        Expression rest = conjuncts.get(i);
        for (int k = i + 1; k < conjuncts.size(); k++) {
            rest = new And(rest, conjuncts.get(k));
        }
        FilterExec top = new FilterExec(rest, node);
        top.setTagValue(FALLBACK, String.join("\n", notes));
        return top;
    }

    // ------------------------------------------------------------------------------ checks

    /**
     * Translates {@code e} and compiles it with the driver's Quiver over the inputs met so far:
     * planning errors and result types other than Spark's become {@link CatalystTranslator.Unsupported}.
     */
    private static String translateChecked(CatalystTranslator t, Expression e, DataType sparkType, boolean skipped)
            throws CatalystTranslator.Unsupported {
        CatalystTranslator.Mark mark = t.mark();
        Expr expr = t.translate(e, skipped);
        String sql = expr.toString();
        List<Field> fields = new ArrayList<>();
        List<Attribute> inputs = t.inputs();
        for (int i = 0; i < inputs.size(); i++) {
            Optional<ArrowType> type = SparkArrowTypes.arrowType(inputs.get(i).dataType());
            if (type.isEmpty()) {
                t.reset(mark);
                throw unsupported(
                        e,
                        "input " + inputs.get(i).sql() + " of type "
                                + inputs.get(i).dataType().simpleString());
            }
            fields.add(SparkArrowTypes.field(
                    CatalystTranslator.inputName(i), inputs.get(i).dataType(), true));
        }
        try {
            CompiledExpression compiled =
                    ExecutorQuivers.validator(t.mode(), t.providers()).compile(new Schema(fields), sql);
            ArrowType expected = SparkArrowTypes.arrowType(sparkType).orElse(null);
            ArrowType got = compiled.outputField().getType();
            if (!got.equals(expected)) {
                t.reset(mark);
                throw unsupported(e, "Quiver computes " + got + " where Spark has " + sparkType.simpleString());
            }
            return sql;
        } catch (RuntimeException x) {
            t.reset(mark);
            throw unsupported(e, "Quiver cannot plan " + sql + ": " + x.getMessage());
        }
    }

    private static CatalystTranslator.Unsupported unsupported(Expression e, String reason) {
        return new CatalystTranslator.Unsupported(e, reason);
    }

    private static String unimportable(List<Attribute> attributes) {
        for (Attribute a : attributes) {
            if (SparkArrowTypes.arrowType(a.dataType()).isEmpty()) {
                return "column " + a.sql() + " of type " + a.dataType().simpleString()
                        + " cannot pass through a Quiver filter";
            }
        }
        return null;
    }

    private static List<Long> ids(List<Attribute> attributes) {
        return attributes.stream().map(a -> a.exprId().id()).toList();
    }

    private static List<DataType> types(List<Attribute> attributes) {
        return attributes.stream().map(Attribute::dataType).toList();
    }

    private SparkPlan keep(SparkPlan node, List<String> notes) {
        if (!notes.isEmpty()) {
            node.setTagValue(FALLBACK, String.join("\n", notes));
            log(node, notes);
        }
        return node;
    }

    private static void log(SparkPlan node, List<String> notes) {
        for (String note : notes) {
            LOG.info(
                    "Quiver: {} stays with Spark in {}: {}",
                    note.contains(": ") ? note.substring(0, note.indexOf(": ")) : note,
                    node.nodeName(),
                    note.contains(": ") ? note.substring(note.indexOf(": ") + 2) : note);
        }
    }
}
