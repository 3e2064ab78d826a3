package dev.quiver.planning;

import static dev.quiver.expr.Expr.call;
import static dev.quiver.expr.Expr.callNamed;
import static dev.quiver.expr.Expr.col;
import static dev.quiver.expr.Expr.lit;
import static dev.quiver.expr.Expr.nullLit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.quiver.expr.Expr;
import dev.quiver.functions.PlanningException;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.physical.FusedKernelExpr;
import dev.quiver.physical.LiteralExpr;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Input that cannot be planned fails at planning, with a message that says what and lists what exists. */
class BadInputPlanningTest extends PlanningTestBase {
    private static final String COLUMNS = "x Int32, y Float64, l Int64, name Utf8, flag Boolean, t8 Int8, u32 UInt32, "
            + "dec Decimal128(10, 2), day Date32";

    /** A function that counts its calls: none of these plans may ever reach evaluation. */
    private final AtomicInteger invoked = new AtomicInteger();

    private ScalarFunction anyOne() {
        return new ScalarFunction() {
            @Override
            public String name() {
                return "any_one";
            }

            @Override
            public Signature signature() {
                return Signature.any(1, Volatility.IMMUTABLE);
            }

            @Override
            public DataType returnType(List<DataType> argTypes) {
                return argTypes.getFirst();
            }

            @Override
            public ColumnarValue invoke(ScalarFunctionArgs args) {
                invoked.incrementAndGet();
                return new ColumnarValue.Scalar(ScalarValue.nullOf(
                        args.argFields().isEmpty()
                                ? DataType.NULL
                                : DataType.fromField(args.argFields().getFirst())));
            }
        };
    }

    @BeforeEach
    void registerAnyOne() {
        registry.register(anyOne());
    }

    private void rejected(Expr e, String message) {
        PlanningException ex = assertThrows(PlanningException.class, () -> plan(e), e.toString());
        assertEquals(message, ex.getMessage(), e.toString());
        assertEquals(0, invoked.get(), "a rejected plan must not evaluate anything");
        assertEquals(0, allocator.getAllocatedMemory());
    }

    private void rejected(String sql, String message) {
        rejected(Expr.parse(sql), message);
    }

    @Test
    void unknownColumnsListTheSchema() {
        rejected("z + 1", "no column 'z' in the schema (columns: " + COLUMNS + ")");
        rejected("sqrt(X)", "no column 'X' in the schema; did you mean 'x'? (columns: " + COLUMNS + ")");
        rejected("nmae || 'a'", "no column 'nmae' in the schema; did you mean 'name'? (columns: " + COLUMNS + ")");
        rejected(col("t", "nope"), "no column 't.nope' in the schema (columns: " + COLUMNS + ")");
    }

    @Test
    void unknownFunctionsSuggestCloseNames() {
        rejected(
                "sqrtt(x)",
                "unknown function 'sqrtt'; did you mean 'sqrt'? ("
                        + registry.names().size() + " functions are registered)");
        rejected(
                "uper(name)",
                "unknown function 'uper'; did you mean 'upper'? ("
                        + registry.names().size() + " functions are registered)");
        rejected("xyzzy(x)", "unknown function 'xyzzy' (" + registry.names().size() + " functions are registered)");
    }

    @Test
    void wrongArity() {
        rejected(
                "sqrt(x, y)",
                "sqrt takes 1 argument, got 2: sqrt(Int32, Float64); signatures: sqrt(Float64), sqrt(Float32)");
        rejected("sqrt()", "sqrt takes 1 argument, got 0: sqrt(); signatures: sqrt(Float64), sqrt(Float32)");
        rejected("random(1)", "random takes no arguments, got 1: random(Int32); signatures: random()");
        rejected(
                call("any_one", col("x"), col("y")),
                "any_one takes 1 argument, got 2: any_one(Int32, Float64); signatures: any_one(Any)");
    }

    @Test
    void typesThatDoNotCoerce() {
        rejected("x + name", "cannot apply + to Int32 and Utf8 in (x + name)");
        rejected("name AND x", "AND needs Boolean operands, got Utf8 in (name AND x)");
        rejected("NOT x", "NOT needs Boolean operands, got Int32 in (NOT x)");
        rejected("sqrt(flag)", "no signature of sqrt accepts (Boolean); signatures: sqrt(Float64), sqrt(Float32)");
        rejected(
                "hypot(name, x)",
                "no signature of hypot accepts (Utf8, Int32); signatures: hypot(Float64, Float64), "
                        + "hypot(Float32, Float32)");
        rejected("flag = x", "cannot compare Boolean with Int32 (=) in (flag = x)");
        rejected("name LIKE x", "LIKE needs strings, got Utf8 LIKE Int32 in (name LIKE x)");
        rejected("-u32", "cannot negate a UInt32 value in (- u32) (negation needs a signed integer, float or decimal)");
        rejected(
                "CASE WHEN flag THEN x ELSE flag END",
                "the THEN/ELSE values of CASE have no common type: [Int32, Boolean] in CASE WHEN flag THEN x ELSE flag END");
        rejected("CASE WHEN x THEN 1 END", "CASE WHEN needs Boolean operands, got Int32 in CASE WHEN x THEN 1 END");
        rejected("CAST(flag AS DATE)", "cannot cast Boolean to Date32 in CAST(flag AS DATE)");
    }

