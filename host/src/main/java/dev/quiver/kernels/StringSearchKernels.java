package dev.quiver.kernels;

import dev.quiver.strings.Utf8;
import dev.quiver.strings.Utf8Input;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;

/**
 * Substring search over Utf8 and LargeUtf8 columns: {@code contains}, {@code starts_with},
 * {@code ends_with} (Boolean) and {@code strpos} (Int64, 1-based in characters, 0 when absent).
 *
 * <p>With one needle for the whole batch (a literal or a constant), {@code contains} searches
 * the whole data buffer in one vector pass ({@link Needle#searchAllRows}) and {@code strpos} the
 * bytes of 64 rows at once ({@link Needle#searchRows}, SWAR), rather than one short search per
 * row: the rows' bytes lie back to back, and each occurrence is mapped to its row by walking the
 * offsets forward. An occurrence counts only when it lies entirely inside one row (a needle split
 * across two adjacent rows is no match). Rows without one are false (0), null rows null; bytes
 * behind null rows may be searched but never decide anything. {@code starts_with} and
 * {@code ends_with} compare the needle with each row's first or last bytes. With a needle per
 * row, each row is searched on its own.
 *
 * <p>Inputs are borrowed; the returned vector belongs to the caller ({@code allocator}).
 * {@code needle} has one row (the same for every row) or as many as {@code s}.
 */
public final class StringSearchKernels {
    private StringSearchKernels() {}

    /** {@code contains(s, needle)}: strict, an empty needle is in every string. */
    public static FieldVector contains(FieldVector s, FieldVector needle, BufferAllocator allocator) {
        return predicate(s, needle, Kind.CONTAINS, allocator);
    }

    /** {@code starts_with(s, prefix)}: strict, every string starts with the empty string. */
    public static FieldVector startsWith(FieldVector s, FieldVector prefix, BufferAllocator allocator) {
        return predicate(s, prefix, Kind.PREFIX, allocator);
    }

    /** {@code ends_with(s, suffix)}: strict, every string ends with the empty string. */
    public static FieldVector endsWith(FieldVector s, FieldVector suffix, BufferAllocator allocator) {
        return predicate(s, suffix, Kind.SUFFIX, allocator);
    }

    private enum Kind {
        CONTAINS,
        PREFIX,
        SUFFIX
    }

    private static FieldVector predicate(FieldVector s, FieldVector needle, Kind kind, BufferAllocator allocator) {
        Objects.requireNonNull(allocator, "allocator is null");
        int rows = s.getValueCount();
        boolean constant = needle.getValueCount() == 1;
        if (!constant && needle.getValueCount() != rows) {
            throw new IllegalArgumentException(
                    "a needle of " + needle.getValueCount() + " rows for " + rows + " strings");
        }
        try (Utf8Input in = Utf8Input.of(s);
                Utf8Input nd = constant ? Utf8Input.constant(needle) : Utf8Input.of(needle);
                Arena arena = Arena.ofConfined();
                PredicateOutput out = PredicateOutput.allocate(rows, allocator)) {
            if (rows == 0) {
                return out.finish();
            }
            if (constant) {
                Needle n = nd.isValid(0) ? Needle.of(nd.data(), nd.start(0), nd.end(0)) : null;
                ByteColumn offsets = ByteColumn.of(s, arena);
                MemorySegment d = in.data();
                int len = n == null ? 0 : n.length();
                if (kind == Kind.CONTAINS && len > 0) {
                    // The hot case gets a loop of its own.
                    long[] hits = n.searchAllRows(offsets, rows);
                    for (int w = 0; w < out.words(); w++) {
                        out.store(w, in.validWord(w, rows), hits[w]);
                    }
                    return out.finish();
                }
                for (int w = 0; w < out.words(); w++) {
                    long valid = n == null ? 0 : in.validWord(w, rows);
                    int first = w << 6;
                    int count = Math.min(64, rows - first);
                    long hits = 0;
                    if (valid != 0) {
                        switch (kind) {
                            case CONTAINS -> hits = len == 0 ? -1L : n.searchRows(offsets, first, count);
                            case PREFIX -> {
                                for (long m = valid; m != 0; m &= m - 1) {
                                    int r = first + Long.numberOfTrailingZeros(m);
                                    long st = offsets.start(r);
                                    if (offsets.end(r) - st >= len && n.at(d, st)) {
                                        hits |= m & -m;
                                    }
                                }
                            }
                            case SUFFIX -> {
                                for (long m = valid; m != 0; m &= m - 1) {
                                    int r = first + Long.numberOfTrailingZeros(m);
                                    long e = offsets.end(r);
                                    if (e - offsets.start(r) >= len && n.at(d, e - len)) {
                                        hits |= m & -m;
                                    }
                                }
                            }
                        }
                    }
                    out.store(w, valid, hits);
                }
                return out.finish();
            }
            long[] found = new long[out.words()];
            MemorySegment d = in.data();
            MemorySegment nb = nd.data();
            for (int r = 0; r < rows; r++) {
                if (!in.isValid(r) || !nd.isValid(r)) {
                    continue;
                }
                long s0 = in.start(r);
                long e0 = in.end(r);
                long ns = nd.start(r);
                long nl = nd.end(r) - ns;
                boolean hit = switch (kind) {
                    case CONTAINS -> Needle.indexOf(d, s0, e0, nb, ns, nl) >= 0;
                    case PREFIX -> e0 - s0 >= nl && ByteColumn.equal(d, s0, nb, ns, nl);
                    case SUFFIX -> e0 - s0 >= nl && ByteColumn.equal(d, e0 - nl, nb, ns, nl);
                };
                if (hit) {
                    found[r >>> 6] |= 1L << r;
                }
            }
            for (int w = 0; w < out.words(); w++) {
                out.store(w, in.validWord(w, rows) & nd.validWord(w, rows), found[w]);
            }
            return out.finish();
        }
    }

