package dev.quiver.sql;

import dev.quiver.expr.Expr;
import dev.quiver.types.DataType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.apache.arrow.vector.types.IntervalUnit;

/**
 * The operands of the grammar ({@code primary}): literals, names, calls and the forms SQL spells with
 * keywords, each as the {@link Expr} DataFusion plans it as: {@code EXTRACT(f FROM x)} is
 * {@code date_part('f', x)}, {@code POSITION(a IN b)} {@code strpos(b, a)}, {@code SUBSTRING(x FROM a FOR b)}
 * {@code substring(x, a, b)}, {@code TRIM(LEADING c FROM x)} {@code ltrim(x, c)}, {@code OVERLAY(s PLACING t
 * FROM a FOR b)} {@code overlay(s, t, a, b)}, {@code [a, b]} and {@code ARRAY[a, b]} {@code make_array(a, b)},
 * {@code MAP {k: v}} {@code map(make_array(k), make_array(v))}, {@code (a, b)} and {@code ROW(a, b)}
 * {@code struct(a, b)}, {@code INTERVAL '1' DAY} a cast of {@code '1 DAY'} to INTERVAL.
 */
final class Primaries {
    private final TreeToExpr tree;
    private final SqlText text;
    private final Subqueries subqueries;

    Primaries(TreeToExpr tree, SqlText text) {
        this.tree = tree;
        this.text = text;
        this.subqueries = new Subqueries(tree);
    }

    Expr primary(QuiverSqlParser.PrimaryContext ctx) {
        return switch (ctx) {
            case QuiverSqlParser.LiteralPrimaryContext c -> literal(c.literal());
            case QuiverSqlParser.IntervalPrimaryContext c -> interval(c);
            case QuiverSqlParser.TypedLiteralContext c -> typedLiteral(c);
            case QuiverSqlParser.ArrayPrimaryContext c -> new Expr.Call("make_array", tree.expressions(c.expression()));
            case QuiverSqlParser.MapPrimaryContext c -> map(c);
            case QuiverSqlParser.CasePrimaryContext c -> caseExpr(c);
            case QuiverSqlParser.CastPrimaryContext c -> {
                Expr e = tree.expression(c.expression());
                DataType type = tree.type(c.dataType());
                yield c.kind.getType() == QuiverSqlLexer.CAST ? new Expr.Cast(e, type) : new Expr.TryCast(e, type);
            }
            case QuiverSqlParser.ExtractPrimaryContext c -> {
                String field = c.field.STRING() != null
                        ? Literals.string(c.field.STRING().getText())
                        : Names.identifier(c.field.identifier());
                yield new Expr.Call(
                        "date_part",
                        List.of(Expr.lit(field.toLowerCase(Locale.ROOT)), tree.expression(c.expression())));
            }
            case QuiverSqlParser.PositionPrimaryContext c -> {
                Expr needle = tree.other(c.needle);
                yield new Expr.Call("strpos", List.of(tree.other(c.haystack), needle));
            }
            case QuiverSqlParser.SubstringPrimaryContext c -> substring(c);
            case QuiverSqlParser.TrimPrimaryContext c -> trim(c);
            case QuiverSqlParser.OverlayPrimaryContext c -> overlay(c);
            case QuiverSqlParser.ExistsPrimaryContext c -> throw tree.unsupported("EXISTS", c);
            case QuiverSqlParser.SubqueryPrimaryContext c -> subqueries.scalarSubquery(c.query(), c);
            case QuiverSqlParser.ParenthesizedPrimaryContext c -> parenthesized(c);
            case QuiverSqlParser.CallPrimaryContext c -> call(c);
            case QuiverSqlParser.ColumnPrimaryContext c -> Expr.col(Names.identifier(c.identifier()));
            case QuiverSqlParser.ParameterPrimaryContext c -> throw tree.unsupported("a parameter", c);
            case QuiverSqlParser.StarPrimaryContext c -> throw tree.unsupported("'*'", c);
            default -> throw tree.unsupported(ctx.getClass().getSimpleName(), ctx);
        };
    }

