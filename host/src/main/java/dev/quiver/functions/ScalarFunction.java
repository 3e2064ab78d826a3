package dev.quiver.functions;

import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import java.util.List;
import java.util.Optional;

/**
 * A scalar function: called once per batch with whole columns (or scalars), never once per
 * row. Register it in a {@link FunctionRegistry}; the planner resolves calls by name, coerces
 * arguments to what {@link #signature()} accepts, and folds calls whose arguments are all
 * literals when the function is not {@link Volatility#VOLATILE}.
 *
 * <p>Contract of {@link #invoke}: return an array of {@code numberRows} rows, or a scalar
 * when every argument was a scalar (a one-row array is then taken as that scalar). The
 * result's type must be {@link #returnType} of the argument types. The returned value is
 * owned by the caller; arguments are borrowed and must not be closed. To write a function
 * as arrays-in, array-out, see {@link ArrayFunctions#adapt}.
 */
public interface ScalarFunction {

    /** The name calls use; matched case-insensitively. */
    String name();

    /** Other names for the same function. */
    default List<String> aliases() {
        return List.of();
    }

    Signature signature();

    /** The result type for arguments of these (already coerced) types. */
    DataType returnType(List<DataType> argTypes);

    /** Evaluates one batch. */
    ColumnarValue invoke(ScalarFunctionArgs args);

    /**
     * For {@link TypeSignature.UserDefined} signatures: the types to cast {@code argTypes} to,
     * or a {@link PlanningException} saying why they are not accepted.
     */
    default List<DataType> coerceTypes(List<DataType> argTypes) {
        throw new PlanningException(
                "function '" + name() + "' has a user-defined signature but does not implement coerceTypes");
    }

    /**
     * The function as kernel IR over already-lowered arguments, when it can run inside a fused
     * CPU/OpenCL kernel (numeric functions of Int32/Int64/Float32/Float64). Empty otherwise,
     * and then {@link #invoke} runs it.
     */
    default Optional<IrNode> kernel(List<IrNode> args) {
        return Optional.empty();
    }

    /**
     * Whether argument {@code index} must be a literal (after folding), such as the digits of
     * {@code round(x, 2)}: the planner rejects a call that passes anything else.
     */
    default boolean requiresLiteral(int index) {
        return false;
    }

    /**
     * Called once per call site when an expression is planned, with the (already coerced)
     * argument types and, for each argument that is a literal after folding, its value (empty
     * for the others). Returns the function that runs this call: {@code this} (the default), or
     * one specialised for it, such as a regular expression compiled once per query from a
     * literal pattern, or a struct whose field names come from literal arguments. Throw a
     * {@link PlanningException} to reject the call (a non-literal field name, a bad pattern).
     * The planner takes the result type from the returned function.
     */
    default ScalarFunction bind(List<DataType> argTypes, List<Optional<ScalarValue>> literals) {
        return this;
    }

    /** One line for listings and "did you mean" messages. */
    default String description() {
        return "";
    }
}
