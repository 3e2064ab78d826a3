package dev.quiver.sql;

import dev.quiver.expr.Expr;
import dev.quiver.functions.PlanningException;
import java.util.Objects;

/**
 * Reads one SQL scalar expression into an {@link Expr}, with Quiver's own grammar
 * ({@link ExpressionParser}, {@code host/src/main/antlr4/dev/quiver/sql/QuiverSql.g4}): PostgreSQL's
 * operators and precedence, and the forms of DataFusion and DuckDB. docs/expressions.md lists every form and what
 * it becomes, the precedence table, the error format and the limits. In short:
 * <ul>
 * <li>names: {@code x}, {@code "a b"}, {@code t.x} become {@link Expr.Column}s, spelled exactly as written (no case
 *     folding; quotes removed, {@code ""} inside quotes is one {@code "}); {@code a.b.c} is field {@code c} of
 *     {@code a.b};</li>
 * <li>literals: an integer is Int32 when it fits, else Int64, else DECIMAL(p, 0); a number with a point or exponent
 *     is Float64; {@code 'text'}, {@code E'escapes'}, {@code X'1F'}; {@code TRUE}/{@code FALSE}; {@code NULL} is the
 *     untyped null; a minus directly in front of a number is part of it ({@code -2147483648} is an Int32,
 *     {@code -(2)} an {@link Expr.Negative}); typed literals {@code TYPE 'text'} ({@code DATE '2024-01-31'},
 *     {@code TIMESTAMP '2024-01-31 10:00:00+02:00'}, {@code DECIMAL(10, 2) '1.50'}, ...), typed nulls
 *     {@code NULL::TYPE}, {@code INTERVAL '1 day'};</li>
 * <li>every operator of PostgreSQL's table, {@code CAST}/{@code TRY_CAST}/{@code ::}, both forms of {@code CASE},
 *     {@code IN}, {@code BETWEEN [SYMMETRIC]}, {@code LIKE}/{@code ILIKE}/{@code SIMILAR TO ... ESCAPE},
 *     {@code IS [NOT] TRUE|FALSE|UNKNOWN|NULL|DISTINCT FROM}, {@code = ANY(list)}, {@code EXTRACT},
 *     {@code POSITION}, {@code SUBSTRING}, {@code TRIM}, {@code OVERLAY}, {@code AT TIME ZONE}, lists, maps, rows,
 *     subscripts and slices, calls with named arguments {@code f(a => 1)};</li>
 * <li>uncorrelated scalar subqueries {@code (SELECT expr FROM table [WHERE cond] [LIMIT n])} as
 *     {@link Expr.ScalarSubquery}; every other clause of a SELECT is named in the error;</li>
 * <li>{@code expr AS name} at the top of the text only, as an {@link Expr.Alias}.</li>
 * </ul>
 * A form whose function or type Quiver does not have parses, and fails when planned ("unknown function
 * 'date_part'"), or here for a type ("unsupported type TIME").
 *
 * <p>A syntax error is a {@link PlanningException} whose message says where and what was expected, and shows the
 * line with a caret under the place:
 * <pre>
 * syntax error at column 13 in "sqrt(x*x + y": expected ')' to close '(' at column 5
 * sqrt(x*x + y
 *             ^
 * </pre>
 *
 * <p>Parsing takes time linear in the text; nesting (parentheses, brackets, braces, CASE) deeper than
 * {@link SqlLimits#maxNesting()} (default {@value #MAX_NESTING}) is refused before parsing, and chains of
 * operators of any length parse without recursion.
 *
 * <p>{@code parse(e.toString()).equals(e)} holds for every tree except: an {@link Expr.Alias} below the top (a
 * subquery's select item included); literals of LargeUtf8, of timestamps with a time zone other than UTC in
 * microseconds, and of intervals, lists and structs, which print as {@code CAST('text' AS type)} and read back as
 * that cast.
 *
 * <p>{@link Expr#parse} and {@link Expr#toString()} reach this parser through {@link SqlSyntax}, this package's
 * provider of {@code expr}'s {@code ExprSyntax}, so that {@code expr} does not depend on the parser that builds its
 * trees.
 */
public final class SqlParser {

    /** The default nesting limit of the text, {@value} levels: {@link SqlLimits#DEFAULT_MAX_NESTING}. */
    public static final int MAX_NESTING = SqlLimits.DEFAULT_MAX_NESTING;

    private SqlParser() {}

    /**
     * Parses one SQL scalar expression within the configured limits ({@link SqlLimits#configured()}).
     *
     * @throws PlanningException on a syntax error (with its position), on text nested too deep, on a construct Quiver
     *                           has no node for, on a literal out of range, on an unknown or unsupported type
     */
    public static Expr parse(String sql) {
        return parse(sql, SqlLimits.configured());
    }

    /** As {@link #parse(String)}, within {@code limits}. */
    public static Expr parse(String sql, SqlLimits limits) {
        Objects.requireNonNull(sql, "sql is null");
        return ExpressionParser.parse(sql, limits);
    }

    /**
     * Whether {@code name} (in any case) cannot be written bare as a column or function name, so that
     * {@link Expr#toString()} must double-quote it: the grammar's reserved words ({@code and, or, not, null, case,
     * from, interval, position, ...}) and SQL's ({@code current, date, user, ...}).
     */
    public static boolean isReserved(String name) {
        Objects.requireNonNull(name, "name is null");
        return Keywords.isReserved(name);
    }
}
