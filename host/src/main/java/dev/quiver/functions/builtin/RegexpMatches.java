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
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;

/**
 * {@code regexp_matches(s, pattern[, options])} (alias {@code regexp_like}): whether the
 * regular expression matches <em>somewhere</em> in {@code s} (a search, as DuckDB's
 * regexp_matches; anchor it with {@code ^...$} for a whole match). NULL when {@code s} or the
 * pattern is NULL. Options as DuckDB ({@link Regex#options}), a literal. The pattern is in
 * RE2's syntax, matched by RE2/J in time linear in the row (no backreferences or lookaround;
 * {@link Regex#compile}). A literal pattern is compiled once per query ({@link #bind}); a bad
 * one fails the compile. A pattern column is compiled once per distinct value per batch; a bad
 * value there is an {@code EvaluationException} naming its row. On an all-ASCII batch rows are
 * matched in place; otherwise each row is decoded first (the slow path).
 */
final class RegexpMatches implements ScalarFunction {
    private static final Signature SIGNATURE = Signature.oneOf(
                    List.of(new TypeSignature.StringArgs(2), new TypeSignature.StringArgs(3)), Volatility.IMMUTABLE)
            .withParameterNames("s", "pattern", "options");

    /** The pattern compiled at planning, or null when it is a column. */
    private final Pattern pattern;
    /** The literal pattern was NULL: every row is NULL. */
    private final boolean nullPattern;

    private final Regex.Options options;

    RegexpMatches() {
        this(null, false, Regex.Options.DEFAULT);
    }

    private RegexpMatches(Pattern pattern, boolean nullPattern, Regex.Options options) {
        this.pattern = pattern;
        this.nullPattern = nullPattern;
        this.options = options;
    }

    @Override
    public String name() {
        return "regexp_matches";
    }

    @Override
    public List<String> aliases() {
        return List.of("regexp_like");
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    public boolean requiresLiteral(int index) {
        return index == 2;
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return DataType.BOOLEAN;
    }

    @Override
    public ScalarFunction bind(List<DataType> argTypes, List<Optional<ScalarValue>> literals) {
        Regex.Options o = literals.size() > 2 ? Regex.options(name(), literals.get(2), false) : Regex.Options.DEFAULT;
        Optional<ScalarValue> p = literals.get(1);
        if (p.isEmpty()) {
            return new RegexpMatches(null, false, o);
        }
        if (p.get().value() == null) {
            return new RegexpMatches(null, true, o);
        }
        return new RegexpMatches(Regex.compileLiteral(name(), p.get().value().toString(), o), false, o);
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        return ArrayFunctions.invoke(
                call,
                (a, c) -> matches(a.get(0), a.get(1), c),
                ArrayFunctions.Hint.PAD,
                ArrayFunctions.Hint.ACCEPTS_SINGULAR,
                ArrayFunctions.Hint.ACCEPTS_SINGULAR);
    }

    private FieldVector matches(FieldVector sv, FieldVector pv, ScalarFunctionArgs call) {
        int rows = sv.getValueCount();
        BitVector out = (BitVector)
                Values.allocate(DataType.BOOLEAN, "result", rows, call.config().allocator());
        boolean constantPattern = pv.getValueCount() == 1 && rows != 1;
        try (Utf8Input in = Utf8Input.of(sv);
                Utf8Input pat = constantPattern ? Utf8Input.constant(pv) : Utf8Input.of(pv)) {
            out.setValueCount(rows);
            if (nullPattern) {
                return out;
            }
            AsciiCharSequence view = in.isAllAscii() ? new AsciiCharSequence(in.data()) : null;
            Regex.PatternCache cache = new Regex.PatternCache(name(), options);
            Pattern fixed = pattern != null ? pattern : constantPattern && pat.isValid(0) ? cache.get(pat, 0) : null;
            Matcher m = fixed == null ? null : fixed.matcher("");
            for (int r = 0; r < rows; r++) {
                Cancellation.check(); // a match may take long on a long string: a boundary every row
                if (!in.isValid(r) || !pat.isValid(r)) {
                    continue;
                }
                Matcher rm = fixed != null ? m : cache.get(pat, r).matcher("");
                try {
                    out.set(r, rm.reset(Regex.text(in, view, r)).find() ? 1 : 0);
                } catch (StackOverflowError e) {
                    throw Regex.tooComplex(name(), rm.pattern(), r, e);
                }
            }
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }

    @Override
    public String description() {
        return "Whether the regular expression matches somewhere in the string (options as DuckDB; alias regexp_like).";
    }
}
