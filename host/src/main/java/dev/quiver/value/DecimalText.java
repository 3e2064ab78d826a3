package dev.quiver.value;

import dev.quiver.types.DataType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Decimal numbers read from text, for {@code CAST(text AS DECIMAL(p, s))} and the literal
 * {@code DECIMAL(p, s) 'text'}: an optional sign, digits with an optional point, an optional
 * exponent ({@code 1.5e3}, {@code -.5}, {@code 7.}), surrounding blanks ignored.
 *
 * <p>The work is bounded by the type, not by the text: only the digits that can reach the
 * result (at most p + 1 of them) become a number, so {@code '1e999999999'} is out of range and
 * {@code '1e-999999999'} rounds to zero at once ({@code java.math.BigDecimal} would build a
 * number of a billion digits for either), and a million leading zeros cost one scan.
 *
 * <p>Parsing throws {@link IllegalArgumentException} with the reason ({@code not a number},
 * {@code out of range}, ...) and no stack trace, so a cast that turns failures into NULLs stays cheap.
 */
public final class DecimalText {
    private static final Pattern NUMBER = Pattern.compile("([+-]?)(\\d*)(?:\\.(\\d*))?(?:[eE]([+-]?)(\\d+))?");
    /** An exponent of more digits than this is beyond every decimal (it only decides out of range or zero). */
    private static final int MAX_EXPONENT_DIGITS = 12;

    private DecimalText() {}

    /** A failure to read a decimal: its message is the reason. No stack trace. */
    private static final class Invalid extends IllegalArgumentException {
        Invalid(String reason) {
            super(reason);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    /**
     * The value of {@code text} at {@code type}'s scale, rounded by {@code rounding}
     * ({@link RoundingMode#HALF_UP} for casts; {@link RoundingMode#UNNECESSARY} refuses digits
     * beyond the scale, as a literal does).
     *
     * @throws IllegalArgumentException when the text is not a number, has more integer digits than
     *                                  the type holds (after rounding), or (UNNECESSARY) more fraction digits
     */
    public static BigDecimal parse(String text, DataType.Decimal type, RoundingMode rounding) {
        Objects.requireNonNull(type, "type is null");
        Objects.requireNonNull(rounding, "rounding is null");
        Matcher m = NUMBER.matcher(text.strip());
        String integerDigits = m.matches() ? m.group(2) : "";
        String fractionDigits = m.matches() && m.group(3) != null ? m.group(3) : "";
        if (integerDigits.isEmpty() && fractionDigits.isEmpty()) {
            throw new Invalid("not a number");
        }
        boolean negative = m.group(1).equals("-");
        String digits = integerDigits + fractionDigits;
        int lead = 0;
        while (lead < digits.length() && digits.charAt(lead) == '0') {
            lead++;
        }
        if (lead == digits.length()) {
            return BigDecimal.ZERO.setScale(type.scale());
        }
        String significant = digits.substring(lead);
        long exponent = exponent(m.group(4), m.group(5));
        int integerRoom = type.precision() - type.scale();
        if (exponent == Long.MAX_VALUE) {
            throw outOfRange(type);
        }
        // The power of ten of the most significant digit: the value lies in [10^msd, 10^(msd+1)).
        long msd = exponent == Long.MIN_VALUE
                ? Long.MIN_VALUE
                : exponent - fractionDigits.length() + significant.length() - 1;
        if (msd >= integerRoom) {
            throw outOfRange(type);
        }
        // Digits below 10^-(scale+1) never change the rounded value; HALF_UP needs only the one above them.
        long lowestKept = -(long) type.scale() - 1;
        if (msd < lowestKept) {
            if (rounding == RoundingMode.UNNECESSARY) {
                throw new Invalid("more than " + type.scale() + " digits after the point");
            }
            return BigDecimal.ZERO.setScale(type.scale());
        }
        int kept = (int) Math.min(significant.length(), msd - lowestKept + 1);
        if (rounding == RoundingMode.UNNECESSARY
                && significant.substring(kept).chars().anyMatch(c -> c != '0')) {
            throw new Invalid("more than " + type.scale() + " digits after the point");
        }
        BigInteger unscaled = new BigInteger(significant.substring(0, kept));
        int scale = (int) (kept - 1 - msd);
        BigDecimal value;
        try {
            value = new BigDecimal(negative ? unscaled.negate() : unscaled, scale).setScale(type.scale(), rounding);
        } catch (ArithmeticException inexact) {
            throw new Invalid("more than " + type.scale() + " digits after the point");
        }
        if (value.precision() > type.precision()) {
            throw outOfRange(type);
        }
        return value;
    }

    /** The exponent; Long.MAX_VALUE / MIN_VALUE for one too large / too small for any decimal. */
    private static long exponent(String sign, String digits) {
        if (digits == null) {
            return 0;
        }
        String d = digits.replaceFirst("^0+(?=.)", "");
        boolean negative = "-".equals(sign);
        if (d.length() > MAX_EXPONENT_DIGITS) {
            return negative ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        long e = Long.parseLong(d);
        return negative ? -e : e;
    }

    private static Invalid outOfRange(DataType.Decimal type) {
        return new Invalid("out of range for " + type);
    }
}
