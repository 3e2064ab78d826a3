package dev.quiver.sql;

import dev.quiver.functions.PlanningException;
import java.util.Objects;

/**
 * The text being parsed, its positions as line and column, and the format of a syntax error:
 * <pre>
 * syntax error at column 13 in "sqrt(x*x + y": expected ')' to close '(' at column 5
 * sqrt(x*x + y
 *             ^
 * </pre>
 * Text of several lines says {@code at line L, column C} and shows the offending line. Columns count
 * characters from 1; the end of the text is the column after its last character.
 */
public final class SqlText {
    private final String sql;

    public SqlText(String sql) {
        this.sql = Objects.requireNonNull(sql, "sql is null");
    }

    public String sql() {
        return sql;
    }

    /** Where {@code offset} is: "column C in "text"" for one line, "line L, column C" for several. */
    public String where(int offset) {
        int lineStart = sql.lastIndexOf('\n', offset - 1) + 1;
        int column = offset - lineStart + 1;
        return sql.indexOf('\n') < 0
                ? "column " + column + " in \"" + sql + "\""
                : "line " + line(offset) + ", column " + column;
    }

    /** "column C" or "line L, column C": a position named inside a message. */
    public String position(int offset) {
        int lineStart = sql.lastIndexOf('\n', offset - 1) + 1;
        int column = offset - lineStart + 1;
        return sql.indexOf('\n') < 0 ? "column " + column : "line " + line(offset) + ", column " + column;
    }

    private int line(int offset) {
        int n = 1;
        for (int i = 0; i < offset && i < sql.length(); i++) {
            if (sql.charAt(i) == '\n') {
                n++;
            }
        }
        return n;
    }

    /** A syntax error at {@code offset}: the position, {@code what}, the line and a caret under the place. */
    public PlanningException syntaxError(int offset, String what) {
        int at = Math.max(0, Math.min(offset, sql.length()));
        int lineStart = sql.lastIndexOf('\n', at - 1) + 1;
        int lineEnd = sql.indexOf('\n', at);
        String line = sql.substring(lineStart, lineEnd < 0 ? sql.length() : lineEnd);
        StringBuilder caret = new StringBuilder();
        for (int i = lineStart; i < at; i++) {
            caret.append(sql.charAt(i) == '\t' ? '\t' : ' '); // keep tabs so the caret lines up
        }
        return PlanningException.verbatim(
                "syntax error at " + where(at) + ": " + what + "\n" + line + "\n" + caret + "^", null);
    }

    /** The first characters of the text, for a message about all of it. */
    public String abbreviated() {
        return "\"" + (sql.length() <= 80 ? sql : sql.substring(0, 80) + "…") + "\"";
    }
}
