package dev.quiver.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.antlr.v4.runtime.BaseErrorListener;
import org.antlr.v4.runtime.Parser;
import org.antlr.v4.runtime.RecognitionException;
import org.antlr.v4.runtime.Recognizer;
import org.antlr.v4.runtime.Token;
import org.antlr.v4.runtime.TokenStream;
import org.antlr.v4.runtime.Vocabulary;
import org.antlr.v4.runtime.misc.IntervalSet;

/**
 * Turns the parser's first syntax error into a {@link dev.quiver.functions.PlanningException} a person can act
 * on (the format of {@link SqlText#syntaxError}): where, what was expected there ("expected an expression after
 * '+', found ')'", "expected 'THEN', found '1'", "expected a type name"), what was found, and for a misspelt
 * keyword the one meant ("unexpected 'BETWEN'; did you mean BETWEEN?"). Thrown from the listener, so the
 * parser stops at the first error rather than recovering.
 */
final class SyntaxErrors extends BaseErrorListener {
    /** Tokens after which an operand is missing when an expression was expected: operators, commas, openers. */
    private static final Set<Integer> EXPECTS_OPERAND = Set.of(
            QuiverSqlLexer.PLUS,
            QuiverSqlLexer.MINUS,
            QuiverSqlLexer.STAR,
            QuiverSqlLexer.SLASH,
            QuiverSqlLexer.PERCENT,
            QuiverSqlLexer.CARET,
            QuiverSqlLexer.EQ,
            QuiverSqlLexer.DOUBLE_EQ,
            QuiverSqlLexer.NEQ,
            QuiverSqlLexer.NEQ2,
            QuiverSqlLexer.LT,
            QuiverSqlLexer.LTE,
            QuiverSqlLexer.GT,
            QuiverSqlLexer.GTE,
            QuiverSqlLexer.CONCAT,
            QuiverSqlLexer.PIPE,
            QuiverSqlLexer.AMPERSAND,
            QuiverSqlLexer.HASH,
            QuiverSqlLexer.SHIFT_LEFT,
            QuiverSqlLexer.SHIFT_RIGHT,
            QuiverSqlLexer.TILDE,
            QuiverSqlLexer.TILDE_STAR,
            QuiverSqlLexer.NOT_TILDE,
            QuiverSqlLexer.NOT_TILDE_STAR,
            QuiverSqlLexer.CONTAINS,
            QuiverSqlLexer.CONTAINED_BY,
            QuiverSqlLexer.OVERLAP,
            QuiverSqlLexer.COMMA,
            QuiverSqlLexer.AND,
            QuiverSqlLexer.OR,
            QuiverSqlLexer.NOT,
            QuiverSqlLexer.LIKE,
            QuiverSqlLexer.ILIKE,
            QuiverSqlLexer.BETWEEN,
            QuiverSqlLexer.ARROW,
            QuiverSqlLexer.WHEN,
            QuiverSqlLexer.THEN,
            QuiverSqlLexer.ELSE,
            QuiverSqlLexer.ESCAPE,
            QuiverSqlLexer.FROM,
            QuiverSqlLexer.FOR,
            QuiverSqlLexer.IN,
            QuiverSqlLexer.DISTINCT,
            QuiverSqlLexer.WHERE,
            QuiverSqlLexer.COLON,
            QuiverSqlLexer.PLACING,
            QuiverSqlLexer.TO);

    private final SqlText text;

    SyntaxErrors(SqlText text) {
        this.text = text;
    }

    @Override
    public void syntaxError(
            Recognizer<?, ?> recognizer,
            Object offendingSymbol,
            int line,
            int charPositionInLine,
            String msg,
            RecognitionException e) {
        Parser parser = (Parser) recognizer;
        Token found = (Token) offendingSymbol;
        Token current = parser.getCurrentToken();
        // After an error of prediction, the offending token may lie several tokens past the decision: the expected set
        // is that of the decision's first token, so it is named only when the two are the same.
        IntervalSet expected = found.getTokenIndex() == current.getTokenIndex() ? expected(parser, e) : null;
        int at = found.getType() == Token.EOF ? text.sql().length() : found.getStartIndex();
        throw text.syntaxError(at, describe(parser, found, expected));
    }

    private static IntervalSet expected(Parser parser, RecognitionException e) {
        try {
            return e != null
                            && e.getExpectedTokens() != null
                            && !e.getExpectedTokens().isNil()
                    ? e.getExpectedTokens()
                    : parser.getExpectedTokens();
        } catch (IllegalArgumentException | IllegalStateException ignored) {
            return parser.getExpectedTokens();
        }
    }

