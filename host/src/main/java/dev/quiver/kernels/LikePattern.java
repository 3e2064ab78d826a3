package dev.quiver.kernels;

import dev.quiver.errors.EvaluationException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;

/**
 * A compiled SQL LIKE / ILIKE pattern: {@code %} matches any run of characters, {@code _}
 * exactly one character (code point), the escape character makes the next character literal.
 * Compile a literal pattern once per query and pass it to
 * {@link Kernels#like(dev.quiver.value.ColumnarValue, LikePattern, boolean, int, org.apache.arrow.memory.BufferAllocator)}.
 *
 * <p>Matching reads the UTF-8 bytes in the Arrow buffer; nothing is decoded into a
 * {@code String}. The {@link #strategy()} follows from the pattern's shape:
 * <ul>
 * <li>{@link Strategy#ANY} {@code %}: every non-null value;</li>
 * <li>{@link Strategy#EXACT} {@code abc}, {@link Strategy#PREFIX} {@code abc%},
 *     {@link Strategy#SUFFIX} {@code %abc}: the literal compared with the row's bytes, eight at a time;</li>
 * <li>{@link Strategy#CONTAINS} {@code %abc%}: LIKE over a column searches the whole batch in
 *     one vector pass ({@link #matchAll}, {@link Needle#searchAllRows}, shared with
 *     {@code contains()}); ILIKE searches 64 rows' bytes at once, eight positions per step, with
 *     ASCII case folded;</li>
 * <li>{@link Strategy#GENERAL}, every other pattern: a backtracking matcher over the code
 *     points decoded in place (linear for most patterns, at worst rows x pattern length).</li>
 * </ul>
 * ILIKE folds case with Unicode simple case folding ({@code lower(upper(c))}). Its fast
 * strategies apply when the folded literal is ASCII: they fold ASCII letters byte-wise and
 * decide every row whose deciding bytes are ASCII; a row with other bytes there (which may fold
 * to ASCII, as {@code 'ſ'} folds to {@code 's'}) goes to the general matcher.
 *
 * <pre>{@code
 * LikePattern p = LikePattern.compile("abc%", null, false);   // p.strategy() == PREFIX
 * }</pre>
 */
public final class LikePattern {
    private static final int ANY_RUN = -1;
    private static final int ANY_ONE = -2;
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;

    /** How rows are matched; see the class comment. */
    public enum Strategy {
        ANY,
        EXACT,
        PREFIX,
        SUFFIX,
        CONTAINS,
        GENERAL
    }

    private final String pattern;
    private final Character escape;
    private final boolean caseInsensitive;
    /** Literal code points, or {@link #ANY_RUN} / {@link #ANY_ONE}; case-folded when case-insensitive. */
    private final int[] tokens;

    private final Strategy strategy;
    /** The literal of a fast strategy as UTF-8 (case-insensitive: folded, and ASCII). */
    private final byte[] literal;
    /** {@link #literal} as little-endian words, and per word the bytes that count. */
    private final long[] literalWords;

    private final long[] literalMasks;
    /** Per word, 0x20 in the bytes that are ASCII letters of a case-insensitive literal: OR-ing it folds a row's byte. */
    private final long[] caseBits;
    /** CONTAINS: the literal's first and last byte in every byte, and their case bits. */
    private final long firstBytes;

    private final long firstCase;
    private final long lastBytes;
    private final long lastCase;
    /** CONTAINS, case-sensitive: the literal as a {@link Needle}, searched over 64 rows at once with the contains() kernel's search. */
    private final Needle needle;

