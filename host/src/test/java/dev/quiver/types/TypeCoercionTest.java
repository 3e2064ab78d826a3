package dev.quiver.types;

import static dev.quiver.types.DataType.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.quiver.expr.ArithmeticCoercion;
import dev.quiver.expr.Operator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.vector.types.IntervalUnit;
import org.junit.jupiter.api.Test;

class TypeCoercionTest {

    static final Decimal D10_2 = new Decimal(10, 2);
    static final Decimal D38_10 = new Decimal(38, 10);

    /** The numeric types of the pair table, in its row and column order. */
    static final List<DataType> NUMERIC =
            List.of(INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64, FLOAT32, FLOAT64, D10_2, D38_10);

    static final Map<String, DataType> CODES = Map.ofEntries(
            Map.entry("I8", INT8),
            Map.entry("I16", INT16),
            Map.entry("I32", INT32),
            Map.entry("I64", INT64),
            Map.entry("U8", UINT8),
            Map.entry("U16", UINT16),
            Map.entry("U32", UINT32),
            Map.entry("U64", UINT64),
            Map.entry("F32", FLOAT32),
            Map.entry("F64", FLOAT64),
            Map.entry("D20", new Decimal(20, 0)),
            Map.entry("D10_2", D10_2),
            Map.entry("D12_2", new Decimal(12, 2)),
            Map.entry("D21_2", new Decimal(21, 2)),
            Map.entry("D22_2", new Decimal(22, 2)),
            Map.entry("D38_10", D38_10));

    /** Worked out by hand from the rules (not from the code); rows and columns in {@link #NUMERIC} order. */
    static final String EXPECTED_NUMERIC = """
            I8     I16    I32    I64    I16    I32    I64    D20    F32  F64  D10_2  D38_10
            I16    I16    I32    I64    I16    I32    I64    D20    F32  F64  D10_2  D38_10
            I32    I32    I32    I64    I32    I32    I64    D20    F32  F64  D12_2  D38_10
            I64    I64    I64    I64    I64    I64    I64    D20    F64  F64  D21_2  D38_10
            I16    I16    I32    I64    U8     U16    U32    U64    F32  F64  D10_2  D38_10
            I32    I32    I32    I64    U16    U16    U32    U64    F32  F64  D10_2  D38_10
            I64    I64    I64    I64    U32    U32    U32    U64    F32  F64  D12_2  D38_10
            D20    D20    D20    D20    U64    U64    U64    U64    F64  F64  D22_2  D38_10
            F32    F32    F32    F64    F32    F32    F32    F64    F32  F64  F64    F64
            F64    F64    F64    F64    F64    F64    F64    F64    F64  F64  F64    F64
            D10_2  D10_2  D12_2  D21_2  D10_2  D10_2  D12_2  D22_2  F64  F64  D10_2  D38_10
            D38_10 D38_10 D38_10 D38_10 D38_10 D38_10 D38_10 D38_10 F64  F64  D38_10 D38_10
            """;

    @Test
    void commonTypeOfEveryNumericPairMatchesTheHandTable() {
        String[] rows = EXPECTED_NUMERIC.strip().split("\n");
        assertEquals(NUMERIC.size(), rows.length);
        List<String> mismatches = new ArrayList<>();
        for (int i = 0; i < NUMERIC.size(); i++) {
            String[] cells = rows[i].trim().split("\\s+");
            assertEquals(NUMERIC.size(), cells.length, "row " + i);
            for (int j = 0; j < NUMERIC.size(); j++) {
                DataType expected = CODES.get(cells[j]);
                Optional<DataType> actual = TypeCoercion.commonType(NUMERIC.get(i), NUMERIC.get(j));
                if (!actual.equals(Optional.of(expected))) {
                    mismatches.add(
                            NUMERIC.get(i) + " + " + NUMERIC.get(j) + ": expected " + expected + ", got " + actual);
                }
            }
        }
        assertEquals(List.of(), mismatches);
    }

