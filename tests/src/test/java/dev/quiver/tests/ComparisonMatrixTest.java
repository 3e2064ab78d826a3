package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.errors.EvaluationException;
import dev.quiver.functions.PlanningException;
import dev.quiver.types.DataType;
import dev.quiver.types.TypeCoercion;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * Every comparison operator over every pair of the kinds of types the planner knows (integers,
 * unsigned, floats, decimal, string, binary, Boolean, date, timestamps, list, struct, NULL):
 * each either fails at planning with a {@link PlanningException}, or evaluates, and then its
 * rows are DuckDB's for the same comparison with both sides cast explicitly to the comparison
 * type Quiver chose (so this checks the comparison kernels, the coercion lattice is tested in
 * {@code TypeCoercionTest}). A row may fail only where DuckDB's cast fails too (the text '1'
 * is no date), and then with an {@link dev.quiver.errors.EvaluationException}, never an
 * {@code UnsupportedOperationException} or a {@code ClassCastException}.
 *
 * <p>The lists and structs hold no NULL elements: within a value DataFusion (and Quiver) order
 * a NULL element first, DuckDB last; that case is pinned in {@code NestedComparisonTest}.
 */
class ComparisonMatrixTest extends QuiverTestBase {
    private static final String[] OPS = {"=", "<>", "<", "<=", ">", ">=", "IS DISTINCT FROM", "IS NOT DISTINCT FROM"};
    private static final DataType.ListType INT_LIST = new DataType.ListType(DataType.INT32, true);
    private static final DataType.Struct PAIR = new DataType.Struct(List.of(
            new DataType.StructField("a", DataType.INT32, true), new DataType.StructField("b", DataType.UTF8, true)));

    /** A column of the test batch: its name, type, seven values (row 2 NULL in every one) and DuckDB's type name. */
    private record Kind(String name, DataType type, List<Object> values) {}

    private static List<Object> rows(Object... v) {
        return Arrays.asList(v);
    }