    private LikePattern(String pattern, Character escape, boolean caseInsensitive, int[] tokens) {
        this.pattern = pattern;
        this.escape = escape;
        this.caseInsensitive = caseInsensitive;
        this.tokens = tokens;
        int first = 0;
        int last = tokens.length;
        boolean leading = last > 0 && tokens[0] == ANY_RUN;
        boolean trailing = last > (leading ? 1 : 0) && tokens[last - 1] == ANY_RUN;
        if (leading) {
            first++;
        }
        if (trailing) {
            last--;
        }
        boolean literalOnly = true;
        for (int k = first; k < last; k++) {
            literalOnly &= tokens[k] >= 0 && (!caseInsensitive || tokens[k] < 0x80);
        }
        Strategy s = Strategy.GENERAL;
        byte[] lit = new byte[0];
        if (literalOnly) {
            lit = new String(tokens, first, last - first).getBytes(StandardCharsets.UTF_8);
            s = leading && trailing
                    ? (lit.length == 0 ? Strategy.ANY : Strategy.CONTAINS)
                    : leading
                            ? (lit.length == 0 ? Strategy.ANY : Strategy.SUFFIX)
                            : trailing ? Strategy.PREFIX : Strategy.EXACT;
        }
        this.strategy = s;
        this.literal = lit;
        int words = (lit.length + 7) >>> 3;
        literalWords = new long[words];
        literalMasks = new long[words];
        caseBits = new long[words];
        for (int k = 0; k < lit.length; k++) {
            int shift = (k & 7) << 3;
            literalWords[k >>> 3] |= (lit[k] & 0xFFL) << shift;
            literalMasks[k >>> 3] |= 0xFFL << shift;
            if (caseInsensitive && isLowerAsciiLetter(lit[k])) {
                caseBits[k >>> 3] |= 0x20L << shift;
            }
        }
        if (lit.length > 0) {
            byte f = lit[0];
            byte l = lit[lit.length - 1];
            firstBytes = (f & 0xFFL) * ONES;
            lastBytes = (l & 0xFFL) * ONES;
            firstCase = caseInsensitive && isLowerAsciiLetter(f) ? 0x20 * ONES : 0;
            lastCase = caseInsensitive && isLowerAsciiLetter(l) ? 0x20 * ONES : 0;
        } else {
            firstBytes = lastBytes = firstCase = lastCase = 0;
        }
        needle = s == Strategy.CONTAINS && !caseInsensitive ? Needle.of(lit) : null;
    }

    /**
     * Compiles {@code pattern}.
     *
     * @param escape the escape character, or null for none
     * @throws IllegalArgumentException when the pattern ends in a lone escape character
     */
    public static LikePattern compile(String pattern, Character escape, boolean caseInsensitive) {
        Objects.requireNonNull(pattern, "pattern is null");
        int[] cps = pattern.codePoints().toArray();
        int[] tokens = new int[cps.length];
        int n = 0;
        for (int k = 0; k < cps.length; k++) {
            int c = cps[k];
            if (escape != null && c == escape) {
                if (k + 1 == cps.length) {
                    throw new EvaluationException(
                            "LIKE pattern '" + pattern + "' ends with the escape character '" + escape + "'");
                }
                tokens[n++] = fold(cps[++k], caseInsensitive);
            } else if (c == '%') {
                if (n == 0 || tokens[n - 1] != ANY_RUN) { // %% is %
                    tokens[n++] = ANY_RUN;
                }
            } else if (c == '_') {
                tokens[n++] = ANY_ONE;
            } else {
                tokens[n++] = fold(c, caseInsensitive);
            }
        }
        return new LikePattern(pattern, escape, caseInsensitive, Arrays.copyOf(tokens, n));
    }

    public String pattern() {
        return pattern;
    }

    /**
     * The matches of every row of {@code column} at once, as bit words, when this pattern is a
     * case-sensitive {@code %literal%} over a column ({@link Needle#searchAllRows}: one vector
     * pass over the whole batch); null otherwise, and then {@link #matchWord} runs per 64 rows.
     * Null rows may be marked; the caller masks them.
     */
    long[] matchAll(ByteColumn column, int rows) {
        return needle != null && !column.constant && needle.length() > 0 ? needle.searchAllRows(column, rows) : null;
    }

    /** The escape character, or null. */
    public Character escape() {
        return escape;
    }

    public boolean caseInsensitive() {
        return caseInsensitive;
    }

    public Strategy strategy() {
        return strategy;
    }

