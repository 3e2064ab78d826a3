package dev.quiver.planning;

import dev.quiver.expr.Operator;
import dev.quiver.rowfn.ir.CmpOp;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;

/**
 * SQL comparisons as IR. The IR compares as Java does (every comparison with NaN false but
 * {@code !=}); SQL orders NaN above every number and equal to itself, which is what Quiver's
 * comparison kernels do. For floats the fused form says so explicitly:
 * {@code a < b} is {@code a < b || (isnan(b) && !isnan(a))}, {@code a = b} is
 * {@code a == b || (isnan(a) && isnan(b))}, and the others follow from those two.
 */
final class SqlComparisons {
    private SqlComparisons() {}

    static boolean fusable(Operator op) {
        return switch (op) {
            case EQ, NOT_EQ, LT, LT_EQ, GT, GT_EQ -> true;
            default -> false;
        };
    }

    static IrNode compare(Operator op, IrNode a, IrNode b) {
        if (!a.type().isFloatingPoint()) {
            return Ir.compare(
                    switch (op) {
                        case EQ -> CmpOp.EQ;
                        case NOT_EQ -> CmpOp.NE;
                        case LT -> CmpOp.LT;
                        case LT_EQ -> CmpOp.LE;
                        case GT -> CmpOp.GT;
                        case GT_EQ -> CmpOp.GE;
                        default -> throw new IllegalArgumentException("not a comparison: " + op);
                    },
                    a,
                    b);
        }
        if (isNumberLiteral(b)) {
            return againstNumber(op, a, b);
        }
        if (isNumberLiteral(a)) {
            return againstNumber(op.swap(), b, a);
        }
        return switch (op) {
            case EQ -> eq(a, b);
            case NOT_EQ -> Ir.not(eq(a, b));
            case LT -> lt(a, b);
            case GT -> lt(b, a);
            case LT_EQ -> Ir.not(lt(b, a));
            case GT_EQ -> Ir.not(lt(a, b));
            default -> throw new IllegalArgumentException("not a comparison: " + op);
        };
    }

    private static boolean isNumberLiteral(IrNode n) {
        return n instanceof IrNode.Const c && !Double.isNaN(c.value().doubleValue());
    }

    /** {@code x op c} for a literal {@code c} that is not NaN: NaN {@code x} is above it. */
    private static IrNode againstNumber(Operator op, IrNode x, IrNode c) {
        return switch (op) {
            case EQ -> Ir.compare(CmpOp.EQ, x, c);
            case NOT_EQ -> Ir.compare(CmpOp.NE, x, c);
            case LT -> Ir.compare(CmpOp.LT, x, c);
            case LT_EQ -> Ir.compare(CmpOp.LE, x, c);
            case GT -> Ir.not(Ir.compare(CmpOp.LE, x, c));
            case GT_EQ -> Ir.not(Ir.compare(CmpOp.LT, x, c));
            default -> throw new IllegalArgumentException("not a comparison: " + op);
        };
    }

    private static IrNode isNaN(IrNode x) {
        return Ir.compare(CmpOp.NE, x, x);
    }

    private static IrNode eq(IrNode a, IrNode b) {
        return Ir.or(Ir.compare(CmpOp.EQ, a, b), Ir.and(isNaN(a), isNaN(b)));
    }

    private static IrNode lt(IrNode a, IrNode b) {
        return Ir.or(Ir.compare(CmpOp.LT, a, b), Ir.and(isNaN(b), Ir.not(isNaN(a))));
    }
}
