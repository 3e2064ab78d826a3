package dev.quiver.kernels;

import dev.quiver.expr.Operator;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * Whole-column kernels: the fallback for every expression the fused numeric kernels do not
 * cover.
 *
 * <p>Contract of every method: inputs are borrowed (never closed here); the result is new and
 * owned by the caller (an {@link ColumnarValue.Array} is {@code owned}, its vector is named
 * "result" and allocated from {@code allocator}); arrays have exactly {@code rows} rows
 * (inputs may have more, only the first {@code rows} are read); a
 * {@link ColumnarValue.Scalar} operand stands for every row, and when every input is a scalar
 * the result is a scalar. Nulls propagate unless a method says otherwise; values behind null
 * slots are never looked at in a way that can fail. On any exception everything allocated is
 * freed. An unsupported operation or type throws {@link UnsupportedOperationException} naming
 * both.
 *
 * <pre>{@code
 * try (ColumnarValue sum = Kernels.arithmetic(Operator.PLUS, Array.borrowed(a), ColumnarValue.scalar(INT32, 1),
 *                                              DataType.INT32, rows, allocator)) {
 *     ...
 * }
 * }</pre>
 */
public final class Kernels {
    private Kernels() {}

    /** The array computation of a kernel over its operands, {@code rows} rows. */
    @FunctionalInterface
    private interface Body {
        FieldVector compute(KernelInput[] in, int rows);
    }

    /**
     * Runs {@code body} over {@code inputs}: scalars become one-row constant operands; when all
     * inputs are scalars the body runs on one row and its value is returned as a scalar.
     */
    private static ColumnarValue run(List<ColumnarValue> inputs, int rows, BufferAllocator allocator, Body body) {
        Objects.requireNonNull(allocator, "allocator is null");
        if (rows < 0) {
            throw new IllegalArgumentException("rows must be >= 0, not " + rows);
        }
        boolean allScalar = inputs.stream()
                .allMatch(v -> Objects.requireNonNull(v, "input is null") instanceof ColumnarValue.Scalar);
        int n = allScalar ? 1 : rows;
        List<KernelInput> opened = new ArrayList<>(inputs.size());
        try {
            for (ColumnarValue v : inputs) {
                opened.add(KernelInput.of(v, n, allocator));
            }
            FieldVector out = body.compute(opened.toArray(KernelInput[]::new), n);
            if (!allScalar) {
                return new ColumnarValue.Array(out, true);
            }
            try (out) {
                return new ColumnarValue.Scalar(Values.get(out, 0, DataType.fromField(out.getField())));
            }
        } finally {
            for (KernelInput in : opened) {
                in.close();
            }
        }
    }

    // ---- arithmetic

    /**
     * {@code l op r} for {@code + - * / %}, with {@link ArithmeticMode#CHECKED}: integer overflow
     * and division or modulo by zero throw.
     *
     * <p>Operands are both the same integer or float type (and {@code resultType} is that type),
     * or two decimals with a decimal {@code resultType}, or {@code Date32 ± Int32/Int64} and
     * {@code Int32/Int64 + Date32} (Date32), or {@code Date32 - Date32} (Int64 days). Integer
     * division truncates, {@code %} takes the dividend's sign; floats are IEEE 754 in every mode.
     * Decimals compute exactly and round HALF_UP to {@code resultType}'s scale. The errors are
     * those of {@link #arithmetic(Operator, ColumnarValue, ColumnarValue, DataType, ArithmeticMode, int, BufferAllocator)}.
     */
    public static ColumnarValue arithmetic(
            Operator op, ColumnarValue l, ColumnarValue r, DataType resultType, int rows, BufferAllocator allocator) {
        return arithmetic(op, l, r, resultType, ArithmeticMode.CHECKED, rows, allocator);
    }

