package dev.quiver.tests;

import static dev.quiver.expr.Expr.call;
import static dev.quiver.expr.Expr.col;
import static dev.quiver.expr.Expr.lit;
import static dev.quiver.expr.Expr.when;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.SmallStack;
import dev.quiver.cancel.CancelHandle;
import dev.quiver.cancel.Cancellation;
import dev.quiver.errors.CancelledException;
import dev.quiver.errors.DeviceException;
import dev.quiver.expr.Expr;
import dev.quiver.expr.ExprText;
import dev.quiver.functions.ArrayFunctions;
import dev.quiver.functions.PlanningException;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.RowType;
import dev.quiver.rowfn.Val;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.DataType;
import dev.quiver.value.Values;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * Deep and large expressions end to end: every kind of node nested as deep as the default limit
 * allows (1,000 levels) compiles, explains and evaluates on the CPU and on every OpenCL device, on a
 * thread with a 256 KiB stack, to values computed here row by row; one level more is a planning
 * error naming the limit. The shapes of issue 22 (a tree 10,000 deep, a 100,000-term sum, a
 * 2,000-branch CASE, a 1,000-argument call) plan and evaluate or fail so, on a 256 KiB stack.
 */
class DeepExpressionTest extends QuiverTestBase {
    private static final int LIMIT = 1_000;

    private static final Schema SCHEMA = new Schema(List.of(
            DataType.FLOAT64.toField("f", true),
            DataType.INT32.toField("i", true),
            DataType.BOOLEAN.toField("b", true),
            DataType.BOOLEAN.toField("c", true),
            DataType.UTF8.toField("s", true)));
    private static final Double[] F = {1.5, -0.0, Double.NaN, null, 1e300, -2.25, 0.1};
    private static final Integer[] I = {1, -2, null, 0, 7, 998, -1};
    private static final Boolean[] B = {true, false, null, true, null, false, true};
    private static final Boolean[] C = {true, true, false, null, null, false, false};
    private static final String[] S = {"Ab", "", null, "xYz", "ÄÖ", "q", "MiXeD"};

    private VectorSchemaRoot batch() {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        Float8Vector f = (Float8Vector) root.getVector("f");
        IntVector i = (IntVector) root.getVector("i");
        BitVector b = (BitVector) root.getVector("b");
        BitVector c = (BitVector) root.getVector("c");
        VarCharVector s = (VarCharVector) root.getVector("s");
        for (int r = 0; r < F.length; r++) {
            if (F[r] == null) {
                f.setNull(r);
            } else {
                f.setSafe(r, F[r]);
            }
            if (I[r] == null) {
                i.setNull(r);
            } else {
                i.setSafe(r, I[r]);
            }
            if (B[r] == null) {
                b.setNull(r);
            } else {
                b.setSafe(r, B[r] ? 1 : 0);
            }
            if (C[r] == null) {
                c.setNull(r);
            } else {
                c.setSafe(r, C[r] ? 1 : 0);
            }
            if (S[r] == null) {
                s.setNull(r);
            } else {
                s.setSafe(r, S[r].getBytes(StandardCharsets.UTF_8));
            }
        }
        root.setRowCount(F.length);
        return root;
    }

    /** A tree of {@code depth} levels: {@code leaf}, then {@code level} applied depth - 1 times. */
    private static Expr chain(Expr leaf, int depth, UnaryOperator<Expr> level) {
        Expr e = leaf;
        for (int k = 1; k < depth; k++) {
            e = level.apply(e);
        }
        return e;
    }

    private static String depthError(Expr e, int depth) {
        return "the expression is nested " + depth + " levels deep, more than the limit of " + LIMIT + ": raise it with"
                + " Quiver.builder().maxExpressionDepth(int), on threads with a stack to match (docs/expressions.md#limits),"
                + " or write a long sum or product in parenthesized groups; in " + ExprText.sql(e, 120);
    }