    @Test
    void commonTypeIsSymmetricOverAllSampleTypes() {
        List<DataType> all = new ArrayList<>(NUMERIC);
        all.addAll(OTHERS);
        for (DataType a : all) {
            for (DataType b : all) {
                assertEquals(TypeCoercion.commonType(a, b), TypeCoercion.commonType(b, a), a + " / " + b);
                assertEquals(TypeCoercion.comparisonType(a, b), TypeCoercion.comparisonType(b, a), a + " / " + b);
            }
        }
    }

    static final List<DataType> OTHERS = List.of(
            NULL,
            BOOLEAN,
            UTF8,
            LARGE_UTF8,
            BINARY,
            DATE32,
            new Timestamp(TimeUnit.SECOND, null),
            new Timestamp(TimeUnit.NANOSECOND, "UTC"),
            new Timestamp(TimeUnit.MILLISECOND, "Europe/Paris"),
            new Interval(IntervalUnit.DAY_TIME),
            new ListType(INT32, true),
            new ListType(FLOAT64, false),
            new ListType(UTF8, true),
            new Dictionary(INT32, UTF8),
            new Dictionary(INT8, INT64));

    @Test
    void nullMeetsEverythingAtTheOtherType() {
        List<DataType> all = new ArrayList<>(NUMERIC);
        all.addAll(OTHERS);
        for (DataType t : all) {
            assertEquals(Optional.of(t.valueType()), TypeCoercion.commonType(NULL, t), t.toString());
            assertEquals(Optional.of(t.valueType()), TypeCoercion.comparisonType(t, NULL), t.toString());
        }
    }

    @Test
    void stringsAndNumbersMeetAtTheString() {
        assertEquals(Optional.of(UTF8), TypeCoercion.commonType(UTF8, INT32));
        assertEquals(Optional.of(UTF8), TypeCoercion.commonType(D10_2, UTF8));
        assertEquals(Optional.of(LARGE_UTF8), TypeCoercion.commonType(FLOAT64, LARGE_UTF8));
        assertEquals(Optional.of(LARGE_UTF8), TypeCoercion.commonType(UTF8, LARGE_UTF8));
        assertEquals(Optional.of(UTF8), TypeCoercion.commonType(new Dictionary(INT32, UTF8), UINT64));
    }

    @Test
    void temporals() {
        Timestamp sNone = new Timestamp(TimeUnit.SECOND, null);
        Timestamp msParis = new Timestamp(TimeUnit.MILLISECOND, "Europe/Paris");
        Timestamp nsUtc = new Timestamp(TimeUnit.NANOSECOND, "UTC");
        Timestamp usTokyo = new Timestamp(TimeUnit.MICROSECOND, "Asia/Tokyo");
        assertEquals(Optional.of(msParis), TypeCoercion.commonType(DATE32, msParis));
        assertEquals(Optional.of(sNone), TypeCoercion.commonType(sNone, DATE32));
        assertEquals(Optional.of(msParis), TypeCoercion.commonType(sNone, msParis));
        assertEquals(Optional.of(new Timestamp(TimeUnit.NANOSECOND, "UTC")), TypeCoercion.commonType(usTokyo, nsUtc));
        assertEquals(
                Optional.of(new Timestamp(TimeUnit.MICROSECOND, "UTC")), TypeCoercion.commonType(usTokyo, msParis));
        assertEquals(
                Optional.of(new Timestamp(TimeUnit.MICROSECOND, "Asia/Tokyo")),
                TypeCoercion.commonType(usTokyo, new Timestamp(TimeUnit.SECOND, "Asia/Tokyo")));
    }

