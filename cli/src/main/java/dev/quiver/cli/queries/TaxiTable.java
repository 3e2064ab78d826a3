package dev.quiver.cli.queries;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A taxi-trip-like {@code taxi} table, seeded: {@code passenger_count} Int32 in [0, 6] (mostly 1),
 * {@code payment_type} Utf8 (card 65%, cash 32%, no charge, dispute), {@code fare} Float64 from
 * 2.50 plus about 2 per km, {@code tip} Float64 (card trips up to 30% of the fare, others 0;
 * <b>2% null</b>, an unknown tip), {@code tolls} Float64 (6.94 on 5% of trips, else 0), and the
 * pickup and dropoff points {@code pickup_lat}, {@code pickup_lon}, {@code dropoff_lat},
 * {@code dropoff_lon} (Float64 degrees in a 33 km box around Manhattan; the dropoff a few km from
 * the pickup).
 */
public final class TaxiTable {

    public static final String NAME = "taxi";

    private static final CategoricalColumn PAYMENT =
            new CategoricalColumn("payment_type", 1, "card", "cash", "no charge", "dispute");

    private TaxiTable() {}

    public static Schema schema(StringEncoding encoding) {
        ArrowType f64 = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
        return new Schema(List.of(
                Field.nullable("passenger_count", new ArrowType.Int(32, true)),
                PAYMENT.field(encoding),
                Field.nullable("fare", f64),
                Field.nullable("tip", f64),
                Field.nullable("tolls", f64),
                Field.nullable("pickup_lat", f64),
                Field.nullable("pickup_lon", f64),
                Field.nullable("dropoff_lat", f64),
                Field.nullable("dropoff_lon", f64)));
    }

    /** {@code rows} rows from {@code seed} in batches of {@code batchRows}; the caller closes the table. */
    public static BenchTable generate(
            BufferAllocator allocator, long rows, int batchRows, long seed, StringEncoding encoding) {
        Schema schema = schema(encoding);
        DictionaryProvider.MapDictionaryProvider dictionaries = new DictionaryProvider.MapDictionaryProvider();
        List<VectorSchemaRoot> batches = new ArrayList<>();
        try {
            if (encoding == StringEncoding.DICTIONARY) {
                dictionaries.put(PAYMENT.dictionary(allocator));
            }
            SplittableRandom random = new SplittableRandom(seed);
            for (long start = 0; start < rows; start += batchRows) {
                int n = (int) Math.min(batchRows, rows - start);
                VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
                batches.add(root);
                fill(root, n, random);
            }
            return new BenchTable(NAME, encoding, schema, batches, dictionaries);
        } catch (RuntimeException | Error e) {
            new BenchTable(NAME, encoding, schema, batches, dictionaries).close();
            throw e;
        }
    }

    private static void fill(VectorSchemaRoot root, int n, SplittableRandom random) {
        root.getFieldVectors().forEach(v -> {
            v.setInitialCapacity(n);
            v.allocateNew();
        });
        IntVector passengers = (IntVector) root.getVector("passenger_count");
        FieldVector payment = root.getVector(PAYMENT.name());
        Float8Vector fare = (Float8Vector) root.getVector("fare");
        Float8Vector tip = (Float8Vector) root.getVector("tip");
        Float8Vector tolls = (Float8Vector) root.getVector("tolls");
        Float8Vector pickupLat = (Float8Vector) root.getVector("pickup_lat");
        Float8Vector pickupLon = (Float8Vector) root.getVector("pickup_lon");
        Float8Vector dropoffLat = (Float8Vector) root.getVector("dropoff_lat");
        Float8Vector dropoffLon = (Float8Vector) root.getVector("dropoff_lon");
        for (int i = 0; i < n; i++) {
            passengers.set(i, passengers(random.nextInt(100)));
            int pay = random.nextInt(100);
            int payIndex = pay < 65 ? 0 : pay < 97 ? 1 : pay < 99 ? 2 : 3;
            PAYMENT.write(payment, i, payIndex);
            double lat = random.nextDouble(40.60, 40.90), lon = random.nextDouble(-74.05, -73.75);
            double dLat = random.nextGaussian() * 0.02, dLon = random.nextGaussian() * 0.025;
            pickupLat.set(i, lat);
            pickupLon.set(i, lon);
            dropoffLat.set(i, lat + dLat);
            dropoffLon.set(i, lon + dLon);
            double km = Math.hypot(dLat * 111.0, dLon * 84.0);
            double f = Math.round((2.5 + 2.0 * km * random.nextDouble(0.8, 1.4)) * 100) / 100.0;
            fare.set(i, f);
            tip.set(i, payIndex == 0 ? Math.round(f * random.nextDouble(0, 0.3) * 100) / 100.0 : 0.0);
            if (random.nextInt(50) == 0) {
                tip.setNull(i);
            }
            tolls.set(i, random.nextInt(20) == 0 ? 6.94 : 0.0);
        }
        root.setRowCount(n);
    }

    /** Passengers for a percentile: 1 for 70% of trips, 2 for 14%, then 5, 3, 6, 0 and 4. */
    private static int passengers(int percentile) {
        if (percentile < 70) {
            return 1;
        }
        if (percentile < 84) {
            return 2;
        }
        if (percentile < 89) {
            return 5;
        }
        if (percentile < 93) {
            return 3;
        }
        if (percentile < 96) {
            return 6;
        }
        return percentile < 98 ? 0 : 4;
    }
}
