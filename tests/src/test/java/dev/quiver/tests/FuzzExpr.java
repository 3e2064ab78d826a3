package dev.quiver.tests;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * A random, well-typed SQL expression tree for {@link ExpressionFuzzTest}: each node is a
 * template whose {@code ?} placeholders are its children, so it renders as SQL, as a shape (the
 * tree with literals replaced by their types) and can be shrunk by replacing a node with a child
 * or a literal.
 *
 * @param template SQL text with one {@link #HOLE} per child
 * @param type     the node's SQL type
 * @param kids     the children, in placeholder order
 * @param literal  whether the node is a literal (its shape is its type)
 * @param duckDb   whether this node's own semantics agree with DuckDB's (docs/expressions.md
 *                 "Where Quiver differs from DuckDB"): the whole tree goes to DuckDB only if every node does
 * @param inexact  the transcendental function this node calls ({@link MathLibraryTest#BOUNDS}), or null when exact
 */
record FuzzExpr(
        String template, FuzzExpr.Type type, List<FuzzExpr> kids, boolean literal, boolean duckDb, String inexact) {
    static final char HOLE = '\u0001';

    /** The generator's types and their SQL names. */
    enum Type {
        I32("INTEGER"),
        I64("BIGINT"),
        F64("DOUBLE"),
        F32("REAL"),
        BOOL("BOOLEAN"),
        STR("VARCHAR");

        final String sql;

        Type(String sql) {
            this.sql = sql;
        }

        boolean numeric() {
            return this != BOOL && this != STR;
        }

        boolean integer() {
            return this == I32 || this == I64;
        }
    }

    FuzzExpr {
        kids = List.copyOf(kids);
    }

    static FuzzExpr leaf(String sql, Type type, boolean literal) {
        return new FuzzExpr(sql, type, List.of(), literal, true, null);
    }

    String sql() {
        StringBuilder sb = new StringBuilder();
        render(sb, false);
        return sb.toString();
    }

    /** The tree with every literal written as its type: how many different trees the fuzzer tried. */
    String shape() {
        StringBuilder sb = new StringBuilder();
        render(sb, true);
        return sb.toString();
    }

    /**
     * The SQL with every {@code AND} and {@code OR} written so that its right operand is evaluated
     * only on the rows its left operand leaves undecided, as Quiver evaluates them
     * (docs/evaluation.md): {@code (CASE WHEN a IS FALSE THEN FALSE ELSE (a AND b) END)}, and
     * {@code IS TRUE ... TRUE} for OR. DuckDB evaluates both operands of AND and OR on every row
     * (so an error in a row the left operand decides is raised there) but a CASE branch only on
     * its rows: this is the SQL on which DuckDB must agree with Quiver row for row.
     */
    String lazyLogicSql() {
        StringBuilder sb = new StringBuilder();
        renderLazy(sb);
        return sb.toString();
    }

    /** Whether the tree has an AND or OR node. */
    boolean hasLogic() {
        return logicOp() != null || kids.stream().anyMatch(FuzzExpr::hasLogic);
    }

    private String logicOp() {
        String and = "(" + HOLE + " AND " + HOLE + ")", or = "(" + HOLE + " OR " + HOLE + ")";
        return template.equals(and) ? "AND" : template.equals(or) ? "OR" : null;
    }

    private void renderLazy(StringBuilder sb) {
        String op = logicOp();
        if (op != null) {
            StringBuilder a = new StringBuilder(), b = new StringBuilder();
            kids.get(0).renderLazy(a);
            kids.get(1).renderLazy(b);
            String decided = op.equals("AND") ? "FALSE" : "TRUE";
            sb.append("(CASE WHEN (")
                    .append(a)
                    .append(") IS ")
                    .append(decided)
                    .append(" THEN ")
                    .append(decided)
                    .append(" ELSE ((")
                    .append(a)
                    .append(") ")
                    .append(op)
                    .append(" (")
                    .append(b)
                    .append(")) END)");
            return;
        }
        int k = 0;
        for (int i = 0; i < template.length(); i++) {
            char c = template.charAt(i);
            if (c == HOLE) {
                kids.get(k++).renderLazy(sb);
            } else {
                sb.append(c);
            }
        }
    }

    private void render(StringBuilder sb, boolean shape) {
        if (literal && shape) {
            sb.append('<').append(type.sql).append('>');
            return;
        }
        int k = 0;
        for (int i = 0; i < template.length(); i++) {
            char c = template.charAt(i);
            if (c == HOLE) {
                kids.get(k++).render(sb, shape);
            } else {
                sb.append(c);
            }
        }
    }

    boolean duckDbAgrees() {
        if (!duckDb) {
            return false;
        }
        for (FuzzExpr k : kids) {
            if (!k.duckDbAgrees()) {
                return false;
            }
        }
        return true;
    }

    /** The transcendental functions anywhere in the tree. */
    Set<String> inexactFunctions() {
        Set<String> out = new TreeSet<>();
        forEach(n -> {
            if (n.inexact != null) {
                out.add(n.inexact);
            }
        });
        return out;
    }

    /**
     * Whether devices may differ only in ulps of the result: the one transcendental call is the
     * root, over exact arguments. Any other inexact tree can turn an ulp into a different
     * comparison, NULL or error, so it is compared on the CPU placements only.
     */
    boolean inexactOnlyAtRoot() {
        if (inexact == null) {
            return false;
        }
        for (FuzzExpr k : kids) {
            if (!k.inexactFunctions().isEmpty()) {
                return false;
            }
        }
        return true;
    }

    void forEach(Consumer<FuzzExpr> action) {
        action.accept(this);
        for (FuzzExpr k : kids) {
            k.forEach(action);
        }
    }

    int size() {
        int n = 1;
        for (FuzzExpr k : kids) {
            n += k.size();
        }
        return n;
    }

    /** Every tree that is this one with a single node replaced by one of its children or by a literal, smallest first. */
    List<FuzzExpr> shrinkCandidates(Random random) {
        List<FuzzExpr> out = new ArrayList<>();
        for (FuzzExpr k : kids) {
            out.add(k);
        }
        if (!literal) {
            out.add(FuzzGenerator.literal(type, random, true));
            out.add(leaf("CAST(NULL AS " + type.sql + ")", type, true));
        }
        for (int i = 0; i < kids.size(); i++) {
            for (FuzzExpr smaller : kids.get(i).shrinkCandidates(random)) {
                List<FuzzExpr> copy = new ArrayList<>(kids);
                copy.set(i, smaller);
                out.add(new FuzzExpr(template, type, copy, literal, duckDb, inexact));
            }
        }
        return out;
    }
}
