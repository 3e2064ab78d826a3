package dev.quiver.spark.exec;

import dev.quiver.Placement;
import dev.quiver.kernels.ArithmeticMode;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.spark.sql.types.DataType;

/**
 * What a {@link QuiverExec} computes, in a form that travels to executors: Quiver SQL texts over
 * input columns {@code c0, c1, ...}, and the Spark attributes (by expression id) those columns are.
 *
 * @param inputIds    expression ids of the child's attributes that become Arrow columns c0, c1, ...;
 *                    the first {@code referenced} are read by the Quiver expressions, the rest are
 *                    only passed through (imported only where the node must copy them: under a
 *                    filter, or when the child produces rows)
 * @param inputTypes  their Spark types
 * @param referenced  how many inputs the Quiver expressions read
 * @param filter      the Quiver SQL of the filter, or null
 * @param columns     the output columns, in output order
 * @param requiredMode the integer arithmetic mode the expressions need (ANSI: CHECKED, legacy: WRAPPING), or null
 * @param providers   function provider classes the expressions call
 * @param placement   where batches run
 * @param notes       what stays with Spark and why, for the plan's description
 */
public record NodeSpec(
        List<Long> inputIds,
        List<DataType> inputTypes,
        int referenced,
        String filter,
        List<Column> columns,
        ArithmeticMode requiredMode,
        List<String> providers,
        Placement placement,
        List<String> notes)
        implements Serializable {

    /** One output column: a Quiver expression ({@code sql}) or an input passed through ({@code input} >= 0). */
    public record Column(String name, String sql, int input) implements Serializable {
        public boolean passThrough() {
            return sql == null;
        }
    }

    public NodeSpec {
        inputIds = List.copyOf(inputIds);
        inputTypes = List.copyOf(inputTypes);
        columns = List.copyOf(columns);
        providers = List.copyOf(providers);
        notes = List.copyOf(notes);
        Objects.requireNonNull(placement, "placement is null");
        if (inputIds.size() != inputTypes.size() || referenced > inputIds.size()) {
            throw new IllegalArgumentException("inconsistent inputs");
        }
    }

    /** The Quiver arithmetic mode to evaluate in: the required one, else CHECKED (no integer arithmetic). */
    public ArithmeticMode mode() {
        return requiredMode == null ? ArithmeticMode.CHECKED : requiredMode;
    }

    /**
     * The Quiver SQL of the projected columns Quiver computes. Under a filter that is every
     * column (pass-through columns are plain column references: Quiver keeps the filtered rows);
     * otherwise only the computed ones.
     */
    public List<String> projectionSql() {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
            Column c = columns.get(i);
            if (c.passThrough()) {
                if (filter != null) {
                    out.add("c" + c.input() + " AS o" + i);
                }
            } else {
                out.add(c.sql() + " AS o" + i);
            }
        }
        return out;
    }

    /** How many inputs are imported into Arrow. */
    public int imported(boolean importAll) {
        return importAll ? inputIds.size() : referenced;
    }
}
