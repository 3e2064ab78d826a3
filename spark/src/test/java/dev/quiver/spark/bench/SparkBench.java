package dev.quiver.spark.bench;

import dev.quiver.spark.QuiverSpark;
import dev.quiver.spark.QuiverSparkConf;
import dev.quiver.spark.QuiverSparkExtension;
import dev.quiver.spark.TestFunctions;
import dev.quiver.spark.exec.QuiverExec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.util.QueryExecutionListener;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The Spark benchmark: a transcendental RowFn ({@code my_haversine}) through the Quiver extension
 * against Spark's own whole-stage codegen of the same formula written with Spark's built-in
 * functions, over a Parquet file of {@code --rows} rows, in local[N]. Every row is computed and
 * written to Spark's no-op sink; runs of the variants are interleaved; medians and ratios are of
 * one run. For the Quiver runs it reports, from the node's SQL metrics, the time spent copying
 * Spark's column vectors into Arrow as a share of the node's time.
 *
 * <pre>spark/bench.sh [--rows 10000000] [--iterations 5] [--warmup 1] [--threads 2] [--batch-rows 4096] [--dir /tmp/quiver-spark-bench]</pre>
 */
public final class SparkBench {
    static final String SPARK_SQL = "2 * 6371.0 * asin(sqrt(pow(sin((lat2 - lat1) * (pi() / 360)), 2) "
            + "+ cos(lat1 * (pi() / 180)) * cos(lat2 * (pi() / 180)) * pow(sin((lon2 - lon1) * (pi() / 360)), 2)))";
    static final String QUIVER_SQL = "my_haversine(lat1, lon1, lat2, lon2)";

    public static void main(String[] args) throws Exception {
        long rows = 10_000_000;
        int iterations = 5;
        int warmup = 1;
        int threads = 2;
        int batchRows = 4096;
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "quiver-spark-bench");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows" -> rows = parseCount(args[++i]);
                case "--iterations" -> iterations = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--threads" -> threads = Integer.parseInt(args[++i]);
                case "--batch-rows" -> batchRows = Integer.parseInt(args[++i]);
                case "--dir" -> dir = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        SparkSession spark = SparkSession.builder()
                .master("local[" + threads + "]")
                .appName("quiver-spark-bench")
                .config("spark.ui.enabled", "false")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.sql.extensions", QuiverSparkExtension.class.getName())
                .config("spark.sql.parquet.columnarReaderBatchSize", Integer.toString(batchRows))
                .config("spark.sql.files.maxPartitionBytes", Long.toString(Math.max(rows * 32 / threads / 4, 4L << 20)))
                .getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        QuiverSpark.registerFunctions(spark, TestFunctions.class);
        String path = dir.resolve("points-" + rows).toString();
        if (!Files.exists(Path.of(path, "_SUCCESS"))) {
            System.out.printf(Locale.ROOT, "writing %,d rows to %s%n", rows, path);
            spark.range(0, rows, 1, threads * 4)
                    .selectExpr(
                            "(rand(1) * 180 - 90) AS lat1", "(rand(2) * 360 - 180) AS lon1",
                            "(rand(3) * 180 - 90) AS lat2", "(rand(4) * 360 - 180) AS lon2")
                    .write()
                    .mode("overwrite")
                    .parquet(path);
        }
        spark.read().parquet(path).createOrReplaceTempView("points");

        AtomicReference<QueryExecution> last = new AtomicReference<>();
        spark.listenerManager().register(new QueryExecutionListener() {
            @Override
            public void onSuccess(String funcName, QueryExecution qe, long durationNs) {
                last.set(qe);
            }

            @Override
            public void onFailure(String funcName, QueryExecution qe, Exception exception) {}
        });

