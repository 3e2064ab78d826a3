package dev.quiver.sql;

import dev.quiver.expr.Expr;
import dev.quiver.types.DataType;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * The values of literal tokens: numbers ({@code 2} is Int32 when it fits, else Int64, else a
 * DECIMAL(p, 0) of its digits up to 38; {@code 2.5}, {@code 1e3} are Float64), strings ({@code 'it''s'}),
 * escape strings ({@code E'a\\tb'}, PostgreSQL's backslash escapes) and hex strings ({@code X'1F'}, bytes).
 * Errors are {@link IllegalArgumentException}s whose message is the user's; the builder adds where.
 */
final class Literals {
    /** The most digits of an integer literal beyond Int64: DECIMAL(38, 0), the widest decimal. */
    static final int MAX_DECIMAL_DIGITS = 38;

    private Literals() {}

    /** An integer literal, {@code digits} with an optional leading minus. */
    static Expr integer(String digits) {
        BigInteger v = new BigInteger(digits);
        if (v.bitLength() < 32) {
            return Expr.lit(v.intValueExact());
        }
        if (v.bitLength() < 64) {
            return Expr.lit(v.longValueExact());
        }
        int precision = v.abs().toString().length();
        if (precision > MAX_DECIMAL_DIGITS) {
            throw new IllegalArgumentException(
                    "integer literal out of range (DECIMAL(38, 0), beyond Int64): " + digits);
        }
        return Expr.lit(new BigDecimal(v), new DataType.Decimal(precision, 0));
    }

    /** A literal with a point or an exponent: Float64, finite. */
    static Expr floating(String text) {
        double d = Double.parseDouble(text);
        if (!Double.isFinite(d)) {
            throw new IllegalArgumentException("numeric literal out of range (Float64): " + text);
        }
        return Expr.lit(d);
    }

    /** {@code 'it''s'}: the quotes removed, a doubled quote one quote. */
    static String string(String token) {
        return token.substring(1, token.length() - 1).replace("''", "'");
    }

    /**
     * {@code E'...'}: PostgreSQL's escapes: {@code \b \f \n \r \t}, {@code \\}, {@code \'}, {@code \ooo}
     * (octal), {@code \xHH}, backslash-u and four hex digits, backslash-U and eight; any other escaped character is itself.
     */
    static String escapeString(String token) {
        String s = token.substring(2, token.length() - 1);
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\'') {
                out.append('\'');
                i++; // '' is one quote
                continue;
            }
            if (c != '\\' || i + 1 >= s.length()) {
                out.append(c);
                continue;
            }
            char e = s.charAt(++i);
            switch (e) {
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'x' -> {
                    int end = hexEnd(s, i + 1, 2);
                    if (end == i + 1) {
                        throw new IllegalArgumentException("\\x must be followed by one or two hex digits in " + token);
                    }
                    out.append((char) Integer.parseInt(s.substring(i + 1, end), 16));
                    i = end - 1;
                }
                case 'u', 'U' -> {
                    int n = e == 'u' ? 4 : 8;
                    if (hexEnd(s, i + 1, n) != i + 1 + n) {
                        throw new IllegalArgumentException(
                                "\\" + e + " must be followed by " + n + " hex digits in " + token);
                    }
                    int cp = Integer.parseInt(s.substring(i + 1, i + 1 + n), 16);
                    if (!Character.isValidCodePoint(cp) || (cp >= 0xD800 && cp <= 0xDFFF)) {
                        throw new IllegalArgumentException(
                                "\\" + e + s.substring(i + 1, i + 1 + n) + " is not a character in " + token);
                    }
                    out.appendCodePoint(cp);
                    i += n;
                }
                default -> {
                    if (e >= '0' && e <= '7') {
                        int end = i;
                        while (end < s.length() && end < i + 3 && s.charAt(end) >= '0' && s.charAt(end) <= '7') {
                            end++;
                        }
                        out.append((char) Integer.parseInt(s.substring(i, end), 8));
                        i = end - 1;
                    } else {
                        out.append(e);
                    }
                }
            }
        }
        return out.toString();
    }

    private static int hexEnd(String s, int from, int max) {
        int i = from;
        while (i < s.length() && i < from + max && Character.digit(s.charAt(i), 16) >= 0) {
            i++;
        }
        return i;
    }

    /** {@code X'1F A0'}: bytes from pairs of hex digits (blanks between pairs ignored). */
    static byte[] hexString(String token) {
        String s = token.substring(2, token.length() - 1).replaceAll("\\s+", "");
        if (s.length() % 2 != 0) {
            throw new IllegalArgumentException("a hex string needs an even number of hex digits: " + token);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length() / 2);
        for (int i = 0; i < s.length(); i += 2) {
            int hi = Character.digit(s.charAt(i), 16);
            int lo = Character.digit(s.charAt(i + 1), 16);
            if (hi < 0 || lo < 0) {
                throw new IllegalArgumentException(
                        "not a hex digit in " + token + ": '" + (hi < 0 ? s.charAt(i) : s.charAt(i + 1)) + "'");
            }
            out.write(hi * 16 + lo);
        }
        return out.toByteArray();
    }
}
