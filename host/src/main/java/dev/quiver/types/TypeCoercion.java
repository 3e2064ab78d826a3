package dev.quiver.types;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The type-coercion lattice: which type two (or more) types meet at, for CASE branches, IN
 * lists and function arguments ({@link #commonType}), for comparisons ({@link #comparisonType}),
 * and whether one type may be cast to another without the user asking ({@link #canCoerce}); the
 * arithmetic operators build on it ({@code dev.quiver.expr.ArithmeticCoercion}, which knows the
 * operators). A port of DataFusion's
 * {@code expr-common/src/type_coercion/binary.rs}; {@code docs/coercion.md} has the full
 * numeric table, generated from this class.
 *
 * <p>Dictionaries coerce as their value type, and no result is ever a dictionary.
 *
 * <p>{@link #commonType(DataType, DataType)} tries these rules in order; the first that
 * applies wins:
 * <table>
 *   <caption>Common type of two types</caption>
 *   <tr><th>rule</th><th>operands</th><th>common type</th></tr>
 *   <tr><td>identity</td><td>T, T</td><td>T</td></tr>
 *   <tr><td>numeric</td><td>signed ints / unsigned ints</td><td>the wider</td></tr>
 *   <tr><td></td><td>signed IntN, unsigned UIntM</td><td>smallest signed int holding both
 *       (Int8+UInt8 → Int16, Int32+UInt32 → Int64); with UInt64 → Decimal128(20, 0)</td></tr>
 *   <tr><td></td><td>Float64, any numeric</td><td>Float64</td></tr>
 *   <tr><td></td><td>Float32, integer of ≤ 32 bits</td><td>Float32</td></tr>
 *   <tr><td></td><td>Float32, 64-bit integer or decimal</td><td>Float64</td></tr>
 *   <tr><td></td><td>Decimal(p, s), integer of d digits</td><td>Decimal(min(38, max(d, p−s)+s), s);
 *       d = 3, 5, 10, 19 for Int8..Int64 and 3, 5, 10, 20 for UInt8..UInt64</td></tr>
 *   <tr><td></td><td>Decimal(p1, s1), Decimal(p2, s2)</td><td>s = max(s1, s2),
 *       Decimal(min(38, max(p1−s1, p2−s2)+s), s)</td></tr>
 *   <tr><td>lists</td><td>List(a), List(b)</td><td>List(common(a, b))</td></tr>
 *   <tr><td>temporal</td><td>Date32, Timestamp</td><td>the Timestamp</td></tr>
 *   <tr><td></td><td>Timestamp(u1, z1), Timestamp(u2, z2)</td><td>the finer unit; zone: equal → kept,
 *       one absent → the other, else UTC</td></tr>
 *   <tr><td>strings</td><td>Utf8, LargeUtf8</td><td>LargeUtf8</td></tr>
 *   <tr><td>null</td><td>Null, T</td><td>T</td></tr>
 *   <tr><td>string ↔ numeric</td><td>Utf8 or LargeUtf8, numeric</td><td>the string type</td></tr>
 *   <tr><td>binary</td><td>Binary, Utf8 or LargeUtf8</td><td>Binary</td></tr>
 *   <tr><td>otherwise</td><td>e.g. Boolean, Int32</td><td>none</td></tr>
 * </table>
 *
 * <p>{@link #comparisonType} differs in three places: a string compared with a number compares
 * as the number ({@code x > '5'} is numeric, as in DuckDB), a string compared with a Date32 or
 * Timestamp compares as that temporal type, and a Boolean compares only with a Boolean (or Null).
 *
 * <p>Every method is a pure function of its arguments; none returns null.
 */
public final class TypeCoercion {
    private TypeCoercion() {}

    // ------------------------------------------------------------------ common type

    /**
     * The type both {@code a} and {@code b} are cast to where a value of either may appear
     * (CASE branches, IN lists, the arguments of {@code coalesce}), or empty when they have none.
     * Symmetric: {@code commonType(a, b)} equals {@code commonType(b, a)}.
     *
     * <p>Example: {@code commonType(Int32, UInt32)} is {@code Int64};
     * {@code commonType(Boolean, Int32)} is empty.
     */
    public static Optional<DataType> commonType(DataType a, DataType b) {
        DataType l = Objects.requireNonNull(a, "a is null").valueType();
        DataType r = Objects.requireNonNull(b, "b is null").valueType();
        if (l.equals(r)) {
            return Optional.of(l);
        }
        return numericCoercion(l, r)
                .or(() -> listCoercion(l, r))
                .or(() -> temporalCoercion(l, r))
                .or(() -> stringCoercion(l, r))
                .or(() -> nullCoercion(l, r))
                .or(() -> stringNumericCoercion(l, r))
                .or(() -> binaryCoercion(l, r));
    }

    /**
     * The common type of all of {@code types}, folded pairwise with {@link #commonType(DataType, DataType)};
     * {@code Null} when the list is empty or all its types are Null, empty when some pair has none.
     */
    public static Optional<DataType> commonType(List<DataType> types) {
        Objects.requireNonNull(types, "types is null");
        DataType acc = DataType.NULL;
        for (DataType t : types) {
            Optional<DataType> next = commonType(acc, t);
            if (next.isEmpty()) {
                return Optional.empty();
            }
            acc = next.get();
        }
        return Optional.of(acc);
    }

    private static Optional<DataType> numericCoercion(DataType l, DataType r) {
        if (!l.isNumeric() || !r.isNumeric()) {
            return Optional.empty();
        }
        if (l.equals(DataType.FLOAT64) || r.equals(DataType.FLOAT64)) {
            return Optional.of(DataType.FLOAT64);
        }
        if (l instanceof DataType.FloatingPoint || r instanceof DataType.FloatingPoint) {
            // the other is Float32, an integer or a decimal: Float32 holds integers of up to 32 bits
            DataType other = l instanceof DataType.FloatingPoint ? r : l;
            boolean fitsFloat32 =
                    other instanceof DataType.FloatingPoint || (other instanceof DataType.Int i && i.bitWidth() <= 32);
            return Optional.of(fitsFloat32 ? DataType.FLOAT32 : DataType.FLOAT64);
        }
        if (l instanceof DataType.Decimal || r instanceof DataType.Decimal) {
            return Optional.of(widerDecimal(decimalForm(l), decimalForm(r)));
        }
        return Optional.of(commonInteger((DataType.Int) l, (DataType.Int) r));
    }

    private static DataType commonInteger(DataType.Int l, DataType.Int r) {
        if (l.signed() == r.signed()) {
            return l.bitWidth() >= r.bitWidth() ? l : r;
        }
        DataType.Int signed = l.signed() ? l : r;
        DataType.Int unsigned = l.signed() ? r : l;
        int width = Math.max(signed.bitWidth(), 2 * unsigned.bitWidth());
        return width > 64 ? new DataType.Decimal(20, 0) : new DataType.Int(width, true);
    }

    /** Decimal(p1, s1) and Decimal(p2, s2) meet at scale max(s1, s2) with room for both integer parts, at most 38 digits. */
    private static DataType.Decimal widerDecimal(DataType.Decimal a, DataType.Decimal b) {
        int scale = Math.max(a.scale(), b.scale());
        int integerDigits = Math.max(a.precision() - a.scale(), b.precision() - b.scale());
        return new DataType.Decimal(Math.min(DataType.Decimal.MAX_PRECISION, integerDigits + scale), scale);
    }

    /**
     * The decimal every value of an integer type fits: Decimal128(digits, 0) with 3, 5, 10, 19
     * digits for Int8..Int64 and 3, 5, 10, 20 for UInt8..UInt64. A decimal is its own form.
     *
     * @throws IllegalArgumentException for a type that is neither an integer nor a decimal
     */
    public static DataType.Decimal decimalForm(DataType t) {
        return switch (t.valueType()) {
            case DataType.Decimal d -> d;
            case DataType.Int i -> new DataType.Decimal(integerDigits(i), 0);
            default -> throw new IllegalArgumentException(t + " has no decimal form");
        };
    }

    private static int integerDigits(DataType.Int i) {
        return switch (i.bitWidth()) {
            case 8 -> 3;
            case 16 -> 5;
            case 32 -> 10;
            default -> i.signed() ? 19 : 20;
        };
    }

    private static Optional<DataType> listCoercion(DataType l, DataType r) {
        if (l instanceof DataType.ListType a && r instanceof DataType.ListType b) {
            return commonType(a.element(), b.element())
                    .map(e -> new DataType.ListType(e, a.elementNullable() || b.elementNullable()));
        }
        return Optional.empty();
    }

    private static Optional<DataType> temporalCoercion(DataType l, DataType r) {
        if (l instanceof DataType.Date32 && r instanceof DataType.Timestamp) {
            return Optional.of(r);
        }
        if (l instanceof DataType.Timestamp && r instanceof DataType.Date32) {
            return Optional.of(l);
        }
        if (l instanceof DataType.Timestamp a && r instanceof DataType.Timestamp b) {
            DataType.TimeUnit unit = a.unit().compareTo(b.unit()) >= 0 ? a.unit() : b.unit();
            String zone;
            if (Objects.equals(a.timezone(), b.timezone())) {
                zone = a.timezone();
            } else if (a.timezone() == null || b.timezone() == null) {
                zone = a.timezone() == null ? b.timezone() : a.timezone();
            } else {
                zone = "UTC";
            }
            return Optional.of(new DataType.Timestamp(unit, zone));
        }
        return Optional.empty();
    }

    private static Optional<DataType> stringCoercion(DataType l, DataType r) {
        if (l instanceof DataType.Utf8 a && r instanceof DataType.Utf8 b) {
            return Optional.of(a.large() || b.large() ? DataType.LARGE_UTF8 : DataType.UTF8);
        }
        return Optional.empty();
    }

    private static Optional<DataType> nullCoercion(DataType l, DataType r) {
        if (l instanceof DataType.Null) {
            return Optional.of(r);
        }
        if (r instanceof DataType.Null) {
            return Optional.of(l);
        }
        return Optional.empty();
    }

    private static Optional<DataType> stringNumericCoercion(DataType l, DataType r) {
        if (l instanceof DataType.Utf8 && r.isNumeric()) {
            return Optional.of(l);
        }
        if (r instanceof DataType.Utf8 && l.isNumeric()) {
            return Optional.of(r);
        }
        return Optional.empty();
    }

    private static Optional<DataType> binaryCoercion(DataType l, DataType r) {
        if ((l instanceof DataType.Binary && r instanceof DataType.Utf8)
                || (l instanceof DataType.Utf8 && r instanceof DataType.Binary)) {
            return Optional.of(DataType.BINARY);
        }
        return Optional.empty();
    }

    // ------------------------------------------------------------------ comparison

    /**
     * The type both sides of {@code = <> < <= > >=}, {@code IS [NOT] DISTINCT FROM}, IN and
     * BETWEEN are cast to, or empty when they cannot be compared. Like {@link #commonType}
     * except that a string meets a number at the number's type, a string meets Date32 or a
     * Timestamp at that temporal type, and a Boolean meets only a Boolean or Null.
     *
     * <p>Example: {@code comparisonType(Int32, Utf8)} is {@code Int32}, so {@code x > '5'}
     * compares numbers and {@code '10' > '5'} would not arise.
     */
    public static Optional<DataType> comparisonType(DataType a, DataType b) {
        DataType l = Objects.requireNonNull(a, "a is null").valueType();
        DataType r = Objects.requireNonNull(b, "b is null").valueType();
        if (l.equals(r)) {
            return Optional.of(l);
        }
        if (l instanceof DataType.Bool || r instanceof DataType.Bool) {
            return l instanceof DataType.Null || r instanceof DataType.Null
                    ? Optional.of(DataType.BOOLEAN)
                    : Optional.empty();
        }
        if (l instanceof DataType.Utf8 && (r.isNumeric() || isDateOrTimestamp(r))) {
            return Optional.of(r);
        }
        if (r instanceof DataType.Utf8 && (l.isNumeric() || isDateOrTimestamp(l))) {
            return Optional.of(l);
        }
        return commonType(l, r);
    }

    private static boolean isDateOrTimestamp(DataType t) {
        return t instanceof DataType.Date32 || t instanceof DataType.Timestamp;
    }

    // ------------------------------------------------------------------ implicit casts

    /**
     * Whether a value of type {@code from} may be cast to {@code to} without the user writing
     * a CAST (dictionaries count as their value types): when the types are equal; from Null
     * to anything; numeric widening as in {@link #commonType} (the common type of the two is
     * {@code to}, so Int64 reaches Float64 but not Float32); from any integer to any decimal; from
     * Utf8 to LargeUtf8; from Date32
     * to a Timestamp. A string is never read as a number or a date implicitly in a function
     * argument ({@code sqrt(name)} fails at planning; write {@code sqrt(CAST(name AS DOUBLE))}),
     * because a text column that is not numbers would otherwise fail on some batch instead of
     * at planning. Casts allowed here may still fail on a value at run time (an integer too
     * large for a decimal).
     */
    public static boolean canCoerce(DataType from, DataType to) {
        DataType f = Objects.requireNonNull(from, "from is null").valueType();
        DataType t = Objects.requireNonNull(to, "to is null").valueType();
        if (f.equals(t) || f instanceof DataType.Null) {
            return true;
        }
        if (f.isNumeric() && t.isNumeric()) {
            if (f instanceof DataType.Int && t instanceof DataType.Decimal) {
                return true;
            }
            return commonType(f, t).map(t::equals).orElse(false);
        }
        if (f instanceof DataType.Utf8) {
            return t instanceof DataType.Utf8 u && u.large();
        }
        return f instanceof DataType.Date32 && t instanceof DataType.Timestamp;
    }
}
