package dev.quiver.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.kernels.ArithmeticMode;
import dev.quiver.spark.exec.ExecutorQuivers;
import dev.quiver.spark.exec.QuiverExec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.spark.SparkThrowable;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded random Spark SQL expressions over the {@link TestData} table, each query run with the
 * extension and with Spark's own evaluation (the extension switched off in the same session):
 * both must succeed with the same rows ({@link Comparison}), or both fail, with the same error
 * condition where both are Spark's errors. Projections of every type, filters by the boolean
 * ones, and for some a filter and a projection together, a LIMIT, several columns, or the rows
 * after a shuffle; one expression in four in legacy (non-ANSI) mode, some on the OpenCL device
 * where there is one. The generator mixes what Quiver translates with what stays with Spark
 * ({@code upper}, {@code substring}, {@code div}, division by an expression under ANSI, ...), so
 * partial plans and extracted parts are exercised too, with integer overflow and division by zero
 * (on all rows, on a few, or guarded by a condition), NaN, infinities, -0.0 and NULLs.
 *
 * <p>Results that are inexact in both (transcendental functions, within the ulps of {@link
 * Comparison}) are not compared with anything, nor rounded, nor fed to functions that magnify an
 * error of a few ulps: {@code sin(d) = 0.5} may be TRUE in one and FALSE in the other, which is
 * not a disagreement. Where a query can raise two different errors (an overflow and a division by
 * zero), which one comes first depends on the order rows and operands are evaluated in, which
 * Spark does not fix either (its tasks race): both failing is enough there, and is printed.
 *
 * <p>{@code -Dquiver.spark.fuzz.count=N} (120), {@code -Dquiver.spark.fuzz.seed=S} (random, printed
 * first), {@code -Dquiver.spark.fuzz.openClPercent=P} (15) and {@code -Dquiver.spark.fuzz.verbose=true}
 * (every query and its outcome).
 */
class SparkDifferentialFuzzTest {
    static SparkSession spark;

    @TempDir
    static Path dir;

    /** Loggers that print every failed task's stack trace: the queries that fail in both are expected. */
    static final List<String> TASK_LOGGERS =
            List.of("org.apache.spark.executor.Executor", "org.apache.spark.scheduler.TaskSetManager");

    @BeforeAll
    static void start() {
        TASK_LOGGERS.forEach(name -> Configurator.setLevel(name, Level.OFF));
        spark = SparkSessions.start(true);
        String table = TestData.writeParquet(spark, dir, 3_000, 3);
        spark.read().parquet(table).createOrReplaceTempView("t");
        // The same rows after a shuffle: a Quiver node above reads rows, not columns.
        spark.read().parquet(table).repartition(3).createOrReplaceTempView("shuffled");
        QuiverSpark.registerFunctions(spark, TestFunctions.class);
        // Several batches a file: Quiver's per-batch state and Spark's errors across batches.
        spark.conf().set("spark.sql.parquet.columnarReaderBatchSize", "400");
        spark.conf().set(QuiverSparkConf.ROW_BATCH_ROWS, "700");
    }

    @AfterAll
    static void stop() {
        spark.stop();
        TASK_LOGGERS.forEach(name -> Configurator.setLevel(name, (Level) null));
    }

    enum Use {
        FULL,
        PARTIAL,
        NONE
    }

    @Test
    void quiverAgreesWithSparkOnRandomExpressions() {
        long seed = Long.getLong("quiver.spark.fuzz.seed", new SplittableRandom().nextLong());
        int count = Integer.getInteger("quiver.spark.fuzz.count", 120);
        boolean verbose = Boolean.getBoolean("quiver.spark.fuzz.verbose");
        System.out.println(
                "SparkDifferentialFuzzTest: seed " + seed + ", " + count + " expressions (-Dquiver.spark.fuzz.seed="
                        + seed + " to repeat, -Dquiver.spark.fuzz.verbose=true to list them)");
        // Some expressions' Quiver nodes run on the OpenCL device (PoCL in CI), where there is one.
        boolean openCl = !ExecutorQuivers.quiver(ArithmeticMode.CHECKED, List.of())
                .openClDevices()
                .isEmpty();
        int openClPercent = Integer.getInteger("quiver.spark.fuzz.openClPercent", 15);
        SplittableRandom master = new SplittableRandom(seed);
        Tally tally = new Tally(verbose);
        long started = System.nanoTime();
        for (int n = 0; n < count; n++) {
            Generator g = new Generator(master.nextLong());
            boolean legacy = g.r.nextInt(4) == 0;
            boolean onOpenCl = openCl && g.r.nextInt(100) < openClPercent;
            List<Query> queries = queries(g);
            if (legacy) {
                tally.legacy++;
                spark.conf().set("spark.sql.ansi.enabled", "false");
            }
            if (onOpenCl) {
                tally.onOpenCl++;
                spark.conf().set(QuiverSparkConf.PLACEMENT, "opencl");
            }
            try {
                for (int q = 0; q < queries.size(); q++) {
                    Query query = queries.get(q);
                    String where = "seed " + seed + ", expression #" + n + (legacy ? ", legacy mode" : ", ANSI mode")
                            + (onOpenCl ? ", placement opencl" : "") + ": " + query.sql();
                    Outcome own = run(query.sql(), false);
                    Outcome quiver = run(query.sql(), true);
                    assertTrue(own.use == Use.NONE, "switched off, the plan has no Quiver node: " + where);
                    assertAllocatorsAtZero(where);
                    tally.add(q == 0, own, quiver, compare(own, quiver, query.raises()), where);
                }
            } finally {
                spark.conf().unset("spark.sql.ansi.enabled");
                spark.conf().unset(QuiverSparkConf.PLACEMENT);
            }
        }
        System.out.printf(
                "SparkDifferentialFuzzTest: seed %d, %d expressions in %.1f s: %s%n",
                seed, count, (System.nanoTime() - started) / 1e9, tally);
        if (!tally.disagreements.isEmpty()) {
            fail(tally.disagreements.size() + " disagreement(s) between Quiver and Spark (seed " + seed + "):\n\n"
                    + String.join("\n\n", tally.disagreements));
        }
        int total = tally.queries.values().stream().mapToInt(Integer::intValue).sum();
        int withQuiver = tally.queries.get(Use.FULL) + tally.queries.get(Use.PARTIAL);
        assertTrue(
                withQuiver * 100 >= total * 40, "only " + withQuiver + " of " + total + " queries had a Quiver node");
    }

