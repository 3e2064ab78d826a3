package dev.quiver.physical;

import dev.quiver.functions.ExecutionConfig;
import dev.quiver.value.ColumnarValue;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

import java.util.List;
import java.util.Objects;

/**
 * One batch being evaluated: its columns (in the order the plan resolved them), its row
 * count, the query's configuration and the kernel executor for fused programs.
 */
public record EvalContext(List<FieldVector> columns, int rows, ExecutionConfig config, KernelExecutor kernels) {
    public EvalContext {
        columns = List.copyOf(columns);
        Objects.requireNonNull(config, "config is null");
        Objects.requireNonNull(kernels, "kernels is null");
        if (rows < 0) {
            throw new IllegalArgumentException("rows < 0");
        }
    }

    public BufferAllocator allocator() {
        return config.allocator();
    }

    /** Column {@code index} of the batch, borrowed. */
    public ColumnarValue.Array column(int index) {
        if (index < 0 || index >= columns.size()) {
            throw new IndexOutOfBoundsException("column index " + index + " is out of range: the batch has "
                    + columns.size() + " column(s)");
        }
        return ColumnarValue.Array.borrowed(columns.get(index));
    }

    /** The same batch with other columns and row count (a selection of rows). */
    public EvalContext withColumns(List<FieldVector> newColumns, int newRows) {
        return new EvalContext(newColumns, newRows, config, kernels);
    }
}
