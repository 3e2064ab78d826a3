package dev.quiver.expr;

import dev.quiver.types.DataType;
import dev.quiver.value.ScalarValue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A logical scalar expression: what to compute, by column name, before it is planned against
 * a schema. Immutable, with structural equality and hashing; {@link #toString()} is SQL text
 * that {@link #parse} reads back to an equal expression (the few exceptions are listed in
 * {@code dev.quiver.sql.SqlParser}). {@code equals}, {@code hashCode} and {@code toString} walk the tree with a
 * stack of their own, so a tree of any depth (a 100,000-term sum built in a loop) compares and
 * prints; how deep a tree the planner takes is a limit of its own (docs/expressions.md#limits).
 *
 * <pre>{@code
 * import static dev.quiver.expr.Expr.*;
 *
 * Expr r = col("x").mul(lit(2)).gt(col("y")).and(col("name").like(lit("a%")));
 * Expr h = call("hypot", col("x"), col("y"));
 * Expr same = Expr.parse("x * 2 > y AND name LIKE 'a%'");
 * }</pre>
 */
public sealed interface Expr
        permits Expr.Column,
                Expr.Literal,
                Expr.Binary,
                Expr.Not,
                Expr.IsNull,
                Expr.Negative,
                Expr.Cast,
                Expr.TryCast,
                Expr.Case,
                Expr.InList,
                Expr.Between,
                Expr.Like,
                Expr.Call,
                Expr.Alias,
                Expr.ScalarSubquery {

    // ---------------------------------------------------------------- nodes

    /**
     * A column by name, optionally qualified ({@code t.x}). A qualified column resolves to the
     * field named {@code "t.x"} when the schema has one, else to the field named {@code "x"}.
     */
    record Column(String qualifier, String name) implements Expr {
        public Column {
            Objects.requireNonNull(name, "name is null");
        }

        /** The name as written: {@code x} or {@code t.x}. */
        public String flatName() {
            return qualifier == null ? name : qualifier + "." + name;
        }

        @Override
        public String toString() {
            return ExprText.sql(this);
        }

        @Override
        public boolean equals(Object o) {
            return ExprStructure.equal(this, o);
        }

        @Override
        public int hashCode() {
            return ExprStructure.hash(this);
        }
    }

    /** A typed literal; a typed NULL is a literal whose value is null. */
    record Literal(ScalarValue value) implements Expr {
        public Literal {
            Objects.requireNonNull(value, "value is null");
        }

        @Override
        public String toString() {
            return ExprText.sql(this);
        }

        @Override
        public boolean equals(Object o) {
            return ExprStructure.equal(this, o);
        }

        @Override
        public int hashCode() {
            return ExprStructure.hash(this);
        }
    }

    /** {@code left op right} for arithmetic, comparison and AND/OR. */
    record Binary(Expr left, Operator op, Expr right) implements Expr {
        public Binary {
            Objects.requireNonNull(left, "left is null");
            Objects.requireNonNull(op, "op is null");
            Objects.requireNonNull(right, "right is null");
        }

        @Override
        public String toString() {
            return ExprText.sql(this);
        }

        @Override
        public boolean equals(Object o) {
            return ExprStructure.equal(this, o);
        }

        @Override
        public int hashCode() {
            return ExprStructure.hash(this);
        }
    }

    record Not(Expr expr) implements Expr {
        public Not {
            Objects.requireNonNull(expr, "expr is null");
        }

        @Override
        public String toString() {
            return ExprText.sql(this);
        }

        @Override
        public boolean equals(Object o) {
            return ExprStructure.equal(this, o);
        }

        @Override
        public int hashCode() {
            return ExprStructure.hash(this);
        }
    }

    /** {@code expr IS NULL}, or {@code expr IS NOT NULL} when {@code negated}. */
    record IsNull(Expr expr, boolean negated) implements Expr {
        public IsNull {
            Objects.requireNonNull(expr, "expr is null");
        }

        @Override
        public String toString() {
            return ExprText.sql(this);
        }

        @Override
        public boolean equals(Object o) {
            return ExprStructure.equal(this, o);
        }

        @Override
        public int hashCode() {
            return ExprStructure.hash(this);
        }
    }

    /** Arithmetic negation, {@code -expr}. */
    record Negative(Expr expr) implements Expr {
        public Negative {
            Objects.requireNonNull(expr, "expr is null");
        }

        @Override
        public String toString() {
            return ExprText.sql(this);
        }

        @Override
        public boolean equals(Object o) {
            return ExprStructure.equal(this, o);
        }

        @Override
        public int hashCode() {
            return ExprStructure.hash(this);
        }
    }

    /** {@code CAST(expr AS type)}: fails on a value that does not convert. */
    record Cast(Expr expr, DataType type) implements Expr {
        public Cast {
            Objects.requireNonNull(expr, "expr is null");
            Objects.requireNonNull(type, "type is null");
        }

        @Override
        public String toString() {
            return ExprText.sql(this);
        }

        @Override
        public boolean equals(Object o) {
            return ExprStructure.equal(this, o);
        }

        @Override
        public int hashCode() {
            return ExprStructure.hash(this);
        }
    }

    /** {@code TRY_CAST(expr AS type)}: a value that does not convert becomes NULL. */
    record TryCast(Expr expr, DataType type) implements Expr {
        public TryCast {
            Objects.requireNonNull(expr, "expr is null");
            Objects.requireNonNull(type, "type is null");
        }

        @Override
        public String toString() {
            return ExprText.sql(this);
        }

        @Override
        public boolean equals(Object o) {
            return ExprStructure.equal(this, o);
        }

        @Override
        public int hashCode() {
            return ExprStructure.hash(this);
        }
    }

    /** One {@code WHEN when THEN then} of a {@link Case}. */
    record WhenThen(Expr when, Expr then) {
        public WhenThen {
            Objects.requireNonNull(when, "when is null");
            Objects.requireNonNull(then, "then is null");
        }
    }

    /**
     * {@code CASE [operand] WHEN .. THEN .. [ELSE ..] END}. With an operand, each WHEN is a
     * value compared to it with {@code =}; without, each WHEN is a condition. A missing ELSE
     * gives NULL.
     *
     * @param operand  null for the searched form
     * @param branches at least one
     * @param otherwise the ELSE value, or null
     */
    record Case(Expr operand, List<WhenThen> branches, Expr otherwise) implements Expr {
        public Case {
            branches = List.copyOf(branches);
            if (branches.isEmpty()) {
                throw new IllegalArgumentException("CASE needs at least one WHEN");
            }
        }

        @Override
        public String toString() {
            return ExprText.sql(this);
        }

        @Override
        public boolean equals(Object o) {
            return ExprStructure.equal(this, o);
        }

        @Override
        public int hashCode() {
            return ExprStructure.hash(this);
        }
    }

    /** {@code expr [NOT] IN (list...)}. */
    record InList(Expr expr, List<Expr> list, boolean negated) implements Expr {
        public InList {
            Objects.requireNonNull(expr, "expr is null");
            list = List.copyOf(list);
            if (list.isEmpty()) {
                throw new IllegalArgumentException("IN needs at least one value");
            }
        }

        @Override
        public String toString() {
            return ExprText.sql(this);
        }

        @Override
        public boolean equals(Object o) {
            return ExprStructure.equal(this, o);
        }

        @Override
        public int hashCode() {
            return ExprStructure.hash(this);
        }
    }

    /** {@code expr [NOT] BETWEEN low AND high}, both ends included. */
    record Between(Expr expr, Expr low, Expr high, boolean negated) implements Expr {
        public Between {
            Objects.requireNonNull(expr, "expr is null");
            Objects.requireNonNull(low, "low is null");
            Objects.requireNonNull(high, "high is null");
        }

        @Override
        public String toString() {
            return ExprText.sql(this);
        }

        @Override
        public boolean equals(Object o) {
            return ExprStructure.equal(this, o);
        }

        @Override
        public int hashCode() {
            return ExprStructure.hash(this);
        }
    }

    /**
     * {@code expr [NOT] LIKE|ILIKE pattern [ESCAPE 'c']}: {@code %} matches any run of
     * characters, {@code _} one character; ILIKE ignores case.
     *
     * @param escape the escape character, or null for none
     */
    record Like(Expr expr, Expr pattern, Character escape, boolean negated, boolean caseInsensitive) implements Expr {
        public Like {
            Objects.requireNonNull(expr, "expr is null");
            Objects.requireNonNull(pattern, "pattern is null");
        }

        @Override
        public String toString() {
            return ExprText.sql(this);
        }

        @Override
        public boolean equals(Object o) {
            return ExprStructure.equal(this, o);
        }

        @Override
        public int hashCode() {
            return ExprStructure.hash(this);
        }
    }

    /**
     * A call of a function in the registry, by name (case-insensitive).
     *
     * @param argNames for each argument, its parameter name when passed by name, else null;
     *                 named arguments follow the positional ones
     */
    record Call(String function, List<Expr> args, List<String> argNames) implements Expr {
        public Call {
            Objects.requireNonNull(function, "function is null");
            args = List.copyOf(args);
            argNames = argNames == null
                    ? Collections.nCopies(args.size(), null)
                    : Collections.unmodifiableList(new ArrayList<>(argNames));
            if (argNames.size() != args.size()) {
                throw new IllegalArgumentException("argNames must have one entry per argument");
            }
            boolean named = false;
            for (String n : argNames) {
                if (n != null) {
                    named = true;
                } else if (named) {
                    throw new IllegalArgumentException(
                            "in " + function + "(...), a positional argument follows a named one");
                }
            }
        }

        public Call(String function, List<Expr> args) {
            this(function, args, null);
        }

        public boolean hasNamedArgs() {
            return argNames.stream().anyMatch(Objects::nonNull);
        }

        @Override
        public String toString() {
            return ExprText.sql(this);
        }

        @Override
        public boolean equals(Object o) {
            return ExprStructure.equal(this, o);
        }

        @Override
        public int hashCode() {
            return ExprStructure.hash(this);
        }
    }

    /**
     * {@code expr AS name}: names the result. Only meaningful at the top of an expression, and only
     * there does the text read back ({@code SqlParser} reads {@code AS} after the whole expression).
     */
    record Alias(Expr expr, String name) implements Expr {
        public Alias {
            Objects.requireNonNull(expr, "expr is null");
            Objects.requireNonNull(name, "name is null");
        }

        @Override
        public String toString() {
            return ExprText.sql(this);
        }

        @Override
        public boolean equals(Object o) {
            return ExprStructure.equal(this, o);
        }

        @Override
        public int hashCode() {
            return ExprStructure.hash(this);
        }
    }

    /**
     * {@code (SELECT select FROM table [WHERE where] [LIMIT limit])}: an uncorrelated scalar subquery over a
     * table of the query, computed once per query. SQL's rules: no row is a NULL of the select's type, one row
     * is its value, more rows are an error. It runs in a pipeline (dev.quiver.stream), which resolves the table; the
     * single-batch planner rejects it.
     *
     * <p>{@code select} and {@code where} are over the columns of {@code table}, not of the expression the
     * subquery is part of: they are not its {@link #children()}.
     *
     * @param select the one value selected, over the table's columns
     * @param table  the table's name, as written; a schema-qualified name is {@code schema.table}
     * @param where  the rows' filter, or null for all rows
     * @param limit  at most this many rows (at least 0), or null for no limit
     */
    record ScalarSubquery(Expr select, String table, Expr where, Long limit) implements Expr {
        public ScalarSubquery {
            Objects.requireNonNull(select, "select is null");
            Objects.requireNonNull(table, "table is null");
            if (limit != null && limit < 0) {
                throw new IllegalArgumentException("the LIMIT of a subquery must be at least 0, got " + limit);
            }
        }

        @Override
        public String toString() {
            return ExprText.sql(this);
        }

        @Override
        public boolean equals(Object o) {
            return ExprStructure.equal(this, o);
        }

        @Override
        public int hashCode() {
            return ExprStructure.hash(this);
        }
    }

    // ---------------------------------------------------------------- builders

    /** A column by name, exactly as given (no splitting at dots). */
    static Column col(String name) {
        return new Column(null, name);
    }

    /** A qualified column {@code qualifier.name}. */
    static Column col(String qualifier, String name) {
        return new Column(qualifier, name);
    }

    /**
     * A literal of the value's natural type (see {@link ScalarValue#of}): {@code lit(2)} is an
     * Int32, {@code lit(2L)} an Int64, {@code lit(2.5)} a Float64, {@code lit("a")} a Utf8.
     */
    static Literal lit(Object value) {
        return new Literal(value instanceof ScalarValue s ? s : ScalarValue.of(value));
    }

    /** A literal of an explicit type, {@code value} as {@link ScalarValue} describes; null for a typed NULL. */
    static Literal lit(Object value, DataType type) {
        return new Literal(new ScalarValue(type, value));
    }

    /** A typed NULL. */
    static Literal nullLit(DataType type) {
        return new Literal(ScalarValue.nullOf(type));
    }

    /** The untyped NULL (type Null), as SQL's bare {@code NULL}. */
    static Literal nullLit() {
        return new Literal(ScalarValue.nullOf(DataType.NULL));
    }

    static Call call(String function, Expr... args) {
        return new Call(function, List.of(args));
    }

    static Call call(String function, List<Expr> args) {
        return new Call(function, args);
    }

    /** A call with named arguments: {@code callNamed("f", List.of("x", "y"), a, b)} is {@code f(x => a, y => b)}. */
    static Call callNamed(String function, List<String> names, Expr... args) {
        return new Call(function, List.of(args), names);
    }

    /** {@code (SELECT select FROM table [WHERE where])}, without LIMIT; {@code where} may be null. */
    static ScalarSubquery scalarSubquery(Expr select, String table, Expr where) {
        return new ScalarSubquery(select, table, where, null);
    }

    /** Starts a searched CASE: {@code when(c1, v1).when(c2, v2).otherwise(v3)} or {@code .end()}. */
    static CaseBuilder when(Expr condition, Expr then) {
        return new CaseBuilder(null).when(condition, then);
    }

    /** Starts a CASE with an operand: {@code caseOf(x).when(lit(1), a).end()}. */
    static CaseBuilder caseOf(Expr operand) {
        return new CaseBuilder(Objects.requireNonNull(operand, "operand is null"));
    }

    /** Parses SQL expression text with the {@link ExprSyntax#installed() installed syntax}: Quiver's {@code SqlParser}. */
    static Expr parse(String sql) {
        return ExprSyntax.installed().parse(sql);
    }

    final class CaseBuilder {
        private final Expr operand;
        private final List<WhenThen> branches = new ArrayList<>();

        private CaseBuilder(Expr operand) {
            this.operand = operand;
        }

        public CaseBuilder when(Expr when, Expr then) {
            branches.add(new WhenThen(when, then));
            return this;
        }

        public Case otherwise(Expr otherwise) {
            return new Case(operand, branches, Objects.requireNonNull(otherwise, "otherwise is null"));
        }

        /** The CASE without ELSE (NULL where no branch matches). */
        public Case end() {
            return new Case(operand, branches, null);
        }
    }

    // ---------------------------------------------------------------- fluent operators

    default Expr add(Expr o) {
        return new Binary(this, Operator.PLUS, o);
    }

    default Expr sub(Expr o) {
        return new Binary(this, Operator.MINUS, o);
    }

    default Expr mul(Expr o) {
        return new Binary(this, Operator.MULTIPLY, o);
    }

    default Expr div(Expr o) {
        return new Binary(this, Operator.DIVIDE, o);
    }

    default Expr mod(Expr o) {
        return new Binary(this, Operator.MODULO, o);
    }

    default Expr eq(Expr o) {
        return new Binary(this, Operator.EQ, o);
    }

    default Expr notEq(Expr o) {
        return new Binary(this, Operator.NOT_EQ, o);
    }

    default Expr lt(Expr o) {
        return new Binary(this, Operator.LT, o);
    }

    default Expr ltEq(Expr o) {
        return new Binary(this, Operator.LT_EQ, o);
    }

    default Expr gt(Expr o) {
        return new Binary(this, Operator.GT, o);
    }

    default Expr gtEq(Expr o) {
        return new Binary(this, Operator.GT_EQ, o);
    }

    default Expr isDistinctFrom(Expr o) {
        return new Binary(this, Operator.IS_DISTINCT_FROM, o);
    }

    default Expr isNotDistinctFrom(Expr o) {
        return new Binary(this, Operator.IS_NOT_DISTINCT_FROM, o);
    }

    default Expr and(Expr o) {
        return new Binary(this, Operator.AND, o);
    }

    default Expr or(Expr o) {
        return new Binary(this, Operator.OR, o);
    }

    default Expr not() {
        return new Not(this);
    }

    default Expr isNull() {
        return new IsNull(this, false);
    }

    default Expr isNotNull() {
        return new IsNull(this, true);
    }

    default Expr neg() {
        return new Negative(this);
    }

    default Expr cast(DataType type) {
        return new Cast(this, type);
    }

    default Expr tryCast(DataType type) {
        return new TryCast(this, type);
    }

    default Expr in(Expr... values) {
        return new InList(this, Arrays.asList(values), false);
    }

    default Expr notIn(Expr... values) {
        return new InList(this, Arrays.asList(values), true);
    }

    default Expr between(Expr low, Expr high) {
        return new Between(this, low, high, false);
    }

    default Expr notBetween(Expr low, Expr high) {
        return new Between(this, low, high, true);
    }

    default Expr like(Expr pattern) {
        return new Like(this, pattern, null, false, false);
    }

    default Expr notLike(Expr pattern) {
        return new Like(this, pattern, null, true, false);
    }

    default Expr ilike(Expr pattern) {
        return new Like(this, pattern, null, false, true);
    }

    default Expr notIlike(Expr pattern) {
        return new Like(this, pattern, null, true, true);
    }

    default Expr alias(String name) {
        return new Alias(this, name);
    }

    /**
     * The direct children, in order: the subexpressions over the same columns as this one. A
     * {@link ScalarSubquery} has none: its select and where are over the columns of its own table, not
     * of the expression around it, so a walk that collects an expression's columns must not see them
     * (it is a leaf here, like a {@link Literal}, whose value a pipeline computes once per query).
     */
    default List<Expr> children() {
        return switch (this) {
            case Column _ -> List.of();
            case Literal _ -> List.of();
            case Binary b -> List.of(b.left(), b.right());
            case Not n -> List.of(n.expr());
            case IsNull n -> List.of(n.expr());
            case Negative n -> List.of(n.expr());
            case Cast c -> List.of(c.expr());
            case TryCast c -> List.of(c.expr());
            case Case c -> {
                List<Expr> out = new ArrayList<>();
                if (c.operand() != null) {
                    out.add(c.operand());
                }
                for (WhenThen b : c.branches()) {
                    out.add(b.when());
                    out.add(b.then());
                }
                if (c.otherwise() != null) {
                    out.add(c.otherwise());
                }
                yield out;
            }
            case InList i -> {
                List<Expr> out = new ArrayList<>();
                out.add(i.expr());
                out.addAll(i.list());
                yield out;
            }
            case Between b -> List.of(b.expr(), b.low(), b.high());
            case Like l -> List.of(l.expr(), l.pattern());
            case Call c -> c.args();
            case Alias a -> List.of(a.expr());
            case ScalarSubquery _ -> List.of();
        };
    }

    /** {@code name} as a SQL identifier: bare when it is a plain lower-case word, else double-quoted. */
    static String quoteIdentifier(String name) {
        if (ExprText.isPlainWord(name) && !ExprSyntax.installed().isReserved(name)) {
            return name;
        }
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }
}
