package dev.quiver.expr;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses arithmetic expression text into {@link Expr}.
 *
 * <p>Grammar: {@code expr := term (('+'|'-') term)*}, {@code term := unary (('*'|'/') unary)*},
 * {@code unary := '-' unary | primary}, {@code primary := number | name | name '(' args ')' |
 * '(' expr ')'}. Names are letters, digits and {@code _} (or any text in double quotes).
 * Integer literals are Int32 when they fit, else Int64 (suffix {@code L} forces Int64);
 * literals with a point or exponent are Float64 (suffix {@code f} makes Float32).
 * Errors name the position: {@code expected ')' at 12 in "sqrt(x*x + y"}.
 */
public final class SqlParser {
    private final String text;
    private int pos;

    private SqlParser(String text) {
        this.text = text;
    }

    /** Temporary: replaced by the JSqlParser-based parser. */
    public static boolean isReserved(String name) {
        return java.util.Set.of("and", "or", "not", "null", "true", "false", "case", "when", "then", "else", "end", "in", "is", "like", "between", "as", "cast").contains(name);
    }

    public static Expr parse(String text) {
        SqlParser p = new SqlParser(text);
        Expr e = p.expr();
        p.skipSpace();
        if (p.pos != text.length()) {
            throw p.error("unexpected '" + text.charAt(p.pos) + "'");
        }
        return e;
    }

    private Expr expr() {
        Expr left = term();
        while (true) {
            if (eat('+')) {
                left = left.add(term());
            } else if (eat('-')) {
                left = left.sub(term());
            } else {
                return left;
            }
        }
    }

    private Expr term() {
        Expr left = unary();
        while (true) {
            if (eat('*')) {
                left = left.mul(unary());
            } else if (eat('/')) {
                left = left.div(unary());
            } else {
                return left;
            }
        }
    }

    private Expr unary() {
        if (eat('-')) {
            skipSpace();
            if (pos < text.length() && (Character.isDigit(text.charAt(pos)) || text.charAt(pos) == '.')) {
                // A signed literal is typed with its sign: -2147483648 is Int32, as in Java.
                return number("-");
            }
            return unary().neg();
        }
        return primary();
    }

    private Expr primary() {
        skipSpace();
        if (pos >= text.length()) {
            throw error("expected an expression");
        }
        char c = text.charAt(pos);
        if (eat('(')) {
            Expr e = expr();
            expect(')');
            return e;
        }
        if (Character.isDigit(c) || c == '.') {
            return number("");
        }
        if (c == '"') {
            int end = text.indexOf('"', pos + 1);
            if (end < 0) {
                throw error("unterminated quoted name");
            }
            String name = text.substring(pos + 1, end);
            pos = end + 1;
            return Expr.col(name);
        }
        if (Character.isLetter(c) || c == '_') {
            int start = pos;
            while (pos < text.length() && (Character.isLetterOrDigit(text.charAt(pos)) || text.charAt(pos) == '_')) {
                pos++;
            }
            String name = text.substring(start, pos);
            if (eat('(')) {
                List<Expr> args = new ArrayList<>();
                if (!eat(')')) {
                    do {
                        args.add(expr());
                    } while (eat(','));
                    expect(')');
                }
                return new Expr.Call(name.toLowerCase(java.util.Locale.ROOT), args);
            }
            return Expr.col(name);
        }
        throw error("unexpected '" + c + "'");
    }

    private Expr number(String sign) {
        int start = pos;
        boolean floating = false;
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (Character.isDigit(c)) {
                pos++;
            } else if (c == '.') {
                floating = true;
                pos++;
            } else if ((c == 'e' || c == 'E') && pos + 1 < text.length()) {
                floating = true;
                pos++;
                if (text.charAt(pos) == '+' || text.charAt(pos) == '-') {
                    pos++;
                }
            } else {
                break;
            }
        }
        String digits = sign + text.substring(start, pos);
        try {
            if (eatSuffix('f') || eatSuffix('F')) {
                return Expr.lit(Float.parseFloat(digits));
            }
            if (eatSuffix('L') || eatSuffix('l')) {
                return Expr.lit(Long.parseLong(digits));
            }
            if (floating) {
                return Expr.lit(Double.parseDouble(digits));
            }
            long v = Long.parseLong(digits);
            return (v == (int) v) ? Expr.lit((int) v) : Expr.lit(v);
        } catch (NumberFormatException e) {
            pos = start;
            throw error("bad number '" + digits + "'");
        }
    }

    private boolean eatSuffix(char c) {
        if (pos < text.length() && text.charAt(pos) == c) {
            pos++;
            return true;
        }
        return false;
    }

    private void skipSpace() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    private boolean eat(char c) {
        skipSpace();
        if (pos < text.length() && text.charAt(pos) == c) {
            pos++;
            return true;
        }
        return false;
    }

    private void expect(char c) {
        if (!eat(c)) {
            throw error("expected '" + c + "'");
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException(what + " at " + pos + " in \"" + text + "\"");
    }
}
