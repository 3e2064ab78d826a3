package dev.quiver.tests;

import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.RowType;
import dev.quiver.rowfn.StringRowFn;
import dev.quiver.strings.Utf8View;
import dev.quiver.types.DataType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Batches, functions and expressions shared by {@link MemoryLimitTest} and
 * {@link ConcurrencyStressTest}: every layer of evaluation (fused kernels, host kernels, strings
 * whose output grows, nested values, a numeric RowFn and a string RowFn).
 */
final class StressFixtures {
    /** Columns: {@code x, y} Float64, {@code i, d} Int32 ({@code d} is zero in some valid rows), {@code s} Utf8. */
    static final Schema SCHEMA = new Schema(List.of(
            DataType.FLOAT64.toField("x", true),
            DataType.FLOAT64.toField("y", true),
            DataType.INT32.toField("i", true),
            DataType.INT32.toField("d", true),
            DataType.UTF8.toField("s", true)));

    private static final String[] PIECES = {"a", "Z", "é", "ß", "€", "😀", " ", "ab", "%", "_", "x1"};

    /** A numeric RowFn (fused into the kernels of its call site). */
    static final RowFn HYPOT = RowFn.declare("stress_hypot")
            .arg("x", RowType.FLOATING)
            .arg("y", RowType.FLOATING)
            .returns(RowType.SAME_AS_ARGS)
            .body((x, y) -> x.mul(x).add(y.mul(y)).sqrt());

    /** A string RowFn whose output is three times its input (its output grows as it is written). */
    static final StringRowFn TRIPLE = RowFn.declare("stress_triple")
            .arg("s", RowType.UTF8)
            .returns(RowType.UTF8)
            .perRow((row, out) -> {
                Utf8View s = row.utf8(0);
                out.append(s);
                out.append(s);
                out.append(s);
            });

    /** Expressions over {@link #SCHEMA}, one of each kind of work. */
    static final List<String> EXPRESSIONS = List.of(
            "sqrt(x * x + y * y) * 2.5 - x", // fused numeric
            "stress_hypot(x, y) + 1", // fused, with a RowFn
            "x < y AND s <> 'ab'", // host comparisons
            "CASE WHEN x > 0 THEN upper(s) WHEN y > 0 THEN s ELSE concat(s, '-', s) END", // CASE over strings
            "upper(s)",
            "concat(s, s, s, s)",
            "s LIKE '%a%'",
            "make_array(x, y, x + y)",
            "stress_triple(s)",
            "CASE WHEN i > 0 THEN i * 2 ELSE i - 1 END", // checked integer arithmetic, CASE
            "i / d"); // fails in some batches

    private StressFixtures() {}

    static void register(Quiver quiver) {
        quiver.functions().register(HYPOT);
        quiver.functions().register(TRIPLE);
    }

    static List<Placement> placements(Quiver quiver) {
        List<Placement> p = new ArrayList<>(List.of(Placement.CPU, Placement.AUTO));
        if (!quiver.openClDevices().isEmpty()) {
            p.add(Placement.OPENCL);
        }
        return p;
    }

    /**
     * A batch of {@code rows} rows from {@code seed}: about 1 in 8 rows of each column null (with
     * garbage behind), strings of 0 to 30 characters (some of 300), ASCII and not;
     * {@code d} is zero in a valid row only when {@code zeroDivisor}.
     */
    static VectorSchemaRoot batch(BufferAllocator allocator, int rows, long seed, boolean zeroDivisor) {
        Random r = new Random(seed);
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        try {
            Float8Vector x = (Float8Vector) root.getVector("x"), y = (Float8Vector) root.getVector("y");
            IntVector i = (IntVector) root.getVector("i"), d = (IntVector) root.getVector("d");
            VarCharVector s = (VarCharVector) root.getVector("s");
            x.allocateNew(rows);
            y.allocateNew(rows);
            i.allocateNew(rows);
            d.allocateNew(rows);
            s.allocateNew(rows * 12L, rows);
            int zeroAt = zeroDivisor && rows > 0 ? r.nextInt(rows) : -1;
            for (int k = 0; k < rows; k++) {
                x.set(k, r.nextInt(50) == 0 ? Double.NaN : r.nextGaussian() * 100);
                y.set(k, r.nextGaussian() * 100);
                i.set(k, r.nextInt(2_000_001) - 1_000_000);
                d.set(k, k == zeroAt ? 0 : 1 + r.nextInt(100));
                StringBuilder sb = new StringBuilder();
                int n = r.nextInt(40) == 0 ? 300 : r.nextInt(31);
                for (int c = 0; c < n; c++) {
                    sb.append(PIECES[r.nextInt(PIECES.length)]);
                }
                s.setSafe(k, sb.toString().getBytes(StandardCharsets.UTF_8));
            }
            root.setRowCount(rows);
            // Nulls after the values, so the garbage stays behind them (never the zero divisor's row).
            for (ValueVector v : root.getFieldVectors()) {
                for (int k = 0; k < rows; k++) {
                    if (k != zeroAt && r.nextInt(8) == 0) {
                        switch (v) {
                            case Float8Vector f -> f.setNull(k);
                            case IntVector n -> n.setNull(k);
                            case VarCharVector c -> c.setNull(k);
                            default -> throw new AssertionError(v);
                        }
                    }
                }
            }
            return root;
        } catch (RuntimeException | Error e) {
            root.close();
            throw e;
        }
    }

    /** The first row where two results differ (NaN equals NaN), or -1 when they are equal row by row. */
    static int firstDifference(ValueVector expected, ValueVector actual) {
        if (expected.getValueCount() != actual.getValueCount()) {
            return Math.min(expected.getValueCount(), actual.getValueCount());
        }
        for (int k = 0; k < expected.getValueCount(); k++) {
            if (!Objects.equals(expected.getObject(k), actual.getObject(k))) {
                return k;
            }
        }
        return -1;
    }

    static String describe(ValueVector v, int row) {
        return row < 0 || row >= v.getValueCount() ? "(no row " + row + ")" : String.valueOf(v.getObject(row));
    }
}