    /** What the queries gave: how much of them Quiver ran, how many failed, the disagreements. */
    static final class Tally {
        final boolean verbose;
        /** Of each expression's first query, its projection. */
        final Map<Use, Integer> projections = new EnumMap<>(Map.of(Use.FULL, 0, Use.PARTIAL, 0, Use.NONE, 0));

        final Map<Use, Integer> queries = new EnumMap<>(projections);
        final List<String> disagreements = new ArrayList<>();
        int legacy;
        int onOpenCl;
        long openClBatches;
        int failedBoth;
        int otherErrorFirst;

        Tally(boolean verbose) {
            this.verbose = verbose;
        }

        void add(boolean projection, Outcome own, Outcome quiver, String problem, String where) {
            if (verbose) {
                System.out.println(quiver.use + " "
                        + (own.error == null ? "ok" : condition(own.error) + "/" + condition(quiver.error)) + " "
                        + where);
            }
            if (problem != null) {
                disagreements.add(where + "\n  " + problem + "\n  Quiver's plan:\n" + quiver.explain.indent(4));
                System.out.println("DISAGREEMENT " + disagreements.getLast());
            } else if (own.error != null
                    && !String.valueOf(condition(own.error)).equals(String.valueOf(condition(quiver.error)))) {
                otherErrorFirst++;
                System.out.println("NOTE both fail, another error first: Spark " + describe(own.error) + "; Quiver "
                        + describe(quiver.error) + "; " + where);
            }
            if (own.error != null && quiver.error != null) {
                failedBoth++;
            }
            queries.merge(quiver.use, 1, Integer::sum);
            if (projection) {
                projections.merge(quiver.use, 1, Integer::sum);
            }
            openClBatches += quiver.openClBatches;
        }

        @Override
        public String toString() {
            return String.format(
                    "%d in legacy mode, %d on OpenCL (%d batches); their projections fully in Quiver %d, partially %d, "
                            + "not at all %d; all %d queries %d / %d / %d; failed in both %d (another of the errors first in Quiver: %d); "
                            + "disagreements %d",
                    legacy,
                    onOpenCl,
                    openClBatches,
                    projections.get(Use.FULL),
                    projections.get(Use.PARTIAL),
                    projections.get(Use.NONE),
                    queries.values().stream().mapToInt(Integer::intValue).sum(),
                    queries.get(Use.FULL),
                    queries.get(Use.PARTIAL),
                    queries.get(Use.NONE),
                    failedBoth,
                    otherErrorFirst,
                    disagreements.size());
        }
    }

    /** A query and the errors it can raise under ANSI mode. */
    record Query(String sql, int raises) {}

    /**
     * The queries of one random expression: its projection (first), a filter by it if it is a
     * boolean, and sometimes one of them under a LIMIT, a filter with a projection, or a projection
     * of several columns; over the Parquet table, or sometimes over its rows after a shuffle (which
     * a Quiver node writes into Arrow itself).
     */
    static List<Query> queries(Generator g) {
        Type type = g.pick(
                Type.DOUBLE,
                Type.DOUBLE,
                Type.DOUBLE,
                Type.BOOLEAN,
                Type.BOOLEAN,
                Type.BOOLEAN,
                Type.INT,
                Type.INT,
                Type.BIGINT,
                Type.FLOAT,
                Type.STRING);
        E expr = g.top(type, 4);
        String table = g.chance(20) ? "shuffled" : "t";
        List<Query> out = new ArrayList<>();
        out.add(new Query("SELECT id, " + expr.sql() + " AS r FROM " + table, expr.raises()));
        if (type == Type.BOOLEAN) {
            out.add(new Query("SELECT id, d, s FROM " + table + " WHERE " + expr.sql(), expr.raises()));
        }
        if (g.chance(25)) {
            E filter = g.gen(Type.BOOLEAN, 2);
            out.add(new Query(
                    "SELECT id, " + expr.sql() + " AS r, e FROM " + table + " WHERE " + filter.sql(),
                    expr.raises() | filter.raises()));
        }
        if (g.chance(15)) {
            // Spark evaluates only the rows a limit takes (the Parquet table's are in the same order every time).
            int limit = g.pick(1, 1, 3, 20);
            out.add(
                    type == Type.BOOLEAN && g.chance(50)
                            ? new Query("SELECT id, d FROM t WHERE " + expr.sql() + " LIMIT " + limit, expr.raises())
                            : new Query("SELECT id, " + expr.sql() + " AS r FROM t LIMIT " + limit, expr.raises()));
        }
        if (g.chance(20)) {
            E other = g.gen(g.pick(Type.values()), 3);
            out.add(new Query(
                    "SELECT id, s, " + other.sql() + " AS q, " + expr.sql() + " AS r, d FROM " + table,
                    expr.raises() | other.raises()));
        }
        return out;
    }

