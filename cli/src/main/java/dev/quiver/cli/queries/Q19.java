package dev.quiver.cli.queries;

import static dev.quiver.cli.queries.RowLoops.FLOAT64;

import java.util.List;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;

/**
 * TPC-H Q19's scalar part (discounted revenue): three disjuncts of brand, containers, quantity,
 * size, ship mode and instruction, with the revenue Q19 then sums. The join condition
 * {@code p_partkey = l_partkey} is gone (the part columns are in the table); the rest is TPC-H's
 * text, {@code 'AIR REG'} included (the generator's mode is {@code 'REG AIR'}, as TPC-H's is, so
 * only {@code 'AIR'} matches).
 */
final class Q19 {
    static final String FILTER = "(p_brand = 'Brand#12'"
            + " AND p_container IN ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG')"
            + " AND l_quantity >= 1 AND l_quantity <= 1 + 10 AND p_size BETWEEN 1 AND 5"
            + " AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON')"
            + " OR (p_brand = 'Brand#23'"
            + " AND p_container IN ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK')"
            + " AND l_quantity >= 10 AND l_quantity <= 10 + 10 AND p_size BETWEEN 1 AND 10"
            + " AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON')"
            + " OR (p_brand = 'Brand#34'"
            + " AND p_container IN ('LG CASE', 'LG BOX', 'LG PACK', 'LG PKG')"
            + " AND l_quantity >= 20 AND l_quantity <= 20 + 10 AND p_size BETWEEN 1 AND 15"
            + " AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON')";
    static final List<String> PROJECTIONS = List.of("l_extendedprice * (1 - l_discount) AS revenue");

    private static final byte[] BRAND12 = RowLoops.utf8("Brand#12"),
            BRAND23 = RowLoops.utf8("Brand#23"),
            BRAND34 = RowLoops.utf8("Brand#34");
    private static final byte[][] SM = containers("SM CASE", "SM BOX", "SM PACK", "SM PKG"),
            MED = containers("MED BAG", "MED BOX", "MED PKG", "MED PACK"),
            LG = containers("LG CASE", "LG BOX", "LG PACK", "LG PKG");
    private static final byte[] AIR = RowLoops.utf8("AIR"), AIR_REG = RowLoops.utf8("AIR REG");
    private static final byte[] IN_PERSON = RowLoops.utf8("DELIVER IN PERSON");

    private Q19() {}

    static BenchQuery query() {
        return new BenchQuery(
                "q19",
                TableKind.LINEITEM,
                StringEncoding.PLAIN,
                "TPC-H Q19: three brand/container/quantity/size disjuncts; revenue",
                FILTER,
                PROJECTIONS,
                BenchQuery.select(PROJECTIONS, TableKind.LINEITEM, FILTER),
                RowLoops.schema("revenue", FLOAT64),
                Q19::loop);
    }

    static int loop(VectorSchemaRoot in, DictionaryProvider dictionaries, VectorSchemaRoot out) {
        RowLoops.requireNoNulls(
                in,
                "p_brand",
                "p_container",
                "l_quantity",
                "p_size",
                "l_shipmode",
                "l_shipinstruct",
                "l_extendedprice",
                "l_discount");
        Utf8Column brand = Utf8Column.of(in.getVector("p_brand"), dictionaries);
        Utf8Column container = Utf8Column.of(in.getVector("p_container"), dictionaries);
        Utf8Column mode = Utf8Column.of(in.getVector("l_shipmode"), dictionaries);
        Utf8Column instruct = Utf8Column.of(in.getVector("l_shipinstruct"), dictionaries);
        Float8Vector quantity = (Float8Vector) in.getVector("l_quantity");
        IntVector size = (IntVector) in.getVector("p_size");
        Float8Vector price = (Float8Vector) in.getVector("l_extendedprice");
        Float8Vector discount = (Float8Vector) in.getVector("l_discount");
        Float8Vector revenue = (Float8Vector) out.getVector(0);
        int n = in.getRowCount(), k = 0;
        for (int i = 0; i < n; i++) {
            double q = quantity.get(i);
            int s = size.get(i);
            boolean shipped = (mode.equalTo(i, AIR) || mode.equalTo(i, AIR_REG)) && instruct.equalTo(i, IN_PERSON);
            if (shipped
                    && (brand.equalTo(i, BRAND12) && in(container, i, SM) && q >= 1 && q <= 11 && s >= 1 && s <= 5
                            || brand.equalTo(i, BRAND23)
                                    && in(container, i, MED)
                                    && q >= 10
                                    && q <= 20
                                    && s >= 1
                                    && s <= 10
                            || brand.equalTo(i, BRAND34)
                                    && in(container, i, LG)
                                    && q >= 20
                                    && q <= 30
                                    && s >= 1
                                    && s <= 15)) {
                revenue.set(k++, price.get(i) * (1 - discount.get(i)));
            }
        }
        return k;
    }

    private static boolean in(Utf8Column column, int row, byte[][] values) {
        for (byte[] v : values) {
            if (column.equalTo(row, v)) {
                return true;
            }
        }
        return false;
    }

    private static byte[][] containers(String... names) {
        byte[][] out = new byte[names.length][];
        for (int i = 0; i < names.length; i++) {
            out[i] = RowLoops.utf8(names[i]);
        }
        return out;
    }
}
