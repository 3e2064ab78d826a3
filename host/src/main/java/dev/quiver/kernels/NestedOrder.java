package dev.quiver.kernels;

import dev.quiver.types.DataType;
import dev.quiver.value.Values;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * The order of lists and structs, as DataFusion compares them (arrow-rs {@code make_comparator}
 * with its default options): lexicographic, element by element (a list that is a prefix of
 * another is less) and field by field, recursively; within a value, a NULL element or field is
 * equal to a NULL and less than every other value. Elements compare as the comparison kernels
 * compare their type: floats in SQL's total order (-0.0 = 0.0, NaN = NaN above everything),
 * strings and binaries by unsigned bytes, decimals by value, unsigned integers as unsigned.
 * A NULL list or struct as a whole is the caller's business (the comparison is NULL there).
 *
 * <p>Row by row and element by element through Arrow's accessors: nested comparisons are rare
 * and their values small; this is the reference, not a fast path.
 */
final class NestedOrder {
    /** The order of row {@code i} of one vector against row {@code j} of the other. */
    @FunctionalInterface
    interface RowOrder {
        int compare(int i, int j);
    }

    private NestedOrder() {}

    /** Whether values of {@code a} and {@code b} (lists or structs) can be compared: the same shape, comparable leaves. */
    static boolean comparable(DataType a, DataType b) {
        return switch (a) {
            case DataType.ListType l ->
                b instanceof DataType.ListType m && leafOrNestedComparable(l.element(), m.element());
            case DataType.Struct s -> {
                if (!(b instanceof DataType.Struct t)
                        || s.fields().size() != t.fields().size()) {
                    yield false;
                }
                for (int k = 0; k < s.fields().size(); k++) {
                    if (!leafOrNestedComparable(
                            s.fields().get(k).type(), t.fields().get(k).type())) {
                        yield false;
                    }
                }
                yield true;
            }
            default -> false;
        };
    }

    static boolean isNested(DataType t) {
        return t instanceof DataType.ListType || t instanceof DataType.Struct;
    }

    private static boolean leafOrNestedComparable(DataType a, DataType b) {
        if (isNested(a) || isNested(b)) {
            return comparable(a, b);
        }
        if (a instanceof DataType.Null || b instanceof DataType.Null) {
            return true;
        }
        return switch (a) {
            case DataType.Decimal _ -> b instanceof DataType.Decimal;
            case DataType.Utf8 _ -> b instanceof DataType.Utf8;
            case DataType.Timestamp t -> b instanceof DataType.Timestamp u && t.unit() == u.unit();
            case DataType.Interval _ -> false;
            default -> a.equals(b);
        };
    }

    /** The order of {@code a}'s rows (type {@code at}) against {@code b}'s (type {@code bt}); the types are {@link #comparable}. */
    static RowOrder of(FieldVector a, DataType at, FieldVector b, DataType bt) {
        RowOrder values = values(a, at, b, bt);
        // NULLs first, as arrow-rs orders them by default: equal to each other, below every value.
        return (i, j) -> {
            boolean an = a.isNull(i);
            boolean bn = b.isNull(j);
            if (an || bn) {
                return an == bn ? 0 : an ? -1 : 1;
            }
            return values.compare(i, j);
        };
    }

    /** The order of two non-null rows. */
    private static RowOrder values(FieldVector a, DataType at, FieldVector b, DataType bt) {
        if (at instanceof DataType.Null || bt instanceof DataType.Null) {
            return (i, j) -> 0; // never asked: every row of a Null vector is NULL
        }
        return switch (at) {
            case DataType.ListType l -> {
                ListVector la = (ListVector) a;
                ListVector lb = (ListVector) b;
                RowOrder element =
                        of(la.getDataVector(), l.element(), lb.getDataVector(), ((DataType.ListType) bt).element());
                yield (i, j) -> {
                    int sa = la.getElementStartIndex(i);
                    int na = la.getElementEndIndex(i) - sa;
                    int sb = lb.getElementStartIndex(j);
                    int nb = lb.getElementEndIndex(j) - sb;
                    for (int k = 0; k < Math.min(na, nb); k++) {
                        int c = element.compare(sa + k, sb + k);
                        if (c != 0) {
                            return c;
                        }
                    }
                    return Integer.compare(na, nb);
                };
            }
            case DataType.Struct s -> {
                DataType.Struct t = (DataType.Struct) bt;
                StructVector sa = (StructVector) a;
                StructVector sb = (StructVector) b;
                List<RowOrder> fields = new ArrayList<>();
                for (int k = 0; k < s.fields().size(); k++) {
                    fields.add(of(
                            (FieldVector) sa.getChildByOrdinal(k),
                            s.fields().get(k).type(),
                            (FieldVector) sb.getChildByOrdinal(k),
                            t.fields().get(k).type()));
                }
                yield (i, j) -> {
                    for (RowOrder f : fields) {
                        int c = f.compare(i, j);
                        if (c != 0) {
                            return c;
                        }
                    }
                    return 0;
                };
            }
            case DataType.Utf8 _ -> (i, j) -> Arrays.compareUnsigned(bytes(a, i), bytes(b, j));
            case DataType.Binary _ -> (i, j) -> Arrays.compareUnsigned(bytes(a, i), bytes(b, j));
            case DataType.FloatingPoint _ ->
                (i, j) -> floatOrder(((Number) a.getObject(i)).doubleValue(), ((Number) b.getObject(j)).doubleValue());
            case DataType.Decimal _ -> (i, j) -> ((BigDecimal) a.getObject(i)).compareTo((BigDecimal) b.getObject(j));
            case DataType.Bool _ -> (i, j) -> Boolean.compare((Boolean) a.getObject(i), (Boolean) b.getObject(j));
            case DataType.Int t
            when t.equals(DataType.UINT64) -> (i, j) -> Long.compareUnsigned(unsigned64(a, i), unsigned64(b, j));
            // Every other integer, Date32 and timestamps: Arrow's objects are numbers (unsigned ones widened) or
            // LocalDateTime for timestamps, so read them through Quiver's values.
            default -> (i, j) -> Long.compare(longValue(a, i, at), longValue(b, j, bt));
        };
    }

    private static byte[] bytes(FieldVector v, int row) {
        return v instanceof LargeVarCharVector l ? l.get(row) : ((BaseVariableWidthVector) v).get(row);
    }

    private static long unsigned64(FieldVector v, int row) {
        Object o = Values.get(v, row, DataType.UINT64).value();
        return ((BigInteger) o).longValue();
    }

    private static long longValue(FieldVector v, int row, DataType t) {
        return ((Number) Values.get(v, row, t).value()).longValue();
    }

    /** SQL's total order on floats: -0.0 = 0.0, NaN = NaN, NaN above every other value. */
    static int floatOrder(double x, double y) {
        boolean xn = Double.isNaN(x);
        boolean yn = Double.isNaN(y);
        if (xn || yn) {
            return xn == yn ? 0 : xn ? 1 : -1;
        }
        return x < y ? -1 : x > y ? 1 : 0;
    }
}