    @Test
    void listsMeetAtTheCommonElementType() {
        assertEquals(
                Optional.of(new ListType(INT64, true)),
                TypeCoercion.commonType(new ListType(INT32, true), new ListType(INT64, false)));
        assertEquals(
                Optional.of(new ListType(new ListType(FLOAT64, false), false)),
                TypeCoercion.commonType(
                        new ListType(new ListType(INT8, false), false),
                        new ListType(new ListType(FLOAT64, false), false)));
        assertEquals(Optional.empty(), TypeCoercion.commonType(new ListType(BOOLEAN, true), new ListType(INT32, true)));
        assertEquals(Optional.empty(), TypeCoercion.commonType(new ListType(INT32, true), INT32));
    }

    @Test
    void binaryAndStringsMeetAtBinary() {
        assertEquals(Optional.of(BINARY), TypeCoercion.commonType(BINARY, UTF8));
        assertEquals(Optional.of(BINARY), TypeCoercion.commonType(LARGE_UTF8, BINARY));
        assertEquals(Optional.empty(), TypeCoercion.commonType(BINARY, INT32));
    }

    @Test
    void impossiblePairs() {
        DataType[][] pairs = {
            {BOOLEAN, INT32},
            {BOOLEAN, UTF8},
            {DATE32, INT32},
            {DATE32, UTF8},
            {BINARY, FLOAT64},
            {new Interval(IntervalUnit.DAY_TIME), new Interval(IntervalUnit.YEAR_MONTH)},
            {new Interval(IntervalUnit.DAY_TIME), DATE32},
            {new ListType(INT32, true), UTF8},
            {
                new Struct(List.of(new StructField("a", INT32, true))),
                new Struct(List.of(new StructField("a", INT64, true)))
            },
        };
        for (DataType[] p : pairs) {
            assertEquals(Optional.empty(), TypeCoercion.commonType(p[0], p[1]), Arrays.toString(p));
        }
    }

    @Test
    void commonTypeOfAList() {
        assertEquals(Optional.of(NULL), TypeCoercion.commonType(List.of()));
        assertEquals(Optional.of(NULL), TypeCoercion.commonType(List.of(NULL, NULL)));
        assertEquals(Optional.of(INT64), TypeCoercion.commonType(List.of(NULL, INT8, UINT32, NULL)));
        assertEquals(Optional.of(FLOAT64), TypeCoercion.commonType(List.of(INT32, D10_2, FLOAT32)));
        assertEquals(Optional.of(UTF8), TypeCoercion.commonType(List.of(new Dictionary(INT32, UTF8))));
        assertEquals(Optional.empty(), TypeCoercion.commonType(List.of(INT32, NULL, BOOLEAN)));
    }

    @Test
    void comparisonType() {
        Timestamp ts = new Timestamp(TimeUnit.MICROSECOND, null);
        assertEquals(Optional.of(INT32), TypeCoercion.comparisonType(INT32, UTF8));
        assertEquals(Optional.of(FLOAT64), TypeCoercion.comparisonType(LARGE_UTF8, FLOAT64));
        assertEquals(Optional.of(D10_2), TypeCoercion.comparisonType(UTF8, D10_2));
        assertEquals(Optional.of(DATE32), TypeCoercion.comparisonType(UTF8, DATE32));
        assertEquals(Optional.of(ts), TypeCoercion.comparisonType(ts, LARGE_UTF8));
        assertEquals(Optional.of(ts), TypeCoercion.comparisonType(DATE32, ts));
        assertEquals(Optional.of(BOOLEAN), TypeCoercion.comparisonType(BOOLEAN, BOOLEAN));
        assertEquals(Optional.of(BOOLEAN), TypeCoercion.comparisonType(NULL, BOOLEAN));
        assertEquals(Optional.empty(), TypeCoercion.comparisonType(BOOLEAN, INT32));
        assertEquals(Optional.empty(), TypeCoercion.comparisonType(BOOLEAN, UTF8));
        assertEquals(Optional.of(INT64), TypeCoercion.comparisonType(INT32, INT64));
        assertEquals(Optional.of(new Decimal(20, 0)), TypeCoercion.comparisonType(INT64, UINT64));
        assertEquals(Optional.of(LARGE_UTF8), TypeCoercion.comparisonType(UTF8, LARGE_UTF8));
        assertEquals(Optional.of(BINARY), TypeCoercion.comparisonType(BINARY, UTF8));
        assertEquals(Optional.of(INT64), TypeCoercion.comparisonType(new Dictionary(INT32, UTF8), INT64));
        assertEquals(Optional.empty(), TypeCoercion.comparisonType(DATE32, INT32));
        assertEquals(Optional.empty(), TypeCoercion.comparisonType(new Interval(IntervalUnit.DAY_TIME), UTF8));
    }

