package dev.quiver.planning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.functions.PlanningException;
import dev.quiver.physical.FusedKernelExpr;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.RowType;
import dev.quiver.rowfn.Strategy;
import dev.quiver.rowfn.Val;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.DataType;
import dev.quiver.types.ElementType;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** RowFns at planning: signatures from generic bodies, coercion, fusion into segments, folding, and what they compute. */
class RowFnPlanningTest extends PlanningTestBase {

    static RowFn square() {
        return RowFn.declare("square")
                .arg("v", RowType.NUMERIC)
                .returns(RowType.SAME_AS_ARGS)
                .body(v -> v.mul(v));
    }

    static RowFn clampUnit() {
        return RowFn.declare("clamp_unit")
                .arg("v", RowType.FLOATING)
                .returns(RowType.SAME_AS_ARGS)
                .body(v -> Val.select(v.lt(0.0), Val.of(v.type(), 0), Val.select(v.gt(1.0), Val.of(v.type(), 1), v)));
    }

    @Test
    void aGenericBodyIsCapturedOncePerTypeAndCallsResolveToTheNarrowestThatFits() {
        RowFn square = square();
        assertEquals(
                4, square.capturedInstances().size(), "captured at declaration for Int32, Int64, Float32, Float64");
        assertEquals(
                ElementType.INT64, square.instance(List.of(ElementType.INT64)).resultType());
        registry.register(square);
        assertEquals(DataType.INT32, plan("square(x)").outputType());
        assertEquals(
                DataType.INT32,
                plan("square(t8)").outputType(),
                "Int8 widens to Int32, the first alternative it reaches");
        assertEquals(DataType.INT64, plan("square(l)").outputType());
        assertEquals(DataType.FLOAT64, plan("square(y)").outputType());
        PlanningException e = assertThrows(PlanningException.class, () -> plan("square(name)"));
        assertTrue(
                e.getMessage().contains("square(Int32)") && e.getMessage().contains("square(Float64)"), e.getMessage());
    }

    @Test
    void rowFnsArithmeticAndComparisonsFuseIntoOneSegmentThatComputesWhatTheUnfusedCallsDo() {
        registry.register(square());
        registry.register(clampUnit());
        PhysicalPlan p = plan("clamp_unit(square(y) * 0.25) + 1.0 >= 1.5");
        FusedKernelExpr seg = assertInstanceOf(FusedKernelExpr.class, p.root(), p.explain());
        assertEquals(
                List.of("clamp_unit", "square"),
                seg.rowFns().stream().map(RowFn::name).sorted().toList());
        assertEquals(ElementType.BOOL, seg.program().resultType());
        assertTrue(p.explain().contains("kernel segment"), p.explain());
        // y: 1.5, NULL, 0.0, -4.0, 2.5 -> clamp(y²/4) + 1 >= 1.5
        assertEquals(Arrays.asList(true, null, false, true, true), evaluate(p, batch()));
    }

    @Test
    void sqlComparisonsKeepTheirNaNOrderWhenFused() {
        registry.register(square());
        // NaN is above every number and equal to itself in SQL; the fused form must say so.
        PhysicalPlan lt = plan("square(y) * CAST('NaN' AS DOUBLE) > 1e300");
        PhysicalPlan eq = plan("square(y) * CAST('NaN' AS DOUBLE) = CAST('NaN' AS DOUBLE)");
        assertInstanceOf(FusedKernelExpr.class, lt.root(), lt.explain());
        assertEquals(Arrays.asList(true, null, true, true, true), evaluate(lt, batch()));
        assertEquals(Arrays.asList(true, null, true, true, true), evaluate(eq, batch()));
    }

