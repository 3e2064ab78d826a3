package dev.quiver.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The benchmarks' data: nullable Float64 columns with values uniform in [0, 1) and a fraction of
 * nulls, each null with a value written behind it (as Arrow writers commonly leave one), from a
 * fixed seed. The same arguments give the same batches.
 */
public final class UniformBatches {
    private UniformBatches() {}

    /** A schema of nullable Float64 columns with these names. */
    public static Schema float64Schema(List<String> columns) {
        List<Field> fields = new ArrayList<>(columns.size());
        for (String name : columns) {
            fields.add(Field.nullable(name, new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)));
        }
        return new Schema(fields);
    }

    /**
     * {@code rows} rows of {@code schema} (Float64 columns only) in batches of {@code batchRows}
     * (the last one shorter when they do not divide), allocated from {@code allocator}. The caller
     * closes every batch.
     */
    public static List<VectorSchemaRoot> generate(
            Schema schema, BufferAllocator allocator, long seed, long rows, int batchRows, double nullFraction) {
        if (rows < 0 || batchRows <= 0 || !(nullFraction >= 0 && nullFraction <= 1)) {
            throw new IllegalArgumentException(
                    "rows " + rows + ", batch rows " + batchRows + ", null fraction " + nullFraction);
        }
        SplittableRandom random = new SplittableRandom(seed);
        List<VectorSchemaRoot> batches = new ArrayList<>();
        try {
            for (long start = 0; start < rows || (rows == 0 && batches.isEmpty()); start += batchRows) {
                int n = (int) Math.min(batchRows, rows - start);
                VectorSchemaRoot batch = VectorSchemaRoot.create(schema, allocator);
                batches.add(batch);
                for (FieldVector v : batch.getFieldVectors()) {
                    if (!(v instanceof Float8Vector f)) {
                        throw new IllegalArgumentException("only Float64 columns are generated, not " + v.getField());
                    }
                    fill(f, n, random, nullFraction);
                }
                batch.setRowCount(n);
            }
            return batches;
        } catch (RuntimeException | Error e) {
            batches.forEach(VectorSchemaRoot::close);
            throw e;
        }
    }

    private static void fill(Float8Vector v, int n, SplittableRandom random, double nullFraction) {
        v.allocateNew(n);
        for (int i = 0; i < n; i++) {
            v.set(i, random.nextDouble());
            if (random.nextDouble() < nullFraction) {
                v.setNull(i);
            }
        }
        v.setValueCount(n);
    }
}
