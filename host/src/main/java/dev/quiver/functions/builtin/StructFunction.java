package dev.quiver.functions.builtin;

import dev.quiver.functions.PlanningException;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code struct(x, y, ...)}: {@link NamedStruct named_struct} with positional field names
 * {@code c0, c1, ...}, as DataFusion names them (DuckDB's {@code row(x, y)} leaves them
 * unnamed). One or more arguments of any types; zero copy as named_struct.
 */
final class StructFunction implements ScalarFunction {
    private static final Signature SIGNATURE = Signature.userDefined(Volatility.IMMUTABLE);

    @Override
    public String name() {
        return "struct";
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    public List<DataType> coerceTypes(List<DataType> argTypes) {
        if (argTypes.isEmpty()) {
            throw new PlanningException("struct needs at least one argument");
        }
        return argTypes.stream().map(DataType::valueType).toList();
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return NamedStruct.structType(names(argTypes.size()), argTypes, 0, 1);
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        return NamedStruct.pack(names(call.args().size()), call.args(), call);
    }

    @Override
    public String description() {
        return "A struct of its arguments with fields c0, c1, ...";
    }

    private static List<String> names(int n) {
        List<String> names = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            names.add("c" + i);
        }
        return names;
    }
}
