package dev.quiver.sql;

import dev.quiver.expr.Expr;
import dev.quiver.expr.ExprThreads;
import dev.quiver.functions.PlanningException;
import java.util.Objects;
import org.antlr.v4.runtime.BailErrorStrategy;
import org.antlr.v4.runtime.CommonTokenStream;
import org.antlr.v4.runtime.DefaultErrorStrategy;
import org.antlr.v4.runtime.atn.PredictionMode;
import org.antlr.v4.runtime.misc.ParseCancellationException;

/**
 * Reads one SQL scalar expression into an {@link Expr} with Quiver's grammar ({@code QuiverSql.g4}; what each
 * form becomes: docs/expressions.md). The work, all of it linear in the text:
 * <ol>
 * <li>lex and check the tokens ({@link SqlLexing}): unterminated strings and comments, stray characters,
 *     brackets that do not match, nesting past {@link SqlLimits#maxNesting()};</li>
 * <li>parse in ANTLR's SLL mode, which settles every decision of this grammar in a few tokens; only where it
 *     fails is the text parsed again in full LL mode, which either reads it or reports the first syntax error
 *     ({@link SyntaxErrors});</li>
 * <li>build the {@link Expr} ({@link TreeToExpr}): chains of operators in loops, nesting by recursion.</li>
 * </ol>
 * All three run on a thread of {@link ExprThreads} whose stack the nesting limit sizes, so no text within the
 * limit overflows a stack and no text past it is parsed.
 */
public final class ExpressionParser {
    private ExpressionParser() {}

    /**
     * Parses {@code sql} within {@code limits}.
     *
     * @throws PlanningException on a syntax error (with line, column, a caret and what was expected), on text nested
     *                           deeper than the limit, on a form Quiver has no node for, on a literal out of range and
     *                           on an unknown or unsupported type
     */
    public static Expr parse(String sql, SqlLimits limits) {
        Objects.requireNonNull(sql, "sql is null");
        Objects.requireNonNull(limits, "limits is null");
        SqlText text = new SqlText(sql);
        return ExprThreads.call(limits.stackBytes(), () -> {
            try {
                CommonTokenStream tokens = SqlLexing.tokens(text, limits);
                QuiverSqlParser.SingleExpressionContext tree = tree(text, tokens);
                return new TreeToExpr(text).build(tree);
            } catch (StackOverflowError e) {
                // Not expected within the nesting limit on a stack sized from it; should it happen, say so plainly.
                throw new PlanningException(
                        "the expression text is too deeply nested for the SQL parser's stack; lower the"
                                + " nesting or build it with the Expr builders (docs/expressions.md#limits); the text begins "
                                + text.abbreviated());
            }
        });
    }

    /** The parse tree: SLL first, LL where SLL fails (ANTLR's two-stage strategy). */
    private static QuiverSqlParser.SingleExpressionContext tree(SqlText text, CommonTokenStream tokens) {
        QuiverSqlParser parser = new QuiverSqlParser(tokens);
        parser.removeErrorListeners();
        parser.setErrorHandler(new BailErrorStrategy());
        parser.getInterpreter().setPredictionMode(PredictionMode.SLL);
        try {
            return parser.singleExpression();
        } catch (ParseCancellationException sllFailed) {
            tokens.seek(0);
            parser.reset();
            parser.addErrorListener(new SyntaxErrors(text));
            parser.setErrorHandler(new DefaultErrorStrategy());
            parser.getInterpreter().setPredictionMode(PredictionMode.LL);
            return parser.singleExpression(); // SyntaxErrors throws at the first error
        }
    }
}
