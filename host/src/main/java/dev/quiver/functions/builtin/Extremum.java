package dev.quiver.functions.builtin;

import dev.quiver.expr.Operator;
import dev.quiver.functions.PlanningException;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.kernels.Kernels;
import dev.quiver.types.DataType;
import dev.quiver.types.TypeCoercion;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.Values;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;

/**
 * SQL's {@code least} and {@code greatest}: any number of arguments of any comparable types
 * (cast to their comparison type), NULL arguments skipped (NULL only when all are NULL), and
 * values ordered as comparisons order them (NaN above every number, -0.0 = 0.0; on a tie the
 * earlier argument wins). Runs on whole columns with the comparison kernels.
 */
abstract sealed class Extremum implements ScalarFunction permits Extremum.Least, Extremum.Greatest {
    private static final Signature SIGNATURE = Signature.userDefined(Volatility.IMMUTABLE);

    /** The operator under which a later argument replaces the current pick. */
    abstract Operator replaces();

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    public List<DataType> coerceTypes(List<DataType> argTypes) {
        if (argTypes.isEmpty()) {
            throw new PlanningException(name() + " needs at least one argument");
        }
        DataType t = DataType.NULL;
        for (DataType a : argTypes) {
            DataType before = t;
            t = TypeCoercion.comparisonType(t, a)
                    .orElseThrow(() -> new PlanningException(name() + " cannot compare " + before + " with " + a + ": "
                            + name() + argTypes.toString().replace('[', '(').replace(']', ')')));
        }
        if (t instanceof DataType.ListType || t instanceof DataType.Struct || t instanceof DataType.Interval) {
            throw new PlanningException(name() + " cannot order " + t + " values");
        }
        DataType target = t;
        return argTypes.stream().map(a -> target).toList();
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return argTypes.getFirst();
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        int rows = call.args().stream().allMatch(a -> a instanceof ColumnarValue.Scalar) ? 1 : call.numberRows();
        BufferAllocator allocator = call.config().allocator();
        DataType type = DataType.fromField(call.returnField());
        ColumnarValue pick = borrow(call.arg(0));
        try {
            for (int k = 1; k < call.args().size(); k++) {
                ColumnarValue next = borrow(call.arg(k));
                int[][] split;
                try (ColumnarValue better = Kernels.compare(replaces(), next, pick, rows, allocator)) {
                    split = split(next, pick, better, rows);
                }
                if (split[0].length == 0) {
                    continue;
                }
                ColumnarValue merged;
                try (ColumnarValue fromNext = Kernels.take(next, split[0], allocator);
                        ColumnarValue fromPick = Kernels.take(pick, split[1], allocator)) {
                    merged = Kernels.scatter(
                            type, rows, List.of(split[0], split[1]), List.of(fromNext, fromPick), allocator);
                }
                pick.close();
                pick = merged;
            }
            if (rows == 1 && call.args().stream().allMatch(a -> a instanceof ColumnarValue.Scalar)) {
                return pick instanceof ColumnarValue.Scalar s ? s : scalarOf((ColumnarValue.Array) pick, type);
            }
            ColumnarValue.Array out = Values.toArray(pick, rows, allocator);
            if (out != pick) {
                pick.close();
            } else if (!out.owned()) {
                // Still one of the arguments: hand back a copy the caller owns.
                ColumnarValue copy = Kernels.take(out, identity(rows), allocator);
                return copy;
            }
            pick = null;
            return out;
        } finally {
            if (pick != null) {
                pick.close();
            }
        }
    }

    private static ColumnarValue.Scalar scalarOf(ColumnarValue.Array a, DataType type) {
        try (a) {
            return new ColumnarValue.Scalar(Values.get(a.vector(), 0, type));
        }
    }

    private static ColumnarValue borrow(ColumnarValue v) {
        return v instanceof ColumnarValue.Array a ? ColumnarValue.Array.borrowed(a.vector()) : v;
    }

    private static int[] identity(int n) {
        int[] r = new int[n];
        for (int i = 0; i < n; i++) {
            r[i] = i;
        }
        return r;
    }

    /** Rows where {@code next} replaces {@code pick} (it is not null, and pick is null or worse), and the others. */
    private static int[][] split(ColumnarValue next, ColumnarValue pick, ColumnarValue better, int rows) {
        int[] take = new int[rows];
        int[] keep = new int[rows];
        int t = 0;
        int k = 0;
        for (int i = 0; i < rows; i++) {
            boolean replace = !isNull(next, i) && (isNull(pick, i) || isTrue(better, i));
            if (replace) {
                take[t++] = i;
            } else {
                keep[k++] = i;
            }
        }
        return new int[][] {Arrays.copyOf(take, t), Arrays.copyOf(keep, k)};
    }

    private static boolean isNull(ColumnarValue v, int row) {
        return switch (v) {
            case ColumnarValue.Scalar s -> s.isNull();
            case ColumnarValue.Array a -> a.vector().isNull(row);
        };
    }

    private static boolean isTrue(ColumnarValue v, int row) {
        return switch (v) {
            case ColumnarValue.Scalar s -> Boolean.TRUE.equals(s.value().value());
            case ColumnarValue.Array a -> !a.vector().isNull(row) && ((BitVector) a.vector()).get(row) != 0;
        };
    }

    /** {@code least(a, b, ...)}: the smallest non-null argument. */
    static final class Least extends Extremum {
        @Override
        Operator replaces() {
            return Operator.LT;
        }

        @Override
        public String name() {
            return "least";
        }

        @Override
        public String description() {
            return "The smallest of its arguments, NULLs skipped (SQL).";
        }
    }

    /** {@code greatest(a, b, ...)}: the largest non-null argument. */
    static final class Greatest extends Extremum {
        @Override
        Operator replaces() {
            return Operator.GT;
        }

        @Override
        public String name() {
            return "greatest";
        }

        @Override
        public String description() {
            return "The largest of its arguments, NULLs skipped (SQL).";
        }
    }
}
