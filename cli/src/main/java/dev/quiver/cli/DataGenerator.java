package dev.quiver.cli;

import dev.quiver.types.DataType;
import dev.quiver.value.Values;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Seeded test data for {@code quiver bench --expr}: batches of a schema's columns, every scalar
 * type {@link DataType#parse} knows, with nulls at a given fraction (and a value written behind
 * each null, as Arrow writers commonly leave one).
 *
 * <p>What each type gets: integers in a small range around zero, some negative, but never 0, so
 * that integer division has something to divide by (unsigned: 1 and up); floats in
 * [-1000, 1000); decimals with every digit the precision allows (up to 18); booleans half true;
 * strings of 1 to 6 letters from {@code a-f} and {@code A-C}, so LIKE, upper and lower have
 * matches and work to do; binary of 1 to 8 bytes; dates from 1970 to 2039; timestamps from 2000
 * to 2029 with a random fraction of a second. The same seed gives the same batches.
 */
final class DataGenerator {
    private static final String LETTERS = "abcdefabcdefABC";

    private final SplittableRandom random;
    private final double nullFraction;

    DataGenerator(long seed, double nullFraction) {
        if (!(nullFraction >= 0 && nullFraction <= 1)) {
            throw new IllegalArgumentException("the null fraction must be between 0 and 1: " + nullFraction);
        }
        this.random = new SplittableRandom(seed);
        this.nullFraction = nullFraction;
    }

    /** {@code rows} rows of {@code schema} in batches of {@code batchRows}; the caller closes them. */
    List<VectorSchemaRoot> batches(Schema schema, BufferAllocator allocator, int rows, int batchRows) {
        List<VectorSchemaRoot> batches = new ArrayList<>();
        try {
            for (int start = 0; start < rows; start += batchRows) {
                int n = Math.min(batchRows, rows - start);
                VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
                batches.add(root);
                for (FieldVector v : root.getFieldVectors()) {
                    fill(v, n);
                }
                root.setRowCount(n);
            }
        } catch (RuntimeException e) {
            batches.forEach(VectorSchemaRoot::close);
            throw e;
        }
        return batches;
    }

    private void fill(FieldVector v, int n) {
        Field field = v.getField();
        DataType type = DataType.fromField(field);
        if (v instanceof NullVector nv) {
            nv.setValueCount(n);
            return;
        }
        v.setInitialCapacity(n);
        v.allocateNew();
        for (int i = 0; i < n; i++) {
            setRandom(v, type, i);
            if (nullFraction > 0 && random.nextDouble() < nullFraction) {
                Values.setNull(v, i);
            }
        }
        v.setValueCount(n);
    }

    private void setRandom(FieldVector v, DataType type, int i) {
        switch (v) {
            case TinyIntVector t -> t.set(i, (byte) nonZero(random.nextInt(-100, 100)));
            case SmallIntVector t -> t.set(i, (short) nonZero(random.nextInt(-10_000, 10_000)));
            case IntVector t -> t.set(i, nonZero(random.nextInt(-1_000_000, 1_000_000)));
            case BigIntVector t -> t.set(i, nonZero(random.nextLong(-1_000_000_000_000L, 1_000_000_000_000L)));
            case UInt1Vector t -> t.set(i, random.nextInt(1, 200));
            case UInt2Vector t -> t.set(i, random.nextInt(1, 60_000));
            case UInt4Vector t -> t.set(i, random.nextInt(1, 2_000_000_000));
            case UInt8Vector t -> t.set(i, random.nextLong(1, 1_000_000_000_000L));
            case Float4Vector t -> t.set(i, (float) random.nextDouble(-1e3, 1e3));
            case Float8Vector t -> t.set(i, random.nextDouble(-1e3, 1e3));
            case BitVector t -> t.set(i, random.nextBoolean() ? 1 : 0);
            case DecimalVector t -> {
                DataType.Decimal d = (DataType.Decimal) type;
                long bound = (long) Math.pow(10, Math.min(d.precision(), 18));
                t.setSafe(i, BigDecimal.valueOf(random.nextLong(-bound + 1, bound), d.scale()));
            }
            case VarCharVector t -> t.setSafe(i, letters());
            case LargeVarCharVector t -> t.setSafe(i, letters());
            case VarBinaryVector t -> {
                byte[] b = new byte[random.nextInt(1, 9)];
                random.nextBytes(b);
                t.setSafe(i, b);
            }
            case DateDayVector t -> t.set(i, random.nextInt(0, 25_567));
            case TimeStampVector t -> {
                long per = ((DataType.Timestamp) type).unit().perSecond();
                long seconds = random.nextLong(946_684_800L, 1_893_456_000L); // 2000-01-01 .. 2030-01-01
                t.set(i, seconds * per + random.nextLong(per));
            }
            default ->
                throw new IllegalArgumentException("cannot generate data of type " + type + " (column '"
                        + v.getField().getName() + "')");
        }
    }

    private static int nonZero(int x) {
        return x == 0 ? 1 : x;
    }

    private static long nonZero(long x) {
        return x == 0 ? 1 : x;
    }

    private byte[] letters() {
        int len = random.nextInt(1, 7);
        byte[] b = new byte[len];
        for (int k = 0; k < len; k++) {
            b[k] = (byte) LETTERS.charAt(random.nextInt(LETTERS.length()));
        }
        return b;
    }

    static String describe() {
        return "integers near 0 (never 0), floats in [-1000, 1000), strings of 1-6 letters a-f/A-C, dates 1970-2039, "
                + "timestamps 2000-2029";
    }
}