    // ------------------------------------------------------------------ arithmetic

    static ArithmeticPlan plan(DataType l, DataType r, DataType result) {
        return new ArithmeticPlan(l, r, result);
    }

    static Decimal dec(int p, int s) {
        return new Decimal(p, s);
    }

    static void assertPlan(ArithmeticPlan expected, Operator op, DataType l, DataType r) {
        assertEquals(Optional.of(expected), ArithmeticCoercion.arithmetic(op, l, r), l + " " + op + " " + r);
    }

    @Test
    void arithmeticOnIntegersAndFloatsCastsToTheCommonType() {
        assertPlan(plan(INT64, INT64, INT64), Operator.PLUS, INT32, INT64);
        assertPlan(plan(INT16, INT16, INT16), Operator.MULTIPLY, INT8, UINT8);
        assertPlan(plan(INT32, INT32, INT32), Operator.DIVIDE, INT32, INT32);
        assertPlan(plan(FLOAT64, FLOAT64, FLOAT64), Operator.MINUS, FLOAT32, INT64);
        assertPlan(plan(FLOAT32, FLOAT32, FLOAT32), Operator.MODULO, UINT16, FLOAT32);
        assertPlan(plan(FLOAT64, FLOAT64, FLOAT64), Operator.PLUS, D10_2, FLOAT32);
        assertPlan(plan(INT64, INT64, INT64), Operator.PLUS, new Dictionary(INT8, INT32), INT64);
    }

    @Test
    void decimalArithmeticFollowsDataFusionAndSpark() {
        assertPlan(plan(D10_2, dec(10, 0), dec(13, 2)), Operator.PLUS, D10_2, INT32);
        assertPlan(plan(dec(3, 0), D10_2, dec(11, 2)), Operator.MINUS, INT8, D10_2);
        assertPlan(plan(D10_2, dec(5, 3), dec(12, 3)), Operator.PLUS, D10_2, dec(5, 3));
        assertPlan(plan(D10_2, dec(5, 3), dec(16, 5)), Operator.MULTIPLY, D10_2, dec(5, 3));
        assertPlan(plan(D10_2, dec(5, 3), dec(19, 8)), Operator.DIVIDE, D10_2, dec(5, 3));
        assertPlan(plan(D10_2, dec(5, 3), dec(5, 3)), Operator.MODULO, D10_2, dec(5, 3));
        assertPlan(plan(dec(20, 2), dec(10, 0), dec(31, 13)), Operator.DIVIDE, dec(20, 2), INT32);
        assertPlan(plan(dec(19, 0), dec(20, 0), dec(21, 0)), Operator.PLUS, INT64, UINT64);
        assertPlan(plan(dec(5, 0), dec(20, 0), dec(26, 0)), Operator.MULTIPLY, INT16, UINT64);
    }

