package dev.quiver.sql;

import dev.quiver.functions.PlanningException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.antlr.v4.runtime.CharStreams;
import org.antlr.v4.runtime.CommonTokenStream;
import org.antlr.v4.runtime.Token;

/**
 * The first pass over a text, before the parser: its tokens, with the errors a token tells on its own
 * (an unterminated string, quoted name or comment, a character no token starts with), the brackets
 * that do not match, and nesting deeper than the limit. One pass, linear in the text; the errors point
 * at the exact place, where a parser that gave up on a construct would point at its start.
 */
final class SqlLexing {
    private SqlLexing() {}

    /** The tokens of {@code text}, checked; the stream is filled and positioned at its first token. */
    static CommonTokenStream tokens(SqlText text, SqlLimits limits) {
        QuiverSqlLexer lexer = new QuiverSqlLexer(CharStreams.fromString(text.sql()));
        lexer.removeErrorListeners(); // every token the lexer cannot make is an UNRECOGNIZED one, reported below
        CommonTokenStream tokens = new CommonTokenStream(lexer);
        tokens.fill();
        List<Token> all = tokens.getTokens();
        boolean onlyHidden = true;
        for (Token t : all) {
            check(text, t);
            if (t.getType() != Token.EOF && t.getChannel() == Token.DEFAULT_CHANNEL) {
                onlyHidden = false;
            }
        }
        if (onlyHidden) {
            throw text.syntaxError(
                    text.sql().length(),
                    text.sql().isBlank()
                            ? "expected an expression, found empty text"
                            : "expected an expression, found only comments");
        }
        checkBrackets(text, all, limits);
        return tokens;
    }

    private static void check(SqlText text, Token t) {
        switch (t.getType()) {
            case QuiverSqlLexer.UNTERMINATED_STRING ->
                throw text.syntaxError(t.getStartIndex(), "unterminated string literal");
            case QuiverSqlLexer.UNTERMINATED_IDENTIFIER ->
                throw text.syntaxError(t.getStartIndex(), "unterminated quoted identifier");
            case QuiverSqlLexer.BLOCK_COMMENT -> {
                String c = t.getText();
                if (c.length() < 4 || !c.endsWith("*/")) {
                    throw text.syntaxError(t.getStartIndex(), "unterminated comment");
                }
            }
            case QuiverSqlLexer.UNRECOGNIZED -> {
                String c = t.getText();
                String hint = switch (c) {
                    case "!" -> " (write NOT, or != for not equal)";
                    case "\\" -> " (a backslash escapes only inside E'...')";
                    case ";" -> " (one expression, without a statement terminator)";
                    default -> "";
                };
                throw text.syntaxError(t.getStartIndex(), "unexpected character '" + c + "'" + hint);
            }
            default -> {}
        }
    }

    /**
     * Brackets that match, and nesting within the limit: parentheses, brackets, braces and CASE ... END,
     * counted on the tokens (so quotes and comments are already out of the way).
     */
    private static void checkBrackets(SqlText text, List<Token> all, SqlLimits limits) {
        Deque<Token> open = new ArrayDeque<>();
        for (Token t : all) {
            int type = t.getType();
            switch (type) {
                case QuiverSqlLexer.LPAREN, QuiverSqlLexer.LBRACKET, QuiverSqlLexer.LBRACE, QuiverSqlLexer.CASE -> {
                    open.push(t);
                    if (open.size() > limits.maxNesting()) {
                        throw tooDeep(text, t, limits);
                    }
                }
                case QuiverSqlLexer.RPAREN, QuiverSqlLexer.RBRACKET, QuiverSqlLexer.RBRACE, QuiverSqlLexer.END -> {
                    int opener = opener(type);
                    if (open.isEmpty() || open.peek().getType() != opener) {
                        // An END without CASE, or a closer whose opener is missing: the parser says what it expected
                        // there,
                        // except for a closer with nothing open at all.
                        if (open.isEmpty() && type != QuiverSqlLexer.END) {
                            throw text.syntaxError(
                                    t.getStartIndex(),
                                    "unexpected '" + t.getText() + "' without a matching '" + closerOf(type) + "'");
                        }
                        if (!open.isEmpty()
                                && type != QuiverSqlLexer.END
                                && open.peek().getType() != QuiverSqlLexer.CASE) {
                            Token o = open.peek();
                            throw text.syntaxError(
                                    t.getStartIndex(),
                                    "expected '" + closing(o.getType()) + "' to close '" + o.getText() + "' at "
                                            + text.position(o.getStartIndex()) + ", found '" + t.getText() + "'");
                        }
                        return; // inside a CASE: the parser's message ("expected END") is the better one
                    }
                    open.pop();
                }
                case Token.EOF -> {
                    if (!open.isEmpty() && open.peek().getType() != QuiverSqlLexer.CASE) {
                        Token o = open.peek();
                        throw text.syntaxError(
                                text.sql().length(),
                                "expected '" + closing(o.getType()) + "' to close '" + o.getText() + "' at "
                                        + text.position(o.getStartIndex()));
                    }
                }
                default -> {}
            }
        }
    }

    private static int opener(int closer) {
        return switch (closer) {
            case QuiverSqlLexer.RPAREN -> QuiverSqlLexer.LPAREN;
            case QuiverSqlLexer.RBRACKET -> QuiverSqlLexer.LBRACKET;
            case QuiverSqlLexer.RBRACE -> QuiverSqlLexer.LBRACE;
            default -> QuiverSqlLexer.CASE;
        };
    }

    private static String closerOf(int closer) {
        return switch (closer) {
            case QuiverSqlLexer.RPAREN -> "(";
            case QuiverSqlLexer.RBRACKET -> "[";
            default -> "{";
        };
    }

    private static String closing(int opener) {
        return switch (opener) {
            case QuiverSqlLexer.LPAREN -> ")";
            case QuiverSqlLexer.LBRACKET -> "]";
            case QuiverSqlLexer.LBRACE -> "}";
            default -> "END";
        };
    }

    /** The error for text nested past the limit, at the token that opens the level too many. */
    private static PlanningException tooDeep(SqlText text, Token at, SqlLimits limits) {
        return new PlanningException("the expression text is nested deeper than " + limits.maxNesting()
                + " levels (parentheses,"
                + " brackets, braces and CASE) at " + text.position(at.getStartIndex()) + "; raise the limit with"
                + " -Dquiver.sql.maxNesting=N or SqlParser.parse(text, new SqlLimits(N)), or build the expression with the Expr"
                + " builders (docs/expressions.md#limits); the text begins " + text.abbreviated());
    }
}