    // ------------------------------------------------------------------------------ running

    /** A query's result or error, and how much of it Quiver ran (with the extension on). */
    record Outcome(List<Row> rows, Throwable error, Use use, String explain, long openClBatches) {}

    static Outcome run(String sql, boolean withQuiver) {
        spark.conf().set(QuiverSparkConf.ENABLED, Boolean.toString(withQuiver));
        Dataset<Row> df = null;
        List<Row> rows = null;
        Throwable error = null;
        try {
            df = spark.sql(sql);
            rows = df.collectAsList();
        } catch (Exception e) {
            error = e;
        } finally {
            spark.conf().set(QuiverSparkConf.ENABLED, "true");
        }
        Use use = Use.NONE;
        String explain = "(no plan)";
        long openClBatches = 0;
        if (df != null) {
            try {
                List<QuiverExec> nodes = QuiverSpark.quiverNodes(df);
                use = nodes.isEmpty() ? Use.NONE : QuiverSpark.fallbacks(df).isEmpty() ? Use.FULL : Use.PARTIAL;
                explain = QuiverSpark.explain(df);
                for (QuiverExec node : nodes) {
                    openClBatches += node.metrics().get("openClBatches").get().value();
                }
            } catch (Exception planning) {
                explain = "(no executed plan: " + planning + ")";
            }
        }
        if (error != null && isInvalidSql(error)) {
            fail("the generator wrote SQL Spark rejects: " + sql + ": " + error.getMessage());
        }
        return new Outcome(rows, error, use, explain, openClBatches);
    }

    /** An analysis error: the generator's fault, not a disagreement. */
    static boolean isInvalidSql(Throwable error) {
        return error instanceof AnalysisException || error instanceof ParseException;
    }

    /**
     * Null when the two outcomes agree, otherwise what differs. Where both fail, the error
     * conditions must be the same, unless both are errors the query can raise ({@code raises}):
     * then which one comes first depends on the order rows and operands are evaluated in.
     */
    static String compare(Outcome own, Outcome quiver, int raises) {
        if (own.error == null && quiver.error == null) {
            try {
                Comparison.assertSameRows(own.rows, quiver.rows, "rows");
                return null;
            } catch (AssertionError differ) {
                return differ.getMessage();
            }
        }
        if (own.error == null) {
            return "Spark succeeds (" + own.rows.size() + " rows), Quiver fails: " + describe(quiver.error);
        }
        if (quiver.error == null) {
            return "Spark fails: " + describe(own.error) + "; Quiver succeeds (" + quiver.rows.size() + " rows)";
        }
        String a = condition(own.error);
        String b = condition(quiver.error);
        boolean bothPossible = (raises & raiseBit(a)) != 0 && (raises & raiseBit(b)) != 0;
        if (a != null && b != null && !a.equals(b) && !bothPossible) {
            return "both fail, with other conditions: Spark " + describe(own.error) + "; Quiver "
                    + describe(quiver.error);
        }
        return null;
    }

