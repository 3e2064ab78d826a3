package dev.quiver.cli.queries;

import static dev.quiver.cli.queries.RowLoops.FLOAT64;

import java.util.List;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;

/**
 * TPC-H Q14's scalar part (promotion effect): the lines of September 1995, with the revenue of
 * promoted parts and all revenue, which Q14 then sums into a ratio. TPC-H writes the end as
 * {@code date '1995-09-01' + interval '1' month}; here it is {@code DATE '1995-10-01'}.
 */
final class Q14 {
    static final String FILTER = "l_shipdate >= DATE '1995-09-01' AND l_shipdate < DATE '1995-10-01'";
    static final List<String> PROJECTIONS = List.of(
            "CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice * (1 - l_discount) ELSE 0 END AS promo_revenue",
            "l_extendedprice * (1 - l_discount) AS revenue");

    private static final byte[] PROMO = RowLoops.utf8("PROMO");
    private static final int FROM = RowLoops.day(1995, 9, 1), TO = RowLoops.day(1995, 10, 1);

    private Q14() {}

    static BenchQuery query() {
        return new BenchQuery(
                "q14",
                TableKind.LINEITEM,
                StringEncoding.PLAIN,
                "TPC-H Q14: a month; promotional and total revenue",
                FILTER,
                PROJECTIONS,
                BenchQuery.select(PROJECTIONS, TableKind.LINEITEM, FILTER),
                RowLoops.schema("promo_revenue", FLOAT64, "revenue", FLOAT64),
                Q14::loop);
    }

    static int loop(VectorSchemaRoot in, DictionaryProvider dictionaries, VectorSchemaRoot out) {
        RowLoops.requireNoNulls(in, "l_shipdate", "l_extendedprice", "l_discount", "p_type");
        DateDayVector shipdate = (DateDayVector) in.getVector("l_shipdate");
        Float8Vector price = (Float8Vector) in.getVector("l_extendedprice");
        Float8Vector discount = (Float8Vector) in.getVector("l_discount");
        Utf8Column type = Utf8Column.of(in.getVector("p_type"), dictionaries);
        Float8Vector promo = (Float8Vector) out.getVector(0);
        Float8Vector revenue = (Float8Vector) out.getVector(1);
        int n = in.getRowCount(), k = 0;
        for (int i = 0; i < n; i++) {
            int ship = shipdate.get(i);
            if (ship >= FROM && ship < TO) {
                double r = price.get(i) * (1 - discount.get(i));
                promo.set(k, type.startsWith(i, PROMO) ? r : 0.0);
                revenue.set(k, r);
                k++;
            }
        }
        return k;
    }
}
