package dev.quiver.spark;

import dev.quiver.spark.arrow.SparkArrowTypes;
import dev.quiver.spark.exec.QuiverExec;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.ColumnarRule;
import org.apache.spark.sql.execution.RowToColumnarExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.internal.SQLConf;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The extension's columnar rule. Before Spark inserts its row/columnar transitions, Quiver nodes
 * replace the projections and filters Quiver can compute ({@link QuiverPlanner}); after, a
 * {@code RowToColumnar} right below a Quiver node is dropped and the node writes the child's rows
 * into Arrow itself (one copy instead of two). Both do nothing when
 * {@link QuiverSparkConf#ENABLED} is false.
 */
public final class QuiverColumnarRule extends ColumnarRule {

    @Override
    public Rule<SparkPlan> preColumnarTransitions() {
        return new Rule<>() {
            @Override
            public SparkPlan apply(SparkPlan plan) {
                SQLConf conf = SQLConf.get();
                if (!QuiverSparkConf.enabled(conf)) {
                    return plan;
                }
                return new QuiverPlanner(conf).rewrite(plan);
            }

            @Override
            public String ruleName() {
                return "QuiverPlan";
            }
        };
    }

    @Override
    public Rule<SparkPlan> postColumnarTransitions() {
        return new Rule<>() {
            @Override
            public SparkPlan apply(SparkPlan plan) {
                SQLConf conf = SQLConf.get();
                if (!QuiverSparkConf.enabled(conf) || !QuiverSparkConf.readRows(conf)) {
                    return plan;
                }
                return readRows(plan);
            }

            @Override
            public String ruleName() {
                return "QuiverReadRows";
            }
        };
    }

    private static SparkPlan readRows(SparkPlan plan) {
        List<SparkPlan> children = CollectionConverters.asJava(plan.children());
        List<SparkPlan> rewritten = new ArrayList<>(children.size());
        boolean changed = false;
        for (SparkPlan c : children) {
            SparkPlan r = readRows(c);
            changed |= r != c;
            rewritten.add(r);
        }
        SparkPlan p = changed
                ? plan.withNewChildren(CollectionConverters.asScala(rewritten).toSeq())
                : plan;
        if (p instanceof QuiverExec q
                && q.child() instanceof RowToColumnarExec r2c
                && q.spec().inputTypes().stream()
                        .allMatch(t -> SparkArrowTypes.arrowType(t).isPresent())) {
            return q.readingRows(r2c.child());
        }
        return p;
    }
}
