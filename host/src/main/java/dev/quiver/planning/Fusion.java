package dev.quiver.planning;

import dev.quiver.expr.Operator;
import dev.quiver.functions.PlanningException;
import dev.quiver.functions.Volatility;
import dev.quiver.kernels.ArithmeticMode;
import dev.quiver.physical.BetweenExpr;
import dev.quiver.physical.BinaryExpr;
import dev.quiver.physical.CaseExpr;
import dev.quiver.physical.CastExpr;
import dev.quiver.physical.ColumnExpr;
import dev.quiver.physical.ConjunctionExpr;
import dev.quiver.physical.DictionaryDecodeExpr;
import dev.quiver.physical.DictionaryMapExpr;
import dev.quiver.physical.FusedKernelExpr;
import dev.quiver.physical.InListExpr;
import dev.quiver.physical.IsNullExpr;
import dev.quiver.physical.LikeExpr;
import dev.quiver.physical.LiteralExpr;
import dev.quiver.physical.Names;
import dev.quiver.physical.NegativeExpr;
import dev.quiver.physical.NotExpr;
import dev.quiver.physical.PhysicalExpr;
import dev.quiver.physical.ScalarFunctionExpr;
import dev.quiver.physical.SharedExpr;
import dev.quiver.rowfn.IrSubstitution;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.RowFnSource;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.DataType;
import dev.quiver.types.ElementType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Replaces each maximal numeric subtree by one {@link FusedKernelExpr}, a kernel segment: one
 * pass over memory per subtree, on the CPU or an OpenCL device. What fuses: + - * / and negation
 * over Int32/Int64/Float32/Float64, widening casts, RowFn calls (and functions with a kernel
 * body), and comparisons of numbers with a fused operand. The segment's other inputs (columns,
 * or anything not fusable) become the program's arguments; the same column read twice is one
 * argument. Semantics do not change: the kernels compute what the unfused nodes would (same
 * null propagation, same errors, SQL's order for NaN in comparisons). Fused kernels wrap
 * integers, so integer {@code + - * /} is fused only under {@link ArithmeticMode#WRAPPING}.
 *
 * <p>A RowFn that may return null for valid input, or sees nulls (non-strict), ends a segment:
 * it is the root of its own, and a call that uses its result reads it as an input.
 *
 * <p>A CASE, or Boolean logic over numbers, whose every part is infallible fuses too, into one
 * non-strict segment that computes its branches densely and blends ({@link CaseFusion}); this
 * class asks it first at every node.
 */
final class Fusion {
    private Fusion() {}

    /**
     * The most levels of the physical tree one segment spans. Deeper, the subtree at that level is
     * a segment of its own whose result the upper one reads as an argument, so the code generators
     * (which recurse over a program's tree) see programs of bounded depth whatever the expression's.
     */
    static final int MAX_SEGMENT_DEPTH = 64;

    /**
     * The most operation nodes of the physical tree one segment takes; the operands past it are
     * segments of their own. A fused loop the size of a few hundred operations still compiles into
     * one JVM method (64 KiB of bytecode, else it runs row by row) and one OpenCL kernel of
     * reasonable build time.
     */
    static final int MAX_SEGMENT_NODES = 256;

    /** What one segment collects while its tree is turned into IR. */
    static final class Segment {
        final List<PhysicalExpr> args = new ArrayList<>();
        final List<ElementType> types = new ArrayList<>();
        final List<RowFn> rowFns = new ArrayList<>();
        boolean immutable = true;
        /** Operation nodes taken so far. */
        int nodes;
    }

    static PhysicalExpr fuse(PhysicalExpr e) {
        Optional<PhysicalExpr> conditional = CaseFusion.fuse(e);
        if (conditional.isPresent()) {
            return conditional.get();
        }
        Optional<RowFn.Instance> rooted = segmentRootRowFn(e);
        if (rooted.isPresent()) {
            return fuseRowFnRoot((ScalarFunctionExpr) e, rooted.get());
        }
        if (isFusableOp(e)) {
            Segment seg = new Segment();
            IrNode root = toIr(e, seg, 1);
            // RowFn bodies inlined into one another can make a program deeper than one may be: those calls run unfused.
            if (!seg.args.isEmpty()
                    && root.type() == element(e.dataType())
                    && KernelProgram.depth(root, KernelProgram.MAX_DEPTH) <= KernelProgram.MAX_DEPTH) {
                return new FusedKernelExpr(
                        new KernelProgram(seg.types, root, text(e)), seg.args, e.dataType(), seg.rowFns, seg.immutable);
            }
        }
        return withChildren(e, fuseAll(e.children()));
    }

    /** A RowFn with a null condition or a non-strict body: the root of a segment of its own. */
    private static PhysicalExpr fuseRowFnRoot(ScalarFunctionExpr f, RowFn.Instance inst) {
        RowFn fn = rowFn(f).orElseThrow();
        Segment seg = new Segment();
        seg.rowFns.add(fn);
        seg.immutable = fn.volatility() == Volatility.IMMUTABLE;
        if (inst.strict()) {
            List<IrNode> kids = new ArrayList<>();
            for (PhysicalExpr c : f.args()) {
                kids.add(toIr(c, seg, 2));
            }
            IrNode value = IrSubstitution.substitute(inst.value(), kids);
            IrNode nullWhen = IrSubstitution.substitute(inst.nullWhen(), kids);
            if (seg.args.isEmpty()
                    || KernelProgram.depth(value, KernelProgram.MAX_DEPTH) > KernelProgram.MAX_DEPTH
                    || KernelProgram.depth(nullWhen, KernelProgram.MAX_DEPTH) > KernelProgram.MAX_DEPTH) {
                return withChildren(f, fuseAll(f.children()));
            }
            return new FusedKernelExpr(
                    new KernelProgram(seg.types, value, nullWhen, true, text(f)),
                    seg.args,
                    f.dataType(),
                    seg.rowFns,
                    seg.immutable);
        }
        // Non-strict: every argument is an input of its own, its validity a Boolean argument after the values.
        List<PhysicalExpr> inputs = fuseAll(f.args());
        List<ElementType> types = new ArrayList<>(inst.irArgTypes());
        return new FusedKernelExpr(
                new KernelProgram(types, inst.value(), inst.nullWhen(), false, text(f)),
                inputs,
                f.dataType(),
                seg.rowFns,
                seg.immutable && allImmutable(inputs));
    }

    static boolean isImmutable(PhysicalExpr e) {
        if (e instanceof ScalarFunctionExpr f && f.function().signature().volatility() != Volatility.IMMUTABLE) {
            return false;
        }
        return allImmutable(e.children());
    }

    // Loops rather than streams in the walks that recurse: a stream adds some ten frames per level of the tree.

    private static boolean allImmutable(List<PhysicalExpr> es) {
        for (PhysicalExpr e : es) {
            if (!isImmutable(e)) {
                return false;
            }
        }
        return true;
    }

    private static List<PhysicalExpr> fuseAll(List<PhysicalExpr> es) {
        List<PhysicalExpr> out = new ArrayList<>(es.size());
        for (PhysicalExpr e : es) {
            out.add(fuse(e));
        }
        return out;
    }

    /** {@code e}, at level {@code depth} of the segment (its root is level 1), as IR; what it reads becomes arguments. */
    private static IrNode toIr(PhysicalExpr e, Segment seg, int depth) {
        if (isFusableOp(e) && (depth == 1 || (depth <= MAX_SEGMENT_DEPTH && seg.nodes < MAX_SEGMENT_NODES))) {
            seg.nodes++;
            List<IrNode> kids = new ArrayList<>();
            for (PhysicalExpr c : e.children()) {
                kids.add(toIr(c, seg, depth + 1));
            }
            return strictIr(e, kids, seg);
        }
        if (e instanceof LiteralExpr l && !l.value().isNull() && element(l.dataType()) != null) {
            Object v = l.value().value();
            return v instanceof Boolean b ? Ir.lit(b) : Ir.lit((Number) v);
        }
        // A leaf of the kernel: a program argument (a fusable subtree past the segment's bounds is a segment of
        // its own). Only columns are shared; a volatile input read twice is two inputs.
        PhysicalExpr leaf = fuse(e);
        if (!isImmutable(leaf)) {
            seg.immutable = false;
        }
        int idx = leaf instanceof ColumnExpr || leaf instanceof DictionaryDecodeExpr || leaf instanceof SharedExpr
                ? seg.args.indexOf(leaf)
                : -1;
        if (idx < 0) {
            idx = seg.args.size();
            seg.args.add(leaf);
            seg.types.add(element(leaf.dataType()));
        }
        return Ir.arg(idx, seg.types.get(idx));
    }

    /**
     * The IR of {@code e}, a node {@link #isFusableOp} takes (or a comparison of two numbers), over the IR of its
     * operands; a RowFn it calls is recorded in {@code seg}.
     */
    static IrNode strictIr(PhysicalExpr e, List<IrNode> kids, Segment seg) {
        return switch (e) {
            case BinaryExpr b when b.op().isComparison() -> SqlComparisons.compare(b.op(), kids.get(0), kids.get(1));
            case BinaryExpr b ->
                switch (b.op()) {
                    case PLUS -> Ir.add(kids.get(0), kids.get(1));
                    case MINUS -> Ir.sub(kids.get(0), kids.get(1));
                    case MULTIPLY -> Ir.mul(kids.get(0), kids.get(1));
                    case DIVIDE -> Ir.div(kids.get(0), kids.get(1));
                    default -> throw new IllegalStateException("not fusable: " + b.op());
                };
            case NegativeExpr _ -> Ir.neg(kids.getFirst());
            case CastExpr c -> Ir.cast(kids.getFirst(), element(c.dataType()));
            case ScalarFunctionExpr f -> {
                Optional<RowFn> fn = rowFn(f);
                fn.ifPresent(r -> {
                    seg.rowFns.add(r);
                    seg.immutable &= r.volatility() == Volatility.IMMUTABLE;
                });
                if (fn.isEmpty()) {
                    seg.immutable &= f.function().signature().volatility() == Volatility.IMMUTABLE;
                }
                yield f.function().kernel(kids).orElseThrow();
            }
            default -> throw new IllegalStateException("not fusable: " + e.describe());
        };
    }

    private static Optional<RowFn> rowFn(ScalarFunctionExpr f) {
        return RowFnSource.of(
                f.function(), f.args().stream().map(PhysicalExpr::dataType).toList());
    }

    /** The instance of a RowFn call that must be the root of its segment (it may return null, or sees nulls). */
    static Optional<RowFn.Instance> segmentRootRowFn(PhysicalExpr e) {
        if (!(e instanceof ScalarFunctionExpr f) || element(f.dataType()) == null) {
            return Optional.empty();
        }
        Optional<RowFn> fn = rowFn(f);
        if (fn.isEmpty() || !f.args().stream().allMatch(Fusion::leafOk)) {
            return Optional.empty();
        }
        RowFn.Instance inst = fn.get()
                .instance(f.args().stream().map(a -> element(a.dataType())).toList());
        return inst.strict() && inst.nullWhen() == null ? Optional.empty() : Optional.of(inst);
    }

    static boolean isFusableOp(PhysicalExpr e) {
        ElementType out = element(e.dataType());
        if (out == null) {
            return false;
        }
        return switch (e) {
            // Comparisons of numbers fuse when an operand is computed in the segment anyway.
            case BinaryExpr b
            when b.op().isComparison() ->
                SqlComparisons.fusable(b.op())
                        && element(b.left().dataType()) != null
                        && element(b.left().dataType()).isNumeric()
                        && element(b.left().dataType()) == element(b.right().dataType())
                        && (isFusableOp(b.left()) || isFusableOp(b.right()));
            // Fused kernels wrap integers: checked integer arithmetic stays a host kernel.
            case BinaryExpr b ->
                (b.op() == Operator.PLUS
                                || b.op() == Operator.MINUS
                                || b.op() == Operator.MULTIPLY
                                || b.op() == Operator.DIVIDE)
                        && (out.isFloatingPoint() || b.mode() == ArithmeticMode.WRAPPING)
                        && element(b.left().dataType()) == out
                        && element(b.right().dataType()) == out
                        && leafOk(b.left())
                        && leafOk(b.right());
            case NegativeExpr n ->
                element(n.input().dataType()) == out
                        && out.isNumeric()
                        && (out.isFloatingPoint() || n.mode() == ArithmeticMode.WRAPPING)
                        && leafOk(n.input());
            case CastExpr c ->
                !c.safe()
                        && element(c.input().dataType()) != null
                        && IrNode.Cast.isWidening(element(c.input().dataType()), out)
                        && leafOk(c.input());
            case ScalarFunctionExpr f ->
                f.args().stream().allMatch(Fusion::leafOk)
                        && (rowFn(f).map(r -> segmentRootRowFn(f).isEmpty())
                                .orElse(f.function().signature().volatility() != Volatility.VOLATILE))
                        && kernelType(f).map(t -> t == out).orElse(false);
            default -> false;
        };
    }

    /** Every child of a fusable node must itself have a kernel element type (literals included). */
    private static boolean leafOk(PhysicalExpr e) {
        return element(e.dataType()) != null
                && !(e instanceof LiteralExpr l && l.value().isNull());
    }

    private static Optional<ElementType> kernelType(ScalarFunctionExpr f) {
        List<IrNode> args = new ArrayList<>();
        for (int i = 0; i < f.args().size(); i++) {
            args.add(Ir.arg(i, element(f.args().get(i).dataType())));
        }
        try {
            return f.function().kernel(args).map(IrNode::type);
        } catch (IllegalArgumentException | PlanningException e) {
            return Optional.empty(); // a body without an instance for these types runs unfused
        }
    }

    static ElementType element(DataType t) {
        return t instanceof DataType.Dictionary ? null : t.elementType().orElse(null);
    }

    /** The subtree as SQL-like text with column names, for messages ("division by zero in (a / b)"). */
    static String text(PhysicalExpr e) {
        return Names.sql(e);
    }

    static PhysicalExpr withChildren(PhysicalExpr e, List<PhysicalExpr> c) {
        return switch (e) {
            case ColumnExpr x -> x;
            case LiteralExpr x -> x;
            case FusedKernelExpr x -> new FusedKernelExpr(x.program(), c, x.dataType(), x.rowFns(), x.immutable());
            case DictionaryDecodeExpr x ->
                new DictionaryDecodeExpr(c.getFirst(), x.dictionaryId(), x.dictionaries(), x.dataType());
            case DictionaryMapExpr x -> new DictionaryMapExpr(c.getFirst(), x.decode());
            case BinaryExpr x -> new BinaryExpr(c.get(0), x.op(), c.get(1), x.dataType(), x.mode());
            case NotExpr _ -> new NotExpr(c.getFirst());
            case IsNullExpr x -> new IsNullExpr(c.getFirst(), x.negated());
            case NegativeExpr x -> new NegativeExpr(c.getFirst(), x.mode());
            case CastExpr x -> new CastExpr(c.getFirst(), x.dataType(), x.safe());
            case LikeExpr x -> new LikeExpr(c.get(0), c.get(1), x.escape(), x.negated(), x.caseInsensitive());
            case InListExpr x -> new InListExpr(c.getFirst(), c.subList(1, c.size()), x.negated());
            case BetweenExpr x -> new BetweenExpr(c.get(0), c.get(1), c.get(2), x.negated());
            case ScalarFunctionExpr x -> new ScalarFunctionExpr(x.function(), c, x.dataType());
            case SharedExpr x -> new SharedExpr(x.id(), c.getFirst());
            case ConjunctionExpr x -> x.withTerms(c);
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
            default ->
                throw new IllegalStateException(
                        "unknown physical node " + e.getClass().getName());
        };
    }
}
