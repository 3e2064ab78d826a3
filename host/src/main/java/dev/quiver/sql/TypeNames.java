package dev.quiver.sql;

import dev.quiver.types.DataType;
import dev.quiver.types.SqlTypes;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.antlr.v4.runtime.misc.Interval;
import org.apache.arrow.vector.types.IntervalUnit;

/**
 * The {@link DataType} a type name in the text stands for: every name {@link SqlTypes#fromSql} reads
 * ({@code BIGINT}, {@code DECIMAL(10, 2)}, {@code TIMESTAMP_MS}, {@code "Timestamp(ms, UTC)"}, ...), and
 * {@code INT UNSIGNED}, {@code DOUBLE PRECISION}, {@code CHARACTER VARYING(n)}, {@code VARCHAR(n)},
 * {@code TIMESTAMP(p) [WITH | WITHOUT] TIME ZONE}, {@code INTERVAL}, arrays {@code INT[]} / {@code INT ARRAY},
 * {@code LIST(INT)} and structs {@code STRUCT(a INT, b VARCHAR)}. A type SQL has and Quiver does not yet
 * ({@code TIME}, {@code MAP(...)}, {@code UUID}, ...) is "unsupported type"; any other name "unknown type", with
 * the closest names Quiver knows.
 */
final class TypeNames {
    /** SQL types Quiver has no {@link DataType} for yet. */
    private static final Set<String> UNSUPPORTED = Set.of(
            "time",
            "timetz",
            "time with time zone",
            "time without time zone",
            "map",
            "uuid",
            "json",
            "jsonb",
            "hugeint",
            "uhugeint",
            "union",
            "enum",
            "bit",
            "varbit",
            "bit varying",
            "xml",
            "money",
            "inet",
            "cidr",
            "geometry",
            "variant",
            "object",
            "tinytext",
            "fixed_size_binary",
            "interval day to second",
            "interval year to month");

    /** Names offered by "did you mean". */
    private static final List<String> KNOWN = List.of(
            "BOOLEAN",
            "TINYINT",
            "SMALLINT",
            "INTEGER",
            "INT",
            "BIGINT",
            "UTINYINT",
            "USMALLINT",
            "UINTEGER",
            "UBIGINT",
            "REAL",
            "FLOAT",
            "DOUBLE",
            "DECIMAL",
            "NUMERIC",
            "VARCHAR",
            "TEXT",
            "STRING",
            "BLOB",
            "BYTEA",
            "BINARY",
            "DATE",
            "TIMESTAMP",
            "TIMESTAMPTZ",
            "TIMESTAMP_S",
            "TIMESTAMP_MS",
            "TIMESTAMP_NS",
            "INTERVAL",
            "LIST",
            "STRUCT",
            "LARGE_UTF8");

    private TypeNames() {}

    static DataType of(QuiverSqlParser.DataTypeContext ctx) {
        DataType t = of(ctx.typeName());
        for (int i = 0; i < ctx.arraySuffix().size(); i++) {
            t = new DataType.ListType(t, true);
        }
        return t;
    }

    static DataType of(QuiverSqlParser.TypeNameContext ctx) {
        String name = ctx.identifier() == null ? "INTERVAL" : ctx.identifier().getText();
        List<String> words = new ArrayList<>();
        for (QuiverSqlParser.TypeWordContext w : ctx.typeWord()) {
            words.add(String.join(
                    " ",
                    w.children.stream()
                            .map(c -> c.getText().toUpperCase(Locale.ROOT))
                            .toList()));
        }
        List<QuiverSqlParser.TypeArgumentContext> args = ctx.typeArgument();
        if (name.startsWith("\"") || name.startsWith("`")) {
            if (!args.isEmpty() || !words.isEmpty()) {
                throw new IllegalArgumentException("a quoted type name takes no arguments: " + ctx.getText());
            }
            return SqlTypes.fromSql("\"" + Names.unquote(name) + "\"");
        }
        String lower = name.toLowerCase(Locale.ROOT);
        boolean hasArgs = ctx.LPAREN() != null;
        List<Integer> numbers = new ArrayList<>();
        for (QuiverSqlParser.TypeArgumentContext a : args) {
            if (a.INTEGER_VALUE() != null) {
                numbers.add(Integer.parseInt(a.INTEGER_VALUE().getText()));
            }
        }
        switch (lower) {
            case "struct", "row" -> {
                List<DataType.StructField> fields = new ArrayList<>();
                for (QuiverSqlParser.TypeArgumentContext a : args) {
                    if (a.fieldName == null) {
                        throw new IllegalArgumentException(
                                "STRUCT takes fields (STRUCT(name TYPE, ...)): " + text(ctx));
                    }
                    fields.add(new DataType.StructField(Names.identifier(a.fieldName), of(a.dataType()), true));
                }
                return new DataType.Struct(fields);
            }
            case "list", "array" -> {
                if (args.size() != 1 || args.getFirst().dataType() == null || args.getFirst().fieldName != null) {
                    throw new IllegalArgumentException(
                            "LIST takes one element type (LIST(INT), or INT[]): " + text(ctx));
                }
                return new DataType.ListType(of(args.getFirst().dataType()), true);
            }
            default -> {}
        }
        if (numbers.size() != args.size()) {
            throw new IllegalArgumentException(
                    (UNSUPPORTED.contains(lower) ? "unsupported type " : "unknown type ") + text(ctx));
        }
        return named(lower, words, numbers, hasArgs, text(ctx));
    }