    /**
     * {@code l op r} as {@link #arithmetic(Operator, ColumnarValue, ColumnarValue, DataType, int, BufferAllocator)},
     * with failing rows handled as {@code mode} says. A row fails when it is not null and
     * <ul>
     *   <li>divides (or takes the modulo) by zero: integers and decimals, every mode;</li>
     *   <li>overflows its integer type ({@code MIN / -1} included; {@code MIN % -1} is 0): CHECKED
     *       and NULL_ON_ERROR, while under WRAPPING integers wrap at their width;</li>
     *   <li>needs more digits than the decimal {@code resultType} has, or leaves Date32's range:
     *       every mode.</li>
     * </ul>
     * A failing row throws {@link dev.quiver.errors.KernelArithmeticException} naming the error
     * ("integer overflow", "division by zero", "decimal overflow (...)", "Date32 overflow"), the
     * operand types ("Int32 + Int32") and the first failing row; under
     * {@link ArithmeticMode#NULL_ON_ERROR} it is NULL instead. Values behind null rows never
     * fail. A NULL scalar operand gives an all-NULL result without reading the other side.
     */
    public static ColumnarValue arithmetic(
            Operator op,
            ColumnarValue l,
            ColumnarValue r,
            DataType resultType,
            ArithmeticMode mode,
            int rows,
            BufferAllocator allocator) {
        Objects.requireNonNull(op, "op is null");
        Objects.requireNonNull(resultType, "resultType is null");
        Objects.requireNonNull(mode, "mode is null");
        return ArithmeticKernels.arithmetic(op, l, r, resultType, mode, rows, allocator);
    }

    /** {@code -v} for signed integers (MIN wraps to itself), floats and decimals; unsigned types are unsupported. */
    public static ColumnarValue negate(ColumnarValue v, int rows, BufferAllocator allocator) {
        return run(List.of(v), rows, allocator, (in, n) -> ArithmeticKernels.negate(in[0], n, allocator));
    }

    // ---- comparison and logic

    /**
     * {@code l op r} for {@code = <> < <= > >=} and [NOT] DISTINCT FROM, of two values of one
     * type (decimals may differ in scale, Utf8 and LargeUtf8 mix, timestamps need one unit).
     * Floats use SQL's total order (-0.0 = 0.0, NaN = NaN, NaN above +Infinity); strings and
     * binaries compare by unsigned bytes. Boolean; null when either side is null, except the
     * DISTINCT FROM forms, which are never null.
     */
    public static ColumnarValue compare(
            Operator op, ColumnarValue l, ColumnarValue r, int rows, BufferAllocator allocator) {
        Objects.requireNonNull(op, "op is null");
        return ComparisonKernels.compare(op, l, r, rows, allocator);
    }

    /**
     * Whether {@link #compare} compares values of {@code a} with values of {@code b} (dictionaries as
     * their values): one type, or decimals of any scales, Utf8 with LargeUtf8, timestamps of one unit,
     * Null with anything; lists and structs of one shape whose elements and fields compare so. Never
     * intervals.
     */
    public static boolean canCompare(DataType a, DataType b) {
        return ComparisonKernels.comparable(
                Objects.requireNonNull(a, "a is null").valueType(),
                Objects.requireNonNull(b, "b is null").valueType());
    }

    /** Kleene AND: FALSE if either is FALSE, else NULL if either is NULL, else TRUE. */
    public static ColumnarValue and(ColumnarValue l, ColumnarValue r, int rows, BufferAllocator allocator) {
        return BooleanKernels.and(l, r, rows, allocator);
    }

    /** Kleene OR: TRUE if either is TRUE, else NULL if either is NULL, else FALSE. */
    public static ColumnarValue or(ColumnarValue l, ColumnarValue r, int rows, BufferAllocator allocator) {
        return BooleanKernels.or(l, r, rows, allocator);
    }

    /**
     * {@code l AND r} (OR when {@code and} is false) taking ownership of {@code l}: when it is an
     * owned Boolean array of {@code rows} rows the result is written over it and it is returned
     * (no allocation); otherwise {@code l} is closed and a new value returned. On an exception
     * {@code l} is closed too. {@code r} stays borrowed.
     */
    public static ColumnarValue logicConsumingLeft(
            ColumnarValue l, ColumnarValue r, boolean and, int rows, BufferAllocator allocator) {
        return BooleanKernels.consumingLeft(l, r, and, rows, allocator);
    }

