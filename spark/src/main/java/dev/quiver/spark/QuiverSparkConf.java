package dev.quiver.spark;

import dev.quiver.Placement;
import java.util.Locale;
import org.apache.spark.sql.internal.SQLConf;

/**
 * The Spark SQL settings of the Quiver extension ({@code spark.conf.set(...)} at run time, or
 * {@code --conf} at submit time). Read at planning, on the driver; executors get what a plan
 * node carries.
 */
public final class QuiverSparkConf {
    /** {@code true} (default) or {@code false}: whether the extension rewrites plans at all. */
    public static final String ENABLED = "spark.quiver.enabled";
    /** {@code auto} (default), {@code cpu} or {@code opencl}: Quiver's placement in executors. */
    public static final String PLACEMENT = "spark.quiver.placement";
    /** Rows per Arrow batch when a Quiver node reads rows (its child is not columnar); default 65536. */
    public static final String ROW_BATCH_ROWS = "spark.quiver.rowBatchRows";
    /** {@code true} (default): a Quiver node over a row-producing child writes the rows into Arrow itself, instead of Spark's RowToColumnar followed by a copy. */
    public static final String READ_ROWS = "spark.quiver.readRows";

    private QuiverSparkConf() {}

    static boolean enabled(SQLConf conf) {
        return Boolean.parseBoolean(conf.getConfString(ENABLED, "true").trim());
    }

    static Placement placement(SQLConf conf) {
        String p = conf.getConfString(PLACEMENT, "auto").trim().toUpperCase(Locale.ROOT);
        try {
            return Placement.valueOf(p);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    PLACEMENT + " is '" + p.toLowerCase(Locale.ROOT) + "': use auto, cpu or opencl");
        }
    }

    static int rowBatchRows(SQLConf conf) {
        int n = Integer.parseInt(conf.getConfString(ROW_BATCH_ROWS, "65536").trim());
        if (n < 1) {
            throw new IllegalArgumentException(ROW_BATCH_ROWS + " must be at least 1, not " + n);
        }
        return n;
    }

    static boolean readRows(SQLConf conf) {
        return Boolean.parseBoolean(conf.getConfString(READ_ROWS, "true").trim());
    }
}
