package dev.quiver.sql;

import dev.quiver.expr.Expr;
import dev.quiver.expr.Operator;
import dev.quiver.functions.PlanningException;
import dev.quiver.types.DataType;
import dev.quiver.value.ScalarValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.antlr.v4.runtime.ParserRuleContext;
import org.antlr.v4.runtime.Token;
import org.antlr.v4.runtime.tree.ParseTree;
import org.antlr.v4.runtime.tree.TerminalNode;

/**
 * Builds the {@link Expr} of a parse tree, one precedence level per method. Each level's chain
 * ({@code a + b - c}, {@code x OR y OR ...}, {@code NOT NOT x}, {@code x::INT::BIGINT}) is folded in a loop,
 * so its length costs no stack; only nesting (a parenthesis, a call's argument, a CASE) recurses, which
 * {@link SqlLimits} bounds. What each operator becomes is in docs/expressions.md: the ones without a node of
 * their own are calls ({@code a ^ b} is {@code power(a, b)}, {@code a || b || c} one
 * {@code strict_concat(a, b, c)}, {@code a ~ b} {@code regexp_like(a, b)}, {@code a & b}
 * {@code bitwise_and(a, b)}, ...).
 */
final class TreeToExpr {
    private final SqlText text;
    private final Primaries primaries;

    TreeToExpr(SqlText text) {
        this.text = text;
        this.primaries = new Primaries(this, text);
    }

    SqlText text() {
        return text;
    }

    Expr build(QuiverSqlParser.SingleExpressionContext ctx) {
        Expr e = expression(ctx.expression());
        return ctx.alias == null ? e : new Expr.Alias(e, Names.identifier(ctx.alias));
    }

    Expr expression(QuiverSqlParser.ExpressionContext ctx) {
        return or(ctx.orExpression());
    }

    List<Expr> expressions(List<QuiverSqlParser.ExpressionContext> list) {
        List<Expr> out = new ArrayList<>(list.size());
        for (QuiverSqlParser.ExpressionContext c : list) {
            out.add(expression(c));
        }
        return out;
    }

    private Expr or(QuiverSqlParser.OrExpressionContext ctx) {
        List<QuiverSqlParser.AndExpressionContext> terms = ctx.andExpression();
        Expr acc = and(terms.getFirst());
        for (int i = 1; i < terms.size(); i++) {
            acc = new Expr.Binary(acc, Operator.OR, and(terms.get(i)));
        }
        return acc;
    }

    private Expr and(QuiverSqlParser.AndExpressionContext ctx) {
        List<QuiverSqlParser.NotExpressionContext> terms = ctx.notExpression();
        Expr acc = not(terms.getFirst());
        for (int i = 1; i < terms.size(); i++) {
            acc = new Expr.Binary(acc, Operator.AND, not(terms.get(i)));
        }
        return acc;
    }

    private Expr not(QuiverSqlParser.NotExpressionContext ctx) {
        Expr e = is(ctx.isExpression());
        for (int i = 0; i < ctx.NOT().size(); i++) {
            e = new Expr.Not(e);
        }
        return e;
    }

    /** {@code IS [NOT] NULL | TRUE | FALSE | UNKNOWN | DISTINCT FROM}, ISNULL, NOTNULL: TRUE and FALSE as IS NOT DISTINCT FROM. */
    private Expr is(QuiverSqlParser.IsExpressionContext ctx) {
        Expr e = comparison(ctx.comparison());
        for (QuiverSqlParser.IsTestContext t : ctx.isTest()) {
            boolean not = t.NOT() != null;
            if (t.ISNULL() != null || t.NULL() != null || t.UNKNOWN() != null) {
                e = new Expr.IsNull(e, not);
            } else if (t.NOTNULL() != null) {
                e = new Expr.IsNull(e, true);
            } else if (t.TRUE() != null || t.FALSE() != null) {
                e = new Expr.Binary(
                        e, not ? Operator.IS_DISTINCT_FROM : Operator.IS_NOT_DISTINCT_FROM, Expr.lit(t.TRUE() != null));
            } else {
                e = new Expr.Binary(
                        e, not ? Operator.IS_NOT_DISTINCT_FROM : Operator.IS_DISTINCT_FROM, comparison(t.comparison()));
            }
        }
        return e;
    }

