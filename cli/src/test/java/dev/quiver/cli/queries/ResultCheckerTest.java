package dev.quiver.cli.queries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.TransferPair;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The checker fails where it must: two runs of Q1's hand-written loop over the same table
 * agree, and a copy with one value changed (a float beyond the tolerance, a string, a NULL), a
 * row missing or a column renamed is reported with the query, the engine, the row counted over
 * all batches, the column and both values. A float within the tolerance, and the same rows cut
 * into other batches (DuckDB's result, in batches of 1000), agree.
 */
class ResultCheckerTest {
    private RootAllocator allocator;
    private BenchTable table;
    private List<VectorSchemaRoot> expected;
    private final BenchQuery q1 = QuerySuite.all().getFirst();

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
        table = LineitemTable.generate(allocator, 10_000, 4_096, 3, StringEncoding.PLAIN);
        expected = run();
    }

    @AfterEach
    void tearDown() {
        expected.forEach(VectorSchemaRoot::close);
        table.close();
        assertEquals(0, allocator.getAllocatedMemory(), "every buffer freed");
        allocator.close();
    }

    private List<VectorSchemaRoot> run() {
        try (JavaLoopEngine loop = new JavaLoopEngine(allocator)) {
            return QueryBench.collect(loop.prepare(q1, table), allocator);
        }
    }

    /** The checker's message on a second run changed by {@code change}. */
    private String mismatch(Consumer<List<VectorSchemaRoot>> change) {
        List<VectorSchemaRoot> actual = run();
        try {
            change.accept(actual);
            return assertThrows(
                            ResultMismatchException.class,
                            () -> ResultChecker.check("q1", "wrong-engine", "java-loop", expected, actual))
                    .getMessage();
        } finally {
            actual.forEach(VectorSchemaRoot::close);
        }
    }

    @Test
    void twoRunsAgree() {
        List<VectorSchemaRoot> actual = run();
        try {
            ResultChecker.check("q1", "again", "java-loop", expected, actual);
        } finally {
            actual.forEach(VectorSchemaRoot::close);
        }
    }

    @Test
    void aFloatBeyondTheToleranceIsReportedWithItsRowColumnAndValues() {
        int first = expected.getFirst().getRowCount();
        double[] was = new double[1];
        String m = mismatch(a -> {
            Float8Vector charge = (Float8Vector) a.get(1).getVector("charge");
            was[0] = charge.get(5);
            charge.set(5, was[0] * (1 + 1e-7));
        });
        assertTrue(
                m.startsWith("q1: wrong-engine disagrees with java-loop at row " + (first + 5) + ", column charge: "),
                m);
        assertTrue(
                m.contains(Double.toString(was[0] * (1 + 1e-7)))
                        && m.endsWith("expected " + was[0] + " (FloatingPoint(DOUBLE))"),
                m);
    }

    @Test
    void aFloatWithinTheToleranceAgrees() {
        List<VectorSchemaRoot> actual = run();
        try {
            Float8Vector charge = (Float8Vector) actual.get(1).getVector("charge");
            charge.set(5, charge.get(5) * (1 + 1e-12));
            ResultChecker.check("q1", "close-enough", "java-loop", expected, actual);
        } finally {
            actual.forEach(VectorSchemaRoot::close);
        }
    }

    @Test
    void aWrongStringIsReported() {
        String m = mismatch(a -> {
            VarCharVector flag = (VarCharVector) a.getFirst().getVector("l_returnflag");
            String was = new String(flag.get(2), StandardCharsets.UTF_8);
            flag.setSafe(2, (was.equals("R") ? "A" : "R").getBytes(StandardCharsets.UTF_8));
        });
        assertTrue(m.contains("at row 2, column l_returnflag: '"), m);
    }

    @Test
    void aNullForAValueIsReported() {
        String m = mismatch(a -> ((Float8Vector) a.getLast().getVector("l_discount")).setNull(0));
        assertTrue(m.contains(", column l_discount: NULL (FloatingPoint(DOUBLE)), expected "), m);
    }

    @Test
    void aMissingRowIsReported() {
        long rows = expected.stream().mapToLong(VectorSchemaRoot::getRowCount).sum();
        String m = mismatch(a -> a.getLast().setRowCount(a.getLast().getRowCount() - 1));
        assertEquals("q1: wrong-engine disagrees with java-loop: " + (rows - 1) + " rows, expected " + rows, m);
    }

    @Test
    void anotherColumnNameIsReported() {
        String m = mismatch(a -> {
            for (int b = 0; b < a.size(); b++) { // 'charge' (column 5) moved to a vector named 'total'
                VectorSchemaRoot r = a.get(b);
                List<FieldVector> columns = new ArrayList<>(r.getFieldVectors());
                TransferPair t = columns.get(5).getTransferPair("total", allocator);
                t.transfer();
                columns.set(5, (FieldVector) t.getTo());
                VectorSchemaRoot renamed = new VectorSchemaRoot(columns);
                renamed.setRowCount(r.getRowCount());
                a.set(b, renamed);
            }
        });
        assertTrue(
                m.contains(": columns [l_returnflag, l_linestatus, l_quantity, l_extendedprice, disc_price, total,"),
                m);
    }

    @Test
    void otherBatchBoundariesAgree() {
        try (DuckDbEngine duckdb = DuckDbEngine.open(allocator, 1000)) {
            List<VectorSchemaRoot> actual = QueryBench.collect(duckdb.prepare(q1, table), allocator);
            try {
                assertTrue(actual.size() > expected.size(), "cut differently: " + actual.size() + " batches");
                ResultChecker.check("q1", "duckdb-1t", "java-loop", expected, actual);
            } finally {
                actual.forEach(VectorSchemaRoot::close);
            }
        }
    }
}
