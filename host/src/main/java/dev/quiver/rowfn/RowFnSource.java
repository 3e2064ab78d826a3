package dev.quiver.rowfn;

import dev.quiver.functions.ScalarFunction;
import dev.quiver.types.DataType;
import java.util.List;
import java.util.Optional;

/**
 * A scalar function that is a {@link RowFn} for some argument types: a RowFn itself, or a built-in function that
 * is a RowFn for numbers and a kernel for the rest ({@code round}, {@code greatest}). The planner runs such a call
 * as part of a kernel segment. Here rather than in {@code functions} because it names RowFn, which builds on
 * {@code functions}.
 */
public interface RowFnSource extends ScalarFunction {

    /**
     * The RowFn that computes calls with these (already coerced) argument types, when there is one. A function that
     * is a RowFn for some types and not others (say, numbers and decimals) returns it only for the former.
     */
    Optional<RowFn> asRowFn(List<DataType> argTypes);

    /** {@code function}'s RowFn for these argument types: empty when it is no {@link RowFnSource}, or none for them. */
    static Optional<RowFn> of(ScalarFunction function, List<DataType> argTypes) {
        return function instanceof RowFnSource source ? source.asRowFn(argTypes) : Optional.empty();
    }
}
