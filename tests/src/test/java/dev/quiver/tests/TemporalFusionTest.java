package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Device;
import dev.quiver.Quiver;
import dev.quiver.expr.Expr;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * Comparisons of dates and timestamps fuse with the numbers beside them into one kernel segment
 * (a date as its days, a timestamp as its ticks), as TPC-H Q6's filter does, and give SQL's
 * values on every device (the CPU's fused loop and each OpenCL device), against a per-row Java
 * reference, with NULLs in every column. Replay with {@code -Dquiver.seed=<seed>}.
 */
class TemporalFusionTest {
    static final long SEED = Long.getLong("quiver.seed", System.nanoTime());
    static final Schema SCHEMA = new Schema(List.of(
            new Field("d", FieldType.nullable(new ArrowType.Date(DateUnit.DAY)), null),
            new Field("t", FieldType.nullable(new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)), null),
            new Field("x", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null)));
    static final int FROM = (int) LocalDate.of(1994, 1, 1).toEpochDay();
    static final int TO = (int) LocalDate.of(1995, 1, 1).toEpochDay();
    static final long NOON = ChronoUnit.MICROS.between(
            LocalDateTime.of(1970, 1, 1, 0, 0).toInstant(ZoneOffset.UTC),
            LocalDateTime.of(1994, 6, 1, 12, 0).toInstant(ZoneOffset.UTC));

    @Test
    void datesAndTimestampsFuseWithNumbersAndGiveSqlsValuesOnEveryDevice() {
        System.out.println("TemporalFusionTest seed " + SEED + " (replay with -Dquiver.seed=" + SEED + ")");
        try (BufferAllocator allocator = new RootAllocator();
                Quiver quiver = Quiver.builder().allocator(allocator).build()) {
            CompiledExpression e = quiver.compile(
                    SCHEMA,
                    Expr.parse("d >= DATE '1994-01-01' AND d < DATE '1995-01-01' AND x BETWEEN 0.05 AND 0.07"
                            + " AND t <= TIMESTAMP '1994-06-01 12:00:00'"));
            assertEquals(1, e.programs().size(), e.explain());
            assertTrue(e.explain().contains("Boolean:\n  kernel segment "), e.explain());
            Random rnd = new Random(SEED);
            for (int rows : new int[] {1, 63, 64, 65, 4097}) {
                try (VectorSchemaRoot batch = batch(allocator, rows, rnd)) {
                    List<Boolean> expected = new ArrayList<>();
                    for (int r = 0; r < rows; r++) {
                        expected.add(expected(batch, r));
                    }
                    for (Device device : quiver.devices()) {
                        try (FieldVector out = e.evaluate(batch, device, allocator)) {
                            BitVector bits = (BitVector) out;
                            for (int r = 0; r < rows; r++) {
                                Boolean got = bits.isNull(r) ? null : bits.get(r) != 0;
                                assertEquals(
                                        expected.get(r),
                                        got,
                                        device.name() + ", " + rows + " rows, row " + r + ", seed " + SEED);
                            }
                        }
                    }
                }
            }
        }
    }

    /** Kleene AND of the four comparisons, from the row's values. */
    private static Boolean expected(VectorSchemaRoot b, int r) {
        DateDayVector d = (DateDayVector) b.getVector("d");
        TimeStampMicroVector t = (TimeStampMicroVector) b.getVector("t");
        Float8Vector x = (Float8Vector) b.getVector("x");
        Boolean[] terms = {
            d.isNull(r) ? null : d.get(r) >= FROM,
            d.isNull(r) ? null : d.get(r) < TO,
            x.isNull(r) ? null : x.get(r) >= 0.05 && x.get(r) <= 0.07,
            t.isNull(r) ? null : t.get(r) <= NOON
        };
        boolean unknown = false;
        for (Boolean term : terms) {
            if (Boolean.FALSE.equals(term)) {
                return false;
            }
            unknown |= term == null;
        }
        return unknown ? null : true;
    }

    private static VectorSchemaRoot batch(BufferAllocator allocator, int rows, Random rnd) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        DateDayVector d = (DateDayVector) root.getVector("d");
        TimeStampMicroVector t = (TimeStampMicroVector) root.getVector("t");
        Float8Vector x = (Float8Vector) root.getVector("x");
        d.allocateNew(rows);
        t.allocateNew(rows);
        x.allocateNew(rows);
        for (int r = 0; r < rows; r++) {
            // Around the bounds: a day either side of each, and noon to the microsecond.
            int day = rnd.nextBoolean() ? FROM - 1 + rnd.nextInt(3) : TO - 1 + rnd.nextInt(3);
            if (rnd.nextInt(8) == 0) {
                d.setNull(r);
            } else {
                d.set(r, rnd.nextInt(4) == 0 ? FROM + rnd.nextInt(TO - FROM) : day);
            }
            if (rnd.nextInt(8) == 0) {
                t.setNull(r);
            } else {
                t.set(r, NOON - 1 + rnd.nextInt(3) + (rnd.nextBoolean() ? 0 : (rnd.nextInt(2001) - 1000) * 1_000_000L));
            }
            if (rnd.nextInt(8) == 0) {
                x.setNull(r);
            } else {
                x.set(r, new double[] {0.04, 0.05, 0.06, 0.07, 0.08}[rnd.nextInt(5)]);
            }
        }
        root.setRowCount(rows);
        return root;
    }
}
