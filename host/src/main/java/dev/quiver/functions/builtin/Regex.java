package dev.quiver.functions.builtin;

import dev.quiver.functions.PlanningException;
import dev.quiver.strings.AsciiCharSequence;
import dev.quiver.strings.Utf8Input;
import dev.quiver.strings.Utf8Output;
import dev.quiver.value.ScalarValue;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * What {@link RegexpMatches} and {@link RegexpReplace} share: DuckDB's option letters, the
 * translation of the RE2 syntax Java spells differently, DuckDB's replacement syntax, and the
 * per-batch cache of patterns that come from a column. See docs/strings.md.
 */
final class Regex {
    /** Distinct patterns of one batch compiled at most; then the cache starts over. */
    private static final int CACHE = 256;

    private Regex() {
    }

    /** Parsed options: Java flags, and whether 'g' (replace every match) was given. */
    record Options(int flags, boolean global) {
    }

    /**
     * DuckDB's options: {@code c} case-sensitive (default), {@code i} case-insensitive (Unicode),
     * the later of the two wins; {@code l} the pattern is a literal string; {@code s} '.' also
     * matches a newline; {@code m}, {@code n}, {@code p} newline-sensitive (the default here);
     * {@code g} every match (regexp_replace only). Anything else is an error.
     */
    static Options options(String function, Optional<ScalarValue> literal, boolean replace) {
        if (literal.isEmpty()) {
            throw new PlanningException("the options of " + function + " must be a literal");
        }
        Object v = literal.get().value();
        if (v == null) {
            throw new PlanningException("the options of " + function + " must not be NULL");
        }
        int flags = 0;
        boolean global = false;
        for (char c : v.toString().toCharArray()) {
            switch (c) {
                case 'c' -> flags &= ~(Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
                case 'i' -> flags |= Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE;
                case 'l' -> flags |= Pattern.LITERAL;
                case 's' -> flags |= Pattern.DOTALL;
                case 'm', 'n', 'p' -> flags &= ~Pattern.DOTALL;
                case ' ', '\t', '\n' -> {
                    // skipped, as DuckDB does
                }
                case 'g' -> {
                    if (!replace) {
                        throw new PlanningException("option 'g' (replace every match) is only valid for regexp_replace, not " + function);
                    }
                    global = true;
                }
                default -> throw new PlanningException("unrecognized regular expression option '" + c + "' of " + function
                        + " (options: c, i, l, s, m, n, p" + (replace ? ", g" : "") + ")");
            }
        }
        return new Options(flags, global);
    }

    /**
     * The pattern in Java's syntax, scanned once so escapes and character classes are respected:
     * RE2's {@code (?P<name>} at a group start is Java's {@code (?<name>}; inside a class,
     * {@code [:name:]} and {@code [:^name:]} become {@code \p{Name}} and {@code \P{Name}} and a
     * {@code [} is literal (Java would read a nested class); {@code \s} and {@code \S} are RE2's
     * {@code [\t\n\f\r ]} (Java's also has the vertical tab).
     */
    static String translate(String pattern) {
        StringBuilder out = new StringBuilder(pattern.length() + 8);
        boolean inClass = false;
        int classStart = -1;
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '\\' && i + 1 < pattern.length()) {
                char e = pattern.charAt(++i);
                if (e == 's') {
                    out.append(inClass ? "\\t\\n\\f\\r " : "[\\t\\n\\f\\r ]");
                } else if (e == 'S' && !inClass) {
                    out.append("[^\\t\\n\\f\\r ]");
                } else {
                    out.append('\\').append(e);
                }
                continue;
            }
            if (!inClass) {
                if (c == '[') {
                    inClass = true;
                    out.append(c);
                    // A ']' right after '[' or '[^' is a literal member.
                    classStart = i + 1 < pattern.length() && pattern.charAt(i + 1) == '^' ? i + 2 : i + 1;
                    if (classStart == i + 2) {
                        out.append('^');
                        i++;
                    }
                    continue;
                }
                if (c == '(' && pattern.startsWith("(?P<", i)) {
                    out.append("(?<");
                    i += 3;
                    continue;
                }
                out.append(c);
                continue;
            }
            if (c == ']' && i != classStart) {
                inClass = false;
                out.append(c);
                continue;
            }
            if (c == '[' && pattern.startsWith("[:", i)) {
                int end = pattern.indexOf(":]", i + 2);
                if (end > 0) {
                    String name = pattern.substring(i + 2, end);
                    boolean negated = name.startsWith("^");
                    String java = posix(negated ? name.substring(1) : name);
                    if (java != null) {
                        out.append(negated ? "\\P{" : "\\p{").append(java).append('}');
                        i = end + 1;
                        continue;
                    }
                }
            }
            if (c == '[' || (c == '&' && i + 1 < pattern.length() && pattern.charAt(i + 1) == '&')) {
                // Literal in RE2's classes; Java would start a nested class or an intersection.
                out.append('\\');
            }
            out.append(c);
        }
        return out.toString();
    }

    private static String posix(String name) {
        for (String[] c : POSIX) {
            if (c[0].equals(name)) {
                return c[1];
            }
        }
        return null;
    }

    private static final String[][] POSIX = {{"alnum", "Alnum"}, {"alpha", "Alpha"}, {"ascii", "ASCII"}, {"blank", "Blank"},
            {"cntrl", "Cntrl"}, {"digit", "Digit"}, {"graph", "Graph"}, {"lower", "Lower"}, {"print", "Print"},
            {"punct", "Punct"}, {"space", "Space"}, {"upper", "Upper"}, {"xdigit", "XDigit"}};

    /** Compiles a pattern; a bad one is an {@link IllegalArgumentException} naming it. */
    static Pattern compile(String pattern, int flags) {
        try {
            // RE2 (DuckDB) ends lines at '\n' only: Java's default also counts \r, \u0085, \u2028 and \u2029.
            return Pattern.compile((flags & Pattern.LITERAL) != 0 ? pattern : translate(pattern), flags | Pattern.UNIX_LINES);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("invalid regular expression '" + pattern + "': " + e.getDescription(), e);
        }
    }

    /** Compiles a literal pattern at planning: a bad one is a {@link PlanningException}. */
    static Pattern compileLiteral(String function, String pattern, int flags) {
        try {
            return compile(pattern, flags);
        } catch (IllegalArgumentException e) {
            throw new PlanningException(function + ": " + e.getMessage(), e);
        }
    }

    /**
     * Whether the current match of {@code m} is an empty one between the two halves of a
     * surrogate pair: Java's matcher steps one UTF-16 unit after an empty match, RE2 one code
     * point, so such a match does not exist for DuckDB and is skipped.
     */
    static boolean splitsSurrogates(CharSequence text, Matcher m) {
        int at = m.start();
        return at == m.end() && at > 0 && at < text.length() && Character.isLowSurrogate(text.charAt(at))
                && Character.isHighSurrogate(text.charAt(at - 1));
    }

    /** The patterns of a pattern column, compiled once per distinct value in a batch. */
    static final class PatternCache {
        private final int flags;
        private final Map<String, Pattern> compiled = new HashMap<>();

        PatternCache(int flags) {
            this.flags = flags;
        }

        Pattern get(Utf8Input patterns, int row) {
            String text = patterns.string(row);
            Pattern p = compiled.get(text);
            if (p == null) {
                if (compiled.size() >= CACHE) {
                    compiled.clear();
                }
                p = compile(text, flags);
                compiled.put(text, p);
            }
            return p;
        }
    }

    /**
     * A row as a CharSequence for a matcher: on an all-ASCII batch a view of its bytes (no copy;
     * character indices are byte offsets), otherwise the row decoded (the slow path).
     */
    static CharSequence text(Utf8Input in, AsciiCharSequence view, int row) {
        return view != null ? view.reset(in.start(row), in.end(row)) : in.string(row);
    }

    /**
     * A replacement in DuckDB's (RE2's) syntax: {@code \0} to {@code \9} insert a group (0 is the
     * whole match), {@code \\} a backslash; every other character, {@code $} included, stands for
     * itself. A backslash before anything else, or a group the pattern does not have, makes the
     * replacement invalid: the string is then returned unchanged, as DuckDB does.
     */
    record Rewrite(List<String> literals, List<byte[]> literalBytes, int[] groups, int maxGroup, boolean valid) {
        static Rewrite parse(String s) {
            List<String> literals = new ArrayList<>();
            List<Integer> groups = new ArrayList<>();
            StringBuilder lit = new StringBuilder();
            boolean valid = true;
            int max = -1;
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c != '\\') {
                    lit.append(c);
                    continue;
                }
                if (i + 1 == s.length()) {
                    valid = false;
                    break;
                }
                char n = s.charAt(++i);
                if (n == '\\') {
                    lit.append('\\');
                } else if (n >= '0' && n <= '9') {
                    literals.add(lit.toString());
                    lit.setLength(0);
                    groups.add(n - '0');
                    max = Math.max(max, n - '0');
                } else {
                    valid = false;
                    break;
                }
            }
            literals.add(lit.toString());
            groups.add(-1);
            return new Rewrite(literals, literals.stream().map(l -> l.getBytes(StandardCharsets.UTF_8)).toList(),
                    groups.stream().mapToInt(Integer::intValue).toArray(), max, valid);
        }

        /** Whether the replacement is valid for the pattern of {@code m} (every group it names exists). */
        boolean validFor(Matcher m) {
            return valid && maxGroup <= m.groupCount();
        }

        /** Appends the replacement of the current match of {@code m} over the ASCII bytes of {@code d} from {@code base}. */
        void appendBytes(Matcher m, MemorySegment d, long base, Utf8Output out) {
            for (int k = 0; k < groups.length; k++) {
                out.append(literalBytes.get(k));
                int g = groups[k];
                if (g >= 0 && m.start(g) >= 0) {
                    out.append(d, base + m.start(g), m.end(g) - m.start(g));
                }
            }
        }

        /** Appends the replacement of the current match of {@code m} over {@code text}. */
        void appendChars(Matcher m, CharSequence text, StringBuilder out) {
            for (int k = 0; k < groups.length; k++) {
                out.append(literals.get(k));
                int g = groups[k];
                if (g >= 0 && m.start(g) >= 0) {
                    out.append(text, m.start(g), m.end(g));
                }
            }
        }
    }
}