        String[] variants = {"spark codegen", "quiver auto", "quiver cpu"};
        List<List<Double>> times = new ArrayList<>();
        for (int v = 0; v < variants.length; v++) {
            times.add(new ArrayList<>());
        }
        List<Double> importShare = new ArrayList<>();
        List<Double> importOfWall = new ArrayList<>();
        long openClBatches = 0;
        long cpuBatches = 0;
        long importBytes = 0;
        for (int it = 0; it < warmup + iterations; it++) {
            for (int v = 0; v < variants.length; v++) {
                boolean quiver = v > 0;
                spark.conf().set(QuiverSparkConf.ENABLED, Boolean.toString(quiver));
                spark.conf().set(QuiverSparkConf.PLACEMENT, v == 2 ? "cpu" : "auto");
                String sql = "SELECT " + (quiver ? QUIVER_SQL : SPARK_SQL) + " AS km FROM points";
                last.set(null);
                long start = System.nanoTime();
                spark.sql(sql).write().format("noop").mode("overwrite").save();
                double ms = (System.nanoTime() - start) / 1e6;
                waitForListener(last);
                QuiverExec node = quiverNode(last.get());
                if (quiver && node == null) {
                    throw new IllegalStateException("no Quiver node in the plan of " + sql);
                }
                if (!quiver && node != null) {
                    throw new IllegalStateException("a Quiver node in the plan of the Spark run");
                }
                if (it >= warmup) {
                    times.get(v).add(ms);
                    if (quiver) {
                        var m = node.metrics();
                        double importNs = m.get("importTime").get().value();
                        double quiverNs = m.get("quiverTime").get().value();
                        if (v == 1) {
                            importShare.add(importNs / (importNs + quiverNs));
                            importOfWall.add(importNs / 1e6 / (ms * threads));
                            openClBatches += m.get("openClBatches").get().value();
                            cpuBatches += m.get("cpuBatches").get().value();
                            importBytes = m.get("importBytes").get().value();
                        }
                    }
                }
                System.out.printf(
                        Locale.ROOT, "%s %-14s %10.1f ms%n", it < warmup ? "warmup" : "run   ", variants[v], ms);
            }
        }
        double spark0 = median(times.get(0));
        System.out.printf(
                Locale.ROOT,
                "%nhaversine over %,d rows, local[%d], Parquet batches of %d rows; medians of %d runs%n",
                rows,
                threads,
                batchRows,
                iterations);
        for (int v = 0; v < variants.length; v++) {
            double med = median(times.get(v));
            System.out.printf(Locale.ROOT, "  %-14s %10.1f ms   %5.2fx Spark's time%n", variants[v], med, med / spark0);
        }
        System.out.printf(
                Locale.ROOT,
                "  quiver auto: copying into Arrow %.1f%% of the Quiver node's time (median), %.1f%% of the "
                        + "query's task time; %,d bytes copied per query; batches on OpenCL %d, on CPU %d%n",
                100 * median(importShare),
                100 * median(importOfWall),
                importBytes,
                openClBatches,
                cpuBatches);
        spark.stop();
    }

    private static void waitForListener(AtomicReference<QueryExecution> last) throws InterruptedException {
        for (int i = 0; i < 200 && last.get() == null; i++) {
            Thread.sleep(10);
        }
        if (last.get() == null) {
            throw new IllegalStateException("the query listener did not report");
        }
    }

    private static QuiverExec quiverNode(QueryExecution qe) {
        List<SparkPlan> todo = new ArrayList<>(List.of(qe.executedPlan()));
        while (!todo.isEmpty()) {
            SparkPlan p = todo.removeLast();
            if (p instanceof QuiverExec q) {
                return q;
            }
            if (p instanceof AdaptiveSparkPlanExec a) {
                todo.add(a.executedPlan());
            } else if (p instanceof QueryStageExec s) {
                todo.add(s.plan());
            } else {
                todo.addAll(CollectionConverters.asJava(p.children()));
            }
        }
        return null;
    }

    private static long parseCount(String s) {
        String t = s.trim().toUpperCase(Locale.ROOT);
        long mul = t.endsWith("M") ? 1_000_000 : t.endsWith("K") ? 1_000 : 1;
        return Long.parseLong(mul == 1 ? t : t.substring(0, t.length() - 1)) * mul;
    }

    static double median(List<Double> xs) {
        double[] a = xs.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(a);
        return a.length == 0
                ? Double.NaN
                : a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }
}
