package dev.quiver.cpu;

import static dev.quiver.types.ElementType.BOOL;
import static dev.quiver.types.ElementType.FLOAT32;
import static dev.quiver.types.ElementType.FLOAT64;
import static dev.quiver.types.ElementType.INT32;
import static dev.quiver.types.ElementType.INT64;

import dev.quiver.backend.RowMode;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.rowfn.ir.BinaryOp;
import dev.quiver.rowfn.ir.CmpOp;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.rowfn.ir.UnaryOp;
import dev.quiver.types.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every node kind, operation and type combination of the IR against the reference, on hostile
 * data with nulls, at row counts that leave a tail, with every lane count the loops can have,
 * in both row modes.
 */
class OpCoverageTest {
    static final ElementType[] NUMBERS = {INT32, INT64, FLOAT32, FLOAT64};
    private static final int[] ROWS = {1, 7, 63, 64, 65, 1000};
    private static final CpuBackend[] BACKENDS = {
        new CpuBackend(), new CpuBackend(2, 4), new CpuBackend(4, 4), new CpuBackend(8, 4)
    };

    /** Programs over (a, b) of one type, plus Boolean arguments 2 and 3: each op alone, so a failure names it. */
    static List<KernelProgram> programs() {
        List<KernelProgram> out = new ArrayList<>();
        for (ElementType t : ElementType.values()) {
            List<ElementType> types = List.of(t, t, BOOL, BOOL);
            IrNode a = Ir.arg(0, t), b = Ir.arg(1, t), p = Ir.arg(2, BOOL);
            for (UnaryOp op : UnaryOp.values()) {
                if (takes(op.domain(), t)) {
                    out.add(new KernelProgram(types, new IrNode.Unary(op, a)));
                }
            }
            for (BinaryOp op : BinaryOp.values()) {
                if (takes(op.domain(), t)) {
                    out.add(new KernelProgram(types, new IrNode.Binary(op, a, b)));
                }
            }
            for (CmpOp op : CmpOp.values()) {
                if (t != BOOL || op == CmpOp.EQ || op == CmpOp.NE) {
                    out.add(new KernelProgram(types, new IrNode.Compare(op, a, b)));
                }
            }
            out.add(new KernelProgram(types, new IrNode.Select(p, a, b)));
            if (t.isNumeric()) {
                out.add(new KernelProgram(types, new IrNode.Fma(a, b, a)));
                out.add(new KernelProgram(types, new IrNode.Select(new IrNode.Compare(CmpOp.LT, a, b), b, a)));
                for (ElementType to : NUMBERS) {
                    if (to != t) {
                        out.add(new KernelProgram(types, new IrNode.Cast(a, to)));
                    }
                }
                // A check, and literals of the type.
                IrNode lit = Ir.lit(t, 3);
                out.add(new KernelProgram(
                        types,
                        Ir.check(
                                new IrNode.Compare(CmpOp.GT, a, lit),
                                new IrNode.Binary(BinaryOp.MAX, a, lit),
                                "too big",
                                a)));
                out.add(new KernelProgram(
                        types,
                        new IrNode.Binary(BinaryOp.MIN, a, b),
                        new IrNode.Compare(CmpOp.LT, a, b),
                        true,
                        "min, null when a < b"));
            }
        }
        // Booleans: bits with bits, masks with masks, bits with masks, masks of different element types.
        List<ElementType> mixed = List.of(INT32, FLOAT64, BOOL, BOOL, FLOAT32, INT64);
        IrNode i = Ir.arg(0, INT32), x = Ir.arg(1, FLOAT64), p = Ir.arg(2, BOOL), q = Ir.arg(3, BOOL);
        IrNode f = Ir.arg(4, FLOAT32), l = Ir.arg(5, INT64);
        IrNode ci = Ir.compare(CmpOp.GT, i, Ir.lit(0)), cx = Ir.compare(CmpOp.LT, x, Ir.lit(1.0));
        IrNode cf = Ir.compare(CmpOp.NE, f, f), cl = Ir.compare(CmpOp.GE, l, Ir.lit(7L));
        for (IrNode[] pair : new IrNode[][] {{p, q}, {ci, cx}, {p, cx}, {cx, p}, {ci, cf}, {cl, ci}, {cf, cl}}) {
            IrNode u = pair[0], v = pair[1];
            for (BinaryOp op : List.of(BinaryOp.AND, BinaryOp.OR, BinaryOp.XOR)) {
                out.add(new KernelProgram(mixed, new IrNode.Binary(op, u, v)));
            }
            out.add(new KernelProgram(mixed, new IrNode.Compare(CmpOp.EQ, u, v)));
            out.add(new KernelProgram(mixed, new IrNode.Compare(CmpOp.NE, u, v)));
            out.add(new KernelProgram(mixed, Ir.not(u)));
            out.add(new KernelProgram(mixed, new IrNode.Select(u, v, Ir.not(v))));
            out.add(new KernelProgram(mixed, new IrNode.Select(v, x, Ir.cast(i, FLOAT64))));
            out.add(new KernelProgram(mixed, new IrNode.Select(u, Ir.lit(true), v)));
            out.add(new KernelProgram(mixed, x, Ir.and(u, v), true, "x, null when u and v"));
        }
        out.add(new KernelProgram(mixed, new IrNode.Select(Ir.lit(false), p, q)));
        out.add(new KernelProgram(mixed, Ir.lit(true)));
        out.add(new KernelProgram(mixed, p));
        out.add(new KernelProgram(mixed, Ir.check(Ir.and(p, q), Ir.or(p, q), "both", p)));
        // Booleans only: 64 lanes of bits.
        out.add(new KernelProgram(List.of(BOOL, BOOL), Ir.or(Ir.arg(0, BOOL), Ir.not(Ir.arg(1, BOOL)))));
        out.add(new KernelProgram(
                List.of(BOOL, BOOL), Ir.check(Ir.arg(1, BOOL), Ir.arg(0, BOOL), "b set", Ir.arg(1, BOOL))));
        out.add(new KernelProgram(
                List.of(BOOL, BOOL), Ir.arg(0, BOOL), Ir.arg(1, BOOL), false, "non-strict a, null when b"));
        return out;
    }

