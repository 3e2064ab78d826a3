package dev.quiver.expr;

import java.util.List;
import java.util.Objects;

/**
 * A logical scalar expression: what to compute, by column name, before it is planned against
 * a schema. Immutable, with structural equality.
 *
 * <pre>{@code
 * Expr r = Expr.call("sqrt", Expr.col("x").mul(Expr.col("x")).add(Expr.col("y").mul(Expr.col("y"))));
 * Expr same = Expr.parse("sqrt(x*x + y*y)");
 * }</pre>
 *
 * <p>Functions known in this version: {@code sqrt, abs, min, max, fma}, and the operators
 * {@code + - * /} and unary minus.
 */
public sealed interface Expr permits Expr.Column, Expr.Literal, Expr.Call {

    /** A column of the input batch, by name. */
    record Column(String name) implements Expr {
        public Column {
            Objects.requireNonNull(name, "name is null");
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** A literal: an Integer (Int32), Long (Int64), Float (Float32) or Double (Float64). */
    record Literal(Number value) implements Expr {
        public Literal {
            Objects.requireNonNull(value, "value is null");
            if (!(value instanceof Integer || value instanceof Long || value instanceof Float || value instanceof Double)) {
                throw new IllegalArgumentException("unsupported literal type " + value.getClass().getName());
            }
        }

        /** Spelled so that {@link ExprParser} reads back the same type: {@code 2}, {@code 2L}, {@code 2.5f}, {@code 2.5}. */
        @Override
        public String toString() {
            return switch (value) {
                case Long l -> l + "L";
                case Float f -> f + "f";
                default -> value.toString();
            };
        }
    }

    /**
     * A function call or operator; operators are the functions {@code add, sub, mul, div, neg}.
     */
    record Call(String function, List<Expr> args) implements Expr {
        public Call {
            Objects.requireNonNull(function, "function is null");
            args = List.copyOf(args);
        }

        @Override
        public String toString() {
            String op = switch (function) {
                case "add" -> "+";
                case "sub" -> "-";
                case "mul" -> "*";
                case "div" -> "/";
                default -> null;
            };
            if (op != null && args.size() == 2) {
                return "(" + args.get(0) + " " + op + " " + args.get(1) + ")";
            }
            if (function.equals("neg") && args.size() == 1) {
                return "-" + args.get(0);
            }
            StringBuilder sb = new StringBuilder(function).append('(');
            for (int i = 0; i < args.size(); i++) {
                sb.append(i == 0 ? "" : ", ").append(args.get(i));
            }
            return sb.append(')').toString();
        }
    }

    static Expr col(String name) {
        return new Column(name);
    }

    static Expr lit(Number value) {
        return new Literal(value);
    }

    static Expr call(String function, Expr... args) {
        return new Call(function, List.of(args));
    }

    /** Parses arithmetic text such as {@code sqrt(x*x + y*y)}; see {@link ExprParser}. */
    static Expr parse(String text) {
        return ExprParser.parse(text);
    }

    default Expr add(Expr other) {
        return call("add", this, other);
    }

    default Expr sub(Expr other) {
        return call("sub", this, other);
    }

    default Expr mul(Expr other) {
        return call("mul", this, other);
    }

    default Expr div(Expr other) {
        return call("div", this, other);
    }

    default Expr neg() {
        return call("neg", this);
    }
}
