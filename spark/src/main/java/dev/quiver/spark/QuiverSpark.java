package dev.quiver.spark;

import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.RowType;
import dev.quiver.spark.exec.ExecutorQuivers;
import dev.quiver.spark.exec.QuiverExec;
import dev.quiver.spark.functions.FunctionCatalog;
import dev.quiver.spark.functions.QuiverFunctionCall;
import dev.quiver.spark.functions.QuiverFunctions;
import dev.quiver.types.ElementType;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Cast$;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.types.DataTypes;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;

/**
 * Quiver's entry points for Spark users who enabled {@link QuiverSparkExtension}: registering
 * RowFns as Spark SQL functions, and inspecting what of a query Quiver runs.
 */
public final class QuiverSpark {
    private QuiverSpark() {}

    /**
     * Makes the functions of {@code provider} callable from Spark SQL in {@code session}
     * ({@code SELECT my_hypot(x, y) FROM t}) and from {@code functions.call_function}. Inside a
     * Quiver node a call is part of the node's fused kernel; elsewhere Spark evaluates it per row
     * with Quiver's reference interpreter. Integer arguments of a floating-point parameter are
     * cast to double, as Quiver's signatures do. The class must be on every executor's classpath.
     */
    @SuppressWarnings("checkstyle:inlinefqn") // Spark's classic SparkSession, beside the API's imported one
    public static void registerFunctions(SparkSession session, Class<? extends QuiverFunctions> provider) {
        Objects.requireNonNull(session, "session is null");
        String className = Objects.requireNonNull(provider, "provider is null").getName();
        var registry = ((org.apache.spark.sql.classic.SparkSession) session)
                .sessionState()
                .functionRegistry();
        ExecutorQuivers.checkFunctions(className);
        for (RowFn f : FunctionCatalog.functions(className)) {
            if (f.params().stream().anyMatch(p -> p.type() == RowType.UTF8)) {
                throw new IllegalArgumentException(
                        f.name() + " takes strings: only numeric RowFns can be registered with Spark");
            }
            List<String> names = new ArrayList<>();
            names.add(f.name());
            names.addAll(f.aliases());
            for (String name : names) {
                // A session function (as CREATE TEMPORARY FUNCTION makes): resolved by its plain name.
                registry.createOrReplaceTempFunction(name, new Builder(className, f), "java_udf");
            }
        }
    }

    /** Builds a call, casting arguments to the types the function's parameters take. */
    private static final class Builder extends AbstractFunction1<Seq<Expression>, Expression> implements Serializable {
        private static final long serialVersionUID = 1L;
        private final String provider;
        private final transient RowFn function;
        private final String name;

        Builder(String provider, RowFn function) {
            this.provider = provider;
            this.function = function;
            this.name = function.name();
        }

        @Override
        public Expression apply(Seq<Expression> args) {
            List<Expression> in = CollectionConverters.asJava(args);
            List<RowFn.Param> params = function.params();
            List<Expression> cast = new ArrayList<>(in.size());
            for (int i = 0; i < in.size(); i++) {
                Expression a = in.get(i);
                RowFn.Param p = params.get(Math.min(i, params.size() - 1));
                List<ElementType> allowed = p.type().types();
                ElementType has = QuiverFunctionCall.elementTypeOrNull(a.dataType());
                if (has == null || !allowed.contains(has)) {
                    if (allowed.contains(ElementType.FLOAT64)) {
                        a = Cast$.MODULE$.apply(
                                a,
                                DataTypes.DoubleType,
                                Cast$.MODULE$.apply$default$3(),
                                Cast$.MODULE$.apply$default$4());
                    } else if (allowed.contains(ElementType.INT64)) {
                        a = Cast$.MODULE$.apply(
                                a,
                                DataTypes.LongType,
                                Cast$.MODULE$.apply$default$3(),
                                Cast$.MODULE$.apply$default$4());
                    }
                }
                cast.add(a);
            }
            // A float next to a double (my_hypot(f, d)) is widened, as Quiver's signatures unify
            // a type variable: the body is captured for one floating type.
            boolean anyDouble = cast.stream().anyMatch(a -> a.dataType().equals(DataTypes.DoubleType));
            if (anyDouble) {
                for (int i = 0; i < cast.size(); i++) {
                    Expression a = cast.get(i);
                    RowFn.Param p = params.get(Math.min(i, params.size() - 1));
                    if (a.dataType().equals(DataTypes.FloatType)
                            && p.type().types().contains(ElementType.FLOAT64)) {
                        cast.set(
                                i,
                                Cast$.MODULE$.apply(
                                        a,
                                        DataTypes.DoubleType,
                                        Cast$.MODULE$.apply$default$3(),
                                        Cast$.MODULE$.apply$default$4()));
                    }
                }
            }
            return new QuiverFunctionCall(
                    provider, name, CollectionConverters.asScala(cast).toSeq());
        }
    }

