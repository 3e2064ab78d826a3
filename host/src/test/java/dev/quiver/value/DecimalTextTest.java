package dev.quiver.value;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.quiver.types.DataType;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Text to decimal: {@link BigDecimal}'s reading is the reference where it is cheap; hostile texts answer at once. */
class DecimalTextTest {
    private static final DataType.Decimal D38_0 = new DataType.Decimal(38, 0);
    private static final DataType.Decimal D38_38 = new DataType.Decimal(38, 38);
    private static final DataType.Decimal D10_2 = new DataType.Decimal(10, 2);

    /** Seeded random numbers in every spelling, at several types, against BigDecimal with HALF_UP and a precision check. */
    @Test
    void agreesWithBigDecimalOnOrdinaryText() {
        long seed = Long.getLong("quiver.seed", System.nanoTime());
        System.out.println("DecimalTextTest seed " + seed + " (replay with -Dquiver.seed=" + seed + ")");
        Random r = new Random(seed);
        DataType.Decimal[] types = {
            D38_0, D38_38, D10_2, new DataType.Decimal(5, 5), new DataType.Decimal(1, 0), new DataType.Decimal(20, 7)
        };
        for (int i = 0; i < 20_000; i++) {
            String text = randomNumber(r);
            for (DataType.Decimal t : types) {
                for (RoundingMode mode : new RoundingMode[] {RoundingMode.HALF_UP, RoundingMode.UNNECESSARY}) {
                    String expected;
                    try {
                        BigDecimal v = new BigDecimal(text.strip()).setScale(t.scale(), mode);
                        expected = v.precision() > t.precision() ? "error" : v.toPlainString();
                    } catch (ArithmeticException | NumberFormatException e) {
                        expected = "error";
                    }
                    String got;
                    try {
                        got = DecimalText.parse(text, t, mode).toPlainString();
                    } catch (IllegalArgumentException e) {
                        got = "error";
                    }
                    assertEquals(expected, got, "'" + text + "' as " + t + " " + mode + " (seed " + seed + ")");
                }
            }
        }
    }

    private static String randomNumber(Random r) {
        StringBuilder sb = new StringBuilder();
        if (r.nextInt(4) == 0) {
            sb.append(r.nextBoolean() ? '-' : '+');
        }
        int integer = r.nextInt(5) == 0 ? 0 : r.nextInt(45);
        for (int k = 0; k < integer; k++) {
            sb.append(r.nextInt(3) == 0 ? '0' : (char) ('0' + r.nextInt(10)));
        }
        if (integer == 0 || r.nextBoolean()) {
            sb.append('.');
            int fraction = (integer == 0 ? 1 : 0) + r.nextInt(45);
            for (int k = 0; k < fraction; k++) {
                sb.append(r.nextInt(3) == 0 ? '9' : (char) ('0' + r.nextInt(10)));
            }
        }
        if (r.nextInt(3) == 0) {
            sb.append(r.nextBoolean() ? 'e' : 'E')
                    .append(r.nextBoolean() ? "-" : "")
                    .append(r.nextInt(60));
        }
        return r.nextInt(10) == 0 ? " " + sb + " " : sb.toString();
    }

    /** Where BigDecimal would build a billion-digit number, or parse a million digits, the answer comes at once. */
    @Test
    @Timeout(60) // a hang guard only: each case is a scan of its text
    void hostileTextIsBoundedByTheType() {
        assertEquals(
                "out of range for Decimal128(38, 0)",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> DecimalText.parse("1e999999999", D38_0, RoundingMode.HALF_UP))
                        .getMessage());
        assertEquals(BigDecimal.ZERO, DecimalText.parse("1e-999999999", D38_0, RoundingMode.HALF_UP));
        assertEquals(new BigDecimal("0E-38"), DecimalText.parse("-7e-2147483648000", D38_38, RoundingMode.HALF_UP));
        assertEquals(BigDecimal.ZERO, DecimalText.parse("0e99999999999999999999", D38_0, RoundingMode.HALF_UP));
        assertThrows(
                IllegalArgumentException.class,
                () -> DecimalText.parse("1e99999999999999999999", D38_0, RoundingMode.HALF_UP));
        assertThrows(IllegalArgumentException.class, () -> DecimalText.parse("1e-99", D10_2, RoundingMode.UNNECESSARY));
        String zeros = "0".repeat(2_000_000);
        assertEquals(new BigDecimal("2"), DecimalText.parse(zeros + "1.5", D38_0, RoundingMode.HALF_UP));
        assertEquals(new BigDecimal("1.50"), DecimalText.parse("1.5" + zeros, D10_2, RoundingMode.UNNECESSARY));
        String nines = "9".repeat(2_000_000);
        assertThrows(IllegalArgumentException.class, () -> DecimalText.parse(nines, D38_0, RoundingMode.HALF_UP));
        assertEquals(new BigDecimal("1.00"), DecimalText.parse("0." + nines, D10_2, RoundingMode.HALF_UP));
        assertEquals(
                new BigDecimal("0.99"),
                DecimalText.parse("0.99" + "4".repeat(1_000_000) + "9", D10_2, RoundingMode.HALF_UP));
        // 38 nines at scale 0 fit; rounding 0.5 more does not.
        assertEquals(new BigDecimal("9".repeat(38)), DecimalText.parse("9".repeat(38), D38_0, RoundingMode.HALF_UP));
        assertThrows(
                IllegalArgumentException.class,
                () -> DecimalText.parse("9".repeat(38) + ".5", D38_0, RoundingMode.HALF_UP));
        assertEquals(
                new BigDecimal("9".repeat(38)),
                DecimalText.parse("9".repeat(38) + ".4999", D38_0, RoundingMode.HALF_UP));
    }

    @Test
    void garbageIsNotANumber() {
        for (String text : new String[] {
            "", " ", "+", "-", ".", "e5", "1e", "1.2.3", "NaN", "Infinity", "1,5", "0x10", "1_000", "١٢"
        }) {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> DecimalText.parse(text, D10_2, RoundingMode.HALF_UP),
                    "'" + text + "'");
            assertEquals("not a number", e.getMessage(), "'" + text + "'");
            assertEquals(0, e.getStackTrace().length, "a parse failure carries no stack trace (TRY_CAST stays cheap)");
        }
        assertEquals(new BigDecimal("12.50"), DecimalText.parse(" 12.5 ", D10_2, RoundingMode.HALF_UP));
        assertEquals(new BigDecimal("-0.50"), DecimalText.parse("-.5", D10_2, RoundingMode.HALF_UP));
        assertEquals(new BigDecimal("7.00"), DecimalText.parse("7.", D10_2, RoundingMode.HALF_UP));
        assertEquals(new BigDecimal("100000.00"), DecimalText.parse("1e5", D10_2, RoundingMode.HALF_UP));
    }
}