    private Expr comparison(QuiverSqlParser.ComparisonContext ctx) {
        Expr acc = predicate(ctx.predicate());
        List<QuiverSqlParser.ComparisonOperatorContext> ops = ctx.comparisonOperator();
        for (int i = 0; i < ops.size(); i++) {
            Operator op =
                    switch (((TerminalNode) ops.get(i).getChild(0)).getSymbol().getType()) {
                        case QuiverSqlLexer.EQ, QuiverSqlLexer.DOUBLE_EQ -> Operator.EQ;
                        case QuiverSqlLexer.NEQ, QuiverSqlLexer.NEQ2 -> Operator.NOT_EQ;
                        case QuiverSqlLexer.LT -> Operator.LT;
                        case QuiverSqlLexer.LTE -> Operator.LT_EQ;
                        case QuiverSqlLexer.GT -> Operator.GT;
                        default -> Operator.GT_EQ;
                    };
            QuiverSqlParser.ComparisonOperandContext operand = ctx.comparisonOperand(i);
            acc = operand.quantifier == null
                    ? new Expr.Binary(acc, op, predicate(operand.predicate()))
                    : quantified(acc, op, operand);
        }
        return acc;
    }

    /** {@code x = ANY(list)}: array_has(list, x); {@code x <> ALL(list)}: NOT array_has(list, x), as DataFusion. */
    private Expr quantified(Expr left, Operator op, QuiverSqlParser.ComparisonOperandContext ctx) {
        String q = ctx.quantifier.getText().toUpperCase(Locale.ROOT);
        if (ctx.query() != null) {
            throw unsupported("ANY/ALL/SOME with a subquery (write = ANY(list) over a list value)", ctx);
        }
        Expr list = expression(ctx.expression());
        boolean any = !q.equals("ALL");
        if (any && op == Operator.EQ) {
            return new Expr.Call("array_has", List.of(list, left));
        }
        if (!any && op == Operator.NOT_EQ) {
            return new Expr.Not(new Expr.Call("array_has", List.of(list, left)));
        }
        throw unsupported("ANY/ALL/SOME with '" + op.sql() + "' (= ANY(list) and <> ALL(list) are)", ctx);
    }

    private Expr predicate(QuiverSqlParser.PredicateContext ctx) {
        Expr e = other(ctx.otherExpression());
        for (QuiverSqlParser.PredicateTestContext t : ctx.predicateTest()) {
            e = predicateTest(e, t);
        }
        return e;
    }

    private Expr predicateTest(Expr e, QuiverSqlParser.PredicateTestContext t) {
        boolean not = t.NOT() != null;
        if (t.BETWEEN() != null) {
            Expr low = other(t.low);
            Expr high = other(t.high);
            if (t.SYMMETRIC() == null) {
                return new Expr.Between(e, low, high, not);
            }
            // PostgreSQL's BETWEEN SYMMETRIC: either order of the bounds.
            return not
                    ? new Expr.Binary(
                            new Expr.Between(e, low, high, true), Operator.AND, new Expr.Between(e, high, low, true))
                    : new Expr.Binary(
                            new Expr.Between(e, low, high, false), Operator.OR, new Expr.Between(e, high, low, false));
        }
        if (t.IN() != null) {
            if (t.query() != null) {
                throw unsupported("IN (SELECT ...) (write IN (a, b, ...))", t);
            }
            return new Expr.InList(e, expressions(t.expression()), not);
        }
        Expr pattern = other(t.pattern);
        Expr escape = t.escape == null ? null : other(t.escape);
        if (t.SIMILAR() != null) {
            List<Expr> args = new ArrayList<>(List.of(e, pattern));
            if (escape != null) {
                args.add(escape);
            }
            Expr call = new Expr.Call("similar_to", args);
            return not ? new Expr.Not(call) : call;
        }
        Character c = null;
        if (escape != null) {
            if (!(escape instanceof Expr.Literal l) || !(l.value().value() instanceof String s) || s.length() != 1) {
                throw planning("ESCAPE takes a one-character string literal, not " + source(t.escape) + " (in \""
                        + shown() + "\")");
            }
            c = s.charAt(0);
        }
        return new Expr.Like(e, pattern, c, not, t.kind.getType() == QuiverSqlLexer.ILIKE);
    }

    /** PostgreSQL's "other operator" level: {@code || | & # << >> ~ ~* !~ !~* @> <@ &&}, left to right. */
    Expr other(QuiverSqlParser.OtherExpressionContext ctx) {
        List<QuiverSqlParser.AdditiveContext> terms = ctx.additive();
        Expr acc = additive(terms.getFirst());
        List<Expr> concat = null; // the operands of a run of ||, one strict_concat call
        for (int i = 1; i < terms.size(); i++) {
            int op = ((TerminalNode) ctx.otherOperator(i - 1).getChild(0))
                    .getSymbol()
                    .getType();
            Expr right = additive(terms.get(i));
            if (op == QuiverSqlLexer.CONCAT) {
                if (concat == null) {
                    concat = new ArrayList<>();
                    concat.add(acc);
                }
                concat.add(right);
                continue;
            }
            if (concat != null) {
                acc = new Expr.Call("strict_concat", concat);
                concat = null;
            }
            acc = otherOperator(op, acc, right);
        }
        return concat == null ? acc : new Expr.Call("strict_concat", concat);
    }

