package dev.quiver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.types.DataType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * EXPLAIN ANALYZE of an adaptive AND chain, through {@link CompiledExpression#explain(boolean)}
 * and {@link CompiledProjection#explain(boolean)}: after some batches of a badly written chain
 * (an expensive LIKE first, a selective comparison last) the order used is the comparison first,
 * and each term's selectivity is shown; the values equal a per-row Java computation. Seeded
 * ({@value #SEED}).
 */
class ConjunctExplainTest {
    static final long SEED = 20261203L;
    private static final String SQL = "s LIKE '%a%b%c%' AND x < 0.1";

    private BufferAllocator allocator;
    private Quiver quiver;

    @BeforeEach
    void open() {
        allocator = new RootAllocator();
        quiver = Quiver.builder().allocator(allocator).openCl(false).build();
    }

    @AfterEach
    void close() {
        quiver.close();
        assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked");
        allocator.close();
    }

    private static final Schema SCHEMA =
            new Schema(List.of(DataType.UTF8.toField("s", true), DataType.FLOAT64.toField("x", true)));

    @Test
    void explainAnalyzeShowsTheOrderUsedAndEachTermsSelectivity() {
        CompiledExpression e = quiver.compile(SCHEMA, SQL);
        assertFalse(e.explain(false).contains("Adaptive AND/OR order"), e.explain(false));
        Random r = new Random(SEED);
        for (int b = 0; b < 10; b++) {
            try (VectorSchemaRoot batch = batch(r, 5000);
                    FieldVector v = e.evaluate(batch, Placement.CPU, allocator)) {
                VarCharVector s = (VarCharVector) batch.getVector(0);
                Float8Vector x = (Float8Vector) batch.getVector(1);
                for (int i = 0; i < 5000; i++) {
                    assertEquals(expected(s, x, i), v.getObject(i), "batch " + b + ", row " + i);
                }
            }
        }
        String text = e.explain(true);
        assertTrue(text.contains("Adaptive AND/OR order"), text);
        assertTrue(text.contains("AND of 2 terms, order now #2, #1"), text);
        assertTrue(text.matches("(?s).*#2 \\(x < 0\\.1\\): selectivity 0\\.1\\d\\d \\(FALSE on 8\\d\\.\\d% .*"), text);
        assertTrue(text.contains("#1 (s LIKE '%a%b%c%'): selectivity"), text);
        // A projection's filter is explained the same way (before any batch: in written order, not measured).
        CompiledProjection p = quiver.compileProjection(SCHEMA, SQL, List.of("x"));
        String projected = p.explain(true);
        assertTrue(projected.contains("Adaptive AND/OR order"), projected);
        assertTrue(projected.contains("AND of 2 terms, order now #1, #2"), projected);
        assertTrue(projected.contains("not measured yet"), projected);
    }

    /** Kleene AND of the two terms, per row in Java; x is NULL one row in ten, s one in twenty. */
    private static Boolean expected(VarCharVector s, Float8Vector x, int i) {
        Boolean like = s.isNull(i) ? null : new String(s.get(i), StandardCharsets.UTF_8).matches(".*a.*b.*c.*");
        Boolean less = x.isNull(i) ? null : x.get(i) < 0.1;
        if (Boolean.FALSE.equals(like) || Boolean.FALSE.equals(less)) {
            return false;
        }
        return like == null || less == null ? null : true;
    }

    private VectorSchemaRoot batch(Random r, int rows) {
        VarCharVector s = new VarCharVector("s", allocator);
        Float8Vector x = new Float8Vector("x", allocator);
        s.allocateNew(rows);
        x.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
            if (r.nextInt(20) == 0) {
                s.setNull(i);
            } else {
                StringBuilder sb = new StringBuilder();
                for (int k = 5 + r.nextInt(16); k > 0; k--) {
                    sb.append((char) ('a' + r.nextInt(6)));
                }
                s.setSafe(i, sb.toString().getBytes(StandardCharsets.UTF_8));
            }
            if (r.nextInt(10) == 0) {
                x.setNull(i);
            } else {
                x.set(i, r.nextDouble());
            }
        }
        s.setValueCount(rows);
        x.setValueCount(rows);
        return new VectorSchemaRoot(List.of(s, x));
    }
}
