package dev.quiver.tests;

import static dev.quiver.tests.FuzzExpr.HOLE;

import dev.quiver.tests.FuzzExpr.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random well-typed expression trees over the columns of {@link FuzzBatch}, depth-bounded, from
 * a seeded {@link Random}. Each production says whether DuckDB gives the same answer (so the
 * tree may be sent to DuckDB when all its nodes do) and which transcendental function it calls.
 * Shapes Quiver deliberately answers differently from DuckDB (docs/expressions.md) are marked
 * not DuckDB's: integer {@code /} and {@code %}, {@code abs} and {@code CAST} of integers that
 * wrap or round, {@code sqrt}/{@code ln} of negatives, Float32 math results, try_ functions,
 * RowFns, the 2.5-literal typing (float literals are always written as CASTs).
 */
final class FuzzGenerator {
    static final String H = String.valueOf(HOLE);

    private final Random random;
    private final int maxDepth;

    FuzzGenerator(Random random, int maxDepth) {
        this.random = random;
        this.maxDepth = maxDepth;
    }

    /**
     * Whether DuckDB's least/greatest of {@code t} agree with Quiver's: not for floats, where DuckDB
     * drops the sign of zero ({@code least(-0.0, -0.0)} is 0.0 there, so {@code 1 / least(..)} is
     * Infinity rather than -Infinity: docs/expressions.md, found by the soak, seed 44).
     */
    private static boolean agreesOnZeroSign(Type t) {
        return !(t == Type.F64 || t == Type.F32);
    }

    /** A tree of a random result type. */
    FuzzExpr any() {
        Type[] types = Type.values();
        return gen(types[random.nextInt(types.length)], maxDepth);
    }

    FuzzExpr gen(Type t, int depth) {
        if (depth <= 0 || random.nextInt(5) == 0) {
            return leaf(t);
        }
        return switch (t) {
            case I32, I64 -> integer(t, depth - 1);
            case F64 -> float64(depth - 1);
            case F32 -> float32(depth - 1);
            case BOOL -> bool(depth - 1);
            case STR -> string(depth - 1);
        };
    }

    private FuzzExpr leaf(Type t) {
        if (random.nextInt(10) < 6) {
            List<String> cols = FuzzBatch.columnsOf(t);
            return FuzzExpr.leaf(cols.get(random.nextInt(cols.size())), t, false);
        }
        return literal(t, random, false);
    }

    static FuzzExpr literal(Type t, Random random, boolean simple) {
        if (!simple && random.nextInt(8) == 0) {
            return FuzzExpr.leaf("CAST(NULL AS " + t.sql + ")", t, true);
        }
        String sql = switch (t) {
            case I32 ->
                simple
                        ? "1"
                        : pick(
                                random,
                                "0",
                                "1",
                                "-1",
                                "2",
                                "7",
                                "-3",
                                "100",
                                "2147483647",
                                "CAST(-2147483648 AS INTEGER)",
                                "65536",
                                "46341");
            case I64 ->
                "CAST("
                        + (simple
                                ? "1"
                                : pick(
                                        random,
                                        "0",
                                        "1",
                                        "-1",
                                        "3",
                                        "9223372036854775807",
                                        "-9223372036854775808",
                                        "4294967296",
                                        "2147483648",
                                        "-2147483649",
                                        "3037000500"))
                        + " AS BIGINT)";
            // Float literals are cast from text: -0.0 and 2.5 are DECIMALs in DuckDB (0 and 2.5), Float64 in Quiver.
            case F64 ->
                "CAST('"
                        + (simple
                                ? "1.0"
                                : pick(
                                        random,
                                        "0.0",
                                        "-0.0",
                                        "1.0",
                                        "-1.0",
                                        "0.5",
                                        "2.5",
                                        "-2.5",
                                        "1e308",
                                        "-1e308",
                                        "4.9e-324",
                                        "2.2250738585072014e-308",
                                        "1e-310",
                                        "3.0",
                                        "NaN",
                                        "Infinity",
                                        "-Infinity",
                                        "9007199254740993.0",
                                        "1e20",
                                        "0.1"))
                        + "' AS DOUBLE)";
            case F32 ->
                "CAST('"
                        + (simple
                                ? "1.0"
                                : pick(
                                        random,
                                        "0.0",
                                        "-0.0",
                                        "1.0",
                                        "-1.5",
                                        "0.5",
                                        "3.4e38",
                                        "1e-45",
                                        "1e-40",
                                        "NaN",
                                        "Infinity",
                                        "-Infinity",
                                        "16777217.0",
                                        "0.1"))
                        + "' AS REAL)";
            case BOOL -> simple ? "TRUE" : pick(random, "TRUE", "FALSE");
            case STR ->
                "'"
                        + (simple
                                ? "a"
                                : pick(
                                        random, "", "a", "A", "abc", "ABC", "b", "a%", "_", "héllo", "HÉLLO", "日本語",
                                        "xyz", "ab", "5", " a "))
                        + "'";
        };
        return FuzzExpr.leaf(sql, t, true);
    }