    @Test
    void aNonLiteralWhereALiteralIsRequired() {
        rejected("round(x, y)", "argument 2 (digits) of round must be a literal, got y in round(x, y)");
        rejected("round(y, x + 1)", "argument 2 (digits) of round must be a literal, got (x + 1) in round(y, (x + 1))");
        // A literal after folding is a literal: round(y, 1 + 1) is round(y, 2), the digits inside the fused kernel.
        FusedKernelExpr folded =
                assertInstanceOf(FusedKernelExpr.class, plan("round(y, 1 + 1)").root());
        assertEquals(plan("round(y, 2)").root(), folded);
        assertEquals(1, folded.program().arity());
    }

    @Test
    void anUntypedNullArgumentTheSignatureCannotType() {
        rejected(
                call("any_one", nullLit()),
                "argument 1 of any_one is an untyped NULL, and its signature does not say what type "
                        + "it should have; write CAST(NULL AS <type>) in any_one(NULL)");
        // Typed, it plans (and, all literal, folds to a typed NULL).
        PhysicalPlan p = plan(call("any_one", nullLit(DataType.INT64)));
        assertEquals(new LiteralExpr(ScalarValue.nullOf(DataType.INT64)), p.root());
        // A signature that does say: sqrt(NULL) is a Float64 NULL.
        assertEquals(
                new LiteralExpr(ScalarValue.nullOf(DataType.FLOAT64)),
                plan("sqrt(NULL)").root());
    }

    @Test
    void namedArgumentsAreReorderedToTheParameters() {
        PhysicalPlan named = plan("hypot(y => y, x => x)");
        PhysicalPlan positional = plan("hypot(x, y)");
        assertEquals(positional.root(), named.root());
        assertEquals(
                "kernel segment hypot(CAST(x AS DOUBLE), y) as hypot(cast($0 as Float64), $1) [RowFn hypot] [dense] -> Float64\n"
                        + "  #0 x -> Int32\n  #1 y -> Float64\n",
                named.root().explainTree());
        // Literals: hypot(y => 1, x => 2) is hypot(2, 1), folded.
        assertEquals(
                new LiteralExpr(new ScalarValue(DataType.FLOAT64, Math.sqrt(5))),
                plan("hypot(y => 1, x => 2)").root());
        // Positional then named.
        assertEquals(
                positional.root(),
                plan(callNamed("hypot", Arrays.asList(null, "y"), col("x"), col("y")))
                        .root());
        // Order matters where it shows: round(digits => 1, x => y) rounds y.
        assertEquals(
                plan("round(y, 1)").root(), plan("round(digits => 1, x => y)").root());
    }

    @Test
    void badNamedArguments() {
        rejected(
                "hypot(z => 1, x => 2)",
                "function hypot has no parameter 'z' (parameters: x, y) in hypot(z => 1, x => 2)");
        rejected("hypot(x => 1, x => 2)", "parameter 'x' of hypot is given twice in hypot(x => 1, x => 2)");
        rejected("hypot(1, x => 2)", "parameter 'x' of hypot is given twice in hypot(1, x => 2)");
        rejected("hypot(y => 2)", "parameter 'x' of hypot is missing in hypot(y => 2)");
        rejected("pi(x => 1)", "function pi does not take named arguments, in pi(x => 1)");
        rejected(
                callNamed("any_one", List.of("v"), lit(1)),
                "function any_one does not take named arguments, in any_one(v => 1)");
    }

    @Test
    void aScalarSubqueryNeedsAPipeline() {
        String sub = "(SELECT rate FROM rates WHERE (cur = 'EUR'))";
        rejected(
                "x > (SELECT rate FROM rates WHERE cur = 'EUR') * 2",
                "a scalar subquery needs the tables of a query: run it in a "
                        + "pipeline (dev.quiver.stream.Pipeline), which computes it once per query; got " + sub
                        + " in (x > (" + sub + " * 2))");
        // The whole expression, alias included; the subquery's own columns (rate, cur) are not looked up in the batch's
        // schema.
        rejected(
                "(SELECT a FROM r LIMIT 1) AS z",
                "a scalar subquery needs the tables of a query: run it in a pipeline "
                        + "(dev.quiver.stream.Pipeline), which computes it once per query; got (SELECT a FROM r LIMIT 1) in "
                        + "(SELECT a FROM r LIMIT 1) AS z");
        // Even where a literal-only expression around it would fold, and below other nodes.
        Expr nested = call("abs", Expr.scalarSubquery(lit(1), "t", null)).add(col("x"));
        rejected(
                nested,
                "a scalar subquery needs the tables of a query: run it in a pipeline (dev.quiver.stream.Pipeline), "
                        + "which computes it once per query; got (SELECT 1 FROM t) in (abs((SELECT 1 FROM t)) + x)");
    }
}
