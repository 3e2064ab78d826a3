package dev.quiver.rowfn;

import dev.quiver.types.ElementType;
import java.util.List;

/**
 * The type of a RowFn argument or result: one concrete type, or a type variable {@code T} that
 * stands for each of several types. A body whose arguments use a type variable is written once
 * and captured once per type it stands for (a generic numeric body); all type variables of one
 * declaration are the same {@code T}.
 */
public enum RowType {
    BOOLEAN(List.of(ElementType.BOOL)),
    INT32(List.of(ElementType.INT32)),
    INT64(List.of(ElementType.INT64)),
    FLOAT32(List.of(ElementType.FLOAT32)),
    FLOAT64(List.of(ElementType.FLOAT64)),
    /** {@code T}: Int32, Int64, Float32 or Float64, in that order of preference. */
    NUMERIC(List.of(ElementType.INT32, ElementType.INT64, ElementType.FLOAT32, ElementType.FLOAT64)),
    /** {@code T}: Int32 or Int64. */
    INTEGER(List.of(ElementType.INT32, ElementType.INT64)),
    /**
     * {@code T}: Float64 or Float32. Float64 comes first: an argument that must be cast (an
     * integer, a decimal, an untyped NULL) becomes a Float64, never a Float32 that would round
     * an Int32 to 24 bits; Float32 arguments match the Float32 body exactly and stay Float32.
     */
    FLOATING(List.of(ElementType.FLOAT64, ElementType.FLOAT32)),
    /** As a result type: the argument type variable's type {@code T}. */
    SAME_AS_ARGS(List.of()),
    /**
     * A UTF-8 string (Utf8 or LargeUtf8), for per-row bodies only ({@link RowFn.Builder#perRow}):
     * a {@link dev.quiver.strings.Utf8View} in, a string builder out. Kernel IR has no strings.
     */
    UTF8(List.of());

    private final List<ElementType> types;

    RowType(List<ElementType> types) {
        this.types = types;
    }

    /** Whether this is a type variable (NUMERIC, INTEGER, FLOATING). */
    public boolean isVariable() {
        return types.size() > 1;
    }

    /** The types this stands for: one for a concrete type. */
    public List<ElementType> types() {
        return types;
    }

    /** The concrete type for {@code element}. */
    public static RowType of(ElementType element) {
        return switch (element) {
            case BOOL -> BOOLEAN;
            case INT32 -> INT32;
            case INT64 -> INT64;
            case FLOAT32 -> FLOAT32;
            case FLOAT64 -> FLOAT64;
        };
    }
}