    private Expr literal(QuiverSqlParser.LiteralContext ctx) {
        if (ctx.INTEGER_VALUE() != null || ctx.DECIMAL_VALUE() != null) {
            return number(ctx, false);
        }
        try {
            if (ctx.STRING() != null) {
                return Expr.lit(Literals.string(ctx.STRING().getText()));
            }
            if (ctx.ESCAPE_STRING() != null) {
                return Expr.lit(Literals.escapeString(ctx.ESCAPE_STRING().getText()));
            }
            if (ctx.HEX_STRING() != null) {
                return Expr.lit(Literals.hexString(ctx.HEX_STRING().getText()));
            }
        } catch (IllegalArgumentException e) {
            throw TreeToExpr.planning(e.getMessage());
        }
        if (ctx.NULL() != null) {
            return Expr.nullLit();
        }
        return Expr.lit(ctx.TRUE() != null);
    }

    /** A number token, negated when a minus stands right before it. */
    Expr number(QuiverSqlParser.LiteralContext ctx, boolean negative) {
        String digits = (negative ? "-" : "") + ctx.getText();
        try {
            return ctx.INTEGER_VALUE() != null ? Literals.integer(digits) : Literals.floating(digits);
        } catch (IllegalArgumentException e) {
            throw TreeToExpr.planning(e.getMessage());
        }
    }

    /** {@code INTERVAL '1 day 2 hours'}, {@code INTERVAL '3' MONTH}, {@code INTERVAL 2 DAY}: a cast of the text to INTERVAL. */
    private Expr interval(QuiverSqlParser.IntervalPrimaryContext c) {
        QuiverSqlParser.IntervalValueContext v = c.intervalValue();
        String value = v.STRING() != null
                ? Literals.string(v.STRING().getText())
                : (v.sign != null && v.sign.getType() == QuiverSqlLexer.MINUS ? "-" : "")
                        + v.getChild(v.getChildCount() - 1).getText();
        String unit = c.intervalUnit() == null
                ? ""
                : " "
                        + String.join(
                                " ",
                                c.intervalUnit().children.stream()
                                        .map(p -> p.getText().toUpperCase(Locale.ROOT))
                                        .toList());
        return new Expr.Cast(Expr.lit(value + unit), new DataType.Interval(IntervalUnit.MONTH_DAY_NANO));
    }

    private Expr typedLiteral(QuiverSqlParser.TypedLiteralContext c) {
        QuiverSqlParser.SimpleTypeContext s = c.simpleType();
        String typeText = text.sql().substring(s.start.getStartIndex(), s.stop.getStopIndex() + 1);
        String value = Literals.string(c.STRING().getText());
        try {
            DataType type = TypeNames.ofSimple(s, typeText);
            return new Expr.Literal(TypedLiterals.of(type, value));
        } catch (IllegalArgumentException e) {
            throw TreeToExpr.planning(e.getMessage());
        }
    }

    private Expr map(QuiverSqlParser.MapPrimaryContext c) {
        List<Expr> keys = new ArrayList<>();
        List<Expr> values = new ArrayList<>();
        for (QuiverSqlParser.MapEntryContext e : c.mapEntry()) {
            keys.add(tree.expression(e.key));
            values.add(tree.expression(e.value));
        }
        return new Expr.Call("map", List.of(new Expr.Call("make_array", keys), new Expr.Call("make_array", values)));
    }

    private Expr caseExpr(QuiverSqlParser.CasePrimaryContext c) {
        Expr operand = c.operand == null ? null : tree.expression(c.operand);
        List<Expr.WhenThen> branches = new ArrayList<>();
        for (QuiverSqlParser.WhenClauseContext w : c.whenClause()) {
            branches.add(new Expr.WhenThen(tree.expression(w.when), tree.expression(w.then)));
        }
        return new Expr.Case(operand, branches, c.otherwise == null ? null : tree.expression(c.otherwise));
    }

    /** {@code SUBSTRING(s FROM a [FOR b])}, {@code SUBSTRING(s FOR b)} (from 1), or {@code substring(s, a[, b])}. */
    private Expr substring(QuiverSqlParser.SubstringPrimaryContext c) {
        List<Expr> args = new ArrayList<>();
        args.add(tree.expression(c.string));
        boolean keywords = c.from != null || c.count != null;
        if (keywords && !c.rest.isEmpty()) {
            throw tree.unsupported(
                    "this form of SUBSTRING (write SUBSTRING(s FROM start [FOR length]) or substring(s, start[, length]))",
                    c);
        }
        if (keywords) {
            args.add(c.from == null ? Expr.lit(1) : tree.expression(c.from));
            if (c.count != null) {
                args.add(tree.expression(c.count));
            }
        } else {
            args.addAll(tree.expressions(c.rest));
        }
        return new Expr.Call("substring", args);
    }

