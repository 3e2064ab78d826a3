package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.errors.QuiverException;
import dev.quiver.expr.Expr;
import dev.quiver.types.ElementType;
import dev.quiver.value.ColumnarValue;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** Bad input gives an exception that says what is wrong, and leaks nothing. */
class BadInputTest extends QuiverTestBase {
    private static final Schema XY = new Schema(List.of(
            TestBatches.field("x", ElementType.FLOAT64),
            TestBatches.field("y", ElementType.FLOAT64),
            new Field("name", FieldType.nullable(new ArrowType.Utf8()), null)));

    private VectorSchemaRoot batch(BufferAllocator a, int xRows, int yRows, int rowCount) {
        VectorSchemaRoot root = VectorSchemaRoot.create(XY, a);
        Float8Vector x = (Float8Vector) root.getVector("x"), y = (Float8Vector) root.getVector("y");
        x.allocateNew(xRows);
        y.allocateNew(yRows);
        for (int i = 0; i < xRows; i++) {
            x.set(i, i);
        }
        for (int i = 0; i < yRows; i++) {
            y.set(i, 2.0 * i);
        }
        ((VarCharVector) root.getVector("name")).allocateNew();
        root.setRowCount(rowCount); // sets every vector's value count, so the columns' own counts come after
        x.setValueCount(xRows);
        y.setValueCount(yRows);
        return root;
    }

    @Test
    void columnsOfDifferentLengthsAreRejected() {
        CompiledExpression e = quiver.compile(XY, Expr.parse("x + y"));
        try (VectorSchemaRoot b = batch(allocator, 10, 7, 10)) {
            for (Placement p : Placement.values()) {
                if (p == Placement.OPENCL && quiver.openClDevices().isEmpty()) {
                    continue;
                }
                QuiverException ex = assertThrows(QuiverException.class, () -> e.evaluate(b, p));
                assertEquals("column 'y' has 7 values but the batch has 10 rows", ex.getMessage());
            }
        }
    }

    @Test
    void anUnsupportedColumnTypeIsRejectedAtPlanning() {
        QuiverException ex = assertThrows(QuiverException.class, () -> quiver.compile(XY, Expr.parse("x + name")));
        assertEquals("cannot apply + to Float64 and Utf8 in (x + name)", ex.getMessage());
    }

    @Test
    void aMissingColumnIsNamedWithTheColumnsThatExist() {
        QuiverException ex =
                assertThrows(QuiverException.class, () -> quiver.compile(XY, Expr.parse("sqrt(x*x + z*z)")));
        assertEquals("no column 'z' in the schema (columns: x Float64, y Float64, name Utf8)", ex.getMessage());
    }

    @Test
    void unknownFunctionsAndWrongArityAreNamed() {
        QuiverException unknown =
                assertThrows(QuiverException.class, () -> quiver.compile(XY, Expr.parse("hypto(x, y)")));
        assertTrue(
                unknown.getMessage().startsWith("unknown function 'hypto'; did you mean 'hypot'?"),
                unknown.getMessage());
        QuiverException arity = assertThrows(QuiverException.class, () -> quiver.compile(XY, Expr.parse("sqrt(x, y)")));
        assertEquals(
                "sqrt takes 1 argument, got 2: sqrt(Float64, Float64); signatures: sqrt(Float64), sqrt(Float32)",
                arity.getMessage());
        QuiverException syntax = assertThrows(QuiverException.class, () -> Expr.parse("sqrt(x*x + y"));
        assertTrue(
                syntax.getMessage().startsWith("syntax error at column 13 in \"sqrt(x*x + y\": expected ')'"),
                syntax.getMessage());
    }

    @Test
    void aBatchThatDoesNotMatchThePlannedSchemaIsRejected() {
        CompiledExpression e = quiver.compile(XY, Expr.parse("x * 2"));
        Schema other = new Schema(List.of(TestBatches.field("x", ElementType.INT64)));
        try (VectorSchemaRoot b = VectorSchemaRoot.create(other, allocator)) {
            b.allocateNew();
            b.setRowCount(0);
            QuiverException ex = assertThrows(QuiverException.class, () -> e.evaluate(b, Placement.CPU));
            assertEquals(
                    "column 'x' is Int(64, true) in the batch but was planned as FloatingPoint(DOUBLE)",
                    ex.getMessage());
        }
    }

    @Test
    void aClosedAllocatorGivesAClearErrorAndLeaksNothing() {
        CompiledExpression e = quiver.compile(XY, Expr.parse("x + y"));
        BufferAllocator child = allocator.newChildAllocator("results", 0, Long.MAX_VALUE);
        child.close();
        try (VectorSchemaRoot b = batch(allocator, 10, 10, 10)) {
            QuiverException ex = assertThrows(QuiverException.class, () -> e.evaluate(b, Placement.CPU, child));
            assertTrue(
                    ex.getMessage()
                            .startsWith("cannot allocate the 10-row result of (x + y) from allocator 'results': "),
                    ex.getMessage());
        }
    }

    @Test
    void integerDivisionByZeroNamesTheExpressionAndRowAndLeaksNothing() {
        Schema s = new Schema(
                List.of(TestBatches.field("a", ElementType.INT32), TestBatches.field("b", ElementType.INT32)));
        CompiledExpression e = quiver.compile(s, Expr.parse("a / b"));
        try (VectorSchemaRoot root = VectorSchemaRoot.create(s, allocator)) {
            var a = (IntVector) root.getVector("a");
            var b = (IntVector) root.getVector("b");
            a.allocateNew(20);
            b.allocateNew(20);
            for (int i = 0; i < 20; i++) {
                a.set(i, 100);
                b.set(i, i == 13 ? 0 : 5);
            }
            a.setValueCount(20);
            b.setValueCount(20);
            root.setRowCount(20);
            KernelArithmeticException ex =
                    assertThrows(KernelArithmeticException.class, () -> e.evaluate(root, Placement.CPU));
            assertEquals("division by zero in (a / b) at row 13 (on cpu)", ex.getMessage());
            b.setNull(13);
            try (FieldVector out = e.evaluate(root, Placement.CPU)) {
                assertTrue(out.isNull(13));
                assertEquals(20, ((IntVector) out).get(12));
            }
        }
    }

