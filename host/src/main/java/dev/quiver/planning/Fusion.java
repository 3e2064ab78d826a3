package dev.quiver.planning;

import dev.quiver.expr.Operator;
import dev.quiver.functions.Volatility;
import dev.quiver.kernels.ArithmeticMode;
import dev.quiver.physical.BetweenExpr;
import dev.quiver.physical.BinaryExpr;
import dev.quiver.physical.CaseExpr;
import dev.quiver.physical.CastExpr;
import dev.quiver.physical.ColumnExpr;
import dev.quiver.physical.FusedKernelExpr;
import dev.quiver.physical.InListExpr;
import dev.quiver.physical.IsNullExpr;
import dev.quiver.physical.LikeExpr;
import dev.quiver.physical.LiteralExpr;
import dev.quiver.physical.NegativeExpr;
import dev.quiver.physical.NotExpr;
import dev.quiver.physical.PhysicalExpr;
import dev.quiver.physical.ScalarFunctionExpr;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.DataType;
import dev.quiver.types.ElementType;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Replaces each maximal numeric subtree (+ - * / and negation over Int32/Int64/Float32/Float64,
 * widening casts, and functions with a kernel body such as sqrt or fma) by one
 * {@link FusedKernelExpr}: one pass over memory per subtree, on the CPU or an OpenCL
 * device. The subtree's other inputs (columns, or anything not fusable) become the
 * program's arguments; the same column read twice is one argument. Semantics do not change:
 * the kernels compute what the unfused nodes would (same null propagation, division-by-zero
 * errors). Fused kernels wrap integers, so integer {@code + - * /} is fused only under
 * {@link ArithmeticMode#WRAPPING}; checked integer arithmetic stays a host kernel.
 */
final class Fusion {
    private Fusion() {
    }

    static PhysicalExpr fuse(PhysicalExpr e) {
        if (isFusableOp(e)) {
            List<PhysicalExpr> args = new ArrayList<>();
            List<ElementType> types = new ArrayList<>();
            IrNode root = toIr(e, args, types);
            if (!args.isEmpty() && root.type() == element(e.dataType())) {
                return new FusedKernelExpr(new KernelProgram(types, root, text(e)), args, e.dataType());
            }
        }
        return withChildren(e, e.children().stream().map(Fusion::fuse).toList());
    }

    private static IrNode toIr(PhysicalExpr e, List<PhysicalExpr> args, List<ElementType> types) {
        if (isFusableOp(e)) {
            List<IrNode> kids = new ArrayList<>();
            for (PhysicalExpr c : e.children()) {
                kids.add(toIr(c, args, types));
            }
            return switch (e) {
                case BinaryExpr b -> switch (b.op()) {
                    case PLUS -> Ir.add(kids.get(0), kids.get(1));
                    case MINUS -> Ir.sub(kids.get(0), kids.get(1));
                    case MULTIPLY -> Ir.mul(kids.get(0), kids.get(1));
                    case DIVIDE -> Ir.div(kids.get(0), kids.get(1));
                    default -> throw new IllegalStateException("not fusable: " + b.op());
                };
                case NegativeExpr n -> Ir.neg(kids.getFirst());
                case CastExpr c -> Ir.cast(kids.getFirst(), element(c.dataType()));
                case ScalarFunctionExpr f -> f.function().kernel(kids).orElseThrow();
                default -> throw new IllegalStateException("not fusable: " + e.describe());
            };
        }
        if (e instanceof LiteralExpr l && !l.value().isNull() && element(l.dataType()) != null) {
            return Ir.lit((Number) l.value().value());
        }
        // A leaf of the kernel: a program argument. Only columns are shared; a volatile input read twice is two inputs.
        PhysicalExpr leaf = fuse(e);
        int idx = leaf instanceof ColumnExpr ? args.indexOf(leaf) : -1;
        if (idx < 0) {
            idx = args.size();
            args.add(leaf);
            types.add(element(leaf.dataType()));
        }
        return Ir.arg(idx, types.get(idx));
    }

    private static boolean isFusableOp(PhysicalExpr e) {
        ElementType out = element(e.dataType());
        if (out == null) {
            return false;
        }
        return switch (e) {
            // Fused kernels wrap integers: checked integer arithmetic stays a host kernel.
            case BinaryExpr b -> (b.op() == Operator.PLUS || b.op() == Operator.MINUS || b.op() == Operator.MULTIPLY
                    || b.op() == Operator.DIVIDE) && (out.isFloatingPoint() || b.mode() == ArithmeticMode.WRAPPING)
                    && element(b.left().dataType()) == out && element(b.right().dataType()) == out
                    && leafOk(b.left()) && leafOk(b.right());
            case NegativeExpr n -> element(n.input().dataType()) == out && (out.isFloatingPoint() || n.mode() == ArithmeticMode.WRAPPING)
                    && leafOk(n.input());
            case CastExpr c -> !c.safe() && element(c.input().dataType()) != null
                    && IrNode.Cast.isWidening(element(c.input().dataType()), out) && leafOk(c.input());
            case ScalarFunctionExpr f -> f.function().signature().volatility() != Volatility.VOLATILE
                    && f.args().stream().allMatch(a -> element(a.dataType()) != null && leafOk(a))
                    && kernelType(f).map(t -> t == out).orElse(false);
            default -> false;
        };
    }

    /** Every child of a fusable node must itself have a kernel element type (literals included). */
    private static boolean leafOk(PhysicalExpr e) {
        return element(e.dataType()) != null && !(e instanceof LiteralExpr l && l.value().isNull());
    }

    private static Optional<ElementType> kernelType(ScalarFunctionExpr f) {
        List<IrNode> args = new ArrayList<>();
        for (int i = 0; i < f.args().size(); i++) {
            args.add(Ir.arg(i, element(f.args().get(i).dataType())));
        }
        return f.function().kernel(args).map(IrNode::type);
    }

    private static ElementType element(DataType t) {
        return t instanceof DataType.Dictionary ? null : t.elementType().orElse(null);
    }

    /** The subtree as SQL-like text with column names, for messages ("division by zero in (a / b)"). */
    static String text(PhysicalExpr e) {
        return dev.quiver.physical.Names.sql(e);
    }

    static PhysicalExpr withChildren(PhysicalExpr e, List<PhysicalExpr> c) {
        return switch (e) {
            case ColumnExpr x -> x;
            case LiteralExpr x -> x;
            case FusedKernelExpr x -> x;
            case dev.quiver.physical.DictionaryDecodeExpr x -> new dev.quiver.physical.DictionaryDecodeExpr(c.getFirst(), x.dictionaryId(),
                    x.dictionaries(), x.dataType());
            case BinaryExpr x -> new BinaryExpr(c.get(0), x.op(), c.get(1), x.dataType(), x.mode());
            case NotExpr x -> new NotExpr(c.getFirst());
            case IsNullExpr x -> new IsNullExpr(c.getFirst(), x.negated());
            case NegativeExpr x -> new NegativeExpr(c.getFirst(), x.mode());
            case CastExpr x -> new CastExpr(c.getFirst(), x.dataType(), x.safe());
            case LikeExpr x -> new LikeExpr(c.get(0), c.get(1), x.escape(), x.negated(), x.caseInsensitive());
            case InListExpr x -> new InListExpr(c.getFirst(), c.subList(1, c.size()), x.negated());
            case BetweenExpr x -> new BetweenExpr(c.get(0), c.get(1), c.get(2), x.negated());
            case ScalarFunctionExpr x -> new ScalarFunctionExpr(x.function(), c, x.dataType());
            case CaseExpr x -> {
                int k = 0;
                PhysicalExpr operand = x.operand() == null ? null : c.get(k++);
                List<PhysicalExpr> whens = new ArrayList<>();
                List<PhysicalExpr> thens = new ArrayList<>();
                for (int i = 0; i < x.whens().size(); i++) {
                    whens.add(c.get(k++));
                    thens.add(c.get(k++));
                }
                PhysicalExpr otherwise = x.otherwise() == null ? null : c.get(k);
                yield new CaseExpr(operand, whens, thens, otherwise, x.dataType());
            }
            default -> throw new IllegalStateException("unknown physical node " + e.getClass().getName());
        };
    }
}

