package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.functions.ArrayFunctions;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.types.DataType;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * A function body that hands back its own argument: the argument's owner changes hands exactly
 * once. A computed argument (owned by the call) becomes the result and is freed with it; a batch
 * column stays the batch's. QuiverTestBase fails the test on any byte left over.
 */
class FunctionOwnershipTest extends QuiverTestBase {

    private List<Object> eval(VectorSchemaRoot b, String sql) {
        CompiledExpression e = quiver.compile(b.getSchema(), sql);
        return TestColumns.valuesAndClose(e.evaluate(b, Placement.CPU, allocator));
    }

    @Test
    void anIdentityBodyOverAComputedArgumentFreesItOnce() {
        quiver.functions()
                .register(ArrayFunctions.adapt(
                        "ident",
                        Signature.uniform(1, List.of(DataType.BOOLEAN), Volatility.IMMUTABLE),
                        t -> DataType.BOOLEAN,
                        (arrays, call) -> arrays.get(0)));
        try (VectorSchemaRoot b = TestColumns.batch(
                3, TestColumns.of(allocator, "x", DataType.FLOAT64, Arrays.asList(0.1, 0.9, null), null))) {
            assertEquals(Arrays.asList(false, true, null), eval(b, "ident(x > 0.5)"));
            // Inside an AND chain the result may be written over in place: it must be the call's own vector.
            assertEquals(Arrays.asList(false, false, null), eval(b, "NOT ident(x > 0.5) AND x > 0.5"));
        }
        try (VectorSchemaRoot b = TestColumns.batch(
                3, TestColumns.of(allocator, "f", DataType.BOOLEAN, Arrays.asList(true, false, null), null))) {
            // Over a batch column: the batch's vector is never written over or freed.
            assertEquals(Arrays.asList(false, true, null), eval(b, "NOT ident(f)"));
            assertEquals(Arrays.asList(true, false, null), TestColumns.valuesAndClose(copy(b)));
        }
    }

    private FieldVector copy(VectorSchemaRoot b) {
        return quiver.compile(b.getSchema(), "f").evaluate(b, Placement.CPU, allocator);
    }
}
