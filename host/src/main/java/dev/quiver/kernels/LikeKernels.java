package dev.quiver.kernels;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * [NOT] LIKE / ILIKE over strings, 64 rows per step on the bytes in the Arrow buffers. A
 * constant pattern is compiled once (by the caller, once per query, when it is a literal); an
 * array pattern once per distinct value.
 */
final class LikeKernels {
    /** Patterns of an array pattern compiled in one call, at most this many (then the cache starts over). */
    private static final int PATTERN_CACHE = 1024;

    private LikeKernels() {}

    static FieldVector like(
            KernelInput v,
            KernelInput pattern,
            Character escape,
            boolean negated,
            boolean caseInsensitive,
            int rows,
            BufferAllocator allocator) {
        checkStrings(v, pattern, caseInsensitive);
        if (pattern.constant && !pattern.isNullType() && pattern.isValid(0)) {
            String p = new String(pattern.bytes().get(0), StandardCharsets.UTF_8);
            return like(v, LikePattern.compile(p, escape, caseInsensitive), negated, rows, allocator);
        }
        try (PredicateOutput out = PredicateOutput.allocate(rows, allocator)) {
            if (v.isNullType() || pattern.isNullType()) {
                return out.finish();
            }
            ByteColumn values = ByteColumn.of(v, out);
            ByteColumn patterns = ByteColumn.of(pattern, out);
            PredicateOutput.ValidityWords vValid = out.validity(v);
            PredicateOutput.ValidityWords pValid = out.validity(pattern);
            Map<String, LikePattern> compiled = new HashMap<>();
            LikePattern last = null;
            long lastStart = -1;
            long lastEnd = -1;
            for (int w = 0; w < out.words(); w++) {
                long valid = vValid.get(w) & pValid.get(w) & out.liveMask(w);
                long hits = 0;
                for (long m = valid; m != 0; m &= m - 1) {
                    int j = Long.numberOfTrailingZeros(m);
                    int row = (w << 6) + j;
                    long ps = patterns.start(row);
                    long pe = patterns.end(row);
                    if (last == null
                            || pe - ps != lastEnd - lastStart
                            || !ByteColumn.equal(patterns.data, ps, patterns.data, lastStart, pe - ps)) {
                        byte[] bytes = new byte[Math.toIntExact(pe - ps)];
                        MemorySegment.copy(patterns.data, ValueLayout.JAVA_BYTE, ps, bytes, 0, bytes.length);
                        String text = new String(bytes, StandardCharsets.UTF_8);
                        if (compiled.size() >= PATTERN_CACHE) {
                            compiled.clear();
                        }
                        last = compiled.computeIfAbsent(text, t -> LikePattern.compile(t, escape, caseInsensitive));
                        lastStart = ps;
                        lastEnd = pe;
                    }
                    if (last.matches(values.data, values.start(row), values.end(row))) {
                        hits |= 1L << j;
                    }
                }
                out.store(w, valid, negated ? ~hits : hits);
            }
            return out.finish();
        }
    }

    /** {@code v [NOT] LIKE compiled}: one pass, 64 rows per step. */
    static FieldVector like(KernelInput v, LikePattern compiled, boolean negated, int rows, BufferAllocator allocator) {
        if (!(v.type instanceof DataType.Utf8 || v.isNullType())) {
            // Unreachable from a plan: the planner refuses LIKE over anything but strings.
            throw new UnsupportedOperationException(v.type + (compiled.caseInsensitive() ? " ILIKE " : " LIKE ")
                    + "Utf8 is not supported (strings only)");
        }
        try (PredicateOutput out = PredicateOutput.allocate(rows, allocator)) {
            if (v.isNullType()) {
                return out.finish();
            }
            fill(v, compiled, negated, out);
            return out.finish();
        }
    }

