package dev.quiver.physical;

import dev.quiver.backend.RowMode;
import dev.quiver.cancel.Cancellation;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.kernels.Kernels;
import dev.quiver.kernels.Selection;
import dev.quiver.memory.Resources;
import dev.quiver.rowfn.IrSubstitution;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.Strategy;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowFailure;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.types.DataType;
import dev.quiver.types.ElementType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.dictionary.Dictionary;

/**
 * A kernel segment: adjacent RowFn calls and arithmetic fused into one kernel program, run in
 * one pass over memory on the device chosen for the batch (a Vector API loop on the CPU, an
 * OpenCL kernel). Its inputs, one per program value argument, are evaluated first.
 *
 * <p>Per batch, the segment owns what a function author would otherwise write by hand:
 * <ul>
 *   <li>a null constant argument of a strict program gives an all-null result, computing nothing;</li>
 *   <li>all-constant arguments compute the body once, with the reference, and give a scalar;</li>
 *   <li>arguments constant in this batch are put into the program, and the parts of the body
 *       that depend only on them are computed once, with the reference, before the kernel runs;</li>
 *   <li>an immutable, strict segment whose only varying input is a dictionary-encoded column
 *       computes the body once per dictionary value, then gathers by the indices (when a
 *       dictionary value fails, the batch runs row by row instead, so that only the rows decide
 *       and the error names a row of the batch);</li>
 *   <li>otherwise the strategy: {@link Strategy#DENSE} for programs that cannot fail; for ones
 *       that can, {@link Strategy#FILTER_SCATTER} when under 1/8 of the rows are valid,
 *       {@link Strategy#DENSE_RETRY} when over 7/8 are, {@link Strategy#VALID_ROWS} between.</li>
 * </ul>
 * Each RowFn of the segment counts what happened in its {@link RowFn#stats()}.
 *
 * @param program   the fused program; for a non-strict program the value arguments come first,
 *                  then one Boolean validity argument per input
 * @param inputs    one per input
 * @param dataType  the result type
 * @param rowFns    the RowFns fused into the program (for statistics and EXPLAIN)
 * @param immutable whether every part is immutable (the dictionary shortcut is allowed)
 */
