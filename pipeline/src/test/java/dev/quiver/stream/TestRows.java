package dev.quiver.stream;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Batches of four nullable columns (i Int32, d Float64, s Utf8, b Bool) built from, and read
 * back into, plain Java rows: the independent reference the tests compare Arrow's results with.
 */
final class TestRows {
    static final Schema SCHEMA = new Schema(List.of(
            Field.nullable("i", new ArrowType.Int(32, true)),
            Field.nullable("d", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
            Field.nullable("s", ArrowType.Utf8.INSTANCE),
            Field.nullable("b", ArrowType.Bool.INSTANCE)));

    private TestRows() {}

    /** A row: {@code [Integer, Double, String, Boolean]}, any of them null. */
    static List<Object> row(Integer i, Double d, String s, Boolean b) {
        return Arrays.asList(i, d, s, b);
    }

    /** {@code n} random rows numbered from {@code first} (about one value in five null, some strings empty). */
    static List<List<Object>> random(Random random, int first, int n) {
        List<List<Object>> rows = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            int id = first + k;
            Integer i = random.nextInt(5) == 0 ? null : id;
            Double d = random.nextInt(5) == 0 ? null : id * 0.5 - random.nextInt(100);
            String s = random.nextInt(5) == 0 ? null : "r" + id + "x".repeat(random.nextInt(4));
            if (s != null && random.nextInt(10) == 0) {
                s = ""; // empty, not null
            }
            Boolean b = random.nextInt(5) == 0 ? null : random.nextBoolean();
            rows.add(row(i, d, s, b));
        }
        return rows;
    }

    /** A batch of {@link #SCHEMA} holding {@code rows}, owned by the caller. */
    static VectorSchemaRoot batch(BufferAllocator allocator, List<List<Object>> rows) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        try {
            IntVector i = (IntVector) root.getVector(0);
            Float8Vector d = (Float8Vector) root.getVector(1);
            VarCharVector s = (VarCharVector) root.getVector(2);
            BitVector b = (BitVector) root.getVector(3);
            root.allocateNew();
            for (int r = 0; r < rows.size(); r++) {
                List<Object> row = rows.get(r);
                if (row.get(0) == null) {
                    i.setNull(r);
                } else {
                    i.setSafe(r, (Integer) row.get(0));
                }
                if (row.get(1) == null) {
                    d.setNull(r);
                } else {
                    d.setSafe(r, (Double) row.get(1));
                }
                if (row.get(2) == null) {
                    s.setNull(r);
                } else {
                    s.setSafe(r, ((String) row.get(2)).getBytes(StandardCharsets.UTF_8));
                }
                if (row.get(3) == null) {
                    b.setNull(r);
                } else {
                    b.setSafe(r, (Boolean) row.get(3) ? 1 : 0);
                }
            }
            root.setRowCount(rows.size());
            return root;
        } catch (RuntimeException e) {
            root.close();
            throw e;
        }
    }

    /** The rows of a batch of {@link #SCHEMA}, checking each column's value count. */
    static List<List<Object>> rows(VectorSchemaRoot root) {
        if (!root.getSchema().equals(SCHEMA)) {
            throw new AssertionError("schema " + root.getSchema());
        }
        List<List<Object>> out = new ArrayList<>(root.getRowCount());
        List<Object> i = values(root.getVector(0)),
                d = values(root.getVector(1)),
                s = values(root.getVector(2)),
                b = values(root.getVector(3));
        for (int r = 0; r < root.getRowCount(); r++) {
            out.add(row((Integer) i.get(r), (Double) d.get(r), (String) s.get(r), (Boolean) b.get(r)));
        }
        return out;
    }

    /** Every value of an Int32, Float64, Utf8 or Bool vector, null-ness checked on the validity bit. */
    static List<Object> values(FieldVector v) {
        List<Object> out = new ArrayList<>(v.getValueCount());
        for (int r = 0; r < v.getValueCount(); r++) {
            if (v.isNull(r)) {
                out.add(null);
                continue;
            }
            out.add(
                    switch (v) {
                        case IntVector x -> x.get(r);
                        case Float8Vector x -> x.get(r);
                        case VarCharVector x -> new String(x.get(r), StandardCharsets.UTF_8);
                        case BitVector x -> x.get(r) == 1;
                        default -> throw new AssertionError("unexpected vector " + v.getClass());
                    });
        }
        return out;
    }

    /** Column {@code c} of {@code rows}. */
    static List<Object> column(List<List<Object>> rows, int c) {
        List<Object> out = new ArrayList<>(rows.size());
        for (List<Object> row : rows) {
            out.add(row.get(c));
        }
        return out;
    }
}