    /** The strategy as EXPLAIN prints it: "prefix", "contains", "general", ... */
    public String strategyName() {
        return strategy.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return (caseInsensitive ? "ILIKE '" : "LIKE '") + pattern + "'"
                + (escape == null ? "" : " ESCAPE '" + escape + "'") + " (" + strategyName() + ")";
    }

    private static boolean isLowerAsciiLetter(byte b) {
        return b >= 'a' && b <= 'z';
    }

    /** Unicode simple case folding, as lower(upper(c)) (folds 'ſ' to 's', 'K' (Kelvin) to 'k', 'ς' to 'σ'). */
    private static int fold(int c, boolean caseInsensitive) {
        return caseInsensitive ? Character.toLowerCase(Character.toUpperCase(c)) : c;
    }

    // ---- matching

    /**
     * Bit {@code j} set when row {@code first + j} of {@code column} matches, for the rows whose bit
     * is set in {@code rows} (the others are not read and stay 0).
     */
    long matchWord(ByteColumn column, int first, long rows) {
        MemorySegment d = column.data;
        long hits = 0;
        switch (strategy) {
            case ANY -> hits = rows;
            case EXACT -> {
                for (long m = rows; m != 0; m &= m - 1) {
                    int j = Long.numberOfTrailingZeros(m);
                    long s = column.start(first + j);
                    long e = column.end(first + j);
                    if (exact(d, s, e)) {
                        hits |= 1L << j;
                    }
                }
            }
            case PREFIX -> {
                for (long m = rows; m != 0; m &= m - 1) {
                    int j = Long.numberOfTrailingZeros(m);
                    long s = column.start(first + j);
                    long e = column.end(first + j);
                    if (prefix(d, s, e)) {
                        hits |= 1L << j;
                    }
                }
            }
            case SUFFIX -> {
                for (long m = rows; m != 0; m &= m - 1) {
                    int j = Long.numberOfTrailingZeros(m);
                    long s = column.start(first + j);
                    long e = column.end(first + j);
                    if (suffix(d, s, e)) {
                        hits |= 1L << j;
                    }
                }
            }
            case CONTAINS ->
                hits = column.constant
                        ? (contains(d, column.start(0), column.end(0)) ? rows : 0)
                        : needle != null ? searchRuns(column, first, rows) : containsWord(column, first, rows);
            case GENERAL -> {
                for (long m = rows; m != 0; m &= m - 1) {
                    int j = Long.numberOfTrailingZeros(m);
                    if (general(d, column.start(first + j), column.end(first + j))) {
                        hits |= 1L << j;
                    }
                }
            }
        }
        return hits;
    }

    /**
     * The rows of {@code rows} (a word's rows from {@code first}) that contain the needle, searched
     * run by run of consecutive rows: the bytes of rows not asked for are not read (a chain's
     * undecided rows are often scattered).
     */
    private long searchRuns(ByteColumn column, int first, long rows) {
        long hits = 0;
        for (long w = rows; w != 0; ) {
            int start = Long.numberOfTrailingZeros(w);
            int len = Long.numberOfTrailingZeros(~(w >>> start));
            hits |= needle.searchRows(column, first + start, len) << start;
            w = start + len >= 64 ? 0 : w & (-1L << (start + len));
        }
        return hits;
    }

    /** Whether the UTF-8 bytes {@code [start, end)} of {@code data} match. */
    boolean matches(MemorySegment data, long start, long end) {
        return switch (strategy) {
            case ANY -> true;
            case EXACT -> exact(data, start, end);
            case PREFIX -> prefix(data, start, end);
            case SUFFIX -> suffix(data, start, end);
            case CONTAINS -> contains(data, start, end);
            case GENERAL -> general(data, start, end);
        };
    }

    /** Whether {@code value} matches (the same code as the kernels, on the value's UTF-8 bytes). */
    boolean matches(String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        return matches(MemorySegment.ofArray(bytes), 0, bytes.length);
    }

    private boolean exact(MemorySegment d, long s, long e) {
        long len = e - s;
        if (len == literal.length && literalAt(d, s)) {
            return true;
        }
        // ILIKE: a non-ASCII value may fold to the literal ('ſ' is 2 bytes and folds to 's'); it has at most as many
        // code points as bytes.
        return caseInsensitive && len > literal.length && !ascii(d, s, e) && general(d, s, e);
    }

