package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.functions.ArrayFunctions;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.physical.LiteralExpr;
import dev.quiver.types.DataType;
import dev.quiver.value.Values;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** The example of docs/functions.md, as written there. */
class FunctionsGuideTest extends QuiverTestBase {

    static ScalarFunction clamp() {
        return ArrayFunctions.adapt(
                "clamp",
                Signature.uniform(3, List.of(DataType.FLOAT64), Volatility.IMMUTABLE)
                        .withParameterNames("x", "lo", "hi"),
                argTypes -> DataType.FLOAT64,
                (arrays, call) -> {
                    Float8Vector x = (Float8Vector) arrays.get(0),
                            lo = (Float8Vector) arrays.get(1),
                            hi = (Float8Vector) arrays.get(2);
                    int n = x.getValueCount();
                    Float8Vector out = new Float8Vector("clamp", call.config().allocator());
                    out.allocateNew(n);
                    for (int i = 0; i < n; i++) {
                        if (x.isNull(i) || lo.isNull(i) || hi.isNull(i)) {
                            out.setNull(i);
                        } else {
                            out.set(i, Math.max(lo.get(i), Math.min(hi.get(i), x.get(i))));
                        }
                    }
                    out.setValueCount(n);
                    return out;
                });
    }

    @Test
    void theGuidesClampRunsWithNamedArgumentsCastsAndFolding() {
        quiver.functions().register(clamp());
        Schema schema = new Schema(List.of(DataType.INT32.toField("price", true)));
        CompiledExpression e = quiver.compile(schema, "clamp(price, 0, hi => 100)");
        try (VectorSchemaRoot batch = VectorSchemaRoot.create(schema, allocator)) {
            IntVector price = (IntVector) batch.getVector(0);
            price.allocateNew(4);
            price.set(0, -5);
            price.set(1, 50);
            price.setNull(2);
            price.set(3, 500);
            price.setValueCount(4);
            batch.setRowCount(4);
            try (FieldVector out = e.evaluate(batch, Placement.CPU)) {
                List<Object> values = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    values.add(Values.get(out, i).value());
                }
                assertEquals(Arrays.asList(0.0, 50.0, null, 100.0), values);
            }
        }
        // All literals: the immutable call is folded into one literal at planning.
        CompiledExpression folded = quiver.compile(schema, "clamp(5, 0, 3)");
        LiteralExpr lit = assertInstanceOf(LiteralExpr.class, folded.plan().root());
        assertEquals(3.0, lit.value().value());
    }
}
