package dev.quiver.tests;

import static dev.quiver.tests.TestColumns.and;
import static dev.quiver.tests.TestColumns.ge;
import static dev.quiver.tests.TestColumns.gt;
import static dev.quiver.tests.TestColumns.lt;
import static dev.quiver.tests.TestColumns.or;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Device;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.functions.ArrayFunctions;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.kernels.ArithmeticMode;
import dev.quiver.physical.BinaryExpr;
import dev.quiver.physical.CaseExpr;
import dev.quiver.physical.PhysicalExpr;
import dev.quiver.types.DataType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Lazy evaluation of AND/OR chains and CASE, against per-row references computed here from the
 * input data. A registered function {@code probe(x)} (x > 0.5, NULL for NULL) counts the rows it
 * is invoked on, so short-circuiting is proven by counts, not only by results: a function call is
 * never cheap, so it runs only on the rows whose result is still undecided. Cheap terms may run on
 * the whole batch or on the undecided rows (by the share undecided): their results must not
 * depend on which. Guarded integer divisions must never see their zero divisors.
 *
 * <p>Random data is seeded; replay with {@code -Dquiver.seed=<seed>} (printed per test).
 */
class LazyEvaluationTest extends QuiverTestBase {
    /** Fixed by default so CI runs the same rows every time; pass -Dquiver.seed=random (or a number) to explore. */
    static final long SEED = "random".equals(System.getProperty("quiver.seed"))
            ? System.nanoTime()
            : Long.getLong("quiver.seed", 20261201L);

    private final AtomicLong probed = new AtomicLong();
    private Random random;

    /** {@code probe(x DOUBLE) -> BOOLEAN}: x > 0.5, NULL for NULL; adds the rows of each call to {@code rows}. */
    static ScalarFunction probe(AtomicLong rows) {
        return ArrayFunctions.adapt(
                "probe",
                Signature.uniform(1, List.of(DataType.FLOAT64), Volatility.IMMUTABLE),
                types -> DataType.BOOLEAN,
                (arrays, call) -> {
                    Float8Vector x = (Float8Vector) arrays.get(0);
                    int n = call.numberRows();
                    assertEquals(n, x.getValueCount(), "probe's argument has the call's rows");
                    rows.addAndGet(n);
                    BitVector out = new BitVector("probe", call.config().allocator());
                    out.allocateNew(n);
                    for (int i = 0; i < n; i++) {
                        if (x.isNull(i)) {
                            out.setNull(i);
                        } else {
                            out.set(i, x.get(i) > 0.5 ? 1 : 0);
                        }
                    }
                    out.setValueCount(n);
                    return out;
                });
    }

    /** What probe computes, for the references. */
    static Boolean probe(Double x) {
        return x == null ? null : x > 0.5;
    }

    @BeforeEach
    void registerProbe(TestInfo test) {
        quiver.functions().register(probe(probed));
        random = new Random(SEED);
        System.out.println("LazyEvaluationTest."
                + test.getTestMethod().map(m -> m.getName()).orElse("?") + " seed " + SEED
                + " (replay with -Dquiver.seed=" + SEED + ")");
    }

    // ---------------------------------------------------------------------------------------------
    // Data
    // ---------------------------------------------------------------------------------------------

    /** Columns a (Int32), b and c (Float64), bb (Boolean) of one batch, as Java values and as the batch. */
    record Abc(Integer[] a, Double[] b, Double[] c, Boolean[] bb, VectorSchemaRoot batch) implements AutoCloseable {
        int rows() {
            return a.length;
        }

        @Override
        public void close() {
            batch.close();
        }
    }

    private Abc abc(Integer[] a) {
        int n = a.length;
        Double[] b = new Double[n];
        Double[] c = new Double[n];
        Boolean[] bb = new Boolean[n];
        for (int i = 0; i < n; i++) {
            b[i] = random.nextInt(10) == 0 ? null : unitDouble();
            c[i] = random.nextInt(10) == 0 ? null : unitDouble();
            bb[i] = random.nextInt(8) == 0 ? null : random.nextBoolean();
        }
        return new Abc(
                a,
                b,
                c,
                bb,
                TestColumns.batch(
                        n,
                        TestColumns.of(allocator, "a", DataType.INT32, Arrays.asList(a), random::nextInt),
                        TestColumns.of(allocator, "b", DataType.FLOAT64, Arrays.asList(b), random::nextGaussian),
                        TestColumns.of(allocator, "c", DataType.FLOAT64, Arrays.asList(c), random::nextGaussian),
                        TestColumns.of(allocator, "bb", DataType.BOOLEAN, Arrays.asList(bb), random::nextBoolean)));
    }

    /** Mostly [0, 1), sometimes NaN, -0.0 or 0.5 exactly. */
    private double unitDouble() {
        return switch (random.nextInt(40)) {
            case 0 -> Double.NaN;
            case 1 -> -0.0;
            case 2 -> 0.5;
            default -> random.nextDouble();
        };
    }

    private int between(int lo, int hi) {
        return lo + random.nextInt(hi - lo + 1);
    }

    /** How the column a of a short-circuit scenario is drawn, row by row. */
    enum Scenario {
        /** Every a is at most 10, none NULL: a > 10 is FALSE everywhere. */
        NONE_PASS,
        /** Every a is above 10, none NULL. */
        ALL_PASS,
        /** About 10% above 10, 5% NULL, the rest at most 10. */
        TEN_PERCENT_WITH_NULLS,
        /** Every a NULL: a > 10 is NULL everywhere. */
        ALL_NULL
    }

