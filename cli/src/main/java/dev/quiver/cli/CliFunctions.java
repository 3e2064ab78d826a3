package dev.quiver.cli;

import dev.quiver.functions.FunctionRegistry;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.RowType;
import dev.quiver.rowfn.Val;

/**
 * The functions every command's Quiver can call: the built-in ones plus the RowFns of the guide
 * (docs/rowfn.md) that the command line ships, so {@code quiver bench --expr}, {@code explain}
 * and {@code eval} can call {@code haversine(...)} as the {@code haversine} workload does.
 *
 * <p>Public for the bench module, whose {@code HaversineBenchmark} measures this RowFn: its one
 * definition is here.
 */
public final class CliFunctions {
    /** Mean Earth radius in kilometres (IUGG), as the guide's declaration. */
    public static final double EARTH_RADIUS_KM = 6371.0088;

    private CliFunctions() {}

    /** A new registry: the built-in functions and {@link #haversine()}. Each Quiver gets its own (RowFn stats are per function). */
    static FunctionRegistry registry() {
        FunctionRegistry r = FunctionRegistry.withDefaults();
        r.register(haversine());
        return r;
    }

    /** Great-circle distance in km between two points given in degrees: the guide's declaration, as written there. */
    public static RowFn haversine() {
        return RowFn.declare("haversine")
                .arg("lat1", RowType.FLOAT64)
                .arg("lon1", RowType.FLOAT64)
                .arg("lat2", RowType.FLOAT64)
                .arg("lon2", RowType.FLOAT64)
                .returns(RowType.FLOAT64)
                .description("great-circle distance in km between (lat1, lon1) and (lat2, lon2), in degrees")
                .body((lat1, lon1, lat2, lon2) -> {
                    double toRadians = Math.PI / 180;
                    Val p1 = lat1.mul(toRadians);
                    Val p2 = lat2.mul(toRadians);
                    Val halfDLat = p2.sub(p1).mul(0.5).sin();
                    Val halfDLon = lon2.sub(lon1).mul(toRadians * 0.5).sin();
                    Val a = halfDLat.mul(halfDLat)
                            .add(p1.cos().mul(p2.cos()).mul(halfDLon).mul(halfDLon));
                    return a.sqrt().asin().mul(2 * EARTH_RADIUS_KM);
                });
    }
}
