package dev.quiver.sql;

import dev.quiver.expr.Expr;
import dev.quiver.functions.PlanningException;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which words {@link Expr#toString()} must double-quote as names: every word the grammar does not read back
 * as that column and as that function (its reserved keywords: {@code and}, {@code case}, {@code from},
 * {@code interval}, {@code position}, ...), and SQL's reserved words besides ({@code current}, {@code date},
 * {@code user}, ...), so that text Quiver prints reads the same in other SQL engines.
 */
public final class Keywords {
    /** PostgreSQL's reserved key words and SQL's common ones: quoted even where Quiver's grammar would read them. */
    private static final Set<String> SQL_RESERVED = Set.of(
            "all",
            "analyse",
            "analyze",
            "and",
            "any",
            "array",
            "as",
            "asc",
            "asymmetric",
            "between",
            "both",
            "case",
            "cast",
            "check",
            "collate",
            "column",
            "constraint",
            "create",
            "cross",
            "current",
            "current_catalog",
            "current_date",
            "current_role",
            "current_time",
            "current_timestamp",
            "current_user",
            "date",
            "default",
            "deferrable",
            "desc",
            "distinct",
            "do",
            "else",
            "end",
            "escape",
            "except",
            "exists",
            "false",
            "fetch",
            "for",
            "foreign",
            "from",
            "full",
            "grant",
            "group",
            "having",
            "ilike",
            "in",
            "initially",
            "inner",
            "intersect",
            "interval",
            "into",
            "is",
            "join",
            "lateral",
            "leading",
            "left",
            "like",
            "limit",
            "localtime",
            "localtimestamp",
            "natural",
            "not",
            "null",
            "offset",
            "on",
            "only",
            "or",
            "order",
            "outer",
            "placing",
            "primary",
            "references",
            "returning",
            "right",
            "select",
            "session_user",
            "similar",
            "some",
            "symmetric",
            "table",
            "then",
            "time",
            "timestamp",
            "to",
            "trailing",
            "true",
            "try_cast",
            "union",
            "unique",
            "user",
            "using",
            "values",
            "variadic",
            "when",
            "where",
            "window",
            "with");

    private static final Map<String, Boolean> PROBED = new ConcurrentHashMap<>();
    private static final Set<String> LEXER_KEYWORDS = lexerKeywords();

    private Keywords() {}

    /** Whether {@code name} (in any case) needs quotes to be read back as a name: see the class comment. */
    public static boolean isReserved(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        if (SQL_RESERVED.contains(lower)) {
            return true;
        }
        if (!LEXER_KEYWORDS.contains(lower)) {
            return false; // a plain name to the lexer: it reads back as itself
        }
        return PROBED.computeIfAbsent(lower, w -> !readsBackAsName(w));
    }

    private static Set<String> lexerKeywords() {
        Set<String> out = new HashSet<>();
        var vocabulary = QuiverSqlLexer.VOCABULARY;
        for (int type = 1; type <= vocabulary.getMaxTokenType(); type++) {
            String literal = vocabulary.getLiteralName(type);
            if (literal != null && literal.length() > 2 && Character.isLetter(literal.charAt(1))) {
                out.add(literal.substring(1, literal.length() - 1).toLowerCase(Locale.ROOT));
            }
        }
        return Set.copyOf(out);
    }

    /** Whether the grammar reads the keyword {@code word} as the column {@code word} and as the function {@code word}. */
    private static boolean readsBackAsName(String word) {
        try {
            SqlLimits limits = new SqlLimits(8);
            return ExpressionParser.parse(word, limits).equals(Expr.col(word))
                    && ExpressionParser.parse(word + "(1)", limits).equals(Expr.call(word, Expr.lit(1)));
        } catch (PlanningException e) {
            return false;
        }
    }

    /** The words the grammar reserves, for documentation and tests. */
    static List<String> lexerKeywordList() {
        return LEXER_KEYWORDS.stream().sorted().toList();
    }
}
