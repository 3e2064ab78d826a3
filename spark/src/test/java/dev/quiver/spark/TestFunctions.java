package dev.quiver.spark;

import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.RowType;
import dev.quiver.spark.functions.QuiverFunctions;
import java.util.List;

/** RowFns the Spark tests call from SQL. */
public final class TestFunctions implements QuiverFunctions {
    @Override
    public List<RowFn> functions() {
        return List.of(
                RowFn.declare("my_hypot")
                        .arg("x", RowType.FLOATING)
                        .arg("y", RowType.FLOATING)
                        .returns(RowType.SAME_AS_ARGS)
                        .body((x, y) -> x.mul(x).add(y.mul(y)).sqrt()),
                // A transcendental row function: the great-circle distance in km between two points in degrees.
                RowFn.declare("my_haversine")
                        .arg("lat1", RowType.FLOAT64)
                        .arg("lon1", RowType.FLOAT64)
                        .arg("lat2", RowType.FLOAT64)
                        .arg("lon2", RowType.FLOAT64)
                        .returns(RowType.FLOAT64)
                        .body((lat1, lon1, lat2, lon2) -> {
                            var p1 = lat1.mul(Math.PI / 180);
                            var p2 = lat2.mul(Math.PI / 180);
                            var dp = lat2.sub(lat1).mul(Math.PI / 360).sin();
                            var dl = lon2.sub(lon1).mul(Math.PI / 360).sin();
                            var a = dp.mul(dp)
                                    .add(p1.cos().mul(p2.cos()).mul(dl).mul(dl));
                            return a.sqrt().asin().mul(2 * 6371.0);
                        }));
    }

    /** A provider whose function would replace Quiver's own {@code sqrt}: refused. */
    public static final class Clashing implements QuiverFunctions {
        @Override
        public List<RowFn> functions() {
            return List.of(RowFn.declare("sqrt")
                    .arg("x", RowType.FLOAT64)
                    .returns(RowType.FLOAT64)
                    .body(x -> x.mul(x)));
        }
    }
}
