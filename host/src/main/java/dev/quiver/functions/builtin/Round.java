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
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;

/**
 * {@code round(x [, digits])}: x rounded half away from zero to {@code digits} decimal places
 * (0 when omitted; negative rounds to tens, hundreds...). {@code digits} must be a literal.
 */
final class Round implements ScalarFunction {
    private static final Signature SIGNATURE = Signature.oneOf(List.of(
            new TypeSignature.Exact(List.of(DataType.FLOAT64)),
            new TypeSignature.Exact(List.of(DataType.FLOAT64, DataType.INT32)),
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

    /** A Float64 stays Float64; a Decimal(p, s) keeps its scale and gains one digit for a carry (99.95 -> 100.00). */
    @Override
    public DataType returnType(List<DataType> argTypes) {
        if (argTypes.getFirst().valueType() instanceof DataType.Decimal d) {
            return new DataType.Decimal(Math.min(d.precision() + 1, DataType.Decimal.MAX_PRECISION), d.scale());
        }
        return DataType.FLOAT64;
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        DataType in = DataType.fromField(call.argFields().getFirst());
        if (in instanceof DataType.Decimal) {
            DataType.Decimal out = (DataType.Decimal) DataType.fromField(call.returnField());
            return ArrayFunctions.invoke(call, (arrays, c) -> roundDecimals(arrays, in, out, c), ArrayFunctions.Hint.PAD,
                    ArrayFunctions.Hint.ACCEPTS_SINGULAR);
        }
        return ArrayFunctions.invoke(call, (arrays, c) -> {
            Float8Vector x = (Float8Vector) arrays.getFirst();
            IntVector digits = arrays.size() > 1 ? (IntVector) arrays.get(1) : null;
            int d = digits == null || digits.isNull(0) ? 0 : digits.get(0);
            boolean nullDigits = digits != null && digits.isNull(0);
            int rows = x.getValueCount();
            Float8Vector out = new Float8Vector("round", c.config().allocator());
            try {
                out.allocateNew(rows);
                for (int i = 0; i < rows; i++) {
                    if (x.isNull(i) || nullDigits) {
                        out.setNull(i);
                    } else {
                        out.set(i, round(x.get(i), d));
                    }
                }
                out.setValueCount(rows);
                return (FieldVector) out;
            } catch (RuntimeException e) {
                out.close();
                throw e;
            }
        }, ArrayFunctions.Hint.PAD, ArrayFunctions.Hint.ACCEPTS_SINGULAR);
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

    static double round(double v, int digits) {
        if (!Double.isFinite(v)) {
            return v;
        }
        // BigDecimal has no -0: a negative value that rounds to zero keeps its sign, as in IEEE round().
        return Math.copySign(new BigDecimal(v).setScale(digits, RoundingMode.HALF_UP).doubleValue(), v);
    }

    @Override
    public String description() {
        return "x rounded half away from zero to a literal number of decimal places.";
    }
}