    /** A kind of node nested {@code depth} levels deep, and its value in each row, computed by hand. */
    private record Deep(String name, IntFunction<Expr> tree, IntFunction<IntFunction<Object>> expected) {}

    private static Boolean not(Boolean v) {
        return v == null ? null : !v;
    }

    private static Boolean and(Boolean a, Boolean b) {
        return Boolean.FALSE.equals(a) || Boolean.FALSE.equals(b)
                ? Boolean.FALSE
                : a == null || b == null ? null : Boolean.TRUE;
    }

    private static Boolean or(Boolean a, Boolean b) {
        return Boolean.TRUE.equals(a) || Boolean.TRUE.equals(b)
                ? Boolean.TRUE
                : a == null || b == null ? null : Boolean.FALSE;
    }

    private static Boolean eq(Boolean a, Boolean b) {
        return a == null || b == null ? null : a.equals(b);
    }

    private static List<Deep> kinds() {
        List<Deep> out = new ArrayList<>();
        out.add(new Deep("NOT", d -> chain(col("b"), d, Expr::not), d -> r -> (d - 1) % 2 == 0 ? B[r] : not(B[r])));
        out.add(new Deep(
                "minus, Float64 (fused)",
                d -> chain(col("f"), d, Expr::neg),
                d -> r -> F[r] == null ? null : (d - 1) % 2 == 0 ? F[r] : -F[r]));
        out.add(new Deep(
                "minus, Int32 (checked)",
                d -> chain(col("i"), d, Expr::neg),
                d -> r -> I[r] == null ? null : (d - 1) % 2 == 0 ? I[r] : -I[r]));
        out.add(new Deep(
                "IS NULL",
                d -> chain(col("b"), d, Expr::isNull),
                d -> r -> d == 2 ? B[r] == null : d == 1 ? B[r] : false));
        out.add(new Deep(
                "CAST Int32 <-> Int64",
                d -> chainAlternating(col("i"), d, DataType.INT64, DataType.INT32, false),
                d -> r -> I[r] == null ? null : (d - 1) % 2 == 1 ? (Object) (long) I[r] : (Object) I[r]));
        // The first cast to Float32 rounds (and refuses 1e300, which TRY_CAST makes NULL); the others are exact.
        out.add(new Deep(
                "TRY_CAST Float64 <-> Float32",
                d -> chainAlternating(col("f"), d, DataType.FLOAT32, DataType.FLOAT64, true),
                d -> r -> F[r] == null || (Double.isFinite(F[r]) && Float.isInfinite((float) (double) F[r]))
                        ? null
                        : (d - 1) % 2 == 1 ? (Object) (float) (double) F[r] : (Object) (double) (float) (double) F[r]));
        // CASE WHEN i = k THEN 10 k ELSE <the next level> END for k = 0 .. d - 3, ELSE -1 at the bottom.
        out.add(new Deep(
                "CASE in ELSE",
                DeepExpressionTest::caseChain,
                d -> r -> I[r] != null && I[r] >= 0 && I[r] < d - 2 ? I[r] * 10 : -1));
        out.add(new Deep(
                "CASE in WHEN",
                d -> chain(col("b"), d, e -> when(e, lit(true)).otherwise(lit(false))),
                d -> r -> d == 1 ? B[r] : Boolean.TRUE.equals(B[r])));
        out.add(new Deep(
                "abs (a fused RowFn)",
                d -> chain(col("f"), d, e -> call("abs", e)),
                d -> r -> F[r] == null ? null : d == 1 ? F[r] : Math.abs(F[r])));
        // lower, upper, lower, ...: the outermost decides.
        out.add(new Deep(
                "upper and lower",
                d -> chainAlternatingCalls(col("s"), d),
                d -> r -> S[r] == null
                        ? null
                        : d == 1
                                ? S[r]
                                : (d - 1) % 2 == 1 ? S[r].toLowerCase(Locale.ROOT) : S[r].toUpperCase(Locale.ROOT)));
        // ((b AND c) OR c) AND c ...: never two of one operator in a row, so nothing is balanced.
        out.add(new Deep(
                "AND and OR",
                d -> chainSteps(col("b"), d, (e, k) -> k % 2 == 1 ? e.and(col("c")) : e.or(col("c"))),
                d -> r -> {
                    Boolean v = B[r];
                    for (int k = 1; k < d; k++) {
                        v = k % 2 == 1 ? and(v, C[r]) : or(v, C[r]);
                    }
                    return v;
                }));
        out.add(new Deep("= of Booleans", d -> chain(col("b"), d, e -> e.eq(col("c"))), d -> r -> {
            Boolean v = B[r];
            for (int k = 1; k < d; k++) {
                v = eq(v, C[r]);
            }
            return v;
        }));
        out.add(new Deep(
                "* - / of Float64 (fused)",
                d -> chainSteps(
                        col("f"),
                        d,
                        (e, k) -> k % 3 == 1 ? e.mul(lit(1.5)) : k % 3 == 2 ? e.sub(col("f")) : e.div(lit(2.0))),
                d -> r -> {
                    if (F[r] == null) {
                        return null;
                    }
                    double v = F[r];
                    for (int k = 1; k < d; k++) {
                        v = k % 3 == 1 ? v * 1.5 : k % 3 == 2 ? v - F[r] : v / 2.0;
                    }
                    return v;
                }));
        out.add(new Deep(
                "+ of Int32 (checked)",
                d -> chain(col("i"), d, e -> e.add(col("i"))),
                d -> r -> I[r] == null ? null : I[r] * d));
        return out;
    }

