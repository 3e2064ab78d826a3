package dev.quiver.functions.builtin;

import dev.quiver.functions.ArrayFunctions;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.kernels.Needle;
import dev.quiver.strings.Utf8Input;
import dev.quiver.strings.Utf8Output;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.apache.arrow.vector.FieldVector;

/**
 * {@code replace(s, from, to)}: every occurrence of {@code from} in {@code s}, left to right and
 * not overlapping, replaced by {@code to} ({@code replace('aaa', 'aa', 'b')} is {@code 'ba'}).
 * An empty {@code from} leaves {@code s} as it is (as DuckDB). NULL when any argument is NULL.
 * Works on the UTF-8 bytes (a byte match is a character match); a constant {@code from} is
 * searched eight bytes per step ({@link Needle}).
 */
final class Replace implements ScalarFunction {
    private static final Signature SIGNATURE =
            Signature.string(3, Volatility.IMMUTABLE).withParameterNames("s", "from", "to");

    @Override
    public String name() {
        return "replace";
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return argTypes.getFirst();
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        boolean large = StringTypes.isLarge(DataType.fromField(call.returnField()));
        return ArrayFunctions.invoke(
                call,
                (a, c) -> replace(a.get(0), a.get(1), a.get(2), large, c),
                ArrayFunctions.Hint.PAD,
                ArrayFunctions.Hint.ACCEPTS_SINGULAR,
                ArrayFunctions.Hint.ACCEPTS_SINGULAR);
    }

    private static Utf8Input view(FieldVector v, int rows) {
        return v.getValueCount() == 1 && rows != 1 ? Utf8Input.constant(v) : Utf8Input.of(v);
    }

    static FieldVector replace(
            FieldVector sv, FieldVector fromv, FieldVector tov, boolean large, ScalarFunctionArgs call) {
        int rows = sv.getValueCount();
        try (Utf8Input s = Utf8Input.of(sv);
                Utf8Input from = view(fromv, rows);
                Utf8Input to = view(tov, rows);
                Utf8Output out = Utf8Output.allocate(
                        large,
                        "result",
                        rows,
                        rows == 0 ? 0 : s.end(rows - 1) - s.start(0),
                        call.config().allocator())) {
            MemorySegment d = s.data();
            MemorySegment fd = from.data();
            MemorySegment td = to.data();
            Needle constant = from.constant() && from.isValid(0) ? Needle.of(fd, from.start(0), from.end(0)) : null;
            for (int r = 0; r < rows; r++) {
                if (!s.isValid(r) || !from.isValid(r) || !to.isValid(r)) {
                    out.nullRow();
                    continue;
                }
                long p = s.start(r);
                long e = s.end(r);
                long fs = from.start(r);
                long fl = from.end(r) - fs;
                if (fl == 0) {
                    out.append(d, p, e - p);
                    out.endRow();
                    continue;
                }
                long ts = to.start(r);
                long tl = to.end(r) - ts;
                while (true) {
                    long q = constant != null ? constant.find(d, p, e) : Needle.indexOf(d, p, e, fd, fs, fl);
                    if (q < 0) {
                        break;
                    }
                    out.append(d, p, q - p);
                    out.append(td, ts, tl);
                    p = q + fl;
                }
                out.append(d, p, e - p);
                out.endRow();
            }
            return out.finish();
        }
    }

    @Override
    public String description() {
        return "Every occurrence of from (left to right, not overlapping) replaced by to; an empty from changes nothing.";
    }
}
