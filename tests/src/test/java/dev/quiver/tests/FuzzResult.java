package dev.quiver.tests;

import dev.quiver.CompiledExpression;
import dev.quiver.errors.QuiverException;
import dev.quiver.value.Values;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.util.ValueVectorUtility;

/**
 * What one evaluation in a fuzzer gave, with the result vector already checked and closed: its
 * values, or what it threw; or a result that is itself malformed (not the batch's rows, not the
 * planned type, or rejected by Arrow's {@code validateFull}); {@code beyondPrecision} says the only
 * fault of a decimal result is a value beyond its declared precision.
 */
record FuzzResult(List<Object> values, Throwable error, String malformed, String beyondPrecision) {

    /** Runs {@code evaluation} of {@code compiled} over a batch of {@code rows} rows and checks what it returns. */
    static FuzzResult of(Supplier<FieldVector> evaluation, CompiledExpression compiled, int rows) {
        FieldVector result;
        try {
            result = evaluation.get();
        } catch (Throwable t) { // an Error too: the fuzzer reports it
            return new FuzzResult(null, t, null, null);
        }
        try (result) {
            if (result.getValueCount() != rows) {
                return new FuzzResult(null, null, result.getValueCount() + " values for " + rows + " rows", null);
            }
            if (!result.getField().getType().equals(compiled.outputField().getType())) {
                return new FuzzResult(
                        null,
                        null,
                        "type " + result.getField().getType() + ", planned "
                                + compiled.outputField().getType(),
                        null);
            }
            ValueVectorUtility.validate(result);
            String beyond = null;
            try {
                ValueVectorUtility.validateFull(result);
            } catch (RuntimeException t) {
                if (!(result instanceof DecimalVector) && !IpcBatchCheck.isUtf8(t)) {
                    throw t;
                }
                // The full check adds values: a decimal's precision, a string's UTF-8. Arrow 19's decimal check is
                // off by one (it refuses a value of exactly the declared precision, 99999 in DECIMAL(5, 0)), so a
                // decimal is judged here by its digits.
                beyond = result instanceof DecimalVector d ? digitsBeyondPrecision(d) : t.getMessage();
            }
            List<Object> values = new ArrayList<>(result.getValueCount());
            for (int i = 0; i < result.getValueCount(); i++) {
                values.add(Values.get(result, i).value());
            }
            return new FuzzResult(values, null, null, beyond);
        } catch (RuntimeException t) {
            return new FuzzResult(null, null, t.toString(), null);
        }
    }

    /**
     * The same outcome: equal values (byte arrays by content, floats bit for bit), or the same
     * exception (a {@link QuiverException}: class, kind, detail and row; another: class and
     * message). A malformed result is never the same as anything.
     */
    boolean same(FuzzResult other) {
        if (malformed != null || other.malformed != null) {
            return false;
        }
        if (error != null || other.error != null) {
            if (error == null || other.error == null || error.getClass() != other.error.getClass()) {
                return false;
            }
            if (error instanceof QuiverException a && other.error instanceof QuiverException b) {
                return a.kind() == b.kind() && Objects.equals(a.detail(), b.detail()) && a.row() == b.row();
            }
            return Objects.equals(error.getMessage(), other.error.getMessage());
        }
        return sameValue(values, other.values);
    }

    private static boolean sameValue(Object a, Object b) {
        if (a instanceof byte[] x && b instanceof byte[] y) {
            return Arrays.equals(x, y);
        }
        if (a instanceof List<?> x && b instanceof List<?> y) {
            if (x.size() != y.size()) {
                return false;
            }
            for (int i = 0; i < x.size(); i++) {
                if (!sameValue(x.get(i), y.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
            if (!x.keySet().equals(y.keySet())) {
                return false;
            }
            for (Object k : x.keySet()) {
                if (!sameValue(x.get(k), y.get(k))) {
                    return false;
                }
            }
            return true;
        }
        return Objects.equals(a, b); // Double.equals and Float.equals: bit for bit, NaN equal to NaN
    }

    /** For a report: the exception with its first frames, the fault of the result, or the first values. */
    String describe() {
        if (error != null) {
            return FuzzTally.stack(error);
        }
        if (malformed != null) {
            return "a malformed result: " + malformed;
        }
        String s = values.stream()
                .map(v -> v instanceof byte[] b ? HexFormat.of().formatHex(b) : String.valueOf(v))
                .toList()
                .toString();
        return "a result of " + values.size() + " rows: " + (s.length() > 300 ? s.substring(0, 300) + "..." : s)
                + (beyondPrecision != null ? " (" + beyondPrecision + ")" : "");
    }

    /** The first value of {@code v} with more digits than its precision (or another scale), or null when none. */
    static String digitsBeyondPrecision(DecimalVector v) {
        for (int i = 0; i < v.getValueCount(); i++) {
            if (!v.isNull(i)) {
                BigDecimal value = v.getObject(i);
                if (value.scale() != v.getScale()
                        || value.unscaledValue().abs().toString().length() > v.getPrecision()) {
                    return "value " + value + " at row " + i + " does not fit in DECIMAL(" + v.getPrecision() + ", "
                            + v.getScale() + ")";
                }
            }
        }
        return null;
    }
}
