package dev.quiver.spark;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.kernels.ArithmeticMode;
import dev.quiver.spark.exec.ExecutorQuivers;
import dev.quiver.spark.exec.QuiverExec;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.spark.ErrorMessageFormat;
import org.apache.spark.SparkArithmeticException;
import org.apache.spark.SparkThrowableHelper;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.FilterExec;
import org.apache.spark.sql.execution.ProjectExec;
import org.apache.spark.sql.execution.RowToColumnarExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.ui.SQLExecutionUIData;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The session extension in local[2] against Spark's own evaluation of the same queries (the
 * extension switched off with {@code spark.quiver.enabled=false} in the same session), over a
 * Parquet file the test writes: results row for row, the executed plan, fallbacks and their
 * reasons, metrics, and every task allocator back at zero.
 */
class QuiverExtensionTest {
    static SparkSession spark;

    @TempDir
    static Path dir;

    static String table;
    static long tableRows = 20_000;

    @BeforeAll
    static void start() {
        spark = SparkSessions.start(true);
        table = TestData.writeParquet(spark, dir, (int) tableRows, 3);
        spark.read().parquet(table).createOrReplaceTempView("t");
        QuiverSpark.registerFunctions(spark, TestFunctions.class);
    }

    @AfterAll
    static void stop() {
        spark.stop();
    }

    @AfterEach
    void allocatorsAtZero() {
        spark.conf().set(QuiverSparkConf.ENABLED, "true");
        spark.conf().unset(QuiverSparkConf.PLACEMENT);
        spark.conf().unset("spark.sql.ansi.enabled");
        assertEquals(0, ExecutorQuivers.allocatedBytes(), "Arrow bytes held after the queries' tasks ended");
    }

    static List<Row> sparkOwn(Supplier<Dataset<Row>> query) {
        spark.conf().set(QuiverSparkConf.ENABLED, "false");
        try {
            Dataset<Row> df = query.get();
            assertTrue(QuiverSpark.quiverNodes(df).isEmpty(), "switched off, the plan has no Quiver node");
            return df.collectAsList();
        } finally {
            spark.conf().set(QuiverSparkConf.ENABLED, "true");
        }
    }

    /** Runs {@code sql} with and without Quiver; returns the Quiver run's dataset (executed). */
    static Dataset<Row> check(String sql) {
        return check(() -> spark.sql(sql), sql);
    }

