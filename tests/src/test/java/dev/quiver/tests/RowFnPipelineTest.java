package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.functions.PlanningException;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.physical.FusedKernelExpr;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.RowType;
import dev.quiver.rowfn.Strategy;
import dev.quiver.rowfn.Val;
import dev.quiver.sql.SqlParser;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryEncoder;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The RowFn pipeline, proven by counting what the body computed ({@link RowFn#stats()}): constants
 * per batch, the strategies, the dictionary shortcut, packed Boolean output, optional output,
 * fusion against the unfused tree, failures, and bad input. Each runs on the CPU and on OpenCL.
 */
class RowFnPipelineTest extends QuiverTestBase {
    /** Rows per batch: many vector steps, and not a multiple of any lane count. */
    static final int ROWS = 4099;

    enum Where {
        CPU,
        OPENCL
    }

    /** {@code x * exp(cos(k))}: the part over {@code k} is what constant folding must compute once. */
    static RowFn weird() {
        return RowFn.declare("weird")
                .arg("x", RowType.FLOAT64)
                .arg("k", RowType.FLOAT64)
                .returns(RowType.FLOAT64)
                .body((x, k) -> x.mul(k.cos().exp()));
    }

    /** Integer division that fails on a zero divisor, naming itself. */
    static RowFn safeDiv() {
        return RowFn.declare("safe_div")
                .arg("a", RowType.INT64)
                .arg("b", RowType.INT64)
                .returns(RowType.INT64)
                .fallible()
                .body((a, b) -> a.div(Val.select(b.eq(0), Val.of(1L), b)).failIf(b.eq(0), "division by zero", b));
    }

    static RowFn inBox() {
        return RowFn.declare("in_box")
                .arg("x", RowType.FLOAT64)
                .arg("y", RowType.FLOAT64)
                .returns(RowType.BOOLEAN)
                .body((x, y) -> x.abs().le(1.0).and(y.abs().le(1.0)));
    }

    static RowFn safeLn() {
        return RowFn.declare("safe_ln")
                .arg("x", RowType.FLOATING)
                .returns(RowType.SAME_AS_ARGS)
                .optionalOutput()
                .body(x -> x.ln().nullIf(x.le(0)));
    }

    /** A volatile nullary function whose value each batch reads: a constant the planner cannot fold. */
    static final class Param implements ScalarFunction {
        final AtomicReference<Double> value = new AtomicReference<>(2.0);
        private final String name;

        Param() {
            this("param");
        }

        Param(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Signature signature() {
            return Signature.nullary(Volatility.VOLATILE);
        }

        @Override
        public DataType returnType(List<DataType> argTypes) {
            return DataType.FLOAT64;
        }

        @Override
        public ColumnarValue invoke(ScalarFunctionArgs args) {
            return new ColumnarValue.Scalar(new ScalarValue(DataType.FLOAT64, value.get()));
        }
    }

    private Placement placement(Where where) {
        if (where == Where.OPENCL) {
            OpenClAvailability.requireOpenCl(quiver);
            return Placement.OPENCL;
        }
        return Placement.CPU;
    }

    private static Schema schema(Field... fields) {
        return new Schema(List.of(fields));
    }

    private Float8Vector doubles(String name, int rows, long seed, double nullShare) {
        Random r = new Random(seed);
        Float8Vector v = new Float8Vector(name, allocator);
        v.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
            if (r.nextDouble() < nullShare) {
                v.setNull(i);
            } else {
                v.set(i, r.nextDouble() * 4 - 2);
            }
        }
        v.setValueCount(rows);
        return v;
    }

    @ParameterizedTest
    @EnumSource(Where.class)
    void partsOverBatchConstantsAreComputedOncePerBatchNotPerRow(Where where) {
        Placement p = placement(where);
        RowFn weird = weird();
        Param param = new Param();
        quiver.functions().register(weird);
        quiver.functions().register(param);
        CompiledExpression e = quiver.compile(schema(DataType.FLOAT64.toField("x", true)), "weird(x, param())");
        double[] ks = {2.0, 0.5, 0.5};
        for (double k : ks) {
            param.value.set(k);
            try (VectorSchemaRoot batch = TestColumns.batch(ROWS, doubles("x", ROWS, 1, 0.1));
                    FieldVector out = e.evaluate(batch, p)) {
                Float8Vector x = (Float8Vector) batch.getVector(0);
                for (int i = 0; i < ROWS; i++) {
                    if (x.isNull(i)) {
                        assertTrue(out.isNull(i));
                    } else {
                        double expected = x.get(i) * StrictMath.exp(StrictMath.cos(k));
                        assertEquals(expected, ((Float8Vector) out).get(i), Math.ulp(expected) * 2, "row " + i);
                    }
                }
            }
        }
        // exp(cos(k)) is one constant part: computed for k = 2.0 and k = 0.5, reused for the repeated 0.5.
        assertEquals(2, weird.stats().constantEvaluations(), weird.stats().toString());
        assertEquals(3, weird.stats().batches(Strategy.DENSE), weird.stats().toString());
        assertEquals(3L * ROWS, weird.stats().bodyRows(), weird.stats().toString());
    }

    @ParameterizedTest
    @EnumSource(Where.class)
    void literalPartsFoldAtPlanningAndConstantCallsRunOnce(Where where) {
        Placement p = placement(where);
        RowFn weird = weird();
        Param param = new Param();
        quiver.functions().register(weird);
        quiver.functions().register(param);
        Schema s = schema(DataType.FLOAT64.toField("x", true));
        CompiledExpression literal = quiver.compile(s, "weird(x, 2.0)");
        assertTrue(literal.explain().contains("kernel segment"), literal.explain());
        CompiledExpression allConstant = quiver.compile(s, "weird(param(), param())");
        Param nothing = new Param("nothing");
        nothing.value.set(null);
        quiver.functions().register(nothing);
        CompiledExpression nullConstant = quiver.compile(s, "weird(x, nothing())");
        try (VectorSchemaRoot batch = TestColumns.batch(ROWS, doubles("x", ROWS, 2, 0))) {
            try (FieldVector out = literal.evaluate(batch, p)) {
                assertEquals(
                        ((Float8Vector) batch.getVector(0)).get(7) * StrictMath.exp(StrictMath.cos(2.0)),
                        ((Float8Vector) out).get(7),
                        1e-12);
            }
            assertEquals(
                    0, weird.stats().constantEvaluations(), "exp(cos(2.0)) was folded at planning: " + weird.stats());
            try (FieldVector out = allConstant.evaluate(batch, p)) {
                double expected = 2.0 * StrictMath.exp(StrictMath.cos(2.0));
                for (int i = 0; i < ROWS; i += 1000) {
                    assertEquals(expected, ((Float8Vector) out).get(i));
                }
            }
            assertEquals(
                    1, weird.stats().batches(Strategy.CONSTANT), weird.stats().toString());
            try (FieldVector out = nullConstant.evaluate(batch, p)) {
                assertEquals(ROWS, out.getNullCount());
            }
            assertEquals(
                    1, weird.stats().batches(Strategy.ALL_NULL), weird.stats().toString());
            assertEquals(ROWS, weird.stats().bodyRows(), "only the literal call computed rows: " + weird.stats());
        }
    }

    private BigIntVector longs(String name, long[] values, boolean[] isNull) {
        BigIntVector v = new BigIntVector(name, allocator);
        v.allocateNew(values.length);
        for (int i = 0; i < values.length; i++) {
            v.set(i, values[i]); // the value stays behind a null: kernels may read it
            if (isNull != null && isNull[i]) {
                v.setNull(i);
            }
        }
        v.setValueCount(values.length);
        return v;
    }

    /** Checks every row of {@code out} against a / b (null where either is null). */
    private static void assertQuotients(BigIntVector a, BigIntVector b, FieldVector out) {
        BigIntVector q = (BigIntVector) out;
        for (int i = 0; i < a.getValueCount(); i++) {
            if (a.isNull(i) || b.isNull(i)) {
                assertTrue(q.isNull(i), "row " + i);
            } else {
                assertEquals(a.get(i) / b.get(i), q.get(i), "row " + i);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Where.class)
    void eachStrategyIsChosenByTheShareOfValidRowsAndComputesWhatItShould(Where where) {
        Placement p = placement(where);
        RowFn div = safeDiv();
        quiver.functions().register(div);
        CompiledExpression e = quiver.compile(
                schema(DataType.INT64.toField("a", true), DataType.INT64.toField("b", true)), "safe_div(a, b)");
        long[] a = new long[ROWS];
        long[] b = new long[ROWS];
        for (int i = 0; i < ROWS; i++) {
            a[i] = i * 7L - 1000;
            b[i] = (i % 5) + 1;
        }
        // Valid rows only: the first half of the batch is null, so whole vector steps are skipped.
        boolean[] firstHalfNull = new boolean[ROWS];
        for (int i = 0; i < ROWS / 2; i++) {
            firstHalfNull[i] = true;
        }
        runStrategy(e, p, a, b, firstHalfNull, div, Strategy.VALID_ROWS);
        long computed = div.stats().bodyRows();
        assertTrue(computed < ROWS / 2 + 64, "valid rows only computed " + computed + " of " + ROWS);
        assertTrue(computed >= ROWS - ROWS / 2, "at least the valid rows: " + computed);

        // Filter and scatter: 3% valid, computed exactly once each.
        div.stats().reset();
        boolean[] sparse = new boolean[ROWS];
        int valid = 0;
        for (int i = 0; i < ROWS; i++) {
            sparse[i] = i % 33 != 0;
            valid += sparse[i] ? 0 : 1;
        }
        runStrategy(e, p, a, b, sparse, div, Strategy.FILTER_SCATTER);
        assertEquals(valid, div.stats().bodyRows());

        // Dense retry: almost all valid, a zero divisor hidden behind a null makes the dense run retry.
        div.stats().reset();
        boolean[] dense = new boolean[ROWS];
        dense[100] = true;
        long[] zeroBehindNull = b.clone();
        zeroBehindNull[100] = 0;
        runStrategy(e, p, a, zeroBehindNull, dense, div, Strategy.DENSE_RETRY);
        assertTrue(div.stats().bodyRows() >= 2L * ROWS - 64, "dense, then valid rows: " + div.stats());

        // Dense retry without a failure computes every row once.
        div.stats().reset();
        runStrategy(e, p, a, b, dense, div, Strategy.DENSE_RETRY);
        assertEquals(ROWS, div.stats().bodyRows());
    }

    private void runStrategy(
            CompiledExpression e, Placement p, long[] a, long[] b, boolean[] nulls, RowFn fn, Strategy expected) {
        try (VectorSchemaRoot batch = TestColumns.batch(a.length, longs("a", a, null), longs("b", b, nulls));
                FieldVector out = e.evaluate(batch, p)) {
            assertQuotients((BigIntVector) batch.getVector(0), (BigIntVector) batch.getVector(1), out);
        }
        assertEquals(1, fn.stats().batches(expected), fn.stats().toString());
    }

    @ParameterizedTest
    @EnumSource(Where.class)
    void aFailureNamesTheFunctionTheRowAndTheValueInEveryStrategy(Where where) {
        Placement p = placement(where);
        quiver.functions().register(safeDiv());
        CompiledExpression e = quiver.compile(
                schema(DataType.INT64.toField("a", true), DataType.INT64.toField("b", true)), "safe_div(a, b)");
        long[] a = new long[ROWS];
        long[] b = new long[ROWS];
        Arrays.fill(b, 3);
        b[2500] = 0;
        b[3000] = 0;
        boolean[][] nullPatterns = {null, halfNull(), everyButMultiplesOf(50)};
        for (boolean[] nulls : nullPatterns) {
            try (VectorSchemaRoot batch = TestColumns.batch(ROWS, longs("a", a, null), longs("b", b, nulls))) {
                KernelArithmeticException x = assertThrows(
                        KernelArithmeticException.class,
                        () -> e.evaluate(batch, p).close());
                assertTrue(
                        x.getMessage()
                                .startsWith("safe_div: division by zero (value 0) in safe_div(a, b) at row 2500 (on "),
                        x.getMessage());
            }
        }
    }

    private static boolean[] halfNull() {
        boolean[] n = new boolean[ROWS];
        for (int i = 0; i < ROWS / 2; i++) {
            n[i] = true;
        }
        return n;
    }

    private static boolean[] everyButMultiplesOf(int k) {
        boolean[] n = new boolean[ROWS];
        for (int i = 0; i < ROWS; i++) {
            n[i] = i % k != 0;
        }
        return n;
    }

    @ParameterizedTest
    @EnumSource(Where.class)
    void aDictionaryColumnComputesOncePerDictionaryValue(Where where) {
        Placement p = placement(where);
        RowFn weird = weird();
        quiver.functions().register(weird);
        double[] dictValues = {0.5, -1.25, 3.0, 7.5, -0.0};
        try (Float8Vector dict = new Float8Vector("dict", allocator);
                Float8Vector plain = doubles("x", ROWS, 3, 0.1)) {
            dict.allocateNew(dictValues.length);
            for (int i = 0; i < dictValues.length; i++) {
                dict.set(i, dictValues[i]);
            }
            dict.setValueCount(dictValues.length);
            Random r = new Random(4);
            for (int i = 0; i < ROWS; i++) {
                if (!plain.isNull(i)) {
                    plain.set(i, dictValues[r.nextInt(dictValues.length)]);
                }
            }
            Dictionary d = new Dictionary(dict, new DictionaryEncoding(9L, false, new ArrowType.Int(16, true)));
            DictionaryProvider.MapDictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider(d);
            try (FieldVector encoded = (FieldVector) DictionaryEncoder.encode(plain, d);
                    VectorSchemaRoot batch = new VectorSchemaRoot(List.of(encoded))) {
                batch.setRowCount(ROWS);
                CompiledExpression e =
                        quiver.compile(batch.getSchema(), provider, SqlParser.parse("weird(x, 2.0) + 1"));
                assertTrue(e.explain().contains("once per dictionary value"), e.explain());
                try (FieldVector out = e.evaluate(batch, p)) {
                    double f = StrictMath.exp(StrictMath.cos(2.0));
                    for (int i = 0; i < ROWS; i++) {
                        if (plain.isNull(i)) {
                            assertTrue(out.isNull(i), "row " + i);
                        } else {
                            assertEquals(plain.get(i) * f + 1, ((Float8Vector) out).get(i), 1e-12, "row " + i);
                        }
                    }
                }
            }
        }
        assertEquals(
                1, weird.stats().batches(Strategy.DICTIONARY), weird.stats().toString());
        assertEquals(dictValues.length, weird.stats().bodyRows(), weird.stats().toString());
    }

    @ParameterizedTest
    @EnumSource(Where.class)
    void aPredicateWritesPackedBitsAndAnOptionalOutputItsOwnNulls(Where where) {
        Placement p = placement(where);
        quiver.functions().register(inBox());
        quiver.functions().register(safeLn());
        Schema s = schema(DataType.FLOAT64.toField("x", true), DataType.FLOAT64.toField("y", true));
        try (VectorSchemaRoot batch = TestColumns.batch(ROWS, doubles("x", ROWS, 5, 0.1), doubles("y", ROWS, 6, 0.1))) {
            Float8Vector x = (Float8Vector) batch.getVector(0), y = (Float8Vector) batch.getVector(1);
            try (FieldVector out = quiver.compile(s, "in_box(x, y)").evaluate(batch, p)) {
                BitVector bits = assertInstanceOf(BitVector.class, out);
                for (int i = 0; i < ROWS; i++) {
                    if (x.isNull(i) || y.isNull(i)) {
                        assertTrue(bits.isNull(i), "row " + i);
                    } else {
                        assertEquals(Math.abs(x.get(i)) <= 1 && Math.abs(y.get(i)) <= 1, bits.get(i) == 1, "row " + i);
                    }
                }
            }
            try (FieldVector out = quiver.compile(s, "safe_ln(x)").evaluate(batch, p)) {
                Float8Vector ln = (Float8Vector) out;
                for (int i = 0; i < ROWS; i++) {
                    if (x.isNull(i) || x.get(i) <= 0) {
                        assertTrue(ln.isNull(i), "row " + i);
                    } else {
                        assertEquals(
                                StrictMath.log(x.get(i)),
                                ln.get(i),
                                Math.ulp(StrictMath.log(x.get(i))) * 4,
                                "row " + i);
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Where.class)
    void adjacentCallsAndArithmeticFuseIntoOneSegmentThatMatchesTheUnfusedTree(Where where) {
        Placement p = placement(where);
        RowFn weird = weird();
        quiver.functions().register(weird);
        quiver.functions().register(safeLn());
        quiver.functions().register(GuideHypot.fn());
        Schema s = schema(DataType.FLOAT64.toField("x", true), DataType.FLOAT64.toField("y", true));
        CompiledExpression fused = quiver.compile(s, "guide_hypot(weird(x, 2.0), y) * 2 + 1 > 1.5");
        FusedKernelExpr root =
                assertInstanceOf(FusedKernelExpr.class, fused.plan().root(), fused.explain());
        assertEquals(
                List.of("guide_hypot", "weird"),
                root.rowFns().stream().map(RowFn::name).sorted().toList());
        assertTrue(
                fused.explain().contains("[RowFn guide_hypot, weird]")
                        || fused.explain().contains("[RowFn weird, guide_hypot]"),
                fused.explain());
        try (VectorSchemaRoot batch = TestColumns.batch(ROWS, doubles("x", ROWS, 7, 0.1), doubles("y", ROWS, 8, 0.1));
                FieldVector out = fused.evaluate(batch, p)) {
            // The unfused tree: each step its own expression, its result a column of the next batch.
            try (FieldVector w = quiver.compile(s, "weird(x, 2.0)").evaluate(batch, p);
                    VectorSchemaRoot step1 = TestColumns.batch(ROWS, renamed(w, "w"), copy(batch.getVector(1)));
                    FieldVector h = quiver.compile(step1.getSchema(), "guide_hypot(w, y)")
                            .evaluate(step1, p);
                    VectorSchemaRoot step2 = TestColumns.batch(ROWS, renamed(h, "h"));
                    FieldVector expected =
                            quiver.compile(step2.getSchema(), "h * 2 + 1 > 1.5").evaluate(step2, p)) {
                assertEquals(TestColumns.values(expected), TestColumns.values(out));
            }
        }
    }

    private FieldVector renamed(FieldVector v, String name) {
        TransferPair tp = v.getTransferPair(name, allocator);
        tp.transfer();
        return (FieldVector) tp.getTo();
    }

    private FieldVector copy(FieldVector v) {
        TransferPair tp = v.getTransferPair(v.getName(), allocator);
        tp.splitAndTransfer(0, v.getValueCount());
        return (FieldVector) tp.getTo();
    }

    /** A generic hypot like the guide's, under its own name. */
    static final class GuideHypot {
        static RowFn fn() {
            return RowFn.declare("guide_hypot")
                    .arg("x", RowType.FLOATING)
                    .arg("y", RowType.FLOATING)
                    .returns(RowType.SAME_AS_ARGS)
                    .body((x, y) -> x.mul(x).add(y.mul(y)).sqrt());
        }
    }

    @Test
    void badBodiesAreRejectedAtDeclarationAndBadCallsAtPlanning() {
        IllegalArgumentException wrongType = assertThrows(
                IllegalArgumentException.class,
                () -> RowFn.declare("f")
                        .arg("x", RowType.FLOAT64)
                        .arg("y", RowType.FLOAT64)
                        .body((x, y) -> x.and(y)));
        assertTrue(
                wrongType.getMessage().contains("RowFn f(x Float64, y Float64)")
                        && wrongType.getMessage().contains("Float64"),
                wrongType.getMessage());
        IllegalArgumentException declared = assertThrows(
                IllegalArgumentException.class,
                () -> RowFn.declare("g")
                        .arg("x", RowType.INT32)
                        .returns(RowType.FLOAT64)
                        .body(x -> x.add(1)));
        assertTrue(
                declared.getMessage().contains("declared to return Float64 but its body gives Int32"),
                declared.getMessage());
        IllegalArgumentException fallible = assertThrows(
                IllegalArgumentException.class,
                () -> RowFn.declare("h")
                        .arg("x", RowType.INT64)
                        .arg("y", RowType.INT64)
                        .body((x, y) -> x.div(y)));
        assertTrue(fallible.getMessage().contains("call fallible()"), fallible.getMessage());
        IllegalArgumentException optional = assertThrows(
                IllegalArgumentException.class,
                () -> RowFn.declare("k").arg("x", RowType.FLOAT64).body(x -> x.nullIf(x.lt(0))));
        assertTrue(optional.getMessage().contains("optionalOutput()"), optional.getMessage());

        quiver.functions()
                .register(RowFn.declare("scale_by")
                        .arg("x", RowType.FLOAT64)
                        .constantArg("k", RowType.INT32)
                        .body((x, k) -> x.mul(k)));
        Schema s = schema(DataType.FLOAT64.toField("x", true), DataType.INT32.toField("n", true));
        PlanningException notLiteral = assertThrows(PlanningException.class, () -> quiver.compile(s, "scale_by(x, n)"));
        assertTrue(
                notLiteral.getMessage().contains("argument 2 (k) of scale_by must be a literal")
                        || notLiteral.getMessage().contains("must be a literal"),
                notLiteral.getMessage());
        PlanningException noSignature =
                assertThrows(PlanningException.class, () -> quiver.compile(s, "scale_by('a', 2)"));
        assertTrue(noSignature.getMessage().contains("scale_by"), noSignature.getMessage());
    }

    @ParameterizedTest
    @EnumSource(Where.class)
    void aNonStrictFunctionTakesConstantsAndNullConstants(Where where) {
        Placement p = placement(where);
        Param nothing = new Param("nothing");
        nothing.value.set(null);
        Param param = new Param();
        param.value.set(5.0);
        quiver.functions().register(nothing);
        quiver.functions().register(param);
        Schema s = schema(DataType.FLOAT64.toField("x", true));
        try (VectorSchemaRoot batch = TestColumns.batch(
                4, TestColumns.of(allocator, "x", DataType.FLOAT64, Arrays.asList(1.0, null, 9.0, null), () -> -7.0))) {
            assertEquals(
                    Arrays.asList(5.0, 5.0, 9.0, 5.0),
                    TestColumns.valuesAndClose(
                            quiver.compile(s, "greatest(x, 5.0)").evaluate(batch, p)));
            assertEquals(
                    Arrays.asList(5.0, 5.0, 9.0, 5.0),
                    TestColumns.valuesAndClose(
                            quiver.compile(s, "greatest(x, param())").evaluate(batch, p)));
            assertEquals(
                    Arrays.asList(1.0, null, 9.0, null),
                    TestColumns.valuesAndClose(
                            quiver.compile(s, "greatest(x, nothing())").evaluate(batch, p)));
            assertEquals(
                    Arrays.asList(1.0, 5.0, 5.0, 5.0),
                    TestColumns.valuesAndClose(
                            quiver.compile(s, "least(x, param())").evaluate(batch, p)));
        }
    }

    @ParameterizedTest
    @EnumSource(Where.class)
    void aFailingDictionaryValueThatNoRowUsesIsNoErrorAndARealFailureNamesTheBatchRow(Where where) {
        Placement p = placement(where);
        try (BigIntVector dict = longs("dict", new long[] {0, 3}, null)) {
            Dictionary d = new Dictionary(dict, new DictionaryEncoding(12L, false, new ArrowType.Int(32, true)));
            DictionaryProvider.MapDictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider(d);
            int rows = 64;
            for (int failing : new int[] {-1, 41}) {
                IntVector indices = new IntVector(
                        new Field("b", new FieldType(true, new ArrowType.Int(32, true), d.getEncoding()), null),
                        allocator);
                indices.allocateNew(rows);
                for (int i = 0; i < rows; i++) {
                    indices.set(i, i == failing ? 0 : 1);
                }
                indices.setNull(5); // behind it: index 0, the failing value
                indices.set(5, 0);
                indices.setNull(5);
                indices.setValueCount(rows);
                try (VectorSchemaRoot batch = new VectorSchemaRoot(List.of((FieldVector) indices))) {
                    batch.setRowCount(rows);
                    CompiledExpression e = quiver.compile(batch.getSchema(), provider, SqlParser.parse("mod(100, b)"));
                    if (failing < 0) {
                        try (FieldVector out = e.evaluate(batch, p)) {
                            for (int i = 0; i < rows; i++) {
                                if (i == 5) {
                                    assertTrue(out.isNull(i), "row 5 is null");
                                } else {
                                    assertEquals(1L, ((BigIntVector) out).get(i), "row " + i);
                                }
                            }
                        }
                    } else {
                        KernelArithmeticException x = assertThrows(
                                KernelArithmeticException.class,
                                () -> e.evaluate(batch, p).close());
                        assertTrue(
                                x.getMessage().contains("mod: division by zero")
                                        && x.getMessage().contains("at row 41 "),
                                x.getMessage());
                    }
                }
            }
        }
    }
}