    private Integer[] column(Scenario s, int n) {
        Integer[] a = new Integer[n];
        for (int i = 0; i < n; i++) {
            a[i] = switch (s) {
                case NONE_PASS -> between(-1000, 10);
                case ALL_PASS -> between(11, 1000);
                case ALL_NULL -> null;
                case TEN_PERCENT_WITH_NULLS -> {
                    double d = random.nextDouble();
                    yield d < 0.05 ? null : d < 0.15 ? between(11, 1000) : between(-1000, 10);
                }
            };
        }
        return a;
    }

    private static Boolean above(Integer l, int r) {
        return l == null ? null : l > r;
    }

    // ---------------------------------------------------------------------------------------------
    // Evaluation
    // ---------------------------------------------------------------------------------------------

    /** The rows of {@code e} over {@code batch} on the CPU, with the probe's row count reset first. */
    private List<Object> evaluate(CompiledExpression e, VectorSchemaRoot batch) {
        probed.set(0);
        return TestColumns.valuesAndClose(e.evaluate(batch, Placement.CPU, allocator));
    }

    private static List<Object> reference(int rows, IntFunction<Object> row) {
        List<Object> out = new ArrayList<>(rows);
        for (int i = 0; i < rows; i++) {
            out.add(row.apply(i));
        }
        return out;
    }

    private static long count(int rows, IntPredicate p) {
        long n = 0;
        for (int i = 0; i < rows; i++) {
            if (p.test(i)) {
                n++;
            }
        }
        return n;
    }

    private static final int[] SHORT_CIRCUIT_SIZES = {0, 1, 65, 10_000};

    // ---------------------------------------------------------------------------------------------
    // Short-circuit, proven by the probe's row counts
    // ---------------------------------------------------------------------------------------------

    @Test
    void andRunsItsCostlyTermOnlyOnRowsTheFirstLeavesUndecided() {
        for (int n : SHORT_CIRCUIT_SIZES) {
            for (Scenario s : Scenario.values()) {
                try (Abc d = abc(column(s, n))) {
                    CompiledExpression e = quiver.compile(d.batch().getSchema(), "a > 10 AND probe(b)");
                    List<Object> got = evaluate(e, d.batch());
                    String what = "a > 10 AND probe(b), " + s + ", " + n + " rows, seed " + SEED;
                    assertEquals(reference(n, i -> and(above(d.a()[i], 10), probe(d.b()[i]))), got, what);
                    // probe runs where a > 10 is TRUE or NULL (not FALSE), and nowhere else.
                    long expected = count(n, i -> !Boolean.FALSE.equals(above(d.a()[i], 10)));
                    assertEquals(expected, probed.get(), what);
                    switch (s) {
                        case NONE_PASS ->
                            assertEquals(0, probed.get(), what + ": every row is decided FALSE by a > 10");
                        case ALL_PASS, ALL_NULL ->
                            assertEquals(n, probed.get(), what + ": no row is decided by a > 10");
                        case TEN_PERCENT_WITH_NULLS ->
                            assertTrue(n < 1000 || probed.get() < n / 4, what + ": " + probed.get());
                    }
                }
            }
        }
    }

    @Test
    void orRunsItsCostlyTermOnlyOnRowsTheFirstLeavesUndecided() {
        for (int n : SHORT_CIRCUIT_SIZES) {
            for (Scenario s : Scenario.values()) {
                try (Abc d = abc(column(s, n))) {
                    CompiledExpression e = quiver.compile(d.batch().getSchema(), "a > 10 OR probe(b)");
                    List<Object> got = evaluate(e, d.batch());
                    String what = "a > 10 OR probe(b), " + s + ", " + n + " rows, seed " + SEED;
                    assertEquals(reference(n, i -> or(above(d.a()[i], 10), probe(d.b()[i]))), got, what);
                    // probe runs where a > 10 is FALSE or NULL (not TRUE).
                    long expected = count(n, i -> !Boolean.TRUE.equals(above(d.a()[i], 10)));
                    assertEquals(expected, probed.get(), what);
                    switch (s) {
                        case ALL_PASS -> assertEquals(0, probed.get(), what + ": every row is decided TRUE by a > 10");
                        case NONE_PASS, ALL_NULL ->
                            assertEquals(n, probed.get(), what + ": no row is decided by a > 10");
                        case TEN_PERCENT_WITH_NULLS ->
                            assertTrue(n < 1000 || probed.get() > n / 2, what + ": " + probed.get());
                    }
                }
            }
        }
    }

    @Test
    void aCostlyFirstTermRunsOnEveryRow() {
        try (Abc d = abc(column(Scenario.NONE_PASS, 1000))) {
            CompiledExpression e = quiver.compile(d.batch().getSchema(), "probe(b) AND a > 10");
            List<Object> got = evaluate(e, d.batch());
            assertEquals(reference(1000, i -> and(probe(d.b()[i]), above(d.a()[i], 10))), got);
            assertEquals(1000, probed.get());
        }
    }