    @Test
    void decimalPrecisionOver38IsCappedKeepingFractionalDigits() {
        // + : p 39, s 10 -> 29 integer digits, so 9 fractional digits remain
        assertPlan(plan(D38_10, D38_10, dec(38, 9)), Operator.PLUS, D38_10, D38_10);
        // * : p 77, s 20 -> at least min(20, 6) fractional digits
        assertPlan(plan(D38_10, D38_10, dec(38, 6)), Operator.MULTIPLY, D38_10, D38_10);
        assertPlan(plan(dec(38, 0), dec(38, 0), dec(38, 0)), Operator.MULTIPLY, dec(38, 0), dec(38, 0));
        assertPlan(plan(dec(38, 2), dec(38, 2), dec(38, 4)), Operator.MULTIPLY, dec(38, 2), dec(38, 2));
        // / : s 49, p 87 -> 38 integer digits, 6 fractional
        assertPlan(plan(D38_10, D38_10, dec(38, 6)), Operator.DIVIDE, D38_10, D38_10);
        assertPlan(plan(D38_10, dec(19, 0), dec(29, 10)), Operator.MODULO, D38_10, INT64);
        assertPlan(plan(dec(38, 0), dec(20, 0), dec(38, 0)), Operator.PLUS, dec(38, 0), UINT64);
    }

    @Test
    void dateArithmetic() {
        assertPlan(plan(DATE32, INT32, DATE32), Operator.PLUS, DATE32, INT32);
        assertPlan(plan(DATE32, INT64, DATE32), Operator.MINUS, DATE32, INT64);
        assertPlan(plan(DATE32, INT32, DATE32), Operator.PLUS, DATE32, INT16);
        assertPlan(plan(DATE32, INT64, DATE32), Operator.PLUS, DATE32, UINT32);
        assertPlan(plan(INT32, DATE32, DATE32), Operator.PLUS, INT32, DATE32);
        assertPlan(plan(DATE32, DATE32, INT64), Operator.MINUS, DATE32, DATE32);
        assertPlan(plan(DATE32, INT32, DATE32), Operator.MINUS, DATE32, NULL);
        assertEquals(Optional.empty(), ArithmeticCoercion.arithmetic(Operator.MINUS, INT32, DATE32));
        assertEquals(Optional.empty(), ArithmeticCoercion.arithmetic(Operator.PLUS, DATE32, DATE32));
        assertEquals(Optional.empty(), ArithmeticCoercion.arithmetic(Operator.MULTIPLY, DATE32, INT32));
        assertEquals(Optional.empty(), ArithmeticCoercion.arithmetic(Operator.PLUS, DATE32, FLOAT64));
    }

    @Test
    void arithmeticWithNullsAndNonNumbers() {
        assertPlan(plan(INT32, INT32, INT32), Operator.PLUS, NULL, INT32);
        assertPlan(plan(D10_2, D10_2, D10_2), Operator.MULTIPLY, D10_2, NULL);
        assertPlan(plan(INT64, INT64, INT64), Operator.MINUS, NULL, NULL);
        assertEquals(Optional.empty(), ArithmeticCoercion.arithmetic(Operator.PLUS, UTF8, INT32));
        assertEquals(Optional.empty(), ArithmeticCoercion.arithmetic(Operator.PLUS, BOOLEAN, BOOLEAN));
        assertEquals(Optional.empty(), ArithmeticCoercion.arithmetic(Operator.PLUS, NULL, UTF8));
        assertEquals(
                Optional.empty(),
                ArithmeticCoercion.arithmetic(Operator.DIVIDE, new Timestamp(TimeUnit.SECOND, null), INT64));
        assertThrows(IllegalArgumentException.class, () -> ArithmeticCoercion.arithmetic(Operator.EQ, INT32, INT32));
    }

    // ------------------------------------------------------------------ canCoerce

