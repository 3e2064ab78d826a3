package dev.quiver.expr;

import dev.quiver.functions.PlanningException;
import dev.quiver.types.DataType;
import dev.quiver.types.SqlTypes;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.DecimalText;
import dev.quiver.value.TemporalText;
import net.sf.jsqlparser.expression.CaseExpression;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NotExpression;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.OracleNamedFunctionParameter;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.TrimFunction;
import net.sf.jsqlparser.expression.WhenClause;
import net.sf.jsqlparser.expression.operators.arithmetic.Addition;
import net.sf.jsqlparser.expression.operators.arithmetic.Division;
import net.sf.jsqlparser.expression.operators.arithmetic.Modulo;
import net.sf.jsqlparser.expression.operators.arithmetic.Multiplication;
import net.sf.jsqlparser.expression.operators.arithmetic.Subtraction;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.conditional.OrExpression;
import net.sf.jsqlparser.expression.operators.relational.Between;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ExistsExpression;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.GreaterThan;
import net.sf.jsqlparser.expression.operators.relational.GreaterThanEquals;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.IsDistinctExpression;
import net.sf.jsqlparser.expression.operators.relational.IsNullExpression;
import net.sf.jsqlparser.expression.operators.relational.LikeExpression;
import net.sf.jsqlparser.expression.operators.relational.MinorThan;
import net.sf.jsqlparser.expression.operators.relational.MinorThanEquals;
import net.sf.jsqlparser.expression.operators.relational.NotEqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserConstants;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.parser.ParseException;
import net.sf.jsqlparser.parser.ParserKeywordsUtils;
import net.sf.jsqlparser.parser.Token;
import net.sf.jsqlparser.parser.TokenMgrException;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.Limit;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.select.SetOperationList;