    /**
     * The nodes of {@code dataset}'s executed plan, parents before children, looking through
     * adaptive execution (the final plan once the query has run) and its query stages.
     */
    @SuppressWarnings("checkstyle:inlinefqn") // Spark's classic Dataset, beside the API's imported one
    public static List<SparkPlan> planNodes(Dataset<?> dataset) {
        List<SparkPlan> out = new ArrayList<>();
        collect(
                ((org.apache.spark.sql.classic.Dataset<?>) dataset)
                        .queryExecution()
                        .executedPlan(),
                out);
        return out;
    }

    private static void collect(SparkPlan p, List<SparkPlan> out) {
        if (p instanceof AdaptiveSparkPlanExec a) {
            collect(a.executedPlan(), out);
            return;
        }
        if (p instanceof QueryStageExec s) {
            out.add(p);
            collect(s.plan(), out);
            return;
        }
        out.add(p);
        for (SparkPlan c : CollectionConverters.asJava(p.children())) {
            collect(c, out);
        }
    }

    /**
     * {@code dataset}'s executed plan, one node per line (looking through adaptive execution), with
     * what stays with Spark and why under each Spark node the extension left work to:
     *
     * <pre>
     * Project [id#0L, upper(s#7) AS u#20]
     *   ! stays with Spark: upper(s) AS u: upper has no Quiver translation
     *   FileScan parquet [id#0L,s#7] ...
     * </pre>
     */
    @SuppressWarnings("checkstyle:inlinefqn") // Spark's classic Dataset, beside the API's imported one
    public static String explain(Dataset<?> dataset) {
        StringBuilder sb = new StringBuilder();
        explain(
                ((org.apache.spark.sql.classic.Dataset<?>) dataset)
                        .queryExecution()
                        .executedPlan(),
                0,
                sb);
        return sb.toString();
    }

    private static void explain(SparkPlan p, int depth, StringBuilder sb) {
        if (p instanceof AdaptiveSparkPlanExec a) {
            explain(a.executedPlan(), depth, sb);
            return;
        }
        String indent = "  ".repeat(depth);
        sb.append(indent).append(p.simpleString(25)).append('\n');
        Option<String> tag = p.getTagValue(QuiverPlanner.FALLBACK);
        if (tag.isDefined()) {
            for (String line : tag.get().split("\n")) {
                sb.append(indent).append("  ! stays with Spark: ").append(line).append('\n');
            }
        }
        if (p instanceof QueryStageExec stage) {
            explain(stage.plan(), depth + 1, sb);
            return;
        }
        for (SparkPlan c : CollectionConverters.asJava(p.children())) {
            explain(c, depth + 1, sb);
        }
    }

    /** The Quiver nodes of {@code dataset}'s executed plan. */
    public static List<QuiverExec> quiverNodes(Dataset<?> dataset) {
        return planNodes(dataset).stream()
                .filter(QuiverExec.class::isInstance)
                .map(QuiverExec.class::cast)
                .toList();
    }

    /**
     * What of {@code dataset}'s projections and filters stays with Spark, and why: one line per
     * decision, "expression: reason", also written to the log at INFO when the plan is made.
     */
    public static List<String> fallbacks(Dataset<?> dataset) {
        Set<String> out = new LinkedHashSet<>();
        for (SparkPlan p : planNodes(dataset)) {
            if (p instanceof QuiverExec q) {
                out.addAll(q.spec().notes());
            } else {
                Option<String> tag = p.getTagValue(QuiverPlanner.FALLBACK);
                if (tag.isDefined()) {
                    out.addAll(List.of(tag.get().split("\n")));
                }
            }
        }
        return List.copyOf(out);
    }
}