    static Dataset<Row> check(Supplier<Dataset<Row>> query, String what) {
        List<Row> expected = sparkOwn(query);
        Dataset<Row> df = query.get();
        List<Row> actual = df.collectAsList();
        Comparison.assertSameRows(expected, actual, what);
        return df;
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "d + e",
                "d * 2.5 - e",
                "-d",
                "d % 3.0",
                "d / 4.0",
                "sqrt(d)",
                "sin(d) * 2 + cos(e)",
                "exp(e)",
                "ln(d)",
                "log10(d)",
                "log2(e)",
                "tan(e)",
                "asin(e / 10.0)",
                "acos(e / 10.0)",
                "atan(d)",
                "atan2(d, e)",
                "sinh(e)",
                "cosh(e)",
                "tanh(e)",
                "cbrt(d)",
                "pow(e, 3.0)",
                "hypot(d, e)",
                "degrees(d)",
                "radians(d)",
                "abs(d)",
                "signum(e)",
                "greatest(d, e)",
                "least(d, e, 0.0)",
                "i + 1",
                "i * 3 - k",
                "j + i",
                "j * 7",
                "-i",
                "i % 7",
                "cast(i AS double) * d",
                "cast(i AS bigint) + j",
                "f * 2",
                "cast(f AS double) + d",
                "d > e",
                "d = e",
                "d <=> e",
                "i < k",
                "s = 'apple'",
                "s < 'b'",
                "s IS NULL",
                "d IS NOT NULL AND i > 0",
                "b OR d > 0",
                "NOT b",
                "CASE WHEN d > 0 THEN d WHEN e < 0 THEN e ELSE 0.0 END",
                "CASE WHEN i IS NULL THEN -1 ELSE i END",
                "IF(b, d, e)",
                "coalesce(d, e, 1.5)",
                "i IN (1, 2, 3, k)",
                "k IN (1, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)",
                "s IN ('apple', 'banana')",
                "s LIKE 'ap%'",
                "s LIKE '%a_c%'",
                "startswith(s, 'ba')",
                "endswith(s, '7')",
                "contains(s, 'an')",
                "length(s)",
                "my_hypot(d, e)",
                "my_hypot(i, k)",
                "my_hypot(f, d)",
                "my_hypot(f, f)",
                "my_haversine(e * 9, d / 5.0, e, d / 6.0)",
                "round(d)",
                "round(e * 10)",
                "isnan(d)",
                "isnan(f)",
                "nanvl(d, e)",
                "nanvl(d, -1.0) > 0",
                "floor(d)",
                "ceil(e * 3)",
                "floor(d / 10.0) > k",
                "ceil(d * 1e17)",
                "floor(j)"
            })
    void projectionsMatchSpark(String expr) {
        Dataset<Row> df = check("SELECT id, " + expr + " AS r FROM t");
        List<QuiverExec> nodes = QuiverSpark.quiverNodes(df);
        assertEquals(1, nodes.size(), "one Quiver node for " + expr + "; fallbacks " + QuiverSpark.fallbacks(df));
        assertTrue(QuiverSpark.fallbacks(df).isEmpty(), () -> expr + " fell back: " + QuiverSpark.fallbacks(df));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "d > 0.5",
                "d > 0.5 AND i < 100",
                "s LIKE '%an%' OR d IS NULL",
                "NOT (k = 3)",
                "e BETWEEN -1 AND 1",
                "b",
                "sin(d) > 0 AND cos(e) < 0.5",
                "coalesce(i, 0) % 2 = 0"
            })
    void filtersMatchSpark(String condition) {
        Dataset<Row> df = check("SELECT id, d, e, f, i, j, s, b FROM t WHERE " + condition);
        assertFalse(QuiverSpark.quiverNodes(df).isEmpty(), condition);
        assertTrue(plan(df).stream().noneMatch(FilterExec.class::isInstance), "no Spark filter left for " + condition);
    }

    @Test
    void filterAndProjectionRunAsOneNode() {
        Dataset<Row> df = check("SELECT id, sqrt(d) + k AS y, s FROM t WHERE k > 2 AND d < 100");
        List<QuiverExec> nodes = QuiverSpark.quiverNodes(df);
        assertEquals(1, nodes.size());
        assertTrue(nodes.getFirst().spec().filter() != null, "the filter is in the Quiver node");
        assertEquals("QuiverFilterProject", nodes.getFirst().nodeName());
    }

    @Test
    void anExpressionQuiverCannotComputeStaysWithSparkWithItsReason() {
        Dataset<Row> df = check("SELECT id, upper(s) AS u FROM t");
        assertTrue(QuiverSpark.quiverNodes(df).isEmpty());
        List<String> why = QuiverSpark.fallbacks(df);
        assertEquals(1, why.size(), why.toString());
        assertTrue(
                why.getFirst().contains("upper") && why.getFirst().contains("no Quiver translation"), why.toString());
        String plan = QuiverSpark.explain(df);
        assertTrue(plan.contains("! stays with Spark: upper(t.s) AS u: upper has no Quiver translation"), plan);
    }

    @Test
    void theTranslatablePartsOfAnExpressionRunInQuiver() {
        Dataset<Row> df = check("SELECT id, sin(d) * 2 + length(upper(s)) AS r, d + e AS q FROM t");
        List<QuiverExec> nodes = QuiverSpark.quiverNodes(df);
        assertEquals(1, nodes.size());
        String description = nodes.getFirst().simpleString(100);
        assertTrue(description.contains("sin(c0)") && description.contains("stays with Spark"), description);
        assertTrue(
                plan(df).stream()
                        .anyMatch(p -> p instanceof ProjectExec pe
                                && pe.projectList().mkString().contains("upper")),
                "Spark projects upper(s) above the Quiver node");
    }

    @Test
    void ofAFiltersConjunctsQuiverTakesTheTranslatablePrefix() {
        Dataset<Row> df = check("SELECT id, d, s FROM t WHERE d > 0 AND upper(s) = 'APPLE' AND i > 0");
        List<QuiverExec> nodes = QuiverSpark.quiverNodes(df);
        assertEquals(1, nodes.size());
        String filter = nodes.getFirst().spec().filter();
        assertTrue(filter.contains("> 0") && !filter.contains("upper"), filter);
        assertTrue(plan(df).stream()
                .anyMatch(p -> p instanceof FilterExec f && f.condition().sql().contains("upper")));
        assertTrue(
                QuiverSpark.fallbacks(df).stream().anyMatch(s -> s.contains("the conjuncts after it")),
                QuiverSpark.fallbacks(df).toString());
    }

    @Test
    void aNonDeterministicExpressionStaysWithSpark() {
        Dataset<Row> df = spark.sql("SELECT id, rand(7) + d AS r FROM t");
        df.collectAsList();
        assertTrue(QuiverSpark.quiverNodes(df).isEmpty());
        assertTrue(
                QuiverSpark.fallbacks(df).toString().contains("not deterministic"),
                QuiverSpark.fallbacks(df).toString());
    }

    @Test
    void divisionByAColumnStaysWithSparkUnderAnsiAndRunsInQuiverOtherwise() {
        Dataset<Row> ansi = check("SELECT id, d / e AS r FROM t WHERE e <> 0");
        assertTrue(
                QuiverSpark.fallbacks(ansi).toString().contains("DIVIDE_BY_ZERO"),
                QuiverSpark.fallbacks(ansi).toString());
        spark.conf().set("spark.sql.ansi.enabled", "false");
        Dataset<Row> legacy = check("SELECT id, d / e AS r, d % e AS m, i % k AS n, i * 2147483 AS w, -i AS v FROM t");
        assertEquals(1, QuiverSpark.quiverNodes(legacy).size());
        assertTrue(
                QuiverSpark.fallbacks(legacy).isEmpty(),
                QuiverSpark.fallbacks(legacy).toString());
    }

    @Test
    void integerOverflowFailsTheQueryUnderAnsiAsSparkDoes() {
        String sql = "SELECT id, i * 2147483 AS w FROM t";
        spark.conf().set(QuiverSparkConf.ENABLED, "false");
        Exception sparkError =
                assertThrows(Exception.class, () -> spark.sql(sql).collectAsList());
        spark.conf().set(QuiverSparkConf.ENABLED, "true");
        Exception quiverError =
                assertThrows(Exception.class, () -> spark.sql(sql).collectAsList());
        assertTrue(String.valueOf(sparkError.getMessage()).contains("overflow"), sparkError.getMessage());
        assertTrue(String.valueOf(quiverError.getMessage()).contains("overflow"), quiverError.getMessage());
        assertTrue(
                String.valueOf(quiverError.getMessage()).contains("ARITHMETIC_OVERFLOW"),
                "Quiver's error is Spark's ARITHMETIC_OVERFLOW: " + quiverError.getMessage());
    }

    @Test
    void anExpressionThatCanRaiseIsNotEvaluatedOnRowsSparkSkips() {
        // Spark returns NULL for a + ... at a NULL a without evaluating b * 100000 (which overflows).
        String path = dir.resolve("skipped").toString();
        spark.createDataFrame(
                        List.of(
                                RowFactory.create(1L, null, 100000, Long.MAX_VALUE, 1L, null, 0, null),
                                RowFactory.create(2L, 1, 2, 5L, 1L, 3, 2, 2.0)),
                        new StructType()
                                .add("id", "long")
                                .add("a", "int")
                                .add("b", "int")
                                .add("x", "long")
                                .add("y", "long")
                                .add("n", "int")
                                .add("z", "int")
                                .add("w", "double"))
                .write()
                .mode("overwrite")
                .parquet(path);
        spark.read().parquet(path).createOrReplaceTempView("skipped");
        Dataset<Row> df = check("SELECT id, a + b * 100000 AS r, sin(cast(b AS double)) AS q FROM skipped");
        assertTrue(
                QuiverSpark.fallbacks(df).toString().contains("can raise under ANSI mode"),
                QuiverSpark.fallbacks(df).toString());
        // / and % evaluate the divisor first: at a NULL (or, in TRY, zero) divisor the dividend is never computed.
        for (String e : List.of(
                "(x + y) % n",
                "try_mod(x + y, z)",
                "try_divide(cast(x + y AS double), w)",
                "(x + y) div n",
                "elt(1, 'x', cast(x + y AS string))")) {
            check("SELECT id, " + e + " AS r FROM skipped");
        }
        // TRY: Spark's try_add of a date catches what its operands raise; nothing is taken out of it.
        check("SELECT id, try_add(DATE '2024-01-01', i * 10000) AS r FROM t");
    }

    @Test
    void anExpressionThatCanRaiseIsNotEvaluatedPastALimit() {
        // Spark evaluates a projection or filter under a LIMIT only on the rows it takes (the first one
        // here); Quiver computes whole batches, where the second row overflows. Found by SparkDifferentialFuzzTest.
        String path = dir.resolve("limited").toString();
        spark.createDataFrame(
                        List.of(RowFactory.create(1L, 2, 1.0), RowFactory.create(2L, 100000, 2.0)),
                        new StructType().add("id", "long").add("a", "int").add("w", "double"))
                .coalesce(1)
                .write()
                .mode("overwrite")
                .parquet(path);
        spark.read().parquet(path).createOrReplaceTempView("limited");
        for (String sql : List.of(
                "SELECT id, a * 100000 AS r FROM limited LIMIT 1",
                "SELECT id FROM limited WHERE a * 100000 > 0 LIMIT 1",
                "SELECT id, a % (a - 100000) AS r FROM limited LIMIT 1")) {
            Dataset<Row> df = check(sql);
            assertEquals(1, df.collectAsList().size(), sql);
            assertTrue(
                    QuiverSpark.fallbacks(df).toString().contains("past a LIMIT"),
                    QuiverSpark.fallbacks(df).toString());
        }
        // What cannot raise still runs in Quiver under a limit; without one, the overflow fails the query in both.
        assertFalse(QuiverSpark.quiverNodes(check("SELECT id, sin(w) + a AS r FROM limited LIMIT 1"))
                .isEmpty());
        spark.conf().set(QuiverSparkConf.ENABLED, "false");
        assertThrows(
                Exception.class,
                () -> spark.sql("SELECT id, a * 100000 AS r FROM limited").collectAsList());
        spark.conf().set(QuiverSparkConf.ENABLED, "true");
        Dataset<Row> unlimited = spark.sql("SELECT id, a * 100000 AS r FROM limited");
        assertThrows(Exception.class, unlimited::collectAsList);
        assertFalse(QuiverSpark.quiverNodes(unlimited).isEmpty());
    }

    @Test
    void aRemainderByZeroIsSparksErrorWithItsClass() {
        String sql = "SELECT id, i % (k - k) AS r FROM t";
        Dataset<Row> ds = spark.sql(sql);
        SparkArithmeticException quiver = assertThrows(
                SparkArithmeticException.class, ds::collectAsList, "Quiver's error reaches the caller as Spark's");
        assertFalse(QuiverSpark.quiverNodes(ds).isEmpty(), "Quiver computed i % (k - k)");
        assertTrue(quiver.getCause() instanceof KernelArithmeticException, "Quiver's message is the cause");
        assertEquals("REMAINDER_BY_ZERO", quiver.getCondition(), quiver.getMessage());
        assertEquals(0, quiver.getQueryContext().length);
        // Spark's own formatting of the error (the Thrift server's) works on it.
        String minimal = SparkThrowableHelper.getMessage(quiver, ErrorMessageFormat.MINIMAL());
        assertTrue(minimal.contains("REMAINDER_BY_ZERO"), minimal);
    }

    @Test
    void aFusedFilterKeepsItsArithmeticModeAndFunctions() {
        spark.conf().set("spark.sql.ansi.enabled", "false");
        Dataset<Row> df = check("SELECT id, d + 1 AS x FROM t WHERE i + 2147483000 > 0");
        QuiverExec node = QuiverSpark.quiverNodes(df).getFirst();
        assertEquals(ArithmeticMode.WRAPPING, node.spec().mode(), node.simpleString(10));
        spark.conf().unset("spark.sql.ansi.enabled");
        Dataset<Row> withFunction = check("SELECT id, e * 2 AS x FROM t WHERE my_hypot(d, e) > 100");
        QuiverExec fused = QuiverSpark.quiverNodes(withFunction).getFirst();
        assertTrue(
                fused.spec().filter() != null && fused.spec().providers().contains(TestFunctions.class.getName()),
                fused.simpleString(10));
    }

    @Test
    void log2IsSparksQuotientOfLogarithms() {
        List<Row> rows = spark.range(1)
                .selectExpr("cast(536870912 AS double) * (id + 1) AS x")
                .selectExpr("log2(x) AS r")
                .collectAsList();
        assertEquals(
                StrictMath.log(536870912.0) / StrictMath.log(2.0),
                rows.getFirst().getDouble(0));
        assertEquals(29.000000000000004, rows.getFirst().getDouble(0));
    }

    @Test
    void aLikePatternSparkRejectsFailsAsInSpark() {
        String sql = "SELECT id FROM t WHERE s LIKE 'a\\\\b'";
        Exception quiver = assertThrows(Exception.class, () -> spark.sql(sql).collectAsList());
        assertTrue(String.valueOf(quiver.getMessage()).contains("ESC_IN_THE_MIDDLE"), quiver.getMessage());
    }

    @Test
    void aFunctionThatWouldReplaceQuiversOwnIsRefused() {
        IllegalStateException e = assertThrows(
                IllegalStateException.class, () -> QuiverSpark.registerFunctions(spark, TestFunctions.Clashing.class));
        assertTrue(e.getMessage().contains("would replace Quiver's own 'sqrt'"), e.getMessage());
    }

    @Test
    void aggregationAfterQuiverWithAShuffleUnderAdaptiveExecution() {
        Dataset<Row> df = check(
                "SELECT k, max(sin(d) * e) AS m, min(my_hypot(d, e)) AS h, count(*) AS n FROM t WHERE e > 0 GROUP BY k");
        assertFalse(QuiverSpark.quiverNodes(df).isEmpty());
        assertTrue(QuiverSpark.planNodes(df).stream().anyMatch(p -> p.nodeName().contains("Exchange")), "a shuffle");
    }

    @Test
    void aProjectionAfterAShuffleReadsRowsIntoArrowItself() {
        Dataset<Row> df = check(
                () -> spark.table("t").repartition(3, col("k")).selectExpr("id", "sin(d) * e AS r", "k"),
                "projection after repartition");
        List<QuiverExec> nodes = QuiverSpark.quiverNodes(df);
        assertEquals(1, nodes.size());
        assertTrue(nodes.getFirst().rowInput(), "the node reads the shuffle's rows");
        assertTrue(plan(df).stream().noneMatch(RowToColumnarExec.class::isInstance));
        assertTrue(nodes.getFirst().metrics().get("importBytes").get().value() > 0);
    }

    @Test
    void aJoinOverQuiverProjectionsNeedsNoMoreShufflesThanSparksOwnPlan() {
        spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
        try {
            for (String sql : List.of(
                    "SELECT a.id, a.k, a.y, b.z FROM (SELECT id, k, sin(d) AS y FROM t WHERE e > 0) a "
                            + "JOIN (SELECT k, max(cos(e)) AS z FROM t GROUP BY k) b ON a.k = b.k",
                    // After the join, the projection drops r.k: the join's partitioning on l.k still holds.
                    "SELECT k, max(y) AS m, count(*) AS n FROM (SELECT l.k, sin(l.d) * r.e AS y FROM t l JOIN t r "
                            + "ON l.k = r.k AND l.id = r.id) GROUP BY k")) {
                spark.conf().set(QuiverSparkConf.ENABLED, "false");
                Dataset<Row> own = spark.sql(sql);
                own.collectAsList();
                long sparkShuffles = QuiverSpark.planNodes(own).stream()
                        .filter(p -> p.nodeName().contains("Exchange"))
                        .count();
                long sparkSorts = QuiverSpark.planNodes(own).stream()
                        .filter(p -> p.nodeName().equals("Sort"))
                        .count();
                spark.conf().set(QuiverSparkConf.ENABLED, "true");
                Dataset<Row> df = check(sql);
                assertFalse(QuiverSpark.quiverNodes(df).isEmpty(), sql);
                long shuffles = QuiverSpark.planNodes(df).stream()
                        .filter(p -> p.nodeName().contains("Exchange"))
                        .count();
                long sorts = QuiverSpark.planNodes(df).stream()
                        .filter(p -> p.nodeName().equals("Sort"))
                        .count();
                assertEquals(sparkShuffles, shuffles, QuiverSpark.explain(df));
                assertEquals(sparkSorts, sorts, QuiverSpark.explain(df));
            }
        } finally {
            spark.conf().unset("spark.sql.autoBroadcastJoinThreshold");
        }
    }

    @Test
    void identicalQuiverSubtreesAreReusedAsOneExchange() {
        spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
        // The join compares sin(d) * 2 for equality. Under auto placement one batch may run on OpenCL and another on
        // the CPU, and the same d (the table repeats its special values) can then differ in the last bits
        // (docs/spark.md, "Floating-point results"), so equal keys in different batches stop matching. The
        // documented way to keep every batch on one implementation is placement cpu.
        spark.conf().set(QuiverSparkConf.PLACEMENT, "cpu");
        try {
            String sql = "WITH q AS (SELECT k, sin(d) * 2 AS y FROM t WHERE e > 0) "
                    + "SELECT a.k, a.y, b.y AS y2 FROM q a JOIN q b ON a.k = b.k AND a.y = b.y";
            spark.conf().set(QuiverSparkConf.ENABLED, "false");
            Dataset<Row> own = spark.sql(sql);
            own.collectAsList();
            long sparkReused = QuiverSpark.planNodes(own).stream()
                    .filter(p -> p.nodeName().contains("Reused"))
                    .count();
            spark.conf().set(QuiverSparkConf.ENABLED, "true");
            Dataset<Row> df = check(() -> spark.sql(sql), sql);
            long reused = QuiverSpark.planNodes(df).stream()
                    .filter(p -> p.nodeName().contains("Reused"))
                    .count();
            assertTrue(sparkReused > 0, "Spark reuses the exchange");
            assertEquals(sparkReused, reused, QuiverSpark.explain(df));
        } finally {
            spark.conf().unset("spark.sql.autoBroadcastJoinThreshold");
            spark.conf().unset(QuiverSparkConf.PLACEMENT);
        }
    }

    @Test
    void metricsCountRowsBatchesDevicesAndCopiedBytes() {
        Dataset<Row> df = spark.sql("SELECT id, sin(d) + e AS r FROM t");
        long rows = df.collectAsList().size();
        QuiverExec node = QuiverSpark.quiverNodes(df).getFirst();
        var m = node.metrics();
        assertEquals(rows, m.get("numOutputRows").get().value());
        long batches = m.get("numInputBatches").get().value();
        assertTrue(batches >= 3, "Parquet batches: " + batches);
        assertEquals(
                batches,
                m.get("cpuBatches").get().value() + m.get("openClBatches").get().value());
        // Spark's Parquet reader gives on-heap vectors: d and e (8 bytes a row each plus validity) are copied into
        // Arrow.
        long copied = m.get("importBytes").get().value();
        assertTrue(copied >= rows * 16, "bytes copied into Arrow: " + copied);
    }

    @Test
    void aQuiverNodeOverAnotherSharesItsArrowVectorsWithoutACopy() {
        // x is used three times above, so Spark keeps two projections: Quiver over Quiver.
        Dataset<Row> df = check(
                () -> spark.range(0, 50_000, 1, 2)
                        .selectExpr("id", "cast(id AS double) / 1000 AS x")
                        .selectExpr("id", "my_hypot(x, x + 1) * sin(x) AS y"),
                "Quiver over Quiver");
        List<QuiverExec> nodes = QuiverSpark.quiverNodes(df);
        assertEquals(2, nodes.size(), QuiverSpark.explain(df));
        QuiverExec upper = nodes.getFirst();
        assertTrue(upper.child() instanceof QuiverExec, QuiverSpark.explain(df));
        assertEquals(
                0,
                upper.metrics().get("importBytes").get().value(),
                "the upper node shares the lower one's Arrow buffers");
        assertTrue(
                nodes.get(1).metrics().get("importBytes").get().value() > 0,
                "the lower node writes Range's rows into Arrow");
    }

    @Test
    @SuppressWarnings("checkstyle:inlinefqn") // Spark's classic SparkSession, beside the API's imported one
    void theNodesMetricsReachSparksSqlStatusStore() throws Exception {
        Dataset<Row> df = spark.sql("SELECT id, cos(d) * e AS r FROM t WHERE k < 40");
        long rows = df.collectAsList().size();
        spark.sparkContext().listenerBus().waitUntilEmpty(10_000);
        var store = ((org.apache.spark.sql.classic.SparkSession) spark)
                .sharedState()
                .statusStore();
        long execution = CollectionConverters.asJava(store.executionsList()).stream()
                .mapToLong(SQLExecutionUIData::executionId)
                .max()
                .orElseThrow();
        var node = CollectionConverters.asJava(store.planGraph(execution).allNodes()).stream()
                .filter(n -> n.name().startsWith("Quiver"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no Quiver node in the SQL tab's plan"));
        var values = store.executionMetrics(execution);
        Map<String, String> shown = new HashMap<>();
        for (var metric : CollectionConverters.asJava(node.metrics())) {
            var v = values.get(metric.accumulatorId());
            if (v.isDefined()) {
                shown.put(metric.name(), v.get());
            }
        }
        for (String name : List.of(
                "number of output rows",
                "number of input batches",
                "time in Quiver",
                "time copying into Arrow",
                "bytes copied into Arrow",
                "batches on CPU",
                "batches on OpenCL")) {
            assertTrue(shown.containsKey(name), name + " in the SQL tab: " + shown);
        }
        assertEquals(
                String.format(Locale.US, "%,d", rows),
                shown.get("number of output rows").replace("\u00a0", ","),
                shown.toString());
    }

    @Test
    void placementOpenClRunsBatchesOnTheDeviceInsideExecutors() {
        boolean openCl = !ExecutorQuivers.quiver(ArithmeticMode.CHECKED, List.of())
                .openClDevices()
                .isEmpty();
        if (!openCl) {
            if (System.getenv("CI") != null) {
                throw new AssertionError("CI has PoCL: an OpenCL device must exist");
            }
            Assumptions.abort("no OpenCL device on this machine");
        }
        spark.conf().set(QuiverSparkConf.PLACEMENT, "opencl");
        Dataset<Row> df = check("SELECT id, sin(d) * cos(e) + my_hypot(d, e) AS r FROM t");
        var m = QuiverSpark.quiverNodes(df).getFirst().metrics();
        assertTrue(m.get("openClBatches").get().value() > 0, "batches on OpenCL");
        assertEquals(0, m.get("cpuBatches").get().value());
        assertTrue(QuiverSpark.quiverNodes(df).getFirst().simpleString(10).contains("placement opencl"));
    }

    @Test
    void switchedOffThePlanHasNoQuiverNode() {
        spark.conf().set(QuiverSparkConf.ENABLED, "false");
        Dataset<Row> df = spark.sql("SELECT id, sin(d) AS r FROM t");
        df.collectAsList();
        assertTrue(QuiverSpark.quiverNodes(df).isEmpty());
    }

    @Test
    void aRowFnIsCallableWithoutTheExtensionThroughTheReferenceInterpreter() {
        spark.conf().set(QuiverSparkConf.ENABLED, "false");
        List<Row> viaRowFn = spark.sql("SELECT id, my_hypot(d, e) AS r FROM t").collectAsList();
        List<Row> builtin =
                spark.sql("SELECT id, sqrt(d * d + e * e) AS r FROM t").collectAsList();
        Comparison.assertSameRows(builtin, viaRowFn, "my_hypot against sqrt(d*d + e*e)");
    }

    @Test
    void columnsOfOtherTypesPassThroughQuiverFiltersAndProjections() {
        String path = dir.resolve("types").toString();
        spark.sql("SELECT id, cast(id % 7 AS double) - 3 AS d, "
                        + "CASE WHEN id % 11 = 0 THEN NULL ELSE date_add(DATE '2024-02-27', cast(id % 400 AS int)) END AS dt, "
                        + "CASE WHEN id % 13 = 0 THEN NULL ELSE timestamp_micros(1700000000000000 + id * 3600000123) END AS ts, "
                        + "CASE WHEN id % 5 = 0 THEN NULL ELSE cast(id / 7.0 AS decimal(12, 3)) END AS dec, "
                        + "CASE WHEN id % 9 = 0 THEN NULL ELSE cast(concat('b', id) AS binary) END AS bin, "
                        + "cast(id % 100 AS tinyint) AS t8, cast(id % 1000 AS smallint) AS t16 "
                        + "FROM range(0, 5000, 1, 3)")
                .write()
                .mode("overwrite")
                .parquet(path);
        spark.read().parquet(path).createOrReplaceTempView("types");
        Dataset<Row> filtered = check("SELECT id, dt, ts, dec, bin, t8, t16 FROM types WHERE d > 0 AND t8 < 50");
        assertEquals(
                1,
                QuiverSpark.quiverNodes(filtered).size(),
                QuiverSpark.fallbacks(filtered).toString());
        Dataset<Row> projected = check("SELECT id, dt, ts, dec, bin, sin(d) + t16 AS r, t8 + 0 AS w FROM types");
        assertEquals(
                1,
                QuiverSpark.quiverNodes(projected).size(),
                QuiverSpark.fallbacks(projected).toString());
        Dataset<Row> both = check("SELECT id, ts, dec, d * t16 AS r FROM types WHERE bin IS NOT NULL AND d < 2");
        assertEquals(
                1,
                QuiverSpark.quiverNodes(both).size(),
                QuiverSpark.fallbacks(both).toString());
    }

    static List<SparkPlan> plan(Dataset<Row> df) {
        return QuiverSpark.planNodes(df);
    }
}
