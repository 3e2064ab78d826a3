package dev.quiver.cli.queries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * The generated tables: one seed gives the same rows whatever the batch size, the dictionary-encoded
 * table's strings are the plain table's, and the values keep TPC-H's rules (ship, commit and receipt
 * dates from the order date; the return flag and line status from the dates; no nulls).
 */
class LineitemTableTest {

    /** Every row's values, by what they mean (strings decoded), over all batches. */
    private static List<List<Object>> rows(BenchTable t) {
        List<List<Object>> rows = new ArrayList<>();
        for (VectorSchemaRoot b : t.batches()) {
            for (int i = 0; i < b.getRowCount(); i++) {
                List<Object> row = new ArrayList<>();
                for (FieldVector v : b.getFieldVectors()) {
                    if (v.getField().getDictionary() != null) {
                        FieldVector d = t.dictionaries()
                                .lookup(v.getField().getDictionary().getId())
                                .getVector();
                        row.add(ResultChecker.value(d, (Integer) v.getObject(i)));
                    } else {
                        row.add(ResultChecker.value(v, i));
                    }
                }
                rows.add(row);
            }
        }
        return rows;
    }

    @Test
    void oneSeedGivesTheSameRowsInEveryBatchSizeAndEncoding() {
        try (RootAllocator allocator = new RootAllocator()) {
            try (BenchTable a = LineitemTable.generate(allocator, 5_000, 5_000, 11, StringEncoding.PLAIN);
                    BenchTable b = LineitemTable.generate(allocator, 5_000, 1_024, 11, StringEncoding.DICTIONARY)) {
                assertEquals(1, a.batches().size());
                assertEquals(5, b.batches().size());
                List<List<Object>> plain = rows(a);
                assertEquals(plain, rows(b));
                int shipdate = a.schema().getFields().indexOf(a.schema().findField("l_shipdate"));
                int receipt = a.schema().getFields().indexOf(a.schema().findField("l_receiptdate"));
                int flag = a.schema().getFields().indexOf(a.schema().findField("l_returnflag"));
                int status = a.schema().getFields().indexOf(a.schema().findField("l_linestatus"));
                LocalDate current = LocalDate.of(1995, 6, 17);
                for (List<Object> row : plain) {
                    assertTrue(row.stream().allMatch(v -> v != null), "no nulls: " + row);
                    LocalDate ship = (LocalDate) row.get(shipdate), got = (LocalDate) row.get(receipt);
                    assertTrue(got.isAfter(ship) && !got.isAfter(ship.plusDays(30)), row.toString());
                    assertTrue(
                            got.isAfter(current)
                                    ? row.get(flag).equals("N")
                                    : List.of("R", "A").contains(row.get(flag)),
                            row.toString());
                    assertEquals(ship.isAfter(current) ? "O" : "F", row.get(status), row.toString());
                }
            }
            assertEquals(0, allocator.getAllocatedMemory());
        }
    }
}