    /** The error condition of the first {@link SparkThrowable} with one in {@code t}'s causes. */
    static String condition(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SparkThrowable s && s.getCondition() != null) {
                return s.getCondition();
            }
        }
        return null;
    }

    /** The error's class and the first line of its message (which starts with its condition, if Spark's). */
    static String describe(Throwable t) {
        String message = String.valueOf(t.getMessage());
        int line = message.indexOf('\n');
        return t.getClass().getSimpleName() + ": " + (line < 0 ? message : message.substring(0, line));
    }

    /** A failed query's other tasks are cancelled asynchronously: waits a little for them to release their memory. */
    static void assertAllocatorsAtZero(String where) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (ExecutorQuivers.allocatedBytes() != 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        assertEquals(0, ExecutorQuivers.allocatedBytes(), "Arrow bytes held after the queries' tasks ended: " + where);
    }

    // ------------------------------------------------------------------------------ generating

    enum Type {
        DOUBLE,
        FLOAT,
        INT,
        BIGINT,
        BOOLEAN,
        STRING
    }

    /** Errors an expression can raise under ANSI mode (bits of {@link E#raises}). */
    static final int OVERFLOW = 1;

    static final int DIVIDE = 2;
    static final int REMAINDER = 4;

    /** The bit of {@code condition} among {@link #OVERFLOW}, {@link #DIVIDE}, {@link #REMAINDER}; 0 for others. */
    static int raiseBit(String condition) {
        return switch (String.valueOf(condition)) {
            case "ARITHMETIC_OVERFLOW" -> OVERFLOW;
            case "DIVIDE_BY_ZERO" -> DIVIDE;
            case "REMAINDER_BY_ZERO" -> REMAINDER;
            default -> 0;
        };
    }

    /**
     * A generated expression: its SQL, its Spark type, whether its value is inexact (a
     * transcendental function's, which Spark and Quiver compute within some ulps of each other),
     * and the errors it can raise under ANSI mode.
     */
    record E(String sql, Type type, boolean inexact, int raises) {
        E raising(int bits) {
            return new E(sql, type, inexact, raises | bits);
        }

        E inexactToo() {
            return new E(sql, type, true, raises);
        }
    }

    /** Functions of one double whose result is as exact as their argument (sqrt and these are correctly rounded or exact). */
    static final Set<String> EXACT_FUNCTIONS = Set.of("sqrt", "degrees", "radians", "signum");
    /** Functions that keep a small relative error of their argument small. */
    static final Set<String> WELL_CONDITIONED = Set.of("sqrt", "cbrt", "atan", "tanh", "degrees", "radians");

    static final String[] FUNCTIONS = {
        "sqrt", "cbrt", "exp", "ln", "log10", "log2", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
        "tanh", "degrees", "radians", "signum"
    };
    static final String[] DOUBLE_LITERALS = {
        "0.0D",
        "(-0.0D)",
        "1.0D",
        "(-1.0D)",
        "0.5D",
        "2.5D",
        "(-2.5D)",
        "3.0D",
        "(-7.25D)",
        "100.0D",
        "1.0E300D",
        "(-1.0E300D)",
        "4.9E-324D",
        "0.49999999999999994D",
        "4503599627370497.0D",
        "9.2233720368547758E18D",
        "(-9.2233720368547758E18D)",
        "double('NaN')",
        "double('Infinity')",
        "double('-Infinity')",
        "CAST(NULL AS DOUBLE)"
    };
    static final String[] NONZERO_DOUBLE_LITERALS = {
        "1.0D",
        "(-1.0D)",
        "0.5D",
        "2.5D",
        "3.0D",
        "(-7.25D)",
        "100.0D",
        "1.0E-300D",
        "double('NaN')",
        "double('Infinity')"
    };
    static final String[] FLOAT_LITERALS = {
        "CAST(0.0D AS FLOAT)",
        "CAST(-0.0D AS FLOAT)",
        "CAST(1.5D AS FLOAT)",
        "CAST(-3.25D AS FLOAT)",
        "CAST(1.0E30D AS FLOAT)",
        "float('NaN')",
        "float('-Infinity')",
        "CAST(NULL AS FLOAT)"
    };
    static final String[] INT_LITERALS = {"0", "1", "(-1)", "2", "3", "7", "(-13)", "100", "1000"};
    static final String[] BOUNDARY_INT_LITERALS = {
        "2147483647", "CAST(-2147483648 AS INT)", "46341", "65536", "CAST(NULL AS INT)"
    };
    static final String[] BIGINT_LITERALS = {
        "0L",
        "1L",
        "(-1L)",
        "7L",
        "1000000L",
        "10000000000L",
        "9223372036854775807L",
        "CAST(-9223372036854775808 AS BIGINT)",
        "3037000500L",
        "CAST(NULL AS BIGINT)"
    };
    static final String[] STRING_LITERALS = {
        "'apple'",
        "''",
        "'a'",
        "'ap'",
        "'banana7'",
        "'Ünïcödé'",
        "'日本語'",
        "'it\\'s'",
        "'x_y'",
        "'abc%x'",
        "'zzz'",
        "'😀'",
        "'ﬀ'",
        "'x\\\\y'",
        "CAST(NULL AS STRING)"
    };
    static final String[] LIKE_PATTERNS = {
        "'a%'",
        "'%an%'",
        "'_'",
        "'%'",
        "''",
        "'ap_%'",
        "'%7'",
        "'x\\\\_y%'",
        "'abc\\\\%x%'",
        "'%日%'",
        "'Ü%'",
        "'%a_c%'",
        "'__'",
        "'%\\\\%%'",
        "'x\\\\\\\\y'",
        "'x/_y%' ESCAPE '/'",
        "'abc/%%' ESCAPE '/'",
        "'%//%' ESCAPE '/'"
    };
    static final String[] COMPARISONS = {"=", "<>", "!=", "<", "<=", ">", ">=", "<=>"};

    /** Random typed Spark SQL over the table's columns; everything it writes passes Spark's analysis. */
    static final class Generator {
        final SplittableRandom r;

        Generator(long seed) {
            r = new SplittableRandom(seed);
        }

        boolean chance(int percent) {
            return r.nextInt(100) < percent;
        }

        @SafeVarargs
        final <X> X pick(X... xs) {
            return xs[r.nextInt(xs.length)];
        }

        static E of(Type t, String sql, E... parts) {
            boolean inexact = false;
            int raises = 0;
            for (E p : parts) {
                inexact |= p.inexact();
                raises |= p.raises();
            }
            return new E(sql, t, inexact, raises);
        }

        E gen(Type t, int depth) {
            // Strings are mostly columns and literals: Quiver computes little on them.
            if (depth <= 0 || chance(t == Type.STRING ? 60 : 15)) {
                return leaf(t);
            }
            return top(t, depth);
        }

        /** An expression of {@code t} that is not a column or a literal. */
        E top(Type t, int depth) {
            return switch (t) {
                case DOUBLE -> doubleExpr(depth - 1);
                case FLOAT -> floatExpr(depth - 1);
                case INT -> intExpr(depth - 1);
                case BIGINT -> bigintExpr(depth - 1);
                case BOOLEAN -> booleanExpr(depth - 1);
                case STRING -> stringExpr(depth - 1);
            };
        }

        /** An expression whose value is exact in both (no transcendental result in it). */
        E exact(Type t, int depth) {
            for (int tries = 0; tries < 5; tries++) {
                E e = gen(t, depth);
                if (!e.inexact()) {
                    return e;
                }
            }
            return leaf(t);
        }

        Type numeric() {
            return pick(Type.DOUBLE, Type.DOUBLE, Type.FLOAT, Type.INT, Type.INT, Type.BIGINT);
        }

        E leaf(Type t) {
            if (chance(8)) {
                // A literal's value that Spark's optimizer cannot fold into what is around it: k is below 100 on
                // every row, and Spark pushes an operation with a literal only into a CASE of literals but one.
                String[] columns = switch (t) {
                    case DOUBLE -> new String[] {"d", "e"};
                    case FLOAT -> new String[] {"f", "(- f)"};
                    case INT -> new String[] {"i", "k"};
                    case BIGINT -> new String[] {"j", "CAST(k AS BIGINT)"};
                    case BOOLEAN -> new String[] {"b", "(NOT b)"};
                    case STRING -> new String[] {"s", "IF(b, s, 'z')"};
                };
                return of(
                        t,
                        "CASE WHEN k < 100 THEN " + literal(t).sql() + " WHEN k < 200 THEN " + columns[0] + " ELSE "
                                + columns[1] + " END");
            }
            return switch (t) {
                case DOUBLE -> chance(70) ? of(t, pick("d", "d", "e")) : literal(t);
                case FLOAT -> chance(70) ? of(t, "f") : literal(t);
                case INT -> chance(65) ? of(t, pick("i", "k", "k")) : literal(t);
                case BIGINT -> chance(60) ? of(t, pick("j", "CAST(i AS BIGINT)", "CAST(k AS BIGINT)")) : literal(t);
                case BOOLEAN -> chance(60) ? of(t, "b") : literal(t);
                case STRING -> chance(70) ? of(t, "s") : literal(t);
            };
        }

        E literal(Type t) {
            boolean random = chance(30);
            return of(
                    t,
                    switch (t) {
                        case DOUBLE -> random ? "(" + r.nextDouble(-1000, 1000) + "D)" : pick(DOUBLE_LITERALS);
                        case FLOAT -> pick(FLOAT_LITERALS);
                        case INT ->
                            random
                                    ? "(" + r.nextInt(-1_000_000, 1_000_000) + ")"
                                    : chance(15) ? pick(BOUNDARY_INT_LITERALS) : pick(INT_LITERALS);
                        case BIGINT ->
                            random
                                    ? "(" + r.nextLong(-1_000_000_000_000L, 1_000_000_000_000L) + "L)"
                                    : pick(BIGINT_LITERALS);
                        case BOOLEAN -> pick("true", "false", "CAST(NULL AS BOOLEAN)");
                        case STRING -> random ? "'" + word() + "'" : pick(STRING_LITERALS);
                    });
        }

        /** A string like the table's: one of its words, perhaps with a number after it, or a part of one. */
        String word() {
            String w = pick(TestData.WORDS) + (chance(50) ? "" : Integer.toString(r.nextInt(100)));
            int from = chance(70) ? 0 : r.nextInt(w.length() + 1);
            return w.substring(from, from + r.nextInt(w.length() - from + 1))
                    .replace("\\", "\\\\")
                    .replace("'", "\\'");
        }

        /** A LIKE pattern: characters of the table's words, wildcards and escaped wildcards (escape {@code \\}). */
        String likePattern() {
            if (chance(40)) {
                return pick(LIKE_PATTERNS);
            }
            StringBuilder p = new StringBuilder("'");
            int n = r.nextInt(6);
            for (int k = 0; k < n; k++) {
                p.append(pick("%", "%", "_", "a", "p", "n", "1", "7", "日", "ö", "x", "\\\\%", "\\\\_", "\\\\\\\\"));
            }
            return p.append("'").toString();
        }

        /** CASE, IF or coalesce over values of {@code t}. */
        E conditional(Type t, int depth) {
            E a = gen(t, depth);
            E b = gen(t, depth);
            return switch (r.nextInt(3)) {
                case 0 -> {
                    E w1 = guard(depth);
                    if (chance(50)) {
                        yield of(
                                t,
                                "CASE WHEN " + w1.sql() + " THEN " + a.sql() + " ELSE " + b.sql() + " END",
                                w1,
                                a,
                                b);
                    }
                    E w2 = guard(depth);
                    String branches =
                            "CASE WHEN " + w1.sql() + " THEN " + a.sql() + " WHEN " + w2.sql() + " THEN " + b.sql();
                    if (chance(30)) {
                        yield of(t, branches + " END", w1, w2, a, b);
                    }
                    E c = gen(t, depth);
                    yield of(t, branches + " ELSE " + c.sql() + " END", w1, w2, a, b, c);
                }
                case 1 -> {
                    E w = guard(depth);
                    yield of(t, "IF(" + w.sql() + ", " + a.sql() + ", " + b.sql() + ")", w, a, b);
                }
                default -> {
                    if (chance(50)) {
                        E c = gen(t, depth);
                        yield of(t, "coalesce(" + a.sql() + ", " + b.sql() + ", " + c.sql() + ")", a, b, c);
                    }
                    yield of(t, "coalesce(" + a.sql() + ", " + b.sql() + ")", a, b);
                }
            };
        }

        /** A CASE's or IF's condition. */
        E guard(int depth) {
            return exact(Type.BOOLEAN, Math.min(depth, 2));
        }

        /** greatest or least of 2 or 3 values of {@code t}. */
        E extreme(Type t, int depth) {
            String f = pick("greatest", "least");
            return chance(40)
                    ? call(t, f, gen(t, depth), gen(t, depth), gen(t, depth))
                    : call(t, f, gen(t, depth), gen(t, depth));
        }

        /** {@code f(args)}. */
        static E call(Type t, String f, E... args) {
            return of(
                    t,
                    f + "(" + String.join(", ", Arrays.stream(args).map(E::sql).toList()) + ")",
                    args);
        }

        static E negate(E a) {
            return of(a.type(), "(- " + a.sql() + ")", a);
        }

        /** a op b or b op a. */
        E binary(Type t, E a, String op, E b) {
            return chance(50)
                    ? of(t, "(" + a.sql() + " " + op + " " + b.sql() + ")", a, b)
                    : of(t, "(" + b.sql() + " " + op + " " + a.sql() + ")", a, b);
        }

        E doubleExpr(int depth) {
            Type t = Type.DOUBLE;
            switch (r.nextInt(18)) {
                case 0, 1, 2 -> {
                    return binary(t, gen(t, depth), pick("+", "-", "*"), gen(numeric(), depth));
                }
                case 3 -> {
                    // Spark's / is a double's (integers', floats' too); by a non-zero literal, or by an expression.
                    E a = gen(numeric(), depth);
                    if (chance(60)) {
                        return of(t, "(" + a.sql() + " / " + pick(NONZERO_DOUBLE_LITERALS) + ")", a);
                    }
                    E b = exact(numeric(), depth);
                    if (chance(25)) {
                        return of(t, "try_divide(" + a.sql() + ", " + b.sql() + ")", a, b);
                    }
                    return of(t, "(" + a.sql() + " / " + b.sql() + ")", a, b).raising(DIVIDE);
                }
                case 4 -> {
                    E a = exact(t, depth);
                    if (chance(60)) {
                        return of(t, "(" + a.sql() + " % " + pick(NONZERO_DOUBLE_LITERALS) + ")", a);
                    }
                    E b = exact(t, depth);
                    return of(t, "(" + a.sql() + " % " + b.sql() + ")", a, b).raising(REMAINDER);
                }
                case 5 -> {
                    return negate(gen(t, depth));
                }
                case 6, 7, 8 -> {
                    String f = pick(FUNCTIONS);
                    E a = gen(numeric(), depth);
                    if (a.inexact() && !WELL_CONDITIONED.contains(f)) {
                        a = exact(numeric(), depth);
                    }
                    E call = of(t, f + "(" + a.sql() + ")", a);
                    return EXACT_FUNCTIONS.contains(f) ? call : call.inexactToo();
                }
                case 9 -> {
                    String f = pick("atan2", "pow", "hypot", "my_hypot");
                    boolean exactArgs = f.equals("atan2") || f.equals("pow");
                    E a = exactArgs ? exact(t, depth) : gen(t, depth);
                    // my_hypot's parameters are both floats or both doubles (integers are cast to double).
                    Type second = f.equals("my_hypot") ? pick(Type.DOUBLE, Type.INT, Type.BIGINT) : numeric();
                    E b = exactArgs ? exact(second, depth) : gen(second, depth);
                    if (f.equals("pow") && chance(50)) {
                        b = of(t, pick("2.0D", "3", "0.5D", "(-1.0D)", "0.0D", "10.0D"));
                    }
                    return of(t, f + "(" + a.sql() + ", " + b.sql() + ")", a, b).inexactToo();
                }
                case 10 -> {
                    return call(t, "abs", gen(t, depth));
                }
                case 11 -> {
                    return extreme(t, depth);
                }
                case 12 -> {
                    return call(t, "round", exact(t, depth));
                }
                case 13 -> {
                    return call(t, "nanvl", gen(t, depth), gen(t, depth));
                }
                case 14, 15 -> {
                    return conditional(t, depth);
                }
                case 16 -> {
                    E a = gen(pick(Type.INT, Type.BIGINT, Type.FLOAT), depth);
                    return of(t, "CAST(" + a.sql() + " AS DOUBLE)", a);
                }
                default -> {
                    // Spark only: round to a scale, or a number made from strings Quiver does not take.
                    if (chance(50)) {
                        E a = exact(t, depth);
                        return of(t, "round(" + a.sql() + ", " + pick("1", "2", "-1") + ")", a);
                    }
                    E a = gen(t, depth);
                    E s = gen(Type.STRING, depth);
                    return binary(
                            t,
                            a,
                            pick("+", "*"),
                            of(Type.INT, "length(" + pick("upper", "lower") + "(" + s.sql() + "))", s));
                }
            }
        }

        E floatExpr(int depth) {
            Type t = Type.FLOAT;
            switch (r.nextInt(11)) {
                case 0, 1 -> {
                    return binary(t, gen(t, depth), pick("+", "-", "*"), gen(t, depth));
                }
                case 2 -> {
                    // (A float / is a double in Spark.)
                    E a = exact(t, depth);
                    return of(t, "(" + a.sql() + " % " + pick("CAST(3.0D AS FLOAT)", "CAST(-0.5D AS FLOAT)") + ")", a);
                }
                case 3 -> {
                    return negate(gen(t, depth));
                }
                case 4 -> {
                    return call(t, "abs", gen(t, depth));
                }
                case 5 -> {
                    return extreme(t, depth);
                }
                case 6 -> {
                    return call(t, "nanvl", gen(t, depth), gen(t, depth));
                }
                case 7, 8 -> {
                    return conditional(t, depth);
                }
                case 9 -> {
                    E a = gen(pick(Type.INT, Type.BIGINT), depth);
                    return of(t, "CAST(" + a.sql() + " AS FLOAT)", a);
                }
                default -> {
                    return call(t, "my_hypot", gen(t, depth), gen(t, depth)).inexactToo();
                }
            }
        }

        /** Integer productions of INT or BIGINT ({@code small}: INT, else BIGINT). */
        E integerExpr(Type t, int depth) {
            boolean small = t == Type.INT;
            switch (r.nextInt(14)) {
                case 0, 1, 2 -> {
                    E a = gen(t, depth);
                    E b = gen(small ? t : pick(Type.INT, Type.BIGINT), depth);
                    return binary(t, a, chance(30) ? "*" : pick("+", "-"), b).raising(OVERFLOW);
                }
                case 3 -> {
                    E a = gen(t, depth);
                    if (chance(50)) {
                        return of(t, "(" + a.sql() + " % " + pick("7", "(-3)", "2", "1000", "(-1)") + ")", a);
                    }
                    E b = gen(t, depth);
                    return of(t, "(" + a.sql() + " % " + b.sql() + ")", a, b).raising(REMAINDER);
                }
                case 4 -> {
                    return negate(gen(t, depth)).raising(OVERFLOW);
                }
                case 5 -> {
                    return call(t, "abs", gen(t, depth)).raising(OVERFLOW);
                }
                case 6 -> {
                    return extreme(t, depth);
                }
                case 7, 8 -> {
                    return conditional(t, depth);
                }
                case 9 -> {
                    if (chance(50)) {
                        // Raises on a few rows only: k is c on about 2% of them, |i| or |j| near the largest on 3-7%.
                        if (chance(50)) {
                            E x = gen(t, depth);
                            return of(t, "(" + x.sql() + " % (k - " + r.nextInt(50) + "))", x)
                                    .raising(REMAINDER);
                        }
                        return small
                                ? of(t, "(i * " + r.nextInt(2150, 2300) + ")").raising(OVERFLOW)
                                : of(t, "(j * " + r.nextInt(9_300_000, 10_000_000) + ")")
                                        .raising(OVERFLOW);
                    }
                    // What Spark evaluates only on the rows a condition guards.
                    E x = gen(t, depth);
                    E y = gen(t, depth);
                    String bound = small ? "40000" : "3000000000";
                    return of(
                                    t,
                                    pick(
                                            "CASE WHEN " + x.sql() + " BETWEEN -" + bound + " AND " + bound + " THEN "
                                                    + x.sql() + " * " + x.sql() + " ELSE " + y.sql() + " END",
                                            "IF(" + x.sql() + " <> 0, " + y.sql() + " % " + x.sql() + ", " + x.sql()
                                                    + ")",
                                            "coalesce(" + x.sql() + ", " + y.sql() + " * " + y.sql() + ")",
                                            "IF(" + x.sql() + " > 0 AND " + x.sql() + " < 1000, " + x.sql()
                                                    + " * 2000000, " + y.sql() + ")"),
                                    x,
                                    y)
                            .raising(OVERFLOW | REMAINDER);
                }
                case 10 -> {
                    if (small) {
                        return call(t, "length", gen(Type.STRING, depth));
                    }
                    E a = gen(Type.INT, depth);
                    return of(t, "CAST(" + a.sql() + " AS BIGINT)", a);
                }
                case 11 -> {
                    if (small) {
                        return call(t, "length", gen(Type.STRING, depth));
                    }
                    return call(
                            t, pick("floor", "ceil"), chance(75) ? exact(Type.DOUBLE, depth) : gen(Type.BIGINT, depth));
                }
                case 12 -> {
                    // NULL instead of an error: Spark's TRY mode, Quiver's try_ functions.
                    return call(
                            t,
                            pick("try_add", "try_subtract", "try_multiply", "try_mod"),
                            gen(t, depth),
                            gen(small ? t : pick(Type.INT, Type.BIGINT), depth));
                }
                default -> {
                    // Spark only.
                    if (!small) {
                        E a = gen(pick(Type.INT, Type.BIGINT), depth);
                        if (chance(50)) {
                            return of(t, "(" + a.sql() + " div " + pick("7", "(-2)", "1000L") + ")", a)
                                    .raising(OVERFLOW);
                        }
                        E b = gen(Type.INT, depth);
                        return of(t, "(" + a.sql() + " div " + b.sql() + ")", a, b)
                                .raising(OVERFLOW | DIVIDE);
                    }
                    E s = gen(Type.STRING, depth);
                    return of(
                            t,
                            pick(
                                    "length(upper(" + s.sql() + "))",
                                    "length(substring(" + s.sql() + ", 2, 3))",
                                    "length(concat(" + s.sql() + ", 'xy'))",
                                    "instr(" + s.sql() + ", 'a')"),
                            s);
                }
            }
        }

        E intExpr(int depth) {
            return integerExpr(Type.INT, depth);
        }

        E bigintExpr(int depth) {
            return integerExpr(Type.BIGINT, depth);
        }

        E booleanExpr(int depth) {
            Type t = Type.BOOLEAN;
            switch (r.nextInt(16)) {
                case 0, 1, 2 -> {
                    E a = exact(numeric(), depth);
                    E b = chance(40) ? leaf(numeric()) : exact(numeric(), depth);
                    return of(t, "(" + a.sql() + " " + pick(COMPARISONS) + " " + b.sql() + ")", a, b);
                }
                case 3 -> {
                    Type u = pick(Type.STRING, Type.BOOLEAN);
                    E a = gen(u, depth);
                    E b = gen(u, depth);
                    return of(t, "(" + a.sql() + " " + pick(COMPARISONS) + " " + b.sql() + ")", a, b);
                }
                case 4, 5 -> {
                    E a = gen(t, depth);
                    E b = gen(t, depth);
                    return of(t, "(" + a.sql() + " " + pick("AND", "OR") + " " + b.sql() + ")", a, b);
                }
                case 6 -> {
                    E a = gen(t, depth);
                    return of(t, "(NOT " + a.sql() + ")", a);
                }
                case 7 -> {
                    E a = gen(pick(Type.values()), depth);
                    return of(t, "(" + a.sql() + pick(" IS NULL", " IS NOT NULL") + ")", a);
                }
                case 8 -> {
                    // Spark's optimizer makes a list of more than 10 literals an InSet.
                    Type u = pick(Type.INT, Type.INT, Type.BIGINT, Type.DOUBLE, Type.STRING);
                    E a = exact(u, depth);
                    List<E> items = new ArrayList<>(List.of(a));
                    int n = chance(20) ? 11 + r.nextInt(4) : 1 + r.nextInt(5);
                    for (int k = 0; k < n; k++) {
                        items.add(chance(75) || n > 10 ? literal(u) : exact(u, depth));
                    }
                    String list = String.join(
                            ", ",
                            items.subList(1, items.size()).stream().map(E::sql).toList());
                    return of(
                            t,
                            "(" + a.sql() + (chance(20) ? " NOT IN (" : " IN (") + list + "))",
                            items.toArray(E[]::new));
                }
                case 9 -> {
                    Type u = numeric();
                    E a = exact(u, depth);
                    E lo = leaf(u);
                    E hi = exact(u, depth);
                    return of(
                            t,
                            "(" + a.sql() + (chance(20) ? " NOT BETWEEN " : " BETWEEN ") + lo.sql() + " AND " + hi.sql()
                                    + ")",
                            a,
                            lo,
                            hi);
                }
                case 10 -> {
                    E a = gen(pick(Type.DOUBLE, Type.FLOAT), depth);
                    return of(t, "isnan(" + a.sql() + ")", a);
                }
                case 11 -> {
                    E s = gen(Type.STRING, depth);
                    return of(t, "(" + s.sql() + (chance(20) ? " NOT LIKE " : " LIKE ") + likePattern() + ")", s);
                }
                case 12 -> {
                    E s = gen(Type.STRING, depth);
                    E p = chance(70) ? literal(Type.STRING) : gen(Type.STRING, depth);
                    return of(
                            t, pick("startswith", "endswith", "contains") + "(" + s.sql() + ", " + p.sql() + ")", s, p);
                }
                case 13, 14 -> {
                    return conditional(t, depth);
                }
                default -> {
                    // Spark only: strings Quiver does not compute, or a pattern that is not a literal.
                    E s = gen(Type.STRING, depth);
                    return of(
                            t,
                            pick(
                                    "(upper(" + s.sql() + ") = 'APPLE')",
                                    "(substring(" + s.sql() + ", 1, 1) = 'a')",
                                    "(" + s.sql() + " LIKE concat(substring(s, 1, 2), '%'))",
                                    "(lower(" + s.sql() + ") < 'b')"),
                            s);
                }
            }
        }

        E stringExpr(int depth) {
            Type t = Type.STRING;
            if (chance(60)) {
                return conditional(t, depth);
            }
            // Spark only.
            E s = gen(t, depth);
            E s2 = gen(t, depth);
            return of(
                    t,
                    pick(
                            "upper(" + s.sql() + ")",
                            "lower(" + s.sql() + ")",
                            "substring(" + s.sql() + ", 2, 3)",
                            "concat(" + s.sql() + ", " + s2.sql() + ")"),
                    s,
                    s2);
        }
    }
}
