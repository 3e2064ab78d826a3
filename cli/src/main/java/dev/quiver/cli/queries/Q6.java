package dev.quiver.cli.queries;

import static dev.quiver.cli.queries.RowLoops.FLOAT64;

import java.util.List;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;

/**
 * TPC-H Q6's scalar part (forecasting revenue change): the lines of 1994 with a discount of 5 to
 * 7% and fewer than 24 units, and the revenue Q6 then sums. TPC-H writes the discount bounds as
 * {@code 0.06 - 0.01} and {@code 0.06 + 0.01}; here they are {@code 0.05} and {@code 0.07}, since
 * a literal with a point is Float64 in Quiver (where {@code 0.06 - 0.01} is 0.049999999999999996)
 * and DECIMAL in DuckDB (where it is 0.05).
 */
final class Q6 {
    static final String FILTER = "l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'"
            + " AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24";
    static final List<String> PROJECTIONS = List.of("l_extendedprice * l_discount AS revenue");

    private static final int FROM = RowLoops.day(1994, 1, 1), TO = RowLoops.day(1995, 1, 1);

    private Q6() {}

    static BenchQuery query() {
        return new BenchQuery(
                "q6",
                TableKind.LINEITEM,
                StringEncoding.PLAIN,
                "TPC-H Q6: a year, a discount band, small quantities; revenue",
                FILTER,
                PROJECTIONS,
                BenchQuery.select(PROJECTIONS, TableKind.LINEITEM, FILTER),
                RowLoops.schema("revenue", FLOAT64),
                Q6::loop);
    }

    static int loop(VectorSchemaRoot in, DictionaryProvider dictionaries, VectorSchemaRoot out) {
        RowLoops.requireNoNulls(in, "l_shipdate", "l_quantity", "l_extendedprice", "l_discount");
        DateDayVector shipdate = (DateDayVector) in.getVector("l_shipdate");
        Float8Vector quantity = (Float8Vector) in.getVector("l_quantity");
        Float8Vector price = (Float8Vector) in.getVector("l_extendedprice");
        Float8Vector discount = (Float8Vector) in.getVector("l_discount");
        Float8Vector revenue = (Float8Vector) out.getVector(0);
        int n = in.getRowCount(), k = 0;
        for (int i = 0; i < n; i++) {
            int ship = shipdate.get(i);
            double d = discount.get(i);
            if (ship >= FROM && ship < TO && d >= 0.05 && d <= 0.07 && quantity.get(i) < 24) {
                revenue.set(k++, price.get(i) * d);
            }
        }
        return k;
    }
}
