package dev.quiver.functions;

import dev.quiver.types.DataType;
import java.util.List;

/**
 * The argument types a function has code for: arity times type shape. It does not limit
 * what a user may call the function with; the planner casts other arguments to a shape the
 * signature accepts (see {@code dev.quiver.functions.SignatureResolver}), or fails naming the
 * signatures.
 */
public sealed interface TypeSignature {

    /** Exactly these types, in order. */
    record Exact(List<DataType> types) implements TypeSignature {
        public Exact {
            types = List.copyOf(types);
        }
    }

    /** Exactly {@code count} arguments, all of one type from {@code types}. */
    record Uniform(int count, List<DataType> types) implements TypeSignature {
        public Uniform {
            types = List.copyOf(types);
        }
    }

    /** One or more arguments, all of one type from {@code types}. */
    record Variadic(List<DataType> types) implements TypeSignature {
        public Variadic {
            types = List.copyOf(types);
        }
    }

    /** One or more arguments of any types. */
    record VariadicAny() implements TypeSignature {}

    /** Exactly {@code count} arguments of any types. */
    record Any(int count) implements TypeSignature {}

    /** The first alternative that accepts the arguments wins: order is semantics. */
    record OneOf(List<TypeSignature> alternatives) implements TypeSignature {
        public OneOf {
            alternatives = List.copyOf(alternatives);
        }
    }

    /** {@code count} numeric arguments, coerced to their common numeric type. */
    record Numeric(int count) implements TypeSignature {}

    /** {@code count} string arguments, coerced to their common string type. */
    record StringArgs(int count) implements TypeSignature {}

    /** {@code count} arguments coerced to one type that can be compared. */
    record Comparable(int count) implements TypeSignature {}

    /** One {@link Coercion} per argument. */
    record Coercible(List<Coercion> coercions) implements TypeSignature {
        public Coercible {
            coercions = List.copyOf(coercions);
        }
    }

    /** The function coerces its own arguments in {@link ScalarFunction#coerceTypes}. */
    record UserDefined() implements TypeSignature {}

    /** No arguments. */
    record Nullary() implements TypeSignature {}
}
