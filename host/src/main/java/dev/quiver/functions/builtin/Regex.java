package dev.quiver.functions.builtin;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import dev.quiver.errors.EvaluationException;
import dev.quiver.errors.ResourceException;
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

/**
 * What {@link RegexpMatches} and {@link RegexpReplace} share: DuckDB's option letters, compiling
 * a pattern with RE2/J (RE2's syntax, as DuckDB's; matching in time linear in the text) within
 * {@link RegexLimits}, errors that name what RE2's syntax lacks, DuckDB's replacement syntax,
 * and the per-batch cache of patterns that come from a column. See docs/strings.md.
 */
final class Regex {
    /** Distinct patterns of one batch compiled at most; then the cache starts over. */
    private static final int CACHE = 256;
    /** A pattern longer than this is quoted in messages by its start and its length. */
    private static final int SHOWN = 60;

    private Regex() {}

    /** Parsed options: RE2/J flags, whether the pattern is a literal string ('l'), whether 'g' (replace every match) was given. */
    record Options(int flags, boolean literal, boolean global) {
        static final Options DEFAULT = new Options(0, false, false);
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
        boolean isLiteral = false;
        boolean global = false;
        for (char c : v.toString().toCharArray()) {
            switch (c) {
                case 'c' -> flags &= ~Pattern.CASE_INSENSITIVE;
                case 'i' -> flags |= Pattern.CASE_INSENSITIVE;
                case 'l' -> isLiteral = true;
                case 's' -> flags |= Pattern.DOTALL;
                case 'm', 'n', 'p' -> flags &= ~Pattern.DOTALL;
                case ' ', '\t', '\n' -> {
                    // skipped, as DuckDB does
                }
                case 'g' -> {
                    if (!replace) {
                        throw new PlanningException(
                                "option 'g' (replace every match) is only valid for regexp_replace, not " + function);
                    }
                    global = true;
                }
                default ->
                    throw new PlanningException("unrecognized regular expression option '" + c + "' of " + function
                            + " (options: c, i, l, s, m, n, p" + (replace ? ", g" : "") + ")");
            }
        }
        return new Options(flags, isLiteral, global);
    }

    /**
     * Compiles a pattern in RE2's syntax with RE2/J. A pattern RE2/J rejects, or one beyond
     * {@link RegexLimits}, is an {@link IllegalArgumentException} that quotes it and says why,
     * naming the construct when it is one RE2 leaves out on purpose (backreferences, lookaround,
     * possessive quantifiers, atomic groups: what cannot be matched in linear time). The callers
     * turn it into a {@link PlanningException} ({@link #compileLiteral}) or an
     * {@link EvaluationException} ({@link PatternCache#get}).
     */
    static Pattern compile(String pattern, Options options) {
        String re2 = options.literal() ? Pattern.quote(pattern) : pattern;
        String beyond = RegexLimits.check(re2);
        if (beyond != null) {
            throw invalid(pattern, beyond, null);
        }
        Pattern p;
        try {
            p = Pattern.compile(re2, options.flags());
        } catch (PatternSyntaxException e) {
            throw invalid(pattern, explain(e, pattern), e);
        } catch (StackOverflowError e) {
            throw invalid(pattern, "it nests too deeply to compile on this thread's stack", e);
        }
        if (p.programSize() > RegexLimits.MAX_PROGRAM) {
            throw invalid(pattern, RegexLimits.tooLarge(p.programSize(), false), null);
        }
        return p;
    }

    /** Compiles a literal pattern at planning: a bad one is a {@link PlanningException}. */
    static Pattern compileLiteral(String function, String pattern, Options options) {
        try {
            return compile(pattern, options);
        } catch (IllegalArgumentException e) {
            throw new PlanningException(function + ": " + e.getMessage(), e);
        }
    }

    private static IllegalArgumentException invalid(String pattern, String why, Throwable cause) {
        return new IllegalArgumentException("invalid regular expression " + quoted(pattern) + ": " + why, cause);
    }

    /** The pattern in quotes ('' for a quote, as SQL writes it), a long one cut to its start and its length. */
    static String quoted(String pattern) {
        String shown = pattern.length() > SHOWN + 20 ? pattern.substring(0, SHOWN) + "..." : pattern;
        String q = "'" + shown.replace("'", "''") + "'";
        return shown.length() == pattern.length() ? q : q + " (" + pattern.length() + " characters)";
    }

