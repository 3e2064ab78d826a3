package dev.quiver.functions.builtin;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import dev.quiver.cancel.Cancellation;
import dev.quiver.functions.ArrayFunctions;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.TypeSignature;
import dev.quiver.functions.Volatility;
import dev.quiver.strings.AsciiCharSequence;
import dev.quiver.strings.Utf8Input;
import dev.quiver.strings.Utf8Output;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.FieldVector;

/**
 * {@code regexp_replace(s, pattern, replacement[, options])}: the first match of the pattern in
 * {@code s} replaced, or every match with option {@code 'g'} (as RE2, an empty match right where
 * the previous match ended is not replaced: {@code regexp_replace('abxc', 'x*', '-', 'g')} is
 * {@code '-a-b-c-'}, where Java's replaceAll gives {@code '-a-b--c-'}); other options as
 * {@link RegexpMatches}, and so is the pattern's syntax (RE2's). The replacement is in DuckDB's syntax ({@code \1} inserts group 1,
 * {@code \0} the match, {@code \\} a backslash, {@code $} is literal; see {@link Regex.Rewrite}).
 * NULL when any argument is NULL. A literal pattern is compiled once per query, a pattern
 * column once per distinct value per batch. On an all-ASCII batch matches are found in place
 * and the result is copied from the input's bytes; otherwise each row is decoded (slow path).
 */
final class RegexpReplace implements ScalarFunction {
    private static final Signature SIGNATURE = Signature.oneOf(
                    List.of(new TypeSignature.StringArgs(3), new TypeSignature.StringArgs(4)), Volatility.IMMUTABLE)
            .withParameterNames("s", "pattern", "replacement", "options");

    private final Pattern pattern;
    private final boolean nullPattern;
    private final Regex.Options options;

    RegexpReplace() {
        this(null, false, Regex.Options.DEFAULT);
    }

    private RegexpReplace(Pattern pattern, boolean nullPattern, Regex.Options options) {
        this.pattern = pattern;
        this.nullPattern = nullPattern;
        this.options = options;
    }

    @Override
    public String name() {
        return "regexp_replace";
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    public boolean requiresLiteral(int index) {
        return index == 3;
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return argTypes.getFirst();
    }

    @Override
    public ScalarFunction bind(List<DataType> argTypes, List<Optional<ScalarValue>> literals) {
        Regex.Options o = literals.size() > 3 ? Regex.options(name(), literals.get(3), true) : Regex.Options.DEFAULT;
        Optional<ScalarValue> p = literals.get(1);
        if (p.isEmpty()) {
            return new RegexpReplace(null, false, o);
        }
        if (p.get().value() == null) {
            return new RegexpReplace(null, true, o);
        }
        return new RegexpReplace(Regex.compileLiteral(name(), p.get().value().toString(), o), false, o);
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        boolean large = StringTypes.isLarge(DataType.fromField(call.returnField()));
        return ArrayFunctions.invoke(
                call,
                (a, c) -> replace(a.get(0), a.get(1), a.get(2), large, c),
                ArrayFunctions.Hint.PAD,
                ArrayFunctions.Hint.ACCEPTS_SINGULAR,
                ArrayFunctions.Hint.ACCEPTS_SINGULAR,
                ArrayFunctions.Hint.ACCEPTS_SINGULAR);
    }

    private static Utf8Input view(FieldVector v, int rows) {
        return v.getValueCount() == 1 && rows != 1 ? Utf8Input.constant(v) : Utf8Input.of(v);
    }

    private FieldVector replace(
            FieldVector sv, FieldVector pv, FieldVector rv, boolean large, ScalarFunctionArgs call) {
        int rows = sv.getValueCount();
        try (Utf8Input in = Utf8Input.of(sv);
                Utf8Input pat = view(pv, rows);
                Utf8Input rep = view(rv, rows);
                Utf8Output out = Utf8Output.allocate(
                        large,
                        "result",
                        rows,
                        rows == 0 ? 0 : in.end(rows - 1) - in.start(0),
                        call.config().allocator())) {
            MemorySegment d = in.data();
            AsciiCharSequence view = in.isAllAscii() ? new AsciiCharSequence(d) : null;
            Regex.PatternCache cache = new Regex.PatternCache(name(), options);
            Pattern fixed = pattern != null ? pattern : pat.constant() && pat.isValid(0) ? cache.get(pat, 0) : null;
            Matcher fixedMatcher = fixed == null ? null : fixed.matcher("");
            Regex.Rewrite rewrite = rep.constant() && rep.isValid(0) ? Regex.Rewrite.parse(rep.string(0)) : null;
            StringBuilder chars = new StringBuilder();
            for (int r = 0; r < rows; r++) {
                Cancellation.check(); // a match may take long on a long string: a boundary every row
                if (nullPattern || !in.isValid(r) || !pat.isValid(r) || !rep.isValid(r)) {
                    out.nullRow();
                    continue;
                }
                long st = in.start(r);
                long e = in.end(r);
                Pattern p = fixed != null ? fixed : cache.get(pat, r);
                Matcher m = fixed != null ? fixedMatcher : p.matcher("");
                Regex.Rewrite rw = rewrite != null ? rewrite : Regex.Rewrite.parse(rep.string(r));
                if (!rw.validFor(m)) {
                    out.append(d, st, e - st); // DuckDB returns the string unchanged for an invalid replacement
                    out.endRow();
                    continue;
                }
                CharSequence text = Regex.text(in, view, r);
                try {
                    if (view != null) {
                        replaceInPlace(m.reset(text), rw, d, st, text.length(), out);
                    } else {
                        replaceDecoded(m.reset(text), rw, text, d, st, e, chars, out);
                    }
                } catch (StackOverflowError overflow) {
                    throw Regex.tooComplex(name(), p, r, overflow);
                }
                out.endRow();
            }
            return out.finish();
        }
    }

    /** One ASCII row of {@code length} bytes at {@code st} of {@code d}: the unmatched bytes and the groups copied in place. */
    private void replaceInPlace(Matcher m, Regex.Rewrite rw, MemorySegment d, long st, int length, Utf8Output out) {
        int last = 0;
        boolean matched = false;
        while (m.find()) {
            if (matched && m.start() == last && m.end() == last) {
                continue; // RE2: no empty match right where the previous one ended
            }
            matched = true;
            out.append(d, st + last, m.start() - last);
            rw.appendBytes(m, d, st, out);
            last = m.end();
            if (!options.global()) {
                break;
            }
        }
        out.append(d, st + last, length - last);
    }

    /** One decoded row ({@code text}, the bytes {@code [st, e)} of {@code d}): built in {@code chars}, then encoded. */
    private void replaceDecoded(
            Matcher m,
            Regex.Rewrite rw,
            CharSequence text,
            MemorySegment d,
            long st,
            long e,
            StringBuilder chars,
            Utf8Output out) {
        chars.setLength(0);
        int last = 0;
        boolean matched = false;
        while (m.find()) {
            if (matched && m.start() == last && m.end() == last || Regex.splitsSurrogates(text, m)) {
                continue;
            }
            matched = true;
            chars.append(text, last, m.start());
            rw.appendChars(m, text, chars);
            last = m.end();
            if (!options.global()) {
                break;
            }
        }
        if (!matched) {
            out.append(d, st, e - st); // no match: the row's bytes as they are
        } else {
            chars.append(text, last, text.length());
            out.append(chars);
        }
    }

    @Override
    public String description() {
        return "The first match (every match with option 'g') of the regular expression replaced; \\1 inserts group 1.";
    }
}
