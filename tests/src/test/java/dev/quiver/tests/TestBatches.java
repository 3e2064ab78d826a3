package dev.quiver.tests;

import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.types.ElementType;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Random;
import java.util.function.IntToDoubleFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Hostile test batches: every column of every supported type, nulls with garbage behind them,
 * NaN, signed zeros, infinities, subnormals and integer extremes.
 *
 * <p>Columns: {@code i1, i2} Int32; {@code l1, l2} Int64; {@code g1, g2} Float32;
 * {@code f1, f2, f3} Float64; {@code di, dl} Int32/Int64 divisors that are zero only behind
 * nulls (and often -1, against MIN_VALUE numerators).
 */
final class TestBatches {
    static final Schema SCHEMA = new Schema(List.of(
            field("i1", ElementType.INT32),
            field("i2", ElementType.INT32),
            field("l1", ElementType.INT64),
            field("l2", ElementType.INT64),
            field("g1", ElementType.FLOAT32),
            field("g2", ElementType.FLOAT32),
            field("f1", ElementType.FLOAT64),
            field("f2", ElementType.FLOAT64),
            field("f3", ElementType.FLOAT64),
            field("di", ElementType.INT32),
            field("dl", ElementType.INT64)));

    private static final double[] SPECIAL_F = {
        0.0,
        -0.0,
        Double.NaN,
        Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY,
        Double.MIN_VALUE,
        -Double.MIN_VALUE,
        Double.MIN_NORMAL,
        1e-310,
        Double.MAX_VALUE,
        -Double.MAX_VALUE,
        1.0,
        -1.0,
        Float.MIN_VALUE,
        Float.MAX_VALUE,
        1e-40
    };
    private static final long[] SPECIAL_I = {
        0,
        1,
        -1,
        Integer.MIN_VALUE,
        Integer.MAX_VALUE,
        Long.MIN_VALUE,
        Long.MAX_VALUE,
        Integer.MAX_VALUE + 1L,
        Integer.MIN_VALUE - 1L
    };

    /** Two Float64 columns, {@code x} and {@code y}: the schema of {@link #xy}. */
    static final Schema XY = new Schema(List.of(field("x", ElementType.FLOAT64), field("y", ElementType.FLOAT64)));

    private TestBatches() {}

    /** A batch of {@link #XY} with {@code x(i)} and {@code y(i)} in row i, no nulls. The caller closes it. */
    static VectorSchemaRoot xy(BufferAllocator allocator, int rows, IntToDoubleFunction x, IntToDoubleFunction y) {
        VectorSchemaRoot root = VectorSchemaRoot.create(XY, allocator);
        Float8Vector xs = (Float8Vector) root.getVector("x");
        Float8Vector ys = (Float8Vector) root.getVector("y");
        xs.allocateNew(rows);
        ys.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
            xs.set(i, x.applyAsDouble(i));
            ys.set(i, y.applyAsDouble(i));
        }
        root.setRowCount(rows);
        return root;
    }

    static Field field(String name, ElementType t) {
        return new Field(name, FieldType.nullable(t.arrowType()), null);
    }

    static ElementType typeOf(FieldVector v) {
        return ElementType.fromArrow(v.getField().getType()).orElseThrow();
    }

    /** A batch of {@code rows} rows; about {@code nullFraction} of each column's rows are null. */
    static VectorSchemaRoot hostile(BufferAllocator allocator, int rows, double nullFraction, Random r) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        try {
            for (FieldVector v : root.getFieldVectors()) {
                BaseFixedWidthVector f = (BaseFixedWidthVector) v;
                f.allocateNew(rows);
                ElementType t = typeOf(v);
                boolean divisor = v.getName().startsWith("d");
                MemorySegment data = MemorySegment.ofAddress(f.getDataBuffer().memoryAddress())
                        .reinterpret((long) rows * t.byteWidth());
                for (int i = 0; i < rows; i++) {
                    boolean isNull = r.nextDouble() < nullFraction;
                    Number value;
                    if (divisor) {
                        // Zero only behind nulls; -1 often, to meet MIN_VALUE numerators.
                        long d = isNull
                                ? 0
                                : switch (r.nextInt(3)) {
                                    case 0 -> -1;
                                    case 1 -> 1 + r.nextInt(1000);
                                    default -> r.nextLong() | 1;
                                };
                        value = t == ElementType.INT32
                                ? (Number) (int) d
                                : (Number) d; // (int) of an odd long stays odd, never 0
                    } else {
                        value = value(t, r);
                    }
                    RowInterpreter.write(data, t, i, value);
                    if (isNull) {
                        f.setNull(i);
                    } else {
                        f.setIndexDefined(i);
                    }
                }
                f.setValueCount(rows);
            }
            root.setRowCount(rows);
            return root;
        } catch (RuntimeException e) {
            root.close();
            throw e;
        }
    }

    private static Number value(ElementType t, Random r) {
        boolean special = r.nextInt(4) == 0;
        return switch (t) {
            case INT32 -> special ? (int) SPECIAL_I[r.nextInt(SPECIAL_I.length)] : r.nextInt();
            case INT64 -> special ? SPECIAL_I[r.nextInt(SPECIAL_I.length)] : r.nextLong();
            case FLOAT32 -> special ? (float) SPECIAL_F[r.nextInt(SPECIAL_F.length)] : (float) (r.nextGaussian() * 1e3);
            case FLOAT64 -> special ? SPECIAL_F[r.nextInt(SPECIAL_F.length)] : r.nextGaussian() * 1e6;
            case BOOL -> r.nextBoolean() ? 1 : 0;
        };
    }
}
