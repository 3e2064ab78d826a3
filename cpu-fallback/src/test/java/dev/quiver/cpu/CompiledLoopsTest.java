package dev.quiver.cpu;

import static dev.quiver.types.ElementType.BOOL;
import static dev.quiver.types.ElementType.FLOAT32;
import static dev.quiver.types.ElementType.FLOAT64;
import static dev.quiver.types.ElementType.INT32;
import static dev.quiver.types.ElementType.INT64;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.backend.KernelInvocation;
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
 * The exact operations once the JIT has compiled the loops (C2 replaces the Vector API's Java
 * code with vector instructions: conversions, shifts, min/max, comparisons with NaN, masks and
 * blends can only go wrong there), bit for bit against the reference.
 *
 * <p>A program multiplexes up to {@value #GROUP} exact operations with one result type: row
 * {@code r} returns operation {@code k = r % n} (a chain of selects on an argument {@code k}),
 * and every operation is computed for every row, so one compiled loop checks several. (Not
 * more: past some 60 vector operations in one loop C2 stops inlining, at its node count
 * cutoff, and the rest of the loop runs the Vector API's boxed Java code.) The batch is large
 * enough for the JIT to compile the loop within the first passes.
 */
class CompiledLoopsTest {
    private static final int ROWS = 1 << 20;
    private static final int DISTINCT = 1 << 16;
    private static final int MAX_PASSES = 30;
    private static final double COMPILED_NANOS_PER_ROW = 30;
    static final int GROUP = 4;

    // Arguments: k (selector), two of each number type, two Booleans.
    static final List<ElementType> WIDE =
            List.of(INT32, INT32, INT32, INT64, INT64, FLOAT32, FLOAT32, FLOAT64, FLOAT64, BOOL, BOOL);
    static final List<ElementType> NARROW = List.of(INT32, INT32, INT32, FLOAT32, FLOAT32, BOOL, BOOL);

    private static IrNode arg(List<ElementType> types, ElementType t, int which) {
        int seen = 0;
        for (int k = 1; k < types.size(); k++) {
            if (types.get(k) == t && seen++ == which) {
                return Ir.arg(k, t);
            }
        }
        throw new IllegalArgumentException(t + " #" + which);
    }

    /** Every exact operation with a result of {@code t}, over the arguments of {@code types}. */
    static List<IrNode> operations(List<ElementType> types, ElementType t) {
        List<IrNode> ops = new ArrayList<>();
        List<ElementType> numbers =
                types.stream().skip(1).filter(ElementType::isNumeric).distinct().toList();
        IrNode p = arg(types, BOOL, 0), q = arg(types, BOOL, 1);
        if (t == BOOL) {
            for (ElementType n : numbers) {
                IrNode a = arg(types, n, 0), b = arg(types, n, 1);
                for (CmpOp op : CmpOp.values()) {
                    ops.add(new IrNode.Compare(op, a, b));
                }
            }
            IrNode m1 =
                    new IrNode.Compare(CmpOp.LT, arg(types, numbers.getLast(), 0), arg(types, numbers.getLast(), 1));
            IrNode m2 = new IrNode.Compare(CmpOp.GE, arg(types, INT32, 0), arg(types, INT32, 1));
            for (IrNode[] pair : new IrNode[][] {{p, q}, {m1, m2}, {p, m1}, {m2, q}}) {
                for (BinaryOp op : List.of(BinaryOp.AND, BinaryOp.OR, BinaryOp.XOR)) {
                    ops.add(new IrNode.Binary(op, pair[0], pair[1]));
                }
                ops.add(new IrNode.Compare(CmpOp.EQ, pair[0], pair[1]));
                ops.add(new IrNode.Compare(CmpOp.NE, pair[0], pair[1]));
                ops.add(Ir.not(pair[0]));
                ops.add(new IrNode.Select(pair[0], pair[1], Ir.not(pair[1])));
            }
            return ops;
        }
        IrNode a = arg(types, t, 0), b = arg(types, t, 1);
        for (UnaryOp op : UnaryOp.values()) {
            if (op.isExact() && OpCoverageTest.takes(op.domain(), t)) {
                ops.add(new IrNode.Unary(op, a));
            }
        }
        IrNode divisor =
                t.isInteger() ? new IrNode.Select(new IrNode.Compare(CmpOp.EQ, b, Ir.lit(t, 0)), Ir.lit(t, 1), b) : b;
        for (BinaryOp op : BinaryOp.values()) {
            if (!OpCoverageTest.takes(op.domain(), t)
                    || op == BinaryOp.POW
                    || op == BinaryOp.ATAN2
                    || op == BinaryOp.HYPOT) {
                continue;
            }
            ops.add(new IrNode.Binary(op, a, op.failsOnZeroDivisor() ? divisor : b));
        }
        ops.add(new IrNode.Fma(a, b, a));
        ops.add(new IrNode.Select(new IrNode.Compare(CmpOp.LT, a, b), a, b));
        ops.add(new IrNode.Select(p, a, b));
        for (ElementType from : numbers) {
            if (from != t) {
                ops.add(new IrNode.Cast(arg(types, from, 0), t));
            }
        }
        return ops;
    }

    static KernelProgram multiplexer(List<ElementType> types, List<IrNode> ops) {
        IrNode k = Ir.arg(0, INT32);
        IrNode root = ops.getLast();
        for (int j = ops.size() - 2; j >= 0; j--) {
            root = new IrNode.Select(new IrNode.Compare(CmpOp.EQ, k, Ir.lit(j)), ops.get(j), root);
        }
        return new KernelProgram(
                types,
                root,
                "multiplexer of " + ops.stream().map(KernelProgram::render).toList());
    }

    static Stream<Arguments> programs() {
        List<Arguments> out = new ArrayList<>();
        for (List<ElementType> types : List.of(NARROW, WIDE)) {
            for (ElementType t :
                    types == NARROW ? List.of(INT32, FLOAT32, BOOL) : List.of(INT32, INT64, FLOAT32, FLOAT64, BOOL)) {
                List<IrNode> all = operations(types, t);
                for (int from = 0; from < all.size(); from += GROUP) {
                    List<IrNode> ops = all.subList(from, Math.min(all.size(), from + GROUP));
                    out.add(Arguments.of(multiplexer(types, ops), ops));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest
    @MethodSource("programs")
    void compiledLoopsMatchTheReference(KernelProgram p, List<IrNode> ops) {
        int operations = ops.size();
        Random r = new Random(Oracle.SEED ^ p.text().hashCode() ^ p.argTypes().size());
        // One thread: the timing below tells whether the loop itself runs compiled.
        CpuBackend cpu = new CpuBackend(1);
        ElementType rt = p.resultType();
        try (Arena arena = Arena.ofConfined()) {
            List<MemorySegment> args = new ArrayList<>();
            for (ElementType t : p.argTypes()) {
                MemorySegment s = Oracle.fill(arena, t, ROWS, r);
                args.add(s);
            }
            for (int i = 0; i < ROWS; i++) {
                RowInterpreter.write(args.getFirst(), INT32, i, i % operations);
            }
            MemorySegment valid = Oracle.validity(arena, ROWS, r, 0.05);
            long outBytes = rt.isBitPacked() ? ROWS / 8 : (long) ROWS * rt.byteWidth();
            MemorySegment out = arena.allocate(outBytes, 64);
            Number[][] expected = new Number[DISTINCT][];
            Number[] row = new Number[p.arity()];
            for (int i = 0; i < DISTINCT; i++) {
                for (int k = 0; k < row.length; k++) {
                    row[k] = RowInterpreter.read(args.get(k), p.argTypes().get(k), i);
                }
                expected[i] = new Number[] {RowInterpreter.evaluate(p.root(), row)};
            }
            // One mode per program (each mode is its own loop to compile), both across the programs.
            RowMode mode = (p.text().hashCode() & 1) == 0 ? RowMode.VALID_ROWS : RowMode.ALL_ROWS;
            int compiled = 0;
            long slowest = 0;
            for (int pass = 0; pass < MAX_PASSES && compiled < 2; pass++) {
                long nanos = cpu.execute(p, new KernelInvocation(args, valid, out, ROWS, mode))
                        .nanos();
                slowest = Math.max(slowest, nanos);
                // Compiled code is an order of magnitude faster than the Vector API's Java fallback: fast in
                // absolute terms, or (on a loaded machine, where every pass is slower) 4x faster than the slowest pass.
                if ((double) nanos / ROWS < COMPILED_NANOS_PER_ROW || nanos * 4 < slowest) {
                    compiled++;
                }
                for (int i = 0; i < DISTINCT; i++) {
                    if (!ValidityBitmaps.isValid(valid, i)) {
                        continue;
                    }
                    Number e = expected[i][0], a = RowInterpreter.read(out, rt, i);
                    if (Oracle.bits(e) != Oracle.bits(a)) {
                        StringBuilder in = new StringBuilder();
                        for (int k = 0; k < row.length; k++) {
                            in.append(' ')
                                    .append(RowInterpreter.read(
                                            args.get(k), p.argTypes().get(k), i));
                        }
                        fail(p.text() + " pass " + pass + " (" + mode + ", " + nanos / ROWS + " ns/row) row " + i
                                + ": operation " + KernelProgram.render(ops.get(i % operations))
                                + " expected " + e + " got " + a + " for" + in);
                    }
                }
            }
            assertTrue(compiled > 0, p.text() + " never ran at compiled speed in " + MAX_PASSES + " passes");
        }
    }
}
