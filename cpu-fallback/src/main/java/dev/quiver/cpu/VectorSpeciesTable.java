package dev.quiver.cpu;

import java.nio.ByteOrder;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Every vector species a fused loop may use, as {@code static final} fields: generated code
 * reads them with {@code getstatic}, which the JIT treats as constants, so every Vector API
 * call in the loop is intrinsified. Field names are {@code <TYPE>_<BITS>}.
 */
public final class VectorSpeciesTable {
    private VectorSpeciesTable() {}

    public static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    public static final VectorSpecies<Integer> INT32_64 = IntVector.SPECIES_64;
    public static final VectorSpecies<Integer> INT32_128 = IntVector.SPECIES_128;
    public static final VectorSpecies<Integer> INT32_256 = IntVector.SPECIES_256;
    public static final VectorSpecies<Integer> INT32_512 = IntVector.SPECIES_512;
    public static final VectorSpecies<Long> INT64_64 = LongVector.SPECIES_64;
    public static final VectorSpecies<Long> INT64_128 = LongVector.SPECIES_128;
    public static final VectorSpecies<Long> INT64_256 = LongVector.SPECIES_256;
    public static final VectorSpecies<Long> INT64_512 = LongVector.SPECIES_512;
    public static final VectorSpecies<Float> FLOAT32_64 = FloatVector.SPECIES_64;
    public static final VectorSpecies<Float> FLOAT32_128 = FloatVector.SPECIES_128;
    public static final VectorSpecies<Float> FLOAT32_256 = FloatVector.SPECIES_256;
    public static final VectorSpecies<Float> FLOAT32_512 = FloatVector.SPECIES_512;
    public static final VectorSpecies<Double> FLOAT64_64 = DoubleVector.SPECIES_64;
    public static final VectorSpecies<Double> FLOAT64_128 = DoubleVector.SPECIES_128;
    public static final VectorSpecies<Double> FLOAT64_256 = DoubleVector.SPECIES_256;
    public static final VectorSpecies<Double> FLOAT64_512 = DoubleVector.SPECIES_512;

    /** Lanes of the widest vector the hardware prefers for elements of {@code bits} bits. */
    public static int preferredLanes(int bits) {
        return (bits == 64 ? DoubleVector.SPECIES_PREFERRED : FloatVector.SPECIES_PREFERRED).length();
    }
}