    /** {@code TRIM([BOTH | LEADING | TRAILING] [chars] FROM s)}, {@code TRIM([spec] s)}, {@code trim(s[, chars])}: trim/ltrim/rtrim(s[, chars]). */
    private Expr trim(QuiverSqlParser.TrimPrimaryContext c) {
        String name = c.trimSpec == null
                ? "trim"
                : switch (c.trimSpec.getType()) {
                    case QuiverSqlLexer.LEADING -> "ltrim";
                    case QuiverSqlLexer.TRAILING -> "rtrim";
                    default -> "trim";
                };
        List<Expr> args = new ArrayList<>();
        if (c.from != null) {
            if (!c.rest.isEmpty()) {
                throw tree.unsupported(
                        "this form of TRIM (write TRIM([BOTH | LEADING | TRAILING] [characters] FROM s))", c);
            }
            args.add(tree.expression(c.from));
            if (c.first != null) {
                args.add(tree.expression(c.first));
            }
        } else {
            if (c.first == null) {
                throw tree.unsupported("TRIM without a string", c);
            }
            args.add(tree.expression(c.first));
            args.addAll(tree.expressions(c.rest));
        }
        return new Expr.Call(name, args);
    }

    private Expr overlay(QuiverSqlParser.OverlayPrimaryContext c) {
        List<Expr> args = new ArrayList<>();
        args.add(tree.expression(c.string));
        if (c.placing != null) {
            if (!c.rest.isEmpty()) {
                throw tree.unsupported("this form of OVERLAY (write OVERLAY(s PLACING t FROM start [FOR length]))", c);
            }
            args.add(tree.expression(c.placing));
            args.add(tree.expression(c.from));
            if (c.count != null) {
                args.add(tree.expression(c.count));
            }
        } else {
            args.addAll(tree.expressions(c.rest));
        }
        return new Expr.Call("overlay", args);
    }

    /** {@code (e)} is e; {@code (a, b)} a row, struct(a, b); {@code ((SELECT ...) LIMIT 1)} names the clause outside. */
    private Expr parenthesized(QuiverSqlParser.ParenthesizedPrimaryContext c) {
        List<Expr> items = tree.expressions(c.expression());
        if (c.queryTail() != null) {
            boolean subquery = items.size() == 1 && items.getFirst() instanceof Expr.ScalarSubquery;
            if (!subquery) {
                throw tree.unsupported("ORDER BY, LIMIT or OFFSET after an expression", c);
            }
            if (c.queryTail().queryClause().getFirst().ORDER() != null) {
                throw tree.unsupported("ORDER BY in a subquery", c);
            }
            throw tree.unsupported("a clause after a parenthesized subquery (write it inside the parentheses)", c);
        }
        return items.size() == 1 ? items.getFirst() : new Expr.Call("struct", items);
    }

    private Expr call(QuiverSqlParser.CallPrimaryContext c) {
        String name = Names.function(c.functionName().start);
        QuiverSqlParser.CallArgumentsContext a = c.callArguments();
        if (c.overClause() != null) {
            throw tree.unsupported("a window function", c);
        }
        if (a != null && a.STAR() != null) {
            throw tree.unsupported("'*'", c);
        }
        if (c.filterClause() != null
                || (a != null
                        && ((a.setQuantifier != null && a.setQuantifier.getType() == QuiverSqlLexer.DISTINCT)
                                || a.ORDER() != null))) {
            throw tree.unsupported("an aggregate or decorated call (DISTINCT, ORDER BY, FILTER, ...)", c);
        }
        List<Expr> args = new ArrayList<>();
        List<String> names = new ArrayList<>();
        if (a != null) {
            for (QuiverSqlParser.ArgumentContext arg : a.argument()) {
                names.add(arg.name == null ? null : Names.identifier(arg.name));
                args.add(tree.expression(arg.expression()));
            }
        }
        // ROW(a, b) is a row constructor, as (a, b); a function of that name must be quoted.
        if (name.equals("row") && c.functionName().start.getType() == QuiverSqlLexer.ROW) {
            if (names.stream().anyMatch(Objects::nonNull)) {
                throw tree.unsupported("named fields in ROW (write named_struct('a', x, ...))", c);
            }
            return new Expr.Call("struct", args);
        }
        try {
            return new Expr.Call(name, args, names);
        } catch (IllegalArgumentException e) {
            throw TreeToExpr.planning(e.getMessage() + " (in \"" + tree.shown() + "\")");
        }
    }
}
