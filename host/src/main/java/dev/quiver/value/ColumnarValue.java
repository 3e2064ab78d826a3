package dev.quiver.value;

import dev.quiver.types.DataType;
import java.util.Objects;
import org.apache.arrow.vector.FieldVector;

/**
 * The currency of evaluation: a whole Arrow array, or one scalar that stands for every row.
 * Scalars stay scalars: an expression over literals only gives a {@link Scalar}, never an
 * array filled with copies.
 *
 * <p>An {@link Array} either owns its vector ({@link #close()} closes it; whoever receives an
 * owned array closes it) or borrows it ({@link Array#borrowed}: a column of the input batch,
 * which {@link #close()} leaves alone). Closing a {@link Scalar} does nothing.
 */
public sealed interface ColumnarValue extends AutoCloseable permits ColumnarValue.Array, ColumnarValue.Scalar {

    /** Rows this value has when it is an array; {@code -1} for a scalar. */
    int length();

    /** The type of the values. */
    DataType dataType();

    @Override
    void close();

    static Scalar scalar(DataType type, Object value) {
        return new Scalar(new ScalarValue(type, value));
    }

    /**
     * An array.
     *
     * @param vector the values
     * @param owned  whether {@link #close()} closes the vector
     */
    record Array(FieldVector vector, boolean owned) implements ColumnarValue {
        public Array {
            Objects.requireNonNull(vector, "vector is null");
        }

        /** An array that owns {@code vector}. */
        public Array(FieldVector vector) {
            this(vector, true);
        }

        /** An array that reads {@code vector} without owning it: closing it leaves the vector open. */
        public static Array borrowed(FieldVector vector) {
            return new Array(vector, false);
        }

        @Override
        public int length() {
            return vector.getValueCount();
        }

        @Override
        public DataType dataType() {
            return DataType.fromField(vector.getField());
        }

        @Override
        public void close() {
            if (owned) {
                vector.close();
            }
        }
    }

    /** One value for every row. */
    record Scalar(ScalarValue value) implements ColumnarValue {
        public Scalar {
            Objects.requireNonNull(value, "value is null");
        }

        public boolean isNull() {
            return value.isNull();
        }

        @Override
        public DataType dataType() {
            return value.type();
        }

        @Override
        public int length() {
            return -1;
        }

        @Override
        public void close() {}
    }
}
