package dev.quiver.planning;

import dev.quiver.expr.Expr;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Plans a logical {@link Expr} against a schema, once per query: resolves column names to
 * argument positions, checks types, promotes mixed numeric operands and produces the
 * {@link KernelProgram} every backend runs. Errors are {@link IllegalArgumentException}s that
 * name the column or function and list what exists.
 */
public final class ExpressionPlanner {
    /** Functions known to this version, by name, with their arity. */
    public static final Map<String, Integer> FUNCTIONS = Map.of(
            "add", 2, "sub", 2, "mul", 2, "div", 2, "neg", 1,
            "sqrt", 1, "abs", 1, "min", 2, "max", 2, "fma", 3);

    private ExpressionPlanner() {
    }

    /**
     * A planned expression.
     *
     * @param program the kernel program
     * @param columns for each program argument, the schema field it reads
     */
    public record Plan(KernelProgram program, List<Field> columns) {
        public Plan {
            Objects.requireNonNull(program, "program is null");
            columns = List.copyOf(columns);
        }
    }

    public static Plan plan(Schema schema, Expr expr) {
        Objects.requireNonNull(schema, "schema is null");
        Objects.requireNonNull(expr, "expr is null");
        Map<String, Integer> argIndex = new LinkedHashMap<>();
        List<Field> columns = new ArrayList<>();
        List<ElementType> types = new ArrayList<>();
        IrNode root = lower(expr, schema, argIndex, columns, types);
        String text = expr.toString();
        return new Plan(new KernelProgram(types, root, text), columns);
    }

    private static IrNode lower(Expr e, Schema schema, Map<String, Integer> argIndex, List<Field> columns, List<ElementType> types) {
        return switch (e) {
            case Expr.Literal l -> Ir.lit(l.value());
            case Expr.Column c -> {
                Integer idx = argIndex.get(c.name());
                if (idx == null) {
                    Field f = find(schema, c.name());
                    if (f.getDictionary() != null) {
                        // Its Arrow type is the index type: computing on it would silently use the indices.
                        throw new IllegalArgumentException("column '" + f.getName() + "' is dictionary-encoded (indices "
                                + f.getType() + "), which this version does not decode: decode it first");
                    }
                    ElementType t = ElementType.fromArrow(f.getType()).orElseThrow(() -> new IllegalArgumentException(
                            "column '" + f.getName() + "' has type " + f.getType() + ", which arithmetic does not support"
                                    + " (supported: Int32, Int64, Float32, Float64)"));
                    idx = columns.size();
                    argIndex.put(c.name(), idx);
                    columns.add(f);
                    types.add(t);
                }
                yield Ir.arg(idx, types.get(idx));
            }
            case Expr.Call call -> {
                Integer arity = FUNCTIONS.get(call.function());
                if (arity == null) {
                    throw new IllegalArgumentException("unknown function '" + call.function() + "' (known: "
                            + FUNCTIONS.keySet().stream().sorted().collect(Collectors.joining(", ")) + ")");
                }
                if (call.args().size() != arity) {
                    throw new IllegalArgumentException("function '" + call.function() + "' takes " + arity
                            + " argument(s), got " + call.args().size() + " in " + call);
                }
                List<IrNode> a = new ArrayList<>();
                for (Expr arg : call.args()) {
                    a.add(lower(arg, schema, argIndex, columns, types));
                }
                yield switch (call.function()) {
                    case "add" -> Ir.add(a.get(0), a.get(1));
                    case "sub" -> Ir.sub(a.get(0), a.get(1));
                    case "mul" -> Ir.mul(a.get(0), a.get(1));
                    case "div" -> Ir.div(a.get(0), a.get(1));
                    case "neg" -> Ir.neg(a.get(0));
                    case "sqrt" -> Ir.sqrt(a.get(0));
                    case "abs" -> Ir.abs(a.get(0));
                    case "min" -> Ir.min(a.get(0), a.get(1));
                    case "max" -> Ir.max(a.get(0), a.get(1));
                    case "fma" -> Ir.fma(a.get(0), a.get(1), a.get(2));
                    default -> throw new IllegalStateException("unplanned function " + call.function());
                };
            }
        };
    }

    private static Field find(Schema schema, String name) {
        Optional<Field> exact = schema.getFields().stream().filter(f -> f.getName().equals(name)).findFirst();
        return exact.orElseThrow(() -> new IllegalArgumentException("no column '" + name + "' in the schema (columns: "
                + schema.getFields().stream().map(Field::getName).collect(Collectors.joining(", ")) + ")"));
    }
}
