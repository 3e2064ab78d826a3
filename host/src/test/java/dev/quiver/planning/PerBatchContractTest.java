package dev.quiver.planning;

import static dev.quiver.expr.Expr.call;
import static dev.quiver.expr.Expr.col;
import static dev.quiver.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.errors.EvaluationException;
import dev.quiver.functions.ArrayFunctions;
import dev.quiver.functions.ExecutionConfig;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.physical.EvalContext;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.junit.jupiter.api.Test;

/** A function node is invoked once per batch, and what it returns is checked at the boundary. */
class PerBatchContractTest extends PlanningTestBase {

    /** A user function over one Int32 argument whose body is {@code result}; counts its calls. */
    record UserFunction(
            String name,
            Volatility volatility,
            DataType returnType,
            AtomicInteger calls,
            Function<ScalarFunctionArgs, ColumnarValue> result)
            implements ScalarFunction {
        UserFunction(
                String name,
                Volatility volatility,
                DataType returnType,
                Function<ScalarFunctionArgs, ColumnarValue> result) {
            this(name, volatility, returnType, new AtomicInteger(), result);
        }

        @Override
        public Signature signature() {
            return Signature.exact(List.of(DataType.INT32), volatility);
        }

        @Override
        public DataType returnType(List<DataType> argTypes) {
            return returnType;
        }

        @Override
        public ColumnarValue invoke(ScalarFunctionArgs args) {
            calls.incrementAndGet();
            return result.apply(args);
        }
    }

