package dev.quiver.cli.queries;

import static dev.quiver.cli.queries.RowLoops.INT32;
import static dev.quiver.cli.queries.RowLoops.UTF8;

import java.util.List;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;

/**
 * TPC-H Q12's scalar part (shipping modes and order priority): mail and ship lines of 1994
 * received late, with the high- and low-priority flags Q12 then sums per ship mode.
 */
final class Q12 {
    static final String FILTER = "l_shipmode IN ('MAIL', 'SHIP') AND l_commitdate < l_receiptdate"
            + " AND l_shipdate < l_commitdate AND l_receiptdate >= DATE '1994-01-01'"
            + " AND l_receiptdate < DATE '1995-01-01'";
    static final List<String> PROJECTIONS = List.of(
            "l_shipmode",
            "CASE WHEN o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH' THEN 1 ELSE 0 END AS high_line",
            "CASE WHEN o_orderpriority <> '1-URGENT' AND o_orderpriority <> '2-HIGH' THEN 1 ELSE 0 END AS low_line");

    private static final byte[] MAIL = RowLoops.utf8("MAIL"), SHIP = RowLoops.utf8("SHIP");
    private static final byte[] URGENT = RowLoops.utf8("1-URGENT"), HIGH = RowLoops.utf8("2-HIGH");
    private static final int FROM = RowLoops.day(1994, 1, 1), TO = RowLoops.day(1995, 1, 1);

    private Q12() {}

    static BenchQuery query() {
        return new BenchQuery(
                "q12",
                TableKind.LINEITEM,
                StringEncoding.PLAIN,
                "TPC-H Q12: two ship modes, late lines of a year; priority flags",
                FILTER,
                PROJECTIONS,
                BenchQuery.select(PROJECTIONS, TableKind.LINEITEM, FILTER),
                RowLoops.schema("l_shipmode", UTF8, "high_line", INT32, "low_line", INT32),
                Q12::loop);
    }

    static int loop(VectorSchemaRoot in, DictionaryProvider dictionaries, VectorSchemaRoot out) {
        RowLoops.requireNoNulls(in, "l_shipmode", "l_shipdate", "l_commitdate", "l_receiptdate", "o_orderpriority");
        DateDayVector shipdate = (DateDayVector) in.getVector("l_shipdate");
        DateDayVector commitdate = (DateDayVector) in.getVector("l_commitdate");
        DateDayVector receiptdate = (DateDayVector) in.getVector("l_receiptdate");
        Utf8Column mode = Utf8Column.of(in.getVector("l_shipmode"), dictionaries);
        Utf8Column priority = Utf8Column.of(in.getVector("o_orderpriority"), dictionaries);
        VarCharVector outMode = (VarCharVector) out.getVector(0);
        IntVector high = (IntVector) out.getVector(1);
        IntVector low = (IntVector) out.getVector(2);
        int n = in.getRowCount(), k = 0;
        for (int i = 0; i < n; i++) {
            int commit = commitdate.get(i), receipt = receiptdate.get(i);
            if ((mode.equalTo(i, MAIL) || mode.equalTo(i, SHIP))
                    && commit < receipt
                    && shipdate.get(i) < commit
                    && receipt >= FROM
                    && receipt < TO) {
                boolean urgent = priority.equalTo(i, URGENT) || priority.equalTo(i, HIGH);
                mode.copyTo(i, outMode, k);
                high.set(k, urgent ? 1 : 0);
                low.set(k, urgent ? 0 : 1);
                k++;
            }
        }
        return k;
    }
}