    static boolean takes(UnaryOp.Domain d, ElementType t) {
        return switch (d) {
            case NUMBER -> t.isNumeric();
            case INTEGER -> t.isInteger();
            case FLOAT -> t.isFloatingPoint();
            case INTEGER_OR_BOOL -> t.isInteger() || t == BOOL;
        };
    }

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (KernelProgram p : programs()) {
            out.add(Arguments.of(p));
        }
        return out.stream();
    }

    @ParameterizedTest
    @MethodSource("cases")
    void matchesTheReference(KernelProgram p) {
        Random r = new Random(Oracle.SEED ^ p.text().hashCode());
        boolean divides = p.hasIntegerDivision();
        try (Arena arena = Arena.ofConfined()) {
            for (int rows : ROWS) {
                List<MemorySegment> args = new ArrayList<>();
                for (ElementType t : p.argTypes()) {
                    args.add(Oracle.fill(arena, t, rows, r));
                }
                MemorySegment valid = Oracle.validity(arena, rows, r, 0.15);
                ElementType t0 = p.argTypes().getFirst();
                if (t0.isInteger() && p.argTypes().get(1) == t0) {
                    // The pairs random data rarely makes: MIN_VALUE / -1, shift counts at and past the width.
                    long min = t0 == INT32 ? Integer.MIN_VALUE : Long.MIN_VALUE,
                            max = t0 == INT32 ? Integer.MAX_VALUE : Long.MAX_VALUE;
                    long[][] pairs = {
                        {min, -1},
                        {min, 1},
                        {max, -1},
                        {min, min},
                        {-7, 2},
                        {7, -2},
                        {-1, 31},
                        {1, 32},
                        {-8, 33},
                        {1, 63},
                        {-1, 64},
                        {5, -1},
                        {min, 2},
                        {max, max}
                    };
                    for (int j = 0; j < pairs.length && j < rows; j++) {
                        int row = (j * 7) % rows;
                        RowInterpreter.write(
                                args.get(0), t0, row, t0 == INT32 ? (Number) (int) pairs[j][0] : (Number) pairs[j][0]);
                        RowInterpreter.write(
                                args.get(1), t0, row, t0 == INT32 ? (Number) (int) pairs[j][1] : (Number) pairs[j][1]);
                        ValidityBitmaps.set(valid, row);
                    }
                }
                if (divides) {
                    // Zero divisors only in null rows: VALID_ROWS succeeds, ALL_ROWS fails at the first.
                    for (int i = 0; i < rows; i++) {
                        Number d = RowInterpreter.read(args.get(1), p.argTypes().get(1), i);
                        if (d.longValue() == 0 && ValidityBitmaps.isValid(valid, i)) {
                            RowInterpreter.write(
                                    args.get(1),
                                    p.argTypes().get(1),
                                    i,
                                    p.argTypes().get(1) == INT32 ? (Number) 3 : (Number) 3L);
                        }
                    }
                }
                for (CpuBackend cpu : BACKENDS) {
                    for (RowMode mode : RowMode.values()) {
                        Oracle.check(cpu, p, args, valid, rows, mode);
                    }
                }
                if (divides) {
                    // And a zero divisor in a valid row fails it, with the reference's message.
                    int row = r.nextInt(rows);
                    ValidityBitmaps.set(valid, row);
                    RowInterpreter.write(
                            args.get(1),
                            p.argTypes().get(1),
                            row,
                            p.argTypes().get(1) == INT32 ? (Number) 0 : (Number) 0L);
                    for (CpuBackend cpu : BACKENDS) {
                        for (RowMode mode : RowMode.values()) {
                            Oracle.check(cpu, p, args, valid, rows, mode);
                        }
                    }
                }
            }
        }
    }
}