    /**
     * {@code acc AND (l op r)} (OR when {@code and} is false) for a comparison {@code op},
     * taking ownership of {@code acc} as {@link #logicConsumingLeft} does: when {@code acc} is an
     * owned Boolean array of {@code rows} rows the comparison is combined into it word by word and
     * no vector is allocated for it. {@code l} and {@code r} stay borrowed.
     */
    public static ColumnarValue compareConsumingLeft(
            ColumnarValue acc,
            Operator op,
            ColumnarValue l,
            ColumnarValue r,
            boolean and,
            int rows,
            BufferAllocator allocator) {
        Objects.requireNonNull(op, "op is null");
        return consumingLeft(
                acc,
                and,
                rows,
                allocator,
                target -> ComparisonKernels.compareInto(op, l, r, target, and, rows, allocator),
                () -> compare(op, l, r, rows, allocator));
    }

    /**
     * {@code acc AND (v [NOT] IN list)} (OR when {@code and} is false) for literal elements
     * prepared in {@code list}, taking ownership of {@code acc} as {@link #logicConsumingLeft}
     * does: when {@code acc} is an owned Boolean array of {@code rows} rows and {@code v} an array,
     * the lookups are combined into it word by word, only for the rows it has not decided, and no
     * vector is allocated for them. {@code v} stays borrowed.
     */
    public static ColumnarValue inListConsumingLeft(
            ColumnarValue acc,
            ColumnarValue v,
            InList list,
            boolean negated,
            boolean and,
            int rows,
            BufferAllocator allocator) {
        Objects.requireNonNull(list, "list is null");
        return consumingLeft(
                acc,
                and,
                rows,
                allocator,
                target -> InListKernels.combineInto(
                        v,
                        list,
                        negated,
                        rows,
                        Bitmaps.view(target.getValidityBuffer()),
                        Bitmaps.view(target.getDataBuffer()),
                        and,
                        allocator),
                () -> inList(v, list, List.of(), negated, rows, allocator));
    }

    /**
     * {@code acc AND (v [NOT] LIKE compiled)} (OR when {@code and} is false) for a pattern
     * compiled once, taking ownership of {@code acc} as {@link #logicConsumingLeft} does: when
     * {@code acc} is an owned Boolean array of {@code rows} rows and {@code v} a string array, the
     * matches are combined into it word by word (where it has decided most rows, only its undecided
     * rows are matched), and no vector is allocated for them. {@code v} stays borrowed.
     */
    public static ColumnarValue likeConsumingLeft(
            ColumnarValue acc,
            ColumnarValue v,
            LikePattern compiled,
            boolean negated,
            boolean and,
            int rows,
            BufferAllocator allocator) {
        Objects.requireNonNull(compiled, "compiled is null");
        return consumingLeft(
                acc,
                and,
                rows,
                allocator,
                target -> LikeKernels.combineInto(
                        v,
                        compiled,
                        negated,
                        rows,
                        Bitmaps.view(target.getValidityBuffer()),
                        Bitmaps.view(target.getDataBuffer()),
                        and,
                        allocator),
                () -> like(v, compiled, negated, rows, allocator));
    }

    /**
     * {@code acc AND (v IS [NOT] NULL)} (OR when {@code and} is false), taking ownership of
     * {@code acc} as {@link #logicConsumingLeft} does: combined into it in place when it is an owned
     * Boolean array of {@code rows} rows. {@code v} (any type) stays borrowed.
     */
    public static ColumnarValue isNullConsumingLeft(
            ColumnarValue acc, ColumnarValue v, boolean negated, boolean and, int rows, BufferAllocator allocator) {
        return consumingLeft(
                acc,
                and,
                rows,
                allocator,
                target -> {
                    BooleanKernels.isNullInto(v, negated, target, and, rows);
                    return true;
                },
                () -> isNull(v, negated, rows, allocator));
    }

