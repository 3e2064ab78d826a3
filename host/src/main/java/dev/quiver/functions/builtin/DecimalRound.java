package dev.quiver.functions.builtin;

import dev.quiver.functions.ArrayFunctions;
import dev.quiver.functions.Coercion;
import dev.quiver.functions.TypeSignatureClass;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.TypeSignature;
import dev.quiver.functions.Volatility;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import org.apache.arrow.vector.FieldVector;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;

/**
 * {@code round(dec [, digits])} of a decimal: rounded exactly, half away from zero, to
 * {@code digits} decimal places (0 when omitted; negative rounds to tens, hundreds...), keeping
 * the scale and gaining one digit of precision for a carry. {@code digits} must be a literal.
 * Floats are the RowFns {@link MathFunctions#ROUND_1} and {@link MathFunctions#ROUND_2}; the
 * registered {@code round} chooses by type.
 */
final class DecimalRound implements ScalarFunction {
    private static final Signature SIGNATURE = Signature.oneOf(List.of(
            new TypeSignature.Coercible(List.of(Coercion.exact(TypeSignatureClass.Family.DECIMAL))),
            new TypeSignature.Coercible(List.of(Coercion.exact(TypeSignatureClass.Family.DECIMAL),
                    Coercion.implicit(TypeSignatureClass.of(DataType.INT32), List.of(TypeSignatureClass.Family.INTEGER), DataType.INT32)))),
            Volatility.IMMUTABLE).withParameterNames("x", "digits");

    @Override
    public String name() {
        return "round";
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    public boolean requiresLiteral(int index) {
        return index == 1;
    }

    /** Decimal(p, s) keeps its scale and gains one digit for a carry (99.95 -> 100.00). */
    @Override
    public DataType returnType(List<DataType> argTypes) {
        DataType.Decimal d = (DataType.Decimal) argTypes.getFirst().valueType();
        return new DataType.Decimal(Math.min(d.precision() + 1, DataType.Decimal.MAX_PRECISION), d.scale());
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        DataType in = DataType.fromField(call.argFields().getFirst());
        DataType.Decimal out = (DataType.Decimal) DataType.fromField(call.returnField());
        return ArrayFunctions.invoke(call, (arrays, c) -> roundDecimals(arrays, in, out, c), ArrayFunctions.Hint.PAD,
                ArrayFunctions.Hint.ACCEPTS_SINGULAR);
    }
    /** Decimals round exactly, half away from zero, to {@code digits} places, then keep their scale. */
    private static FieldVector roundDecimals(List<FieldVector> arrays, DataType in, DataType.Decimal out, ScalarFunctionArgs c) {
        FieldVector x = arrays.getFirst();
        ScalarValue digits = arrays.size() > 1 ? Values.get(arrays.get(1), 0, DataType.INT32) : new ScalarValue(DataType.INT32, 0);
        int rows = x.getValueCount();
        FieldVector result = Values.allocate(out, "round", rows, c.config().allocator());
        try {
            for (int i = 0; i < rows; i++) {
                ScalarValue v = Values.get(x, i, in);
                if (v.isNull() || digits.isNull()) {
                    Values.setNull(result, i);
                } else {
                    BigDecimal r = ((BigDecimal) v.value()).setScale((Integer) digits.value(), RoundingMode.HALF_UP)
                            .setScale(out.scale(), RoundingMode.UNNECESSARY);
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
        return "A decimal rounded half away from zero to a literal number of decimal places, of scale unchanged.";
    }
}
