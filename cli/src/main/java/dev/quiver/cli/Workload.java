package dev.quiver.cli;

import dev.quiver.memory.OutputVectors;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.memory.VectorView;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * A built-in benchmark workload: an expression over float64 columns, with its two baselines
 * written by hand over the same Arrow memory: a per-row {@code Float8Vector.get/set} loop and a
 * hand-written Vector API loop. Both produce the same output vector Quiver does (same
 * allocator, validity = AND of the inputs'); the Vector API loop also allocates it as Quiver
 * does (uninitialized, see {@link OutputVectors}), so that comparison is kernel against kernel.
 *
 * @param ranges    the values of each column, uniform in {@code [min, max)}, in the order of {@code columns}
 * @param agreement how close a result must be to the row loop's: the same bits for the workloads
 *                  of {@code + - * sqrt}, which Java, the Vector API and OpenCL round alike;
 *                  within a few ulps for haversine, whose {@code sin}, {@code cos} and {@code asin}
 *                  are not {@link Math}'s on the other paths
 */
record Workload(
        String name,
        String expression,
        List<String> columns,
        List<Range> ranges,
        Agreement agreement,
        BiFunction<VectorSchemaRoot, BufferAllocator, Float8Vector> rowLoop,
        BiFunction<VectorSchemaRoot, BufferAllocator, Float8Vector> vectorLoop) {

    /** Generated values lie in {@code [min, max)}. */
    record Range(double min, double max) {
        @Override
        public String toString() {
            return "[" + fmt(min) + ", " + fmt(max) + ")";
        }

        private static String fmt(double v) {
            return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
        }
    }

    /** When a valid row's value is close enough to the row loop's. */
    interface Agreement {
        boolean agrees(double expected, double actual);

        /** For messages: what was required. */
        String requirement();
    }

    /** The same bits (any NaN equals any NaN). */
    static final Agreement SAME_BITS = new Agreement() {
        @Override
        public boolean agrees(double expected, double actual) {
            return Double.doubleToLongBits(expected) == Double.doubleToLongBits(actual);
        }

        @Override
        public String requirement() {
            return "the same bits";
        }
    };

    /**
     * A distance in km within 4 ulps, widened by the formula's condition near antipodal points:
     * {@code |actual - expected| <= 4 (ulp(d) + D ulp(1) / cos(d / D))}, {@code d} the expected
     * distance and {@code D} the Earth's diameter. An ulp's difference in {@code a} becomes
     * {@code 1 / cos(d / D)} times as much in {@code asin(sqrt(a))}, without bound near antipodes.
     * Over 16M random rows the Vector API and PoCL stay within 1.3 and 1.6 of these units of
     * {@link Math}, though up to 53 and 658 plain ulps of the result.
     */
    static final Agreement HAVERSINE_ULPS = new Agreement() {
        @Override
        public boolean agrees(double expected, double actual) {
            if (Double.isNaN(expected) || Double.isNaN(actual)) {
                return Double.isNaN(expected) && Double.isNaN(actual);
            }
            double unit = Math.ulp(expected)
                    + DIAMETER_KM * Math.ulp(1.0) / Math.max(Math.cos(expected / DIAMETER_KM), Double.MIN_NORMAL);
            return Math.abs(actual - expected) <= 4 * unit;
        }

        @Override
        public String requirement() {
            return "within 4 ulps, widened near antipodal points by 1/cos(d/D)";
        }
    };

    private static final VectorSpecies<Double> SPECIES = DoubleVector.SPECIES_PREFERRED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    static final Range ANY = new Range(-1e3, 1e3);
    static final Range LATITUDE = new Range(-90, 90);
    static final Range LONGITUDE = new Range(-180, 180);
    private static final double TO_RADIANS = Math.PI / 180;
    private static final double HALF_TO_RADIANS = TO_RADIANS * 0.5;
    private static final double DIAMETER_KM = 2 * CliFunctions.EARTH_RADIUS_KM;

    static final Workload FMA_LIKE = new Workload(
            "a*b+c",
            "a*b+c",
            List.of("a", "b", "c"),
            List.of(ANY, ANY, ANY),
            SAME_BITS,
            Workload::rowLoopAbc,
            Workload::vectorLoopAbc);
    static final Workload HYPOT = new Workload(
            "sqrt(x*x+y*y)",
            "sqrt(x*x+y*y)",
            List.of("x", "y"),
            List.of(ANY, ANY),
            SAME_BITS,
            Workload::rowLoopHypot,
            Workload::vectorLoopHypot);
    /** The guide's RowFn ({@link CliFunctions#haversine()}), checked with {@link #HAVERSINE_ULPS}. */
    static final Workload HAVERSINE = new Workload(
            "haversine",
            "haversine(lat1, lon1, lat2, lon2)",
            List.of("lat1", "lon1", "lat2", "lon2"),
            List.of(LATITUDE, LONGITUDE, LATITUDE, LONGITUDE),
            HAVERSINE_ULPS,
            Workload::rowLoopHaversine,
            Workload::vectorLoopHaversine);

    static final List<Workload> ALL = List.of(FMA_LIKE, HYPOT, HAVERSINE);

    Workload {
        columns = List.copyOf(columns);
        ranges = List.copyOf(ranges);
        if (columns.size() != ranges.size()) {
            throw new IllegalArgumentException(columns.size() + " columns but " + ranges.size() + " ranges");
        }
    }

    /** The names of the built-in workloads, comma-separated. */
    static String names() {
        return String.join(", ", ALL.stream().map(Workload::name).toList());
    }

    /** Whether {@code actual} is close enough to the row loop's {@code expected} (both non-null). */
    boolean agrees(double expected, double actual) {
        return agreement.agrees(expected, actual);
    }

    private static Float8Vector vec(VectorSchemaRoot b, String name) {
        return (Float8Vector) b.getVector(name);
    }

    static Float8Vector rowLoopAbc(VectorSchemaRoot batch, BufferAllocator allocator) {
        Float8Vector a = vec(batch, "a"), b = vec(batch, "b"), c = vec(batch, "c");
        int n = batch.getRowCount();
        Float8Vector out = new Float8Vector("a*b+c", allocator);
        out.allocateNew(n);
        for (int i = 0; i < n; i++) {
            if (a.isNull(i) || b.isNull(i) || c.isNull(i)) {
                out.setNull(i);
            } else {
                out.set(i, a.get(i) * b.get(i) + c.get(i));
            }
        }
        out.setValueCount(n);
        return out;
    }

    static Float8Vector rowLoopHypot(VectorSchemaRoot batch, BufferAllocator allocator) {
        Float8Vector x = vec(batch, "x"), y = vec(batch, "y");
        int n = batch.getRowCount();
        Float8Vector out = new Float8Vector("sqrt(x*x+y*y)", allocator);
        out.allocateNew(n);
        for (int i = 0; i < n; i++) {
            if (x.isNull(i) || y.isNull(i)) {
                out.setNull(i);
            } else {
                double xv = x.get(i), yv = y.get(i);
                out.set(i, Math.sqrt(xv * xv + yv * yv));
            }
        }
        out.setValueCount(n);
        return out;
    }

    /** Output vector plus views of inputs and output, validity already computed. */
    private static Float8Vector prepare(
            VectorSchemaRoot batch,
            BufferAllocator allocator,
            String name,
            List<Float8Vector> inputs,
            List<VectorView> views) {
        int n = batch.getRowCount();
        // The same output allocation Quiver uses, so the two loops are compared on equal terms.
        Float8Vector out = (Float8Vector) OutputVectors.uninitialized(
                new Field(name, FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
                n,
                allocator);
        try {
            List<MemorySegment> validity = new ArrayList<>();
            for (Float8Vector in : inputs) {
                VectorView v = VectorView.of(in);
                views.add(v);
                if (in.getNullCount() > 0) {
                    validity.add(v.validity());
                }
            }
            VectorView o = VectorView.of(out);
            views.add(o);
            ValidityBitmaps.and(o.validity(), validity, n);
            return out;
        } catch (RuntimeException | Error e) {
            views.forEach(VectorView::close);
            out.close();
            throw e;
        }
    }

    static Float8Vector vectorLoopAbc(VectorSchemaRoot batch, BufferAllocator allocator) {
        List<VectorView> views = new ArrayList<>();
        Float8Vector out =
                prepare(batch, allocator, "a*b+c", List.of(vec(batch, "a"), vec(batch, "b"), vec(batch, "c")), views);
        try {
            MemorySegment a = views.get(0).data(),
                    b = views.get(1).data(),
                    c = views.get(2).data(),
                    o = views.get(3).data();
            int n = batch.getRowCount();
            int bound = SPECIES.loopBound(n);
            int i = 0;
            for (; i < bound; i += SPECIES.length()) {
                long off = (long) i * 8;
                DoubleVector.fromMemorySegment(SPECIES, a, off, LE)
                        .mul(DoubleVector.fromMemorySegment(SPECIES, b, off, LE))
                        .add(DoubleVector.fromMemorySegment(SPECIES, c, off, LE))
                        .intoMemorySegment(o, off, LE);
            }
            for (; i < n; i++) {
                long off = (long) i * 8;
                o.set(F64, off, a.get(F64, off) * b.get(F64, off) + c.get(F64, off));
            }
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        } finally {
            views.forEach(VectorView::close);
        }
        return out;
    }

    static Float8Vector vectorLoopHypot(VectorSchemaRoot batch, BufferAllocator allocator) {
        List<VectorView> views = new ArrayList<>();
        Float8Vector out = prepare(batch, allocator, "sqrt(x*x+y*y)", List.of(vec(batch, "x"), vec(batch, "y")), views);
        try {
            MemorySegment x = views.get(0).data(),
                    y = views.get(1).data(),
                    o = views.get(2).data();
            int n = batch.getRowCount();
            int bound = SPECIES.loopBound(n);
            int i = 0;
            for (; i < bound; i += SPECIES.length()) {
                long off = (long) i * 8;
                DoubleVector xv = DoubleVector.fromMemorySegment(SPECIES, x, off, LE);
                DoubleVector yv = DoubleVector.fromMemorySegment(SPECIES, y, off, LE);
                xv.mul(xv).add(yv.mul(yv)).sqrt().intoMemorySegment(o, off, LE);
            }
            for (; i < n; i++) {
                long off = (long) i * 8;
                double xv = x.get(F64, off), yv = y.get(F64, off);
                o.set(F64, off, Math.sqrt(xv * xv + yv * yv));
            }
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        } finally {
            views.forEach(VectorView::close);
        }
        return out;
    }

    /** The guide's formula on one row, with {@link Math}, in the order of operations of its declaration. */
    static double haversineKm(double lat1, double lon1, double lat2, double lon2) {
        double p1 = lat1 * TO_RADIANS;
        double p2 = lat2 * TO_RADIANS;
        double halfDLat = Math.sin((p2 - p1) * 0.5);
        double halfDLon = Math.sin((lon2 - lon1) * HALF_TO_RADIANS);
        double a = halfDLat * halfDLat + Math.cos(p1) * Math.cos(p2) * halfDLon * halfDLon;
        return Math.asin(Math.sqrt(a)) * DIAMETER_KM;
    }

    static Float8Vector rowLoopHaversine(VectorSchemaRoot batch, BufferAllocator allocator) {
        Float8Vector lat1 = vec(batch, "lat1"),
                lon1 = vec(batch, "lon1"),
                lat2 = vec(batch, "lat2"),
                lon2 = vec(batch, "lon2");
        int n = batch.getRowCount();
        Float8Vector out = new Float8Vector("haversine", allocator);
        out.allocateNew(n);
        for (int i = 0; i < n; i++) {
            if (lat1.isNull(i) || lon1.isNull(i) || lat2.isNull(i) || lon2.isNull(i)) {
                out.setNull(i);
            } else {
                out.set(i, haversineKm(lat1.get(i), lon1.get(i), lat2.get(i), lon2.get(i)));
            }
        }
        out.setValueCount(n);
        return out;
    }

    /**
     * The Vector API loop a person would write: {@code sin(dLat/2)}, {@code sin(dLon/2)},
     * {@code cos(lat1)} and {@code cos(lat2)} once per row, lanewise SIN/COS/ASIN/SQRT of
     * {@link DoubleVector#SPECIES_PREFERRED}, the last partial step masked.
     */
    static Float8Vector vectorLoopHaversine(VectorSchemaRoot batch, BufferAllocator allocator) {
        List<VectorView> views = new ArrayList<>();
        Float8Vector out = prepare(
                batch,
                allocator,
                "haversine",
                List.of(vec(batch, "lat1"), vec(batch, "lon1"), vec(batch, "lat2"), vec(batch, "lon2")),
                views);
        try {
            MemorySegment lat1 = views.get(0).data(),
                    lon1 = views.get(1).data(),
                    lat2 = views.get(2).data(),
                    lon2 = views.get(3).data(),
                    o = views.get(4).data();
            int n = batch.getRowCount();
            int bound = SPECIES.loopBound(n);
            int i = 0;
            for (; i < bound; i += SPECIES.length()) {
                long off = (long) i * 8;
                DoubleVector p1 =
                        DoubleVector.fromMemorySegment(SPECIES, lat1, off, LE).mul(TO_RADIANS);
                DoubleVector p2 =
                        DoubleVector.fromMemorySegment(SPECIES, lat2, off, LE).mul(TO_RADIANS);
                DoubleVector dLon = DoubleVector.fromMemorySegment(SPECIES, lon2, off, LE)
                        .sub(DoubleVector.fromMemorySegment(SPECIES, lon1, off, LE));
                haversine(p1, p2, dLon).intoMemorySegment(o, off, LE);
            }
            if (i < n) {
                long off = (long) i * 8;
                VectorMask<Double> m = SPECIES.indexInRange(i, n);
                DoubleVector p1 = DoubleVector.fromMemorySegment(SPECIES, lat1, off, LE, m)
                        .mul(TO_RADIANS);
                DoubleVector p2 = DoubleVector.fromMemorySegment(SPECIES, lat2, off, LE, m)
                        .mul(TO_RADIANS);
                DoubleVector dLon = DoubleVector.fromMemorySegment(SPECIES, lon2, off, LE, m)
                        .sub(DoubleVector.fromMemorySegment(SPECIES, lon1, off, LE, m));
                haversine(p1, p2, dLon).intoMemorySegment(o, off, LE, m);
            }
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        } finally {
            views.forEach(VectorView::close);
        }
        return out;
    }

    /** The distance in km, from the latitudes in radians and the difference of the longitudes in degrees. */
    private static DoubleVector haversine(DoubleVector p1, DoubleVector p2, DoubleVector dLon) {
        DoubleVector halfDLat = p2.sub(p1).mul(0.5).lanewise(VectorOperators.SIN);
        DoubleVector halfDLon = dLon.mul(HALF_TO_RADIANS).lanewise(VectorOperators.SIN);
        DoubleVector a = halfDLat.mul(halfDLat)
                .add(p1.lanewise(VectorOperators.COS)
                        .mul(p2.lanewise(VectorOperators.COS))
                        .mul(halfDLon)
                        .mul(halfDLon));
        return a.sqrt().lanewise(VectorOperators.ASIN).mul(DIAMETER_KM);
    }
}