    private static Expr chainAlternating(Expr leaf, int depth, DataType first, DataType second, boolean tryCast) {
        Expr e = leaf;
        for (int k = 1; k < depth; k++) {
            DataType t = k % 2 == 1 ? first : second;
            e = tryCast ? e.tryCast(t) : e.cast(t);
        }
        return e;
    }

    private static Expr chainAlternatingCalls(Expr leaf, int depth) {
        Expr e = leaf;
        for (int k = 1; k < depth; k++) {
            e = call(k % 2 == 1 ? "lower" : "upper", e);
        }
        return e;
    }

    /** A step that sees its number, 1 to depth - 1. */
    private interface Step {
        Expr apply(Expr e, int k);
    }

    private static Expr chainSteps(Expr leaf, int depth, Step step) {
        Expr e = leaf;
        for (int k = 1; k < depth; k++) {
            e = step.apply(e, k);
        }
        return e;
    }

    /** depth - 2 CASE levels: the innermost one's WHEN (i = k) reaches the last level. */
    private static Expr caseChain(int depth) {
        Expr e = lit(-1);
        for (int k = depth - 3; k >= 0; k--) {
            e = when(col("i").eq(lit(k)), lit(k * 10)).otherwise(e);
        }
        return e;
    }

    /** The values of a result vector, as the expected functions give them (every NaN as one, -0.0 apart from 0.0). */
    private static List<Object> values(FieldVector v) {
        List<Object> out = new ArrayList<>();
        for (int r = 0; r < v.getValueCount(); r++) {
            Object x = Values.get(v, r).value();
            out.add(
                    x instanceof Double d
                            ? (Object) Double.doubleToLongBits(d)
                            : x instanceof Float f
                                    ? (Object) Float.floatToIntBits(f)
                                    : x == null
                                            ? null
                                            : x instanceof String
                                                            || x instanceof Boolean
                                                            || x instanceof Integer
                                                            || x instanceof Long
                                                    ? x
                                                    : x.toString());
        }
        return out;
    }

    private static List<Object> expected(IntFunction<Object> row) {
        List<Object> out = new ArrayList<>();
        for (int r = 0; r < F.length; r++) {
            Object x = row.apply(r);
            out.add(
                    x instanceof Double d
                            ? (Object) Double.doubleToLongBits(d)
                            : x instanceof Float f ? (Object) Float.floatToIntBits(f) : x);
        }
        return out;
    }

