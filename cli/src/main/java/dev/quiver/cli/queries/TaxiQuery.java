package dev.quiver.cli.queries;

import static dev.quiver.cli.queries.RowLoops.FLOAT64;
import static dev.quiver.cli.queries.RowLoops.UTF8;

import java.util.List;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;

/**
 * A taxi-trip query with a RowFn: card trips of more than one passenger over 10, with the trip's
 * great-circle length from the command line's {@code haversine} RowFn (docs/rowfn.md), the total
 * and the total per passenger (NULL where the tip is unknown), and a CASE banding the tip. DuckDB
 * has no {@code haversine}: its SQL spells out the RowFn's formula, and the loop calls
 * {@code Math.sin}, {@code cos}, {@code asin} and {@code sqrt} as a person writes it.
 */
final class TaxiQuery {
    /** The mean Earth radius in km, as the command line's {@code haversine} declares it ({@code CliFunctions}). */
    static final double EARTH_RADIUS_KM = 6371.0088;

    static final String FILTER = "passenger_count > 1 AND payment_type = 'card' AND fare > 10";
    static final List<String> PROJECTIONS = List.of(
            "haversine(pickup_lat, pickup_lon, dropoff_lat, dropoff_lon) AS km",
            "fare + tip + tolls AS total",
            "(fare + tip + tolls) / passenger_count AS per_person",
            "CASE WHEN tip > 0.2 * fare THEN 'generous' WHEN tip > 0 THEN 'tipped' ELSE 'none' END AS tip_band");

    private static final String RADIANS = " * (pi() / 180)";
    static final String DUCKDB_SQL = "SELECT asin(sqrt("
            + "pow(sin((dropoff_lat" + RADIANS + " - pickup_lat" + RADIANS + ") * 0.5), 2)"
            + " + cos(pickup_lat" + RADIANS + ") * cos(dropoff_lat" + RADIANS + ")"
            + " * pow(sin((dropoff_lon - pickup_lon) * (pi() / 360)), 2))) * (2 * " + EARTH_RADIUS_KM + ") AS km, "
            + String.join(", ", PROJECTIONS.subList(1, PROJECTIONS.size()))
            + " FROM " + TaxiTable.NAME + " WHERE " + FILTER;

    private static final byte[] CARD = RowLoops.utf8("card");
    private static final byte[] GENEROUS = RowLoops.utf8("generous"),
            TIPPED = RowLoops.utf8("tipped"),
            NONE = RowLoops.utf8("none");

    private TaxiQuery() {}

    static BenchQuery query() {
        return new BenchQuery(
                "taxi",
                TableKind.TAXI,
                StringEncoding.PLAIN,
                "taxi: card trips over 10; haversine RowFn, totals, a CASE",
                FILTER,
                PROJECTIONS,
                DUCKDB_SQL,
                RowLoops.schema("km", FLOAT64, "total", FLOAT64, "per_person", FLOAT64, "tip_band", UTF8),
                TaxiQuery::loop);
    }

    static int loop(VectorSchemaRoot in, DictionaryProvider dictionaries, VectorSchemaRoot out) {
        RowLoops.requireNoNulls(
                in, "passenger_count", "fare", "tolls", "pickup_lat", "pickup_lon", "dropoff_lat", "dropoff_lon");
        IntVector passengers = (IntVector) in.getVector("passenger_count");
        Utf8Column payment = Utf8Column.of(in.getVector("payment_type"), dictionaries);
        Float8Vector fare = (Float8Vector) in.getVector("fare");
        Float8Vector tip = (Float8Vector) in.getVector("tip");
        Float8Vector tolls = (Float8Vector) in.getVector("tolls");
        Float8Vector lat1 = (Float8Vector) in.getVector("pickup_lat");
        Float8Vector lon1 = (Float8Vector) in.getVector("pickup_lon");
        Float8Vector lat2 = (Float8Vector) in.getVector("dropoff_lat");
        Float8Vector lon2 = (Float8Vector) in.getVector("dropoff_lon");
        Float8Vector km = (Float8Vector) out.getVector(0);
        Float8Vector total = (Float8Vector) out.getVector(1);
        Float8Vector perPerson = (Float8Vector) out.getVector(2);
        VarCharVector band = (VarCharVector) out.getVector(3);
        int n = in.getRowCount(), k = 0;
        for (int i = 0; i < n; i++) {
            int p = passengers.get(i);
            double f = fare.get(i);
            if (p > 1 && !payment.isNull(i) && payment.equalTo(i, CARD) && f > 10) {
                km.set(k, haversine(lat1.get(i), lon1.get(i), lat2.get(i), lon2.get(i)));
                if (tip.isNull(i)) { // an unknown tip: no total, and no band but 'none'
                    total.setNull(k);
                    perPerson.setNull(k);
                    band.setSafe(k, NONE);
                } else {
                    double t = tip.get(i), sum = f + t + tolls.get(i);
                    total.set(k, sum);
                    perPerson.set(k, sum / p);
                    band.setSafe(k, t > 0.2 * f ? GENEROUS : t > 0 ? TIPPED : NONE);
                }
                k++;
            }
        }
        return k;
    }

    /** The great-circle distance in km, the RowFn's formula with {@code Math}'s functions. */
    static double haversine(double lat1, double lon1, double lat2, double lon2) {
        double toRadians = Math.PI / 180;
        double p1 = lat1 * toRadians, p2 = lat2 * toRadians;
        double halfDLat = Math.sin((p2 - p1) * 0.5);
        double halfDLon = Math.sin((lon2 - lon1) * (toRadians * 0.5));
        double a = halfDLat * halfDLat + Math.cos(p1) * Math.cos(p2) * halfDLon * halfDLon;
        return Math.asin(Math.sqrt(a)) * (2 * EARTH_RADIUS_KM);
    }
}
