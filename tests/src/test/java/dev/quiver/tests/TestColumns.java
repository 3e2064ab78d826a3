package dev.quiver.tests;

import dev.quiver.types.DataType;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Test columns from Java values, with garbage behind the nulls of fixed-width columns (a value
 * is written first, then the slot is marked null), and reading them back.
 */
final class TestColumns {
    private TestColumns() {}

    /**
     * A vector named {@code name} of {@code type} holding {@code values} (null entries are nulls);
     * a null slot of a fixed-width vector holds a value drawn from {@code garbage} (null: none).
     */
    static FieldVector of(
            BufferAllocator allocator, String name, DataType type, List<?> values, Supplier<Object> garbage) {
        FieldVector v = Values.allocate(type, name, values.size(), allocator);
        try {
            for (int i = 0; i < values.size(); i++) {
                Object o = values.get(i);
                if (o == null) {
                    if (garbage != null && v instanceof BaseFixedWidthVector) {
                        Values.set(v, i, new ScalarValue(type, garbage.get()));
                    }
                    Values.setNull(v, i);
                } else {
                    Values.set(v, i, new ScalarValue(type, o));
                }
            }
            v.setValueCount(values.size());
            return v;
        } catch (RuntimeException e) {
            v.close();
            throw e;
        }
    }

    /** A batch of {@code rows} rows over {@code columns}, which it then owns. */
    static VectorSchemaRoot batch(int rows, FieldVector... columns) {
        VectorSchemaRoot root = new VectorSchemaRoot(List.of(columns));
        root.setRowCount(rows);
        return root;
    }

    /** Every row of {@code v}, as {@link Values#get} reads it. */
    static List<Object> values(FieldVector v) {
        List<Object> out = new ArrayList<>(v.getValueCount());
        for (int i = 0; i < v.getValueCount(); i++) {
            out.add(Values.get(v, i).value());
        }
        return out;
    }

    /** Every row of {@code v}, then closes it. */
    static List<Object> valuesAndClose(FieldVector v) {
        try (v) {
            return values(v);
        }
    }

    /** The Kleene AND of two SQL Booleans (null: NULL). */
    static Boolean and(Boolean l, Boolean r) {
        if (Boolean.FALSE.equals(l) || Boolean.FALSE.equals(r)) {
            return false;
        }
        return l == null || r == null ? null : true;
    }

    /** The Kleene OR of two SQL Booleans (null: NULL). */
    static Boolean or(Boolean l, Boolean r) {
        if (Boolean.TRUE.equals(l) || Boolean.TRUE.equals(r)) {
            return true;
        }
        return l == null || r == null ? null : false;
    }

    /**
     * SQL's order of doubles (NaN above +Infinity and equal to itself, -0.0 = 0.0) as a
     * comparison result; null when either is NULL.
     */
    static Integer compare(Double l, Double r) {
        if (l == null || r == null) {
            return null;
        }
        if (Double.isNaN(l) || Double.isNaN(r)) {
            return Boolean.compare(Double.isNaN(l), Double.isNaN(r));
        }
        return l < r ? -1 : l > r ? 1 : 0;
    }

    /** {@code l < r} in SQL (NULL when either is NULL). */
    static Boolean lt(Double l, double r) {
        Integer c = compare(l, r);
        return c == null ? null : c < 0;
    }

    /** {@code l > r} in SQL. */
    static Boolean gt(Double l, double r) {
        Integer c = compare(l, r);
        return c == null ? null : c > 0;
    }

    /** {@code l >= r} in SQL. */
    static Boolean ge(Double l, double r) {
        Integer c = compare(l, r);
        return c == null ? null : c >= 0;
    }
}