    @Test
    void callsOverLiteralsFoldAtPlanningAndLiteralPartsOfABodyFoldIntoTheProgram() {
        RowFn weird = RowFn.declare("weird")
                .arg("x", RowType.FLOAT64)
                .arg("k", RowType.FLOAT64)
                .body((x, k) -> x.mul(k.cos().exp()));
        registry.register(weird);
        PhysicalPlan constant = plan("weird(2.0, 3.0)");
        assertEquals(
                "literal " + (2.0 * StrictMath.exp(StrictMath.cos(3.0))),
                constant.root().describe());
        assertEquals(1, weird.stats().batches(Strategy.CONSTANT), "the call over literals ran once, at planning");
        weird.stats().reset();
        PhysicalPlan partly = plan("weird(y, 3.0)");
        KernelProgram program =
                assertInstanceOf(FusedKernelExpr.class, partly.root()).program();
        assertFalse(program.anyNode(n -> n instanceof IrNode.Unary), "exp(cos(3.0)) is one literal: " + program);
        assertEquals(
                StrictMath.exp(StrictMath.cos(3.0)),
                program.constants().getFirst().value());
        assertEquals(
                Arrays.asList(
                        1.5 * StrictMath.exp(StrictMath.cos(3.0)),
                        null,
                        0.0,
                        -4.0 * StrictMath.exp(StrictMath.cos(3.0)),
                        2.5 * StrictMath.exp(StrictMath.cos(3.0))),
                evaluate(partly, batch()));
        assertEquals(0, weird.stats().constantEvaluations(), "nothing left to compute per batch: " + weird.stats());
    }

    @Test
    void anOptionalOutputEndsItsSegmentAndANonStrictBodySeesNulls() {
        RowFn safeLn = RowFn.declare("safe_ln")
                .arg("x", RowType.FLOAT64)
                .optionalOutput()
                .body(x -> x.ln().nullIf(x.le(0)));
        RowFn firstValid = RowFn.declare("first_valid")
                .arg("a", RowType.FLOAT64)
                .arg("b", RowType.FLOAT64)
                .rowBody(r -> Val.select(r.isValid(0), r.arg(0), r.arg(1))
                        .nullIf(r.isValid(0).or(r.isValid(1)).not()));
        registry.register(safeLn);
        registry.register(firstValid);
        registry.register(square());
        PhysicalPlan p = plan("square(safe_ln(y))");
        FusedKernelExpr outer = assertInstanceOf(FusedKernelExpr.class, p.root(), p.explain());
        assertInstanceOf(
                FusedKernelExpr.class, outer.inputs().getFirst(), "safe_ln is a segment of its own: " + p.explain());
        double ln15 = StrictMath.log(1.5), ln25 = StrictMath.log(2.5);
        assertEquals(Arrays.asList(ln15 * ln15, null, null, null, ln25 * ln25), evaluate(p, batch()));
        PhysicalPlan q = plan("first_valid(y, CAST(x AS DOUBLE))");
        assertTrue(q.explain().contains("[sees nulls]"), q.explain());
        // y: 1.5, NULL, 0.0, -4.0, 2.5; x: 1, -2, NULL, 0, 5
        assertEquals(Arrays.asList(1.5, -2.0, 0.0, -4.0, 2.5), evaluate(q, batch()));
    }

    @Test
    void aFallibleBodyFailsNamingTheFunctionTheValueAndTheRow() {
        RowFn checkedSqrt = RowFn.declare("checked_sqrt")
                .arg("x", RowType.FLOAT64)
                .fallible()
                .body(x -> x.sqrt().failIf(x.lt(0.0), "negative input", x));
        registry.register(checkedSqrt);
        PhysicalPlan p = plan("checked_sqrt(y)");
        KernelArithmeticException e = assertThrows(KernelArithmeticException.class, () -> evaluate(p, batch()));
        assertEquals(
                "checked_sqrt: negative input (value -4.0) in checked_sqrt(y) at row 3 (on reference)", e.getMessage());
        assertTrue(p.explain().contains("can fail"), p.explain());
    }

    @Test
    void aBooleanArgumentAndResult() {
        RowFn pick = RowFn.declare("pick")
                .arg("c", RowType.BOOLEAN)
                .arg("a", RowType.INT32)
                .arg("b", RowType.INT32)
                .body((c, a, b) -> c.choose(a, b));
        RowFn positive = RowFn.declare("positive")
                .arg("v", RowType.NUMERIC)
                .returns(RowType.BOOLEAN)
                .body(v -> v.gt(0));
        registry.register(pick);
        registry.register(positive);
        // flag: true, false, NULL, true, NULL; x: 1, -2, NULL, 0, 5
        assertEquals(Arrays.asList(1, 2, null, 0, null), evaluate(plan("pick(flag, x, 2)"), batch()));
        assertEquals(Arrays.asList(true, false, null, false, true), evaluate(plan("positive(x)"), batch()));
    }
}
