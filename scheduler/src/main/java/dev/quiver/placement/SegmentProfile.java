package dev.quiver.placement;

import dev.quiver.rowfn.ir.BinaryOp;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.UnaryOp;
import dev.quiver.types.ElementType;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Set;

/**
 * What one row of a kernel segment costs, by class: the operations the {@link CostModel} weighs
 * with a device's {@link DeviceFigures}, and the bytes it moves. Shared subtrees count once (the
 * backends compute them once). Fixed per program shape.
 *
 * @param arithmetic      add, subtract, multiply, negate, compare, select, cast, bit operations,
 *                        min, max, abs, floor/ceil/rint/trunc, checks (an fma counts 2)
 * @param divide          divisions, remainders, square roots
 * @param transcendental  exp, log, trigonometric and hyperbolic functions, pow, atan2, hypot, cbrt
 * @param bytesReadPerRow bytes of the arguments per row (a Boolean argument 1/8) plus the validity
 *                        bitmaps' 1/8 per argument
 * @param bytesWrittenPerRow bytes of the result per row plus its validity bitmap's 1/8
 */
public record SegmentProfile(
        int arithmetic, int divide, int transcendental, double bytesReadPerRow, double bytesWrittenPerRow) {

    public static SegmentProfile of(KernelProgram program) {
        Set<IrNode> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        int[] counts = new int[3];
        visit(program.root(), seen, counts);
        program.nullWhen().ifPresent(n -> visit(n, seen, counts));
        double read = 0;
        for (ElementType t : program.argTypes()) {
            read += width(t) + 0.125;
        }
        double written = width(program.resultType()) + 0.125;
        return new SegmentProfile(counts[0], counts[1], counts[2], read, written);
    }

    private static double width(ElementType t) {
        return t.isBitPacked() ? 0.125 : t.byteWidth();
    }

    /** Counts the operations of {@code root}'s tree, each shared node once, with a stack of its own (the tree may be deep). */
    private static void visit(IrNode root, Set<IrNode> seen, int[] counts) {
        Deque<IrNode> todo = new ArrayDeque<>();
        todo.push(root);
        while (!todo.isEmpty()) {
            IrNode n = todo.pop();
            if (seen.add(n)) {
                count(n, counts);
                for (IrNode c : n.children()) {
                    todo.push(c);
                }
            }
        }
    }

    private static void count(IrNode n, int[] counts) {
        switch (n) {
            case IrNode.Arg _ -> {}
            case IrNode.Const _ -> {}
            case IrNode.Unary u when u.op() == UnaryOp.SQRT -> counts[1]++;
            case IrNode.Unary u when u.type().isFloatingPoint() && !u.op().isExact() -> counts[2]++;
            case IrNode.Binary b when b.op() == BinaryOp.DIV || b.op() == BinaryOp.REM -> counts[1]++;
            case IrNode.Binary b when b.op().domain() == UnaryOp.Domain.FLOAT -> counts[2]++;
            case IrNode.Fma _ -> counts[0] += 2;
            default -> counts[0]++;
        }
    }

    /** Bytes per row read and written. */
    public double bytesPerRow() {
        return bytesReadPerRow + bytesWrittenPerRow;
    }

    /** The operation time of one row on {@code f} (one thread of a CPU), nanoseconds. */
    public double opNanos(DeviceFigures f) {
        return arithmetic * f.arithmeticNanos() + divide * f.divideNanos() + transcendental * f.transcendentalNanos();
    }

    public String describe() {
        return String.format(
                Locale.ROOT,
                "%d arith, %d div, %d transcendental, %.1f B/row",
                arithmetic,
                divide,
                transcendental,
                bytesPerRow());
    }
}
