package dev.quiver.types;

import java.util.Optional;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The fixed-width numeric element types the kernel IR computes with, and their Arrow types.
 *
 * <p>Mapping (one to one): {@code INT32} = Arrow {@code Int(32, signed)} ({@code IntVector}),
 * {@code INT64} = {@code Int(64, signed)} ({@code BigIntVector}), {@code FLOAT32} =
 * {@code FloatingPoint(SINGLE)} ({@code Float4Vector}), {@code FLOAT64} =
 * {@code FloatingPoint(DOUBLE)} ({@code Float8Vector}). All are stored little-endian in Arrow
 * memory. Integer arithmetic wraps on overflow (two's complement), as in Java; floating point
 * follows IEEE 754 with round-to-nearest-even and no fused contraction unless {@code fma} is
 * written explicitly.
 */
public enum ElementType {
    INT32(4, false, "int", "Int32"),
    INT64(8, false, "long", "Int64"),
    FLOAT32(4, true, "float", "Float32"),
    FLOAT64(8, true, "double", "Float64"),
    /**
     * A Boolean. Arrow packs Booleans one bit per row (LSB first), and so do kernels: a BOOL
     * argument or result is a bitmap, not a byte array ({@link #isBitPacked()}). Inside a
     * computation it is a lane mask on the CPU and an {@code int} 0/1 in OpenCL C. It is not a
     * number: only comparisons, {@code select}, logic and checks produce or consume it.
     */
    BOOL(1, false, "int", "Boolean");

    private final int byteWidth;
    private final boolean floating;
    private final String openClName;
    private final String displayName;

    ElementType(int byteWidth, boolean floating, String openClName, String displayName) {
        this.byteWidth = byteWidth;
        this.floating = floating;
        this.openClName = openClName;
        this.displayName = displayName;
    }

    /** Bytes per element in Arrow memory; 1 for {@link #BOOL}, which Arrow packs as bits (see {@link #isBitPacked()}). */
    public int byteWidth() {
        return byteWidth;
    }

    /** True for {@link #BOOL}: one bit per row in Arrow memory. */
    public boolean isBitPacked() {
        return this == BOOL;
    }

    /** True for the four number types (everything but {@link #BOOL}). */
    public boolean isNumeric() {
        return this != BOOL;
    }

    /** True for INT32 and INT64. */
    public boolean isInteger() {
        return this == INT32 || this == INT64;
    }

    public boolean isFloatingPoint() {
        return floating;
    }

    /** The OpenCL C scalar type with the same width and semantics. */
    public String openClName() {
        return openClName;
    }

    public String displayName() {
        return displayName;
    }

    public ArrowType arrowType() {
        return switch (this) {
            case INT32 -> new ArrowType.Int(32, true);
            case INT64 -> new ArrowType.Int(64, true);
            case FLOAT32 -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
            case FLOAT64 -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
            case BOOL -> ArrowType.Bool.INSTANCE;
        };
    }

    /** The element type for an Arrow type, or empty when the IR does not compute with it. */
    public static Optional<ElementType> fromArrow(ArrowType type) {
        if (type instanceof ArrowType.Int i && i.getIsSigned()) {
            return switch (i.getBitWidth()) {
                case 32 -> Optional.of(INT32);
                case 64 -> Optional.of(INT64);
                default -> Optional.empty();
            };
        }
        if (type instanceof ArrowType.Bool) {
            return Optional.of(BOOL);
        }
        if (type instanceof ArrowType.FloatingPoint f) {
            return switch (f.getPrecision()) {
                case SINGLE -> Optional.of(FLOAT32);
                case DOUBLE -> Optional.of(FLOAT64);
                default -> Optional.empty();
            };
        }
        return Optional.empty();
    }

    /**
     * The common type two operands are promoted to: any FLOAT64, or FLOAT32 with INT64, gives
     * FLOAT64; else any FLOAT32 gives FLOAT32; else any INT64 gives INT64; else INT32.
     */
    public static ElementType common(ElementType a, ElementType b) {
        if (a == b) {
            return a;
        }
        if (a == BOOL || b == BOOL) {
            throw new IllegalArgumentException(
                    "a Boolean does not mix with a number (" + a + " and " + b + "): use select");
        }
        if (a == FLOAT64 || b == FLOAT64) {
            return FLOAT64;
        }
        if (a == FLOAT32 || b == FLOAT32) {
            return (a == INT64 || b == INT64) ? FLOAT64 : FLOAT32;
        }
        return INT64;
    }

    @Override
    public String toString() {
        return displayName;
    }
}
