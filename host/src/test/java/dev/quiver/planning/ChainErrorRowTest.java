package dev.quiver.planning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.quiver.errors.EvaluationException;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.types.DataType;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;

/**
 * An error in a term that runs on the undecided rows of an AND/OR chain (or a CASE branch) names
 * the row of the batch, not its place among the rows the term ran on.
 */
class ChainErrorRowTest extends PlanningTestBase {

    /** x, name, l, t8 as the schema's columns 0, 3, 2, 5; the other columns NULL. */
    private List<FieldVector> batch(Integer[] x, String[] name, Long[] l) {
        int n = x.length;
        Object[] nulls = new Object[n];
        return List.of(
                column(DataType.INT32, (Object[]) x),
                column(DataType.FLOAT64, nulls),
                column(DataType.INT64, (Object[]) l),
                column(DataType.UTF8, (Object[]) name),
                column(DataType.BOOLEAN, nulls),
                column(DataType.INT8, nulls),
                column(DataType.UINT32, nulls),
                column(new DataType.Decimal(10, 2), nulls),
                column(DataType.DATE32, nulls));
    }

    @Test
    void aCastBehindAGuardNamesTheBatchRow() {
        List<FieldVector> b =
                batch(new Integer[] {0, 0, 1, 0, 1, 1}, new String[] {"a", "b", "1", "c", "2", "zz"}, new Long[] {
                    1L, 1L, 1L, 1L, 1L, 1L
                });
        EvaluationException e =
                assertThrows(EvaluationException.class, () -> evaluate(plan("x <> 0 AND CAST(name AS INT) > 1"), b));
        assertEquals(5, e.row(), e.getMessage());
    }

    @Test
    void aDivisionBehindAnOrGuardNamesTheBatchRow() {
        // l = -9223372036854775808 / -1 overflows: only rows with x = 0 reach the division.
        List<FieldVector> b =
                batch(new Integer[] {1, 1, 1, 0, 1, 0}, new String[] {"a", "b", "c", "d", "e", "f"}, new Long[] {
                    5L, 5L, 5L, 4L, 5L, Long.MIN_VALUE
                });
        KernelArithmeticException e =
                assertThrows(KernelArithmeticException.class, () -> evaluate(plan("x <> 0 OR l / (x - 1) > 1"), b));
        assertEquals(5, e.row(), e.getMessage());
        assertEquals(true, e.getMessage().contains("at row 5"), e.getMessage());
    }

    @Test
    void aCastInACaseBranchNamesTheBatchRow() {
        List<FieldVector> b =
                batch(new Integer[] {0, 0, 1, 0, 1, 1}, new String[] {"a", "b", "1", "c", "2", "zz"}, new Long[] {
                    1L, 1L, 1L, 1L, 1L, 1L
                });
        EvaluationException e = assertThrows(
                EvaluationException.class,
                () -> evaluate(plan("CASE WHEN x <> 0 THEN CAST(name AS INT) ELSE 0 END"), b));
        assertEquals(5, e.row(), e.getMessage());
    }
}
