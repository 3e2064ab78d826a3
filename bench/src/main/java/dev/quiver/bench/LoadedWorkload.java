package dev.quiver.bench;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.physical.PhysicalExpr;
import dev.quiver.value.ColumnarValue;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A {@link Workload} ready to measure: its batches generated once, its expression compiled by
 * Quiver and by {@link PerRowBaseline}. Everything lives under one {@link RootAllocator};
 * {@link #close()} frees it and fails when a byte is still allocated.
 *
 * <p>Quiver is built without OpenCL ({@code openCl(false)}) and evaluates with
 * {@link Placement#CPU}: these benchmarks measure the physical tree on the calling thread, and an
 * OpenCL driver such as PoCL would only start threads that compete for the same cores.
 */
public final class LoadedWorkload implements AutoCloseable {
    private final Workload workload;
    private final BufferAllocator allocator;
    private final Quiver quiver;
    private final CompiledExpression compiled;
    private final PerRowBaseline interpreter;
    private final List<VectorSchemaRoot> batches;

    private LoadedWorkload(
            Workload workload,
            BufferAllocator allocator,
            Quiver quiver,
            CompiledExpression compiled,
            PerRowBaseline interpreter,
            List<VectorSchemaRoot> batches) {
        this.workload = workload;
        this.allocator = allocator;
        this.quiver = quiver;
        this.compiled = compiled;
        this.interpreter = interpreter;
        this.batches = batches;
    }

    /** Generates the batches and compiles the expression both ways; close the result. */
    public static LoadedWorkload load(Workload workload) {
        Objects.requireNonNull(workload, "workload is null");
        RootAllocator allocator = new RootAllocator();
        Quiver quiver = null;
        try {
            quiver = Quiver.builder().allocator(allocator).openCl(false).build();
            CompiledExpression compiled = quiver.compile(workload.schema(), workload.sql());
            PerRowBaseline interpreter = PerRowBaseline.compile(workload.schema(), workload.sql());
            List<VectorSchemaRoot> batches = UniformBatches.generate(
                    workload.schema(),
                    allocator,
                    workload.seed(),
                    workload.rows(),
                    workload.batchRows(),
                    workload.nullFraction());
            return new LoadedWorkload(workload, allocator, quiver, compiled, interpreter, batches);
        } catch (RuntimeException | Error e) {
            if (quiver != null) {
                quiver.close();
            }
            allocator.close();
            throw e;
        }
    }

    /**
     * Evaluates every batch with Quiver ({@link CompiledExpression#evaluateValue}, placement CPU),
     * closing each result. Returns the rows evaluated.
     */
    public long evaluateWithQuiver() {
        long rows = 0;
        for (VectorSchemaRoot batch : batches) {
            try (ColumnarValue v = compiled.evaluateValue(batch, Placement.CPU, allocator)) {
                rows += v.length();
            }
        }
        return rows;
    }

    /** Evaluates every batch with {@link PerRowBaseline}, closing each result. Returns the rows evaluated. */
    public long evaluateWithInterpreter() {
        long rows = 0;
        for (VectorSchemaRoot batch : batches) {
            try (FieldVector v = interpreter.evaluate(batch, allocator)) {
                rows += v.getValueCount();
            }
        }
        return rows;
    }

    public Workload workload() {
        return workload;
    }

    public CompiledExpression compiled() {
        return compiled;
    }

    public PerRowBaseline interpreter() {
        return interpreter;
    }

    public List<VectorSchemaRoot> batches() {
        return batches;
    }

    public BufferAllocator allocator() {
        return allocator;
    }

    /** The nodes of the physical tree Quiver runs, leaves (columns, literals) included. */
    public int physicalNodes() {
        return countNodes(compiled.plan().root());
    }

    private static int countNodes(PhysicalExpr e) {
        int n = 1;
        for (PhysicalExpr c : e.children()) {
            n += countNodes(c);
        }
        return n;
    }

    /** Frees the batches and Quiver; throws {@link IllegalStateException} when memory is still allocated. */
    @Override
    public void close() {
        try {
            batches.forEach(VectorSchemaRoot::close);
            quiver.close();
        } finally {
            long leaked = allocator.getAllocatedMemory();
            if (leaked != 0) {
                throw new IllegalStateException(
                        leaked + " bytes still allocated after the benchmark of " + workload.sql());
            }
            allocator.close();
        }
    }
}
