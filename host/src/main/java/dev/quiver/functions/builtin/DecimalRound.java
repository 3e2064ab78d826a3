package dev.quiver.functions.builtin;

import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.functions.ArrayFunctions;
import dev.quiver.functions.Coercion;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.TypeSignature;
import dev.quiver.functions.TypeSignatureClass;
import dev.quiver.functions.Volatility;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.FieldVector;

/**
 * {@code round(dec [, digits])} and {@code trunc(dec [, digits])} of a decimal, exactly:
 * rounded half away from zero (round) or toward zero (trunc) to {@code digits} decimal places
 * (0 when omitted; a negative number rounds to tens, hundreds...). {@code digits} must be a
 * literal (a NULL literal gives NULL rows). Floats are the RowFns of {@link MathFunctions}; the
 * registered {@code round} and {@code trunc} choose by type.
 *
 * <p>The result type follows DataFusion's {@code round}, which DuckDB's round and trunc share:
 * {@code Decimal(p, s)} with {@code digits} {@code d} gives scale {@code min(s, max(d, 0))}
 * (the digits rounded away are dropped from the type, giving their room to the integer part),
 * precision {@code p}; only round of a scale-0 decimal to a negative {@code d} (with
 * {@code -d <= p}) can carry into a new digit ({@code round(99, -1) = 100}), so that gains one
 * digit of precision, up to 38. At precision 38 such a carry has no room: the row raises a
 * {@link KernelArithmeticException} ({@code decimal overflow}) naming the value, the type and
 * the row. Rounding to more places than the scale leaves the value as it is; rounding to more
 * tens than the integer digits gives 0.
 */
final class DecimalRound implements ScalarFunction {
    private static final Signature SIGNATURE = Signature.oneOf(
                    List.of(
                            new TypeSignature.Coercible(List.of(Coercion.exact(TypeSignatureClass.Family.DECIMAL))),
                            new TypeSignature.Coercible(List.of(
                                    Coercion.exact(TypeSignatureClass.Family.DECIMAL),
                                    Coercion.implicit(
                                            TypeSignatureClass.of(DataType.INT32),
                                            List.of(TypeSignatureClass.Family.INTEGER),
                                            DataType.INT32)))),
                    Volatility.IMMUTABLE)
            .withParameterNames("x", "digits");

    private final String name;
    private final RoundingMode mode;
    /** Whether this is bound to the literal digits of one call. */
    private final boolean bound;
    /** The bound call's digits: 0 when omitted, null for a NULL literal. */
    private final Integer digits;

    private DecimalRound(String name, RoundingMode mode, boolean bound, Integer digits) {
        this.name = name;
        this.mode = mode;
        this.bound = bound;
        this.digits = digits;
    }

    /** {@code round}: half away from zero. */
    static DecimalRound round() {
        return new DecimalRound("round", RoundingMode.HALF_UP, false, null);
    }

    /** {@code trunc}: toward zero. */
    static DecimalRound trunc() {
        return new DecimalRound("trunc", RoundingMode.DOWN, false, null);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    public boolean requiresLiteral(int index) {
        return index == 1;
    }

    /** The call's digits decide its result type: bound to them. */
    @Override
    public ScalarFunction bind(List<DataType> argTypes, List<Optional<ScalarValue>> literals) {
        Integer d = 0;
        if (literals.size() > 1) {
            ScalarValue v = literals.get(1).orElseThrow(() -> new IllegalStateException("digits must be a literal"));
            d = (Integer) v.value();
        }
        return new DecimalRound(name, mode, true, d);
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        DataType.Decimal in = (DataType.Decimal) argTypes.getFirst().valueType();
        int wider = Math.min(in.precision() + 1, DataType.Decimal.MAX_PRECISION);
        if (!bound) {
            // Digits unknown (planning always binds): the scale stays, so round may carry at any scale.
            return new DataType.Decimal(mode == RoundingMode.DOWN ? in.precision() : wider, in.scale());
        }
        int d = digits == null ? 0 : digits; // a NULL gives NULL rows, typed as for 0 (DataFusion)
        int scale = Math.min(in.scale(), Math.max(d, 0));
        // Dropping fraction digits frees integer room for a carry; only a scale-0 decimal rounded to tens has none.
        boolean carry = mode != RoundingMode.DOWN && in.scale() == 0 && d < 0 && -(long) d <= in.precision();
        return new DataType.Decimal(carry ? wider : in.precision(), scale);
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        DataType.Decimal in =
                (DataType.Decimal) DataType.fromField(call.argFields().getFirst());
        DataType.Decimal out = (DataType.Decimal) DataType.fromField(call.returnField());
        return ArrayFunctions.invoke(
                call,
                (arrays, c) -> roundDecimals(arrays, in, out, c),
                ArrayFunctions.Hint.PAD,
                ArrayFunctions.Hint.ACCEPTS_SINGULAR);
    }

    private FieldVector roundDecimals(
            List<FieldVector> arrays, DataType.Decimal in, DataType.Decimal out, ScalarFunctionArgs c) {
        FieldVector x = arrays.getFirst();
        ScalarValue digitValue =
                arrays.size() > 1 ? Values.get(arrays.get(1), 0, DataType.INT32) : new ScalarValue(DataType.INT32, 0);
        int rows = x.getValueCount();
        FieldVector result = Values.allocate(out, name, rows, c.config().allocator());
        try {
            if (digitValue.isNull()) {
                for (int i = 0; i < rows; i++) {
                    Values.setNull(result, i);
                }
            } else {
                int d = (Integer) digitValue.value();
                // Beyond these the result no longer changes (and setScale would build a huge power of ten).
                int places = (int) Math.clamp(d, -(long) (in.precision() - in.scale()) - 1, in.scale());
                for (int i = 0; i < rows; i++) {
                    ScalarValue v = Values.get(x, i, in);
                    if (v.isNull()) {
                        Values.setNull(result, i);
                        continue;
                    }
                    BigDecimal value = (BigDecimal) v.value();
                    BigDecimal r = value.setScale(places, mode).setScale(out.scale(), RoundingMode.UNNECESSARY);
                    if (r.precision() > out.precision()) {
                        throw new KernelArithmeticException(
                                "decimal overflow (" + value.toPlainString() + " rounded to " + d + " digits is "
                                        + r.toPlainString() + ", which does not fit " + out + ")",
                                name + "(" + in + (arrays.size() > 1 ? ", " + d : "") + ")",
                                i,
                                "cpu");
                    }
                    Values.set(result, i, new ScalarValue(out, r));
                }
            }
            result.setValueCount(rows);
            return result;
        } catch (RuntimeException e) {
            result.close();
            throw e;
        }
    }

    @Override
    public String description() {
        return mode == RoundingMode.DOWN
                ? "A decimal truncated toward zero to a literal number of decimal places (0 when omitted)."
                : "A decimal rounded half away from zero to a literal number of decimal places (0 when omitted).";
    }
}