    @Test
    void canCoerce() {
        Timestamp ts = new Timestamp(TimeUnit.MILLISECOND, null);
        DataType[][] allowed = {
            {INT32, INT32},
            {NULL, BOOLEAN},
            {NULL, new ListType(INT32, true)},
            {INT8, INT64},
            {UINT8, INT16},
            {INT32, FLOAT32},
            {INT64, FLOAT64},
            {FLOAT32, FLOAT64},
            {INT64, dec(5, 2)},
            {D10_2, dec(12, 2)},
            {D10_2, FLOAT64},
            {UTF8, LARGE_UTF8},
            {DATE32, ts},
            {new Dictionary(INT32, UTF8), UTF8},
            {new Dictionary(INT32, INT8), INT32},
        };
        DataType[][] refused = {
            {INT64, INT32},
            {INT64, FLOAT32},
            {UINT64, FLOAT32},
            {UINT32, INT32},
            {INT32, UINT32},
            {UINT64, INT64},
            {FLOAT64, FLOAT32},
            {FLOAT32, INT64},
            {FLOAT64, D10_2},
            {D10_2, dec(10, 3)},
            {D10_2, FLOAT32},
            {D10_2, INT64},
            {INT32, UTF8},
            {UTF8, INT32},
            {UTF8, D10_2},
            {UTF8, DATE32},
            {LARGE_UTF8, ts},
            {UTF8, BINARY},
            {LARGE_UTF8, UTF8},
            {UTF8, BOOLEAN},
            {BOOLEAN, INT32},
            {BINARY, UTF8},
            {ts, DATE32},
            {INT32, DATE32},
            {INT32, NULL},
        };
        for (DataType[] p : allowed) {
            assertTrue(TypeCoercion.canCoerce(p[0], p[1]), p[0] + " -> " + p[1]);
        }
        for (DataType[] p : refused) {
            assertFalse(TypeCoercion.canCoerce(p[0], p[1]), p[0] + " -> " + p[1]);
        }
    }

    // ------------------------------------------------------------------ docs/coercion.md

    static final String TABLE_BEGIN =
            "<!-- numeric-table:begin (generated by TypeCoercionTest; run with -Dquiver.regenerateDocs=true) -->\n";
    static final String TABLE_END = "<!-- numeric-table:end -->";

    /** The numeric pair table as docs/coercion.md shows it, computed by {@link TypeCoercion#commonType}. */
    static String renderNumericTable() {
        StringBuilder sb = new StringBuilder("| | ");
        for (DataType t : NUMERIC) {
            sb.append(t).append(" | ");
        }
        sb.setLength(sb.length() - 1);
        sb.append("\n|---|");
        sb.append("---|".repeat(NUMERIC.size())).append('\n');
        for (DataType a : NUMERIC) {
            sb.append("| **").append(a).append("** | ");
            for (DataType b : NUMERIC) {
                sb.append(TypeCoercion.commonType(a, b).map(Object::toString).orElse("—"))
                        .append(" | ");
            }
            sb.setLength(sb.length() - 1);
            sb.append('\n');
        }
        return sb.toString();
    }

    static Path docPath() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null) {
            Path candidate = dir.resolve("docs/coercion.md");
            if (Files.exists(candidate)) {
                return candidate;
            }
            dir = dir.getParent();
        }
        throw new AssertionError(
                "docs/coercion.md not found above " + Path.of("").toAbsolutePath());
    }

    @Test
    void docsShowTheNumericTableTheCodeComputes() throws IOException {
        Path doc = docPath();
        String text = Files.readString(doc);
        String table = renderNumericTable();
        if (Boolean.getBoolean("quiver.regenerateDocs")) {
            int begin = text.indexOf(TABLE_BEGIN);
            int end = text.indexOf(TABLE_END);
            assertTrue(begin >= 0 && end > begin, "markers missing in " + doc);
            text = text.substring(0, begin + TABLE_BEGIN.length()) + table + text.substring(end);
            Files.writeString(doc, text);
        }
        assertTrue(
                text.contains(TABLE_BEGIN + table + TABLE_END),
                doc + " does not show the numeric table the code computes; it should read:\n" + table
                        + "\n(regenerate with mvn -o -pl host test -Dtest=TypeCoercionTest -Dquiver.regenerateDocs=true)");
    }
}
