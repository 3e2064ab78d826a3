package dev.quiver.tests;

import dev.quiver.functions.AsyncScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Async functions and batches for the pipeline tests. */
final class AsyncFixtures {
    private AsyncFixtures() {}

    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
            new Field("x", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null)));

    /** Rows [first, first + rows): id = row, x = row % 100, null when row % 7 == 3. */
    static VectorSchemaRoot batch(BufferAllocator allocator, long first, int rows) {
        VectorSchemaRoot b = VectorSchemaRoot.create(SCHEMA, allocator);
        BigIntVector id = (BigIntVector) b.getVector(0);
        Float8Vector x = (Float8Vector) b.getVector(1);
        id.allocateNew(rows);
        x.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
            long r = first + i;
            id.set(i, r);
            if (r % 7 == 3) {
                x.setNull(i);
            } else {
                x.set(i, r % 100);
            }
        }
        b.setRowCount(rows);
        return b;
    }

    static Double x(long row) {
        return row % 7 == 3 ? null : (double) (row % 100);
    }

    /**
     * {@code name(x float64) -> float64}: {@code body} per row (null in, null out), computed on
     * another thread after {@code delayMs}; records each call's row count and the most calls
     * in flight.
     */
    static final class Remote implements AsyncScalarFunction {
        final String name;
        final int ideal;
        final int limit;
        final long delayMs;
        final Function<Double, Double> body;
        final List<Integer> callRows = new CopyOnWriteArrayList<>();
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger peak = new AtomicInteger();
        volatile Function<ScalarFunctionArgs, RuntimeException> failWhen = a -> null;

        Remote(String name, int ideal, int limit, long delayMs, Function<Double, Double> body) {
            this.name = name;
            this.ideal = ideal;
            this.limit = limit;
            this.delayMs = delayMs;
            this.body = body;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Signature signature() {
            return Signature.exact(List.of(DataType.FLOAT64), Volatility.IMMUTABLE);
        }

        @Override
        public DataType returnType(List<DataType> argTypes) {
            return DataType.FLOAT64;
        }

        @Override
        public OptionalInt idealBatchSize() {
            return ideal > 0 ? OptionalInt.of(ideal) : OptionalInt.empty();
        }

        @Override
        public int maxConcurrentCalls() {
            return limit;
        }

        @Override
        public CompletableFuture<ColumnarValue> invokeAsync(ScalarFunctionArgs args) {
            callRows.add(args.numberRows());
            int now = inFlight.incrementAndGet();
            peak.accumulateAndGet(now, Math::max);
            Float8Vector in = (Float8Vector) ((ColumnarValue.Array) args.arg(0)).vector();
            // Read the arguments now, as a remote client serialises its request.
            List<Double> values = new ArrayList<>(args.numberRows());
            for (int i = 0; i < args.numberRows(); i++) {
                values.add(in.isNull(i) ? null : in.get(i));
            }
            RuntimeException fail = failWhen.apply(args);
            BufferAllocator allocator = args.config().allocator();
            Executor later = CompletableFuture.delayedExecutor(delayMs, TimeUnit.MILLISECONDS);
            return CompletableFuture.supplyAsync(
                    () -> {
                        inFlight.decrementAndGet();
                        if (fail != null) {
                            throw fail;
                        }
                        Float8Vector out = new Float8Vector(args.returnField(), allocator);
                        out.allocateNew(values.size());
                        for (int i = 0; i < values.size(); i++) {
                            Double v = values.get(i) == null ? null : body.apply(values.get(i));
                            if (v == null) {
                                out.setNull(i);
                            } else {
                                out.set(i, v);
                            }
                        }
                        out.setValueCount(values.size());
                        return (ColumnarValue) new ColumnarValue.Array(out);
                    },
                    later);
        }
    }
}