    @Test
    void placementOpenClWithoutADeviceSaysWhy() {
        try (Quiver cpuOnly =
                        Quiver.builder().allocator(allocator).openCl(false).build();
                VectorSchemaRoot b = batch(allocator, 4, 4, 4)) {
            CompiledExpression e = cpuOnly.compile(XY, Expr.parse("x + y"));
            QuiverException ex = assertThrows(QuiverException.class, () -> e.evaluate(b, Placement.OPENCL));
            assertEquals(
                    "placement OPENCL, but no OpenCL device can run (x + y): disabled by Quiver.builder().openCl(false)",
                    ex.getMessage());
            try (FieldVector out = e.evaluate(b, Placement.AUTO)) {
                assertEquals(9.0, ((Float8Vector) out).get(3));
            }
            // Literals only: nothing runs on a device, so OPENCL does not fail for want of one.
            CompiledExpression literal = cpuOnly.compile(XY, Expr.parse("1 + 2"));
            try (FieldVector out = literal.evaluate(b, Placement.OPENCL)) {
                assertEquals(3, ((IntVector) out).get(3));
            }
        }
    }

    @Test
    void literalsOnlyGiveAScalarUnlessAVectorIsAskedFor() {
        CompiledExpression e = quiver.compile(XY, Expr.parse("sqrt(3*3 + 4*4)"));
        try (VectorSchemaRoot b = batch(allocator, 3, 3, 3)) {
            ColumnarValue v = e.evaluateValue(b, Placement.AUTO, allocator);
            ColumnarValue.Scalar s = assertInstanceOf(ColumnarValue.Scalar.class, v);
            assertEquals(5.0, s.value().value());
            try (FieldVector out = e.evaluate(b)) {
                assertEquals(3, out.getValueCount());
                assertEquals(5.0, ((Float8Vector) out).get(2));
            }
        }
    }

    @Test
    void dictionaryEncodedColumnsWithoutTheirDictionariesAreRejectedNotComputedOnTheirIndices() {
        var encoding = new DictionaryEncoding(1L, false, new ArrowType.Int(32, true));
        Field price = new Field("price", new FieldType(true, new ArrowType.Int(32, true), encoding), null);
        Schema encoded = new Schema(List.of(price));
        QuiverException atPlanning =
                assertThrows(QuiverException.class, () -> quiver.compile(encoded, Expr.parse("price * 2")));
        assertEquals(
                "column 'price' is dictionary-encoded (id 1) and no dictionary with that id was given: compile with the "
                        + "reader's dictionaries",
                atPlanning.getMessage());
        // Planned as plain Int32, but a batch brings the same column dictionary-encoded.
        Schema plain = new Schema(List.of(TestBatches.field("price", ElementType.INT32)));
        CompiledExpression e = quiver.compile(plain, Expr.parse("price * 2"));
        try (VectorSchemaRoot b = VectorSchemaRoot.create(encoded, allocator)) {
            b.allocateNew();
            b.setRowCount(0);
            QuiverException perBatch = assertThrows(QuiverException.class, () -> e.evaluate(b, Placement.CPU));
            assertEquals(
                    "column 'price' is dictionary-encoded in the batch (indices Int(32, true)) but was planned as "
                            + "Int(32, true): decode it first",
                    perBatch.getMessage());
        }
    }

    @Test
    void rowsPastTheResultButWithinItsCapacityReadAsNull() {
        CompiledExpression e = quiver.compile(XY, Expr.parse("x + y"));
        try (VectorSchemaRoot b = batch(allocator, 1000, 1000, 1000)) {
            // Leave set bits in freed memory of the result bitmap's size (125 bytes, rounded to 128),
            // so that reused memory is not zero by luck.
            List<ArrowBuf> dirty = new ArrayList<>();
            for (int k = 0; k < 64; k++) {
                ArrowBuf buf = allocator.buffer(128);
                buf.setOne(0, buf.capacity());
                dirty.add(buf);
            }
            dirty.forEach(ArrowBuf::close);
            try (FieldVector out = e.evaluate(b, Placement.CPU)) {
                assertRowsPastTheEndAreNull(out);
            }
        }
    }

    private static void assertRowsPastTheEndAreNull(FieldVector out) {
        int capacity = out.getValueCapacity();
        assertTrue(capacity > 1000, "capacity " + capacity);
        out.setValueCount(capacity);
        for (int i = 1000; i < capacity; i++) {
            assertTrue(out.isNull(i), "row " + i + " of the capacity");
        }
        assertEquals(999.0 + 1998.0, ((Float8Vector) out).get(999));
    }

    @Test
    void aClosedQuiverRefusesWork() {
        Quiver q = Quiver.builder().allocator(allocator).openCl(false).build();
        CompiledExpression e = q.compile(XY, Expr.parse("x + y"));
        q.close();
        try (VectorSchemaRoot b = batch(allocator, 2, 2, 2)) {
            IllegalStateException ex = assertThrows(IllegalStateException.class, () -> e.evaluate(b));
            assertEquals("this Quiver instance is closed", ex.getMessage());
        }
    }
}
