package dev.quiver.cli.queries;

import static dev.quiver.cli.queries.RowLoops.BOOL;
import static dev.quiver.cli.queries.RowLoops.INT64;
import static dev.quiver.cli.queries.RowLoops.UTF8;

import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;

/**
 * A string-heavy query over {@code lineitem}: {@code =} on a low-cardinality column and a
 * {@code LIKE '%...%'} search of the comments in the filter; {@code upper} of a {@code substr},
 * {@code lower}, {@code length} and another {@code LIKE} in the projection. The loop is written
 * for the generator's comments and modes, which are ASCII, and refuses other bytes.
 */
final class StringsQuery {
    static final String FILTER = "l_shipinstruct = 'DELIVER IN PERSON' AND l_comment LIKE '%furiously%'";
    static final List<String> PROJECTIONS = List.of(
            "upper(substr(l_comment, 1, 12)) AS head",
            "lower(l_shipmode) AS mode",
            "length(l_comment) AS len",
            "l_comment LIKE '%regular%' AS is_regular");

    private static final byte[] IN_PERSON = RowLoops.utf8("DELIVER IN PERSON");
    private static final byte[] FURIOUSLY = RowLoops.utf8("furiously"), REGULAR = RowLoops.utf8("regular");

    private StringsQuery() {}

    static BenchQuery query() {
        return new BenchQuery(
                "strings",
                TableKind.LINEITEM,
                StringEncoding.PLAIN,
                "strings: = and LIKE '%x%' filter; upper(substr), lower, length, LIKE",
                FILTER,
                PROJECTIONS,
                BenchQuery.select(PROJECTIONS, TableKind.LINEITEM, FILTER),
                RowLoops.schema("head", UTF8, "mode", UTF8, "len", INT64, "is_regular", BOOL),
                StringsQuery::loop);
    }

    static int loop(VectorSchemaRoot in, DictionaryProvider dictionaries, VectorSchemaRoot out) {
        RowLoops.requireNoNulls(in, "l_shipinstruct", "l_comment", "l_shipmode");
        Utf8Column instruct = Utf8Column.of(in.getVector("l_shipinstruct"), dictionaries);
        Utf8Column comment = Utf8Column.of(in.getVector("l_comment"), dictionaries);
        Utf8Column mode = Utf8Column.of(in.getVector("l_shipmode"), dictionaries);
        VarCharVector head = (VarCharVector) out.getVector(0);
        VarCharVector lowerMode = (VarCharVector) out.getVector(1);
        BigIntVector length = (BigIntVector) out.getVector(2);
        BitVector regular = (BitVector) out.getVector(3);
        byte[] scratch = new byte[64];
        int n = in.getRowCount(), k = 0;
        for (int i = 0; i < n; i++) {
            if (instruct.equalTo(i, IN_PERSON) && comment.contains(i, FURIOUSLY)) {
                int len = comment.length(i);
                int h = Math.min(12, len);
                for (int b = 0; b < h; b++) {
                    byte c = ascii(comment.byteAt(i, b));
                    scratch[b] = c >= 'a' && c <= 'z' ? (byte) (c - 32) : c;
                }
                head.setSafe(k, scratch, 0, h);
                int m = mode.length(i);
                for (int b = 0; b < m; b++) {
                    byte c = ascii(mode.byteAt(i, b));
                    scratch[b] = c >= 'A' && c <= 'Z' ? (byte) (c + 32) : c;
                }
                lowerMode.setSafe(k, scratch, 0, m);
                length.set(k, len); // ASCII: a character per byte
                regular.set(k, comment.contains(i, REGULAR) ? 1 : 0);
                k++;
            }
        }
        return k;
    }

    private static byte ascii(byte b) {
        if (b < 0) {
            throw new IllegalArgumentException("the hand-written strings loop handles ASCII only");
        }
        return b;
    }
}
