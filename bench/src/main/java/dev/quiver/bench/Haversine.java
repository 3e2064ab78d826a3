package dev.quiver.bench;

import dev.quiver.cli.CliFunctions;
import dev.quiver.memory.OutputVectors;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.memory.VectorView;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The great-circle distance workload of {@link HaversineBenchmark}: its data, and the two
 * hand-written implementations Quiver's fused loop of the guide's RowFn (docs/rowfn.md, the one
 * the command line registers: {@link CliFunctions#haversine()}) is measured against, all
 * computing the same formula over the same Arrow batches:
 * <ul>
 * <li>{@link #vectorApi}: the loop a person would write with the Vector API, over
 *     {@link MemorySegment} views of the Arrow buffers, its output allocated as Quiver allocates
 *     its own (uninitialized, {@link OutputVectors}; validity the AND of the inputs');</li>
 * <li>{@link #boxedUdf}: a row-at-a-time UDF, one {@code Function<Object[], Object>} call per
 *     row with the four arguments boxed and the result a boxed {@link Double}.</li>
 * </ul>
 */
public final class Haversine {
    /** The expression the benchmark compiles. */
    public static final String SQL = "haversine(lat1, lon1, lat2, lon2)";
    /** The columns, all Float64. */
    public static final List<String> COLUMNS = List.of("lat1", "lon1", "lat2", "lon2");

    private static final VectorSpecies<Double> SPECIES = DoubleVector.SPECIES_PREFERRED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final double TO_RADIANS = Math.PI / 180;
    private static final double HALF_TO_RADIANS = TO_RADIANS * 0.5;
    private static final double DIAMETER_KM = 2 * CliFunctions.EARTH_RADIUS_KM;
    private static final Field RESULT = new Field(
            "haversine", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null);

    private Haversine() {}

    /** The schema: {@link #COLUMNS}, nullable Float64. */
    public static Schema schema() {
        return UniformBatches.float64Schema(COLUMNS);
    }

    /**
     * {@code rows} rows in batches of {@code batchRows} (the last shorter when they do not
     * divide), from {@code seed}: latitudes uniform in [-90, 90), longitudes in [-180, 180), no
     * nulls (the columns are nullable, every row is valid). The caller closes every batch.
     */
    public static List<VectorSchemaRoot> generate(BufferAllocator allocator, long seed, long rows, int batchRows) {
        if (rows < 1 || batchRows < 1) {
            throw new IllegalArgumentException("rows " + rows + ", batch rows " + batchRows);
        }
        SplittableRandom random = new SplittableRandom(seed);
        Schema schema = schema();
        List<VectorSchemaRoot> batches = new ArrayList<>();
        try {
            for (long start = 0; start < rows; start += batchRows) {
                int n = (int) Math.min(batchRows, rows - start);
                VectorSchemaRoot batch = VectorSchemaRoot.create(schema, allocator);
                batches.add(batch);
                for (FieldVector v : batch.getFieldVectors()) {
                    Float8Vector f = (Float8Vector) v;
                    double bound = f.getName().startsWith("lat") ? 90 : 180;
                    f.allocateNew(n);
                    for (int i = 0; i < n; i++) {
                        f.set(i, random.nextDouble(-bound, bound));
                    }
                    f.setValueCount(n);
                }
                batch.setRowCount(n);
            }
            return batches;
        } catch (RuntimeException | Error e) {
            batches.forEach(VectorSchemaRoot::close);
            throw e;
        }
    }

    private static Float8Vector column(VectorSchemaRoot batch, int i) {
        return (Float8Vector) batch.getVector(COLUMNS.get(i));
    }

    /**
     * The hand-written Vector API loop: the result vector allocated as Quiver allocates its own
     * (uninitialized, then every value and validity bit written), validity the AND of the inputs
     * that have nulls, then one pass over {@link MemorySegment} views of the Arrow buffers with
     * {@link DoubleVector#SPECIES_PREFERRED}: each of {@code sin(dLat/2)}, {@code sin(dLon/2)},
     * {@code cos(lat1)}, {@code cos(lat2)} computed once per row, the last partial step masked.
     * The caller closes the result.
     */
    public static Float8Vector vectorApi(VectorSchemaRoot batch, BufferAllocator allocator) {
        int n = batch.getRowCount();
        Float8Vector out = (Float8Vector) OutputVectors.uninitialized(RESULT, n, allocator);
        List<VectorView> views = new ArrayList<>(5);
        try {
            List<MemorySegment> validity = new ArrayList<>(4);
            for (int c = 0; c < 4; c++) {
                Float8Vector in = column(batch, c);
                VectorView v = VectorView.of(in);
                views.add(v);
                if (in.getNullCount() > 0) {
                    validity.add(v.validity());
                }
            }
            VectorView o = VectorView.of(out);
            views.add(o);
            ValidityBitmaps.and(o.validity(), validity, n);
            kernel(
                    views.get(0).data(),
                    views.get(1).data(),
                    views.get(2).data(),
                    views.get(3).data(),
                    o.data(),
                    n);
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        } finally {
            views.forEach(VectorView::close);
        }
    }

    /** {@code out[i] = haversine(lat1[i], lon1[i], lat2[i], lon2[i])} for {@code n} rows of little-endian doubles. */
    static void kernel(
            MemorySegment lat1, MemorySegment lon1, MemorySegment lat2, MemorySegment lon2, MemorySegment out, int n) {
        int step = SPECIES.length();
        int bound = SPECIES.loopBound(n);
        int i = 0;
        for (; i < bound; i += step) {
            long off = (long) i * Double.BYTES;
            DoubleVector p1 =
                    DoubleVector.fromMemorySegment(SPECIES, lat1, off, LE).mul(TO_RADIANS);
            DoubleVector p2 =
                    DoubleVector.fromMemorySegment(SPECIES, lat2, off, LE).mul(TO_RADIANS);
            DoubleVector dLon = DoubleVector.fromMemorySegment(SPECIES, lon2, off, LE)
                    .sub(DoubleVector.fromMemorySegment(SPECIES, lon1, off, LE));
            distance(p1, p2, dLon).intoMemorySegment(out, off, LE);
        }
        if (i < n) {
            VectorMask<Double> m = SPECIES.indexInRange(i, n);
            long off = (long) i * Double.BYTES;
            DoubleVector p1 =
                    DoubleVector.fromMemorySegment(SPECIES, lat1, off, LE, m).mul(TO_RADIANS);
            DoubleVector p2 =
                    DoubleVector.fromMemorySegment(SPECIES, lat2, off, LE, m).mul(TO_RADIANS);
            DoubleVector dLon = DoubleVector.fromMemorySegment(SPECIES, lon2, off, LE, m)
                    .sub(DoubleVector.fromMemorySegment(SPECIES, lon1, off, LE, m));
            distance(p1, p2, dLon).intoMemorySegment(out, off, LE, m);
        }
    }

    /** The distance in km, from the latitudes in radians and the difference of the longitudes in degrees. */
    private static DoubleVector distance(DoubleVector p1, DoubleVector p2, DoubleVector dLon) {
        DoubleVector halfDLat = p2.sub(p1).mul(0.5).lanewise(VectorOperators.SIN);
        DoubleVector halfDLon = dLon.mul(HALF_TO_RADIANS).lanewise(VectorOperators.SIN);
        DoubleVector a = halfDLat.mul(halfDLat)
                .add(p1.lanewise(VectorOperators.COS)
                        .mul(p2.lanewise(VectorOperators.COS))
                        .mul(halfDLon)
                        .mul(halfDLon));
        return a.sqrt().lanewise(VectorOperators.ASIN).mul(DIAMETER_KM);
    }

    /**
     * The boxed UDF: the same formula with {@link Math}, taking its four arguments as boxed
     * {@link Double}s and returning a boxed {@link Double}. A named class, so that
     * {@link HaversineBenchmark} can keep the JIT from inlining it into the row loop (as an
     * engine whose one call site serves every UDF would be).
     */
    public static final class BoxedUdf implements Function<Object[], Object> {
        @Override
        public Object apply(Object[] args) {
            double lat1 = (Double) args[0], lon1 = (Double) args[1], lat2 = (Double) args[2], lon2 = (Double) args[3];
            return scalar(lat1, lon1, lat2, lon2);
        }
    }

    /** The formula on one row with {@link Math}, in the guide's order of operations. */
    public static double scalar(double lat1, double lon1, double lat2, double lon2) {
        double p1 = lat1 * TO_RADIANS;
        double p2 = lat2 * TO_RADIANS;
        double halfDLat = Math.sin((p2 - p1) * 0.5);
        double halfDLon = Math.sin((lon2 - lon1) * HALF_TO_RADIANS);
        double a = halfDLat * halfDLat + Math.cos(p1) * Math.cos(p2) * halfDLon * halfDLon;
        return Math.asin(Math.sqrt(a)) * DIAMETER_KM;
    }

    /**
     * The row-at-a-time UDF run: per row, the four arguments read boxed ({@code getObject}), a
     * new {@code Object[]} of them, one {@code udf.apply} call, its boxed result written into a
     * {@link Float8Vector} ({@code allocateNew}, as a row-at-a-time writer does). A row with a
     * null argument is null without a call. The caller closes the result.
     */
    public static Float8Vector boxedUdf(
            VectorSchemaRoot batch, BufferAllocator allocator, Function<Object[], Object> udf) {
        int n = batch.getRowCount();
        Float8Vector lat1 = column(batch, 0), lon1 = column(batch, 1), lat2 = column(batch, 2), lon2 = column(batch, 3);
        Float8Vector out = new Float8Vector(RESULT, allocator);
        try {
            out.allocateNew(n);
            for (int i = 0; i < n; i++) {
                Double a = lat1.getObject(i), b = lon1.getObject(i), c = lat2.getObject(i), d = lon2.getObject(i);
                if (a == null || b == null || c == null || d == null) {
                    out.setNull(i);
                    continue;
                }
                Object r = udf.apply(new Object[] {a, b, c, d});
                if (r == null) {
                    out.setNull(i);
                } else {
                    out.set(i, (Double) r);
                }
            }
            out.setValueCount(n);
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }

    /**
     * The largest difference between two results over their valid rows, in {@link #errorUnits}
     * ({@link Double#POSITIVE_INFINITY} when their lengths or nulls differ, or a NaN meets a number).
     */
    public static double maxError(FieldVector expected, FieldVector actual) {
        if (!(expected instanceof Float8Vector e)
                || !(actual instanceof Float8Vector a)
                || e.getValueCount() != a.getValueCount()) {
            return Double.POSITIVE_INFINITY;
        }
        double max = 0;
        for (int i = 0; i < e.getValueCount(); i++) {
            if (e.isNull(i) != a.isNull(i)) {
                return Double.POSITIVE_INFINITY;
            }
            if (!e.isNull(i)) {
                max = Math.max(max, errorUnits(e.get(i), a.get(i)));
            }
        }
        return max;
    }

    /**
     * How far {@code actual} is from {@code expected}, a distance in km, in ulps of the distance
     * widened by the formula's condition: {@code |actual - expected| / (ulp(d) + D ulp(1) / cos(d / D))}
     * where {@code d} is {@code expected} and {@code D} the Earth's diameter. Implementations whose
     * {@code sin}, {@code cos} and {@code asin} differ by an ulp differ by about that much in
     * {@code a}; {@code asin(sqrt(a))} magnifies that by {@code 1 / cos(d / D)}, without bound near
     * antipodal points, so plain ulps of the result would not tell a correct implementation from a
     * wrong one there. 0 for equal values and for two NaNs; infinite for a NaN and a number.
     */
    public static double errorUnits(double expected, double actual) {
        if (Double.isNaN(expected) || Double.isNaN(actual)) {
            return Double.isNaN(expected) && Double.isNaN(actual) ? 0 : Double.POSITIVE_INFINITY;
        }
        if (expected == actual) {
            return 0;
        }
        double unit = Math.ulp(expected)
                + DIAMETER_KM * Math.ulp(1.0) / Math.max(Math.cos(expected / DIAMETER_KM), Double.MIN_NORMAL);
        return Math.abs(actual - expected) / unit;
    }
}