    @Test
    void longerChainsRunTheCostlyTermWhereNoEarlierTermDecided() {
        record Chain(String sql, IntPredicate undecided, IntFunction<Boolean> reference) {}
        for (int n : SHORT_CIRCUIT_SIZES) {
            Integer[] a = new Integer[n];
            for (int i = 0; i < n; i++) {
                a[i] = random.nextInt(10) == 0 ? null : between(-1000, 1000);
            }
            try (Abc d = abc(a)) {
                IntFunction<Boolean> first = i -> above(d.a()[i], 0);
                IntFunction<Boolean> second = i -> lt(d.c()[i], 0.5);
                IntFunction<Boolean> p = i -> probe(d.b()[i]);
                List<Chain> chains = List.of(
                        // Kleene: the chain can still change where neither earlier term is FALSE.
                        new Chain(
                                "a > 0 AND c < 0.5 AND probe(b)",
                                i -> !Boolean.FALSE.equals(first.apply(i)) && !Boolean.FALSE.equals(second.apply(i)),
                                i -> and(and(first.apply(i), second.apply(i)), p.apply(i))),
                        new Chain(
                                "a > 0 OR c < 0.5 OR probe(b)",
                                i -> !Boolean.TRUE.equals(first.apply(i)) && !Boolean.TRUE.equals(second.apply(i)),
                                i -> or(or(first.apply(i), second.apply(i)), p.apply(i))),
                        new Chain(
                                "(a > 0 OR c < 0.5) AND probe(b)",
                                i -> !Boolean.FALSE.equals(or(first.apply(i), second.apply(i))),
                                i -> and(or(first.apply(i), second.apply(i)), p.apply(i))),
                        new Chain(
                                "a > 0 AND (c < 0.5 OR probe(b))",
                                i -> !Boolean.FALSE.equals(first.apply(i)) && !Boolean.TRUE.equals(second.apply(i)),
                                i -> and(first.apply(i), or(second.apply(i), p.apply(i)))),
                        new Chain(
                                "a > 0 AND probe(b) AND probe(c)",
                                // probe(b) where a > 0 is not FALSE, then probe(c) where both are not FALSE
                                null,
                                i -> and(and(first.apply(i), p.apply(i)), probe(d.c()[i]))));
                for (Chain c : chains) {
                    CompiledExpression e = quiver.compile(d.batch().getSchema(), c.sql());
                    List<Object> got = evaluate(e, d.batch());
                    String what = c.sql() + ", " + n + " rows, seed " + SEED;
                    assertEquals(reference(n, c.reference()::apply), got, what);
                    long expected = c.undecided() != null
                            ? count(n, c.undecided())
                            : count(n, i -> !Boolean.FALSE.equals(first.apply(i)))
                                    + count(n, i -> !Boolean.FALSE.equals(and(first.apply(i), p.apply(i))));
                    assertEquals(expected, probed.get(), what);
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Pre-selection of cheap terms: the result must not depend on the share of undecided rows
    // ---------------------------------------------------------------------------------------------

    /** Exactly {@code share} of the rows have a > 10 TRUE or NULL (a quarter of those NULL); the others a <= 10. */
    private Integer[] withUndecidedShare(int n, double share) {
        int undecided = (int) Math.round(share * n);
        List<Integer> order = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            order.add(i);
        }
        Collections.shuffle(order, random);
        Integer[] a = new Integer[n];
        for (int k = 0; k < n; k++) {
            int row = order.get(k);
            a[row] = k >= undecided
                    ? Integer.valueOf(between(-1000, 10))
                    : random.nextInt(4) == 0 ? null : Integer.valueOf(between(11, 1000));
        }
        return a;
    }

    @Test
    void cheapTermsGiveTheSameResultsAtEveryShareOfUndecidedRows() {
        record Case(String sql, IntFunction<Object> reference) {}
        int n = 10_000;
        // Around the threshold (20%): both sides of it, and exactly on it.
        assertEquals(0.2, BinaryExpr.PRE_SELECTION_THRESHOLD);
        for (double share : new double[] {0.0, 0.05, 0.19, 0.20, 0.21, 0.5, 1.0}) {
            try (Abc d = abc(withUndecidedShare(n, share))) {
                IntFunction<Boolean> a10 = i -> above(d.a()[i], 10);
                IntFunction<Boolean> notA10 = i -> a10.apply(i) == null ? null : !a10.apply(i);
                IntFunction<Boolean> c5 = i -> lt(d.c()[i], 0.5);
                IntFunction<Boolean> bb = i -> d.bb()[i];
                List<Case> cases = List.of(
                        new Case("a > 10 AND c < 0.5", i -> and(a10.apply(i), c5.apply(i))),
                        new Case("a <= 10 OR c < 0.5", i -> or(notA10.apply(i), c5.apply(i))),
                        new Case("a > 10 AND c < 0.5 AND bb", i -> and(and(a10.apply(i), c5.apply(i)), bb.apply(i))),
                        new Case(
                                "a <= 10 OR bb OR c > 0.25",
                                i -> or(or(notA10.apply(i), bb.apply(i)), gt(d.c()[i], 0.25))),
                        new Case("a > 10 AND (c < 0.5 OR bb)", i -> and(a10.apply(i), or(c5.apply(i), bb.apply(i)))),
                        new Case(
                                "a > 10 AND c * 2 < 1",
                                i -> and(a10.apply(i), d.c()[i] == null ? null : lt(d.c()[i] * 2, 1))),
                        new Case(
                                "a > 10 AND CAST(a AS DOUBLE) * 0.001 > c",
                                i -> and(
                                        a10.apply(i),
                                        d.a()[i] == null || d.c()[i] == null
                                                ? null
                                                : TestColumns.compare(d.a()[i] * 0.001, d.c()[i]) > 0)),
                        new Case(
                                "a > 10 AND NOT bb", i -> and(a10.apply(i), bb.apply(i) == null ? null : !bb.apply(i))),
                        // A NULL term (typed Null, then Boolean): the undecided rows stay NULL, the decided keep their
                        // value.
                        new Case("a > 10 AND NULL", i -> and(a10.apply(i), null)),
                        new Case("a <= 10 OR NULL", i -> or(notA10.apply(i), null)),
                        new Case(
                                "a > 10 AND CAST(NULL AS BOOLEAN) AND bb",
                                i -> and(and(a10.apply(i), null), bb.apply(i))),
                        new Case("a > 10 AND (c < 0.5 OR NULL)", i -> and(a10.apply(i), or(c5.apply(i), null))),
                        new Case("CASE WHEN a <= 10 THEN 0.0 WHEN c < 0.5 THEN c ELSE -c END", i -> {
                            if (Boolean.TRUE.equals(notA10.apply(i))) {
                                return 0.0;
                            }
                            if (Boolean.TRUE.equals(c5.apply(i))) {
                                return d.c()[i];
                            }
                            return d.c()[i] == null ? null : -d.c()[i];
                        }),
                        new Case(
                                "CASE WHEN a > 10 THEN bb END",
                                i -> Boolean.TRUE.equals(a10.apply(i)) ? bb.apply(i) : null));
                for (Case c : cases) {
                    CompiledExpression e = quiver.compile(d.batch().getSchema(), c.sql());
                    assertEquals(
                            reference(n, c.reference()),
                            evaluate(e, d.batch()),
                            c.sql() + ", " + share + " undecided, seed " + SEED);
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Guarded failures
    // ---------------------------------------------------------------------------------------------

    /** Columns x, y (Int32) with zeros in y (y[0] is always 0), about 5% NULL each. */
    record Xy(Integer[] x, Integer[] y, VectorSchemaRoot batch) implements AutoCloseable {
        @Override
        public void close() {
            batch.close();
        }
    }

    private Xy xy(int n, boolean onlyZeros) {
        Integer[] x = new Integer[n];
        Integer[] y = new Integer[n];
        for (int i = 0; i < n; i++) {
            x[i] = random.nextInt(20) == 0 ? null : between(-1000, 1000);
            y[i] = onlyZeros ? Integer.valueOf(0) : random.nextInt(20) == 0 ? null : between(-5, 5);
        }
        if (n > 0) {
            y[0] = 0;
        }
        // Garbage behind NULL y is never zero-checked: it may be 0 as well.
        return new Xy(
                x,
                y,
                TestColumns.batch(
                        n,
                        TestColumns.of(allocator, "x", DataType.INT32, Arrays.asList(x), random::nextInt),
                        TestColumns.of(allocator, "y", DataType.INT32, Arrays.asList(y), () -> 0)));
    }

    private record Guarded(String sql, IntFunction<Object> reference) {}

    private static List<Guarded> guarded(Xy d) {
        Integer[] x = d.x();
        Integer[] y = d.y();
        // x / y and x % y where y is not zero; NULL where either is NULL. Never called with y = 0.
        IntFunction<Integer> div = i -> {
            if (x[i] == null || y[i] == null) {
                return null;
            }
            if (y[i] == 0) {
                throw new AssertionError("the reference divides by zero at row " + i);
            }
            return x[i] / y[i];
        };
        IntFunction<Boolean> yNonZero = i -> y[i] == null ? null : y[i] != 0;
        IntFunction<Boolean> yZero = i -> y[i] == null ? null : y[i] == 0;
        return List.of(
                new Guarded(
                        "y <> 0 AND x / y > 1",
                        i -> Boolean.FALSE.equals(yNonZero.apply(i))
                                ? Boolean.FALSE
                                : and(yNonZero.apply(i), div.apply(i) == null ? null : div.apply(i) > 1)),
                new Guarded(
                        "y = 0 OR x / y > 1",
                        i -> Boolean.TRUE.equals(yZero.apply(i))
                                ? Boolean.TRUE
                                : or(yZero.apply(i), div.apply(i) == null ? null : div.apply(i) > 1)),
                new Guarded(
                        "y <> 0 AND x % y = 0",
                        i -> Boolean.FALSE.equals(yNonZero.apply(i))
                                ? Boolean.FALSE
                                : and(yNonZero.apply(i), x[i] == null || y[i] == null ? null : x[i] % y[i] == 0)),
                new Guarded("x IS NOT NULL AND y <> 0 AND (x / y > 1 OR x / y < -1)", i -> {
                    Boolean guard = and(x[i] != null, yNonZero.apply(i));
                    if (Boolean.FALSE.equals(guard)) {
                        return Boolean.FALSE;
                    }
                    Integer q = div.apply(i);
                    return and(guard, q == null ? null : or(q > 1, q < -1));
                }),
                new Guarded(
                        "CASE WHEN y <> 0 THEN x / y ELSE -1 END",
                        i -> Boolean.TRUE.equals(yNonZero.apply(i)) ? div.apply(i) : Integer.valueOf(-1)),
                new Guarded(
                        "CASE WHEN y = 0 THEN 0 ELSE x / y END",
                        i -> Boolean.TRUE.equals(yZero.apply(i)) ? Integer.valueOf(0) : div.apply(i)),
                new Guarded("CASE WHEN y = 0 THEN NULL WHEN y IS NULL THEN -2 ELSE x / y END", i -> {
                    if (Boolean.TRUE.equals(yZero.apply(i))) {
                        return null;
                    }
                    return y[i] == null ? Integer.valueOf(-2) : div.apply(i);
                }),
                new Guarded(
                        "CASE WHEN y <> 0 THEN CAST(x AS BIGINT) / y END",
                        i -> Boolean.TRUE.equals(yNonZero.apply(i)) && div.apply(i) != null
                                ? Long.valueOf(div.apply(i))
                                : null));
    }

    @Test
    void guardedDivisionsNeverSeeTheirZeroDivisors() {
        for (int n : new int[] {1, 64, 1000, 70_000}) {
            for (boolean onlyZeros : new boolean[] {false, true}) {
                try (Xy d = xy(n, onlyZeros)) {
                    for (Guarded g : guarded(d)) {
                        CompiledExpression e = quiver.compile(d.batch().getSchema(), g.sql());
                        assertEquals(
                                reference(n, g.reference()),
                                evaluate(e, d.batch()),
                                g.sql() + ", " + n + " rows" + (onlyZeros ? ", every y zero" : "") + ", seed " + SEED);
                    }
                    // Unguarded, the same division fails: the zero is really there.
                    CompiledExpression unguarded = quiver.compile(d.batch().getSchema(), "x / y");
                    KernelArithmeticException thrown = assertThrows(
                            KernelArithmeticException.class,
                            () -> unguarded
                                    .evaluate(d.batch(), Placement.CPU, allocator)
                                    .close(),
                            "x / y, " + n + " rows");
                    assertTrue(thrown.getMessage().contains("by zero"), thrown.getMessage());
                    CompiledExpression wrongGuard = quiver.compile(d.batch().getSchema(), "y = 0 AND x / y > 1");
                    assertThrows(
                            KernelArithmeticException.class,
                            () -> wrongGuard
                                    .evaluate(d.batch(), Placement.CPU, allocator)
                                    .close(),
                            "y = 0 AND x / y > 1 divides where y = 0, " + n + " rows");
                }
            }
        }
    }

    @Test
    void guardedDivisionsAlsoHoldWithWrappingArithmeticWhereDivisionIsFused() {
        try (Quiver wrapping = Quiver.builder()
                        .allocator(allocator)
                        .arithmetic(ArithmeticMode.WRAPPING)
                        .build();
                Xy d = xy(5_000, false)) {
            for (Guarded g : guarded(d)) {
                CompiledExpression e = wrapping.compile(d.batch().getSchema(), g.sql());
                for (Device device : runnable(wrapping, e)) {
                    List<Object> got = TestColumns.valuesAndClose(e.evaluate(d.batch(), device, allocator));
                    assertEquals(
                            reference(5_000, g.reference()),
                            got,
                            g.sql() + " (wrapping) on " + device.name() + "\n" + e.explain());
                }
            }
            CompiledExpression unguarded = wrapping.compile(d.batch().getSchema(), "x / y");
            assertThrows(
                    KernelArithmeticException.class,
                    () -> unguarded
                            .evaluate(d.batch(), Placement.CPU, allocator)
                            .close());
        }
    }

    // ---------------------------------------------------------------------------------------------
    // CASE on shrinking row sets
    // ---------------------------------------------------------------------------------------------

    /** Columns x, y (Float64), s, t (Utf8), i (Int32 0..3), bb (Boolean), about 10% NULL each. */
    record CaseData(Double[] x, Double[] y, String[] s, String[] t, Integer[] i, Boolean[] bb, VectorSchemaRoot batch)
            implements AutoCloseable {
        int rows() {
            return x.length;
        }

        @Override
        public void close() {
            batch.close();
        }
    }

    private static final List<String> WORDS = List.of("", "x", "yy", "X", "zzz", "héllo");

    private CaseData caseData(int n) {
        Double[] x = new Double[n];
        Double[] y = new Double[n];
        String[] s = new String[n];
        String[] t = new String[n];
        Integer[] i = new Integer[n];
        Boolean[] bb = new Boolean[n];
        for (int r = 0; r < n; r++) {
            x[r] = random.nextInt(10) == 0 ? null : unitDouble();
            y[r] = random.nextInt(10) == 0 ? null : random.nextGaussian();
            s[r] = random.nextInt(10) == 0 ? null : "s" + random.nextInt(100);
            t[r] = random.nextInt(10) == 0 ? null : WORDS.get(random.nextInt(WORDS.size()));
            i[r] = random.nextInt(10) == 0 ? null : random.nextInt(4);
            bb[r] = random.nextInt(10) == 0 ? null : random.nextBoolean();
        }
        return new CaseData(
                x,
                y,
                s,
                t,
                i,
                bb,
                TestColumns.batch(
                        n,
                        TestColumns.of(allocator, "x", DataType.FLOAT64, Arrays.asList(x), random::nextDouble),
                        TestColumns.of(allocator, "y", DataType.FLOAT64, Arrays.asList(y), random::nextGaussian),
                        TestColumns.of(allocator, "s", DataType.UTF8, Arrays.asList(s), null),
                        TestColumns.of(allocator, "t", DataType.UTF8, Arrays.asList(t), null),
                        TestColumns.of(allocator, "i", DataType.INT32, Arrays.asList(i), () -> 1),
                        TestColumns.of(allocator, "bb", DataType.BOOLEAN, Arrays.asList(bb), () -> true)));
    }

    /**
     * A CASE, its reference, and (null: it calls no probe) the rows the probe must see, and
     * whether it must be planned as a lookup table (then its branch count).
     */
    private record CaseCheck(String sql, IntFunction<Object> reference, IntPredicate probed, int lookupBranches) {
        CaseCheck(String sql, IntFunction<Object> reference) {
            this(sql, reference, null, 0);
        }
    }

    private static boolean isTrue(Boolean b) {
        return Boolean.TRUE.equals(b);
    }

    private static List<CaseCheck> caseChecks(CaseData d) {
        Double[] x = d.x();
        Double[] y = d.y();
        String[] s = d.s();
        String[] t = d.t();
        Integer[] iv = d.i();
        IntFunction<Boolean> x3 = r -> lt(x[r], 0.3);
        IntFunction<Boolean> x6 = r -> lt(x[r], 0.6);
        return List.of(
                // The benchmark's form.
                new CaseCheck(
                        "CASE WHEN x < 0.3 THEN 1 WHEN x < 0.6 THEN 2 ELSE 3 END",
                        r -> isTrue(x3.apply(r)) ? 1 : isTrue(x6.apply(r)) ? 2 : 3),
                // Without ELSE: NULL where no branch takes the row.
                new CaseCheck(
                        "CASE WHEN x < 0.3 THEN 1 WHEN x < 0.6 THEN 2 END",
                        r -> isTrue(x3.apply(r))
                                ? Integer.valueOf(1)
                                : isTrue(x6.apply(r)) ? Integer.valueOf(2) : null),
                // THEN as columns and expressions.
                new CaseCheck(
                        "CASE WHEN x < 0.5 THEN x * 2 ELSE y END",
                        r -> isTrue(lt(x[r], 0.5)) ? Double.valueOf(x[r] * 2) : y[r]),
                new CaseCheck("CASE WHEN x < 0.3 THEN y WHEN x < 0.6 THEN x + y WHEN y > 0 THEN -y END", r -> {
                    if (isTrue(x3.apply(r))) {
                        return y[r];
                    }
                    if (isTrue(x6.apply(r))) {
                        return y[r] == null ? null : x[r] + y[r];
                    }
                    return isTrue(gt(y[r], 0)) ? Double.valueOf(-y[r]) : null;
                }),
                // String results, literal and column.
                new CaseCheck(
                        "CASE WHEN x < 0.3 THEN 'low' WHEN x < 0.6 THEN s ELSE 'high' END",
                        r -> isTrue(x3.apply(r)) ? "low" : isTrue(x6.apply(r)) ? s[r] : "high"),
                new CaseCheck(
                        "CASE WHEN bb THEN upper(s) WHEN x < 0.5 THEN t END",
                        r -> isTrue(d.bb()[r])
                                ? (s[r] == null ? null : s[r].toUpperCase(Locale.ROOT))
                                : isTrue(lt(x[r], 0.5)) ? t[r] : null),
                // A WHEN that is never true (x is never below -1: NaN is above every number), one that is
                // always true (NULL x included), a literal TRUE.
                new CaseCheck(
                        "CASE WHEN x < -1 THEN 1 WHEN x < 0.5 THEN 2 ELSE 3 END", r -> isTrue(lt(x[r], 0.5)) ? 2 : 3),
                new CaseCheck(
                        "CASE WHEN x > 2 THEN 1 WHEN x < 0.5 THEN 2 ELSE 3 END",
                        r -> isTrue(gt(x[r], 2)) ? 1 : isTrue(lt(x[r], 0.5)) ? 2 : 3),
                new CaseCheck(
                        "CASE WHEN x < 0.2 THEN 1 WHEN x >= -1 OR x IS NULL THEN 2 ELSE 3 END",
                        r -> isTrue(lt(x[r], 0.2)) ? 1 : 2),
                new CaseCheck(
                        "CASE WHEN x < 0.2 THEN 1 WHEN TRUE THEN 2 ELSE 3 END", r -> isTrue(lt(x[r], 0.2)) ? 1 : 2),
                new CaseCheck(
                        "CASE WHEN x >= -1 THEN 'all' ELSE 'null x' END", r -> isTrue(ge(x[r], -1)) ? "all" : "null x"),
                // A THEN calling probe runs on exactly the rows its WHEN took.
                new CaseCheck(
                        "CASE WHEN x < 0.3 THEN probe(y) ELSE bb END",
                        r -> isTrue(x3.apply(r)) ? probe(y[r]) : d.bb()[r],
                        r -> isTrue(x3.apply(r)),
                        0),
                new CaseCheck(
                        "CASE WHEN x < 0.3 THEN probe(y) WHEN x < 0.6 THEN NOT probe(y) END",
                        r -> isTrue(x3.apply(r))
                                ? probe(y[r])
                                : isTrue(x6.apply(r)) ? (y[r] == null ? null : !probe(y[r])) : null,
                        r -> isTrue(x6.apply(r)),
                        0),
                // A WHEN calling probe runs on the rows no earlier branch took.
                new CaseCheck(
                        "CASE WHEN x < 0.3 THEN 1 WHEN probe(y) THEN 2 ELSE 3 END",
                        r -> isTrue(x3.apply(r)) ? 1 : isTrue(probe(y[r])) ? 2 : 3,
                        r -> !isTrue(x3.apply(r)),
                        0),
                // An operand CASE that is no lookup (a THEN is a column).
                new CaseCheck(
                        "CASE i WHEN 1 THEN s WHEN 2 THEN 'two' END",
                        r -> iv[r] == null ? null : iv[r] == 1 ? s[r] : iv[r] == 2 ? "two" : null),
                // Lookup tables: the first of equal keys wins, a NULL key never matches, a NULL operand takes the ELSE.
                new CaseCheck(
                        "CASE i WHEN 1 THEN 'a' WHEN 2 THEN 'b' WHEN 1 THEN 'dup' ELSE 'z' END",
                        r -> iv[r] == null ? "z" : iv[r] == 1 ? "a" : iv[r] == 2 ? "b" : "z",
                        null,
                        3),
                new CaseCheck(
                        "CASE i WHEN 1 THEN 'a' WHEN NULL THEN 'null key' WHEN 2 THEN 'b' WHEN 1 THEN 'dup' ELSE 'z' END",
                        r -> iv[r] == null ? "z" : iv[r] == 1 ? "a" : iv[r] == 2 ? "b" : "z",
                        null,
                        4),
                new CaseCheck(
                        "CASE i WHEN 0 THEN 10 WHEN NULL THEN 20 WHEN 3 THEN 30 END",
                        r -> iv[r] == null
                                ? null
                                : iv[r] == 0 ? Integer.valueOf(10) : iv[r] == 3 ? Integer.valueOf(30) : null,
                        null,
                        3),
                new CaseCheck(
                        "CASE t WHEN 'x' THEN 1 WHEN NULL THEN 2 WHEN 'yy' THEN 3 WHEN 'x' THEN 4 WHEN '' THEN 5 END",
                        r -> t[r] == null
                                ? null
                                : switch (t[r]) {
                                    case "x" -> 1;
                                    case "yy" -> 3;
                                    case "" -> 5;
                                    default -> null;
                                },
                        null,
                        5),
                new CaseCheck(
                        "CASE t WHEN 'héllo' THEN 'accent' WHEN 'X' THEN 'upper' ELSE t END",
                        r -> "héllo".equals(t[r]) ? "accent" : "X".equals(t[r]) ? "upper" : t[r]),
                new CaseCheck(
                        "CASE bb WHEN TRUE THEN 'yes' WHEN FALSE THEN 'no' ELSE 'unknown' END",
                        r -> d.bb()[r] == null ? "unknown" : d.bb()[r] ? "yes" : "no",
                        null,
                        2));
    }

    /** The devices that can run every fused kernel of {@code e}: the CPU, and OpenCL devices where present. */
    private static List<Device> runnable(Quiver q, CompiledExpression e) {
        return q.devices().stream()
                .filter(dev -> e.programs().stream()
                        .noneMatch(p -> dev.backend().unsupportedReason(p).isPresent()))
                .toList();
    }

    private static Optional<CaseExpr> findCase(PhysicalExpr e) {
        if (e instanceof CaseExpr c) {
            return Optional.of(c);
        }
        return e.children().stream()
                .map(LazyEvaluationTest::findCase)
                .flatMap(Optional::stream)
                .findFirst();
    }

    @Test
    void caseMatchesThePerRowReferenceAtEveryBatchSize() {
        int[] sizes = {0, 1, 63, 64, 65, 1000, 70_000};
        List<CaseData> batches = new ArrayList<>();
        try {
            for (int n : sizes) {
                batches.add(caseData(n));
            }
            int checks = caseChecks(batches.getFirst()).size();
            for (int k = 0; k < checks; k++) {
                String sql = caseChecks(batches.getFirst()).get(k).sql();
                CompiledExpression e = quiver.compile(batches.getFirst().batch().getSchema(), sql);
                CaseCheck first = caseChecks(batches.getFirst()).get(k);
                Optional<CaseExpr> planned = findCase(e.plan().root());
                if (planned.isEmpty()) {
                    // Fused into one kernel that computes its branches and blends (docs/evaluation.md): never a
                    // lookup table, never a CASE whose branch calls probe (a function that is no kernel).
                    assertTrue(e.explain().contains("kernel segment CASE "), sql + "\n" + e.explain());
                    assertEquals(0, first.lookupBranches(), sql + " is a lookup table\n" + e.explain());
                    assertEquals(null, first.probed(), sql + " runs probe lazily\n" + e.explain());
                } else if (first.lookupBranches() > 0) {
                    assertTrue(planned.get().lookup().isPresent(), sql + " is a lookup table\n" + e.explain());
                    assertEquals(
                            first.lookupBranches(), planned.get().lookup().get().size(), sql);
                    assertTrue(
                            e.explain().contains("lookup table of " + first.lookupBranches() + " literal branch(es)"),
                            e.explain());
                } else {
                    assertTrue(planned.get().lookup().isEmpty(), sql + " is no lookup table\n" + e.explain());
                }
                for (CaseData d : batches) {
                    CaseCheck c = caseChecks(d).get(k);
                    List<Object> expected = reference(d.rows(), c.reference());
                    for (Device device : runnable(quiver, e)) {
                        probed.set(0);
                        List<Object> got = TestColumns.valuesAndClose(e.evaluate(d.batch(), device, allocator));
                        String what = sql + " on " + device.name() + ", " + d.rows() + " rows, seed " + SEED;
                        assertEquals(expected, got, what);
                        if (c.probed() != null) {
                            assertEquals(count(d.rows(), c.probed()), probed.get(), what + ": rows probe ran on");
                        }
                    }
                }
            }
        } finally {
            batches.forEach(CaseData::close);
        }
    }

    @Test
    void nestedLazyNodesRunOnTheRowsLeftByEveryEnclosingOne() {
        for (int n : new int[] {1, 1000, 70_000}) {
            try (CaseData d = caseData(n)) {
                Double[] x = d.x();
                Double[] y = d.y();
                List<CaseCheck> checks = List.of(
                        // A CASE under an AND runs on the AND's undecided rows; its branches split them.
                        new CaseCheck(
                                "x < 0.5 AND CASE WHEN y > 0 THEN probe(y) ELSE probe(x) END",
                                r -> and(lt(x[r], 0.5), isTrue(gt(y[r], 0)) ? probe(y[r]) : probe(x[r])),
                                r -> !Boolean.FALSE.equals(lt(x[r], 0.5)),
                                0),
                        // A CASE in a THEN runs on the rows that WHEN took, and splits them again.
                        new CaseCheck(
                                "CASE WHEN x < 0.3 THEN CASE WHEN y > 0 THEN probe(y) END ELSE bb END",
                                r -> isTrue(lt(x[r], 0.3)) ? (isTrue(gt(y[r], 0)) ? probe(y[r]) : null) : d.bb()[r],
                                r -> isTrue(lt(x[r], 0.3)) && isTrue(gt(y[r], 0)),
                                0),
                        // An AND in a WHEN: its costly term on the rows its first leaves undecided.
                        new CaseCheck(
                                "CASE WHEN x < 0.5 AND probe(y) THEN 1 ELSE 2 END",
                                r -> isTrue(and(lt(x[r], 0.5), probe(y[r]))) ? 1 : 2,
                                r -> !Boolean.FALSE.equals(lt(x[r], 0.5)),
                                0),
                        // An OR inside an AND, both lazy.
                        new CaseCheck(
                                "x < 0.5 AND (y > 0 OR probe(y))",
                                r -> and(lt(x[r], 0.5), or(gt(y[r], 0), probe(y[r]))),
                                r -> !Boolean.FALSE.equals(lt(x[r], 0.5)) && !isTrue(gt(y[r], 0)),
                                0));
                for (CaseCheck c : checks) {
                    CompiledExpression e = quiver.compile(d.batch().getSchema(), c.sql());
                    String what = c.sql() + ", " + n + " rows, seed " + SEED;
                    assertEquals(reference(n, c.reference()), evaluate(e, d.batch()), what);
                    assertEquals(count(n, c.probed()), probed.get(), what + ": rows probe ran on");
                }
            }
        }
    }

    @Test
    void lookupTablesCoverEveryKeyTypeAndItsExtremes() {
        long newYear = 1_704_067_200_000_000L; // 2024-01-01 00:00:00 in microseconds
        try (VectorSchemaRoot b = TestColumns.batch(
                6,
                TestColumns.of(
                        allocator,
                        "ts",
                        new DataType.Timestamp(DataType.TimeUnit.MICROSECOND, null),
                        Arrays.asList(newYear, 0L, null, newYear, 5L, -1L),
                        () -> newYear),
                TestColumns.of(
                        allocator, "ls", DataType.LARGE_UTF8, Arrays.asList("x", "y", null, "x", "", "zz"), null),
                TestColumns.of(
                        allocator,
                        "u",
                        DataType.UINT32,
                        Arrays.asList(4294967295L, 0L, null, 7L, 1L, 4294967295L),
                        () -> 0L),
                TestColumns.of(
                        allocator,
                        "big",
                        DataType.INT64,
                        Arrays.asList(Long.MIN_VALUE, Long.MAX_VALUE, null, 0L, -1L, 3L),
                        () -> -1L),
                TestColumns.of(
                        allocator, "day", DataType.DATE32, Arrays.asList(0, 19_723, null, -1, 19_723, 7), () -> 0))) {
            Object[][] table = {
                {
                    "CASE ts WHEN TIMESTAMP '2024-01-01 00:00:00' THEN 'new year' WHEN NULL THEN 'null key' ELSE 'other' END",
                    2,
                    Arrays.asList("new year", "other", "other", "new year", "other", "other")
                },
                {
                    "CASE ls WHEN 'x' THEN 1 WHEN '' THEN 2 WHEN 'x' THEN 3 END",
                    3,
                    Arrays.asList(1, null, null, 1, 2, null)
                },
                {
                    "CASE u WHEN 4294967295 THEN 'max' WHEN 0 THEN 'zero' END",
                    2,
                    Arrays.asList("max", "zero", null, null, null, "max")
                },
                {
                    "CASE big WHEN -9223372036854775808 THEN 'min' WHEN 9223372036854775807 THEN 'max' WHEN -1 THEN 'm1' END",
                    3,
                    Arrays.asList("min", "max", null, null, "m1", null)
                },
                {
                    "CASE day WHEN DATE '2024-01-01' THEN 'new year' WHEN DATE '1969-12-31' THEN 'eve' ELSE 'day' END",
                    2,
                    Arrays.asList("day", "new year", "day", "eve", "new year", "day")
                },
                {
                    "CASE big > 0 WHEN TRUE THEN 'pos' WHEN FALSE THEN 'not pos' END",
                    2,
                    Arrays.asList("not pos", "pos", null, "not pos", "not pos", "pos")
                }
            };
            for (Object[] row : table) {
                String sql = (String) row[0];
                CompiledExpression e = quiver.compile(b.getSchema(), sql);
                Optional<CaseExpr> planned = findCase(e.plan().root());
                assertTrue(planned.isPresent() && planned.get().lookup().isPresent(), sql + "\n" + e.explain());
                assertEquals(row[1], planned.get().lookup().get().size(), sql);
                assertEquals(row[2], evaluate(e, b), sql + "\n" + e.explain());
            }
        }
    }

    @Test
    void caseStopsAsSoonAsEveryRowIsTaken() {
        try (CaseData d = caseData(1000)) {
            // The first branch takes every row: the later WHEN and THEN never run.
            CompiledExpression e = quiver.compile(
                    d.batch().getSchema(),
                    "CASE WHEN x >= -1 OR x IS NULL THEN 0 WHEN probe(y) THEN 1 ELSE CASE WHEN probe(x) THEN 2 END END");
            assertEquals(reference(1000, r -> 0), evaluate(e, d.batch()));
            assertEquals(0, probed.get(), "no row was left for the second WHEN or the ELSE");
            // A literal TRUE WHEN takes every row at once.
            CompiledExpression lit =
                    quiver.compile(d.batch().getSchema(), "CASE WHEN TRUE THEN probe(y) ELSE probe(x) END");
            assertEquals(reference(1000, r -> probe(d.y()[r])), evaluate(lit, d.batch()));
            assertEquals(1000, probed.get(), "probe(y) on every row, probe(x) on none");
        }
    }
}