    /**
     * {@code target = target AND (v [NOT] LIKE compiled)} (OR when {@code and} is false), Kleene,
     * into the bitmaps of a chain's running result with no vector of its own: when the target has
     * decided most rows, only the undecided ones are matched, row by row. {@code v} must be a Utf8
     * array.
     */
    static void likeInto(
            KernelInput v,
            LikePattern compiled,
            boolean negated,
            int rows,
            MemorySegment targetValidity,
            MemorySegment targetData,
            boolean and) {
        if (!(v.type instanceof DataType.Utf8) || v.constant) {
            throw new IllegalArgumentException("LIKE is combined into a result from a string array only");
        }
        try (PredicateOutput out = PredicateOutput.into(targetValidity, targetData, rows, and)) {
            fill(v, compiled, negated, out);
            out.finish();
        }
    }

    /**
     * {@link #likeInto} for {@code v} as a chain term holds it; false, with nothing written, when
     * {@code v} is not a string array, which the caller then combines as a value.
     */
    static boolean combineInto(
            ColumnarValue v,
            LikePattern compiled,
            boolean negated,
            int rows,
            MemorySegment targetValidity,
            MemorySegment targetData,
            boolean and,
            BufferAllocator allocator) {
        if (rows == 0 || !(v instanceof ColumnarValue.Array) || !(v.dataType().valueType() instanceof DataType.Utf8)) {
            return false;
        }
        try (KernelInput in = KernelInput.of(v, rows, allocator)) {
            if (!(in.type instanceof DataType.Utf8)) {
                return false;
            }
            likeInto(in, compiled, negated, rows, targetValidity, targetData, and);
        }
        return true;
    }

    /**
     * A combined output whose target leaves more than this share of rows undecided matches every
     * row in one pass ({@link LikePattern#matchAll}) rather than the undecided rows one by one.
     * Measured on 27-byte comments ({@code quiver bench --queries}, the strings query): a row
     * searched on its own costs about what four rows cost in the batch-wide vector pass, so the
     * pass wins from about a quarter undecided; a tenth leaves a margin.
     */
    private static final double WHOLE_PASS_SHARE = 0.1;

    private static void fill(KernelInput v, LikePattern compiled, boolean negated, PredicateOutput out) {
        ByteColumn values = ByteColumn.of(v, out);
        PredicateOutput.ValidityWords valid = out.validity(v);
        long[] wanted = null;
        if (out.combining()) {
            wanted = new long[out.words()];
            long undecided = 0;
            for (int w = 0; w < wanted.length; w++) {
                wanted[w] = out.undecided(w) & out.liveMask(w);
                undecided += Long.bitCount(wanted[w]);
            }
            if (undecided > WHOLE_PASS_SHARE * out.rows()) {
                wanted = null;
            }
        }
        long[] all = wanted == null ? compiled.matchAll(values, out.rows()) : null;
        for (int w = 0; w < out.words(); w++) {
            long rowsValid = valid.get(w) & out.liveMask(w);
            long hits;
            if (all != null) {
                hits = all[w];
            } else {
                long rowsWanted = wanted == null ? rowsValid : rowsValid & wanted[w];
                hits = rowsWanted == 0 ? 0 : compiled.matchWord(values, w << 6, rowsWanted);
            }
            long value = negated ? ~hits : hits;
            if (out.combining()) {
                out.combine(w, rowsValid, value & rowsValid);
            } else {
                out.store(w, rowsValid, value);
            }
        }
    }

    private static void checkStrings(KernelInput v, KernelInput pattern, boolean caseInsensitive) {
        String name = caseInsensitive ? "ILIKE" : "LIKE";
        for (KernelInput in : new KernelInput[] {v, pattern}) {
            if (!(in.type instanceof DataType.Utf8 || in.isNullType())) {
                // Unreachable from a plan: the planner refuses LIKE over anything but strings.
                throw new UnsupportedOperationException(
                        v.type + " " + name + " " + pattern.type + " is not supported (strings only)");
            }
        }
    }
}