    static String pick(Random random, String... options) {
        return options[random.nextInt(options.length)];
    }

    private static FuzzExpr node(String template, Type t, boolean duckDb, String inexact, FuzzExpr... kids) {
        return new FuzzExpr(template, t, List.of(kids), false, duckDb, inexact);
    }

    private FuzzExpr integer(Type t, int d) {
        String sql = t.sql;
        Type other = t == Type.I64 && random.nextBoolean() ? Type.I32 : t;
        switch (random.nextInt(21)) {
            case 0, 1, 2 -> {
                return node(
                        "(" + H + " " + pick(random, "+", "-", "*") + " " + H + ")",
                        t,
                        true,
                        null,
                        gen(t, d),
                        gen(other, d));
            }
            case 3 -> {
                // Integer division is the SQL standard's, not DuckDB's float division; by zero it raises.
                return node(
                        "(" + H + " " + pick(random, "/", "%") + " " + H + ")",
                        t,
                        false,
                        null,
                        gen(t, d),
                        gen(other, d));
            }
            case 4 -> {
                return node("-(" + H + ")", t, true, null, gen(t, d)); // JSqlParser reads -(-3) but not - -3
            }
            case 5 -> {
                // abs(MIN_VALUE) wraps in Quiver, raises in DuckDB.
                return node("abs(" + H + ")", t, false, null, gen(t, d));
            }
            case 6 -> {
                return node(
                        pick(random, "least", "greatest") + "(" + H + ", " + H + ")",
                        t,
                        agreesOnZeroSign(t),
                        null,
                        gen(t, d),
                        gen(t, d));
            }
            case 7 -> {
                Type from = pick(random, Type.values(), Type.I32, Type.I64, Type.F64, Type.F32);
                boolean widen = from == Type.I32 || from == t;
                return node("CAST(" + H + " AS " + sql + ")", t, widen, null, gen(from, d));
            }
            case 8 -> {
                return node(
                        pick(random, "try_add", "try_subtract", "try_multiply", "try_divide", "try_mod") + "(" + H
                                + ", " + H + ")",
                        t,
                        false,
                        null,
                        gen(t, d),
                        gen(t, d));
            }
            case 9, 10 -> {
                return caseWhen(t, d);
            }
            case 11 -> {
                return node("fz_imod(" + H + ", " + H + ")", t, false, null, gen(t, d), gen(t, d));
            }
            case 12 -> {
                return node(
                        pick(random, "mod", "gcd") + "(" + H + ", " + H + ")", t, false, null, gen(t, d), gen(t, d));
            }
            case 13 -> {
                // make_array, array_element: DuckDB spells them list_value, list_element.
                boolean duck = random.nextBoolean();
                return node(
                        (duck ? "list_element(list_value(" : "array_element(make_array(") + H + ", " + H + ", " + H
                                + "), " + H + ")",
                        t,
                        duck,
                        null,
                        gen(t, d),
                        gen(t, d),
                        gen(t, d),
                        gen(Type.I32, d));
            }
            case 14 -> {
                if (t == Type.I64) {
                    return node("length(" + H + ")", t, true, null, gen(Type.STR, d));
                }
                return node("CAST(length(" + H + ") AS INTEGER)", t, true, null, gen(Type.STR, d));
            }
            case 16 -> {
                if (t == Type.I64) {
                    if (random.nextBoolean()) {
                        return node("strpos(" + H + ", " + H + ")", t, false, null, gen(Type.STR, d), gen(Type.STR, d));
                    }
                    return node("octet_length(" + H + ")", t, false, null, gen(Type.STR, d));
                }
                return node("TRY_CAST(" + H + " AS INTEGER)", t, false, null, gen(Type.STR, d));
            }
            case 17 -> {
                return node(
                        "TRY_CAST(" + H + " AS " + t.sql + ")",
                        t,
                        false,
                        null,
                        gen(pick(random, Type.values(), Type.F64, Type.F32, Type.I64, Type.I32), d));
            }
            case 15 -> {
                if (t == Type.I64) {
                    boolean duck = random.nextBoolean();
                    Type element = pick(random, Type.values(), Type.I32, Type.STR, Type.F64);
                    return node(
                            (duck ? "array_length(list_value(" : "array_length(make_array(") + H + ", " + H + "))",
                            t,
                            duck,
                            null,
                            gen(element, d),
                            gen(element, d));
                }
                return node(pick(random, "sign", "floor", "ceil", "trunc") + "(" + H + ")", t, false, null, gen(t, d));
            }
            default -> {
                return gen(t, d);
            }
        }
    }

