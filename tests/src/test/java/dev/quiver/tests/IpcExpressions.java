package dev.quiver.tests;

import dev.quiver.expr.Expr;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The expressions {@link IpcFuzzTest} evaluates over a file's batches, chosen by the types of
 * the schema as it was read (a mutation may have changed them): one per column that reads its
 * values (not only its validity: {@code length(s)}, {@code x + 1}, {@code CAST(t AS VARCHAR)},
 * {@code array_contains(l, 3)}, both fields of a struct, a dictionary column's values), and one
 * that reads every column at once.
 */
final class IpcExpressions {
    private IpcExpressions() {}

    /** An expression: its SQL text (for the report), the tree, and the columns (positions in the schema) it reads. */
    record Text(String sql, Expr expr, Set<Integer> columns) {}

    /** Parsed texts: the same few come back case after case, and parsing costs more than planning. */
    private static final Map<String, Expr> PARSED = new ConcurrentHashMap<>();

    /** {@code sql} parsed ({@link Expr#parse}, which throws a PlanningException where a mutated name does not parse). */
    static Expr parse(String sql) {
        if (PARSED.size() > 10_000) {
            PARSED.clear();
        }
        return PARSED.computeIfAbsent(sql, Expr::parse);
    }

    /** One expression text per column of {@code schema}, reading that column's values. */
    static List<String> forSchema(Schema schema, DictionaryProvider dictionaries, Random r) {
        List<String> out = new ArrayList<>();
        for (Field f : schema.getFields()) {
            out.add(forField(f, quote(f.getName()), dictionaries, r));
        }
        return out;
    }

    /**
     * The expression that reads every column of {@code each} at once: the sum of
     * {@code CASE WHEN e IS NULL THEN 0 ELSE 1 END}, built rather than parsed (JSqlParser takes
     * long over nested parentheses); null for fewer than two.
     */
    static Text everyColumn(List<Text> each) {
        if (each.size() < 2) {
            return null;
        }
        Expr all = null;
        Set<Integer> columns = new TreeSet<>();
        for (Text t : each) {
            Expr counted = Expr.when(t.expr().isNull(), Expr.lit(0)).otherwise(Expr.lit(1));
            all = all == null ? counted : all.add(counted);
            columns.addAll(t.columns());
        }
        return new Text(all.toString(), all, columns);
    }

    /** A name as a SQL identifier: double-quoted, quotes doubled. */
    static String quote(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }

    /** An expression over {@code ref}, a value of {@code f}'s type, that reads its values. */
    static String forField(Field f, String ref, DictionaryProvider dictionaries, Random r) {
        if (f.getDictionary() != null) {
            Dictionary d = dictionaries == null
                    ? null
                    : dictionaries.lookup(f.getDictionary().getId());
            // The values' type decides; a dictionary that is not there is the planner's to refuse.
            return d == null ? "length(" + ref + ")" : forType(d.getVector().getField(), ref, dictionaries, r);
        }
        return forType(f, ref, dictionaries, r);
    }

    private static String forType(Field f, String ref, DictionaryProvider dictionaries, Random r) {
        return switch (f.getType()) {
            case ArrowType.Int _ -> pick(r, "(" + ref + " + 1)", "CAST(" + ref + " AS VARCHAR)", "(" + ref + " > 0)");
            case ArrowType.FloatingPoint _ ->
                pick(r, "(" + ref + " * 2)", "CAST(" + ref + " AS VARCHAR)", "(" + ref + " < 0.5)");
            case ArrowType.Decimal _ ->
                pick(r, "(" + ref + " + " + ref + ")", "CAST(" + ref + " AS VARCHAR)", "CAST(" + ref + " AS DOUBLE)");
            case ArrowType.Bool _ -> pick(r, "(NOT " + ref + ")", "CAST(" + ref + " AS VARCHAR)");
            case ArrowType.Utf8 _ -> string(ref, r);
            case ArrowType.LargeUtf8 _ -> string(ref, r);
            case ArrowType.Binary _ -> pick(r, "CAST(" + ref + " AS VARCHAR)", "(" + ref + " = " + ref + ")");
            case ArrowType.Date _ ->
                pick(r, "CAST(" + ref + " AS VARCHAR)", "(" + ref + " + 1)", "(" + ref + " < DATE '2000-01-01')");
            case ArrowType.Timestamp _ ->
                pick(r, "CAST(" + ref + " AS VARCHAR)", "(" + ref + " < TIMESTAMP '2000-01-01 00:00:00')");
            case ArrowType.List _ -> {
                Field item = f.getChildren().isEmpty() ? null : f.getChildren().getFirst();
                if (item != null && item.getType() instanceof ArrowType.Int) {
                    yield pick(r, "array_contains(" + ref + ", 3)", "array_element(" + ref + ", 2)");
                }
                yield item == null
                        ? "array_length(" + ref + ")"
                        : forType(item, "array_element(" + ref + ", " + (1 + r.nextInt(3)) + ")", dictionaries, r);
            }
            case ArrowType.Struct _ -> {
                List<String> parts = new ArrayList<>();
                for (Field child : f.getChildren()) {
                    parts.add("CASE WHEN ("
                            + forType(child, ref + "['" + child.getName().replace("'", "''") + "']", dictionaries, r)
                            + ") IS NULL THEN 0 ELSE 1 END");
                }
                yield parts.isEmpty() ? "(" + ref + " IS NULL)" : "(" + String.join(" + ", parts) + ")";
            }
            default -> "(" + ref + " IS NULL)";
        };
    }

    private static String string(String ref, Random r) {
        return pick(
                r,
                "length(" + ref + ")",
                "upper(" + ref + ")",
                "(" + ref + " LIKE '%a%')",
                "octet_length(" + ref + ")",
                "concat(" + ref + ", 'x')");
    }

    private static String pick(Random r, String... options) {
        return options[r.nextInt(options.length)];
    }
}