    private void evaluateEverywhere(CompiledExpression e, List<Object> want, String what) {
        try (VectorSchemaRoot b = batch()) {
            try (FieldVector out = e.evaluate(b, Placement.CPU)) {
                assertEquals(want, values(out), what + " on the CPU");
            }
            if (!quiver.openClDevices().isEmpty()) {
                try (FieldVector out = e.evaluate(b, Placement.OPENCL)) {
                    assertEquals(want, values(out), what + " on OpenCL");
                }
            }
        }
    }

    @Test
    void everyKindOfNodeAtTheDefaultDepthEvaluatesAndOneMoreLevelIsRefused() {
        OpenClAvailability.requireOpenCl(quiver);
        for (Deep k : kinds()) {
            SmallStack.run(() -> {
                Expr e = k.tree().apply(LIMIT);
                CompiledExpression compiled = quiver.compile(SCHEMA, e);
                assertTrue(compiled.explain().contains("Physical plan"), k.name());
                evaluateEverywhere(compiled, expected(k.expected().apply(LIMIT)), k.name());
            });
            SmallStack.run(() -> {
                Expr deeper = k.tree().apply(LIMIT + 2);
                PlanningException ex =
                        assertThrows(PlanningException.class, () -> quiver.compile(SCHEMA, deeper), k.name());
                assertEquals(depthError(deeper, depthOf(deeper)), ex.getMessage(), k.name());
            });
        }
    }

    /** The depth the planner measures: a chain of more than 64 ANDs or ORs counts balanced (none here is). */
    private static int depthOf(Expr e) {
        int deepest = 0;
        Deque<Expr> nodes = new ArrayDeque<>();
        Deque<Integer> depths = new ArrayDeque<>();
        nodes.push(e);
        depths.push(1);
        while (!nodes.isEmpty()) {
            Expr n = nodes.pop();
            int d = depths.pop();
            deepest = Math.max(deepest, d);
            for (Expr c : n.children()) {
                nodes.push(c);
                depths.push(d + 1);
            }
        }
        return deepest;
    }

