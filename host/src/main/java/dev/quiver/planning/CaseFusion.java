package dev.quiver.planning;

import dev.quiver.expr.Operator;
import dev.quiver.functions.Volatility;
import dev.quiver.physical.BetweenExpr;
import dev.quiver.physical.BinaryExpr;
import dev.quiver.physical.CaseExpr;
import dev.quiver.physical.ColumnExpr;
import dev.quiver.physical.DictionaryDecodeExpr;
import dev.quiver.physical.FusedKernelExpr;
import dev.quiver.physical.InListExpr;
import dev.quiver.physical.IsNullExpr;
import dev.quiver.physical.LiteralExpr;
import dev.quiver.physical.NotExpr;
import dev.quiver.physical.PhysicalExpr;
import dev.quiver.physical.ScalarFunctionExpr;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.DataType;
import dev.quiver.types.ElementType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code CASE}, and Kleene {@code AND}/{@code OR} over numbers, fused into one kernel segment that
 * computes every branch densely and blends (Vortex's "dense" strategy): each WHEN becomes a mask,
 * each THEN and the ELSE a value over every row, and {@code select} picks, first true WHEN first.
 *
 * <p>Only where that changes nothing the host {@link CaseExpr} would give: every WHEN, THEN, ELSE
 * (and the operand) must be IR that cannot fail (no integer division, no RowFn check; checked
 * integer arithmetic and casts that can fail are not IR at all) over inputs that are columns,
 * literals or cheap, infallible host subtrees ({@link PhysicalExpr#isCheapAndInfallible()}), and
 * nothing may be volatile. A branch that can fail keeps the host node's lazy evaluation, where it
 * runs only on the rows its WHEN took: computed densely, it would raise on rows that never chose
 * it. A CASE with a literal lookup table ({@link CaseExpr#lookup()}) keeps its table. An AND/OR
 * tree with no CASE fuses only when it compares numbers and reads nothing but columns and
 * literals: a host term such as LIKE runs on the undecided rows only, which fusing would give up.
 * An AND/OR tree that does not fuse whole stays the host's lazy chain all through: no sub-chain of
 * it becomes a segment, so what runs does not depend on how the planner balanced the tree. Nor
 * does one with an IS [NOT] NULL test fuse on its own: the host answers those from the bitmaps,
 * 64 rows a step, into the chain's one result vector, where a kernel would need every input's
 * validity as an argument. An AND/OR of comparisons is one segment; in a CASE, any of these is.
 *
 * <p>Nulls follow SQL, with no branch in the kernel: the segment is a non-strict
 * {@link KernelProgram} whose inputs come with their validity as Boolean arguments. Every subtree
 * is translated into a pair (value, valid): a strict operation is valid where its operands are; a
 * WHEN takes a row where it is valid and true (a NULL condition counts as false); the CASE's value
 * and validity are those of the branch taken, so a branch's null matters only where that branch
 * is chosen; {@code a AND b} is valid where both are, or where either is FALSE (Kleene), its
 * value {@code a & b}; {@code x IS NULL} is {@code !valid(x)}. A program's null condition is
 * {@code !valid}. For a batch without nulls the validity arguments are literals and fold away
 * ({@link FusedKernelExpr}): the kernel is the plain blend loop.
 */
final class CaseFusion {
    private CaseFusion() {}

    /** IN lists of at most this many literals fuse as comparisons; longer ones keep the host's prepared set. */
    static final int MAX_IN_LIST = 8;

    /** Whether {@code input} and every one of {@code others} (the input among them or not) are numbers, dates or timestamps of one type. */
    private static boolean comparable(PhysicalExpr input, List<PhysicalExpr> others) {
        ElementType t = storage(input.dataType());
        if (t == null || !t.isNumeric()) {
            return false;
        }
        for (PhysicalExpr o : others) {
            if (!o.dataType().equals(input.dataType())) {
                return false;
            }
        }
        return true;
    }

    /** Where the validity of input {@code i} is argument {@code VALIDITY + i} while the inputs are still being found. */
    private static final int VALIDITY = 1 << 24;

    /** The IR of a subtree: its value, and where it is valid (a Boolean over the inputs' validity). */
    private record Lane(IrNode value, IrNode valid) {}

    private static final IrNode TRUE = Ir.lit(true);
    private static final IrNode FALSE = Ir.lit(false);

    /** {@code e} as one segment, when it is a CASE or Boolean logic that fuses (see the class comment). */
    static Optional<PhysicalExpr> fuse(PhysicalExpr e) {
        if (!isCandidate(e)) {
            return Optional.empty();
        }
        Translation t = new Translation();
        Lane lane = t.translate(e, 1);
        boolean fuses = lane != null
                && !t.leaves.isEmpty()
                && (t.sawCase || (t.sawLogic && t.sawNumbers && !t.hostLeaf && !t.sawNullTest))
                && lane.value().type() == Fusion.element(e.dataType());
        if (!fuses) {
            // An AND/OR tree that is not one segment is the host's lazy chain: its numeric terms one segment at its
            // head, its other terms after it as written (ChainFusion).
            return isLogic(e) ? Optional.of(ChainFusion.chain((BinaryExpr) e)) : Optional.empty();
        }
        int n = t.leaves.size();
        KernelProgram program = program(t, lane, e).orElse(null);
        if (program == null || program.isFallible()) {
            return Optional.empty(); // a branch not taken would raise: the host node runs it lazily
        }
        List<PhysicalExpr> inputs = new ArrayList<>(n);
        boolean immutable = t.segment.immutable;
        for (PhysicalExpr leaf : t.leaves) {
            PhysicalExpr fused = Fusion.fuse(leaf);
            immutable &= Fusion.isImmutable(fused);
            inputs.add(fused);
        }
        return Optional.of(new FusedKernelExpr(program, inputs, e.dataType(), t.segment.rowFns, immutable));
    }

    /** The program of a translation (value, and null where not valid), unless it is too deep for one. */
    private static Optional<KernelProgram> program(Translation t, Lane lane, PhysicalExpr e) {
        int n = t.leaves.size();
        Map<IrNode, IrNode> done = new IdentityHashMap<>();
        IrNode value = renumber(lane.value(), n, done);
        IrNode nullWhen = renumber(Ir.not(lane.valid()), n, done);
        if (KernelProgram.depth(value, KernelProgram.MAX_DEPTH) > KernelProgram.MAX_DEPTH
                || KernelProgram.depth(nullWhen, KernelProgram.MAX_DEPTH) > KernelProgram.MAX_DEPTH) {
            return Optional.empty();
        }
        return Optional.of(new KernelProgram(t.typesWithValidity(), value, nullWhen, false, Fusion.text(e)));
    }

    /**
     * A CASE without a lookup table, an AND or OR, or a numeric operation with one of those among the operands
     * it would fuse (looked for within {@link Fusion#MAX_SEGMENT_NODES} nodes).
     */
    private static boolean isCandidate(PhysicalExpr e) {
        if (isConditional(e)) {
            return true;
        }
        if (!isStrictOp(e)) {
            return false;
        }
        ArrayDeque<PhysicalExpr> todo = new ArrayDeque<>(e.children());
        int seen = 0;
        while (!todo.isEmpty() && seen++ < Fusion.MAX_SEGMENT_NODES) {
            PhysicalExpr x = todo.pop();
            if (isConditional(x)) {
                return true;
            }
            if (isStrictOp(x) || x instanceof NotExpr || x instanceof IsNullExpr) {
                todo.addAll(x.children());
            }
        }
        return false;
    }

    private static boolean isConditional(PhysicalExpr e) {
        return e instanceof CaseExpr c && c.lookup().isEmpty() || isLogic(e);
    }

    private static boolean isLogic(PhysicalExpr e) {
        return e instanceof BinaryExpr b && (b.op() == Operator.AND || b.op() == Operator.OR);
    }

    /** A term of a host chain: a nested chain of the other operator, a NOT above one, or anything else fused on its own. */
    static PhysicalExpr hostTerm(PhysicalExpr e) {
        if (e instanceof NotExpr n && (isLogic(n.input()) || n.input() instanceof NotExpr)) {
            return new NotExpr(hostTerm(n.input()));
        }
        return Fusion.fuse(e);
    }

    /**
     * Whether {@code term} fuses on its own into one infallible segment over columns and literals
     * that compares numbers (dates and timestamps included), with no IS NULL test: a term a chain
     * may compute densely at its head, with its other such terms.
     */
    static boolean fusesAsNumericTerm(PhysicalExpr term) {
        if (Fusion.element(term.dataType()) != ElementType.BOOL) {
            return false;
        }
        Translation t = new Translation();
        Lane lane = t.translate(term, 1);
        if (lane == null || t.leaves.isEmpty() || !t.sawNumbers || t.hostLeaf || t.sawNullTest || t.sawCase) {
            return false;
        }
        return program(t, lane, term).map(p -> !p.isFallible()).orElse(false) && !isVolatile(term);
    }

    /** A node whose IR is strict in its operands: a comparison of two numbers (or two Booleans, = and <>), or what {@link Fusion} fuses. */
    private static boolean isStrictOp(PhysicalExpr e) {
        if (e instanceof BinaryExpr b && b.op().isComparison()) {
            ElementType l = storage(b.left().dataType());
            ElementType r = storage(b.right().dataType());
            return SqlComparisons.fusable(b.op())
                    && l != null
                    && l == r
                    && (l.isNumeric() || b.op() == Operator.EQ || b.op() == Operator.NOT_EQ)
                    && (Fusion.element(b.left().dataType()) != null
                            || b.left().dataType().equals(b.right().dataType()));
        }
        return Fusion.isFusableOp(e);
    }

    /** One translation: the inputs found so far and what the tree held. */
    private static final class Translation {
        final Fusion.Segment segment = new Fusion.Segment();
        final List<PhysicalExpr> leaves = new ArrayList<>();
        final List<ElementType> types = new ArrayList<>();
        int nodes;
        boolean sawCase;
        boolean sawLogic;
        boolean sawNumbers;
        /** An input that is a host subtree rather than a column or a literal. */
        boolean hostLeaf;
        /** An IS [NOT] NULL test. */
        boolean sawNullTest;

        /** {@code e} at level {@code depth} as IR, or null when it cannot be fused. */
        Lane translate(PhysicalExpr e, int depth) {
            ElementType type = storage(e.dataType());
            if (type == null || depth > Fusion.MAX_SEGMENT_DEPTH || ++nodes > Fusion.MAX_SEGMENT_NODES) {
                return null;
            }
            return switch (e) {
                case LiteralExpr l when l.value().isNull() -> new Lane(zero(type), FALSE);
                case LiteralExpr l -> {
                    Object v = l.value().value();
                    yield new Lane(v instanceof Boolean b ? Ir.lit(b) : Ir.lit((Number) v), TRUE);
                }
                case CaseExpr c when c.lookup().isEmpty() -> caseLane(c, depth);
                case BinaryExpr b when b.op() == Operator.AND || b.op() == Operator.OR -> logic(b, depth);
                case BetweenExpr b when comparable(b.input(), b.children()) -> between(b, depth);
                case InListExpr x
                when x.list().size() <= MAX_IN_LIST
                        && x.list().stream().allMatch(LiteralExpr.class::isInstance)
                        && comparable(x.input(), x.list()) -> inList(x, depth);
                case NotExpr x -> {
                    Lane in = translate(x.input(), depth + 1);
                    yield in == null ? null : new Lane(Ir.not(in.value()), in.valid());
                }
                case IsNullExpr x
                when Fusion.element(x.input().dataType()) != null -> {
                    sawNullTest = true;
                    Lane in = translate(x.input(), depth + 1);
                    yield in == null ? null : new Lane(x.negated() ? in.valid() : Ir.not(in.valid()), TRUE);
                }
                default -> isStrictOp(e) ? strict(e, depth) : leaf(e, type);
            };
        }

        private Lane strict(PhysicalExpr e, int depth) {
            List<IrNode> values = new ArrayList<>();
            IrNode valid = TRUE;
            for (PhysicalExpr c : e.children()) {
                Lane k = translate(c, depth + 1);
                if (k == null) {
                    return null;
                }
                values.add(k.value());
                valid = and(valid, k.valid());
            }
            sawNumbers = true;
            return new Lane(Fusion.strictIr(e, values, segment), valid);
        }

        /** Kleene: {@code a AND b} is FALSE where either is FALSE, NULL where neither is and one is NULL. */
        private Lane logic(BinaryExpr b, int depth) {
            Lane l = translate(b.left(), depth + 1);
            Lane r = l == null ? null : translate(b.right(), depth + 1);
            if (r == null) {
                return null;
            }
            sawLogic = true;
            return kleene(l, r, b.op() == Operator.AND);
        }

        /** {@code low <= input AND input <= high} (Kleene), negated for NOT BETWEEN, the input read once. */
        private Lane between(BetweenExpr b, int depth) {
            Lane x = translate(b.input(), depth + 1);
            Lane lo = x == null ? null : translate(b.low(), depth + 1);
            Lane hi = lo == null ? null : translate(b.high(), depth + 1);
            if (hi == null) {
                return null;
            }
            sawNumbers = true;
            Lane above =
                    new Lane(SqlComparisons.compare(Operator.GT_EQ, x.value(), lo.value()), and(x.valid(), lo.valid()));
            Lane below =
                    new Lane(SqlComparisons.compare(Operator.LT_EQ, x.value(), hi.value()), and(x.valid(), hi.valid()));
            Lane in = kleene(above, below, true);
            return b.negated() ? new Lane(Ir.not(in.value()), in.valid()) : in;
        }

        /** {@code input = v1 OR input = v2 OR ...} (Kleene: NULL where nothing matches and an element is NULL), negated for NOT IN. */
        private Lane inList(InListExpr x, int depth) {
            Lane in = translate(x.input(), depth + 1);
            if (in == null) {
                return null;
            }
            sawNumbers = true;
            Lane any = new Lane(FALSE, TRUE);
            for (PhysicalExpr item : x.list()) {
                Lane v = translate(item, depth + 1);
                if (v == null) {
                    return null;
                }
                any = kleene(
                        any,
                        new Lane(
                                SqlComparisons.compare(Operator.EQ, in.value(), v.value()), and(in.valid(), v.valid())),
                        false);
            }
            return x.negated() ? new Lane(Ir.not(any.value()), any.valid()) : any;
        }

        /** The argument types, each input's validity after them. */
        List<ElementType> typesWithValidity() {
            List<ElementType> all = new ArrayList<>(types);
            for (int i = 0; i < types.size(); i++) {
                all.add(ElementType.BOOL);
            }
            return all;
        }

        private static Lane kleene(Lane l, Lane r, boolean and) {
            // The value that decides: FALSE for AND, TRUE for OR.
            IrNode lDecides = and ? Ir.not(l.value()) : l.value();
            IrNode rDecides = and ? Ir.not(r.value()) : r.value();
            IrNode valid = or(and(l.valid(), r.valid()), or(and(l.valid(), lDecides), and(r.valid(), rDecides)));
            IrNode value = and ? Ir.and(l.value(), r.value()) : Ir.or(l.value(), r.value());
            return new Lane(Ir.fold(value), valid);
        }

        /** The branch taken, in order; a row no WHEN takes gets the ELSE, or NULL without one. */
        private Lane caseLane(CaseExpr c, int depth) {
            sawCase = true;
            Lane operand = null;
            if (c.operand() != null) {
                operand = translate(c.operand(), depth + 1);
                if (operand == null) {
                    return null;
                }
            }
            List<Lane> whens = new ArrayList<>();
            List<Lane> thens = new ArrayList<>();
            for (int i = 0; i < c.whens().size(); i++) {
                Lane w = translate(c.whens().get(i), depth + 1);
                Lane t = w == null ? null : translate(c.thens().get(i), depth + 1);
                if (t == null) {
                    return null;
                }
                whens.add(w);
                thens.add(t);
            }
            Lane result = c.otherwise() == null
                    ? new Lane(zero(Fusion.element(c.dataType())), FALSE)
                    : translate(c.otherwise(), depth + 1);
            if (result == null) {
                return null;
            }
            for (int i = whens.size() - 1; i >= 0; i--) {
                Lane w = whens.get(i);
                IrNode holds =
                        operand == null ? w.value() : SqlComparisons.compare(Operator.EQ, operand.value(), w.value());
                IrNode valid = operand == null ? w.valid() : and(operand.valid(), w.valid());
                IrNode takes = and(valid, holds);
                Lane t = thens.get(i);
                result =
                        new Lane(Ir.select(takes, t.value(), result.value()), select(takes, t.valid(), result.valid()));
            }
            return result;
        }

        /** An input of the segment: a column (read once however often it is used), or a cheap host subtree. */
        private Lane leaf(PhysicalExpr e, ElementType type) {
            boolean column = e instanceof ColumnExpr || e instanceof DictionaryDecodeExpr;
            if (!column && !e.isCheapAndInfallible() || isVolatile(e)) {
                return null;
            }
            hostLeaf |= !column;
            int i = column ? leaves.indexOf(e) : -1;
            if (i < 0) {
                i = leaves.size();
                leaves.add(e);
                types.add(type);
            }
            return new Lane(Ir.arg(i, type), Ir.arg(VALIDITY + i, ElementType.BOOL));
        }
    }

    /**
     * The element type a value of type {@code t} is stored as: its element type, or for a date or
     * timestamp the integer of its days or ticks, which compare as the dates and times do (two
     * timestamps are compared only when their types, unit and zone, are equal).
     */
    static ElementType storage(DataType t) {
        return switch (t) {
            case DataType.Date32 _ -> ElementType.INT32;
            case DataType.Timestamp _ -> ElementType.INT64;
            default -> Fusion.element(t);
        };
    }

    static boolean isVolatile(PhysicalExpr e) {
        ArrayDeque<PhysicalExpr> todo = new ArrayDeque<>();
        todo.push(e);
        while (!todo.isEmpty()) {
            PhysicalExpr x = todo.pop();
            if (x instanceof ScalarFunctionExpr f && f.function().signature().volatility() == Volatility.VOLATILE) {
                return true;
            }
            todo.addAll(x.children());
        }
        return false;
    }

    private static IrNode zero(ElementType t) {
        return t == ElementType.BOOL ? FALSE : Ir.lit(t, 0);
    }

    // Validity is built from literals and arguments: its identities are applied as it is built, so trees stay small.

    private static IrNode and(IrNode a, IrNode b) {
        if (a.equals(TRUE) || b.equals(FALSE)) {
            return b;
        }
        if (b.equals(TRUE) || a.equals(FALSE)) {
            return a;
        }
        return a.equals(b) ? a : Ir.and(a, b);
    }

    private static IrNode or(IrNode a, IrNode b) {
        if (a.equals(FALSE) || b.equals(TRUE)) {
            return b;
        }
        if (b.equals(FALSE) || a.equals(TRUE)) {
            return a;
        }
        return a.equals(b) ? a : Ir.or(a, b);
    }

    private static IrNode select(IrNode condition, IrNode ifTrue, IrNode ifFalse) {
        return ifTrue.equals(ifFalse) ? ifTrue : Ir.select(condition, ifTrue, ifFalse);
    }

    /** {@code n} with the validity of input {@code i} as argument {@code inputs + i}; shared subtrees stay shared. */
    private static IrNode renumber(IrNode n, int inputs, Map<IrNode, IrNode> done) {
        IrNode seen = done.get(n);
        if (seen != null) {
            return seen;
        }
        IrNode out;
        if (n instanceof IrNode.Arg a) {
            out = a.index() >= VALIDITY ? Ir.arg(inputs + a.index() - VALIDITY, ElementType.BOOL) : a;
        } else if (n instanceof IrNode.Const) {
            out = n;
        } else {
            List<IrNode> kids = new ArrayList<>(3);
            for (IrNode k : n.children()) {
                kids.add(renumber(k, inputs, done));
            }
            out = Ir.withChildren(n, kids);
        }
        done.put(n, out);
        return out;
    }
}
