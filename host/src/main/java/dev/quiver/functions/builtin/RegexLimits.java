package dev.quiver.functions.builtin;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The bounds a regular expression must keep before RE2/J compiles it, so that neither compiling
 * nor matching it can exhaust the heap, the stack or the patience of the caller (see
 * docs/strings.md, "Limits"):
 * <ul>
 * <li>groups nest at most {@value #MAX_DEPTH} deep (as Go's regexp, whose parser RE2/J
 *     ports; RE2/J itself overflows the stack at a few thousand);</li>
 * <li>nested counted repetitions multiply to at most {@value #MAX_REPEAT}, RE2's own rule
 *     (DuckDB says "invalid repetition size" for {@code (a{100}){100}}): RE2/J has no such
 *     check and spends half a minute and then the heap on {@code ((a{1000}){1000}){1000}};</li>
 * <li>the compiled program has at most {@value #MAX_PROGRAM} instructions: matching takes time
 *     proportional to the text times the program, and RE2/J's matcher recurses along chains of
 *     empty-width instructions. The pattern's size is estimated here from its text (up to
 *     {@value #ESTIMATE_SLACK} times the limit passes, since the estimate errs high), and the
 *     exact size is checked after compiling ({@link Regex#compile}).</li>
 * </ul>
 * The scan reads RE2's syntax only as far as counting needs (escapes, classes, {@code \Q...\E},
 * groups, flags, repetitions); a pattern it cannot follow is one RE2/J then rejects.
 */
final class RegexLimits {
    static final int MAX_DEPTH = 1000;
    static final int MAX_REPEAT = 1000;
    static final int MAX_PROGRAM = 10_000;
    static final int ESTIMATE_SLACK = 4;

    private RegexLimits() {}

    /** One open group while scanning: its finished alternatives, its current branch and the branch's last atom. */
    private static final class Group {
        final boolean capturing;
        long alternatives;
        int branches = 1;
        long branch;
        /** Size of the last atom of the branch (what a repetition repeats), or -1 when there is none. */
        long last = -1;
        /** The product of nested counted repetitions inside the last atom. */
        long lastProduct = 1;
        /** The largest such product over the group's finished atoms. */
        long product = 1;

        Group(boolean capturing) {
            this.capturing = capturing;
        }

        void atom(long size, long innerProduct) {
            product = Math.max(product, lastProduct);
            branch += size;
            last = size;
            lastProduct = innerProduct;
        }

        long size() {
            return alternatives + branch + (branches - 1) + (capturing ? 2 : 0);
        }

        long innerProduct() {
            return Math.max(product, lastProduct);
        }
    }

    /**
     * Checks {@code pattern} (in RE2 syntax) against the limits.
     *
     * @return null when it keeps them, otherwise what it exceeds, in words
     */
    static String check(String pattern) {
        return scan(pattern, true).beyond();
    }

    /** The estimated size of {@code pattern}'s program, in instructions (for tests: how close it is to RE2/J's). */
    static long estimate(String pattern) {
        return scan(pattern, false).estimate();
    }

    /** What a scan found: the first limit exceeded (null: none) and the estimated program size. */
    private record Scan(String beyond, long estimate) {}

    private static Scan scan(String pattern, boolean stopEarly) {
        Deque<Group> open = new ArrayDeque<>();
        Group g = new Group(false);
        int n = pattern.length();
        int i = 0;
        while (i < n) {
            char c = pattern.charAt(i);
            switch (c) {
                case '\\' -> {
                    if (i + 1 < n && pattern.charAt(i + 1) == 'Q') {
                        int end = pattern.indexOf("\\E", i + 2);
                        int stop = end < 0 ? n : end;
                        for (int k = i + 2; k < stop; k++) {
                            g.atom(1, 1);
                        }
                        i = end < 0 ? n : end + 2;
                    } else {
                        i = escapeEnd(pattern, i);
                        g.atom(1, 1);
                    }
                }
                case '[' -> {
                    i = classEnd(pattern, i);
                    g.atom(1, 1);
                }
                case '(' -> {
                    if (pattern.startsWith("(?", i)
                            && !pattern.startsWith("(?P<", i)
                            && !pattern.startsWith("(?<", i)) {
                        int k = i + 2;
                        while (k < n && (Character.isLetter(pattern.charAt(k)) || pattern.charAt(k) == '-')) {
                            k++;
                        }
                        if (k < n && pattern.charAt(k) == ')') {
                            i = k + 1; // (?i): flags for the rest of the group, not a group
                            continue;
                        }
                        open.push(g);
                        g = new Group(false);
                        i = k < n && pattern.charAt(k) == ':' ? k + 1 : i + 2;
                    } else {
                        open.push(g);
                        g = new Group(true);
                        i++;
                    }
                    if (open.size() > MAX_DEPTH && stopEarly) {
                        return new Scan("groups nest more than " + MAX_DEPTH + " deep", -1);
                    }
                }
                case ')' -> {
                    if (open.isEmpty()) {
                        return new Scan(null, -1); // unbalanced: RE2/J says so
                    }
                    Group inner = g;
                    g = open.pop();
                    g.atom(Math.max(1, inner.size()), inner.innerProduct());
                    i++;
                }
                case '|' -> {
                    g.product = Math.max(g.product, g.lastProduct);
                    g.lastProduct = 1;
                    g.alternatives += g.branch;
                    g.branches++;
                    g.branch = 0;
                    g.last = -1;
                    i++;
                }
                case '*', '+', '?' -> {
                    if (g.last >= 0) {
                        g.branch++;
                        g.last++;
                    }
                    i = lazyEnd(pattern, i + 1);
                }
                case '{' -> {
                    int[] counts = repeat(pattern, i);
                    if (counts == null) {
                        g.atom(1, 1); // not a repetition: a literal '{'
                        i++;
                        continue;
                    }
                    int min = counts[0];
                    int max = counts[1];
                    if (g.last >= 0 && min <= MAX_REPEAT && max <= MAX_REPEAT) {
                        long times = max < 0 ? min + 1L : Math.max(max, 1);
                        long grown = capped(g.last + 1, times);
                        g.branch += grown - g.last;
                        g.last = grown;
                        int count = max < 0 ? min : max;
                        if (count > 0) {
                            g.lastProduct = capped(g.lastProduct, count);
                            if (g.lastProduct > MAX_REPEAT && stopEarly) {
                                return new Scan(
                                        "invalid repetition size " + pattern.substring(i, counts[2])
                                                + ": nested repetition counts multiply to more than " + MAX_REPEAT,
                                        -1);
                            }
                        }
                    }
                    i = lazyEnd(pattern, counts[2]);
                }
                default -> {
                    g.atom(1, 1);
                    i += Character.charCount(pattern.codePointAt(i));
                }
            }
            if (g.branch + g.alternatives > (long) MAX_PROGRAM * ESTIMATE_SLACK && stopEarly) {
                return new Scan(tooLarge((long) MAX_PROGRAM * ESTIMATE_SLACK, true), -1);
            }
        }
        while (!open.isEmpty()) { // unclosed groups: RE2/J says so; count what was seen
            Group inner = g;
            g = open.pop();
            g.atom(inner.size(), inner.innerProduct());
        }
        long estimate = g.size();
        return new Scan(
                estimate > (long) MAX_PROGRAM * ESTIMATE_SLACK
                        ? tooLarge((long) MAX_PROGRAM * ESTIMATE_SLACK, true)
                        : null,
                estimate);
    }

    /** The message for a program of {@code size} instructions, over {@link #MAX_PROGRAM} ({@code estimated}: more than {@code size}). */
    static String tooLarge(long size, boolean estimated) {
        return "the pattern is too large: it " + (estimated ? "would compile to more than " : "compiles to ") + size
                + " instructions, the limit is " + MAX_PROGRAM;
    }

    /** {@code a * b}, held at 2^40 (an estimate far over every limit) so that it cannot overflow. */
    private static long capped(long a, long b) {
        long cap = 1L << 40;
        return a > cap / b ? cap : Math.min(cap, a * b);
    }

    private static int lazyEnd(String p, int i) {
        return i < p.length() && p.charAt(i) == '?' ? i + 1 : i;
    }

    /** Where the escape at {@code i} ends: {@code \p{Greek}}, {@code \x{263a}}, {@code \pL}, {@code \x41}, {@code \d}. */
    private static int escapeEnd(String p, int i) {
        int n = p.length();
        if (i + 1 >= n) {
            return n;
        }
        char e = p.charAt(i + 1);
        if ((e == 'p' || e == 'P' || e == 'x') && i + 2 < n && p.charAt(i + 2) == '{') {
            int close = p.indexOf('}', i + 3);
            return close < 0 ? n : close + 1;
        }
        if (e == 'p' || e == 'P') {
            return Math.min(n, i + 3);
        }
        if (e == 'x') {
            return Math.min(n, i + 4);
        }
        return i + 1 + Character.charCount(p.codePointAt(i + 1));
    }

    /** Where the class starting at {@code i} ends: after its ']' (a ']' first is a member), skipping escapes and [:name:]. */
    private static int classEnd(String p, int i) {
        int n = p.length();
        int k = i + 1;
        if (k < n && p.charAt(k) == '^') {
            k++;
        }
        if (k < n && p.charAt(k) == ']') {
            k++;
        }
        while (k < n) {
            char c = p.charAt(k);
            if (c == ']') {
                return k + 1;
            }
            if (c == '\\') {
                k = escapeEnd(p, k);
            } else if (c == '[' && p.startsWith("[:", k) && p.indexOf(":]", k + 2) > 0) {
                k = p.indexOf(":]", k + 2) + 2;
            } else {
                k++;
            }
        }
        return n;
    }

    /** A counted repetition at {@code i}: {min, max (-1: none), end}; null when the '{' is literal, as RE2 reads it. */
    private static int[] repeat(String p, int i) {
        int n = p.length();
        int k = i + 1;
        int start = k;
        while (k < n && p.charAt(k) >= '0' && p.charAt(k) <= '9') {
            k++;
        }
        if (k == start || k - start > 8) {
            return null;
        }
        int min = Integer.parseInt(p, start, k, 10);
        int max = min;
        if (k < n && p.charAt(k) == ',') {
            k++;
            int s = k;
            while (k < n && p.charAt(k) >= '0' && p.charAt(k) <= '9') {
                k++;
            }
            if (k - s > 8) {
                return null;
            }
            max = k == s ? -1 : Integer.parseInt(p, s, k, 10);
        }
        if (k >= n || p.charAt(k) != '}') {
            return null;
        }
        return new int[] {min, max, k + 1};
    }
}
