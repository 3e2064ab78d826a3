package dev.quiver.tests;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Expression text for {@link ExpressionTextFuzzTest}, over the columns of {@link FuzzBatch}: from
 * the grammar ({@link FuzzGenerator}'s well-typed trees), from random tokens (keywords, types,
 * operators, parentheses, literals, identifiers, quotes, unicode, functions), deeply nested
 * (parentheses, negations, NOT, calls, CASE, casts, arrays: up to {@link #MAX_DEPTH} levels), very
 * large (long literals and identifiers, sums of up to 100,000 terms, IN lists and calls of
 * thousands of arguments), then mutated ({@link #mutate}: tokens and characters deleted,
 * inserted, swapped, duplicated, the text cut).
 */
final class ExpressionTexts {
    static final int MAX_DEPTH = 5_000;

    private static final List<String> KEYWORDS = List.of(
            "SELECT",
            "FROM",
            "WHERE",
            "CASE",
            "WHEN",
            "THEN",
            "ELSE",
            "END",
            "AND",
            "OR",
            "NOT",
            "IS",
            "NULL",
            "TRUE",
            "FALSE",
            "IN",
            "BETWEEN",
            "LIKE",
            "ILIKE",
            "SIMILAR TO",
            "ESCAPE",
            "CAST",
            "TRY_CAST",
            "AS",
            "DISTINCT",
            "INTERVAL",
            "DATE",
            "TIMESTAMP",
            "TIME",
            "EXISTS",
            "ARRAY",
            "STRUCT",
            "ROW",
            "OVER",
            "PARTITION BY",
            "ORDER BY",
            "LIMIT",
            "UNION",
            "ALL",
            "ANY",
            "EXTRACT",
            "YEAR",
            "POSITION",
            "SUBSTRING",
            "TRIM",
            "LEADING",
            "COLLATE",
            "AT TIME ZONE",
            "IS DISTINCT FROM",
            "IS NOT DISTINCT FROM",
            "UNKNOWN",
            "DEFAULT",
            "VALUES",
            "WITH",
            "RECURSIVE");
    private static final List<String> TYPES = List.of(
            "INTEGER",
            "BIGINT",
            "DOUBLE",
            "REAL",
            "VARCHAR",
            "BOOLEAN",
            "DECIMAL(38, 0)",
            "DECIMAL(10, 2)",
            "DECIMAL(39, 0)",
            "DECIMAL(0, 0)",
            "DECIMAL(5, 9)",
            "DATE",
            "TIMESTAMP",
            "BINARY",
            "INT[]",
            "SMALLINT",
            "TINYINT",
            "TEXT",
            "BYTEA",
            "VARCHAR(3)",
            "NOTATYPE",
            "TIMESTAMP WITH TIME ZONE");
    private static final List<String> OPERATORS = List.of(
            "+", "-", "*", "/", "%", "||", "=", "==", "<>", "!=", "<", "<=", ">", ">=", "::", "(", ")", "(", ")", "[",
            "]", "{", "}", ",", ".", ";", "?", ":", "@", "#", "$", "^", "&", "|", "~", "!", "->", "->>", "<=>", "<<",
            ">>", "**", "'", "\"", "`", "\\");
    private static final List<String> LITERALS = List.of(
            "0",
            "1",
            "-1",
            "2",
            "2147483647",
            "2147483648",
            "-2147483649",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775809",
            "1e308",
            "1e309",
            "-1e400",
            "1e-400",
            "0.0",
            "-0.0",
            "NaN",
            "'NaN'",
            "'Infinity'",
            "1.5",
            ".5",
            "5.",
            "1e",
            "0x1F",
            "0b101",
            "00012",
            "1_000",
            "'abc'",
            "''",
            "'it''s'",
            "'unterminated",
            "'a\\'",
            "E'\\n'",
            "X'00FF'",
            "X'0'",
            "B'0101'",
            "N'x'",
            "$$x$$",
            "'%'",
            "'_'",
            "'\\%'",
            "'日本語'",
            "'é'",
            "'\u0000'",
            "'\uD800'",
            "'\u202E'",
            "DATE '2020-02-30'",
            "DATE '1970-01-01'",
            "TIMESTAMP '2020-01-01 25:00:00'",
            "TIMESTAMP '9999-12-31 23:59:59'",
            "INTERVAL '1' DAY",
            "INTERVAL 'x' MONTH",
            "99999999999999999999999999999999999999",
            "999999999999999999999999999999999999999",
            "0.000000000000000000000000000000000000001",
            "[1, 2]",
            "{'a': 1}");
    private static final List<String> IDENTIFIERS = List.of(
            "i32",
            "j32",
            "i64",
            "f64",
            "g64",
            "f32",
            "b",
            "s",
            "ds",
            "nope",
            "\"i32\"",
            "\"I32\"",
            "\"quoted \"\"x\"\"\"",
            "`i32`",
            "[i32]",
            "_x",
            "\"日本\"",
            "é",
            "ñ",
            "\"\"",
            "I32",
            "S",
            "s.x",
            "t.s",
            "\"s\".\"x\"",
            "$1",
            "?",
            ":x",
            "@x");
    private static final List<String> FUNCTIONS = List.of(
            "upper",
            "lower",
            "length",
            "octet_length",
            "substring",
            "substr",
            "regexp_matches",
            "regexp_like",
            "regexp_replace",
            "repeat",
            "concat",
            "abs",
            "sqrt",
            "ln",
            "exp",
            "pow",
            "make_array",
            "array_element",
            "array_length",
            "cardinality",
            "array_contains",
            "named_struct",
            "struct",
            "get_field",
            "fz_lerp",
            "fz_imod",
            "round",
            "trunc",
            "coalesce",
            "nullif",
            "greatest",
            "least",
            "lpad",
            "rpad",
            "strpos",
            "split_part",
            "now",
            "random",
            "try_add",
            "try_divide",
            "gcd",
            "mod",
            "left",
            "right",
            "reverse",
            "replace",
            "trim",
            "starts_with",
            "contains",
            "nonexistent_function",
            "count",
            "sum",
            "max");
    private static final List<String> UNICODE = List.of(
            "\u0000",
            "\uD800",
            "\uDC00",
            "\u202E",
            "\uFEFF",
            "\u200B",
            "\uD83D\uDE00",
            "e\u0301",
            "\uFF08",
            "\uFF0B",
            "\u00A0",
            "\t",
            "\n",
            "\r",
            "\u2028",
            "\u0085",
            "\u001B",
            "\u007F",
            "ǅ",
            "İ",
            "ß");
    private static final List<String> PATTERNS = List.of(
            "'(a+)+b'",
            "'(.*a){20}x'",
            "'(a|aa)*c'",
            "'['",
            "'(?<n>a)\\\\k<n>'",
            "'a{1000000}'",
            "'\\\\'",
            "'(?i)A'",
            "'^$'",
            "'((((((((((a))))))))))'",
            "'(?=a)'",
            "'\\\\p{Greek}'");

    private ExpressionTexts() {}

    /** Where a text came from, for the report and the summary. */
    enum Source {
        GRAMMAR,
        TOKENS,
        DEEP,
        LARGE
    }

    /** The characters a mutation inserts besides unicode ones: punctuation, a space, a digit, letters. */
    private static final String PUNCTUATION = "()'\",.;[]{}|-+*/%=<>!?:@#$^&~`\\ 0aZ_";

    record Text(Source source, String sql, String description) {}

    /** A text from one of the sources, then mutated (a grammar text is sometimes left valid). */
    static Text random(Random r, FuzzGenerator grammar) {
        int pick = r.nextInt(20);
        Text t = pick < 9
                ? new Text(Source.GRAMMAR, grammar.any().sql(), "from the grammar")
                : pick < 14 ? tokens(r) : pick < 18 ? deep(r) : large(r);
        int mutations = t.source == Source.GRAMMAR ? r.nextInt(4) : r.nextInt(3);
        if (mutations == 0) {
            return t;
        }
        StringBuilder how = new StringBuilder(t.description);
        String sql = t.sql;
        for (int i = 0; i < mutations; i++) {
            Mutation m = mutate(sql, r);
            sql = m.sql;
            how.append("; ").append(m.what);
        }
        return new Text(t.source, sql, how.toString());
    }

    static Text tokens(Random r) {
        int n = 1 + r.nextInt(r.nextInt(8) == 0 ? 60 : 12);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 || r.nextInt(6) == 0 ? "" : " ").append(token(r));
        }
        return new Text(Source.TOKENS, sb.toString(), n + " random tokens");
    }

    static String token(Random r) {
        return switch (r.nextInt(9)) {
            case 0, 1 -> pick(r, KEYWORDS);
            case 2 -> pick(r, TYPES);
            case 3, 4 -> pick(r, OPERATORS);
            case 5 -> pick(r, LITERALS);
            case 6 -> pick(r, IDENTIFIERS);
            case 7 -> pick(r, FUNCTIONS) + "(";
            default -> r.nextBoolean() ? pick(r, UNICODE) : pick(r, PATTERNS);
        };
    }

    /** A depth: mostly tens or hundreds, sometimes thousands, up to {@link #MAX_DEPTH}. */
    private static int depth(Random r) {
        return switch (r.nextInt(4)) {
            case 0 -> 2 + r.nextInt(30);
            case 1 -> 30 + r.nextInt(300);
            case 2 -> 300 + r.nextInt(1_700);
            default -> 2_000 + r.nextInt(MAX_DEPTH - 2_000 + 1);
        };
    }

    static Text deep(Random r) {
        int n = depth(r);
        String sql = switch (r.nextInt(10)) {
            case 0 -> "(".repeat(n) + "i32" + ")".repeat(n);
            case 1 -> "-(".repeat(n) + "i64" + ")".repeat(n);
            case 2 -> "NOT (".repeat(n) + "b" + ")".repeat(n);
            case 3 -> "abs(".repeat(n) + "i32" + ")".repeat(n);
            case 4 -> "CASE WHEN b THEN ".repeat(n) + "1" + " ELSE 0 END".repeat(n);
            case 5 -> "CAST(".repeat(n) + "i32" + " AS BIGINT)".repeat(n);
            case 6 -> "upper(".repeat(n) + "s" + ")".repeat(n);
            case 7 -> "make_array(".repeat(n) + "1" + ")".repeat(n);
            case 8 -> "(i32 + ".repeat(n) + "1" + ")".repeat(n);
            default -> "array_element(make_array(".repeat(n) + "i32" + "), 1)".repeat(n);
        };
        return new Text(Source.DEEP, sql, "nested " + n + " levels");
    }

    static Text large(Random r) {
        int n = switch (r.nextInt(3)) {
            case 0 -> 100 + r.nextInt(1_000);
            case 1 -> 1_000 + r.nextInt(10_000);
            default -> 10_000 + r.nextInt(90_001);
        };
        String sql = switch (r.nextInt(9)) {
            case 0 -> "i32" + " + i32".repeat(n);
            case 1 -> "b" + " AND b".repeat(n);
            case 2 -> "s" + " || s".repeat(Math.min(n, 5_000));
            case 3 -> "i32 IN (" + "1, ".repeat(n) + "2)";
            case 4 -> "concat(" + "s, ".repeat(Math.min(n, 5_000)) + "s)";
            case 5 -> "length('" + "x".repeat(n * 10) + "')";
            case 6 -> "i64 + " + "9".repeat(n);
            case 7 -> "\"" + "c".repeat(n) + "\" + 1";
            default -> "CASE" + " WHEN i32 = 1 THEN 'a'".repeat(Math.min(n, 3_000)) + " ELSE 'b' END";
        };
        return new Text(Source.LARGE, sql, "large (" + sql.length() + " characters)");
    }

    private record Mutation(String sql, String what) {}

    private static Mutation mutate(String sql, Random r) {
        List<int[]> tokens = tokenize(sql);
        if (sql.isEmpty() || tokens.isEmpty()) {
            String t = token(r);
            return new Mutation(t, "replaced by " + abbreviate(t));
        }
        int[] a = tokens.get(r.nextInt(tokens.size()));
        int[] b = tokens.get(r.nextInt(tokens.size()));
        int p = r.nextInt(sql.length());
        return switch (r.nextInt(9)) {
            case 0 ->
                new Mutation(
                        sql.substring(0, a[0]) + sql.substring(a[1]),
                        "token '" + abbreviate(sql.substring(a[0], a[1])) + "' deleted");
            case 1 -> {
                String t = token(r);
                yield new Mutation(
                        sql.substring(0, a[0]) + t + " " + sql.substring(a[0]),
                        "token '" + abbreviate(t) + "' inserted at " + a[0]);
            }
            case 2 -> {
                int[] first = a[0] <= b[0] ? a : b, second = a[0] <= b[0] ? b : a;
                if (first[1] > second[0]) {
                    yield new Mutation(sql, "no swap");
                }
                yield new Mutation(
                        sql.substring(0, first[0])
                                + sql.substring(second[0], second[1])
                                + sql.substring(first[1], second[0])
                                + sql.substring(first[0], first[1])
                                + sql.substring(second[1]),
                        "tokens at " + first[0] + " and " + second[0] + " swapped");
            }
            case 3 -> {
                int end = Math.min(sql.length(), p + 1 + r.nextInt(40));
                yield new Mutation(
                        sql.substring(0, end) + sql.substring(p, end) + sql.substring(end),
                        "characters " + p + ".." + end + " duplicated");
            }
            case 4 -> new Mutation(sql.substring(0, p) + sql.substring(p + 1), "character " + p + " deleted");
            case 5 -> {
                String c = r.nextBoolean()
                        ? pick(r, UNICODE)
                        : String.valueOf(PUNCTUATION.charAt(r.nextInt(PUNCTUATION.length())));
                yield new Mutation(
                        sql.substring(0, p) + c + sql.substring(p),
                        "character U+" + Integer.toHexString(c.codePointAt(0)) + " inserted at " + p);
            }
            case 6 -> {
                char c = (char) (r.nextBoolean() ? 32 + r.nextInt(95) : r.nextInt(0x3000));
                yield new Mutation(
                        sql.substring(0, p) + c + sql.substring(p + 1),
                        "character " + p + " replaced by U+" + Integer.toHexString(c));
            }
            case 7 -> new Mutation(sql.substring(0, p), "cut at " + p);
            default -> {
                String t = pick(r, LITERALS);
                yield new Mutation(
                        sql.substring(0, a[0]) + t + sql.substring(a[1]),
                        "token at " + a[0] + " replaced by " + abbreviate(t));
            }
        };
    }

    /** Rough tokens, as [start, end) pairs: words, numbers, quoted strings, single characters. */
    private static List<int[]> tokenize(String sql) {
        List<int[]> out = new ArrayList<>();
        int i = 0;
        while (i < sql.length() && out.size() < 10_000) {
            char c = sql.charAt(i);
            int start = i;
            if (Character.isWhitespace(c)) {
                i++;
                continue;
            }
            if (Character.isLetterOrDigit(c) || c == '_') {
                while (i < sql.length()
                        && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_' || sql.charAt(i) == '.')) {
                    i++;
                }
            } else if (c == '\'' || c == '"') {
                int close = sql.indexOf(c, i + 1);
                i = close < 0 ? sql.length() : close + 1;
            } else {
                i++;
            }
            out.add(new int[] {start, i});
        }
        return out;
    }

    static String abbreviate(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "...(" + s.length() + " characters)" : s;
    }

    private static String pick(Random r, List<String> options) {
        return options.get(r.nextInt(options.size()));
    }
}
