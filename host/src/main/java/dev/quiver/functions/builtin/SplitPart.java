package dev.quiver.functions.builtin;

import dev.quiver.functions.ArrayFunctions;
import dev.quiver.functions.PlanningException;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.kernels.Needle;
import dev.quiver.strings.Utf8;
import dev.quiver.strings.Utf8Input;
import dev.quiver.strings.Utf8Output;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;

/**
 * {@code split_part(s, delimiter, n)}: part {@code n} of {@code s} split at every occurrence of
 * the delimiter (left to right, not overlapping), as DuckDB:
 * <ul>
 * <li>{@code n} counts from 1; a negative {@code n} counts from the end ({@code -1} is the last
 * part); {@code n = 0} and an {@code n} beyond the parts give {@code ''};</li>
 * <li>an empty delimiter splits {@code s} into its characters (code points):
 * {@code split_part('日本語', '', 2)} is {@code '本'};</li>
 * <li>{@code s} without the delimiter is one part; {@code ''} is one empty part;</li>
 * <li>NULL when any argument is NULL.</li>
 * </ul>
 * The result is a slice of {@code s}'s bytes, copied straight into the result.
 */
final class SplitPart implements ScalarFunction {
    private static final Signature SIGNATURE =
            Signature.userDefined(Volatility.IMMUTABLE).withParameterNames("s", "delimiter", "n");

    @Override
    public String name() {
        return "split_part";
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    public List<DataType> coerceTypes(List<DataType> argTypes) {
        if (argTypes.size() != 3) {
            throw new PlanningException("split_part takes 3 arguments (s, delimiter, n), got " + argTypes.size());
        }
        DataType t = StringTypes.common(argTypes.subList(0, 2));
        for (int i = 0; i < 2; i++) {
            DataType a = argTypes.get(i).valueType();
            if (!(a instanceof DataType.Utf8) && !(a instanceof DataType.Null)) {
                throw new PlanningException("argument " + (i + 1) + " of split_part must be a string, got " + a);
            }
        }
        DataType n = argTypes.get(2).valueType();
        if (!(n instanceof DataType.Int) && !(n instanceof DataType.Null)) {
            throw new PlanningException("argument 3 (n) of split_part must be an integer, got " + n);
        }
        return List.of(
                argTypes.get(0).valueType().equals(t) ? argTypes.get(0) : t,
                argTypes.get(1).valueType().equals(t) ? argTypes.get(1) : t,
                DataType.INT64);
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return StringTypes.common(argTypes.subList(0, 2));
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        boolean large = StringTypes.isLarge(DataType.fromField(call.returnField()));
        return ArrayFunctions.invoke(
                call,
                (a, c) -> splitPart(a.get(0), a.get(1), (BigIntVector) a.get(2), large, c),
                ArrayFunctions.Hint.PAD,
                ArrayFunctions.Hint.ACCEPTS_SINGULAR,
                ArrayFunctions.Hint.ACCEPTS_SINGULAR);
    }

    private static FieldVector splitPart(
            FieldVector sv, FieldVector dv, BigIntVector nv, boolean large, ScalarFunctionArgs call) {
        int rows = sv.getValueCount();
        boolean nConstant = nv.getValueCount() == 1 && rows != 1;
        try (Utf8Input s = Utf8Input.of(sv);
                Utf8Input delim = dv.getValueCount() == 1 && rows != 1 ? Utf8Input.constant(dv) : Utf8Input.of(dv);
                Utf8Output out = Utf8Output.allocate(
                        large,
                        "result",
                        rows,
                        rows == 0 ? 0 : s.end(rows - 1) - s.start(0),
                        call.config().allocator())) {
            MemorySegment d = s.data();
            MemorySegment dd = delim.data();
            Needle constant = delim.constant() && delim.isValid(0) ? Needle.of(dd, delim.start(0), delim.end(0)) : null;
            for (int r = 0; r < rows; r++) {
                int nr = nConstant ? 0 : r;
                if (!s.isValid(r) || !delim.isValid(r) || nv.isNull(nr)) {
                    out.nullRow();
                    continue;
                }
                long n = nv.get(nr);
                long st = s.start(r);
                long e = s.end(r);
                long ds = delim.start(r);
                long dl = delim.end(r) - ds;
                if (n != 0) {
                    if (dl == 0) {
                        characterPart(d, st, e, n, out);
                    } else {
                        part(d, st, e, n, constant, dd, ds, dl, out);
                    }
                }
                out.endRow();
            }
            return out.finish();
        }
    }

    private static long next(MemorySegment d, long p, long e, Needle constant, MemorySegment dd, long ds, long dl) {
        return constant != null ? constant.find(d, p, e) : Needle.indexOf(d, p, e, dd, ds, dl);
    }

    /** Appends part {@code n} (not 0) of {@code [st, e)} split at the delimiter, if there is one. */
    private static void part(
            MemorySegment d,
            long st,
            long e,
            long n,
            Needle constant,
            MemorySegment dd,
            long ds,
            long dl,
            Utf8Output out) {
        long index = n - 1;
        if (n < 0) {
            long parts = 1;
            for (long q = next(d, st, e, constant, dd, ds, dl); q >= 0; q = next(d, q + dl, e, constant, dd, ds, dl)) {
                parts++;
            }
            index = parts + n;
            if (index < 0) {
                return;
            }
        }
        long p = st;
        for (long k = 0; k < index; k++) {
            long q = next(d, p, e, constant, dd, ds, dl);
            if (q < 0) {
                return;
            }
            p = q + dl;
        }
        long q = next(d, p, e, constant, dd, ds, dl);
        out.append(d, p, (q < 0 ? e : q) - p);
    }

    /** Appends character {@code n} (not 0; negative from the end) of {@code [st, e)}, if there is one. */
    private static void characterPart(MemorySegment d, long st, long e, long n, Utf8Output out) {
        long index = n - 1;
        if (n < 0) {
            index = Utf8.codePoints(d, st, e) + n;
            if (index < 0) {
                return;
            }
        }
        long p = st;
        for (long k = 0; k < index && p < e; k++) {
            p += Utf8.sequenceLength(d.get(ValueLayout.JAVA_BYTE, p));
        }
        if (p < e) {
            out.append(d, p, Utf8.sequenceLength(d.get(ValueLayout.JAVA_BYTE, p)));
        }
    }

    @Override
    public String description() {
        return "Part n (1-based; negative from the end) of the string split at the delimiter; '' beyond the parts.";
    }
}