    /** A Boolean term combined into a running result in place ({@link #consumingLeft}). */
    @FunctionalInterface
    private interface InPlace {
        /** Combines the term into {@code target}; false when it cannot (nothing written). */
        boolean into(FieldVector target);
    }

    /**
     * {@code acc AND term} (OR when {@code and} is false) taking ownership of {@code acc}: the
     * term combined {@code inPlace} into {@code acc} when it is an owned Boolean array of
     * {@code rows} rows and the term takes it, else computed as a value and combined; on an
     * exception {@code acc} is closed.
     */
    private static ColumnarValue consumingLeft(
            ColumnarValue acc,
            boolean and,
            int rows,
            BufferAllocator allocator,
            InPlace inPlace,
            Supplier<ColumnarValue> value) {
        FieldVector target = BooleanKernels.reusable(acc, rows);
        ColumnarValue term;
        try {
            if (target != null && inPlace.into(target)) {
                return acc;
            }
            term = value.get();
        } catch (RuntimeException | Error e) {
            acc.close();
            throw e;
        }
        try (term) {
            return logicConsumingLeft(acc, term, and, rows, allocator);
        }
    }

    /** NOT taking ownership of {@code v}: flipped in place when it is an owned Boolean array of {@code rows} rows, else {@code v} is closed. */
    public static ColumnarValue notConsuming(ColumnarValue v, int rows, BufferAllocator allocator) {
        return BooleanKernels.notConsuming(v, rows, allocator);
    }

    /** NOT: NULL stays NULL. */
    public static ColumnarValue not(ColumnarValue v, int rows, BufferAllocator allocator) {
        return BooleanKernels.not(v, rows, allocator);
    }

    /** IS NULL ({@code negated}: IS NOT NULL) of a value of any type; never null. */
    public static ColumnarValue isNull(ColumnarValue v, boolean negated, int rows, BufferAllocator allocator) {
        return BooleanKernels.isNull(v, negated, rows, allocator);
    }

    // ---- casts

    /**
     * CAST ({@code safe = false}) or TRY_CAST ({@code safe = true}) of {@code v} to {@code to}.
     * A value that does not convert throws {@link IllegalArgumentException} naming the value, the
     * row (for arrays) and the target type, or becomes NULL when {@code safe}. The supported pairs
     * are those of {@link #canCast}; an identical type gives a new copy of an array (or the same
     * scalar).
     */
    public static ColumnarValue cast(ColumnarValue v, DataType to, boolean safe, int rows, BufferAllocator allocator) {
        Objects.requireNonNull(v, "v is null");
        Objects.requireNonNull(to, "to is null");
        Objects.requireNonNull(allocator, "allocator is null");
        if (v instanceof ColumnarValue.Array a && a.vector().getValueCount() < rows) {
            throw new IllegalArgumentException(
                    "the input array has " + a.vector().getValueCount() + " rows, fewer than " + rows);
        }
        return CastKernels.cast(v, to, safe, rows, allocator);
    }

    /**
     * Whether {@link #cast} supports {@code from -> to}: Null to anything; a type to itself;
     * among integers, floats and decimals; Boolean to and from integers; integers, floats,
     * decimals, Boolean, Date32, Timestamp and Binary to strings and strings to all of them;
     * Utf8 to and from LargeUtf8; Date32 and Timestamps among each other. Never a dictionary.
     */
    public static boolean canCast(DataType from, DataType to) {
        return CastKernels.canCast(
                Objects.requireNonNull(from, "from is null"), Objects.requireNonNull(to, "to is null"));
    }

    // ---- strings