    private boolean prefix(MemorySegment d, long s, long e) {
        int n = literal.length;
        if (e - s < n) {
            return false;
        }
        if (literalAt(d, s)) {
            return true;
        }
        return caseInsensitive && !ascii(d, s, s + n) && general(d, s, e);
    }

    private boolean suffix(MemorySegment d, long s, long e) {
        int n = literal.length;
        if (e - s < n) {
            return false;
        }
        if (literalAt(d, e - n)) {
            return true;
        }
        return caseInsensitive && !ascii(d, e - n, e) && general(d, s, e);
    }

    private boolean contains(MemorySegment d, long s, long e) {
        if (find(d, s, e)) {
            return true;
        }
        return caseInsensitive && !ascii(d, s, e) && general(d, s, e);
    }

    /** Whether the literal's bytes (case-insensitive: ASCII-folded) are at {@code at}; the caller ensures they are inside the row. */
    private boolean literalAt(MemorySegment d, long at) {
        long[] words = literalWords;
        for (int w = 0; w < words.length; w++) {
            long pos = at + ((long) w << 3);
            long x = pos + 8 <= d.byteSize()
                    ? d.get(PredicateOutput.WORD, pos)
                    : ByteColumn.partialWord(d, pos, Math.min(8, literal.length - (w << 3)));
            if (((x | caseBits[w]) & literalMasks[w]) != words[w]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether the literal occurs in {@code [s, e)}: eight candidate positions per step, those whose
     * first and last byte match, each checked in full. A byte match of valid UTF-8 is a code point
     * match, since UTF-8 is self-synchronizing.
     */
    private boolean find(MemorySegment d, long s, long e) {
        long lastStart = e - literal.length;
        long size = d.byteSize();
        long p = s;
        for (; p <= lastStart && p + literal.length + 7 <= size; p += 8) {
            long c = candidates(d, p, lastStart - p);
            for (; c != 0; c &= c - 1) {
                if (literalAt(d, p + (Long.numberOfTrailingZeros(c) >>> 3))) {
                    return true;
                }
            }
        }
        for (; p <= lastStart; p++) {
            if (literalAt(d, p)) {
                return true;
            }
        }
        return false;
    }

    /**
     * CONTAINS over up to 64 consecutive rows at once: their bytes lie back to back in the data
     * buffer (offsets only grow, as the Arrow format requires), so the search runs over the whole
     * region and a cursor assigns each occurrence to its row. This avoids a short search per row,
     * whose loop exit the branch predictor misses once per row.
     */
    private long containsWord(ByteColumn column, int first, long rows) {
        if (rows == 0) {
            return 0;
        }
        MemorySegment d = column.data;
        int n = literal.length;
        int last = first + 63 - Long.numberOfLeadingZeros(rows);
        long regionStart = column.start(first);
        long regionEnd = column.end(last);
        long lastStart = regionEnd - n;
        long size = d.byteSize();
        long hits = 0;
        int r = first;
        long rowEnd = column.end(r);
        long p = regionStart;
        for (; p <= lastStart && p + n + 7 <= size; p += 8) {
            for (long c = candidates(d, p, lastStart - p); c != 0; c &= c - 1) {
                long q = p + (Long.numberOfTrailingZeros(c) >>> 3);
                while (rowEnd <= q && r < last) {
                    rowEnd = column.end(++r);
                }
                if (q + n <= rowEnd && literalAt(d, q)) {
                    hits |= 1L << (r - first);
                }
            }
        }
        for (; p <= lastStart; p++) {
            while (rowEnd <= p && r < last) {
                rowEnd = column.end(++r);
            }
            if (p + n <= rowEnd && literalAt(d, p)) {
                hits |= 1L << (r - first);
            }
        }
        hits &= rows;
        long undecided = rows & ~hits;
        if (caseInsensitive && undecided != 0 && !ascii(d, regionStart, regionEnd)) {
            // Rows with non-ASCII bytes may match once folded ('ſ' is 's'): the general matcher decides those.
            for (long m = undecided; m != 0; m &= m - 1) {
                int j = Long.numberOfTrailingZeros(m);
                long s = column.start(first + j);
                long e = column.end(first + j);
                if (!ascii(d, s, e) && general(d, s, e)) {
                    hits |= 1L << j;
                }
            }
        }
        return hits;
    }

    /**
     * Bit 7 of byte {@code k} set where the literal's first byte is at {@code p + k} and its last
     * byte where it would end (the zero-byte trick; a few false positives, never a miss), for
     * {@code k <= room}. Reads eight bytes at {@code p} and at {@code p + n - 1}.
     */
    private long candidates(MemorySegment d, long p, long room) {
        long a = (d.get(PredicateOutput.WORD, p) | firstCase) ^ firstBytes;
        long b = (d.get(PredicateOutput.WORD, p + literal.length - 1) | lastCase) ^ lastBytes;
        long x = a | b;
        long c = (x - ONES) & ~x & HIGHS;
        return room < 7 ? c & ((1L << ((room + 1) << 3)) - 1) : c;
    }

    /** Whether the bytes {@code [s, e)} are all ASCII. */
    private static boolean ascii(MemorySegment d, long s, long e) {
        long p = s;
        long or = 0;
        for (; p + 8 <= e; p += 8) {
            or |= d.get(PredicateOutput.WORD, p);
        }
        for (; p < e; p++) {
            or |= d.get(ValueLayout.JAVA_BYTE, p);
        }
        return (or & HIGHS) == 0;
    }

    /**
     * The general matcher: greedy, backtracking to the last {@code %}, over code points decoded
     * from the UTF-8 bytes {@code [start, end)} in place (case-folded for ILIKE).
     */
    private boolean general(MemorySegment d, long start, long end) {
        int[] p = tokens;
        int n = p.length;
        int pi = 0;
        long si = start;
        int starP = -1;
        long starS = 0;
        while (si < end) {
            int b = d.get(ValueLayout.JAVA_BYTE, si);
            int cp;
            int len;
            if (b >= 0) {
                cp = caseInsensitive && b >= 'A' && b <= 'Z' ? b + 0x20 : b;
                len = 1;
            } else {
                long c = decode(d, si, end);
                cp = fold((int) (c >>> 8), caseInsensitive);
                len = (int) (c & 0xFF);
            }
            if (pi < n) {
                int t = p[pi];
                if (t == ANY_ONE || t == cp) {
                    pi++;
                    si += len;
                    continue;
                }
                if (t == ANY_RUN) {
                    if (pi == n - 1) {
                        return true; // a trailing % takes the rest
                    }
                    starP = pi++;
                    starS = si;
                    continue;
                }
            }
            if (starP < 0) {
                return false;
            }
            pi = starP + 1;
            starS += decode(d, starS, end) & 0xFF;
            si = starS;
        }
        while (pi < n && p[pi] == ANY_RUN) {
            pi++;
        }
        return pi == n;
    }

    /**
     * The code point at {@code at} (before {@code end}) and its length in bytes, as
     * {@code codePoint << 8 | length}; a malformed or cut-off sequence is U+FFFD of one byte.
     */
    private static long decode(MemorySegment d, long at, long end) {
        int b0 = d.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
        if (b0 < 0x80) {
            return (long) b0 << 8 | 1;
        }
        int len = b0 >= 0xF8 ? 0 : b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC0 ? 2 : 0;
        if (len == 0 || at + len > end) {
            return 0xFFFDL << 8 | 1;
        }
        int cp = b0 & (0x7F >> len);
        for (int k = 1; k < len; k++) {
            int c = d.get(ValueLayout.JAVA_BYTE, at + k) & 0xFF;
            if ((c & 0xC0) != 0x80) {
                return 0xFFFDL << 8 | 1;
            }
            cp = cp << 6 | (c & 0x3F);
        }
        return (long) cp << 8 | len;
    }
}
