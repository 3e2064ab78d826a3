package dev.quiver.value;

import dev.quiver.types.ElementType;
import org.apache.arrow.vector.FieldVector;

import java.util.Objects;

/**
 * The currency of evaluation: a whole Arrow array, or one scalar that stands for every row.
 * Scalars stay scalars: an expression over literals only gives a {@link Scalar}, never an
 * array filled with copies.
 *
 * <p>An {@link Array} owns its vector: whoever receives one closes it ({@link #close()}
 * closes the vector; closing a {@link Scalar} does nothing).
 */
public sealed interface ColumnarValue extends AutoCloseable permits ColumnarValue.Array, ColumnarValue.Scalar {

    /** Rows this value has when it is an array; {@code -1} for a scalar. */
    int length();

    @Override
    void close();

    record Array(FieldVector vector) implements ColumnarValue {
        public Array {
            Objects.requireNonNull(vector, "vector is null");
        }

        @Override
        public int length() {
            return vector.getValueCount();
        }

        @Override
        public void close() {
            vector.close();
        }
    }

    /**
     * One value for every row.
     *
     * @param type  its type
     * @param value an Integer, Long, Float or Double matching {@code type}, or {@code null} for SQL NULL
     */
    record Scalar(ElementType type, Number value) implements ColumnarValue {
        public Scalar {
            Objects.requireNonNull(type, "type is null");
        }

        public boolean isNull() {
            return value == null;
        }

        @Override
        public int length() {
            return -1;
        }

        @Override
        public void close() {
        }
    }
}
