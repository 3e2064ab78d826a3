package dev.quiver.kernels;

import org.apache.arrow.memory.ArrowBuf;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * A compiled SQL LIKE / ILIKE pattern: {@code %} matches any run of characters, {@code _}
 * exactly one character (code point), the escape character makes the next character literal.
 *
 * <p>Case-sensitive patterns of the shapes {@code lit}, {@code lit%}, {@code %lit} and
 * {@code %lit%} (no other wildcards) match on the UTF-8 bytes without decoding; every other
 * pattern runs the general matcher on code points.
 */
final class LikePattern {
    private static final int ANY_RUN = -1;
    private static final int ANY_ONE = -2;

    private enum Shape { GENERAL, EXACT, PREFIX, SUFFIX, INFIX, ANYTHING }

    /** Literal code points, or {@link #ANY_RUN} / {@link #ANY_ONE}; case-folded when case-insensitive. */
    private final int[] tokens;
    private final boolean caseInsensitive;
    private final Shape shape;
    /** The literal of a fast-path shape, UTF-8. */
    private final byte[] literal;

    private LikePattern(int[] tokens, boolean caseInsensitive) {
        this.tokens = tokens;
        this.caseInsensitive = caseInsensitive;
        Shape s = Shape.GENERAL;
        byte[] lit = null;
        if (!caseInsensitive) {
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
                literalOnly &= tokens[k] >= 0;
            }
            if (literalOnly) {
                lit = new String(tokens, first, last - first).getBytes(StandardCharsets.UTF_8);
                s = leading && trailing ? (lit.length == 0 ? Shape.ANYTHING : Shape.INFIX)
                        : leading ? (lit.length == 0 ? Shape.ANYTHING : Shape.SUFFIX)
                        : trailing ? Shape.PREFIX : Shape.EXACT;
            }
        }
        this.shape = s;
        this.literal = lit;
    }

    /**
     * Compiles {@code pattern}.
     *
     * @param escape the escape character, or null for none
     * @throws IllegalArgumentException when the pattern ends in a lone escape character
     */
    static LikePattern compile(String pattern, Character escape, boolean caseInsensitive) {
        Objects.requireNonNull(pattern, "pattern is null");
        int[] cps = pattern.codePoints().toArray();
        int[] tokens = new int[cps.length];
        int n = 0;
        for (int k = 0; k < cps.length; k++) {
            int c = cps[k];
            if (escape != null && c == escape) {
                if (k + 1 == cps.length) {
                    throw new IllegalArgumentException("LIKE pattern '" + pattern + "' ends with the escape character '" + escape + "'");
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
        return new LikePattern(Arrays.copyOf(tokens, n), caseInsensitive);
    }

    /** Unicode simple case folding, as lower(upper(c)) (folds 'ſ' to 's', 'K' (Kelvin) to 'k', 'ς' to 'σ'). */
    private static int fold(int c, boolean caseInsensitive) {
        return caseInsensitive ? Character.toLowerCase(Character.toUpperCase(c)) : c;
    }

    /** Whether the UTF-8 bytes {@code [start, end)} of {@code buf} match. */
    boolean matches(ArrowBuf buf, long start, long end) {
        long len = end - start;
        return switch (shape) {
            case ANYTHING -> true;
            case EXACT -> len == literal.length && equalsAt(buf, start);
            case PREFIX -> len >= literal.length && equalsAt(buf, start);
            case SUFFIX -> len >= literal.length && equalsAt(buf, end - literal.length);
            case INFIX -> contains(buf, start, end);
            case GENERAL -> {
                byte[] bytes = new byte[Math.toIntExact(len)];
                if (len > 0) {
                    buf.getBytes(start, bytes, 0, bytes.length);
                }
                yield matches(new String(bytes, StandardCharsets.UTF_8));
            }
        };
    }

    private boolean equalsAt(ArrowBuf buf, long at) {
        for (int k = 0; k < literal.length; k++) {
            if (buf.getByte(at + k) != literal[k]) {
                return false;
            }
        }
        return true;
    }

    private boolean contains(ArrowBuf buf, long start, long end) {
        // UTF-8 is self-synchronizing: a byte match of valid UTF-8 is a code point match.
        byte first = literal[0];
        for (long at = start; at + literal.length <= end; at++) {
            if (buf.getByte(at) == first && equalsAt(buf, at)) {
                return true;
            }
        }
        return false;
    }

    /** The general matcher: greedy, backtracking to the last {@code %} (linear for most patterns). */
    boolean matches(String value) {
        int[] s = value.codePoints().toArray();
        if (caseInsensitive) {
            for (int k = 0; k < s.length; k++) {
                s[k] = fold(s[k], true);
            }
        }
        int[] p = tokens;
        int pi = 0;
        int si = 0;
        int starP = -1;
        int starS = 0;
        while (si < s.length) {
            if (pi < p.length && (p[pi] == ANY_ONE || p[pi] == s[si])) {
                pi++;
                si++;
            } else if (pi < p.length && p[pi] == ANY_RUN) {
                starP = pi++;
                starS = si;
            } else if (starP >= 0) {
                pi = starP + 1;
                si = ++starS;
            } else {
                return false;
            }
        }
        while (pi < p.length && p[pi] == ANY_RUN) {
            pi++;
        }
        return pi == p.length;
    }
}