    private static Expr otherOperator(int op, Expr a, Expr b) {
        return switch (op) {
            case QuiverSqlLexer.PIPE -> call("bitwise_or", a, b);
            case QuiverSqlLexer.AMPERSAND -> call("bitwise_and", a, b);
            case QuiverSqlLexer.HASH -> call("bitwise_xor", a, b);
            case QuiverSqlLexer.SHIFT_LEFT -> call("bitwise_left_shift", a, b);
            case QuiverSqlLexer.SHIFT_RIGHT -> call("bitwise_right_shift", a, b);
            case QuiverSqlLexer.TILDE -> call("regexp_like", a, b);
            case QuiverSqlLexer.TILDE_STAR -> call("regexp_like", a, b, Expr.lit("i"));
            case QuiverSqlLexer.NOT_TILDE -> new Expr.Not(call("regexp_like", a, b));
            case QuiverSqlLexer.NOT_TILDE_STAR -> new Expr.Not(call("regexp_like", a, b, Expr.lit("i")));
            case QuiverSqlLexer.CONTAINS -> call("array_has_all", a, b);
            case QuiverSqlLexer.CONTAINED_BY -> call("array_has_all", b, a);
            default -> call("array_has_any", a, b); // &&
        };
    }

    private static Expr call(String name, Expr... args) {
        return new Expr.Call(name, List.of(args));
    }

    private Expr additive(QuiverSqlParser.AdditiveContext ctx) {
        List<QuiverSqlParser.MultiplicativeContext> terms = ctx.multiplicative();
        Expr acc = multiplicative(terms.getFirst());
        for (int i = 1; i < terms.size(); i++) {
            Token op = ((TerminalNode) ctx.getChild(2 * i - 1)).getSymbol();
            acc = new Expr.Binary(
                    acc,
                    op.getType() == QuiverSqlLexer.PLUS ? Operator.PLUS : Operator.MINUS,
                    multiplicative(terms.get(i)));
        }
        return acc;
    }

    private Expr multiplicative(QuiverSqlParser.MultiplicativeContext ctx) {
        List<QuiverSqlParser.PowerContext> terms = ctx.power();
        Expr acc = power(terms.getFirst());
        for (int i = 1; i < terms.size(); i++) {
            Operator op =
                    switch (((TerminalNode) ctx.getChild(2 * i - 1)).getSymbol().getType()) {
                        case QuiverSqlLexer.STAR -> Operator.MULTIPLY;
                        case QuiverSqlLexer.SLASH -> Operator.DIVIDE;
                        default -> Operator.MODULO;
                    };
            acc = new Expr.Binary(acc, op, power(terms.get(i)));
        }
        return acc;
    }

    /** {@code a ^ b}: power(a, b), left to right as PostgreSQL ({@code 2 ^ 3 ^ 2} is 64). */
    private Expr power(QuiverSqlParser.PowerContext ctx) {
        List<QuiverSqlParser.AtTimeZoneContext> terms = ctx.atTimeZone();
        Expr acc = atTimeZone(terms.getFirst());
        for (int i = 1; i < terms.size(); i++) {
            acc = call("power", acc, atTimeZone(terms.get(i)));
        }
        return acc;
    }

    /** {@code t AT TIME ZONE 'zone'}: a cast to a timestamp in that zone, in nanoseconds, as DataFusion. */
    private Expr atTimeZone(QuiverSqlParser.AtTimeZoneContext ctx) {
        List<QuiverSqlParser.UnaryContext> terms = ctx.unary();
        Expr acc = unary(terms.getFirst());
        for (int i = 1; i < terms.size(); i++) {
            Expr zone = unary(terms.get(i));
            if (!(zone instanceof Expr.Literal l) || !(l.value().value() instanceof String z)) {
                throw unsupported("AT TIME ZONE with a zone other than a string literal", terms.get(i));
            }
            acc = new Expr.Cast(acc, new DataType.Timestamp(DataType.TimeUnit.NANOSECOND, z));
        }
        return acc;
    }