    /**
     * {@code v [NOT] [I]LIKE pattern [ESCAPE escape]} on strings: {@code %} any run, {@code _} one
     * code point, {@code escape} (null: none) makes the next character literal; a pattern ending
     * in a lone escape throws {@link IllegalArgumentException}. ILIKE folds case (Unicode simple
     * case folding). A scalar pattern is compiled once per call, an array pattern once per
     * distinct value. NULL value or pattern gives NULL. A literal pattern is better compiled once
     * per query with {@link LikePattern#compile} and passed to
     * {@link #like(ColumnarValue, LikePattern, boolean, int, BufferAllocator)}.
     */
    public static ColumnarValue like(
            ColumnarValue v,
            ColumnarValue pattern,
            Character escape,
            boolean negated,
            boolean caseInsensitive,
            int rows,
            BufferAllocator allocator) {
        return run(
                List.of(v, pattern),
                rows,
                allocator,
                (in, n) -> LikeKernels.like(in[0], in[1], escape, negated, caseInsensitive, n, allocator));
    }

    /**
     * {@code v [NOT] [I]LIKE pattern} with a compiled pattern (see {@link LikePattern} for how its
     * shape picks the matching strategy), in one pass over the UTF-8 bytes; NULL for a NULL value.
     *
     * <pre>{@code
     * LikePattern p = LikePattern.compile("abc%", null, false);    // once per query
     * try (ColumnarValue r = Kernels.like(column, p, false, rows, allocator)) { ... }
     * }</pre>
     */
    public static ColumnarValue like(
            ColumnarValue v, LikePattern pattern, boolean negated, int rows, BufferAllocator allocator) {
        Objects.requireNonNull(pattern, "pattern is null");
        return run(List.of(v), rows, allocator, (in, n) -> LikeKernels.like(in[0], pattern, negated, n, allocator));
    }

    // ---- IN and BETWEEN

    /**
     * {@code v [NOT] IN (list)}: TRUE if some element equals {@code v} (as {@link #compare} EQ);
     * else NULL if {@code v} or some element is NULL; else FALSE. NOT IN negates; NULL stays NULL.
     * The scalar elements are prepared into an {@link InList} on every call; prepare literal
     * elements once per query and call
     * {@link #inList(ColumnarValue, InList, List, boolean, int, BufferAllocator)} instead.
     */
    public static ColumnarValue inList(
            ColumnarValue v, List<ColumnarValue> list, boolean negated, int rows, BufferAllocator allocator) {
        Objects.requireNonNull(v, "v is null");
        Objects.requireNonNull(list, "list is null");
        List<ScalarValue> constants = new ArrayList<>();
        List<ColumnarValue> others = new ArrayList<>();
        for (ColumnarValue element : list) {
            switch (Objects.requireNonNull(element, "element is null")) {
                case ColumnarValue.Scalar s -> constants.add(s.value());
                case ColumnarValue.Array a -> others.add(a);
            }
        }
        DataType type = v.dataType().valueType();
        if (!InList.supports(type)) {
            return inListByComparison(v, list, negated, rows, allocator);
        }
        // A NULL value gives NULL whatever the list holds: look it up in an empty list of its own type.
        InList prepared = InList.of(type, type instanceof DataType.Null ? List.of() : constants);
        return inList(v, prepared, others, negated, rows, allocator);
    }

    /** IN for types no {@link InList} prepares (lists, structs): the Kleene OR of {@code v = element}, negated for NOT IN. */
    private static ColumnarValue inListByComparison(
            ColumnarValue v, List<ColumnarValue> list, boolean negated, int rows, BufferAllocator allocator) {
        if (list.isEmpty()) {
            throw new IllegalArgumentException("IN needs at least one element");
        }
        ColumnarValue acc = null;
        try {
            for (ColumnarValue element : list) {
                ColumnarValue eq = compare(Operator.EQ, v, element, rows, allocator);
                if (acc == null) {
                    acc = eq;
                } else {
                    try (ColumnarValue previous = acc;
                            eq) {
                        acc = null;
                        acc = or(previous, eq, rows, allocator);
                    }
                }
            }
            if (negated) {
                try (ColumnarValue positive = acc) {
                    acc = null;
                    acc = not(positive, rows, allocator);
                }
            }
            return acc;
        } catch (RuntimeException | Error e) {
            if (acc != null) {
                acc.close();
            }
            throw e;
        }
    }

