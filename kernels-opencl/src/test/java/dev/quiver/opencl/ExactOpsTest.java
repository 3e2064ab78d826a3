package dev.quiver.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.backend.RowMode;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.rowfn.ir.BinaryOp;
import dev.quiver.rowfn.ir.CmpOp;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.UnaryOp;
import dev.quiver.types.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Every operation the IR has whose result is exact, on every type it takes, against the
 * reference bit for bit: random data full of NaN, ±infinity, ±0, subnormals, integer extremes and
 * nulls, at 1, 7, 9, 63 and 1000 rows, in both row modes.
 */
class ExactOpsTest extends DeviceTestBase {
    private static final long SEED = Long.getLong("quiver.seed", 20_261_130L);

    /** Arguments (T, T, T, Boolean): X, Y, Z of the type under test and a Boolean B. */
    private static List<ElementType> types(ElementType t) {
        return List.of(t, t, t, ElementType.BOOL);
    }

    /** The exact programs over (T, T, T, Boolean). */
    static List<IrNode> exactNodes(ElementType t) {
        IrNode x = Ir.arg(0, t), y = Ir.arg(1, t), z = Ir.arg(2, t), b = Ir.arg(3, ElementType.BOOL);
        List<IrNode> nodes = new ArrayList<>();
        for (UnaryOp op : UnaryOp.values()) {
            if (op.isExact() && accepts(op.domain(), t)) {
                nodes.add(new IrNode.Unary(op, x));
            }
        }
        for (BinaryOp op : BinaryOp.values()) {
            boolean approximate = op == BinaryOp.POW || op == BinaryOp.ATAN2 || op == BinaryOp.HYPOT;
            if (!approximate && accepts(op.domain(), t)) {
                nodes.add(new IrNode.Binary(op, x, y));
            }
        }
        for (CmpOp op : CmpOp.values()) {
            if (t != ElementType.BOOL || op == CmpOp.EQ || op == CmpOp.NE) {
                nodes.add(new IrNode.Compare(op, x, y));
            }
        }
        nodes.add(new IrNode.Select(b, x, y));
        if (t != ElementType.BOOL) {
            nodes.add(new IrNode.Fma(x, y, z));
            nodes.add(new IrNode.Select(new IrNode.Compare(CmpOp.LT, x, y), z, x));
            for (ElementType to : ElementType.values()) {
                if (to.isNumeric() && to != t) {
                    nodes.add(new IrNode.Cast(x, to));
                }
            }
        } else {
            nodes.add(new IrNode.Select(x, y, z));
            nodes.add(new IrNode.Binary(
                    BinaryOp.XOR, new IrNode.Unary(UnaryOp.NOT, x), new IrNode.Binary(BinaryOp.AND, y, b)));
        }
        return nodes;
    }

    private static boolean accepts(UnaryOp.Domain domain, ElementType t) {
        return switch (domain) {
            case NUMBER -> t.isNumeric();
            case INTEGER -> t.isInteger();
            case FLOAT -> t.isFloatingPoint();
            case INTEGER_OR_BOOL -> t.isInteger() || t == ElementType.BOOL;
        };
    }

    @OnEveryDevice
    void int32(OpenClBackend backend) {
        everyExactOperation(backend, ElementType.INT32);
    }

    @OnEveryDevice
    void int64(OpenClBackend backend) {
        everyExactOperation(backend, ElementType.INT64);
    }

    @OnEveryDevice
    void float32(OpenClBackend backend) {
        everyExactOperation(backend, ElementType.FLOAT32);
    }

    @OnEveryDevice
    void float64(OpenClBackend backend) {
        everyExactOperation(backend, ElementType.FLOAT64);
    }

    @OnEveryDevice
    void booleans(OpenClBackend backend) {
        everyExactOperation(backend, ElementType.BOOL);
    }

    private void everyExactOperation(OpenClBackend backend, ElementType t) {
        List<IrNode> nodes = exactNodes(t);
        assertTrue(nodes.size() >= (t == ElementType.BOOL ? 8 : 20), "the list covers the operations: " + nodes);
        int runs = 0;
        for (IrNode node : nodes) {
            KernelProgram program = new KernelProgram(types(t), node);
            boolean divides = node instanceof IrNode.Binary bin && bin.op().failsOnZeroDivisor() && t.isInteger();
            for (int rows : Differential.ROW_COUNTS) {
                // Seeded by the node's text, stable across runs (an enum's hashCode is not).
                SplittableRandom random = new SplittableRandom(
                        SEED * 31 + rows * 7919L + KernelProgram.render(node).hashCode());
                try (Arena arena = Arena.ofConfined()) {
                    List<MemorySegment> args = new ArrayList<>();
                    Number[][] values = new Number[3][rows];
                    for (int k = 0; k < 3; k++) {
                        for (int r = 0; r < rows; r++) {
                            values[k][r] = TestData.any(t, random);
                        }
                        Number[] column = values[k];
                        args.add(Differential.column(arena, t, rows, r -> column[r]));
                    }
                    args.add(Differential.column(arena, ElementType.BOOL, rows, r -> random.nextInt(2)));
                    MemorySegment validity = Differential.validity(arena, rows, random, 0.2);
                    if (divides) {
                        // Zero divisors behind nulls: VALID_ROWS must not fail (and ALL_ROWS must, at the first).
                        for (int r = 0; r < rows; r++) {
                            if (values[1][r].longValue() == 0) {
                                ValidityBitmaps.clear(validity, r);
                            }
                        }
                    }
                    Differential.Inputs in = new Differential.Inputs(args, validity, rows);
                    for (RowMode mode : RowMode.values()) {
                        Differential.check(backend, program, in, mode, -1, arena, "exact " + t);
                        runs++;
                    }
                }
            }
        }
        assertEquals(nodes.size() * Differential.ROW_COUNTS.length * 2, runs);
    }
}
