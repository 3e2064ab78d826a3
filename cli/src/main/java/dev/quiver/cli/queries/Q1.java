package dev.quiver.cli.queries;

import static dev.quiver.cli.queries.RowLoops.FLOAT64;
import static dev.quiver.cli.queries.RowLoops.UTF8;

import java.util.List;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;

/**
 * TPC-H Q1's scalar part (pricing summary): the lines shipped by 90 days before 1998-12-01, with
 * the discounted price and the charge that Q1 then sums per return flag and line status.
 */
final class Q1 {
    static final String FILTER = "l_shipdate <= DATE '1998-12-01' - 90";
    static final List<String> PROJECTIONS = List.of(
            "l_returnflag",
            "l_linestatus",
            "l_quantity",
            "l_extendedprice",
            "l_extendedprice * (1 - l_discount) AS disc_price",
            "l_extendedprice * (1 - l_discount) * (1 + l_tax) AS charge",
            "l_discount");

    private static final int CUTOFF = RowLoops.day(1998, 12, 1) - 90;

    private Q1() {}

    static BenchQuery query() {
        return new BenchQuery(
                "q1",
                TableKind.LINEITEM,
                StringEncoding.PLAIN,
                "TPC-H Q1: shipped by a date; discounted price and charge",
                FILTER,
                PROJECTIONS,
                BenchQuery.select(PROJECTIONS, TableKind.LINEITEM, FILTER),
                RowLoops.schema(
                        "l_returnflag", UTF8,
                        "l_linestatus", UTF8,
                        "l_quantity", FLOAT64,
                        "l_extendedprice", FLOAT64,
                        "disc_price", FLOAT64,
                        "charge", FLOAT64,
                        "l_discount", FLOAT64),
                Q1::loop);
    }

    static int loop(VectorSchemaRoot in, DictionaryProvider dictionaries, VectorSchemaRoot out) {
        RowLoops.requireNoNulls(in, "l_shipdate", "l_quantity", "l_extendedprice", "l_discount", "l_tax");
        DateDayVector shipdate = (DateDayVector) in.getVector("l_shipdate");
        Float8Vector quantity = (Float8Vector) in.getVector("l_quantity");
        Float8Vector price = (Float8Vector) in.getVector("l_extendedprice");
        Float8Vector discount = (Float8Vector) in.getVector("l_discount");
        Float8Vector tax = (Float8Vector) in.getVector("l_tax");
        Utf8Column flag = Utf8Column.of(in.getVector("l_returnflag"), dictionaries);
        Utf8Column status = Utf8Column.of(in.getVector("l_linestatus"), dictionaries);
        VarCharVector outFlag = (VarCharVector) out.getVector(0);
        VarCharVector outStatus = (VarCharVector) out.getVector(1);
        Float8Vector outQuantity = (Float8Vector) out.getVector(2);
        Float8Vector outPrice = (Float8Vector) out.getVector(3);
        Float8Vector outDiscPrice = (Float8Vector) out.getVector(4);
        Float8Vector outCharge = (Float8Vector) out.getVector(5);
        Float8Vector outDiscount = (Float8Vector) out.getVector(6);
        int n = in.getRowCount(), k = 0;
        for (int i = 0; i < n; i++) {
            if (shipdate.get(i) <= CUTOFF) {
                double p = price.get(i), d = discount.get(i);
                flag.copyTo(i, outFlag, k);
                status.copyTo(i, outStatus, k);
                outQuantity.set(k, quantity.get(i));
                outPrice.set(k, p);
                outDiscPrice.set(k, p * (1 - d));
                outCharge.set(k, p * (1 - d) * (1 + tax.get(i)));
                outDiscount.set(k, d);
                k++;
            }
        }
        return k;
    }
}