    /** The type of a typed literal, {@code TYPE 'text'}: a name, words and numbers. */
    static DataType ofSimple(QuiverSqlParser.SimpleTypeContext ctx, String written) {
        String name = ctx.identifier().getText();
        if (name.startsWith("\"") || name.startsWith("`")) {
            if (ctx.LPAREN() != null || !ctx.typeWord().isEmpty()) {
                throw new IllegalArgumentException("a quoted type name takes no arguments: " + written);
            }
            return SqlTypes.fromSql("\"" + Names.unquote(name) + "\"");
        }
        List<String> words = new ArrayList<>();
        for (QuiverSqlParser.TypeWordContext w : ctx.typeWord()) {
            words.add(String.join(
                    " ",
                    w.children.stream()
                            .map(c -> c.getText().toUpperCase(Locale.ROOT))
                            .toList()));
        }
        List<Integer> numbers = new ArrayList<>();
        for (var n : ctx.INTEGER_VALUE()) {
            numbers.add(Integer.parseInt(n.getText()));
        }
        return named(name.toLowerCase(Locale.ROOT), words, numbers, ctx.LPAREN() != null, written);
    }

    private static DataType named(
            String lower, List<String> words, List<Integer> numbers, boolean hasArgs, String written) {
        String spelled =
                (lower + (words.isEmpty() ? "" : " " + String.join(" ", words).toLowerCase(Locale.ROOT))).trim();
        if (words.contains("UNSIGNED")) {
            DataType base = simple(lower, hasArgs ? List.of() : numbers, written);
            if (base instanceof DataType.Int i && i.signed() && words.size() == 1) {
                return new DataType.Int(i.bitWidth(), false);
            }
            throw new IllegalArgumentException("unknown type " + written + " (UNSIGNED follows an integer type)");
        }
        if (lower.equals("timestamp") && (hasArgs || !words.isEmpty())) {
            return timestamp(numbers, words, written);
        }
        if (lower.equals("interval") && !hasArgs && words.isEmpty()) {
            return new DataType.Interval(IntervalUnit.MONTH_DAY_NANO);
        }
        if (UNSUPPORTED.contains(spelled)) {
            throw new IllegalArgumentException("unsupported type " + written + " (Quiver has no such type yet)");
        }
        if (Set.of("varchar", "char", "character", "character varying", "bpchar", "nvarchar", "nchar", "text", "string")
                .contains(spelled)) {
            return DataType.UTF8; // a length does not constrain Quiver's strings
        }
        if (Set.of("varbinary", "binary", "bytea", "blob").contains(spelled)) {
            return DataType.BINARY;
        }
        if (Set.of("float", "real", "double").contains(spelled) && numbers.size() == 1) {
            return numbers.getFirst() <= 24
                    ? DataType.FLOAT32
                    : DataType.FLOAT64; // FLOAT(p): p binary digits, as PostgreSQL
        }
        return simple(spelled, numbers, written);
    }

    private static DataType simple(String spelled, List<Integer> numbers, String written) {
        String text = numbers.isEmpty()
                ? spelled
                : spelled + "("
                        + String.join(
                                ", ", numbers.stream().map(String::valueOf).toList()) + ")";
        try {
            return SqlTypes.fromSql(text);
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().startsWith("unknown type")) {
                throw e;
            }
            List<String> close = Suggestions.closest(spelled.toUpperCase(Locale.ROOT), KNOWN);
            throw new IllegalArgumentException(
                    "unknown type " + written
                            + (close.isEmpty()
                                    ? " (Quiver's types: " + String.join(", ", KNOWN) + "; docs/expressions.md#types)"
                                    : Suggestions.didYouMean(close)),
                    e);
        }
    }

    /** {@code TIMESTAMP(p) [WITH | WITHOUT] TIME ZONE}: p fractional digits (0 s, 1-3 ms, 4-6 µs, 7-9 ns), the zone UTC. */
    private static DataType timestamp(List<Integer> numbers, List<String> words, String written) {
        if (numbers.size() > 1
                || words.size() > 1
                || (words.size() == 1 && !words.getFirst().endsWith("TIME ZONE"))) {
            throw new IllegalArgumentException("unknown type " + written);
        }
        int p = numbers.isEmpty() ? 6 : numbers.getFirst();
        DataType.TimeUnit unit = p == 0
                ? DataType.TimeUnit.SECOND
                : p <= 3
                        ? DataType.TimeUnit.MILLISECOND
                        : p <= 6 ? DataType.TimeUnit.MICROSECOND : p <= 9 ? DataType.TimeUnit.NANOSECOND : null;
        if (unit == null) {
            throw new IllegalArgumentException("TIMESTAMP takes 0 to 9 fractional digits, not " + p + ": " + written);
        }
        boolean zoned = !words.isEmpty() && words.getFirst().startsWith("WITH ");
        return new DataType.Timestamp(unit, zoned ? "UTC" : null);
    }

    /** The type as written. */
    static String text(QuiverSqlParser.TypeNameContext ctx) {
        return ctx.start.getInputStream().getText(Interval.of(ctx.start.getStartIndex(), ctx.stop.getStopIndex()));
    }
}
