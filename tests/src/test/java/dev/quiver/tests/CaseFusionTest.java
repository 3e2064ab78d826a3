package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.CompiledExpression;
import dev.quiver.Device;
import dev.quiver.Quiver;
import dev.quiver.expr.Expr;
import dev.quiver.kernels.ArithmeticMode;
import dev.quiver.opencl.TransferMode;
import dev.quiver.value.Values;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * CASE and Boolean logic fused into one kernel (docs/evaluation.md) give SQL's values on every
 * device: the CPU's fused loop and every OpenCL device in both transfer modes, against a
 * per-row Java reference written from SQL's rules (first true WHEN wins, a NULL condition is
 * false, a branch's NULL only where it is chosen, NaN above every number and equal to itself,
 * Kleene AND/OR), and against the same CASE planned unfused (a never-true WHEN on
 * {@code random()} in front keeps the host node, which runs each branch on its own rows). Hostile
 * batches ({@link TestBatches#hostile}): values behind nulls, NaN, ±0, infinities, integer
 * extremes, lengths around every vector width. A CASE with a branch that can fail is not fused
 * and does not raise on the rows it does not take. Replay with {@code -Dquiver.seed=<seed>}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CaseFusionTest {
    static final long SEED = Long.getLong("quiver.seed", System.nanoTime());
    static final int[] LENGTHS = {1, 7, 8, 9, 63, 64, 65, 1000, 4097};
    static final double[] NULLS = {0.0, 0.15, 0.6};

    /** One expression and what SQL says it gives for a row (null for NULL). */
    record Case(String sql, Function<Row, Object> expected) {
        @Override
        public String toString() {
            return sql;
        }
    }

    /** The values of one row of a {@link TestBatches#SCHEMA} batch, null for NULL. */
    record Row(VectorSchemaRoot batch, int row) {
        Object get(String column) {
            return Values.get(batch.getVector(column), row).value();
        }

        Double f(String column) {
            return (Double) get(column);
        }

        Float g(String column) {
            return (Float) get(column);
        }

        Integer i(String column) {
            return (Integer) get(column);
        }

        Long l(String column) {
            return (Long) get(column);
        }
    }

    /** Fused: a single kernel segment. */
    static final List<Case> FUSED = List.of(
            new Case(
                    "CASE WHEN f1 > 0.5 THEN f1 * f2 ELSE f3 END",
                    r -> isTrue(gt(r.f("f1"), 0.5)) ? times(r.f("f1"), r.f("f2")) : r.f("f3")),
            new Case(
                    "CASE WHEN f1 < f2 THEN f1 WHEN f2 < f3 THEN f2 END",
                    r -> isTrue(lt(r.f("f1"), r.f("f2")))
                            ? r.f("f1")
                            : isTrue(lt(r.f("f2"), r.f("f3"))) ? r.f("f2") : null),
            new Case(
                    "CASE WHEN f1 = f2 THEN 1.5 WHEN f1 >= f3 THEN -0.0 ELSE f1 - f3 END",
                    r -> isTrue(eq(r.f("f1"), r.f("f2")))
                            ? (Object) 1.5
                            : isTrue(ge(r.f("f1"), r.f("f3"))) ? (Object) (-0.0) : minus(r.f("f1"), r.f("f3"))),
            // A NaN literal: = is SQL's (NaN = NaN), not IEEE's.
            new Case(
                    "CASE WHEN f1 = CAST('NaN' AS DOUBLE) THEN 1.0 WHEN f1 > CAST('NaN' AS DOUBLE) THEN 2.0 ELSE 0.0 END",
                    r -> isTrue(eq(r.f("f1"), Double.NaN)) ? 1.0 : isTrue(gt(r.f("f1"), Double.NaN)) ? 2.0 : 0.0),
            // Mixed types: Int32 and Float32 branches widened to Float64, a Float32 condition.
            new Case(
                    "CASE WHEN g1 > 0 THEN i1 WHEN g2 < 0 THEN g2 ELSE f1 END",
                    r -> isTrue(gtFloat(r.g("g1"), 0f))
                            ? (r.i("i1") == null ? null : (Object) (double) r.i("i1"))
                            : isTrue(ltFloat(r.g("g2"), 0f))
                                    ? (Object) (double) r.g("g2").floatValue()
                                    : r.f("f1")),
            // Simple CASE: the operand compared with each WHEN (not literals only: no lookup table).
            new Case(
                    "CASE i1 WHEN i2 THEN l1 WHEN 0 THEN l2 ELSE 7 END",
                    r -> isTrue(eqLong(r.i("i1"), r.i("i2")))
                            ? r.l("l1")
                            : isTrue(eqLong(r.i("i1"), 0)) ? r.l("l2") : (Object) 7L),
            // Nested CASE, IS NULL, a NULL branch, arithmetic on a branch.
            new Case(
                    "CASE WHEN f1 IS NULL THEN -1.0 WHEN f1 > 0 THEN CASE WHEN f2 > 0 THEN f2 ELSE NULL END"
                            + " ELSE f3 + 1 END",
                    r -> r.f("f1") == null
                            ? (Object) (-1.0)
                            : isTrue(gt(r.f("f1"), 0.0))
                                    ? (isTrue(gt(r.f("f2"), 0.0)) ? r.f("f2") : null)
                                    : (r.f("f3") == null ? null : (Object) (r.f("f3") + 1))),
            // A Boolean result.
            new Case(
                    "CASE WHEN i1 > 0 THEN f1 > f2 ELSE g1 IS NULL END",
                    r -> isTrue(gtLong(r.i("i1"), 0)) ? gt(r.f("f1"), r.f("f2")) : (Object) (r.g("g1") == null)),
            // The CASE inside arithmetic: one segment for the whole.
            new Case(
                    "(CASE WHEN f1 > 0 THEN f1 ELSE f2 END) * 2",
                    r -> times(isTrue(gt(r.f("f1"), 0.0)) ? r.f("f1") : r.f("f2"), 2.0)),
            // Kleene logic over comparisons, on its own.
            new Case("f1 > 0.5 AND f2 < 0.25", r -> and(gt(r.f("f1"), 0.5), lt(r.f("f2"), 0.25))),
            new Case(
                    "f1 > 0 OR (f2 < 0 AND NOT (f3 = 0))",
                    r -> or(gt(r.f("f1"), 0.0), and(lt(r.f("f2"), 0.0), not(eq(r.f("f3"), 0.0))))),
            // An AND/OR as a WHEN: NULL counts as false.
            new Case(
                    "CASE WHEN f1 > 0 OR f2 > 0 THEN 1 ELSE 0 END",
                    r -> isTrue(or(gt(r.f("f1"), 0.0), gt(r.f("f2"), 0.0))) ? 1 : 0),
            // BETWEEN (low <= x AND x <= high) and a short IN list fuse as comparisons.
            new Case(
                    "f1 BETWEEN f2 AND f3 AND i1 IN (1, 2, 3)",
                    r -> and(
                            and(ge(r.f("f1"), r.f("f2")), not(gt(r.f("f1"), r.f("f3")))),
                            or(or(eqLong(r.i("i1"), 1), eqLong(r.i("i1"), 2)), eqLong(r.i("i1"), 3)))),
            // Negated, and a NULL in the list: x NOT IN (0, NULL) is FALSE or NULL, never TRUE.
            new Case(
                    "f1 NOT BETWEEN -1 AND 1 OR i1 NOT IN (0, NULL)",
                    r -> or(
                            not(and(ge(r.f("f1"), -1.0), not(gt(r.f("f1"), 1.0)))),
                            not(or(eqLong(r.i("i1"), 0), null)))));

    /** A chain with a term that cannot fuse: its numeric terms one segment at its head, the rest on the host. */
    static final List<Case> CHAINS = List.of(
            new Case("f1 > 0 AND i1 / i2 > 1 AND f2 < 0.5", r -> {
                Boolean head = and(gt(r.f("f1"), 0.0), lt(r.f("f2"), 0.5));
                if (Boolean.FALSE.equals(head)) {
                    return false; // the division's row is decided: it does not run there
                }
                return and(head, r.i("i1") == null || r.i("i2") == null ? null : r.i("i1") / r.i("i2") > 1);
            }),
            new Case(
                    "f1 < 0 OR g1 IS NULL OR f2 BETWEEN 0 AND 1",
                    r -> or(
                            or(lt(r.f("f1"), 0.0), and(ge(r.f("f2"), 0.0), not(gt(r.f("f2"), 1.0)))),
                            r.g("g1") == null)));

    /** Not fused (a branch can fail): the host CASE, which must not raise on rows it does not take. */
    static final List<Case> NOT_FUSED = List.of(
            // Checked Int32 multiplication: overflows outside the guard.
            new Case(
                    "CASE WHEN i1 < 1000 AND i1 > -1000 THEN i1 * 1000000 ELSE 0 END",
                    r -> isTrue(and(ltLong(r.i("i1"), 1000), gtLong(r.i("i1"), -1000))) ? r.i("i1") * 1000000 : 0),
            // Integer division (fallible wrapping or checked): i2 is 0 in some valid rows.
            new Case(
                    "CASE WHEN i2 > 0 THEN i1 / i2 ELSE -1 END",
                    r -> r.i("i2") == null || r.i("i2") <= 0
                            ? (Object) (-1)
                            : r.i("i1") == null ? null : (Object) (r.i("i1") / r.i("i2"))));

    private BufferAllocator allocator;
    private Quiver quiver;
    private Quiver wrapping;
    private Quiver otherMode;

    @BeforeAll
    void open() {
        allocator = new RootAllocator();
        quiver = Quiver.builder().allocator(allocator).build();
        wrapping = Quiver.builder()
                .allocator(allocator)
                .arithmetic(ArithmeticMode.WRAPPING)
                .build();
        boolean allZeroCopy =
                quiver.openClDevices().stream().allMatch(d -> d.transferMode().orElseThrow() == TransferMode.ZERO_COPY);
        otherMode = Quiver.builder()
                .allocator(allocator)
                .transferMode(allZeroCopy ? TransferMode.COPY : TransferMode.ZERO_COPY)
                .build();
    }

    @AfterAll
    void close() {
        otherMode.close();
        wrapping.close();
        quiver.close();
        assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked");
        allocator.close();
    }

    static Stream<Case> fused() {
        return FUSED.stream();
    }

    static Stream<Case> notFused() {
        return NOT_FUSED.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fused")
    void fusedIntoOneKernelAndSqlOnEveryDevice(Case c) {
        CompiledExpression expr = quiver.compile(TestBatches.SCHEMA, Expr.parse(c.sql()));
        assertEquals(1, expr.programs().size(), expr.explain());
        assertTrue(
                expr.explain().contains("Float64:\n  kernel segment ")
                        || expr.explain().contains("Int64:\n  kernel segment ")
                        || expr.explain().contains("Int32:\n  kernel segment ")
                        || expr.explain().contains("Boolean:\n  kernel segment "),
                "the plan's root is the kernel segment:\n" + expr.explain());
        CompiledExpression inOtherMode = otherMode.compile(TestBatches.SCHEMA, Expr.parse(c.sql()));
        CompiledExpression unfused = c.sql().startsWith("CASE WHEN ")
                ? quiver.compile(
                        TestBatches.SCHEMA,
                        Expr.parse("CASE WHEN random() < 0 THEN NULL WHEN "
                                + c.sql().substring("CASE WHEN ".length())))
                : null;
        if (unfused != null) {
            assertTrue(unfused.explain().contains("CASE, "), "the twin keeps the host CASE:\n" + unfused.explain());
        }
        Random random = new Random(SEED ^ c.sql().hashCode());
        for (double nulls : NULLS) {
            for (int rows : LENGTHS) {
                try (VectorSchemaRoot batch = TestBatches.hostile(allocator, rows, nulls, random)) {
                    String what = c.sql() + ", " + rows + " rows, " + nulls + " nulls, seed " + SEED;
                    for (Device d : quiver.devices()) {
                        check(expr, d, batch, c, what);
                    }
                    for (Device d : otherMode.openClDevices()) {
                        check(
                                inOtherMode,
                                d,
                                batch,
                                c,
                                what + " [" + d.transferMode().orElseThrow() + "]");
                    }
                    if (unfused != null) {
                        check(unfused, quiver.devices().getFirst(), batch, c, what + " (unfused)");
                    }
                }
            }
        }
    }

    static Stream<Case> chains() {
        return CHAINS.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("chains")
    void aChainsNumericTermsAreOneSegmentAtItsHeadAndSqlOnEveryDevice(Case c) {
        CompiledExpression expr = quiver.compile(TestBatches.SCHEMA, Expr.parse(c.sql()));
        assertTrue(
                expr.explain().matches("(?s).*Boolean:\n  (AND|OR)[^\n]* -> Boolean\n    kernel segment .*"),
                "a host chain with a segment at its head:\n" + expr.explain());
        Random random = new Random(SEED ^ c.sql().hashCode());
        for (double nulls : NULLS) {
            for (int rows : LENGTHS) {
                try (VectorSchemaRoot batch = TestBatches.hostile(allocator, rows, nulls, random)) {
                    // i2 is 0 in some rows: the division runs only where the segment left the row undecided.
                    if (c.sql().contains("/")) {
                        zeroWhereDecided(batch);
                    }
                    for (Device d : quiver.devices()) {
                        check(expr, d, batch, c, c.sql() + ", " + rows + " rows, " + nulls + " nulls, seed " + SEED);
                    }
                }
            }
        }
    }

    /** i2 := 0 wherever the chain's numeric head (f1 > 0 AND f2 < 0.5) is FALSE: only the guard keeps the division from it. */
    private static void zeroWhereDecided(VectorSchemaRoot batch) {
        IntVector i2 = (IntVector) batch.getVector("i2");
        for (int r = 0; r < batch.getRowCount(); r++) {
            Row row = new Row(batch, r);
            if (Boolean.FALSE.equals(and(gt(row.f("f1"), 0.0), lt(row.f("f2"), 0.5)))) {
                i2.setSafe(r, 0);
            } else if (!i2.isNull(r) && (i2.get(r) == 0 || i2.get(r) == -1)) {
                i2.setSafe(r, 1); // no zero divisor, no MIN_VALUE / -1, where the division runs
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("notFused")
    void aBranchThatCanFailIsNotFusedAndRaisesNowhereItIsNotTaken(Case c) {
        // Wrapping multiplication cannot fail (and fuses); division can, under either mode.
        for (Quiver q : c.sql().contains("/") ? List.of(quiver, wrapping) : List.of(quiver)) {
            CompiledExpression expr = q.compile(TestBatches.SCHEMA, Expr.parse(c.sql()));
            assertTrue(expr.explain().contains("CASE, "), "the host CASE runs it:\n" + expr.explain());
            Random random = new Random(SEED ^ c.sql().hashCode());
            for (double nulls : NULLS) {
                for (int rows : LENGTHS) {
                    try (VectorSchemaRoot batch = TestBatches.hostile(allocator, rows, nulls, random)) {
                        for (Device d : q.devices()) {
                            check(
                                    expr,
                                    d,
                                    batch,
                                    c,
                                    c.sql() + ", " + rows + " rows, " + nulls + " nulls, seed " + SEED);
                        }
                    }
                }
            }
        }
    }

    private void check(CompiledExpression expr, Device device, VectorSchemaRoot batch, Case c, String what) {
        if (expr.programs().stream()
                .anyMatch(p -> device.backend().unsupportedReason(p).isPresent())) {
            fail(device.name() + " cannot run " + c.sql() + ":\n" + expr.explain());
        }
        try (FieldVector out = expr.evaluate(batch, device, allocator)) {
            for (int r = 0; r < batch.getRowCount(); r++) {
                Object want = c.expected().apply(new Row(batch, r));
                Object got = Values.get(out, r).value();
                if (!sameValue(want, got)) {
                    fail(what + " on " + device.name() + ": row " + r + " expected " + want + " but was " + got);
                }
            }
        }
    }

    /** Equal, with floats compared by their bits (every NaN one NaN; -0.0 is not 0.0). */
    private static boolean sameValue(Object want, Object got) {
        if (want instanceof Double a && got instanceof Double b) {
            return Double.doubleToLongBits(a) == Double.doubleToLongBits(b);
        }
        if (want instanceof Integer a && got instanceof Long b) {
            return a.longValue() == b; // an Int64 CASE's literal written as an int above
        }
        return Objects.equals(want, got);
    }

    // ---- SQL's rules, row by row (null for NULL)

    static boolean isTrue(Boolean b) {
        return b != null && b;
    }

    /** SQL's order of doubles: NaN equal to NaN and above everything, -0.0 = 0.0. */
    static Integer order(Double a, Double b) {
        if (a == null || b == null) {
            return null;
        }
        if (a.isNaN() || b.isNaN()) {
            return a.isNaN() && b.isNaN() ? 0 : a.isNaN() ? 1 : -1;
        }
        return a == b.doubleValue() ? 0 : a < b ? -1 : 1;
    }

    static Boolean gt(Double a, Double b) {
        Integer c = order(a, b);
        return c == null ? null : c > 0;
    }

    static Boolean ge(Double a, Double b) {
        Integer c = order(a, b);
        return c == null ? null : c >= 0;
    }

    static Boolean lt(Double a, Double b) {
        Integer c = order(a, b);
        return c == null ? null : c < 0;
    }

    static Boolean eq(Double a, Double b) {
        Integer c = order(a, b);
        return c == null ? null : c == 0;
    }

    static Boolean gtFloat(Float a, float b) {
        return a == null ? null : gt((double) a, (double) b);
    }

    static Boolean ltFloat(Float a, float b) {
        return a == null ? null : lt((double) a, (double) b);
    }

    static Boolean gtLong(Number a, long b) {
        return a == null ? null : a.longValue() > b;
    }

    static Boolean ltLong(Number a, long b) {
        return a == null ? null : a.longValue() < b;
    }

    static Boolean eqLong(Number a, Number b) {
        return a == null || b == null ? null : a.longValue() == b.longValue();
    }

    static Double times(Double a, Double b) {
        return a == null || b == null ? null : a * b;
    }

    static Double minus(Double a, Double b) {
        return a == null || b == null ? null : a - b;
    }

    static Boolean not(Boolean a) {
        return a == null ? null : !a;
    }

    /** Kleene AND: FALSE if either is FALSE, else NULL if either is NULL. */
    static Boolean and(Boolean a, Boolean b) {
        if (Boolean.FALSE.equals(a) || Boolean.FALSE.equals(b)) {
            return false;
        }
        return a == null || b == null ? null : true;
    }

    static Boolean or(Boolean a, Boolean b) {
        if (Boolean.TRUE.equals(a) || Boolean.TRUE.equals(b)) {
            return true;
        }
        return a == null || b == null ? null : false;
    }
}
