package dev.quiver.opencl;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.rowfn.ir.BinaryOp;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.UnaryOp;
import dev.quiver.types.ElementType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Finds the first non-null row whose computation divides an integer by zero, by evaluating the
 * program's integer subtrees on the host, row by row.
 *
 * <p>Only used after a kernel raised its division-by-zero flag, which it also raises for rows
 * that are null (their values are garbage): the slow path runs only when a batch has a zero
 * divisor somewhere. A divisor is always an integer subtree, and integer subtrees contain only
 * integer nodes (casts only widen, never from floating point), so integer evaluation suffices.
 */
final class ZeroDivisorSearch {
    private final List<MemorySegment> args;
    private long row;
    private boolean zeroDivisor;

    private ZeroDivisorSearch(List<MemorySegment> args) {
        this.args = args;
    }

    /** The first row valid in {@code invocation.validity()} with a zero divisor, or -1 when there is none. */
    static long firstFailingRow(KernelProgram program, KernelInvocation invocation) {
        ZeroDivisorSearch search = new ZeroDivisorSearch(invocation.args());
        for (long r = 0; r < invocation.rows(); r++) {
            if (ValidityBitmaps.isValid(invocation.validity(), r) && search.divides(program.root(), r)) {
                return r;
            }
        }
        return -1;
    }

    private boolean divides(IrNode root, long r) {
        row = r;
        zeroDivisor = false;
        visit(root);
        return zeroDivisor;
    }

    private void visit(IrNode node) {
        if (zeroDivisor) {
            return;
        }
        if (!node.type().isFloatingPoint()) {
            evaluate(node);
            return;
        }
        for (IrNode child : node.children()) {
            visit(child);
        }
    }

    /**
     * The value of an integer node with Java's semantics, as a long (INT32 values sign-extended).
     * Sets {@link #zeroDivisor} and stops at the first zero divisor.
     */
    private long evaluate(IrNode node) {
        if (zeroDivisor) {
            return 0;
        }
        ElementType type = node.type();
        return switch (node) {
            case IrNode.Arg a -> type == ElementType.INT32
                    ? args.get(a.index()).getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, row)
                    : args.get(a.index()).getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, row);
            case IrNode.Const c -> c.value().longValue();
            // INT32 to INT64: the long already holds the sign-extended int.
            case IrNode.Cast c -> evaluate(c.input());
            case IrNode.Unary u -> {
                long x = evaluate(u.input());
                if (u.op() == UnaryOp.SQRT) {
                    throw new IllegalStateException("sqrt of an integer in " + node);
                }
                yield wrap(type, u.op() == UnaryOp.NEG ? -x : Math.abs(x));
            }
            case IrNode.Binary b -> {
                long l = evaluate(b.left());
                long r = evaluate(b.right());
                if (b.op() == BinaryOp.DIV && r == 0) {
                    zeroDivisor = true;
                    yield 0;
                }
                yield wrap(type, switch (b.op()) {
                    case ADD -> l + r;
                    case SUB -> l - r;
                    case MUL -> l * r;
                    // Long.MIN_VALUE / -1 is Long.MIN_VALUE in Java; for INT32 the long quotient 2^31 wraps to MIN.
                    case DIV -> l / r;
                    case MIN -> Math.min(l, r);
                    case MAX -> Math.max(l, r);
                });
            }
            case IrNode.Fma f -> {
                long a = evaluate(f.a());
                long b = evaluate(f.b());
                yield wrap(type, a * b + evaluate(f.c()));
            }
        };
    }

    /** Narrows to the node's width: INT32 results wrap at 32 bits (exact int operands keep the long math exact). */
    private static long wrap(ElementType type, long value) {
        return type == ElementType.INT32 ? (int) value : value;
    }
}
