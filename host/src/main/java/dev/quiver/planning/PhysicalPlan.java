package dev.quiver.planning;

import dev.quiver.expr.Expr;
import dev.quiver.physical.ColumnExpr;
import dev.quiver.physical.FusedKernelExpr;
import dev.quiver.physical.PhysicalExpr;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.DataType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * A planned expression.
 *
 * @param logical       the expression as written
 * @param root          the physical tree as it will run
 * @param columns       the schema fields the tree reads; input position i is {@code columns.get(i)}
 * @param schemaIndexes for each input position, the field's index in the schema planned against
 * @param outputName    the result's name: the alias, or the expression's text
 */
public record PhysicalPlan(
        Expr logical, PhysicalExpr root, List<Field> columns, List<Integer> schemaIndexes, String outputName) {
    public PhysicalPlan {
        Objects.requireNonNull(logical, "logical is null");
        Objects.requireNonNull(root, "root is null");
        columns = List.copyOf(columns);
        schemaIndexes = List.copyOf(schemaIndexes);
    }

    public DataType outputType() {
        return root.dataType();
    }

    /** The fused kernel programs of the tree, outermost first. */
    public List<KernelProgram> programs() {
        List<KernelProgram> out = new ArrayList<>();
        for (PhysicalExpr e : preOrder(root)) {
            if (e instanceof FusedKernelExpr f) {
                out.add(f.program());
            }
        }
        return out;
    }

    /** Every node of the tree, each before its children (left to right), walked with a stack of its own. */
    public static List<PhysicalExpr> preOrder(PhysicalExpr root) {
        List<PhysicalExpr> out = new ArrayList<>();
        Deque<PhysicalExpr> todo = new ArrayDeque<>();
        todo.push(root);
        while (!todo.isEmpty()) {
            PhysicalExpr e = todo.pop();
            out.add(e);
            List<PhysicalExpr> children = e.children();
            for (int i = children.size() - 1; i >= 0; i--) {
                todo.push(children.get(i));
            }
        }
        return out;
    }

    /** The deepest path of the tree in nodes (a leaf is 1), walked with a stack of its own. */
    public static int depth(PhysicalExpr root) {
        int deepest = 0;
        Deque<PhysicalExpr> nodes = new ArrayDeque<>();
        Deque<Integer> depths = new ArrayDeque<>();
        nodes.push(root);
        depths.push(1);
        while (!nodes.isEmpty()) {
            PhysicalExpr e = nodes.pop();
            int d = depths.pop();
            deepest = Math.max(deepest, d);
            for (PhysicalExpr c : e.children()) {
                nodes.push(c);
                depths.push(d + 1);
            }
        }
        return deepest;
    }

    /** The planned type of input {@code index} (a dictionary column's type names its value type). */
    private DataType inputType(int index) {
        for (PhysicalExpr e : preOrder(root)) {
            if (e instanceof ColumnExpr c && c.index() == index) {
                return c.dataType();
            }
        }
        return null;
    }

    /** Both plans as readable text: the logical plan as written, the physical plan as it will run. */
    public String explain() {
        StringBuilder sb = new StringBuilder();
        sb.append("Logical plan (as written):\n  ").append(logical).append('\n');
        sb.append("Physical plan (as it will run), result '")
                .append(outputName)
                .append("' ")
                .append(outputType())
                .append(":\n");
        for (String line : root.explainTree().split("\n")) {
            sb.append("  ").append(line).append('\n');
        }
        if (!columns.isEmpty()) {
            sb.append("Inputs:\n");
            for (int i = 0; i < columns.size(); i++) {
                sb.append("  #")
                        .append(i)
                        .append(" = column ")
                        .append(schemaIndexes.get(i))
                        .append(" '")
                        .append(columns.get(i).getName())
                        .append("' ")
                        .append(inputType(i))
                        .append('\n');
            }
        }
        return sb.toString();
    }
}