    /**
     * {@code v [NOT] IN (...)} over the values of {@code constants} (prepared once, see
     * {@link InList}) and of {@code others} (arrays or scalars compared row by row), with the SQL
     * semantics of {@link #inList(ColumnarValue, List, boolean, int, BufferAllocator)}. With no
     * {@code others} it is one pass over {@code v}. {@code v} must have the type {@code constants}
     * was prepared for (decimals: its scale; Utf8 and LargeUtf8 mix), else
     * {@link IllegalArgumentException}.
     */
    public static ColumnarValue inList(
            ColumnarValue v,
            InList constants,
            List<ColumnarValue> others,
            boolean negated,
            int rows,
            BufferAllocator allocator) {
        Objects.requireNonNull(v, "v is null");
        Objects.requireNonNull(constants, "constants is null");
        Objects.requireNonNull(others, "others is null");
        if (others.isEmpty()) {
            return run(
                    List.of(v),
                    rows,
                    allocator,
                    (in, n) -> InListKernels.inList(in[0], constants, negated, n, allocator));
        }
        // Kleene OR of (v = element) is exactly IN's semantics; the constants contribute one term.
        ColumnarValue acc = run(
                List.of(v), rows, allocator, (in, n) -> InListKernels.inList(in[0], constants, false, n, allocator));
        try {
            for (ColumnarValue element : others) {
                ColumnarValue previous = acc;
                acc = null;
                try (previous;
                        ColumnarValue eq = compare(Operator.EQ, v, element, rows, allocator)) {
                    acc = or(previous, eq, rows, allocator);
                }
            }
            if (negated) {
                try (ColumnarValue positive = acc) {
                    acc = null;
                    acc = not(positive, rows, allocator);
                }
            }
            return acc;
        } catch (RuntimeException | Error e) {
            if (acc != null) {
                acc.close();
            }
            throw e;
        }
    }

    /**
     * {@code v [NOT] BETWEEN low AND high}: the Kleene AND of {@code low <= v} and
     * {@code v <= high} (as {@link #compare}), negated for NOT BETWEEN (NULL stays NULL). With
     * scalar bounds over integers, floats, decimals, Date32 and timestamps it is one pass with one
     * comparison per row; otherwise the two comparisons and the AND run as kernels of their own.
     */
    public static ColumnarValue between(
            ColumnarValue v,
            ColumnarValue low,
            ColumnarValue high,
            boolean negated,
            int rows,
            BufferAllocator allocator) {
        Objects.requireNonNull(v, "v is null");
        Objects.requireNonNull(low, "low is null");
        Objects.requireNonNull(high, "high is null");
        if (low instanceof ColumnarValue.Scalar
                && high instanceof ColumnarValue.Scalar
                && BetweenKernels.supports(v.dataType(), low.dataType(), high.dataType())) {
            return run(
                    List.of(v, low, high),
                    rows,
                    allocator,
                    (in, n) -> BetweenKernels.between(in[0], in[1], in[2], negated, n, allocator));
        }
        try (ColumnarValue ge = compare(Operator.GT_EQ, v, low, rows, allocator);
                ColumnarValue le = compare(Operator.LT_EQ, v, high, rows, allocator)) {
            if (!negated) {
                return and(ge, le, rows, allocator);
            }
            try (ColumnarValue both = and(ge, le, rows, allocator)) {
                return not(both, rows, allocator);
            }
        }
    }

    // ---- selections

    /**
     * Rows {@code indices} of {@code v} (a gather) as a new array; a scalar stays the same scalar.
     * Any type, lists and structs included.
     *
     * @throws IndexOutOfBoundsException for an index outside {@code v}
     */
    public static ColumnarValue take(ColumnarValue v, int[] indices, BufferAllocator allocator) {
        Objects.requireNonNull(indices, "indices is null");
        Objects.requireNonNull(allocator, "allocator is null");
        return switch (Objects.requireNonNull(v, "v is null")) {
            case ColumnarValue.Scalar s -> s;
            case ColumnarValue.Array a ->
                new ColumnarValue.Array(SelectionKernels.take(a.vector(), indices, allocator), true);
        };
    }

