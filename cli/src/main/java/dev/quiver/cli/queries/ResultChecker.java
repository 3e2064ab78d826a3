package dev.quiver.cli.queries;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FloatingPointVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Compares one engine's result of a query with the reference's (the hand-written loop's), row by
 * row over all result batches, whatever their sizes: the same column names in the same order,
 * the same number of rows, and in each row the same values by what they mean rather than how
 * they are stored (an Int32 and an Int64 of the same number agree; a dictionary-encoded column is
 * not decoded here and does not agree with strings). NULL agrees only with NULL; integers,
 * strings, Booleans, dates and decimals must be equal; floats must agree within
 * {@link #RELATIVE_TOLERANCE} of the larger magnitude (NaN agrees with NaN), which covers the
 * last bits in which {@code Math.sin} and friends, Quiver's vector math and DuckDB's C library may
 * differ.
 */
public final class ResultChecker {
    /** How far two floats may differ, relative to the larger magnitude. */
    public static final double RELATIVE_TOLERANCE = 1e-9;

    private ResultChecker() {}

    /**
     * Nothing when {@code actual} agrees with {@code expected}; else throws, naming the query,
     * the engine, the row (counted over all result batches, from 0), the column and both values.
     *
     * @throws ResultMismatchException at the first difference
     */
    public static void check(
            String query,
            String engine,
            String reference,
            List<VectorSchemaRoot> expected,
            List<VectorSchemaRoot> actual) {
        String prefix = query + ": " + engine + " disagrees with " + reference;
        List<String> expectedNames = names(expected), actualNames = names(actual);
        if (expectedNames != null && actualNames != null && !expectedNames.equals(actualNames)) {
            throw new ResultMismatchException(prefix + ": columns " + actualNames + ", expected " + expectedNames);
        }
        long expectedRows = rows(expected), actualRows = rows(actual);
        if (expectedRows != actualRows) {
            throw new ResultMismatchException(prefix + ": " + actualRows + " rows, expected " + expectedRows);
        }
        int eb = 0, er = 0, ab = 0, ar = 0;
        for (long row = 0; row < expectedRows; row++) {
            while (er == expected.get(eb).getRowCount()) {
                eb++;
                er = 0;
            }
            while (ar == actual.get(ab).getRowCount()) {
                ab++;
                ar = 0;
            }
            VectorSchemaRoot e = expected.get(eb), a = actual.get(ab);
            for (int c = 0; c < e.getFieldVectors().size(); c++) {
                Object x = value(e.getVector(c), er), y = value(a.getVector(c), ar);
                if (!agree(x, y)) {
                    throw new ResultMismatchException(String.format(
                            Locale.ROOT,
                            "%s at row %d, column %s: %s, expected %s",
                            prefix,
                            row,
                            e.getVector(c).getName(),
                            show(y, a.getVector(c)),
                            show(x, e.getVector(c))));
                }
            }
            er++;
            ar++;
        }
    }

    /** The column names, or null for a result of no batches (whose columns cannot be known). */
    private static List<String> names(List<VectorSchemaRoot> batches) {
        return batches.isEmpty()
                ? null
                : batches.getFirst().getSchema().getFields().stream()
                        .map(Field::getName)
                        .toList();
    }

    private static long rows(List<VectorSchemaRoot> batches) {
        long n = 0;
        for (VectorSchemaRoot b : batches) {
            n += b.getRowCount();
        }
        return n;
    }

    /**
     * The value of {@code row}, by what it means: null, a {@code Long} (every integer type), a
     * {@code Double} (every float), a {@code String}, a {@code Boolean}, a {@code LocalDate} or a
     * {@code BigDecimal} without trailing zeros; other types as Arrow's {@code getObject}.
     */
    static Object value(FieldVector v, int row) {
        if (v.isNull(row)) {
            return null;
        }
        return switch (v) {
            case BaseIntVector i when v.getField().getDictionary() == null -> i.getValueAsLong(row);
            case FloatingPointVector f -> f.getValueAsDouble(row);
            case VarCharVector s -> new String(s.get(row), StandardCharsets.UTF_8);
            case BitVector b -> b.get(row) != 0;
            case DateDayVector d -> LocalDate.ofEpochDay(d.get(row));
            case DecimalVector d -> d.getObject(row).stripTrailingZeros();
            default -> v.getObject(row);
        };
    }

    static boolean agree(Object expected, Object actual) {
        if (expected instanceof Double x && actual instanceof Double y) {
            return x.equals(y) || Math.abs(x - y) <= RELATIVE_TOLERANCE * Math.max(Math.abs(x), Math.abs(y));
        }
        if (expected instanceof BigDecimal x && actual instanceof BigDecimal y) {
            return x.compareTo(y) == 0;
        }
        return Objects.equals(expected, actual);
    }

    private static String show(Object value, FieldVector v) {
        String type = v.getField().getType().toString() + (v.getField().getDictionary() != null ? " dictionary" : "");
        if (value == null) {
            return "NULL (" + type + ")";
        }
        String text = value instanceof Double d
                ? Double.toString(d)
                : value instanceof String s ? "'" + s + "'" : value.toString();
        return text + " (" + type + ")";
    }
}