    /** An Int32 array of {@code rows} rows, row i = i. */
    private static ColumnarValue ints(ScalarFunctionArgs args, int rows) {
        IntVector v = new IntVector("r", args.config().allocator());
        v.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
            v.set(i, i);
        }
        v.setValueCount(rows);
        return new ColumnarValue.Array(v);
    }

    private List<FieldVector> xBatch(Integer... xs) {
        return List.of(column(DataType.INT32, (Object[]) xs));
    }

    private List<Object> run(PhysicalPlan p, List<FieldVector> cols) {
        EvalContext ctx = new EvalContext(cols, cols.getFirst().getValueCount(), config, ROW_INTERPRETER);
        try (ColumnarValue v = p.root().evaluate(ctx)) {
            return values(v, ctx.rows());
        }
    }

    @Test
    void oneCallPerFunctionNodePerBatch() {
        UserFunction f =
                new UserFunction("counted", Volatility.IMMUTABLE, DataType.INT32, a -> ints(a, a.numberRows()));
        registry.register(f);
        PhysicalPlan one = plan(call("counted", col("x")));
        PhysicalPlan two = plan(call("counted", col("x")).add(call("counted", col("x").mul(lit(2)))));
        List<List<FieldVector>> batches = List.of(xBatch(1, 2, 3), xBatch(4), xBatch(5, 6, 7, 8, 9, 10, 11));
        for (List<FieldVector> b : batches) {
            run(one, b);
        }
        assertEquals(3, f.calls().get(), "three batches, one node");
        f.calls().set(0);
        for (int k = 0; k < batches.size(); k++) {
            List<Object> v = run(two, batches.get(k));
            assertEquals(2 * (k + 1), f.calls().get(), "two nodes, " + (k + 1) + " batches");
            assertEquals(2 * 0, (Integer) v.getFirst(), "row 0 is 0 + 0");
        }
        // An empty batch is still one call.
        f.calls().set(0);
        assertEquals(List.of(), run(one, xBatch()));
        assertEquals(1, f.calls().get());
    }

    @Test
    void aFunctionReturningTheWrongRowCountFailsNamingIt() {
        for (int rows : new int[] {0, 2, 6}) {
            registry.register(new UserFunction("short_rows", Volatility.IMMUTABLE, DataType.INT32, a -> ints(a, rows)));
            PhysicalPlan p = plan(call("short_rows", col("x")));
            List<FieldVector> b = xBatch(1, 2, 3, 4, 5);
            EvaluationException e = assertThrows(EvaluationException.class, () -> run(p, b));
            assertEquals("function short_rows returned " + rows + " rows for a batch of 5 rows", e.getMessage());
        }
    }

    @Test
    void aOneRowArrayForAllScalarArgumentsIsAScalar() {
        // Volatile, so that planning does not fold the all-literal call away.
        UserFunction f = new UserFunction("one_row", Volatility.VOLATILE, DataType.INT32, a -> ints(a, 1));
        registry.register(f);
        PhysicalPlan p = plan(call("one_row", lit(42)));
        EvalContext ctx = new EvalContext(List.of(), 5, config, ROW_INTERPRETER);
        try (ColumnarValue v = p.root().evaluate(ctx)) {
            assertEquals(
                    new ScalarValue(DataType.INT32, 0),
                    assertInstanceOf(ColumnarValue.Scalar.class, v).value());
        }
        // With a column argument a one-row array for five rows is an error, not a scalar.
        PhysicalPlan q = plan(call("one_row", col("x")));
        List<FieldVector> b = xBatch(1, 2, 3, 4, 5);
        assertThrows(EvaluationException.class, () -> run(q, b));
    }

    @Test
    void withCheckTypesAWrongReturnedTypeFailsNamingTheFunction() {
        // Planned to return Int64, returns Int32.
        registry.register(new UserFunction("liar", Volatility.IMMUTABLE, DataType.INT64, a -> ints(a, a.numberRows())));
        PhysicalPlan p = plan(call("liar", col("x")));
        List<FieldVector> b = xBatch(1, 2, 3);
        EvaluationException e = assertThrows(EvaluationException.class, () -> run(p, b));
        assertEquals("function liar returned Int32 but was planned to return Int64", e.getMessage());
        // A scalar of the wrong type too.
        registry.register(new UserFunction(
                "scalar_liar",
                Volatility.VOLATILE,
                DataType.INT64,
                a -> new ColumnarValue.Scalar(new ScalarValue(DataType.UTF8, "no"))));
        PhysicalPlan q = plan(call("scalar_liar", lit(1)));
        EvaluationException e2 = assertThrows(EvaluationException.class, () -> run(q, b));
        assertEquals("function scalar_liar returned Utf8 but was planned to return Int64", e2.getMessage());
        // With the check off the result passes unchecked (the flag is what makes the difference).
        config = new ExecutionConfig(allocator, QUERY_START, false, Map.of());
        assertEquals(Arrays.asList(0, 1, 2), run(p, b));
    }

    @Test
    void randomIsOneCallPerBatchAndDistinctPerRow() {
        ScalarFunction random = registry.lookup("random");
        AtomicInteger calls = new AtomicInteger();
        ScalarFunction counted = new ScalarFunction() {
            @Override
            public String name() {
                return "random";
            }

            @Override
            public Signature signature() {
                return random.signature();
            }

            @Override
            public DataType returnType(List<DataType> argTypes) {
                return random.returnType(argTypes);
            }

            @Override
            public ColumnarValue invoke(ScalarFunctionArgs args) {
                calls.incrementAndGet();
                return random.invoke(args);
            }
        };
        registry.register(counted);
        PhysicalPlan p = plan("random() + x");
        for (int batch = 1; batch <= 3; batch++) {
            Integer[] zeros = new Integer[100];
            Arrays.fill(zeros, 0);
            List<Object> v = run(p, xBatch(zeros));
            assertEquals(batch, calls.get());
            assertEquals(100, v.stream().distinct().count(), "every row its own value");
            assertTrue(v.stream().allMatch(o -> (Double) o >= 0 && (Double) o < 1), v.toString());
        }
        // random() alone over a batch: an array of distinct values, not a scalar.
        PhysicalPlan alone = plan("random()");
        EvalContext ctx = new EvalContext(List.of(), 50, config, ROW_INTERPRETER);
        try (ColumnarValue v = alone.root().evaluate(ctx)) {
            ColumnarValue.Array a = assertInstanceOf(ColumnarValue.Array.class, v);
            assertEquals(50, a.length());
            assertEquals(50, values(v, 50).stream().distinct().count());
        }
        assertEquals(4, calls.get());
    }

    /** {@code a + b} over Int32 arrays; records the lengths it was given. */
    private static ArrayFunctions.ArrayFunction recordingSum(List<List<Integer>> seen) {
        return (arrays, call) -> {
            seen.add(arrays.stream().map(FieldVector::getValueCount).toList());
            IntVector a = (IntVector) arrays.get(0);
            IntVector b = (IntVector) arrays.get(1);
            int n = Math.max(a.getValueCount(), b.getValueCount());
            IntVector out = new IntVector("sum", call.config().allocator());
            out.allocateNew(n);
            for (int i = 0; i < n; i++) {
                int ai = a.getValueCount() == 1 ? 0 : i;
                int bi = b.getValueCount() == 1 ? 0 : i;
                if (a.isNull(ai) || b.isNull(bi)) {
                    out.setNull(i);
                } else {
                    out.set(i, a.get(ai) + b.get(bi));
                }
            }
            out.setValueCount(n);
            return out;
        };
    }

    @Test
    void arrayFunctionsPadOrPassScalarsAsHinted() {
        Signature sig = Signature.exact(List.of(DataType.INT32, DataType.INT32), Volatility.VOLATILE);
        List<List<Integer>> padSeen = new ArrayList<>();
        List<List<Integer>> singularSeen = new ArrayList<>();
        registry.register(ArrayFunctions.adapt("sum_pad", sig, t -> DataType.INT32, recordingSum(padSeen)));
        registry.register(ArrayFunctions.adapt(
                "sum_singular",
                sig,
                t -> DataType.INT32,
                recordingSum(singularSeen),
                ArrayFunctions.Hint.PAD,
                ArrayFunctions.Hint.ACCEPTS_SINGULAR));
        List<FieldVector> b = xBatch(1, null, 3, 4);

        assertEquals(Arrays.asList(11, null, 13, 14), run(plan(call("sum_pad", col("x"), lit(10))), b));
        assertEquals(List.of(List.of(4, 4)), padSeen);
        assertEquals(Arrays.asList(11, null, 13, 14), run(plan(call("sum_singular", col("x"), lit(10))), b));
        assertEquals(List.of(List.of(4, 1)), singularSeen);
        // A scalar first argument is padded by default, whatever the second's hint.
        assertEquals(Arrays.asList(11, null, 13, 14), run(plan(call("sum_singular", lit(10), col("x"))), b));
        assertEquals(List.of(4, 4), singularSeen.getLast());

        // All scalar: one-row arrays in, a scalar out.
        PhysicalPlan scalars = plan(call("sum_pad", lit(2), lit(3)));
        EvalContext ctx = new EvalContext(List.of(), 7, config, ROW_INTERPRETER);
        try (ColumnarValue v = scalars.root().evaluate(ctx)) {
            assertEquals(
                    new ScalarValue(DataType.INT32, 5),
                    assertInstanceOf(ColumnarValue.Scalar.class, v).value());
        }
        assertEquals(List.of(1, 1), padSeen.getLast());
    }

    @Test
    void anArrayFunctionCalledDirectlyFollowsTheSameRules() {
        List<List<Integer>> seen = new ArrayList<>();
        FieldVector x = column(DataType.INT32, 1, 2, 3);
        ScalarFunctionArgs mixed = new ScalarFunctionArgs(
                List.of(ColumnarValue.Array.borrowed(x), ColumnarValue.scalar(DataType.INT32, 5)),
                List.of(DataType.INT32.toField("a", true), DataType.INT32.toField("b", true)),
                3,
                DataType.INT32.toField("r", true),
                config);
        try (ColumnarValue v = ArrayFunctions.invoke(
                mixed,
                recordingSum(seen),
                ArrayFunctions.Hint.ACCEPTS_SINGULAR,
                ArrayFunctions.Hint.ACCEPTS_SINGULAR)) {
            assertEquals(List.of(6, 7, 8), values(v, 3));
        }
        assertEquals(List.of(List.of(3, 1)), seen);
        ScalarFunctionArgs scalars = new ScalarFunctionArgs(
                List.of(ColumnarValue.scalar(DataType.INT32, 1), ColumnarValue.scalar(DataType.INT32, 5)),
                mixed.argFields(),
                3,
                mixed.returnField(),
                config);
        try (ColumnarValue v = ArrayFunctions.invoke(scalars, recordingSum(seen))) {
            assertEquals(
                    new ScalarValue(DataType.INT32, 6),
                    assertInstanceOf(ColumnarValue.Scalar.class, v).value());
        }
        assertEquals(List.of(1, 1), seen.getLast());
        assertEquals(Values.get(x, 0).value(), 1);
    }
}