    /**
     * The rows of {@code v} that {@code selection} selects, in order, as a new array of
     * {@code selection.count()} rows; a scalar stays the same scalar. Any type. {@code v} must have
     * at least {@code selection.rows()} rows.
     */
    public static ColumnarValue filter(ColumnarValue v, Selection selection, BufferAllocator allocator) {
        Objects.requireNonNull(selection, "selection is null");
        Objects.requireNonNull(allocator, "allocator is null");
        return switch (Objects.requireNonNull(v, "v is null")) {
            case ColumnarValue.Scalar s -> s;
            case ColumnarValue.Array a ->
                new ColumnarValue.Array(SelectionKernels.filter(a.vector(), selection, "result", allocator), true);
        };
    }

    /** {@link #filter} of one vector: a new vector (named as {@code v}) of {@code selection.count()} rows, owned by the caller. */
    public static FieldVector filter(FieldVector v, Selection selection, BufferAllocator allocator) {
        Objects.requireNonNull(v, "v is null");
        Objects.requireNonNull(selection, "selection is null");
        Objects.requireNonNull(allocator, "allocator is null");
        return SelectionKernels.filter(v, selection, v.getName(), allocator);
    }

    /**
     * The inverse of {@link #filter}: an array of {@code selection.rows()} rows of {@code type}
     * in which the k-th selected row is row k of {@code compact} (a scalar fills every selected
     * row) and every other row is NULL.
     */
    public static ColumnarValue scatter(
            ColumnarValue compact, Selection selection, DataType type, BufferAllocator allocator) {
        Objects.requireNonNull(compact, "compact is null");
        Objects.requireNonNull(selection, "selection is null");
        return merge(type, selection.rows(), List.of(new Piece(selection, compact, true)), allocator);
    }

    /**
     * One input of {@link #merge}: the rows it covers and their values. {@code compact}: the
     * value has {@code rows.count()} rows, its k-th row for the k-th selected row; otherwise it
     * is aligned with the batch (at least {@code rows.rows()} rows, read at the selected rows).
     * A scalar fills every selected row either way.
     */
    public record Piece(Selection rows, ColumnarValue value, boolean compact) {
        public Piece {
            Objects.requireNonNull(rows, "rows is null");
            Objects.requireNonNull(value, "value is null");
        }
    }

    /**
     * An array of {@code rows} rows of {@code type} assembled from disjoint pieces (as CASE's
     * branches are); rows no piece covers are NULL. Pieces whose value type is Null give NULL
     * rows. Throws {@link IllegalArgumentException} when pieces overlap or do not match.
     */
    public static ColumnarValue merge(DataType type, int rows, List<Piece> pieces, BufferAllocator allocator) {
        Objects.requireNonNull(type, "type is null");
        Objects.requireNonNull(pieces, "pieces is null");
        Objects.requireNonNull(allocator, "allocator is null");
        return new ColumnarValue.Array(SelectionKernels.merge(type, rows, List.copyOf(pieces), allocator), true);
    }

    /**
     * An array of {@code rows} rows of {@code type} in which row {@code indexSets.get(k)[j]} is row
     * {@code j} of {@code values.get(k)} (a scalar fills all rows of its set) and rows in no set are
     * NULL. The sets must be disjoint (else {@link IllegalArgumentException}); an index outside
     * {@code 0..rows-1} throws {@link IndexOutOfBoundsException}. Always an array, even when every value is a scalar.
     */
    public static ColumnarValue scatter(
            DataType type, int rows, List<int[]> indexSets, List<ColumnarValue> values, BufferAllocator allocator) {
        Objects.requireNonNull(type, "type is null");
        Objects.requireNonNull(allocator, "allocator is null");
        return new ColumnarValue.Array(
                SelectionKernels.scatter(type.valueType(), rows, indexSets, values, allocator), true);
    }
}
