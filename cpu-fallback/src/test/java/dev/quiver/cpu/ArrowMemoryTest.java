package dev.quiver.cpu;

import static dev.quiver.types.ElementType.FLOAT64;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.RowMode;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.memory.VectorView;
import dev.quiver.rowfn.ir.CmpOp;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.Float8Vector;
import org.junit.jupiter.api.Test;

/** A run over Arrow vectors' own memory: Float64 inputs with nulls, a Boolean (bitmap) result. */
class ArrowMemoryTest {

    @Test
    @SuppressWarnings("restricted")
    void comparesArrowVectorsIntoABitVector() {
        int rows = 1003;
        IrNode x = Ir.arg(0, FLOAT64), y = Ir.arg(1, FLOAT64);
        KernelProgram p = new KernelProgram(
                List.of(FLOAT64, FLOAT64),
                Ir.compare(CmpOp.LT, Ir.mul(x, x), y),
                Ir.compare(CmpOp.NE, y, y),
                true,
                "x * x < y, null when y is NaN");
        try (BufferAllocator allocator = new RootAllocator()) {
            try (Float8Vector xs = new Float8Vector("x", allocator);
                    Float8Vector ys = new Float8Vector("y", allocator);
                    BitVector out = new BitVector("out", allocator)) {
                xs.allocateNew(rows);
                ys.allocateNew(rows);
                out.allocateNew(rows);
                for (int i = 0; i < rows; i++) {
                    if (i % 7 != 3) {
                        xs.set(i, i * 0.1 - 50);
                    }
                    if (i % 11 != 5) {
                        ys.set(i, i % 13 == 0 ? Double.NaN : i * 0.5);
                    }
                }
                xs.setValueCount(rows);
                ys.setValueCount(rows);
                out.setValueCount(rows);
                for (RowMode mode : RowMode.values()) {
                    try (VectorView xv = VectorView.of(xs);
                            VectorView yv = VectorView.of(ys);
                            VectorView ov = VectorView.of(out);
                            Arena arena = Arena.ofConfined()) {
                        // A BitVector's data is a bitmap: alias it directly (VectorView sizes data by byte width).
                        MemorySegment bits = MemorySegment.ofAddress(
                                        out.getDataBuffer().memoryAddress())
                                .reinterpret(VectorView.validityBytes(rows), arena, null);
                        ValidityBitmaps.and(ov.validity(), List.of(xv.validity(), yv.validity()), rows);
                        new CpuBackend()
                                .execute(
                                        p,
                                        new KernelInvocation(
                                                List.of(xv.data(), yv.data()), ov.validity(), bits, rows, mode));
                    }
                    for (int i = 0; i < rows; i++) {
                        boolean valid = i % 7 != 3 && i % 11 != 5 && i % 13 != 0;
                        assertEquals(valid, !out.isNull(i), "validity of row " + i);
                        if (valid) {
                            double xi = i * 0.1 - 50;
                            assertEquals(xi * xi < i * 0.5 ? 1 : 0, out.get(i), "row " + i);
                        }
                    }
                }
            }
            assertEquals(0, allocator.getAllocatedMemory());
        }
    }
}
