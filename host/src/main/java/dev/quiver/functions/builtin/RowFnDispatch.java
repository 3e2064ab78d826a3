package dev.quiver.functions.builtin;

import dev.quiver.functions.PlanningException;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.RowFnSource;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One function name over several implementations chosen by the (coerced) argument types: the
 * first of {@code rowFns} that has a body for them ({@link RowFn#accepts}), else
 * {@code other}. {@code round(x)} and {@code round(x, digits)} are two RowFns of different
 * arity with the decimal {@code round} behind them; {@code greatest} is a RowFn for numbers and
 * {@link Extremum} for strings, dates and decimals. The planner sees the RowFn through
 * {@link #asRowFn}; {@link #returnType}, {@link #invoke} and {@link #kernel} follow the same choice.
 */
final class RowFnDispatch implements RowFnSource {
    private final String name;
    private final List<String> aliases;
    private final Signature signature;
    private final String description;
    private final List<RowFn> rowFns;
    private final ScalarFunction other;

    /**
     * @param signature every type the function takes, RowFns and {@code other} together
     * @param other     for the types no RowFn takes, or null when there are none
     */
    RowFnDispatch(
            String name,
            List<String> aliases,
            Signature signature,
            String description,
            List<RowFn> rowFns,
            ScalarFunction other) {
        this.name = Objects.requireNonNull(name, "name is null");
        this.aliases = List.copyOf(aliases);
        this.signature = Objects.requireNonNull(signature, "signature is null");
        this.description = Objects.requireNonNull(description, "description is null");
        this.rowFns = List.copyOf(rowFns);
        this.other = other;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public List<String> aliases() {
        return aliases;
    }

    @Override
    public Signature signature() {
        return signature;
    }

    @Override
    public String description() {
        return description;
    }

    /** The RowFns, in the order they are tried. */
    List<RowFn> rowFns() {
        return rowFns;
    }

    @Override
    public Optional<RowFn> asRowFn(List<DataType> argTypes) {
        for (RowFn f : rowFns) {
            if (f.accepts(argTypes)) {
                return Optional.of(f);
            }
        }
        return Optional.empty();
    }

    private ScalarFunction implementation(List<DataType> argTypes) {
        Optional<RowFn> f = asRowFn(argTypes);
        if (f.isPresent()) {
            return f.get();
        }
        if (other == null) {
            throw new PlanningException("no implementation of " + name + " takes " + argTypes);
        }
        return other;
    }

    @Override
    public List<DataType> coerceTypes(List<DataType> argTypes) {
        if (other == null) {
            return RowFnSource.super.coerceTypes(argTypes);
        }
        return other.coerceTypes(argTypes);
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return implementation(argTypes).returnType(argTypes);
    }

    /** A call that {@code other} runs is bound by it (the decimal {@code round} types its result by its literal digits). */
    @Override
    public ScalarFunction bind(List<DataType> argTypes, List<Optional<ScalarValue>> literals) {
        if (asRowFn(argTypes).isEmpty() && other != null) {
            return other.bind(argTypes, literals);
        }
        return this;
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        return implementation(call.argFields().stream().map(DataType::fromField).toList())
                .invoke(call);
    }

    @Override
    public Optional<IrNode> kernel(List<IrNode> args) {
        List<DataType> types =
                args.stream().map(a -> DataType.fromArrow(a.type().arrowType())).toList();
        Optional<RowFn> f = asRowFn(types);
        if (f.isPresent()) {
            return f.get().kernel(args);
        }
        return other == null ? Optional.empty() : other.kernel(args);
    }

    @Override
    public boolean requiresLiteral(int index) {
        return rowFns.stream().anyMatch(f -> f.requiresLiteral(index)) || other != null && other.requiresLiteral(index);
    }

    @Override
    public String toString() {
        return "RowFnDispatch[" + name + ": " + rowFns + (other == null ? "" : " else " + other.name()) + "]";
    }
}