    private static Map<String, Object> pair(int a, String b) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("a", a);
        m.put("b", b);
        return m;
    }

    private static final List<Kind> KINDS = List.of(
            new Kind("i8", DataType.INT8, rows((byte) 1, (byte) -3, null, (byte) 0, (byte) 127, (byte) -128, (byte) 5)),
            new Kind("i32", DataType.INT32, rows(1, 2, null, 0, 100, -128, -7)),
            new Kind("i64", DataType.INT64, rows(1L, -3L, null, Long.MAX_VALUE, 100L, Long.MIN_VALUE, 5L)),
            new Kind(
                    "u64",
                    DataType.UINT64,
                    rows(
                            BigInteger.ONE,
                            new BigInteger("18446744073709551615"),
                            null,
                            BigInteger.ZERO,
                            BigInteger.valueOf(100),
                            BigInteger.valueOf(3),
                            BigInteger.valueOf(5))),
            new Kind(
                    "f32", DataType.FLOAT32, rows(1.0f, -0.0f, null, Float.NaN, 100.5f, Float.NEGATIVE_INFINITY, 5.0f)),
            new Kind("f64", DataType.FLOAT64, rows(1.0, 0.0, null, Double.NaN, 100.0, Double.POSITIVE_INFINITY, -7.25)),
            new Kind(
                    "dec",
                    new DataType.Decimal(10, 2),
                    rows(
                            new BigDecimal("1.00"),
                            new BigDecimal("-3.00"),
                            null,
                            new BigDecimal("0.01"),
                            new BigDecimal("100.00"),
                            new BigDecimal("-128.00"),
                            new BigDecimal("5.50"))),
            new Kind("s", DataType.UTF8, rows("1", "-3", null, "0", "100", "-128", "5")),
            new Kind(
                    "b",
                    DataType.BINARY,
                    rows(
                            new byte[] {1},
                            new byte[] {},
                            null,
                            new byte[] {0},
                            new byte[] {(byte) 0xff},
                            new byte[] {1, 2},
                            new byte[] {5})),
            new Kind("flag", DataType.BOOLEAN, rows(true, false, null, false, true, true, false)),
            new Kind("day", DataType.DATE32, rows(0, 1, null, -1, 19_000, -719_162, 5)),
            new Kind(
                    "ts",
                    new DataType.Timestamp(DataType.TimeUnit.MICROSECOND, null),
                    rows(0L, 86_400_000_000L, null, -1L, 1_700_000_000_000_000L, -62_135_596_800_000_000L, 5_000_000L)),
            new Kind(
                    "ts_s",
                    new DataType.Timestamp(DataType.TimeUnit.SECOND, null),
                    rows(0L, 86_400L, null, -1L, 1_700_000_000L, -62_135_596_800L, 5L)),
            new Kind(
                    "l",
                    INT_LIST,
                    rows(List.of(1, 2), List.of(), null, List.of(0), List.of(1, 2, 3), List.of(-128), List.of(5))),
            new Kind(
                    "st",
                    PAIR,
                    rows(
                            pair(1, "x"),
                            pair(1, "y"),
                            null,
                            pair(0, ""),
                            pair(100, "z"),
                            pair(-128, "x"),
                            pair(5, "5"))));

    @Test
    void everyOperatorOverEveryTypePairPlansAndMatchesDuckDbOrIsRefused() throws SQLException {
        List<String> sides = new ArrayList<>(KINDS.stream().map(Kind::name).toList());
        sides.add("NULL");
        int evaluated = 0;
        int refused = 0;
        int failedInBoth = 0;
        List<FieldVector> columns = new ArrayList<>();
        try {
            for (Kind k : KINDS) {
                columns.add(Values.of(k.type, k.name, k.values, allocator));
            }
        } catch (RuntimeException e) {
            columns.forEach(FieldVector::close);
            throw e;
        }
        try (VectorSchemaRoot batch = TestColumns.batch(7, columns.toArray(FieldVector[]::new));
                Connection duckDb = DriverManager.getConnection("jdbc:duckdb:")) {
            load(duckDb);
            Schema schema = batch.getSchema();
            for (String a : sides) {
                for (String b : sides) {
                    DataType ta = typeOf(a);
                    DataType tb = typeOf(b);
                    var common = TypeCoercion.comparisonType(ta, tb);
                    for (String op : OPS) {
                        String expr = a + " " + op + " " + b;
                        CompiledExpression compiled;
                        try {
                            compiled = quiver.compile(schema, expr);
                        } catch (PlanningException e) {
                            refused++;
                            if (a.equals(b)) {
                                fail(expr + ": a type must compare with itself, but planning refused it: "
                                        + e.getMessage());
                            }
                            continue;
                        }
                        assertTrue(common.isPresent(), expr + " planned although the lattice has no comparison type");
                        DataType t = common.get() instanceof DataType.Null ? DataType.BOOLEAN : common.get();
                        String duckSql = side(a, t) + " " + op + " " + side(b, t);
                        List<Object> expected = null;
                        String duckError = null;
                        try {
                            expected = duckDbColumn(duckDb, duckSql);
                        } catch (SQLException e) {
                            duckError = e.getMessage();
                        }
                        List<Object> got;
                        try (FieldVector out = compiled.evaluate(batch, Placement.CPU, allocator)) {
                            got = TestColumns.values(out);
                        } catch (EvaluationException | IllegalArgumentException | ArithmeticException e) {
                            if (duckError == null) {
                                fail(expr + ": Quiver failed (" + e + ") where DuckDB gives " + expected + " for "
                                        + duckSql);
                            }
                            failedInBoth++;
                            continue;
                        } catch (RuntimeException e) {
                            throw new AssertionError(expr + ": planned, then failed with " + e, e);
                        }
                        if (duckError != null) {
                            fail(expr + ": Quiver gives " + got + " where DuckDB fails for " + duckSql + ": "
                                    + duckError);
                        }
                        assertEquals(expected, got, () -> expr + " vs DuckDB " + duckSql);
                        evaluated++;
                    }
                }
            }
        }
        System.out.println("ComparisonMatrixTest: " + evaluated + " comparisons evaluated and equal to DuckDB's, "
                + failedInBoth + " failed in both at a cast, " + refused + " refused at planning");
        assertEquals(0, allocator.getAllocatedMemory());
        // 864 when this was written: 108 pairs of kinds times 8 operators; a drop means planning refuses what it took.
        assertTrue(evaluated >= 864, "comparisons evaluated: " + evaluated);
    }

    private static DataType typeOf(String side) {
        return side.equals("NULL")
                ? DataType.NULL
                : KINDS.stream().filter(k -> k.name.equals(side)).findFirst().orElseThrow().type;
    }

    private static String side(String name, DataType t) {
        return "CAST(" + name + " AS " + duckType(t) + ")";
    }

    private static String duckType(DataType t) {
        return switch (t) {
            case DataType.Int i ->
                (i.signed() ? "" : "U")
                        + switch (i.bitWidth()) {
                            case 8 -> "TINYINT";
                            case 16 -> "SMALLINT";
                            case 32 -> "INTEGER";
                            default -> "BIGINT";
                        };
            case DataType.FloatingPoint f -> f.bitWidth() == 32 ? "REAL" : "DOUBLE";
            case DataType.Decimal d -> "DECIMAL(" + d.precision() + ", " + d.scale() + ")";
            case DataType.Utf8 _ -> "VARCHAR";
            case DataType.Binary _ -> "BLOB";
            case DataType.Bool _ -> "BOOLEAN";
            case DataType.Date32 _ -> "DATE";
            case DataType.Timestamp ts ->
                switch (ts.unit()) {
                    case SECOND -> "TIMESTAMP_S";
                    case MILLISECOND -> "TIMESTAMP_MS";
                    case MICROSECOND -> "TIMESTAMP";
                    case NANOSECOND -> "TIMESTAMP_NS";
                };
            case DataType.ListType l -> duckType(l.element()) + "[]";
            case DataType.Struct s ->
                "STRUCT("
                        + String.join(
                                ", ",
                                s.fields().stream()
                                        .map(f -> f.name() + " " + duckType(f.type()))
                                        .toList()) + ")";
            default -> throw new IllegalArgumentException("no DuckDB type for " + t);
        };
    }

    private static void load(Connection duckDb) throws SQLException {
        StringBuilder create = new StringBuilder("CREATE TABLE t (id INTEGER");
        for (Kind k : KINDS) {
            create.append(", ").append(k.name).append(' ').append(duckType(k.type));
        }
        StringBuilder insert = new StringBuilder("INSERT INTO t VALUES ");
        for (int r = 0; r < 7; r++) {
            insert.append(r == 0 ? "" : ", ").append('(').append(r);
            for (Kind k : KINDS) {
                insert.append(", ").append(literal(k.type, k.values.get(r)));
            }
            insert.append(')');
        }
        try (Statement st = duckDb.createStatement()) {
            st.execute(create.append(')').toString());
            st.execute(insert.toString());
        }
    }

    /** A DuckDB literal: ScalarValue's SQL for the flat types (written for DuckDB), list and struct syntax for the nested. */
    private static String literal(DataType t, Object v) {
        if (v == null) {
            return "NULL";
        }
        return switch (t) {
            case DataType.ListType l ->
                "["
                        + String.join(
                                ", ",
                                ((List<?>) v)
                                        .stream()
                                                .map(e -> literal(l.element(), e))
                                                .toList()) + "]";
            case DataType.Struct s ->
                "{"
                        + String.join(
                                ", ",
                                s.fields().stream()
                                        .map(f -> "'" + f.name() + "': "
                                                + literal(f.type(), ((Map<?, ?>) v).get(f.name())))
                                        .toList())
                        + "}";
            case DataType.FloatingPoint _ -> "CAST('" + v + "' AS " + duckType(t) + ")";
            default -> new ScalarValue(t, v).toSql();
        };
    }

    private static List<Object> duckDbColumn(Connection duckDb, String expr) throws SQLException {
        List<Object> out = new ArrayList<>();
        try (Statement st = duckDb.createStatement();
                ResultSet rs = st.executeQuery("SELECT " + expr + " FROM t ORDER BY id")) {
            while (rs.next()) {
                out.add(rs.getObject(1));
            }
        }
        return out;
    }
}