    private FuzzExpr float64(int d) {
        Type t = Type.F64;
        switch (random.nextInt(22)) {
            case 0, 1, 2, 3 -> {
                Type a = pick(random, Type.values(), Type.F64, Type.F64, Type.I32, Type.F32);
                Type b = pick(random, Type.values(), Type.F64, Type.F64, Type.I32, Type.I64);
                if (a != Type.F64 && b != Type.F64) {
                    a = Type.F64;
                }
                return node(
                        "(" + H + " " + pick(random, "+", "-", "*", "/", "%") + " " + H + ")",
                        t,
                        true,
                        null,
                        gen(a, d),
                        gen(b, d));
            }
            case 4 -> {
                return node("-(" + H + ")", t, true, null, gen(t, d)); // JSqlParser reads -(-3) but not - -3
            }
            case 5, 6 -> {
                return node(pick(random, "abs", "floor", "ceil", "round") + "(" + H + ")", t, true, null, gen(t, d));
            }
            case 7 -> {
                // Where x * 10^digits has no fraction left Quiver returns x, DuckDB divides back (a documented
                // difference).
                return node("round(" + H + ", " + pick(random, "0", "1", "2", "3") + ")", t, false, null, gen(t, d));
            }
            case 8 -> {
                // sqrt of a negative number is NaN in Quiver, an error in DuckDB.
                return node("sqrt(" + H + ")", t, false, null, gen(t, d));
            }
            case 9 -> {
                String f = pick(random, "exp", "ln", "sin", "cos", "cbrt", "atan", "tanh");
                return node(f + "(" + H + ")", t, false, f, gen(t, d));
            }
            case 10 -> {
                return node("hypot(" + H + ", " + H + ")", t, false, "hypot", gen(t, d), gen(t, d));
            }
            case 11 -> {
                return random.nextBoolean()
                        ? node("pow(" + H + ", " + H + ")", t, false, "pow", gen(t, d), gen(t, d))
                        : node("fma(" + H + ", " + H + ", " + H + ")", t, false, null, gen(t, d), gen(t, d), gen(t, d));
            }
            case 12 -> {
                return node(
                        pick(random, "least", "greatest") + "(" + H + ", " + H + ")",
                        t,
                        agreesOnZeroSign(t),
                        null,
                        gen(t, d),
                        gen(t, d));
            }
            case 13 -> {
                Type from = pick(random, Type.values(), Type.I32, Type.I64, Type.F32);
                return node("CAST(" + H + " AS DOUBLE)", t, true, null, gen(from, d));
            }
            case 14, 15 -> {
                return caseWhen(t, d);
            }
            case 16 -> {
                return node("fz_lerp(" + H + ", " + H + ")", t, false, null, gen(t, d), gen(t, d));
            }
            case 17 -> {
                boolean duck = random.nextBoolean();
                return node(
                        (duck ? "list_element(list_value(" : "array_element(make_array(") + H + ", " + H + "), " + H
                                + ")",
                        t,
                        duck,
                        null,
                        gen(t, d),
                        gen(t, d),
                        gen(Type.I32, d));
            }
            case 18 -> {
                return node(
                        pick(random, "sign", "trunc", "degrees", "radians") + "(" + H + ")", t, false, null, gen(t, d));
            }
            case 19 -> {
                return node(
                        pick(random, "min", "max") + "(" + H + ", " + H + ")", t, false, null, gen(t, d), gen(t, d));
            }
            default -> {
                return gen(t, d);
            }
        }
    }

