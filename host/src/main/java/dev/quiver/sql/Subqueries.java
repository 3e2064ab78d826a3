package dev.quiver.sql;

import dev.quiver.expr.Expr;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.antlr.v4.runtime.ParserRuleContext;

/**
 * {@code (SELECT item FROM table [WHERE cond] [LIMIT n])}, the one form of SELECT Quiver runs, as an
 * {@link Expr.ScalarSubquery}. The grammar reads more of SELECT than that, so that each other clause is
 * named in the error ("GROUP BY in a subquery is not supported ..."). A table's name is its parts unquoted
 * and joined with dots.
 */
final class Subqueries {
    private final TreeToExpr tree;

    Subqueries(TreeToExpr tree) {
        this.tree = tree;
    }

    Expr scalarSubquery(QuiverSqlParser.QueryContext q, ParserRuleContext whole) {
        if (q.WITH() != null) {
            throw tree.unsupported("WITH in a subquery", whole);
        }
        if (!q.setOperator().isEmpty()) {
            String op = String.join(
                    " ",
                    q.setOperator().getFirst().children.stream()
                            .map(c -> c.getText().toUpperCase(Locale.ROOT))
                            .toList());
            throw tree.unsupported(op + " (a set operation)", whole);
        }
        QuiverSqlParser.QueryTermContext s = q.queryTerm().getFirst();
        if (s.VALUES() != null) {
            throw tree.unsupported("VALUES as a subquery", whole);
        }
        QuiverSqlParser.SelectQuantifierContext quantifier = s.selectQuantifier();
        if (quantifier != null && quantifier.DISTINCT() != null) {
            throw tree.unsupported("DISTINCT in a subquery", whole);
        }
        if (quantifier != null && quantifier.TOP() != null) {
            throw tree.unsupported("TOP in a subquery (write LIMIT)", whole);
        }
        List<QuiverSqlParser.SelectItemContext> items = s.selectItem();
        for (QuiverSqlParser.SelectItemContext item : items) {
            if (item.STAR() != null) {
                throw tree.unsupported("'*' in a subquery (select one expression)", whole);
            }
        }
        if (items.size() != 1) {
            throw tree.unsupported(
                    "several select items in a subquery (a scalar subquery selects one expression)", whole);
        }
        if (s.INTO() != null || s.QUALIFY() != null) {
            throw tree.unsupported("a subquery clause other than SELECT, FROM, WHERE and LIMIT", whole);
        }
        if (s.FROM() == null) {
            throw tree.unsupported("a subquery without FROM", whole);
        }
        String table = table(s.fromItem(), whole);
        if (s.GROUP() != null) {
            throw tree.unsupported("GROUP BY in a subquery", whole);
        }
        if (s.HAVING() != null) {
            throw tree.unsupported("HAVING in a subquery", whole);
        }
        Long limit = q.queryTail() == null ? null : limit(q.queryTail(), whole);
        Expr select = tree.expression(items.getFirst().expression());
        Expr where = s.where == null ? null : tree.expression(s.where);
        return new Expr.ScalarSubquery(select, table, where, limit);
    }

    private String table(List<QuiverSqlParser.FromItemContext> from, ParserRuleContext whole) {
        if (from.size() > 1) {
            throw tree.unsupported("several FROM items in a subquery", whole);
        }
        QuiverSqlParser.FromItemContext item = from.getFirst();
        if (!item.joinClause().isEmpty()) {
            throw tree.unsupported("a join in a subquery", whole);
        }
        QuiverSqlParser.TableReferenceContext t = item.tableReference();
        if (t.query() != null) {
            throw tree.unsupported("a subquery as FROM item", whole);
        }
        if (t.tableSample() != null) {
            throw tree.unsupported("a table with TABLESAMPLE, hints or other decorations in a subquery", whole);
        }
        if (t.alias != null) {
            throw tree.unsupported("a table alias in a subquery", whole);
        }
        List<String> parts = new ArrayList<>();
        for (QuiverSqlParser.IdentifierContext p : t.qualifiedName().identifier()) {
            parts.add(Names.identifier(p));
        }
        return String.join(".", parts);
    }

    /** The LIMIT, a non-negative integer literal below 2^63; every other clause after FROM is named. */
    private Long limit(QuiverSqlParser.QueryTailContext tail, ParserRuleContext whole) {
        Long limit = null;
        for (QuiverSqlParser.QueryClauseContext c : tail.queryClause()) {
            if (c.ORDER() != null) {
                throw tree.unsupported("ORDER BY in a subquery", whole);
            }
            if (c.OFFSET() != null || c.limitValue().size() > 1) {
                throw tree.unsupported("OFFSET in a subquery", whole);
            }
            if (c.FETCH() != null) {
                throw tree.unsupported("FETCH in a subquery (write LIMIT)", whole);
            }
            if (c.UPDATE() != null) {
                throw tree.unsupported("a subquery clause other than SELECT, FROM, WHERE and LIMIT", whole);
            }
        }
        for (QuiverSqlParser.QueryClauseContext c : tail.queryClause()) {
            if (c.LIMIT() != null) {
                QuiverSqlParser.LimitValueContext v = c.limit;
                String written = tree.source(v);
                if (!written.chars().allMatch(Character::isDigit)) {
                    throw tree.unsupported("LIMIT " + written + " (LIMIT takes a non-negative integer literal)", whole);
                }
                BigInteger n = new BigInteger(written);
                if (n.bitLength() >= 64) {
                    throw TreeToExpr.planning("LIMIT out of range (Int64): " + n + " (in \"" + tree.shown() + "\")");
                }
                limit = n.longValueExact();
            }
        }
        return limit;
    }
}
