package dev.quiver.functions;

import dev.quiver.types.DataType;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * What a function states about itself: the argument types it has code for, its
 * {@link Volatility}, and optionally its parameter names (for named arguments,
 * {@code f(x => 1)}).
 *
 * @param parameterNames empty when the function takes no named arguments
 */
public record Signature(TypeSignature typeSignature, Volatility volatility, List<String> parameterNames) {

    public Signature {
        Objects.requireNonNull(typeSignature, "typeSignature is null");
        Objects.requireNonNull(volatility, "volatility is null");
        parameterNames = parameterNames == null ? List.of() : List.copyOf(parameterNames);
        if (parameterNames.stream().distinct().count() != parameterNames.size()) {
            throw new IllegalArgumentException("parameter names repeat: " + parameterNames);
        }
    }

    public Signature(TypeSignature typeSignature, Volatility volatility) {
        this(typeSignature, volatility, List.of());
    }

    /** This signature with parameter names. */
    public Signature withParameterNames(String... names) {
        return new Signature(typeSignature, volatility, Arrays.asList(names));
    }

    public static Signature exact(List<DataType> types, Volatility v) {
        return new Signature(new TypeSignature.Exact(types), v);
    }

    public static Signature uniform(int count, List<DataType> types, Volatility v) {
        return new Signature(new TypeSignature.Uniform(count, types), v);
    }

    public static Signature variadic(List<DataType> types, Volatility v) {
        return new Signature(new TypeSignature.Variadic(types), v);
    }

    public static Signature variadicAny(Volatility v) {
        return new Signature(new TypeSignature.VariadicAny(), v);
    }

    public static Signature any(int count, Volatility v) {
        return new Signature(new TypeSignature.Any(count), v);
    }

    public static Signature oneOf(List<TypeSignature> alternatives, Volatility v) {
        return new Signature(new TypeSignature.OneOf(alternatives), v);
    }

    public static Signature numeric(int count, Volatility v) {
        return new Signature(new TypeSignature.Numeric(count), v);
    }

    public static Signature string(int count, Volatility v) {
        return new Signature(new TypeSignature.StringArgs(count), v);
    }

    public static Signature comparable(int count, Volatility v) {
        return new Signature(new TypeSignature.Comparable(count), v);
    }

    public static Signature coercible(List<Coercion> coercions, Volatility v) {
        return new Signature(new TypeSignature.Coercible(coercions), v);
    }

    public static Signature userDefined(Volatility v) {
        return new Signature(new TypeSignature.UserDefined(), v);
    }

    public static Signature nullary(Volatility v) {
        return new Signature(new TypeSignature.Nullary(), v);
    }
}