    @Test
    void aRowFnBodyAsDeepAsAProgramMayBeRunsEverywhere() {
        OpenClAvailability.requireOpenCl(quiver);
        int levels = KernelProgram.MAX_DEPTH - 1;
        quiver.functions()
                .register(RowFn.declare("deep_body")
                        .arg("x", RowType.FLOAT64)
                        .returns(RowType.FLOAT64)
                        .body(x -> {
                            Val v = x;
                            for (int k = 0; k < levels - 1; k++) {
                                v = k % 2 == 0 ? v.add(x) : v.mul(Val.of(0.5));
                            }
                            return v;
                        }));
        List<Object> want = expected(r -> {
            if (F[r] == null) {
                return null;
            }
            double v = F[r];
            for (int k = 0; k < levels - 1; k++) {
                v = k % 2 == 0 ? v + F[r] : v * 0.5;
            }
            return v;
        });
        SmallStack.run(() ->
                evaluateEverywhere(quiver.compile(SCHEMA, call("deep_body", col("f"))), want, "deep_body"));
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> RowFn.declare("too_deep")
                        .arg("x", RowType.FLOAT64)
                        .returns(RowType.FLOAT64)
                        .body(x -> {
                            Val v = x;
                            for (int k = 0; k < 5_000; k++) {
                                v = v.add(x);
                            }
                            return v;
                        }));
        assertEquals(
                "RowFn too_deep(x Float64): the body is nested more than 4096 levels deep, the most a kernel program may be"
                        + " (its code is generated by walking the tree; docs/expressions.md#limits)",
                e.getMessage());
    }

    @Test
    void theShapesOfTheIssue() {
        OpenClAvailability.requireOpenCl(quiver);
        SmallStack.run(() -> {
            // A tree 10,000 levels deep, built in Java.
            Expr deep = chain(col("b"), 10_000, Expr::not);
            PlanningException e = assertThrows(PlanningException.class, () -> quiver.compile(SCHEMA, deep));
            assertEquals(depthError(deep, 10_000), e.getMessage());
            // A 100,000-term sum, left-deep as written.
            Expr sum = chain(col("f"), 100_000, x -> x.add(col("f")));
            PlanningException s = assertThrows(PlanningException.class, () -> quiver.compile(SCHEMA, sum));
            assertEquals(depthError(sum, 100_000), s.getMessage());
            // The same in text: parsed (any length of chain), then refused by the planner.
            StringBuilder text = new StringBuilder("f");
            for (int k = 1; k < 100_000; k++) {
                text.append(" + f");
            }
            PlanningException t = assertThrows(PlanningException.class, () -> quiver.compile(SCHEMA, text.toString()));
            assertEquals(depthError(sum, 100_000), t.getMessage());
            // A 2,000-branch CASE: two levels of WHEN/THEN, evaluated everywhere.
            Expr.CaseBuilder c = when(col("i").eq(lit(-5_000)), col("f"));
            for (int k = 1; k < 2_000; k++) {
                c = c.when(col("i").eq(lit(k - 3)), col("f").mul(lit((double) k)));
            }
            Expr bigCase = c.otherwise(lit(-1.0));
            evaluateEverywhere(
                    quiver.compile(SCHEMA, bigCase),
                    expected(r -> I[r] == null
                            ? (Object) (-1.0)
                            : F[r] == null ? null : (Object) (F[r] * (double) (I[r] + 3))),
                    "2,000-branch CASE");
            // A 1,000-argument call, of a function that fuses (greatest over Float64) and of one that does not
            // (concat).
            List<Expr> numbers = new ArrayList<>();
            List<Expr> strings = new ArrayList<>();
            for (int k = 0; k < 1_000; k++) {
                numbers.add(col("f").add(lit((double) (k % 100))));
                strings.add(k % 2 == 0 ? col("s") : lit("."));
            }
            // greatest skips NULLs, so its program reads each argument's validity too: 2,000 kernel arguments, more
            // than an
            // OpenCL kernel takes. Placed on OpenCL explicitly, that is the error; AUTO runs it on the CPU.
            CompiledExpression greatest = quiver.compile(SCHEMA, call("greatest", numbers));
            List<Object> most = expected(r -> F[r] == null ? null : Double.isNaN(F[r]) ? Double.NaN : F[r] + 99.0);
            try (VectorSchemaRoot b = batch()) {
                try (FieldVector out = greatest.evaluate(b, Placement.CPU)) {
                    assertEquals(most, values(out), "greatest of 1,000 on the CPU");
                }
                try (FieldVector out = greatest.evaluate(b, Placement.AUTO)) {
                    assertEquals(most, values(out), "greatest of 1,000, placed by AUTO");
                }
                DeviceException tooMany =
                        assertThrows(DeviceException.class, () -> greatest.evaluate(b, Placement.OPENCL));
                assertTrue(
                        tooMany.getMessage().contains("bytes of kernel arguments (2000 columns, 0 literals)"),
                        tooMany.getMessage());
            }
            evaluateEverywhere(
                    quiver.compile(SCHEMA, call("concat", strings)),
                    expected(r -> S[r] == null ? ".".repeat(500) : (S[r] + ".").repeat(500)),
                    "concat of 1,000");
            // Deeply parenthesized text: refused before the parser runs, past the nesting limit (1,000 by default).
            String parens = "(".repeat(5_000) + "f" + ")".repeat(5_000);
            PlanningException p = assertThrows(PlanningException.class, () -> quiver.compile(SCHEMA, parens));
            assertTrue(
                    p.getMessage().startsWith("the expression text is nested deeper than 1000 levels"), p.getMessage());
        });
    }

    /**
     * A deep plan evaluates on a thread of Quiver's: a cancel handle watching the caller still stops it, and so
     * does an interrupt of the caller, at the next kernel boundary; nothing stays allocated. {@code stop(i)} is i,
     * and cancels (or interrupts) as it runs, at the bottom of 300 levels of {@code + (- i)}: the negation beside
     * it is the next boundary.
     */
    @Test
    void aDeepPlanIsCancelledByTheCallersHandleOrInterrupt() {
        CancelHandle[] handle = new CancelHandle[1];
        Thread[] caller = new Thread[1];
        boolean[] interrupt = new boolean[1];
        quiver.functions()
                .register(ArrayFunctions.adapt(
                        "stop",
                        Signature.uniform(1, List.of(DataType.INT32), Volatility.VOLATILE),
                        types -> DataType.INT32,
                        (arrays, call) -> {
                            if (interrupt[0]) {
                                caller[0].interrupt();
                                // The caller, waiting for this thread, passes its interrupt on: wait for it to arrive
                                // (a hang guard).
                                long deadline = System.nanoTime() + 60_000_000_000L;
                                while (!Thread.currentThread().isInterrupted() && System.nanoTime() < deadline) {
                                    Thread.onSpinWait();
                                }
                            } else {
                                handle[0].cancel();
                            }
                            IntVector in = (IntVector) arrays.getFirst();
                            IntVector out = new IntVector("stop", call.config().allocator());
                            out.allocateNew(call.numberRows());
                            for (int r = 0; r < call.numberRows(); r++) {
                                if (in.isNull(r)) {
                                    out.setNull(r);
                                } else {
                                    out.set(r, in.get(r));
                                }
                            }
                            out.setValueCount(call.numberRows());
                            return out;
                        }));
        CompiledExpression e = quiver.compile(SCHEMA, chain(call("stop", col("i")), 300, x -> x.add(col("i").neg())));
        for (boolean byInterrupt : new boolean[] {false, true}) {
            interrupt[0] = byInterrupt;
            handle[0] = new CancelHandle();
            SmallStack.run(() -> {
                caller[0] = Thread.currentThread();
                try (VectorSchemaRoot b = batch()) {
                    long before = allocator.getAllocatedMemory();
                    CancelledException c = assertThrows(
                            CancelledException.class,
                            () -> handle[0].call(() -> e.evaluate(b, Placement.CPU, allocator)));
                    assertTrue(
                            c.detail().endsWith(byInterrupt ? Cancellation.INTERRUPTED : Cancellation.CANCELLED),
                            c.detail());
                    assertEquals(byInterrupt, Thread.interrupted(), "the caller's interrupt flag is kept");
                    assertEquals(
                            before, allocator.getAllocatedMemory(), "everything the evaluation allocated is freed");
                }
            });
        }
        // Not cancelled: i - 299 i.
        try (VectorSchemaRoot b = batch();
                FieldVector out = e.evaluate(b, Placement.CPU, allocator)) {
            interrupt[0] = false;
            handle[0] = new CancelHandle();
            assertEquals(expected(r -> I[r] == null ? null : I[r] - 299 * I[r]), values(out));
        }
    }

    /** A limit raised to 5,000 levels: planning and evaluation take a thread with a stack of their own for it. */
    @Test
    void aRaisedLimitTakesItsOwnThreadsWhateverTheCallersStack() {
        try (var q = Quiver.builder()
                .allocator(allocator)
                .openCl(false)
                .maxExpressionDepth(5_000)
                .build()) {
            SmallStack.run(() -> {
                Expr e = chain(col("b"), 5_000, Expr::not);
                try (VectorSchemaRoot b = batch();
                        FieldVector out = q.compile(SCHEMA, e).evaluate(b, Placement.CPU)) {
                    assertEquals(expected(r -> not(B[r])), values(out));
                }
                Expr deeper = chain(col("b"), 5_001, Expr::not);
                PlanningException ex = assertThrows(PlanningException.class, () -> q.compile(SCHEMA, deeper));
                assertTrue(
                        ex.getMessage()
                                .startsWith("the expression is nested 5001 levels deep, more than the limit of 5000"),
                        ex.getMessage());
            });
        }
    }
}
