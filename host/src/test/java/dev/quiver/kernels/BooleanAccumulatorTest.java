package dev.quiver.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.quiver.expr.Operator;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The heap accumulator of AND/OR chains and the in-place kernels the chains use, against a
 * per-row Kleene reference: Boolean terms, comparisons (and their negations) combined from their
 * operands, IS [NOT] NULL from validity, merging into an owned Arrow result, at word-edge sizes.
 */
class BooleanAccumulatorTest extends KernelTestBase {
    private static final long SEED = Long.getLong("quiver.seed", 20261130L);

    private static Boolean kleene(boolean and, Boolean a, Boolean b) {
        Boolean decisive = and ? Boolean.FALSE : Boolean.TRUE;
        if (decisive.equals(a) || decisive.equals(b)) {
            return decisive;
        }
        return a == null || b == null ? null : !decisive;
    }

    private static List<Object> booleans(Random r, int n) {
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(r.nextInt(5) == 0 ? null : r.nextBoolean());
        }
        return out;
    }

    private static List<Object> doubles(Random r, int n) {
        List<Object> out = new ArrayList<>();
        double[] edges = {Double.NaN, -0.0, 0.0, 0.5, Double.POSITIVE_INFINITY};
        for (int i = 0; i < n; i++) {
            out.add(r.nextInt(6) == 0 ? null : r.nextInt(4) == 0 ? edges[r.nextInt(edges.length)] : r.nextDouble());
        }
        return out;
    }

    /** SQL total order: NaN equals NaN and sorts above everything; -0.0 = 0.0. */
    private static Boolean holds(Operator op, Double a, Double b) {
        if (a == null || b == null) {
            return null;
        }
        int c = Double.isNaN(a) || Double.isNaN(b)
                ? Boolean.compare(Double.isNaN(a), Double.isNaN(b))
                : Double.compare(a + 0.0, b + 0.0);
        return switch (op) {
            case EQ -> c == 0;
            case NOT_EQ -> c != 0;
            case LT -> c < 0;
            case LT_EQ -> c <= 0;
            case GT -> c > 0;
            case GT_EQ -> c >= 0;
            default -> throw new AssertionError(op);
        };
    }

    @Test
    void termsComparisonsAndNullTestsCombineAsKleeneSays() {
        System.out.println("BooleanAccumulatorTest seed " + SEED + " (replay with -Dquiver.seed=" + SEED + ")");
        Random r = new Random(SEED);
        Operator[] ops = {Operator.EQ, Operator.NOT_EQ, Operator.LT, Operator.LT_EQ, Operator.GT, Operator.GT_EQ};
        for (int n : new int[] {0, 1, 63, 64, 65, 130, 1000}) {
            for (boolean and : new boolean[] {true, false}) {
                String where = (and ? "AND" : "OR") + ", " + n + " rows, seed " + SEED;
                BooleanAccumulator acc = new BooleanAccumulator(and, n);
                List<Boolean> expected = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    expected.add(and);
                }
                // A Boolean array term.
                List<Object> b = booleans(r, n);
                acc.combine(arr(DataType.BOOLEAN, b.toArray()));
                for (int i = 0; i < n; i++) {
                    expected.set(i, kleene(and, expected.get(i), (Boolean) b.get(i)));
                }
                // A comparison against a scalar, its negation, and array against array.
                List<Object> x = doubles(r, n);
                List<Object> y = doubles(r, n);
                Operator op = ops[r.nextInt(ops.length)];
                acc.combineComparison(op, arr(DataType.FLOAT64, x.toArray()), sc(DataType.FLOAT64, 0.5), allocator);
                Operator other = ops[r.nextInt(ops.length)];
                acc.combineComparison(
                        other.negate(),
                        arr(DataType.FLOAT64, x.toArray()),
                        arr(DataType.FLOAT64, y.toArray()),
                        allocator);
                // IS NOT NULL of a column.
                acc.combineIsNull(arr(DataType.FLOAT64, y.toArray()), true);
                for (int i = 0; i < n; i++) {
                    Boolean e = kleene(and, expected.get(i), holds(op, (Double) x.get(i), 0.5));
                    Boolean o = holds(other, (Double) x.get(i), (Double) y.get(i));
                    e = kleene(and, e, o == null ? null : !o);
                    expected.set(i, kleene(and, e, y.get(i) != null));
                }
                assertEquals(
                        expected.stream().map(Boolean.TRUE::equals).toList(),
                        trueRows(acc.trueRows(), n),
                        where + ": TRUE rows");
                // Merged into an owned Boolean array of the batch (in place), against the reference.
                List<Object> outer = booleans(r, n);
                boolean outerAnd = r.nextBoolean();
                ColumnarValue target =
                        Kernels.filter(arr(DataType.BOOLEAN, outer.toArray()), Selection.all(n), allocator);
                try (ColumnarValue merged = acc.mergeInto(target, outerAnd, allocator)) {
                    List<Object> want = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        want.add(kleene(outerAnd, (Boolean) outer.get(i), expected.get(i)));
                    }
                    assertEquals(want, values(merged, n), where + ": merged into " + (outerAnd ? "AND" : "OR"));
                    if (n > 0) {
                        assertEquals(
                                ((ColumnarValue.Array) target).vector(),
                                ((ColumnarValue.Array) merged).vector(),
                                "merged in place");
                    }
                }
                try (ColumnarValue v = acc.toValue(allocator)) {
                    assertEquals(new ArrayList<Object>(expected), values(v, n), where + ": toValue");
                }
            }
        }
    }

    @Test
    void scalarTermsKeepAScalarEvenOnAnEmptyBatch() {
        for (int n : new int[] {0, 5}) {
            BooleanAccumulator acc = new BooleanAccumulator(true, n);
            acc.combine(sc(DataType.BOOLEAN, true));
            acc.combine(sc(DataType.BOOLEAN, null));
            assertEquals(null, scalar(assertInstanceOf(ColumnarValue.Scalar.class, acc.toValue(allocator))));
            BooleanAccumulator or = new BooleanAccumulator(false, n);
            or.combine(sc(DataType.BOOLEAN, null));
            or.combineComparison(Operator.LT, sc(DataType.INT32, 1), sc(DataType.INT32, 2), allocator);
            assertEquals(true, scalar(assertInstanceOf(ColumnarValue.Scalar.class, or.toValue(allocator))));
        }
    }

    /** Whether each row is selected. */
    private static List<Boolean> trueRows(Selection s, int n) {
        List<Boolean> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(s.get(i));
        }
        return out;
    }
}