    private FuzzExpr float32(int d) {
        Type t = Type.F32;
        switch (random.nextInt(10)) {
            case 0, 1, 2 -> {
                return node(
                        "(" + H + " " + pick(random, "+", "-", "*", "/") + " " + H + ")",
                        t,
                        true,
                        null,
                        gen(t, d),
                        gen(t, d));
            }
            case 3 -> {
                return node(pick(random, "abs", "floor", "ceil", "-") + "(" + H + ")", t, true, null, gen(t, d));
            }
            case 4 -> {
                // Float32 math stays Float32 in Quiver, DOUBLE in DuckDB.
                return node("sqrt(" + H + ")", t, false, null, gen(t, d));
            }
            case 5 -> {
                if (random.nextBoolean()) {
                    return node(
                            "fma(" + H + ", " + H + ", " + H + ")", t, false, null, gen(t, d), gen(t, d), gen(t, d));
                }
                String f = pick(random, "exp", "sin", "ln");
                return node(f + "(" + H + ")", t, false, f, gen(t, d));
            }
            case 6 -> {
                // DuckDB raises where a double is beyond the float range; Java rounds to Infinity.
                return node(
                        "CAST(" + H + " AS REAL)",
                        t,
                        false,
                        null,
                        gen(pick(random, Type.values(), Type.F64, Type.I32, Type.I64), d));
            }
            case 7, 8 -> {
                return caseWhen(t, d);
            }
            default -> {
                return node(
                        pick(random, "least", "greatest") + "(" + H + ", " + H + ")",
                        t,
                        agreesOnZeroSign(t),
                        null,
                        gen(t, d),
                        gen(t, d));
            }
        }
    }

    private FuzzExpr bool(int d) {
        Type t = Type.BOOL;
        switch (random.nextInt(16)) {
            case 0, 1, 2 -> {
                Type a = pick(random, Type.values(), Type.I32, Type.I64, Type.F64, Type.F32, Type.STR, Type.BOOL);
                Type b = a.numeric() ? pick(random, Type.values(), a, a, Type.I32, Type.F64) : a;
                return node(
                        "(" + H + " "
                                + pick(
                                        random,
                                        "=",
                                        "<>",
                                        "<",
                                        "<=",
                                        ">",
                                        ">=",
                                        "IS DISTINCT FROM",
                                        "IS NOT DISTINCT FROM")
                                + " " + H + ")",
                        t,
                        true,
                        null,
                        gen(a, d),
                        gen(b, d));
            }
            case 3, 4 -> {
                return node(
                        "(" + H + " " + pick(random, "AND", "OR") + " " + H + ")", t, true, null, gen(t, d), gen(t, d));
            }
            case 5 -> {
                return node("(NOT " + H + ")", t, true, null, gen(t, d));
            }
            case 6 -> {
                Type a = Type.values()[random.nextInt(Type.values().length)];
                return node("(" + H + pick(random, " IS NULL)", " IS NOT NULL)"), t, true, null, gen(a, d));
            }
            case 7 -> {
                Type a = pick(random, Type.values(), Type.I32, Type.I64, Type.F64, Type.STR);
                int n = 1 + random.nextInt(random.nextInt(4) == 0 ? 12 : 4);
                StringBuilder tpl = new StringBuilder("(" + H + pick(random, " IN (", " NOT IN ("));
                List<FuzzExpr> kids = new ArrayList<>();
                kids.add(gen(a, d));
                for (int i = 0; i < n; i++) {
                    tpl.append(i == 0 ? "" : ", ").append(H);
                    kids.add(random.nextInt(4) == 0 ? gen(a, d) : literal(a, random, false));
                }
                return new FuzzExpr(tpl.append("))").toString(), t, kids, false, true, null);
            }
            case 8 -> {
                Type a = pick(random, Type.values(), Type.I32, Type.I64, Type.F64, Type.STR);
                // Bounds are columns or literals: JSqlParser 5.3 rejects a call of two or more arguments
                // with a non-trivial argument as a BETWEEN bound (x BETWEEN a AND gcd(j, CAST(2 AS INTEGER))).
                return node(
                        "(" + H + pick(random, " BETWEEN ", " NOT BETWEEN ") + H + " AND " + H + ")",
                        t,
                        true,
                        null,
                        gen(a, d),
                        leaf(a),
                        leaf(a));
            }
            case 9 -> {
                String p =
                        pick(random, "a%", "%a", "%b%", "_", "a_c", "%", "", "h_llo", "%é%", "A%", "%日%", "a\\%", "%c");
                return node(
                        "(" + H + pick(random, " LIKE '", " NOT LIKE '") + p + "')", t, true, null, gen(Type.STR, d));
            }
            case 10 -> {
                return node(
                        pick(random, "contains", "starts_with", "ends_with") + "(" + H + ", " + H + ")",
                        t,
                        true,
                        null,
                        gen(Type.STR, d),
                        random.nextBoolean() ? literal(Type.STR, random, false) : gen(Type.STR, d));
            }
            case 11, 12 -> {
                return caseWhen(t, d);
            }
            case 13 -> {
                return node(
                        "(" + H + " ILIKE '" + pick(random, "a%", "%É%", "h_llo", "%B%") + "')",
                        t,
                        true,
                        null,
                        gen(Type.STR, d));
            }
            default -> {
                return gen(t, d);
            }
        }
    }

