package dev.quiver.spark.arrow;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.stream.LongStream;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Writes one non-null Spark value into an Arrow vector, growing the vector as needed: the
 * per-row writes that {@link ArrowImport} and {@link RowsToArrow} share.
 */
final class SparkValues {
    /** 10^p for p in [0, 18]: an unscaled long below 10^p in magnitude fits precision p. */
    private static final long[] POWERS_OF_TEN =
            LongStream.iterate(1, p -> p * 10).limit(19).toArray();

    private SparkValues() {}

    /**
     * Sets row {@code index} of {@code vector} to {@code value}, which must have the vector's
     * scale (or one it rescales to exactly) and fit its precision. Up to precision 18 the
     * unscaled long is written as it is (no BigDecimal).
     *
     * @throws IllegalArgumentException when the value does not fit the vector's precision, or its
     *                                  scale does not convert without rounding
     */
    static void setSafe(DecimalVector vector, int index, Decimal value) {
        int precision = vector.getPrecision(), scale = vector.getScale();
        if (precision <= 18 && value.scale() == scale) {
            long unscaled = value.toUnscaledLong();
            if (unscaled >= POWERS_OF_TEN[precision] || unscaled <= -POWERS_OF_TEN[precision]) {
                throw new IllegalArgumentException("the decimal " + value + " does not fit decimal(" + precision + ", "
                        + scale + ") of column '" + vector.getName() + "'");
            }
            vector.setSafe(index, unscaled);
            return;
        }
        BigDecimal exact = value.toJavaBigDecimal();
        if (exact.scale() != scale) {
            try {
                exact = exact.setScale(scale, RoundingMode.UNNECESSARY);
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException(
                        "the decimal " + value + " does not convert to scale " + scale + " of column '"
                                + vector.getName() + "' without rounding",
                        e);
            }
        }
        try {
            vector.setSafe(index, exact);
        } catch (UnsupportedOperationException e) {
            // Arrow says "BigDecimal precision cannot be greater than that in the Arrow vector" this way.
            throw new IllegalArgumentException(
                    "the decimal " + value + " does not fit decimal(" + precision + ", " + scale + ") of column '"
                            + vector.getName() + "'",
                    e);
        }
    }

    /**
     * Sets row {@code index} of a Utf8 or Binary vector to the bytes of {@code value}, copied
     * once: straight from the array behind it when it has one (on-heap rows and vectors), from
     * a temporary copy when it lives off-heap.
     */
    static void setSafe(BaseVariableWidthVector vector, int index, UTF8String value) {
        int length = value.numBytes();
        if (value.getBaseObject() instanceof byte[] array) {
            vector.setSafe(index, array, Math.toIntExact(value.getBaseOffset() - Platform.BYTE_ARRAY_OFFSET), length);
        } else {
            vector.setSafe(index, value.getBytes(), 0, length);
        }
    }
}
