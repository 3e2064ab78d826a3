package dev.quiver.functions.builtin;

import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.arrow.vector.Float8Vector;

/**
 * {@code random()}: a uniformly distributed Float64 in [0, 1), a different one for every row.
 * Volatile: never folded, called once per batch, never null.
 */
final class Random implements ScalarFunction {
    private static final Signature SIGNATURE = Signature.nullary(Volatility.VOLATILE);

    @Override
    public String name() {
        return "random";
    }

    @Override
    public List<String> aliases() {
        return List.of("rand");
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return DataType.FLOAT64;
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        int rows = call.numberRows();
        SplittableRandom random =
                new SplittableRandom(ThreadLocalRandom.current().nextLong());
        Float8Vector out = new Float8Vector("random", call.config().allocator());
        try {
            out.allocateNew(rows);
            for (int i = 0; i < rows; i++) {
                out.set(i, random.nextDouble());
            }
            out.setValueCount(rows);
            return new ColumnarValue.Array(out);
        } catch (RuntimeException e) {
            out.close();
            throw e;
        }
    }

    @Override
    public String description() {
        return "A random Float64 in [0, 1), different on every row (volatile).";
    }
}
