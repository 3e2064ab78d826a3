package dev.quiver.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.Placement;
import dev.quiver.functions.PlanningException;
import dev.quiver.kernels.ArithmeticMode;
import dev.quiver.spark.arrow.SparkArrowTypes;
import dev.quiver.spark.exec.ExecutorQuivers;
import java.math.BigDecimal;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.SparkException;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * QuiverDatasets in local[2], against Spark's own evaluation of the same expressions
 * ({@code selectExpr}), nulls and floating-point oddities included.
 */
class QuiverDatasetsTest {
    private static final long SEED = 4242L;
    private static SparkSession spark;

    @BeforeAll
    static void start() {
        spark = SparkSession.builder()
                .master("local[2]")
                .appName("QuiverDatasetsTest")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "4")
                .getOrCreate();
    }

    @AfterAll
    static void stop() {
        spark.stop();
    }

    /** Every partition closed what it allocated (completion listeners run before a job ends; give a killed task a moment). */
    @AfterEach
    void allocatorsAreBackAtZero() throws InterruptedException {
        for (int i = 0; i < 100 && ExecutorQuivers.allocatedBytes() != 0; i++) {
            Thread.sleep(20);
        }
        assertEquals(0, ExecutorQuivers.allocatedBytes(), "a partition leaked Arrow memory");
    }

    /** id, x (double), a and b (int): 1000 rows over 2 partitions, about one in five null, odd doubles first. */
    private static Dataset<Row> numbers() {
        StructType schema = new StructType()
                .add("id", DataTypes.IntegerType, false)
                .add("x", DataTypes.DoubleType, true)
                .add("a", DataTypes.IntegerType, true)
                .add("b", DataTypes.IntegerType, true);
        double[] odd = {
            Double.NaN,
            -0.0,
            0.0,
            Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY,
            Double.MIN_VALUE,
            Double.MAX_VALUE,
            -Double.MAX_VALUE,
            1e300,
            -1e-300,
            Math.PI
        };
        Random r = new Random(SEED);
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            Double x = r.nextInt(5) == 0 ? null : i < odd.length ? odd[i] : (r.nextDouble() - 0.5) * 1e4;
            Integer a = r.nextInt(5) == 0 ? null : r.nextInt(2_000_001) - 1_000_000;
            Integer b = r.nextInt(5) == 0 ? null : i == 1 ? 0 : r.nextInt(2_001) - 1_000;
            rows.add(RowFactory.create(i, x, a, b));
        }
        return spark.createDataFrame(rows, schema).repartition(2);
    }

    /** The rows of {@code ds} ordered by their first column (an id). */
    private static List<Row> byId(Dataset<Row> ds) {
        List<Row> rows = new ArrayList<>(ds.collectAsList());
        rows.sort((p, q) -> Integer.compare(p.getInt(0), q.getInt(0)));
        return rows;
    }

    @Test
    void matchesSparkOnArithmeticAndCase() {
        Dataset<Row> in = numbers();
        List<Row> quiver =
                byId(QuiverDatasets.project(in, "id", "a + b AS s", "CASE WHEN a > 0 THEN a ELSE -a END AS m"));
        List<Row> expected = byId(in.selectExpr("id", "a + b AS s", "CASE WHEN a > 0 THEN a ELSE -a END AS m"));
        assertEquals(expected.size(), quiver.size());
        for (int i = 0; i < expected.size(); i++) {
            Row e = expected.get(i), q = quiver.get(i);
            for (int c = 1; c < 3; c++) {
                Object want = e.get(c), got = q.get(c);
                assertEquals(
                        want == null ? null : ((Number) want).longValue(),
                        got == null ? null : ((Number) got).longValue(),
                        "row " + e.get(0) + " column " + c);
            }
        }
    }

    @Test
    void matchesSparkOnSineWithinTheDocumentedUlps() {
        Dataset<Row> in = numbers();
        Dataset<Row> projected = QuiverDatasets.project(
                in, QuiverDatasets.Options.defaults().withPlacement(Placement.CPU), "id", "sin(x) * 2 AS y");
        assertEquals(
                new StructType().add("id", DataTypes.IntegerType, true).add("y", DataTypes.DoubleType, true),
                projected.schema());
        List<Row> quiver = byId(projected);
        List<Row> expected = byId(in.selectExpr("id", "sin(x) * 2 AS y"));
        assertEquals(1000, quiver.size());
        for (int i = 0; i < expected.size(); i++) {
            Row e = expected.get(i), q = quiver.get(i);
            assertEquals(e.getInt(0), q.getInt(0));
            if (e.isNullAt(1)) {
                assertTrue(q.isNullAt(1), "row " + e.get(0));
                continue;
            }
            double want = e.getDouble(1), got = q.getDouble(1);
            if (Double.isNaN(want) || want == 0 || Double.isInfinite(want)) {
                assertEquals(
                        Double.doubleToLongBits(want), Double.doubleToLongBits(got), "row " + e.get(0) + ": " + got);
            } else {
                // docs/math.md: sin is within 2 ulps on the CPU (and 5 on OpenCL); * 2 is exact.
                assertTrue(Math.abs(want - got) <= 5 * Math.ulp(want), "row " + e.get(0) + ": " + got + " vs " + want);
            }
        }
    }

    /** Every type travels through Arrow and back unchanged (a bare column is a copy of the column). */
    @Test
    void passesEveryTypeThrough() {
        StructType schema = new StructType()
                .add("id", DataTypes.IntegerType, false)
                .add("t", DataTypes.BooleanType, true)
                .add("i8", DataTypes.ByteType, true)
                .add("i16", DataTypes.ShortType, true)
                .add("i64", DataTypes.LongType, true)
                .add("f", DataTypes.FloatType, true)
                .add("s", DataTypes.StringType, true)
                .add("bin", DataTypes.BinaryType, true)
                .add("d", DataTypes.DateType, true)
                .add("ts", DataTypes.TimestampType, true)
                .add("ntz", DataTypes.TimestampNTZType, true)
                .add("dec", DataTypes.createDecimalType(20, 4), true);
        List<Row> rows = List.of(
                RowFactory.create(
                        0,
                        true,
                        (byte) -128,
                        (short) 32767,
                        Long.MIN_VALUE,
                        -0.0f,
                        "héllo 日本",
                        new byte[] {0, -1, 7},
                        Date.valueOf("1969-07-20"),
                        Timestamp.from(Instant.parse("2024-02-29T23:59:59.123456Z")),
                        LocalDateTime.parse("1900-01-01T00:00:00.000001"),
                        new BigDecimal("-1234567890123456.7890")),
                RowFactory.create(1, null, null, null, null, null, null, null, null, null, null, null),
                RowFactory.create(
                        2,
                        false,
                        (byte) 127,
                        (short) -32768,
                        Long.MAX_VALUE,
                        Float.NaN,
                        "",
                        new byte[0],
                        Date.valueOf(LocalDate.of(2038, 1, 19)),
                        Timestamp.from(Instant.EPOCH),
                        LocalDateTime.parse("2262-04-11T23:47:16.854775"),
                        new BigDecimal("0.0001")));
        Dataset<Row> in = spark.createDataFrame(rows, schema);
        String[] columns = schema.fieldNames();
        List<Row> quiver = byId(
                QuiverDatasets.project(in, QuiverDatasets.Options.defaults().withBatchRows(2), columns));
        List<Row> expected = byId(in);
        for (int i = 0; i < expected.size(); i++) {
            for (int c = 0; c < columns.length; c++) {
                Object want = expected.get(i).get(c), got = quiver.get(i).get(c);
                if (want instanceof byte[] b) {
                    assertArrayEquals(b, (byte[]) got, columns[c]);
                } else if (want instanceof Float f) {
                    assertEquals(Float.floatToRawIntBits(f), Float.floatToRawIntBits((Float) got), columns[c]);
                } else {
                    assertEquals(want, got, "row " + i + " column " + columns[c]);
                }
            }
        }
    }

    /** Rows pulled from the input and rows handed out, in the order they happened (one partition: one task thread). */
    private static final ConcurrentLinkedQueue<String> EVENTS = new ConcurrentLinkedQueue<>();

    /**
     * With batches of 100 rows, the first result row is handed out after at most 100 input
     * rows were read, and result row k after at most 100 * (k / 100 + 1): the partition is
     * streamed batch by batch, never read whole, and no batch exceeds 100 rows.
     */
    @Test
    void streamsAPartitionInBatchesOfAtMostBatchRows() {
        EVENTS.clear();
        StructType schema = new StructType().add("x", DataTypes.LongType, false);
        Dataset<Row> in = spark.range(0, 1050, 1, 1)
                .toDF("x")
                .map(
                        (MapFunction<Row, Row>) row -> {
                            EVENTS.add("in");
                            return row;
                        },
                        Encoders.row(schema));
        Dataset<Row> out = QuiverDatasets.project(
                        in, QuiverDatasets.Options.defaults().withBatchRows(100), "x * 2 AS y")
                .map(
                        (MapFunction<Row, Row>) row -> {
                            EVENTS.add("out");
                            return row;
                        },
                        Encoders.row(new StructType().add("y", DataTypes.LongType, true)));
        assertEquals(1050, out.collectAsList().size());
        long read = 0, handedOut = 0, maxAhead = 0;
        for (String e : EVENTS) {
            if (e.equals("in")) {
                read++;
            } else {
                assertTrue(
                        read <= 100 * (handedOut / 100 + 1),
                        "result row " + handedOut + " came after " + read + " input rows");
                maxAhead = Math.max(maxAhead, read - handedOut);
                handedOut++;
            }
        }
        assertEquals(1050, read);
        assertEquals(1050, handedOut);
        assertTrue(maxAhead <= 100, "rows read ahead of the output: " + maxAhead);
    }

    @Test
    void aBadExpressionFailsOnTheDriverWithQuiversMessage() {
        Dataset<Row> in = numbers();
        Schema arrow = new Schema(List.of(
                SparkArrowTypes.field("id", DataTypes.IntegerType, false),
                SparkArrowTypes.field("x", DataTypes.DoubleType, true),
                SparkArrowTypes.field("a", DataTypes.IntegerType, true),
                SparkArrowTypes.field("b", DataTypes.IntegerType, true)));
        PlanningException quiver = assertThrows(
                PlanningException.class,
                () -> ExecutorQuivers.quiver(ArithmeticMode.CHECKED, List.of()).compile(arrow, "no_such_function(x)"));
        PlanningException e =
                assertThrows(PlanningException.class, () -> QuiverDatasets.project(in, "no_such_function(x)"));
        assertEquals(quiver.getMessage(), e.getMessage());
        e = assertThrows(PlanningException.class, () -> QuiverDatasets.project(in, "nope + 1"));
        assertTrue(e.getMessage().contains("nope"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> QuiverDatasets.project(in));
    }

    @Test
    void aColumnQuiverCannotReadIsNamedInTheError() {
        Dataset<Row> in = spark.range(3).selectExpr("array(id) AS arr", "id");
        PlanningException e = assertThrows(PlanningException.class, () -> QuiverDatasets.project(in, "arr"));
        assertTrue(e.getMessage().contains("input columns Quiver cannot read: arr (array<bigint>)"), e.getMessage());
        assertEquals(
                List.of(0L, 2L, 4L),
                QuiverDatasets.project(in, "id * 2 AS y").collectAsList().stream()
                        .map(r -> r.getLong(0))
                        .toList());
    }

    /** A partition that fails on the executor, and one whose consumer stops early, both free their memory (checked after each test). */
    @Test
    void aFailedOrAbandonedPartitionFreesItsMemory() {
        Dataset<Row> in = spark.range(0, 5000, 1, 1).selectExpr("CAST(id AS INT) AS a", "CAST(id - 4000 AS INT) AS b");
        SparkException e = assertThrows(
                SparkException.class,
                () -> QuiverDatasets.project(
                                in, QuiverDatasets.Options.defaults().withBatchRows(1000), "a / b AS q")
                        .collect());
        assertTrue(String.valueOf(e.getMessage()).contains("zero"), e.getMessage());
        List<Row> first = QuiverDatasets.project(
                        in, QuiverDatasets.Options.defaults().withBatchRows(1000), "a + b AS s")
                .limit(3)
                .collectAsList();
        assertEquals(
                List.of(-4000, -3998, -3996),
                first.stream().map(r -> r.getInt(0)).toList());
    }

    @Test
    void anEmptyDatasetAndEmptyPartitions() {
        Dataset<Row> in = spark.range(0, 3, 1, 4).selectExpr("CAST(id AS DOUBLE) AS x");
        assertEquals(
                List.of(1.0, 2.0, 3.0),
                QuiverDatasets.project(in, "x + 1 AS y").collectAsList().stream()
                        .map(r -> r.getDouble(0))
                        .sorted()
                        .toList());
        Dataset<Row> none = in.filter("x > 100");
        assertTrue(QuiverDatasets.project(none, "x + 1 AS y").collectAsList().isEmpty());
        Row literal = QuiverDatasets.project(in.limit(1), "1 + 2 AS three", "NULL AS nothing")
                .collectAsList()
                .getFirst();
        assertEquals(3, ((Number) literal.get(0)).intValue());
        assertNull(literal.get(1));
    }
}
