package dev.quiver.kernels;

import dev.quiver.strings.Utf8;
import dev.quiver.strings.Utf8Input;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Substring search over Utf8 and LargeUtf8 columns: {@code contains}, {@code starts_with},
 * {@code ends_with} (Boolean) and {@code strpos} (Int64, 1-based in characters, 0 when absent).
 *
 * <p>With one needle for the whole batch (a literal or a constant), {@code contains} and
 * {@code strpos} search the <em>whole data buffer</em> at once, {@code [offset[0], offset[rows])},
 * eight positions per step ({@link Needle}), rather than one short search per row: the rows'
 * bytes lie back to back, so a hit is mapped to its row by walking the offsets forward. A hit
 * counts only when it lies entirely inside one row (a needle split across two adjacent rows
 * is no match); after a hit the search jumps to the next row's start. Rows without a hit are
 * false (0), null rows null. Bytes behind null rows may be searched but never decide anything.
 * With a needle per row, each row is searched on its own.
 *
 * <p>Inputs are borrowed; the returned vector belongs to the caller ({@code allocator}).
 * {@code needle} has one row (the same for every row) or as many as {@code s}.
 */
public final class StringSearchKernels {
    private StringSearchKernels() {
    }

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

    private enum Kind { CONTAINS, PREFIX, SUFFIX }

    private static FieldVector predicate(FieldVector s, FieldVector needle, Kind kind, BufferAllocator allocator) {
        Objects.requireNonNull(allocator, "allocator is null");
        int rows = s.getValueCount();
        boolean constant = needle.getValueCount() == 1;
        if (!constant && needle.getValueCount() != rows) {
            throw new IllegalArgumentException("a needle of " + needle.getValueCount() + " rows for " + rows + " strings");
        }
        try (Utf8Input in = Utf8Input.of(s);
             Utf8Input nd = constant ? Utf8Input.constant(needle) : Utf8Input.of(needle);
             java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined();
             PredicateOutput out = PredicateOutput.allocate(rows, allocator)) {
            if (rows == 0) {
                return out.finish();
            }
            long[] found = new long[out.words()];
            if (constant && !nd.isValid(0)) {
                // every row null
            } else if (constant) {
                Needle n = Needle.of(nd.data(), nd.start(0), nd.end(0));
                switch (kind) {
                    case CONTAINS -> {
                        if (n.length() == 0) {
                            java.util.Arrays.fill(found, -1L);
                        } else {
                            searchAll(in, Offsets.of(s, arena), n, rows, found);
                        }
                    }
                    case PREFIX -> {
                        MemorySegment d = in.data();
                        int len = n.length();
                        for (int r = 0; r < rows; r++) {
                            long st = in.start(r);
                            if (in.end(r) - st >= len && n.at(d, st)) {
                                found[r >>> 6] |= 1L << r;
                            }
                        }
                    }
                    case SUFFIX -> {
                        MemorySegment d = in.data();
                        int len = n.length();
                        for (int r = 0; r < rows; r++) {
                            long e = in.end(r);
                            if (e - in.start(r) >= len && n.at(d, e - len)) {
                                found[r >>> 6] |= 1L << r;
                            }
                        }
                    }
                }
            } else {
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
            }
            for (int w = 0; w < out.words(); w++) {
                long valid = in.validWord(w, rows) & (constant ? (nd.isValid(0) ? -1L : 0L) : nd.validWord(w, rows));
                out.store(w, valid, found[w]);
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
            throw new IllegalArgumentException("a needle of " + needle.getValueCount() + " rows for " + rows + " strings");
        }
        BigIntVector out = new BigIntVector("result", allocator);
        try (Utf8Input in = Utf8Input.of(s); Utf8Input nd = constant ? Utf8Input.constant(needle) : Utf8Input.of(needle);
             java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
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
                if (n.length() == 0) {
                    for (int r = 0; r < rows; r++) {
                        if (in.isValid(r)) {
                            out.set(r, 1L);
                        }
                    }
                    return out;
                }
                long[] found = new long[(rows + 63) >>> 6];
                searchAll(in, Offsets.of(s, arena), n, rows, found);
                for (int w = 0; w < found.length; w++) {
                    for (long m = found[w] & in.validWord(w, rows); m != 0; m &= m - 1) {
                        int row = (w << 6) + Long.numberOfTrailingZeros(m);
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

    /**
     * Sets bit {@code r} of {@code found} for each row {@code r} of {@code in} that contains
     * {@code n} (not empty): one counted loop over the whole data buffer, eight start positions
     * per step ({@link Needle#candidates}: exact for needles of up to 4 bytes, else a rare
     * candidate is compared in full), and only a real occurrence walks the
     * offsets forward to its row, where it counts if it ends inside the row. The loop never
     * leaves the scan for a hit, so C2 compiles it as one long counted loop (jumping to the next
     * row after a hit measured slower). Null rows may be marked; the caller masks them.
     */
    private static void searchAll(Utf8Input in, Offsets offsets, Needle n, int rows, long[] found) {
        MemorySegment d = in.data();
        int len = n.length();
        long start = in.start(0);
        long end = in.end(rows - 1);
        long lastStart = end - len;
        // Words are read from p to p + len - 1, so the fast loop stops where they all fit.
        long fastEnd = Math.min(lastStart - 7, d.byteSize() - n.reach() - 8);
        int r = 0;
        long rowEnd = offsets.end(0);
        long p = start;
        boolean exact = n.exact();
        for (; p <= fastEnd; p += 8) {
            long c = n.candidates(d, p);
            if (c == 0) {
                continue;
            }
            c = n.confirm(d, p, c);
            while (c != 0) {
                long q = p + (Long.numberOfTrailingZeros(c) >>> 3);
                c &= c - 1;
                if (exact || n.at(d, q)) {
                    if (rowEnd <= q) {
                        // Eight rows per step while they all end before q, then one at a time.
                        while (r + 9 < rows && offsets.end(r + 8) <= q) {
                            r += 8;
                        }
                        rowEnd = offsets.end(r);
                        while (rowEnd <= q) {
                            rowEnd = offsets.end(++r);
                        }
                    }
                    if (q + len <= rowEnd) {
                        found[r >>> 6] |= 1L << r;
                    }
                }
            }
        }
        for (; p <= lastStart; p++) {
            if (n.at(d, p)) {
                while (rowEnd <= p) {
                    rowEnd = offsets.end(++r);
                }
                if (p + len <= rowEnd) {
                    found[r >>> 6] |= 1L << r;
                }
            }
        }
    }

    /** The offsets of a string vector, read directly: where rows end, and which row holds a byte. */
    private record Offsets(MemorySegment offsets, boolean large) {
        /** A view of {@code v}'s offsets (it has rows) that lives as long as {@code arena}. */
        static Offsets of(FieldVector v, java.lang.foreign.Arena arena) {
            org.apache.arrow.memory.ArrowBuf b = v.getOffsetBuffer();
            return new Offsets(MemorySegment.ofAddress(b.memoryAddress()).reinterpret(b.capacity(), arena, null),
                    v instanceof org.apache.arrow.vector.LargeVarCharVector);
        }

        long end(int row) {
            return large ? offsets.get(Utf8.WORD, (long) (row + 1) << 3) : offsets.get(Utf8.INT, (long) (row + 1) << 2);
        }
    }
}
