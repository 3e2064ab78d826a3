package dev.quiver.spark;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * A Parquet table written by the tests: doubles (NaN, ±0, ±Infinity, subnormals, nulls), ints and
 * longs (nulls; magnitudes that cannot overflow the tests' arithmetic), strings (nulls, empty,
 * non-ASCII), booleans; several files, so several partitions and batches.
 */
final class TestData {
    static final StructType SCHEMA = new StructType()
            .add("id", DataTypes.LongType, false)
            .add("d", DataTypes.DoubleType, true)
            .add("e", DataTypes.DoubleType, true)
            .add("f", DataTypes.FloatType, true)
            .add("i", DataTypes.IntegerType, true)
            .add("j", DataTypes.LongType, true)
            .add("k", DataTypes.IntegerType, false)
            .add("s", DataTypes.StringType, true)
            .add("b", DataTypes.BooleanType, true);

    private static final double[] SPECIAL = {
        Double.NaN,
        0.0,
        -0.0,
        Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY,
        Double.MIN_VALUE,
        -Double.MIN_VALUE,
        1e300,
        -1e300,
        1.0,
        -1.0,
        0.5,
        Math.PI
    };
    static final String[] WORDS = {"apple", "banana", "", "Ünïcödé", "日本語", "abc%x", "x_y", "a", "zzz", "apricot"};

    private TestData() {}

    static List<Row> rows(int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        List<Row> rows = new ArrayList<>(n);
        for (int id = 0; id < n; id++) {
            Double d = r.nextInt(20) == 0
                    ? null
                    : r.nextInt(10) == 0 ? SPECIAL[r.nextInt(SPECIAL.length)] : r.nextDouble(-1000, 1000);
            Double e = r.nextInt(15) == 0
                    ? null
                    : r.nextInt(12) == 0 ? SPECIAL[r.nextInt(SPECIAL.length)] : r.nextDouble(-10, 10);
            Float f = r.nextInt(10) == 0 ? null : (float) r.nextDouble(-100, 100);
            Integer i = r.nextInt(10) == 0 ? null : r.nextInt(-1_000_000, 1_000_000);
            Long j = r.nextInt(10) == 0 ? null : r.nextLong(-1_000_000_000_000L, 1_000_000_000_000L);
            int k = r.nextInt(0, 50);
            String s = r.nextInt(8) == 0
                    ? null
                    : WORDS[r.nextInt(WORDS.length)] + (r.nextBoolean() ? "" : Integer.toString(r.nextInt(100)));
            Boolean b = r.nextInt(7) == 0 ? null : r.nextBoolean();
            rows.add(RowFactory.create((long) id, d, e, f, i, j, k, s, b));
        }
        return rows;
    }

    /** Writes {@code n} rows as Parquet in {@code files} files under {@code dir}; returns the path. */
    static String writeParquet(SparkSession spark, Path dir, int n, int files) {
        String path = dir.resolve("table-" + n).toString();
        spark.createDataFrame(rows(n, 42), SCHEMA)
                .repartition(files)
                .write()
                .mode("overwrite")
                .parquet(path);
        return path;
    }
}