    private String describe(Parser parser, Token found, IntervalSet expected) {
        String foundText = found.getType() == Token.EOF ? "end of input" : quote(found.getText());
        Token before = previous(parser.getInputStream(), found);
        if (expected == null || (expected.contains(Token.EOF) && found.getType() != Token.EOF)) {
            // Past a whole expression, where any operator could follow: the token is the mistake, not a missing one.
            return "unexpected " + foundText + keywordHint(found, parser.getVocabulary(), null);
        }
        boolean expression =
                expected.contains(QuiverSqlLexer.INTEGER_VALUE) && expected.contains(QuiverSqlLexer.IDENTIFIER);
        int rule = parser.getContext() == null ? -1 : parser.getContext().getRuleIndex();
        if (expression) {
            String after = before != null && EXPECTS_OPERAND.contains(before.getType())
                    ? " after " + quote(before.getText())
                    : "";
            return "expected an expression" + after + (found.getType() == Token.EOF ? "" : ", found " + foundText);
        }
        if (rule == QuiverSqlParser.RULE_dataType
                || rule == QuiverSqlParser.RULE_typeName
                || rule == QuiverSqlParser.RULE_simpleType) {
            return "expected a type name, found " + foundText;
        }
        if (expected.contains(QuiverSqlLexer.IDENTIFIER) && !expected.contains(QuiverSqlLexer.STRING)) {
            return "expected a name, found " + foundText;
        }
        List<String> names = names(expected, parser.getVocabulary());
        if (!names.isEmpty() && names.size() <= 6) {
            return "expected " + oneOf(names) + ", found " + foundText
                    + keywordHint(found, parser.getVocabulary(), expected);
        }
        // Past an operand, where operators could also follow: the keywords the construct needs ("AND" of BETWEEN).
        List<String> words = names.stream()
                .filter(n -> n.length() > 2 && Character.isLetter(n.charAt(1)) && !n.equals("'AT'"))
                .toList();
        if (!words.isEmpty() && words.size() <= 3) {
            return "expected " + oneOf(words) + ", found " + foundText
                    + keywordHint(found, parser.getVocabulary(), expected);
        }
        return "unexpected " + foundText + keywordHint(found, parser.getVocabulary(), expected);
    }

    /** "; did you mean THEN?" for a name a letter or two off a keyword the parser would take here (or any keyword). */
    private static String keywordHint(Token found, Vocabulary vocabulary, IntervalSet expected) {
        if (found.getType() != QuiverSqlLexer.IDENTIFIER) {
            return "";
        }
        List<String> keywords = new ArrayList<>();
        for (int type = 1; type <= vocabulary.getMaxTokenType(); type++) {
            String literal = vocabulary.getLiteralName(type);
            if (literal != null
                    && Character.isLetter(literal.charAt(1))
                    && (expected == null || expected.contains(type))) {
                keywords.add(literal.substring(1, literal.length() - 1));
            }
        }
        return Suggestions.didYouMean(Suggestions.closest(found.getText().toUpperCase(Locale.ROOT), keywords));
    }

    private static List<String> names(IntervalSet expected, Vocabulary vocabulary) {
        List<String> out = new ArrayList<>();
        for (int type : expected.toList()) {
            if (type == Token.EOF) {
                out.add("end of input");
                continue;
            }
            String literal = vocabulary.getLiteralName(type);
            out.add(
                    literal != null
                            ? literal
                            : switch (type) {
                                case QuiverSqlLexer.STRING -> "a string";
                                case QuiverSqlLexer.INTEGER_VALUE -> "an integer";
                                case QuiverSqlLexer.DECIMAL_VALUE -> "a number";
                                default ->
                                    vocabulary
                                            .getSymbolicName(type)
                                            .toLowerCase(Locale.ROOT)
                                            .replace('_', ' ');
                            });
        }
        return out;
    }

    private static String oneOf(List<String> names) {
        if (names.size() == 1) {
            return names.getFirst();
        }
        return String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.getLast();
    }

    private static String quote(String s) {
        return "'" + s + "'";
    }

    /** The token before {@code t} that the parser sees (comments and blanks skipped), or null. */
    private static Token previous(TokenStream tokens, Token t) {
        for (int i = t.getTokenIndex() - 1; i >= 0; i--) {
            Token p = tokens.get(i);
            if (p.getChannel() == Token.DEFAULT_CHANNEL) {
                return p;
            }
        }
        return null;
    }
}
