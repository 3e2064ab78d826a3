package dev.quiver.types;

import java.util.Locale;
import org.apache.arrow.vector.types.IntervalUnit;

/**
 * SQL spellings of Quiver types, as {@code CAST(x AS ...)} and the SQL parser use them. Names
 * follow DuckDB where a type has one ({@code TINYINT ... UBIGINT, REAL, DOUBLE, VARCHAR, BLOB,
 * DATE, TIMESTAMP_S/_MS/_NS, TIMESTAMP, TIMESTAMPTZ}); every name {@link DataType#parse}
 * knows is accepted as well.
 */
public final class SqlTypes {
    private SqlTypes() {}

    /** The SQL name of {@code t}, which {@link #fromSql} reads back to {@code t}. */
    public static String sqlName(DataType t) {
        return switch (t) {
            case DataType.Null _ -> "\"Null\""; // bare NULL is not a type name to SQL parsers
            case DataType.Bool _ -> "BOOLEAN";
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
            case DataType.Utf8 u -> u.large() ? "LARGE_UTF8" : "VARCHAR";
            case DataType.Binary _ -> "BLOB";
            case DataType.Date32 _ -> "DATE";
            case DataType.Timestamp ts
            when ts.timezone() == null ->
                switch (ts.unit()) {
                    case SECOND -> "TIMESTAMP_S";
                    case MILLISECOND -> "TIMESTAMP_MS";
                    case MICROSECOND -> "TIMESTAMP";
                    case NANOSECOND -> "TIMESTAMP_NS";
                };
            case DataType.Timestamp ts
            when ts.unit() == DataType.TimeUnit.MICROSECOND && ts.timezone().equals("UTC") -> "TIMESTAMPTZ";
            case DataType.Interval i when i.unit() == IntervalUnit.MONTH_DAY_NANO -> "INTERVAL";
            case DataType.ListType l when l.elementNullable() -> sqlName(l.element()) + "[]";
            case DataType.Struct s
            when s.fields().stream().allMatch(DataType.StructField::nullable) -> {
                StringBuilder sb = new StringBuilder("STRUCT(");
                for (int i = 0; i < s.fields().size(); i++) {
                    DataType.StructField f = s.fields().get(i);
                    sb.append(i == 0 ? "" : ", ")
                            .append('"')
                            .append(f.name().replace("\"", "\"\""))
                            .append("\" ")
                            .append(sqlName(f.type()));
                }
                yield sb.append(')').toString();
            }
            default -> "\"" + t + "\"";
        };
    }

    /**
     * The type a SQL type name stands for: the names {@link #sqlName} writes, the names
     * {@link DataType#parse} knows, and {@code DECIMAL(p, s)}/{@code NUMERIC(p, s)}
     * (plain {@code DECIMAL} is DECIMAL(18, 3), as in DuckDB).
     *
     * @throws IllegalArgumentException naming the type when it is unknown
     */
    public static DataType fromSql(String name) {
        String s = name.trim();
        if (s.length() > 1 && s.startsWith("\"") && s.endsWith("\"")) {
            return fromDisplay(s.substring(1, s.length() - 1));
        }
        String u = s.toUpperCase(Locale.ROOT).replaceAll("\\s+", " ");
        return switch (u) {
            case "TIMESTAMP_S" -> new DataType.Timestamp(DataType.TimeUnit.SECOND, null);
            case "TIMESTAMP_MS" -> new DataType.Timestamp(DataType.TimeUnit.MILLISECOND, null);
            case "TIMESTAMP", "DATETIME", "TIMESTAMP_US" -> new DataType.Timestamp(DataType.TimeUnit.MICROSECOND, null);
            case "TIMESTAMP_NS" -> new DataType.Timestamp(DataType.TimeUnit.NANOSECOND, null);
            case "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE" ->
                new DataType.Timestamp(DataType.TimeUnit.MICROSECOND, "UTC");
            case "DECIMAL", "NUMERIC" -> new DataType.Decimal(18, 3);
            case "INT1" -> DataType.INT8;
            case "INT2" -> DataType.INT16;
            case "INT4", "SIGNED" -> DataType.INT32;
            case "INT8" -> DataType.INT64; // SQL's INT8 is eight bytes
            case "FLOAT4" -> DataType.FLOAT32;
            case "FLOAT8", "DOUBLE PRECISION" -> DataType.FLOAT64;
            case "CHAR", "BPCHAR", "CHARACTER VARYING" -> DataType.UTF8;
            default ->
                DataType.parse(s.replaceAll("\\s*\\(\\s*", "(")
                        .replaceAll("\\s*,\\s*", ",")
                        .replaceAll("\\s*\\)", ")")
                        .replaceAll("(?i)^(varchar|char)\\(\\d+\\)$", "utf8"));
        };
    }

    /** Reads back {@link DataType#toString()} for the flat types. */
    private static DataType fromDisplay(String display) {
        for (DataType t : new DataType[] {
            DataType.NULL,
            DataType.BOOLEAN,
            DataType.INT8,
            DataType.INT16,
            DataType.INT32,
            DataType.INT64,
            DataType.UINT8,
            DataType.UINT16,
            DataType.UINT32,
            DataType.UINT64,
            DataType.FLOAT32,
            DataType.FLOAT64,
            DataType.UTF8,
            DataType.LARGE_UTF8,
            DataType.BINARY,
            DataType.DATE32
        }) {
            if (t.toString().equalsIgnoreCase(display)) {
                return t;
            }
        }
        if (display.startsWith("Timestamp(") && display.endsWith(")")) {
            String[] ps = display.substring(10, display.length() - 1).split(",\\s*", 2);
            for (DataType.TimeUnit unit : DataType.TimeUnit.values()) {
                if (unit.abbreviation().equals(ps[0])) {
                    return new DataType.Timestamp(unit, ps.length > 1 ? ps[1] : null);
                }
            }
        }
        if (display.startsWith("Decimal128(")) {
            return DataType.parse("decimal" + display.substring(10));
        }
        throw new IllegalArgumentException("unknown type \"" + display + "\"");
    }
}