    /**
     * {@code strpos(s, needle)}: the 1-based position in characters of the needle's first
     * occurrence in {@code s}, 0 when it does not occur, 1 for an empty needle; strict. On an
     * all-ASCII batch the byte offset is the position; otherwise the code points before it are
     * counted.
     */
    public static FieldVector position(FieldVector s, FieldVector needle, BufferAllocator allocator) {
        Objects.requireNonNull(allocator, "allocator is null");
        int rows = s.getValueCount();
        boolean constant = needle.getValueCount() == 1;
        if (!constant && needle.getValueCount() != rows) {
            throw new IllegalArgumentException(
                    "a needle of " + needle.getValueCount() + " rows for " + rows + " strings");
        }
        BigIntVector out = new BigIntVector("result", allocator);
        try (Utf8Input in = Utf8Input.of(s);
                Utf8Input nd = constant ? Utf8Input.constant(needle) : Utf8Input.of(needle);
                Arena arena = Arena.ofConfined()) {
            out.allocateNew(Math.max(rows, 1)); // zeroed: 0 (not found), null
            out.setValueCount(rows);
            if (rows == 0) {
                return out;
            }
            boolean ascii = in.isAllAscii();
            MemorySegment d = in.data();
            if (constant) {
                if (!nd.isValid(0)) {
                    return out;
                }
                for (int r = 0; r < rows; r++) {
                    if (in.isValid(r)) {
                        out.set(r, 0L);
                    }
                }
                Needle n = Needle.of(nd.data(), nd.start(0), nd.end(0));
                ByteColumn column = ByteColumn.of(s, arena);
                if (n.length() == 0) {
                    for (int r = 0; r < rows; r++) {
                        if (in.isValid(r)) {
                            out.set(r, 1L);
                        }
                    }
                    return out;
                }
                for (int w = 0; w < (rows + 63) >>> 6; w++) {
                    long valid = in.validWord(w, rows);
                    int first = w << 6;
                    long hits = valid == 0 ? 0 : n.searchRows(d, column, first, Math.min(64, rows - first)) & valid;
                    for (long m = hits; m != 0; m &= m - 1) {
                        int row = first + Long.numberOfTrailingZeros(m);
                        long st = in.start(row);
                        long at = n.find(d, st, in.end(row));
                        out.set(row, 1 + (ascii ? at - st : Utf8.codePoints(d, st, at)));
                    }
                }
                return out;
            }
            MemorySegment nb = nd.data();
            for (int r = 0; r < rows; r++) {
                if (!in.isValid(r) || !nd.isValid(r)) {
                    continue;
                }
                long st = in.start(r);
                long at = Needle.indexOf(d, st, in.end(r), nb, nd.start(r), nd.end(r) - nd.start(r));
                out.set(r, at < 0 ? 0 : 1 + (ascii ? at - st : Utf8.codePoints(d, st, at)));
            }
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }
}