import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.format.DateTimeParseException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads one SQL scalar expression into an {@link Expr}, using JSqlParser for the grammar.
 *
 * <p>What it reads, and to which node:
 * <ul>
 * <li>names: {@code x}, {@code "a b"}, {@code t.x} become {@link Expr.Column}s, spelled exactly as
 *     written (no case folding; quotes removed, {@code ""} inside quotes is one {@code "});</li>
 * <li>literals: an integer is Int32 when it fits, else Int64 (larger is an error); a number with a
 *     point or exponent is Float64; {@code 'text'} is Utf8; {@code TRUE}/{@code FALSE}; {@code NULL}
 *     is the untyped null; a minus directly in front of a number is part of it
 *     ({@code -2147483648} is an Int32, {@code -(2)} is a {@link Expr.Negative});</li>
 * <li>typed literals {@code TYPE 'text'}, as in DuckDB and PostgreSQL: {@code DATE '2024-01-31'},
 *     {@code TIMESTAMP '2024-01-31 10:00:00'}, {@code BIGINT '5'}, {@code DOUBLE 'NaN'},
 *     {@code DECIMAL(10, 2) '1.50'}, {@code BLOB '\xAB'}; and typed nulls {@code NULL::TYPE}. These
 *     are the forms {@link ScalarValue#toSql()} writes. {@code CAST(NULL AS BIGINT)} on the other hand
 *     stays what it says, a {@link Expr.Cast} of the untyped null;</li>
 * <li>{@code + - * / %}, {@code = <> != < <= > >=}, {@code IS [NOT] DISTINCT FROM}, {@code AND OR NOT},
 *     {@code IS [NOT] NULL}, {@code CAST(x AS type)}, {@code x::type}, {@code TRY_CAST(x AS type)}
 *     (type names as {@link SqlTypes#fromSql} reads them), both forms of {@code CASE},
 *     {@code [NOT] IN (...)}, {@code [NOT] BETWEEN}, {@code [NOT] LIKE|ILIKE ... [ESCAPE 'c']};</li>
 * <li>function calls {@code f(a, b)} and {@code f(a, name => b)}: the name is lower-cased unless it is
 *     quoted;</li>
 * <li>uncorrelated scalar subqueries {@code (SELECT expr [AS name] FROM table [WHERE cond] [LIMIT n])},
 *     anywhere an expression goes, as an {@link Expr.ScalarSubquery}: one select item (its alias is
 *     ignored), one plain table name without alias ({@code schema.table} is kept as that name, the parts
 *     unquoted and joined with a dot), an optional WHERE and an optional LIMIT with a non-negative
 *     integer literal. Every other part of a SELECT ({@code *},
 *     several items, joins, several FROM items, a subquery in FROM, GROUP BY, HAVING, ORDER BY,
 *     DISTINCT, OFFSET, UNION and the other set operations, WITH, ...) is rejected, and so are
 *     {@code EXISTS}, {@code IN (SELECT ...)} and {@code ANY/ALL};</li>
 * <li>{@code expr AS name} at the top of the text only, as an {@link Expr.Alias}.</li>
 * <li>subscripts: {@code x['name']} as {@code get_field(x, 'name')}, {@code x[i]} as
 *     {@code array_element(x, i)}; list constructors {@code [a, b]} and {@code ARRAY[a, b]} as
 *     {@code make_array(a, b)} (slices {@code x[a:b]} are rejected).</li>
 * </ul>
 * Anything else JSqlParser reads ({@code *}, window functions, {@code ||},
 * parameters, ...) is rejected with a {@link PlanningException} naming the construct.
 *
 * <p>A syntax error is a {@link PlanningException} whose message says where, and shows the
 * line with a caret under the place:
 * <pre>
 * syntax error at column 13 in "sqrt(x*x + y": expected ')' to close '(' at column 5
 * sqrt(x*x + y
 *             ^
 * </pre>
 * Text of several lines says {@code at line L, column C} and shows the offending line. The end of
 * the text is the column after its last character. JSqlParser backtracks out of a construct it
 * cannot finish, so some errors point at where that construct starts ({@code f(x,)} points at the
 * {@code (}); unbalanced parentheses and unterminated quotes are found before JSqlParser runs and
 * point at the exact place.
 *
 * <p>{@code parse(e.toString()).equals(e)} holds for every tree except: an {@link Expr.Alias} below
 * the top (a subquery's select item included); a subquery's table whose name ends with a dot
 * (JSqlParser drops the dot); literals of LargeUtf8, of timestamps with a time zone other than UTC
 * in microseconds, and of intervals, lists and structs, which print as {@code CAST('text' AS type)}
 * and read back as that cast.
 */
public final class SqlParser {

    private SqlParser() {
    }

    /**
     * Parses one SQL scalar expression.
     *
     * @throws PlanningException on a syntax error (with its position), on a construct Quiver
     *                           has no node for, on a literal out of range or an unknown type
     */
    public static Expr parse(String sql) {
        Objects.requireNonNull(sql, "sql is null");
        try {
            return parseOnThread(sql);
        } catch (PlanningException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            // The parser's own errors (and JSqlParser's) leave as planning errors, their text unchanged.
            throw PlanningException.verbatim(e.getMessage(), e);
        }
    }

    private static Expr parseOnThread(String sql) {
        int nesting = new Text(sql).checkBracketsAndQuotes();
        // JSqlParser is asked to stop at its budget; where it does not (its backtracking checks the request
        // only here and there), the caller stops waiting a little later.
        long budget = parseBudgetMillis(sql);
        return ExprThreads.call(() -> {
            try {
                Parsed parsed = parseWithJSqlParser(sql, nesting);
                Expr e = new Converter(sql).convert(parsed.expression());
                return parsed.alias() == null ? e : new Expr.Alias(e, parsed.alias());
            } catch (StackOverflowError e) {
                // Not expected within the nesting limit on a parser thread's stack; if JSqlParser
                // (or its toString of a long chain, in a message) still overflows, say so plainly.
                throw new PlanningException("the expression text is too deeply nested for the SQL parser (JSqlParser ran out of"
                        + " stack); build it with the Expr builders (docs/expressions.md#limits); the text begins " + abbreviated(sql));
            }
        }, budget + STOP_GRACE_MILLIS, () -> gaveUp(sql, budget, nesting, null));
    }

    /**
     * The most levels of nesting the parser reads: parentheses, brackets and CASE in the text
     * (checked before JSqlParser runs, whose time grows steeply with nesting), and levels of the
     * tree it builds, not counting a chain of binary operators such as {@code a + b + ... + z},
     * which may be of any length. Deeper text is a {@link PlanningException}; build such trees with
     * the {@link Expr} builders, which only the planner's own limit bounds
     * ({@code Quiver.builder().maxExpressionDepth}).
     */
    public static final int MAX_NESTING = 128;

    /**
     * Texts nested at most this deep that JSqlParser's plain mode cannot read are tried again in its
     * "complex parsing" mode (named arguments, {@code POSITION(x IN s)}, {@code SUBSTRING(s FROM n)}),
     * whose time grows about threefold per level of nesting (on this project's 2-core development
     * machine, warm: 22 ms at 7 levels, 81 ms at 8, 275 ms at 9, 2.4 s at 11): deeper, the first
     * error stands. Nine levels let through the filters the Spark extension writes, which nest
     * comparisons of Booleans inside {@code NOT} and {@code AND} ({@code SparkDifferentialFuzzTest}
     * found {@code NOT ((a >= b) = (c IS NOT DISTINCT FROM d))} seven levels deep refused).
     */
    static final int COMPLEX_PARSING_NESTING = 9;

    /** The first characters of a text, for a message about all of it. */
    private static String abbreviated(String sql) {
        return "\"" + (sql.length() <= 80 ? sql : sql.substring(0, 80) + "…") + "\"";
    }

    /**
     * Whether {@code name} (in any case) cannot be written bare as a column or function name, so
     * that {@link Expr#toString()} must double-quote it: JSqlParser's reserved keywords
     * ({@code and, or, not, null, true, false, in, is, like, ilike, between, as, select, from,
     * where, date, ...}), the keywords of the expressions Quiver reads ({@code case, when, then,
     * else, end, cast, try_cast, escape}), and any other word JSqlParser does not read back as a
     * plain name.
     */
    public static boolean isReserved(String name) {
        Objects.requireNonNull(name, "name is null");
        String lower = name.toLowerCase(Locale.ROOT);
        if (KEYWORDS.contains(lower)) {
            return true;
        }
        if (!ExprText.isPlainWord(lower)) {
            return false; // not a word: quoting is decided by its characters, not by keywords
        }
        Boolean cached = PROBED.get(lower);
        if (cached != null) {
            return cached;
        }
        boolean reserved = !readsBackAsName(lower);
        if (PROBED.size() < 10_000) { // names come from schemas: few, but do not let the cache grow without bound
            PROBED.put(lower, reserved);
        }
        return reserved;
    }

    // ---------------------------------------------------------------- reserved words

    private static final Set<String> KEYWORDS = keywords();
    private static final Map<String, Boolean> PROBED = new ConcurrentHashMap<>();

    private static Set<String> keywords() {
        Set<String> out = new HashSet<>();
        for (Object[] row : ParserKeywordsUtils.ALL_RESERVED_KEYWORDS) {
            out.add(row[0].toString().trim().toLowerCase(Locale.ROOT));
        }
        // Keywords of the constructs Quiver reads that JSqlParser's table leaves out.
        out.addAll(List.of("case", "when", "then", "else", "end", "cast", "try_cast", "safe_cast", "escape", "distinct"));
        return Set.copyOf(out);
    }

    private static boolean readsBackAsName(String word) {
        try {
            Expression asColumn = CCJSqlParserUtil.parseExpression(word, false);
            Expression asFunction = CCJSqlParserUtil.parseExpression(word + "(1)", false);
            return asColumn instanceof Column c && c.getTable() == null && c.getColumnName().equals(word)
                    && asFunction instanceof Function f && f.getName().equals(word);
        } catch (Exception e) { // JSQLParserException, or the lexer's TokenMgrException
            return false;
        }
    }

    // ---------------------------------------------------------------- syntax

    private record Parsed(Expression expression, String alias) {
    }

    /**
     * Runs JSqlParser the way {@link CCJSqlParserUtil#parseExpression} does (first without, then with
     * its "complex parsing"), but keeps the tokens so that errors can say where.
     */
    private static Parsed parseWithJSqlParser(String sql, int nesting) {
        Text text = new Text(sql);
        if (sql.isBlank()) {
            throw text.syntaxError(sql.length(), "expected an expression, found empty text");
        }
        if (sql.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("--[^\n]*", " ").isBlank()) {
            throw text.syntaxError(sql.length(), "expected an expression, found only comments");
        }
        IllegalArgumentException first = null;
        for (boolean complex : new boolean[]{false, true}) {
            if (complex && nesting > COMPLEX_PARSING_NESTING) {
                throw new IllegalArgumentException(first.getMessage() + "\n(text nested more than " + COMPLEX_PARSING_NESTING
                        + " levels deep is read without JSqlParser's complex mode, whose time grows steeply with nesting: it reads no"
                        + " named arguments, POSITION(x IN s), SUBSTRING(s FROM n) or more than 16 parentheses in a row)", first);
            }
            try {
                return parseOnce(text, complex, nesting);
            } catch (PlanningException e) {
                throw e; // stopped: no second try
            } catch (IllegalArgumentException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        throw first;
    }

    /**
     * How long JSqlParser may take on a text before it is asked to stop: 5 seconds
     * ({@code -Dquiver.sql.parseBudgetMillis}, read on every parse: the expression-text fuzzer lowers
     * it), and 0.1 ms more per character (a 600 KB sum of 100,000 terms takes seconds on a loaded machine). Where a
     * nested text has a syntax error, JSqlParser backtracks in time exponential in the nesting (a
     * typo eight CASEs deep takes seconds, ten deep hours); this bounds the wait for it. Most such
     * parses stop within milliseconds of the request; the few that do not (a typo deep in
     * {@code abs((...))} or {@code CAST((...))}) are left to end on a daemon thread of their own
     * after {@value #STOP_GRACE_MILLIS} ms more, and keep a core busy until they do.
     */
    static long parseBudgetMillis(String sql) {
        return Math.max(1, Long.getLong("quiver.sql.parseBudgetMillis", 5_000)) + sql.length() / 10;
    }

    /** How long past its budget a parse is waited for, once asked to stop, before it is left to end on its own. */
    static final long STOP_GRACE_MILLIS = 2_000;

    private static PlanningException gaveUp(String sql, long budget, int nesting, Throwable cause) {
        return new PlanningException("the SQL parser gave up on this text after " + budget + " ms: JSqlParser backtracks in"
                + " time exponential in the nesting (" + nesting + " levels here) where the text has a syntax error; look"
                + " for the error, or build the expression with the Expr builders (docs/expressions.md#limits); the text"
                + " begins " + abbreviated(sql), cause);
    }

    /** Stops a parse past its budget, through the flag JSqlParser's own time-out sets. */
    private static final class Watchdog {
        static final java.util.concurrent.ScheduledThreadPoolExecutor STOPPER = stopper();

        private static java.util.concurrent.ScheduledThreadPoolExecutor stopper() {
            var e = new java.util.concurrent.ScheduledThreadPoolExecutor(1, task -> {
                Thread t = new Thread(task, "quiver-sql-parser-watchdog");
                t.setDaemon(true);
                return t;
            });
            e.setRemoveOnCancelPolicy(true);
            e.setKeepAliveTime(30, java.util.concurrent.TimeUnit.SECONDS);
            e.allowCoreThreadTimeOut(true);
            return e;
        }
    }

    private static Parsed parseOnce(Text text, boolean complex, int nesting) {
        CCJSqlParser parser = CCJSqlParserUtil.newParser(text.sql).withAllowComplexParsing(complex);
        long budget = parseBudgetMillis(text.sql);
        var stop = Watchdog.STOPPER.schedule(() -> {
            parser.interrupted = true;
        }, budget, java.util.concurrent.TimeUnit.MILLISECONDS);
        try {
            return parseOnce(text, parser);
        } catch (IllegalArgumentException e) {
            if (parser.interrupted) {
                throw gaveUp(text.sql, budget, nesting, e);
            }
            throw e;
        } finally {
            stop.cancel(false);
        }
    }

    private static Parsed parseOnce(Text text, CCJSqlParser parser) {
        try {
            Expression e = parser.Expression();
            String alias = null;
            if (parser.getToken(1).kind == CCJSqlParserConstants.K_AS) {
                alias = unquote(parser.Alias().getName());
            }
            Token next = parser.getToken(1);
            if (next.kind != CCJSqlParserConstants.EOF) {
                // JSqlParser backtracks out of "a +" and stops before the operator; the text is
                // missing its last operand, so say that, at the end.
                if (parser.getToken(2).kind == CCJSqlParserConstants.EOF && isOperator(next.image)) {
                    throw text.syntaxError(text.sql.length(), "expected an expression after " + describe(next));
                }
                // "a * / b": JSqlParser stops before the first operator; the operand missing is after it.
                Token after = parser.getToken(2);
                if (isOperator(next.image) && (isOperator(after.image) || after.image.equals(")") || after.image.equals(","))) {
                    throw text.syntaxError(text.offset(after.beginLine, after.beginColumn), "expected an expression after "
                            + describe(next) + ", found " + describe(after));
                }
                throw text.syntaxError(text.offset(next.beginLine, next.beginColumn), "unexpected " + describe(next));
            }
            return new Parsed(e, alias);
        } catch (ParseException pe) {
            Token next = pe.currentToken == null ? null : pe.currentToken.next;
            if (next == null) {
                throw text.syntaxError(0, "cannot parse");
            }
            int at = next.kind == CCJSqlParserConstants.EOF ? text.sql.length() : text.offset(next.beginLine, next.beginColumn);
            throw text.syntaxError(at, expected(pe) + (next.kind == CCJSqlParserConstants.EOF ? "" : ", found " + describe(next)));
        } catch (StackOverflowError | OutOfMemoryError e) {
            throw e;
        } catch (TokenMgrException | Error e) {
            // JSqlParser's lexer reports "Lexical error at line L, column C." on characters it has no token for.
            var m = java.util.regex.Pattern.compile("line (\\d+), column (\\d+)").matcher(String.valueOf(e.getMessage()));
            int at = m.find() ? text.offset(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))) : 0;
            throw text.syntaxError(Math.min(at, text.sql.length()), "unexpected character");
        }
    }

    private static boolean isOperator(String image) {
        return image.matches("[-+*/%=<>!]+|(?i)AND|OR|NOT|LIKE|ILIKE|IN|IS|BETWEEN|::");
    }

    private static String describe(Token t) {
        return t.kind == CCJSqlParserConstants.EOF ? "end of input" : "'" + t.image + "'";
    }

    /** "expected X or Y" from the tokens JSqlParser would have accepted, or "expected an expression". */
    private static String expected(ParseException pe) {
        Set<String> images = new LinkedHashSet<>();
        if (pe.expectedTokenSequences != null) {
            for (int[] seq : pe.expectedTokenSequences) {
                if (seq.length > 0) {
                    images.add(pe.tokenImage[seq[0]]);
                }
            }
        }
        if (images.contains("<DATA_TYPE>") && !images.contains("<S_LONG>")) {
            return "expected a type name";
        }
        // JSqlParser's first tokens of an expression ("NOT" or "(" or "!") say no more than this.
        if (images.contains("<S_LONG>") || images.contains("<S_IDENTIFIER>") || (images.contains("\"NOT\"")
                && images.contains("\"(\""))) {
            return "expected an expression";
        }
        if (!images.isEmpty() && images.size() <= 4) {
            return "expected " + String.join(" or ", images);
        }
        return "unexpected token";
    }

    /** The text being parsed, with positions as line/column and the error message format. */
    private static final class Text {
        final String sql;

        Text(String sql) {
            this.sql = sql;
        }

        /** Character offset of JSqlParser's 1-based line and column. */
        int offset(int line, int column) {
            int at = 0;
            for (int l = 1; l < line; l++) {
                int nl = sql.indexOf('\n', at);
                if (nl < 0) {
                    return sql.length();
                }
                at = nl + 1;
            }
            return Math.min(sql.length(), at + Math.max(0, column - 1));
        }

        IllegalArgumentException syntaxError(int offset, String what) {
            int lineStart = sql.lastIndexOf('\n', offset - 1) + 1;
            int lineEnd = sql.indexOf('\n', offset);
            String line = sql.substring(lineStart, lineEnd < 0 ? sql.length() : lineEnd);
            int lineNumber = 1 + (int) sql.substring(0, lineStart).chars().filter(c -> c == '\n').count();
            int column = offset - lineStart + 1;
            String where = sql.indexOf('\n') < 0
                    ? "at column " + column + " in \"" + sql + "\""
                    : "at line " + lineNumber + ", column " + column;
            StringBuilder caret = new StringBuilder();
            for (int i = lineStart; i < offset; i++) {
                caret.append(sql.charAt(i) == '\t' ? '\t' : ' '); // keep tabs so the caret lines up
            }
            return new IllegalArgumentException("syntax error " + where + ": " + what + "\n" + line + "\n" + caret + "^");
        }

        /**
         * Finds unbalanced parentheses and unterminated quotes before JSqlParser does: its
         * backtracking reports those at the start of the construct it gave up on, not where the
         * text went wrong. Also measures the text's nesting (parentheses, brackets and CASE), and
         * refuses more than {@value SqlParser#MAX_NESTING} levels before JSqlParser sees it.
         *
         * @return the deepest nesting in the text
         */
        int checkBracketsAndQuotes() {
            Deque<Integer> open = new ArrayDeque<>();
            int brackets = 0, cases = 0, deepest = 0;
            int last = -1, beforeLast = -1; // the last two characters outside quotes, comments and spaces
            int i = 0;
            int n = sql.length();
            while (i < n) {
                char c = sql.charAt(i);
                if (c == '\'' || c == '"' || c == '`') {
                    int end = closingQuote(i);
                    if (end < 0) {
                        throw syntaxError(i, c == '\'' ? "unterminated string literal" : "unterminated quoted identifier");
                    }
                    beforeLast = last;
                    last = end;
                    i = end + 1;
                } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                    int nl = sql.indexOf('\n', i);
                    i = nl < 0 ? n : nl + 1;
                } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                    int end = sql.indexOf("*/", i + 2);
                    if (end < 0) {
                        throw syntaxError(i, "unterminated comment");
                    }
                    i = end + 2;
                } else {
                    if ((c == ')' || c == ',') && last >= 0) {
                        checkOperandBefore(last, i, beforeLast);
                    }
                    if (!Character.isWhitespace(c)) {
                        beforeLast = last;
                        last = i;
                    }
                    if (c == '(') {
                        open.push(i);
                    } else if (c == ')') {
                        if (open.isEmpty()) {
                            throw syntaxError(i, "unexpected ')' without a matching '('");
                        }
                        open.pop();
                    } else if (c == '[') {
                        brackets++;
                    } else if (c == ']' && brackets > 0) {
                        brackets--;
                    } else if (isWordStart(i)) {
                        if (isWord(i, "case")) {
                            cases++;
                        } else if (isWord(i, "end") && cases > 0) {
                            cases--;
                        }
                    }
                    int nesting = open.size() + brackets + cases;
                    if (nesting > MAX_NESTING) {
                        throw tooDeep(i);
                    }
                    deepest = Math.max(deepest, nesting);
                    i++;
                }
            }
            if (!open.isEmpty()) {
                int at = open.peek();
                throw syntaxError(n, "expected ')' to close '(' at " + (sql.indexOf('\n') < 0 ? "" : "line "
                        + (1 + sql.substring(0, at).chars().filter(ch -> ch == '\n').count()) + ", ")
                        + "column " + (at - sql.lastIndexOf('\n', at - 1)));
            }
            return deepest;
        }

        private boolean isWordStart(int i) {
            char c = sql.charAt(i);
            return (Character.isLetter(c) || c == '_') && (i == 0 || !isWordPart(sql.charAt(i - 1)));
        }

        private static boolean isWordPart(char c) {
            return Character.isLetterOrDigit(c) || c == '_' || c == '$';
        }

        /** Whether the word starting at {@code i} is {@code word}, in any case. */
        private boolean isWord(int i, String word) {
            int end = i + word.length();
            return sql.regionMatches(true, i, word, 0, word.length()) && (end == sql.length() || !isWordPart(sql.charAt(end)));
        }

        /** The error for text nested past {@value SqlParser#MAX_NESTING} levels, at offset {@code at}. */
        PlanningException tooDeep(int at) {
            int lineStart = sql.lastIndexOf('\n', at - 1) + 1;
            String where = sql.indexOf('\n') < 0 ? "column " + (at + 1)
                    : "line " + (1 + sql.substring(0, lineStart).chars().filter(ch -> ch == '\n').count()) + ", column " + (at - lineStart + 1);
            return new PlanningException("the expression text is nested more than " + MAX_NESTING + " levels deep (parentheses,"
                    + " brackets and CASE) at " + where + ", more than the SQL parser reads; build a deeper expression with the Expr"
                    + " builders, whose limit is Quiver.builder().maxExpressionDepth(int) (docs/expressions.md#limits); the text begins "
                    + abbreviated(sql));
        }

        /**
         * A ')' or ',' at {@code at} right after an operator, a '(' or a ',' at {@code last} is an operand
         * missing ("sqrt(a * )", "f(a, , b)"); JSqlParser would backtrack and blame the '(' of the call.
         * {@code count(*)} and {@code f(a, *)} are not.
         */
        private void checkOperandBefore(int last, int at, int beforeLast) {
            char l = sql.charAt(last);
            char c = sql.charAt(at);
            boolean star = l == '*' && beforeLast >= 0 && "(,.".indexOf(sql.charAt(beforeLast)) >= 0;
            boolean operator = "+-*/%=<>".indexOf(l) >= 0 && !star;
            if (operator || l == ',' || (l == '(' && c == ',')) {
                throw syntaxError(at, "expected an expression after '" + l + "', found '" + c + "'");
            }
        }

        /** Offset of the quote that closes the one at {@code start} (a doubled quote is an escaped one), or -1. */
        private int closingQuote(int start) {
            char q = sql.charAt(start);
            int i = start + 1;
            while (i < sql.length()) {
                if (sql.charAt(i) == q) {
                    if (i + 1 < sql.length() && sql.charAt(i + 1) == q) {
                        i += 2;
                        continue;
                    }
                    return i;
                }
                i++;
            }
            return -1;
        }
    }

    /** {@code "a ""b"""} is {@code a "b"}; a bare name is itself. */
    static String unquote(String name) {
        if (name.length() >= 2) {
            char q = name.charAt(0);
            if ((q == '"' || q == '`') && name.charAt(name.length() - 1) == q) {
                String d = String.valueOf(q);
                return name.substring(1, name.length() - 1).replace(d + d, d);
            }
        }
        return name;
    }

    private static boolean isQuoted(String name) {
        return name.startsWith("\"") || name.startsWith("`");
    }

    // ---------------------------------------------------------------- JSqlParser tree to Expr

    private static final class Converter {
        /**
         * The most levels of the tree, not counting a chain of binary operators: a parenthesis can
         * add two (its own and its operand's), a cast or a prefix operator one without parentheses.
         */
        private static final int MAX_DEPTH = 4 * MAX_NESTING;

        private final String sql;
        private int depth;

        Converter(String sql) {
            this.sql = sql;
        }

        Expr convert(Expression e) {
            if (++depth > MAX_DEPTH) {
                throw new PlanningException("the expression text is nested more than " + MAX_NESTING + " levels deep (its tree"
                        + " has more than " + MAX_DEPTH + " levels that are not a chain of binary operators: casts, calls, CASE,"
                        + " parentheses), more than the SQL parser reads; build a deeper expression with the Expr builders, whose"
                        + " limit is Quiver.builder().maxExpressionDepth(int) (docs/expressions.md#limits); the text begins "
                        + abbreviated(sql));
            }
            try {
                return convertNode(e);
            } finally {
                depth--;
            }
        }

        private Expr convertNode(Expression e) {
            return switch (e) {
                case Column c -> column(c);
                case LongValue v -> integer(new BigInteger(v.getStringValue()));
                case DoubleValue v -> floating(v.getValue(), v.toString());
                case StringValue s -> Expr.lit(string(s));
                case NullValue n -> Expr.nullLit();
                case net.sf.jsqlparser.expression.BooleanValue b -> Expr.lit(b.getValue());
                case SignedExpression s -> signed(s);
                case ParenthesedExpressionList<?> p -> {
                    if (p.size() != 1) {
                        throw unsupported("a row constructor", e);
                    }
                    yield convert(p.get(0));
                }
                case Addition b -> binary(b);
                case Subtraction b -> binary(b);
                case Multiplication b -> binary(b);
                case Division b -> binary(b);
                case Modulo b -> binary(b);
                case EqualsTo b -> binary(b);
                case NotEqualsTo b -> binary(b);
                case MinorThan b -> binary(b);
                case MinorThanEquals b -> binary(b);
                case GreaterThan b -> binary(b);
                case GreaterThanEquals b -> binary(b);
                case IsDistinctExpression b -> binary(b);
                case AndExpression b -> binary(b);
                case OrExpression b -> binary(b);
                case NotExpression n -> {
                    if (n.isExclamationMark()) {
                        throw unsupported("'!' (write NOT)", e);
                    }
                    yield new Expr.Not(convert(n.getExpression()));
                }
                case IsNullExpression n -> {
                    if (n.isUseIsNull()) {
                        throw unsupported("ISNULL (write IS NULL)", e);
                    }
                    if (n.isUseNotNull()) {
                        throw unsupported("NOTNULL (write IS NOT NULL)", e);
                    }
                    yield new Expr.IsNull(convert(n.getLeftExpression()), n.isNot());
                }
                case CastExpression c -> cast(c);
                case CaseExpression c -> caseExpr(c);
                case InExpression in -> inList(in);
                case Between b -> new Expr.Between(convert(b.getLeftExpression()), convert(b.getBetweenExpressionStart()),
                        convert(b.getBetweenExpressionEnd()), b.isNot());
                case LikeExpression l -> like(l);
                case net.sf.jsqlparser.expression.operators.arithmetic.Concat c -> concat(c);
                case Function f -> call(f);
                case TrimFunction t -> trim(t);
                case net.sf.jsqlparser.expression.ArrayExpression a -> subscript(a);
                case net.sf.jsqlparser.expression.ArrayConstructor a -> {
                    if (a.getDataType() != null) {
                        throw unsupported("a typed array constructor", e);
                    }
                    List<Expr> items = new ArrayList<>();
                    if (a.getExpressions() != null) {
                        for (Expression x : a.getExpressions()) {
                            items.add(convert(x));
                        }
                    }
                    yield new Expr.Call("make_array", items);
                }
                case ParenthesedSelect p -> scalarSubquery(p);
                case ExistsExpression x -> throw unsupported("EXISTS", e);
                default -> throw unsupported(describe(e), e);
            };
        }

        private IllegalArgumentException unsupported(String what, Expression e) {
            return new IllegalArgumentException(what + " is not supported in a Quiver expression: " + e + " (in \"" + sql + "\")");
        }

        private static String describe(Expression e) {
            String name = e.getClass().getSimpleName();
            return switch (name) {
                case "ParenthesedSelect", "Select", "PlainSelect", "SetOperationList", "Values" -> "a subquery";
                case "ExistsExpression" -> "EXISTS";
                case "AllColumns", "AllTableColumns" -> "'*'";
                                case "AnalyticExpression" -> "a window function";
                case "IntervalExpression" -> "an INTERVAL";
                case "JdbcParameter", "JdbcNamedParameter", "NumericBind" -> "a parameter";
                case "UserVariable" -> "a variable";
                case "HexValue" -> "a hex literal";
                case "ExtractExpression" -> "EXTRACT";
                case "IsBooleanExpression" -> "IS TRUE/IS FALSE";
                case "XorExpression" -> "XOR";
                case "IntegerDivision" -> "DIV";
                case "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseLeftShift", "BitwiseRightShift" -> "a bitwise operator";
                case "TimeKeyExpression" -> "a special time value (call a function)";
                case "RowConstructor" -> "a row constructor";
                case "CollateExpression" -> "COLLATE";
                case "AnyComparisonExpression" -> "ANY/ALL/SOME";
                default -> name;
            };
        }

        private Expr column(Column c) {
            if (c.getArrayConstructor() != null) {
                // JSqlParser reads x[i] and x['name'] on a plain name as a column with an index.
                net.sf.jsqlparser.expression.ArrayConstructor index = c.getArrayConstructor();
                if (index.getExpressions() == null || index.getExpressions().size() != 1) {
                    throw unsupported("an index of other than one value", c);
                }
                Column bare = new Column(c.getTable(), c.getColumnName());
                return subscript(new net.sf.jsqlparser.expression.ArrayExpression(bare, (Expression) index.getExpressions().get(0)));
            }
            String name = unquote(c.getColumnName());
            if (c.getTable() == null || c.getTable().getName() == null) {
                return Expr.col(name);
            }
            if (c.getTable().getSchemaName() != null) {
                throw unsupported("a name with more than one qualifier", c);
            }
            return Expr.col(unquote(c.getTable().getName()), name);
        }

        private static String string(StringValue s) {
            if (s.getPrefix() != null) {
                throw new IllegalArgumentException("string literals with a prefix (" + s.getPrefix() + "'...') are not supported: " + s);
            }
            return s.getValue().replace("''", "'");
        }

        private static Expr integer(BigInteger v) {
            if (v.bitLength() < 32) {
                return Expr.lit(v.intValueExact());
            }
            if (v.bitLength() < 64) {
                return Expr.lit(v.longValueExact());
            }
            throw new IllegalArgumentException("integer literal out of range (Int64): " + v);
        }

        private static Expr floating(double v, String text) {
            if (!Double.isFinite(v)) {
                throw new IllegalArgumentException("numeric literal out of range (Float64): " + text);
            }
            return Expr.lit(v);
        }

        private Expr signed(SignedExpression s) {
            Expression inner = s.getExpression();
            return switch (s.getSign()) {
                case '+' -> convert(inner);
                // A minus directly on a number is part of the literal, so -2147483648 is an Int32.
                case '-' -> switch (inner) {
                    case LongValue v -> integer(new BigInteger(v.getStringValue()).negate());
                    case DoubleValue v -> floating(-v.getValue(), "-" + v);
                    default -> new Expr.Negative(convert(inner));
                };
                default -> throw unsupported("the '" + s.getSign() + "' operator", s);
            };
        }

        /**
         * A binary operator and the chain it heads: JSqlParser builds {@code a + b - c} left-deep,
         * so the left operands are walked in a loop (a chain of 100,000 terms is not 100,000 nested
         * calls) and only the right operands recurse. Operands are converted left to right.
         */
        private Expr binary(net.sf.jsqlparser.expression.BinaryExpression top) {
            Deque<net.sf.jsqlparser.expression.BinaryExpression> spine = new ArrayDeque<>();
            Expression e = top;
            while (e instanceof net.sf.jsqlparser.expression.BinaryExpression b && binaryOperator(b) != null) {
                spine.push(b);
                e = b.getLeftExpression();
            }
            Expr acc = convert(e);
            while (!spine.isEmpty()) {
                net.sf.jsqlparser.expression.BinaryExpression b = spine.pop();
                acc = new Expr.Binary(acc, binaryOperator(b), convert(b.getRightExpression()));
            }
            return acc;
        }

        /** The operator of a node read as an {@link Expr.Binary}, or null for any other node. */
        private Operator binaryOperator(net.sf.jsqlparser.expression.BinaryExpression b) {
            if (b instanceof net.sf.jsqlparser.expression.operators.relational.ComparisonOperator c
                    && (c.getOldOracleJoinSyntax() != 0 || c.getOraclePriorPosition() != 0)) {
                throw unsupported("Oracle join syntax", b);
            }
            return switch (b) {
                case Addition x -> Operator.PLUS;
                case Subtraction x -> Operator.MINUS;
                case Multiplication x -> Operator.MULTIPLY;
                case Division x -> Operator.DIVIDE;
                case Modulo x -> Operator.MODULO;
                case EqualsTo x -> Operator.EQ;
                case NotEqualsTo x -> Operator.NOT_EQ;
                case MinorThan x -> Operator.LT;
                case MinorThanEquals x -> Operator.LT_EQ;
                case GreaterThan x -> Operator.GT;
                case GreaterThanEquals x -> Operator.GT_EQ;
                case IsDistinctExpression x -> x.isNot() ? Operator.IS_NOT_DISTINCT_FROM : Operator.IS_DISTINCT_FROM;
                case AndExpression x -> Operator.AND;
                case OrExpression x -> Operator.OR;
                default -> null;
            };
        }

        private Expr cast(CastExpression c) {
            String typeName = c.getColDataType().toString();
            if (c.isImplicitCast()) {
                // TYPE 'text': a typed literal.
                if (!(c.getLeftExpression() instanceof StringValue s)) {
                    throw unsupported("a typed literal of a non-string", c);
                }
                return new Expr.Literal(typedLiteral(SqlTypes.fromSql(typeName), string(s)));
            }
            DataType type = SqlTypes.fromSql(typeName);
            if (c.keyword == null) {
                // x::TYPE; NULL::TYPE is the typed null (what ScalarValue.toSql writes for one).
                return c.getLeftExpression() instanceof NullValue ? Expr.nullLit(type) : new Expr.Cast(convert(c.getLeftExpression()), type);
            }
            return switch (c.keyword.toUpperCase(Locale.ROOT)) {
                case "CAST" -> new Expr.Cast(convert(c.getLeftExpression()), type);
                case "TRY_CAST" -> new Expr.TryCast(convert(c.getLeftExpression()), type);
                default -> throw unsupported(c.keyword, c);
            };
        }

        private Expr caseExpr(CaseExpression c) {
            List<Expr.WhenThen> branches = new ArrayList<>();
            for (WhenClause w : c.getWhenClauses()) {
                branches.add(new Expr.WhenThen(convert(w.getWhenExpression()), convert(w.getThenExpression())));
            }
            return new Expr.Case(c.getSwitchExpression() == null ? null : convert(c.getSwitchExpression()), branches,
                    c.getElseExpression() == null ? null : convert(c.getElseExpression()));
        }

        private Expr inList(InExpression in) {
            if (in.isGlobal() || in.getOldOracleJoinSyntax() != 0) {
                throw unsupported("GLOBAL IN / Oracle join syntax", in);
            }
            if (in.getRightExpression() instanceof Select) {
                throw unsupported("IN (SELECT ...) (write IN (a, b, ...))", in);
            }
            if (!(in.getRightExpression() instanceof ExpressionList<?> list)) {
                throw unsupported("IN with " + describe(in.getRightExpression()) + " (write IN (a, b, ...))", in);
            }
            List<Expr> values = new ArrayList<>();
            for (Expression v : list) {
                values.add(convert(v));
            }
            return new Expr.InList(convert(in.getLeftExpression()), values, in.isNot());
        }

        private Expr like(LikeExpression l) {
            boolean ci = switch (l.getLikeKeyWord()) {
                case LIKE -> false;
                case ILIKE -> true;
                default -> throw unsupported(l.getLikeKeyWord().toString().replace('_', ' '), l);
            };
            if (l.isUseBinary()) {
                throw unsupported("LIKE BINARY", l);
            }
            Character escape = null;
            if (l.getEscape() != null) {
                if (!(l.getEscape() instanceof StringValue s) || string(s).length() != 1) {
                    throw new IllegalArgumentException("ESCAPE takes a one-character string literal, not " + l.getEscape() + " (in \"" + sql + "\")");
                }
                escape = string(s).charAt(0);
            }
            return new Expr.Like(convert(l.getLeftExpression()), convert(l.getRightExpression()), escape, l.isNot(), ci);
        }

        /**
         * {@code (SELECT item FROM table [WHERE cond] [LIMIT n])}, the only form of SELECT Quiver reads; every
         * other clause is named in the error. Parentheses around the parentheses are the same subquery.
         */
        private Expr scalarSubquery(ParenthesedSelect subquery) {
            Select body = subquery;
            while (body instanceof ParenthesedSelect p) {
                wrapperClauses(p, subquery);
                body = p.getSelect();
            }
            PlainSelect s = switch (body) {
                case PlainSelect plain -> plain;
                case SetOperationList ops -> throw unsupported(ops.getOperations().isEmpty() ? "a set operation"
                        : ops.getOperations().getFirst().toString().trim() + " (a set operation)", subquery);
                case net.sf.jsqlparser.statement.select.Values v -> throw unsupported("VALUES as a subquery", subquery);
                default -> throw unsupported("a " + body.getClass().getSimpleName() + " subquery", subquery);
            };
            if (s.getWithItemsList() != null && !s.getWithItemsList().isEmpty()) {
                throw unsupported("WITH in a subquery", subquery);
            }
            List<SelectItem<?>> items = s.getSelectItems();
            for (SelectItem<?> item : items) {
                if (item.getExpression() instanceof AllColumns) {
                    throw unsupported("'*' in a subquery (select one expression)", subquery);
                }
            }
            if (items.size() != 1) {
                throw unsupported("several select items in a subquery (a scalar subquery selects one expression)", subquery);
            }
            if (s.getDistinct() != null) {
                throw unsupported("DISTINCT in a subquery", subquery);
            }
            if (s.getTop() != null) {
                throw unsupported("TOP in a subquery (write LIMIT)", subquery);
            }
            if (s.getFromItem() == null) {
                throw unsupported("a subquery without FROM", subquery);
            }
            if (s.getFromItem() instanceof Select) {
                throw unsupported("a subquery as FROM item", subquery);
            }
            if (!(s.getFromItem() instanceof Table table)) {
                throw unsupported("a FROM item other than a table name in a subquery", subquery);
            }
            if (s.getJoins() != null && !s.getJoins().isEmpty()) {
                throw unsupported(s.getJoins().stream().allMatch(Join::isSimple) ? "several FROM items in a subquery"
                        : "a join in a subquery", subquery);
            }
            if (s.getGroupBy() != null) {
                throw unsupported("GROUP BY in a subquery", subquery);
            }
            if (s.getHaving() != null) {
                throw unsupported("HAVING in a subquery", subquery);
            }
            if (s.getOrderByElements() != null && !s.getOrderByElements().isEmpty()) {
                throw unsupported("ORDER BY in a subquery", subquery);
            }
            if (s.getOffset() != null || (s.getLimit() != null && s.getLimit().getOffset() != null)) {
                throw unsupported("OFFSET in a subquery", subquery);
            }
            if (s.getFetch() != null) {
                throw unsupported("FETCH in a subquery (write LIMIT)", subquery);
            }
            // Whatever else JSqlParser keeps on a SELECT (QUALIFY, WINDOW, INTO, FOR UPDATE, LIMIT BY, ...): the
            // select rebuilt from the parts read here prints differently.
            PlainSelect rebuilt = new PlainSelect().withSelectItems(items).withFromItem(table).withWhere(s.getWhere());
            rebuilt.setLimit(s.getLimit());
            if (!rebuilt.toString().equals(s.toString())) {
                throw unsupported("a subquery clause other than SELECT, FROM, WHERE and LIMIT", subquery);
            }
            String tableName = tableName(table, subquery);
            Expr select = convert(items.getFirst().getExpression());
            Expr where = s.getWhere() == null ? null : convert(s.getWhere());
            return new Expr.ScalarSubquery(select, tableName, where, s.getLimit() == null ? null : limit(s.getLimit(), subquery));
        }

        /** {@code ((SELECT ...) LIMIT 1)}: clauses outside the inner parentheses. */
        private void wrapperClauses(ParenthesedSelect p, ParenthesedSelect subquery) {
            if (p.getWithItemsList() != null && !p.getWithItemsList().isEmpty()) {
                throw unsupported("WITH in a subquery", subquery);
            }
            if (p.getOrderByElements() != null && !p.getOrderByElements().isEmpty()) {
                throw unsupported("ORDER BY in a subquery", subquery);
            }
            if (p.getOffset() != null) {
                throw unsupported("OFFSET in a subquery", subquery);
            }
            if (p.getLimit() != null || p.getFetch() != null || !p.toString().equals("(" + p.getSelect() + ")")) {
                throw unsupported("a clause after a parenthesized subquery (write it inside the parentheses)", subquery);
            }
        }

        /**
         * {@code t}, {@code schema.t} (or {@code catalog.schema.t}): the parts unquoted and joined with dots. JSqlParser
         * splits a quoted name at its dots ({@code "s.t"} is {@code "s"."t"}), so joining them back is what makes the
         * quoted name {@link Expr.ScalarSubquery#toString()} prints read back as the same name.
         */
        private String tableName(Table t, ParenthesedSelect subquery) {
            if (t.getAlias() != null) {
                throw unsupported("a table alias in a subquery", subquery);
            }
            if (!t.toString().equals(t.getFullyQualifiedName())) {
                throw unsupported("a table with TABLESAMPLE, hints or other decorations in a subquery", subquery);
            }
            List<String> parts = new ArrayList<>(t.getNameParts());
            java.util.Collections.reverse(parts); // JSqlParser lists them from the table's own name outwards
            return String.join(".", parts.stream().map(SqlParser::unquote).toList());
        }

        private long limit(Limit limit, ParenthesedSelect subquery) {
            if (!(limit.getRowCount() instanceof LongValue v)) {
                throw unsupported("LIMIT " + limit.getRowCount() + " (LIMIT takes a non-negative integer literal)", subquery);
            }
            BigInteger n = new BigInteger(v.getStringValue());
            if (n.bitLength() >= 64) {
                throw new IllegalArgumentException("LIMIT out of range (Int64): " + n + " (in \"" + sql + "\")");
            }
            return n.longValueExact();
        }

        /** {@code x['name']}: get_field; {@code x[i]}: array_element (1-based). Slices are not supported. */
        private Expr subscript(net.sf.jsqlparser.expression.ArrayExpression a) {
            // JSqlParser reads the a:b of x[a:b] as a JSON path, or as a start and a stop.
            if (a.getIndexExpression() == null || a.getIndexExpression() instanceof net.sf.jsqlparser.expression.JsonExpression) {
                throw unsupported("a list slice (x[a:b])", a);
            }
            Expr target = convert(a.getObjExpression());
            if (a.getIndexExpression() instanceof StringValue name) {
                return new Expr.Call("get_field", List.of(target, Expr.lit(string(name))));
            }
            return new Expr.Call("array_element", List.of(target, convert(a.getIndexExpression())));
        }

        /**
         * {@code TRIM([BOTH|LEADING|TRAILING] [characters] FROM s)} → {@code trim/ltrim/rtrim(s[, characters])};
         * {@code trim(s[, characters])} and {@code TRIM(LEADING s)} likewise.
         */
        private Expr trim(TrimFunction t) {
            String name = t.getTrimSpecification() == null ? "trim" : switch (t.getTrimSpecification()) {
                case LEADING -> "ltrim";
                case TRAILING -> "rtrim";
                case BOTH -> "trim";
            };
            List<Expr> args = new ArrayList<>();
            if (t.isUsingFromKeyword()) {
                args.add(convert(t.getFromExpression()));
                if (t.getExpression() != null) {
                    args.add(convert(t.getExpression()));
                }
            } else {
                args.add(convert(t.getExpression()));
                if (t.getFromExpression() != null) {
                    args.add(convert(t.getFromExpression()));
                }
            }
            return new Expr.Call(name, args);
        }

        /** {@code SUBSTRING(s FROM start [FOR length])} → {@code substring(s, start[, length])}. */
        private Expr substringFromFor(Function f) {
            var named = f.getNamedParameters();
            List<String> names = named.getNames();
            boolean shape = (names.size() == 2 || names.size() == 3) && (names.getFirst() == null || names.getFirst().isEmpty())
                    && "FROM".equalsIgnoreCase(names.get(1)) && (names.size() == 2 || "FOR".equalsIgnoreCase(names.get(2)));
            if (!shape) {
                throw unsupported("this form of SUBSTRING (write SUBSTRING(s FROM start [FOR length]) or substring(s, start[, length]))", f);
            }
            List<Expr> args = new ArrayList<>();
            for (Expression p : named) {
                args.add(convert(p));
            }
            return new Expr.Call("substring", args);
        }

        /**
         * {@code a || b || c}: strict_concat(a, b, c), NULL when any operand is NULL (as DuckDB
         * and the SQL standard; concat(...) skips NULLs instead).
         */
        private Expr concat(net.sf.jsqlparser.expression.operators.arithmetic.Concat c) {
            List<Expr> operands = new ArrayList<>();
            Expression e = c;
            java.util.ArrayDeque<Expression> rights = new java.util.ArrayDeque<>();
            while (e instanceof net.sf.jsqlparser.expression.operators.arithmetic.Concat k) {
                rights.push(k.getRightExpression());
                e = k.getLeftExpression();
            }
            operands.add(convert(e));
            while (!rights.isEmpty()) {
                operands.add(convert(rights.pop()));
            }
            return new Expr.Call("strict_concat", operands);
        }

        /** {@code POSITION(needle IN s)}: strpos(s, needle). */
        private Expr position(Function f) {
            var named = f.getNamedParameters();
            List<String> names = named.getNames();
            if (named.size() != 2 || names.size() != 2 || !"IN".equalsIgnoreCase(names.get(1))) {
                throw unsupported("this form of POSITION (write POSITION(needle IN s) or strpos(s, needle))", f);
            }
            return new Expr.Call("strpos", List.of(convert(named.get(1)), convert(named.get(0))));
        }

        private Expr call(Function f) {
            if (f.getMultipartName().size() != 1) {
                throw unsupported("a qualified function name", f);
            }
            if (f.getNamedParameters() != null && f.getParameters() == null
                    && List.of("substring", "substr").contains(f.getName().toLowerCase(Locale.ROOT))) {
                return substringFromFor(f);
            }
            if (f.getNamedParameters() != null && f.getParameters() == null && "position".equalsIgnoreCase(f.getName())) {
                return position(f);
            }
            if (f.isDistinct() || f.isUnique() || f.isAllColumns() || f.getOrderByElements() != null || f.getKeep() != null
                    || f.getNullHandling() != null || f.getHavingClause() != null || f.getLimit() != null || f.getAttribute() != null
                    || f.getNamedParameters() != null || f.isEscaped() || f.getExtraKeyword() != null) {
                throw unsupported("an aggregate or decorated call (DISTINCT, ORDER BY, IGNORE NULLS, ...)", f);
            }
            String raw = f.getName();
            String name = isQuoted(raw) ? unquote(raw) : raw.toLowerCase(Locale.ROOT);
            List<Expr> args = new ArrayList<>();
            List<String> names = new ArrayList<>();
            if (f.getParameters() != null) {
                for (Expression p : f.getParameters()) {
                    if (p instanceof OracleNamedFunctionParameter named) {
                        names.add(unquote(named.getName()));
                        args.add(convert(named.getExpression()));
                    } else {
                        names.add(null);
                        args.add(convert(p));
                    }
                }
            }
            return new Expr.Call(name, args, names);
        }
    }

    // ---------------------------------------------------------------- typed literals

    /** The value {@code TYPE 'text'} stands for. */
    static ScalarValue typedLiteral(DataType type, String text) {
        try {
            Object value = switch (type) {
                case DataType.Bool b -> switch (text.trim().toLowerCase(Locale.ROOT)) {
                    case "true", "t" -> Boolean.TRUE;
                    case "false", "f" -> Boolean.FALSE;
                    default -> throw new IllegalArgumentException("not a boolean");
                };
                case DataType.Int i -> integerOfWidth(i, new BigInteger(text.trim()));
                case DataType.FloatingPoint f -> {
                    double d = parseDouble(text.trim());
                    yield f.bitWidth() == 32 ? (Object) (float) d : (Object) d;
                }
                case DataType.Decimal d -> DecimalText.parse(text, d, RoundingMode.UNNECESSARY);
                case DataType.Utf8 u -> text;
                case DataType.Binary b -> decodeBlob(text);
                case DataType.Date32 d -> {
                    long days = TemporalText.parseDate(text);
                    if ((int) days != days) {
                        throw new IllegalArgumentException("out of range for Date32");
                    }
                    yield (int) days;
                }
                // The form ScalarValue.toSql writes, for every value of the unit (TemporalText).
                case DataType.Timestamp ts -> TemporalText.parseTimestamp(text, ts.unit(), true);
                default -> throw new IllegalArgumentException("no literal syntax for this type");
            };
            return new ScalarValue(type, value);
        } catch (NumberFormatException | ArithmeticException | DateTimeParseException e) {
            throw new IllegalArgumentException("invalid " + SqlTypes.sqlName(type) + " literal '" + text + "': " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid " + SqlTypes.sqlName(type) + " literal '" + text + "': " + e.getMessage(), e);
        }
    }

    private static Object integerOfWidth(DataType.Int t, BigInteger v) {
        BigInteger min = t.signed() ? BigInteger.ONE.shiftLeft(t.bitWidth() - 1).negate() : BigInteger.ZERO;
        BigInteger max = t.signed() ? BigInteger.ONE.shiftLeft(t.bitWidth() - 1).subtract(BigInteger.ONE)
                : BigInteger.ONE.shiftLeft(t.bitWidth()).subtract(BigInteger.ONE);
        if (v.compareTo(min) < 0 || v.compareTo(max) > 0) {
            throw new IllegalArgumentException("out of range " + min + " to " + max);
        }
        Class<?> c = ScalarValue.javaClass(t);
        if (c == Byte.class) {
            return v.byteValue();
        } else if (c == Short.class) {
            return v.shortValue();
        } else if (c == Integer.class) {
            return v.intValue();
        } else if (c == Long.class) {
            return v.longValue();
        }
        return v;
    }

    private static double parseDouble(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "nan" -> Double.NaN;
            case "inf", "infinity", "+inf", "+infinity" -> Double.POSITIVE_INFINITY;
            case "-inf", "-infinity" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(s);
        };
    }

    /** DuckDB's BLOB text: characters stand for their byte; {@code \xHH} for any byte; {@code \\} for a backslash. */
    private static byte[] decodeBlob(String text) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\') {
                if (i + 1 < text.length() && text.charAt(i + 1) == '\\') {
                    out.write('\\');
                    i++;
                } else if (i + 3 < text.length() && (text.charAt(i + 1) == 'x' || text.charAt(i + 1) == 'X')) {
                    out.write(Integer.parseInt(text.substring(i + 2, i + 4), 16));
                    i += 3;
                } else {
                    throw new IllegalArgumentException("a backslash must start \\xHH or \\\\");
                }
            } else if (c > 0x7f) {
                throw new IllegalArgumentException("write bytes above 0x7f as \\xHH");
            } else {
                out.write(c);
            }
        }
        return out.toByteArray();
    }
}