    /**
     * Why RE2/J rejected {@code pattern}: the construct, in words, when it is one RE2's syntax
     * leaves out (or spells otherwise) on purpose; otherwise RE2/J's description and the part
     * of the pattern it names.
     */
    static String explain(PatternSyntaxException e, String pattern) {
        String part = e.getPattern() == null ? "" : e.getPattern();
        String description = e.getDescription();
        String unsupported = null;
        if (part.length() == 2 && part.charAt(0) == '\\' && part.charAt(1) >= '1' && part.charAt(1) <= '9') {
            unsupported = "a backreference (" + part + ")";
        } else if (part.equals("\\k")) {
            unsupported = "a backreference (\\k<name>)";
        } else if (part.equals("(?P") && pattern.contains("(?P=")) {
            unsupported = "a backreference ((?P=name))";
        } else if (part.startsWith("(?=")) {
            unsupported = "a lookahead ((?=...))";
        } else if (part.startsWith("(?!")) {
            unsupported = "a negative lookahead ((?!...))";
        } else if (part.startsWith("(?<=")) {
            unsupported = "a lookbehind ((?<=...))";
        } else if (part.startsWith("(?<!")) {
            unsupported = "a negative lookbehind ((?<!...))";
        } else if (part.startsWith("(?>")) {
            unsupported = "an atomic group ((?>...))";
        } else if (description.contains("nested repetition")
                && part.length() >= 2
                && part.endsWith("+")
                && "*+?}".indexOf(part.charAt(part.length() - 2)) >= 0) {
            unsupported = "a possessive quantifier (" + part + ")";
        } else if (part.equals("\\Z")) {
            return "\\Z is not supported in RE2 syntax: write \\z or $ (without the m flag, $ matches only at the very end)";
        } else if (description.contains("character class") && (part.startsWith("\\p{") || part.startsWith("\\P{"))) {
            return "the class " + part
                    + " is not in RE2 syntax: it names Unicode categories and scripts (\\p{L}, \\p{Greek});"
                    + " POSIX classes are written [[:alpha:]]";
        }
        if (unsupported != null) {
            return unsupported + " is not supported: patterns are RE2 syntax, matched in linear time (docs/strings.md)";
        }
        return description + (part.isEmpty() ? "" : ": `" + part + "`");
    }

    /**
     * The error for a match of row {@code row} that overflowed the stack: RE2/J's matcher
     * recurses along chains of instructions that consume nothing, and a pattern with thousands
     * of them can outgrow a thread's stack. A {@link ResourceException}: the same evaluation on
     * a thread with a larger stack can succeed.
     */
    static ResourceException tooComplex(String function, Pattern p, int row, StackOverflowError e) {
        return (ResourceException) new ResourceException(
                        function + ": the regular expression " + quoted(p.pattern()) + " ("
                                + p.programSize()
                                + " instructions) is too complex to match on this thread's stack (row " + row
                                + "); simplify it or give the thread a larger stack",
                        e)
                .fillRow(row);
    }

    /**
     * Whether the current match of {@code m} is an empty one between the two halves of a
     * surrogate pair: RE2/J's matcher over a {@code CharSequence} steps one UTF-16 unit after an
     * empty match, RE2 over UTF-8 one code point, so such a match does not exist for DuckDB and
     * is skipped.
     */
    static boolean splitsSurrogates(CharSequence text, Matcher m) {
        int at = m.start();
        return at == m.end()
                && at > 0
                && at < text.length()
                && Character.isLowSurrogate(text.charAt(at))
                && Character.isHighSurrogate(text.charAt(at - 1));
    }

    /** The patterns of a pattern column, compiled once per distinct value in a batch. */
    static final class PatternCache {
        private final String function;
        private final Options options;
        private final Map<String, Pattern> compiled = new HashMap<>();

        PatternCache(String function, Options options) {
            this.function = function;
            this.options = options;
        }

        /** Row {@code row}'s pattern; a bad one is an {@link EvaluationException} naming the function, the pattern and the row. */
        Pattern get(Utf8Input patterns, int row) {
            String text = patterns.string(row);
            Pattern p = compiled.get(text);
            if (p == null) {
                if (compiled.size() >= CACHE) {
                    compiled.clear();
                }
                try {
                    p = compile(text, options);
                } catch (IllegalArgumentException e) {
                    throw (EvaluationException) new EvaluationException(
                                    function + " (pattern of row " + row + "): " + e.getMessage(), e.getCause())
                            .fillRow(row);
                }
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
            return new Rewrite(
                    literals,
                    literals.stream()
                            .map(l -> l.getBytes(StandardCharsets.UTF_8))
                            .toList(),
                    groups.stream().mapToInt(Integer::intValue).toArray(),
                    max,
                    valid);
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
