package dev.quiver.spark;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.execution.ColumnarRule;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * The Spark session extension: {@code spark.sql.extensions=dev.quiver.spark.QuiverSparkExtension}
 * (or {@code SparkSession.builder().withExtensions(new QuiverSparkExtension())}). It adds
 * {@link QuiverColumnarRule}, which evaluates projections and filters through Quiver in the
 * executors; {@code spark.quiver.enabled=false} turns it off per session.
 */
public final class QuiverSparkExtension extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {

    @Override
    public BoxedUnit apply(SparkSessionExtensions extensions) {
        extensions.injectColumnar(new AbstractFunction1<SparkSession, ColumnarRule>() {
            @Override
            public ColumnarRule apply(SparkSession session) {
                return new QuiverColumnarRule();
            }
        });
        return BoxedUnit.UNIT;
    }
}
