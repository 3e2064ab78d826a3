package dev.quiver.cli.queries;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** What the hand-written loops share: their output schemas, literals as bytes and days, and the no-nulls check. */
final class RowLoops {
    static final ArrowType FLOAT64 = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
    static final ArrowType INT32 = new ArrowType.Int(32, true);
    static final ArrowType INT64 = new ArrowType.Int(64, true);
    static final ArrowType UTF8 = ArrowType.Utf8.INSTANCE;
    static final ArrowType BOOL = ArrowType.Bool.INSTANCE;

    private RowLoops() {}

    /**
     * The loops over {@code lineitem} are written for its data, which has no nulls (as TPC-H's):
     * they read values without looking at validity, so a batch with a null in a column they read
     * is refused here, once per batch, rather than computed wrongly.
     */
    static void requireNoNulls(VectorSchemaRoot batch, String... columns) {
        for (String c : columns) {
            FieldVector v = batch.getVector(c);
            if (v.getNullCount() != 0) {
                throw new IllegalArgumentException(
                        "the hand-written loop reads column " + c + " without nulls, but it has " + v.getNullCount());
            }
        }
    }

    /** A schema of nullable fields, given as name, type, name, type, ... */
    static Schema schema(Object... nameAndType) {
        List<Field> fields = new ArrayList<>();
        for (int i = 0; i < nameAndType.length; i += 2) {
            fields.add(Field.nullable((String) nameAndType[i], (ArrowType) nameAndType[i + 1]));
        }
        return new Schema(fields);
    }

    static byte[] utf8(String s) {
        return s.getBytes(UTF_8);
    }

    /** A date as Date32 stores it: days since 1970-01-01. */
    static int day(int year, int month, int dayOfMonth) {
        return (int) LocalDate.of(year, month, dayOfMonth).toEpochDay();
    }
}