    private FuzzExpr string(int d) {
        Type t = Type.STR;
        switch (random.nextInt(16)) {
            case 0, 1 -> {
                return node(pick(random, "upper", "lower") + "(" + H + ")", t, true, null, gen(t, d));
            }
            case 2 -> {
                return node(
                        "substring(" + H + ", " + (1 + random.nextInt(4)) + ", " + random.nextInt(5) + ")",
                        t,
                        true,
                        null,
                        gen(t, d));
            }
            case 3 -> {
                return node("concat(" + H + ", " + H + ")", t, true, null, gen(t, d), gen(t, d));
            }
            case 4 -> {
                return node("(" + H + " || " + H + ")", t, true, null, gen(t, d), gen(t, d));
            }
            case 5 -> {
                return node(
                        "replace(" + H + ", '" + pick(random, "a", "b", "é", "ab", "A") + "', '"
                                + pick(random, "", "x", "ZZ", "ü") + "')",
                        t,
                        true,
                        null,
                        gen(t, d));
            }
            case 6, 7 -> {
                return caseWhen(t, d);
            }
            case 8 -> {
                // Integer text is the same in both; float text is not.
                return node(
                        "CAST(" + H + " AS VARCHAR)",
                        t,
                        true,
                        null,
                        gen(pick(random, Type.values(), Type.I32, Type.I64), d));
            }
            case 9 -> {
                boolean duck = random.nextBoolean();
                return node(
                        (duck ? "list_element(list_value(" : "array_element(make_array(") + H + ", " + H + "), " + H
                                + ")",
                        t,
                        duck,
                        null,
                        gen(t, d),
                        gen(t, d),
                        gen(Type.I32, d));
            }
            case 10 -> {
                // Quiver only: these agree with DuckDB in most rows but not all (reverse by grapheme, lpad forms...).
                return node(
                        pick(
                                        random,
                                        "trim(",
                                        "ltrim(",
                                        "rtrim(",
                                        "reverse(",
                                        "left(",
                                        "right(",
                                        "lpad(",
                                        "rpad(",
                                        "repeat(")
                                .transform(f -> switch (f) {
                                    case "left(", "right(", "repeat(" ->
                                        f + H + ", " + pick(random, "0", "1", "2", "-1", "3") + ")";
                                    case "lpad(", "rpad(" ->
                                        f + H + ", " + pick(random, "0", "3", "5") + pick(random, "", ", 'é'", ", 'xy'")
                                                + ")";
                                    default -> f + H + ")";
                                }),
                        t,
                        false,
                        null,
                        gen(t, d));
            }
            case 11 -> {
                // Float text is Quiver's own (Java's shortest repr), not DuckDB's.
                return node(
                        "CAST(" + H + " AS VARCHAR)",
                        t,
                        false,
                        null,
                        gen(pick(random, Type.values(), Type.F64, Type.F32, Type.BOOL), d));
            }
            case 12 -> {
                return node(
                        "split_part(" + H + ", '" + pick(random, "a", "b", "é", ",") + "', "
                                + pick(random, "1", "2", "-1") + ")",
                        t,
                        false,
                        null,
                        gen(t, d));
            }
            default -> {
                return gen(t, d);
            }
        }
    }

    /** Searched or simple CASE with 1 to 3 branches, ELSE sometimes. */
    private FuzzExpr caseWhen(Type t, int d) {
        int n = 1 + random.nextInt(3);
        List<FuzzExpr> kids = new ArrayList<>();
        StringBuilder tpl = new StringBuilder("CASE");
        Type subject = null;
        if (random.nextInt(3) == 0) {
            subject = pick(random, Type.values(), Type.I32, Type.STR, Type.I64);
            tpl.append(' ').append(H);
            kids.add(gen(subject, d));
        }
        for (int i = 0; i < n; i++) {
            tpl.append(" WHEN ").append(H).append(" THEN ").append(H);
            kids.add(
                    subject == null
                            ? gen(Type.BOOL, d)
                            : (random.nextBoolean() ? literal(subject, random, false) : gen(subject, d)));
            kids.add(gen(t, d));
        }
        if (random.nextBoolean()) {
            tpl.append(" ELSE ").append(H);
            kids.add(gen(t, d));
        }
        return new FuzzExpr(tpl.append(" END").toString(), t, kids, false, true, null);
    }

    @SafeVarargs
    static <T> T pick(Random random, T[] ignored, T... options) {
        return options[random.nextInt(options.length)];
    }
}
