package dev.quiver.spark;

import org.apache.spark.sql.SparkSession;

/** One local[2] Spark session per test class, with or without the Quiver extension. */
final class SparkSessions {
    private SparkSessions() {}

    static SparkSession start(boolean withQuiver) {
        SparkSession.clearActiveSession();
        SparkSession.clearDefaultSession();
        SparkSession.Builder b = SparkSession.builder()
                .master("local[2]")
                .appName("quiver-test")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "4")
                .config("spark.sql.adaptive.enabled", "true")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.sql.session.timeZone", "UTC");
        if (withQuiver) {
            b.config("spark.sql.extensions", QuiverSparkExtension.class.getName());
        }
        return b.getOrCreate();
    }
}
