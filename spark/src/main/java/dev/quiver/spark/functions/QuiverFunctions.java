package dev.quiver.spark.functions;

import dev.quiver.rowfn.RowFn;
import java.util.List;

/**
 * A set of RowFns to call from Spark SQL. Implement it in a public class with a public no-argument
 * constructor that is on the classpath of the driver and of every executor; register it once per
 * session with {@link dev.quiver.spark.QuiverSpark#registerFunctions(org.apache.spark.sql.SparkSession, Class)}.
 * Each executor builds the functions itself (a RowFn's body is captured per JVM, never shipped),
 * so {@link #functions()} must return the same declarations everywhere.
 *
 * <pre>{@code
 * public final class GeoFunctions implements QuiverFunctions {
 *     public List<RowFn> functions() {
 *         return List.of(RowFn.declare("my_hypot").arg("x", RowType.FLOATING).arg("y", RowType.FLOATING)
 *                 .returns(RowType.SAME_AS_ARGS).body((x, y) -> x.mul(x).add(y.mul(y)).sqrt()));
 *     }
 * }
 * }</pre>
 */
public interface QuiverFunctions {
    /** The functions, each with a name unique among Spark's functions. Only numeric RowFns: string RowFns run on Quiver's CPU only and are not offered to Spark. */
    List<RowFn> functions();
}