    /** Prefix {@code + - ~}, innermost first; a minus right on a number is part of it ({@code -2147483648} is an Int32). */
    private Expr unary(QuiverSqlParser.UnaryContext ctx) {
        QuiverSqlParser.PostfixContext postfix = ctx.postfix();
        int ops = ctx.getChildCount() - 1;
        int innermost = ops - 1;
        Expr e;
        if (ops > 0
                && ((TerminalNode) ctx.getChild(innermost)).getSymbol().getType() == QuiverSqlLexer.MINUS
                && postfix.postfixOperator().isEmpty()
                && postfix.primary() instanceof QuiverSqlParser.LiteralPrimaryContext lit
                && (lit.literal().INTEGER_VALUE() != null || lit.literal().DECIMAL_VALUE() != null)) {
            e = primaries.number(lit.literal(), true);
            innermost--;
        } else {
            e = postfix(postfix);
        }
        for (int i = innermost; i >= 0; i--) {
            e = switch (((TerminalNode) ctx.getChild(i)).getSymbol().getType()) {
                case QuiverSqlLexer.PLUS -> e;
                case QuiverSqlLexer.MINUS -> new Expr.Negative(e);
                default -> call("bitwise_not", e);
            };
        }
        return e;
    }

    /** Casts, subscripts and field access, left to right. */
    private Expr postfix(QuiverSqlParser.PostfixContext ctx) {
        QuiverSqlParser.PrimaryContext primary = ctx.primary();
        Expr e = primaries.primary(primary);
        boolean bareName = primary instanceof QuiverSqlParser.ColumnPrimaryContext;
        boolean bareNull = primary instanceof QuiverSqlParser.LiteralPrimaryContext l
                && l.literal().NULL() != null;
        for (QuiverSqlParser.PostfixOperatorContext op : ctx.postfixOperator()) {
            if (op.dataType() != null) {
                DataType type = type(op.dataType());
                // NULL::TYPE is the typed null, the form ScalarValue.toSql writes for one.
                e = bareNull ? Expr.nullLit(type) : new Expr.Cast(e, type);
            } else if (op.subscript() != null) {
                e = subscript(e, op.subscript(), op);
            } else {
                if (op.LPAREN() != null) {
                    throw unsupported("a qualified function name", ctx);
                }
                String field = Names.identifier(op.identifier());
                // t.x is a qualified column; a.b.c is field c of column a.b (resolved at planning, as DataFusion).
                e = bareName && e instanceof Expr.Column c && c.qualifier() == null
                        ? Expr.col(c.name(), field)
                        : new Expr.Call("get_field", List.of(e, Expr.lit(field)));
                bareName = false;
                bareNull = false;
                continue;
            }
            bareName = false;
            bareNull = false;
        }
        return e;
    }

    /** {@code x[i]}: array_element; {@code x['name']}: get_field; {@code x[a:b[:stride]]}: array_slice (missing ends 1 and -1). */
    private Expr subscript(Expr target, QuiverSqlParser.SubscriptContext s, ParserRuleContext where) {
        if (s.COLON().isEmpty()) {
            if (s.lower == null) {
                throw planning(
                        "syntax error at " + text.where(where.stop.getStartIndex()) + ": expected an index in []");
            }
            Expr index = expression(s.lower);
            if (index instanceof Expr.Literal l && l.value().value() instanceof String) {
                return new Expr.Call("get_field", List.of(target, index));
            }
            return new Expr.Call("array_element", List.of(target, index));
        }
        List<Expr> args = new ArrayList<>();
        args.add(target);
        args.add(s.lower == null ? Expr.lit(1) : expression(s.lower));
        args.add(s.upper == null ? Expr.lit(-1) : expression(s.upper));
        if (s.stride != null) {
            args.add(expression(s.stride));
        }
        return new Expr.Call("array_slice", args);
    }

    DataType type(QuiverSqlParser.DataTypeContext ctx) {
        try {
            return TypeNames.of(ctx);
        } catch (IllegalArgumentException e) {
            throw planning(e.getMessage());
        }
    }

    // ---------------------------------------------------------------- messages

    /** The text as quoted in a message: all of it up to 1,000 characters. */
    String shown() {
        String sql = text.sql();
        return sql.length() <= 1_000 ? sql : sql.substring(0, 1_000) + "…";
    }

    String source(ParserRuleContext ctx) {
        if (ctx.stop == null || ctx.stop.getStopIndex() < ctx.start.getStartIndex()) {
            return ctx.getText();
        }
        String s = text.sql().substring(ctx.start.getStartIndex(), ctx.stop.getStopIndex() + 1);
        return s.length() <= 1_000 ? s : s.substring(0, 1_000) + "…";
    }

    PlanningException unsupported(String what, ParserRuleContext ctx) {
        return planning(
                what + " is not supported in a Quiver expression: " + source(ctx) + " (in \"" + shown() + "\")");
    }

    static PlanningException planning(String message) {
        return new PlanningException(message);
    }

    /** Every child of a rule, for the few places that walk them in order. */
    static List<ParseTree> children(ParserRuleContext ctx) {
        return ctx.children == null ? List.of() : ctx.children;
    }

    static ScalarValue value(Expr e) {
        return e instanceof Expr.Literal l ? l.value() : null;
    }
}