public record FusedKernelExpr(
        KernelProgram program,
        List<PhysicalExpr> inputs,
        DataType dataType,
        List<RowFn> rowFns,
        boolean immutable,
        Map<List<Object>, Specialized> specializations)
        implements PhysicalExpr {
    /** Dense retry above this share of valid rows, filter-and-scatter below {@link #SPARSE}. */
    static final double DENSE = 7.0 / 8, SPARSE = 1.0 / 8;

    public FusedKernelExpr {
        Objects.requireNonNull(program, "program is null");
        inputs = List.copyOf(inputs);
        rowFns = List.copyOf(rowFns);
        int expected = program.isStrict() ? program.arity() : program.arity() / 2;
        if (inputs.size() != expected) {
            throw new IllegalArgumentException("the program takes " + expected + " inputs, given " + inputs.size());
        }
    }

    public FusedKernelExpr(KernelProgram program, List<PhysicalExpr> inputs, DataType dataType) {
        this(program, inputs, dataType, List.of(), true, new ConcurrentHashMap<>());
    }

    public FusedKernelExpr(
            KernelProgram program,
            List<PhysicalExpr> inputs,
            DataType dataType,
            List<RowFn> rowFns,
            boolean immutable) {
        this(program, inputs, dataType, rowFns, immutable, new ConcurrentHashMap<>());
    }

    /** The program with some arguments made constant, and how many parts of it that computed once. */
    public record Specialized(KernelProgram program, int[] arrayInputs, int constantParts) {}

    @Override
    public ColumnarValue evaluate(EvalContext ctx) {
        Cancellation.check(); // a kernel boundary
        int n = inputs.size();
        ColumnarValue[] values = new ColumnarValue[n];
        try {
            int dictionaryInput = -1;
            for (int i = 0; i < n; i++) {
                if (immutable
                        && program.isStrict()
                        && dictionaryInput < 0
                        && inputs.get(i) instanceof DictionaryDecodeExpr) {
                    dictionaryInput = i;
                    continue;
                }
                values[i] = inputs.get(i).evaluate(ctx);
            }
            if (dictionaryInput >= 0) {
                ColumnarValue shortcut = tryDictionary(ctx, values, dictionaryInput);
                if (shortcut != null) {
                    return shortcut;
                }
                values[dictionaryInput] = inputs.get(dictionaryInput).evaluate(ctx);
            }
            return compute(ctx.kernels(), values, ctx.rows(), ctx.allocator());
        } finally {
            Resources.closeAll(Arrays.asList(values));
        }
    }

    /**
     * The body once per dictionary value, then a gather by the indices: when every other input is
     * a constant and the dictionary has at most half as many values as the batch has rows.
     */
    private ColumnarValue tryDictionary(EvalContext ctx, ColumnarValue[] values, int at) {
        if (!program.isStrict()) {
            return null; // a null index is a row the body must see: no dictionary value stands for it
        }
        for (int i = 0; i < values.length; i++) {
            if (i != at && !(values[i] instanceof ColumnarValue.Scalar)) {
                return null;
            }
        }
        DictionaryDecodeExpr d = (DictionaryDecodeExpr) inputs.get(at);
        Dictionary dictionary = d.dictionaries().lookup(d.dictionaryId());
        if (dictionary == null) {
            return null; // the decode node raises the error
        }
        FieldVector dict = dictionary.getVector();
        int size = dict.getValueCount();
        if (size == 0
                || (long) size * 2 > ctx.rows()
                || !DataType.fromField(dict.getField()).equals(d.dataType())) {
            return null;
        }
        try (ColumnarValue idx = d.indices().evaluate(ctx)) {
            if (!(idx instanceof ColumnarValue.Array ia) || !(ia.vector() instanceof BaseIntVector indices)) {
                return null;
            }
            ColumnarValue[] perValue = values.clone();
            perValue[at] = new ColumnarValue.Array(dict, false);
            ColumnarValue computed;
            try {
                computed = compute(ctx.kernels(), perValue, size, ctx.allocator(), Strategy.DICTIONARY);
            } catch (KernelArithmeticException e) {
                // A dictionary value fails, but maybe no row uses it: the batch's rows decide, and name the row.
                return null;
            }
            try (computed) {
                if (computed instanceof ColumnarValue.Scalar s) {
                    // Constant over the dictionary: the same value wherever an index is valid.
                    return gatherScalar(s, ia.vector(), ctx.rows(), ctx.allocator());
                }
                int rows = ctx.rows();
                int[] positions = new int[rows];
                for (int r = 0; r < rows; r++) {
                    positions[r] = ia.vector().isNull(r) ? 0 : (int) indices.getValueAsLong(r);
                }
                ColumnarValue taken = Kernels.take(computed, positions, ctx.allocator());
                FieldVector out = ((ColumnarValue.Array) taken).vector();
                if (ia.vector().getNullCount() > 0) {
                    for (int r = 0; r < rows; r++) {
                        if (ia.vector().isNull(r)) {
                            Values.setNull(out, r);
                        }
                    }
                }
                return taken;
            }
        }
    }

    private ColumnarValue gatherScalar(
            ColumnarValue.Scalar s, FieldVector indices, int rows, BufferAllocator allocator) {
        if (indices.getNullCount() == 0 || s.value().isNull()) {
            return s;
        }
        FieldVector out = Values.broadcast(s.value(), "result", rows, allocator);
        for (int r = 0; r < rows; r++) {
            if (indices.isNull(r)) {
                Values.setNull(out, r);
            }
        }
        return new ColumnarValue.Array(out);
    }

    private ColumnarValue compute(KernelExecutor kernels, ColumnarValue[] values, int rows, BufferAllocator allocator) {
        return compute(kernels, values, rows, allocator, null);
    }

    /**
     * Runs the program over {@code values} ({@code rows} rows): the constant cases, then the
     * strategy. {@code forced} names the strategy recorded for the kernel run (the dictionary
     * shortcut), or null to record the one chosen.
     */
    private ColumnarValue compute(
            KernelExecutor kernels, ColumnarValue[] values, int rows, BufferAllocator allocator, Strategy forced) {
        int n = values.length;
        boolean strict = program.isStrict();
        List<Object> key = new ArrayList<>(n * 2);
        Number[] scalars = new Number[program.arity()];
        boolean allScalar = true;
        for (int i = 0; i < n; i++) {
            if (values[i] instanceof ColumnarValue.Scalar s) {
                if (s.value().isNull() && strict) {
                    record(Strategy.ALL_NULL, 0, 0);
                    return new ColumnarValue.Scalar(ScalarValue.nullOf(dataType));
                }
                ElementType t = program.argTypes().get(i);
                scalars[i] = RowFn.toNumber(s.value().value(), t); // a null reads as zero; its validity says null
                key.add(i);
                key.add(scalars[i]);
                if (!strict) {
                    scalars[n + i] = s.value().isNull() ? 0 : 1;
                    key.add(n + i);
                    key.add(scalars[n + i]);
                }
            } else {
                allScalar = false;
                FieldVector v = ((ColumnarValue.Array) values[i]).vector();
                if (!strict && v.getNullCount() == 0) {
                    scalars[n + i] = 1; // validity known for the whole batch: a constant
                    key.add(n + i);
                    key.add(1);
                }
            }
        }
        if (allScalar) {
            return constant(scalars);
        }
        Specialized sp =
                key.isEmpty() ? new Specialized(program, identity(program.arity()), 0) : specialize(key, scalars);
        List<FieldVector> args = new ArrayList<>(sp.arrayInputs().length);
        List<FieldVector> made = new ArrayList<>();
        try {
            for (int k : sp.arrayInputs()) {
                if (k < n) {
                    args.add(((ColumnarValue.Array) values[k]).vector());
                } else {
                    FieldVector v = ((ColumnarValue.Array) values[k - n]).vector();
                    BitVector bits = validityBits(v, rows, allocator);
                    made.add(bits);
                    args.add(bits);
                }
            }
            return new ColumnarValue.Array(run(kernels, sp, args, rows, allocator, forced));
        } finally {
            made.forEach(FieldVector::close);
        }
    }

    private FieldVector run(
            KernelExecutor kernels,
            Specialized sp,
            List<FieldVector> args,
            int rows,
            BufferAllocator allocator,
            Strategy forced) {
        KernelProgram p = sp.program();
        if (!p.isFallible()) {
            KernelExecutor.Result r = kernels.run(this, p, args, rows, allocator, RowMode.ALL_ROWS);
            record(forced != null ? forced : Strategy.DENSE, computed(r, rows), sp.constantParts());
            return r.vector();
        }
        Selection valid = p.isStrict() ? validRows(args, rows) : null;
        int validCount = valid == null ? rows : valid.count();
        if (validCount == 0) {
            KernelExecutor.Result r = kernels.run(this, p, args, rows, allocator, RowMode.VALID_ROWS);
            record(forced != null ? forced : Strategy.VALID_ROWS, computed(r, 0), sp.constantParts());
            return r.vector();
        }
        if (validCount > rows * DENSE) {
            long done = 0;
            try {
                KernelExecutor.Result r = kernels.run(this, p, args, rows, allocator, RowMode.ALL_ROWS);
                record(forced != null ? forced : Strategy.DENSE_RETRY, computed(r, rows), sp.constantParts());
                return r.vector();
            } catch (KernelArithmeticException e) {
                if (valid == null || e.row() < 0 || e.row() >= rows || valid.get((int) e.row())) {
                    throw e;
                }
                done = rows; // failed in a null row: compute the valid rows only
            }
            KernelExecutor.Result r = kernels.run(this, p, args, rows, allocator, RowMode.VALID_ROWS);
            record(forced != null ? forced : Strategy.DENSE_RETRY, done + computed(r, validCount), sp.constantParts());
            return r.vector();
        }
        if (validCount < rows * SPARSE) {
            return filterAndScatter(kernels, sp, args, valid, rows, allocator, forced);
        }
        KernelExecutor.Result r = kernels.run(this, p, args, rows, allocator, RowMode.VALID_ROWS);
        record(forced != null ? forced : Strategy.VALID_ROWS, computed(r, validCount), sp.constantParts());
        return r.vector();
    }

    /** The valid rows gathered into dense columns, computed, and scattered back (nulls elsewhere). */
    private FieldVector filterAndScatter(
            KernelExecutor kernels,
            Specialized sp,
            List<FieldVector> args,
            Selection valid,
            int rows,
            BufferAllocator allocator,
            Strategy forced) {
        List<FieldVector> compact = new ArrayList<>(args.size());
        try {
            for (FieldVector a : args) {
                compact.add(Kernels.filter(a, valid, allocator));
            }
            KernelExecutor.Result r;
            try {
                r = kernels.run(this, sp.program(), compact, valid.count(), allocator, RowMode.ALL_ROWS);
            } catch (KernelArithmeticException e) {
                throw e.row() >= 0 && e.row() < valid.count() ? e.atRow(valid.indices()[(int) e.row()]) : e;
            }
            record(forced != null ? forced : Strategy.FILTER_SCATTER, computed(r, valid.count()), sp.constantParts());
            try (ColumnarValue c = new ColumnarValue.Array(r.vector())) {
                ColumnarValue scattered = Kernels.scatter(c, valid, dataType, allocator);
                return ((ColumnarValue.Array) scattered).vector();
            }
        } finally {
            compact.forEach(FieldVector::close);
        }
    }

    private static long computed(KernelExecutor.Result r, long fallback) {
        return r.rowsComputed() >= 0 ? r.rowsComputed() : fallback;
    }

    /** All arguments constant: the body once, with the reference, as a scalar. */
    private ColumnarValue constant(Number[] args) {
        Number v;
        boolean isNull;
        try {
            v = RowInterpreter.evaluate(program.root(), args);
            isNull = RowInterpreter.isNullResult(program, args);
        } catch (RowFailure e) {
            throw RowInterpreter.failure(program, e, 0, "reference");
        }
        record(Strategy.CONSTANT, 0, 1);
        if (isNull) {
            return new ColumnarValue.Scalar(ScalarValue.nullOf(dataType));
        }
        return new ColumnarValue.Scalar(new ScalarValue(dataType, RowFn.fromNumber(v, program.resultType())));
    }

    /**
     * The program with the constant arguments of {@code key} put in as literals and folded: the
     * parts over constants only are computed here, once for the batch. Cached per set of values.
     */
    private Specialized specialize(List<Object> key, Number[] scalars) {
        Specialized cached = specializations.get(key);
        if (cached != null) {
            // Folded for an earlier batch with the same constants: nothing is computed again.
            return new Specialized(cached.program(), cached.arrayInputs(), 0);
        }
        int n = inputs.size();
        boolean[] constant = new boolean[program.arity()];
        for (int i = 0; i < key.size(); i += 2) {
            constant[(Integer) key.get(i)] = true;
        }
        List<IrNode> replacement = new ArrayList<>(program.arity());
        List<ElementType> types = new ArrayList<>();
        List<Integer> arrays = new ArrayList<>();
        for (int k = 0; k < program.arity(); k++) {
            ElementType t = program.argTypes().get(k);
            if (constant[k]) {
                replacement.add(t == ElementType.BOOL ? Ir.lit(scalars[k].intValue() != 0) : Ir.lit(t, scalars[k]));
            } else {
                replacement.add(Ir.arg(types.size(), t));
                types.add(t);
                arrays.add(k);
            }
        }
        IrNode root = IrSubstitution.substitute(program.root(), replacement);
        IrNode nullWhen = program.nullWhen()
                .map(w -> IrSubstitution.substitute(w, replacement))
                .orElse(null);
        int parts = ConstantParts.count(root) + (nullWhen == null ? 0 : ConstantParts.count(nullWhen));
        KernelProgram p = new KernelProgram(types, root, nullWhen, program.isStrict(), program.text());
        if (!p.isStrict() && isFalse(p.nullWhen()) && arrays.stream().allMatch(k -> k < n)) {
            // Every input's validity is a literal of this batch (no nulls) and the null condition folded to false:
            // no row is null, so the program runs as a strict one, and the loop reads no validity at all.
            p = new KernelProgram(types, p.root(), null, true, program.text());
        }
        Specialized sp =
                new Specialized(p, arrays.stream().mapToInt(Integer::intValue).toArray(), parts);
        if (specializations.size() > 256) {
            specializations.clear(); // a constant that changes every batch: keep the cache small
        }
        specializations.put(List.copyOf(key), sp);
        return sp;
    }

    private static boolean isFalse(Optional<IrNode> condition) {
        return condition.isPresent()
                && condition.get() instanceof IrNode.Const c
                && c.value().intValue() == 0;
    }

    private static int[] identity(int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        return a;
    }

    /** Rows valid in every argument, or null when no argument has a null. */
    static Selection validRows(List<FieldVector> args, int rows) {
        long[] words = null;
        for (FieldVector a : args) {
            if (a.getNullCount() == 0) {
                continue;
            }
            int count = (rows + 63) >>> 6;
            if (words == null) {
                words = new long[count];
                Arrays.fill(words, -1L);
            }
            ArrowBuf validity = a.getValidityBuffer();
            for (int w = 0; w < count; w++) {
                long word;
                if (w < rows >>> 6) {
                    word = validity.getLong((long) w << 3);
                } else {
                    word = 0;
                    for (int b = w << 3; b < (rows + 7) >>> 3; b++) {
                        word |= (validity.getByte(b) & 0xFFL) << ((b - (w << 3)) << 3);
                    }
                }
                words[w] &= word;
            }
        }
        if (words == null) {
            return null;
        }
        if ((rows & 63) != 0) {
            words[words.length - 1] &= (1L << (rows & 63)) - 1;
        }
        return Selection.ofWords(words, rows);
    }

    /** The validity of {@code v} as a Boolean column with no nulls. */
    private static BitVector validityBits(FieldVector v, int rows, BufferAllocator allocator) {
        BitVector bits = new BitVector("valid", allocator);
        try {
            bits.allocateNew(rows);
            int bytes = (rows + 7) >>> 3;
            bits.getDataBuffer().setBytes(0, v.getValidityBuffer(), 0, bytes);
            bits.getValidityBuffer().setOne(0, bytes);
            bits.setValueCount(rows);
            return bits;
        } catch (RuntimeException e) {
            bits.close();
            throw e;
        }
    }

    private void record(Strategy strategy, long rows, int constantParts) {
        for (RowFn f : rowFns) {
            f.stats().record(strategy, rows, constantParts);
        }
    }

    /** A program that cannot fail, over cheap inputs. */
    @Override
    public boolean isCheapAndInfallible() {
        return !program.isFallible()
                && program.resultType() != ElementType.BOOL
                && inputs.stream().allMatch(PhysicalExpr::isCheapAndInfallible);
    }

    @Override
    public List<PhysicalExpr> children() {
        return inputs;
    }

    @Override
    public String describe() {
        StringBuilder sb = new StringBuilder("kernel segment ")
                .append(program.text())
                .append(" as ")
                .append(KernelProgram.render(program.root()));
        program.nullWhen().ifPresent(w -> sb.append(", null when ").append(KernelProgram.render(w)));
        if (!rowFns.isEmpty()) {
            sb.append(" [RowFn ")
                    .append(String.join(
                            ", ", rowFns.stream().map(RowFn::name).distinct().toList()))
                    .append(']');
        }
        sb.append(
                program.isFallible()
                        ? " [can fail: valid rows / filter-and-scatter / dense retry, chosen per batch]"
                        : " [dense]");
        if (!program.isStrict()) {
            sb.append(" [sees nulls]");
        }
        if (immutable && program.isStrict() && inputs.stream().anyMatch(i -> i instanceof DictionaryDecodeExpr)) {
            sb.append(" [once per dictionary value]");
        }
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FusedKernelExpr f
                && f.program.equals(program)
                && f.inputs.equals(inputs)
                && f.dataType.equals(dataType);
    }

    @Override
    public int hashCode() {
        return Objects.hash(program, inputs, dataType);
    }
}
