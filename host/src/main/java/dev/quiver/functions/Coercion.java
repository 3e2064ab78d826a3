package dev.quiver.functions;

import dev.quiver.types.DataType;
import java.util.List;
import java.util.Objects;

/**
 * What one argument of a {@link TypeSignature.Coercible} signature accepts.
 */
public sealed interface Coercion permits Coercion.Exact, Coercion.Implicit {

    /** The class the argument must already be in (no cast is inserted). */
    TypeSignatureClass desired();

    /** Accept only {@code desired}; anything else is rejected. */
    record Exact(TypeSignatureClass desired) implements Coercion {
        public Exact {
            Objects.requireNonNull(desired, "desired is null");
        }

        @Override
        public String toString() {
            return desired.toString();
        }
    }

    /**
     * Accept {@code desired} as it is; an argument in one of {@code allowedSources} is cast to
     * {@code defaultCastType}.
     */
    record Implicit(TypeSignatureClass desired, List<TypeSignatureClass> allowedSources, DataType defaultCastType)
            implements Coercion {
        public Implicit {
            Objects.requireNonNull(desired, "desired is null");
            allowedSources = List.copyOf(allowedSources);
            Objects.requireNonNull(defaultCastType, "defaultCastType is null");
        }

        @Override
        public String toString() {
            return desired + " (or "
                    + allowedSources.stream()
                            .map(Object::toString)
                            .reduce((a, b) -> a + "/" + b)
                            .orElse("") + " as " + defaultCastType + ")";
        }
    }

    static Coercion exact(TypeSignatureClass desired) {
        return new Exact(desired);
    }

    static Coercion implicit(
            TypeSignatureClass desired, List<TypeSignatureClass> allowedSources, DataType defaultCastType) {
        return new Implicit(desired, allowedSources, defaultCastType);
    }
}
