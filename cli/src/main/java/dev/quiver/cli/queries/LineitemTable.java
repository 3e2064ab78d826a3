package dev.quiver.cli.queries;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A TPC-H-like {@code lineitem} table with the order and part columns the scalar parts of Q1, Q6,
 * Q12, Q14 and Q19 read denormalised into it (no joins): seeded, no nulls, with the value
 * distributions of the TPC-H generator where a query's selectivity depends on them.
 *
 * <ul>
 *   <li>{@code l_partkey} Int64 in [1, 200000]; the part columns {@code p_type} (150 values),
 *       {@code p_brand} (25), {@code p_container} (40) and {@code p_size} (Int32 in [1, 50]) are a
 *       function of it, as in a join on the part table.
 *   <li>{@code l_quantity} Float64, a whole number in [1, 50]; {@code l_extendedprice} the quantity
 *       times the part's retail price, to the cent; {@code l_discount} in 0.00..0.10 and
 *       {@code l_tax} in 0.00..0.08, in steps of 0.01. Float64 rather than Decimal: Quiver fuses
 *       Float64 arithmetic and comparisons into one loop per expression, decimal arithmetic runs
 *       as host kernels, one per operation.
 *   <li>The order date uniform in [1992-01-01, 1998-08-02]; {@code l_shipdate} 1 to 121 days
 *       after it, {@code l_commitdate} 30 to 90, {@code l_receiptdate} 1 to 30 days after the
 *       ship date (all Date32); {@code l_returnflag} R or A when received by 1995-06-17, else N;
 *       {@code l_linestatus} O when shipped after 1995-06-17, else F.
 *   <li>{@code l_shipinstruct} (4 values), {@code l_shipmode} (7), {@code o_orderpriority} (5):
 *       uniform. Every low-cardinality column is Utf8 or dictionary-encoded, as asked.
 *   <li>{@code l_comment}: 10 to 43 ASCII characters of words from TPC-H's text grammar, always
 *       Utf8.
 * </ul>
 */
public final class LineitemTable {

    public static final String NAME = "lineitem";

    private static final CategoricalColumn RETURNFLAG = new CategoricalColumn("l_returnflag", 1, "A", "N", "R");
    private static final CategoricalColumn LINESTATUS = new CategoricalColumn("l_linestatus", 2, "F", "O");
    private static final CategoricalColumn SHIPINSTRUCT =
            new CategoricalColumn("l_shipinstruct", 3, "DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN");
    private static final CategoricalColumn SHIPMODE =
            new CategoricalColumn("l_shipmode", 4, "REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB");
    private static final CategoricalColumn ORDERPRIORITY =
            new CategoricalColumn("o_orderpriority", 5, "1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW");
    private static final CategoricalColumn TYPE = new CategoricalColumn("p_type", 6, types());
    private static final CategoricalColumn BRAND = new CategoricalColumn("p_brand", 7, brands());
    private static final CategoricalColumn CONTAINER = new CategoricalColumn("p_container", 8, containers());

    private static final String[] WORDS = {
        "furiously",
        "carefully",
        "quickly",
        "slyly",
        "blithely",
        "fluffily",
        "ironic",
        "final",
        "regular",
        "special",
        "pending",
        "express",
        "bold",
        "even",
        "silent",
        "unusual",
        "deposits",
        "requests",
        "packages",
        "accounts",
        "instructions",
        "theodolites",
        "foxes",
        "pinto",
        "beans",
        "dependencies",
        "platelets",
        "asymptotes",
        "courts",
        "ideas",
        "sleep",
        "wake",
        "are",
        "haggle",
        "nag",
        "use",
        "boost",
        "affix",
        "detect",
        "integrate",
        "across",
        "about",
        "among",
        "after",
        "above"
    };

    private static final byte[][] WORD_BYTES = wordBytes();

    static final int START_DATE = (int) LocalDate.of(1992, 1, 1).toEpochDay();
    static final int END_ORDER_DATE = (int) LocalDate.of(1998, 8, 2).toEpochDay();
    static final int CURRENT_DATE = (int) LocalDate.of(1995, 6, 17).toEpochDay();

    private LineitemTable() {}

    /** The table's schema with its low-cardinality columns in {@code encoding}. */
    public static Schema schema(StringEncoding encoding) {
        ArrowType f64 = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
        ArrowType date = new ArrowType.Date(DateUnit.DAY);
        return new Schema(List.of(
                Field.nullable("l_partkey", new ArrowType.Int(64, true)),
                Field.nullable("l_quantity", f64),
                Field.nullable("l_extendedprice", f64),
                Field.nullable("l_discount", f64),
                Field.nullable("l_tax", f64),
                RETURNFLAG.field(encoding),
                LINESTATUS.field(encoding),
                Field.nullable("l_shipdate", date),
                Field.nullable("l_commitdate", date),
                Field.nullable("l_receiptdate", date),
                SHIPINSTRUCT.field(encoding),
                SHIPMODE.field(encoding),
                Field.nullable("l_comment", ArrowType.Utf8.INSTANCE),
                ORDERPRIORITY.field(encoding),
                TYPE.field(encoding),
                BRAND.field(encoding),
                CONTAINER.field(encoding),
                Field.nullable("p_size", new ArrowType.Int(32, true))));
    }

    private static List<CategoricalColumn> categorical() {
        return List.of(RETURNFLAG, LINESTATUS, SHIPINSTRUCT, SHIPMODE, ORDERPRIORITY, TYPE, BRAND, CONTAINER);
    }

    /**
     * {@code rows} rows from {@code seed} in batches of {@code batchRows}; the same seed gives the
     * same values whatever the batch size and the encoding. The caller closes the table.
     */
    public static BenchTable generate(
            BufferAllocator allocator, long rows, int batchRows, long seed, StringEncoding encoding) {
        Schema schema = schema(encoding);
        DictionaryProvider.MapDictionaryProvider dictionaries = new DictionaryProvider.MapDictionaryProvider();
        List<VectorSchemaRoot> batches = new ArrayList<>();
        try {
            if (encoding == StringEncoding.DICTIONARY) {
                for (CategoricalColumn c : categorical()) {
                    dictionaries.put(c.dictionary(allocator));
                }
            }
            SplittableRandom random = new SplittableRandom(seed);
            byte[] comment = new byte[64];
            for (long start = 0; start < rows; start += batchRows) {
                int n = (int) Math.min(batchRows, rows - start);
                VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
                batches.add(root);
                fill(root, n, random, comment);
            }
            return new BenchTable(NAME, encoding, schema, batches, dictionaries);
        } catch (RuntimeException | Error e) {
            new BenchTable(NAME, encoding, schema, batches, dictionaries).close();
            throw e;
        }
    }

    private static void fill(VectorSchemaRoot root, int n, SplittableRandom random, byte[] comment) {
        root.getFieldVectors().forEach(v -> {
            v.setInitialCapacity(n);
            v.allocateNew();
        });
        BigIntVector partkey = (BigIntVector) root.getVector("l_partkey");
        Float8Vector quantity = (Float8Vector) root.getVector("l_quantity");
        Float8Vector price = (Float8Vector) root.getVector("l_extendedprice");
        Float8Vector discount = (Float8Vector) root.getVector("l_discount");
        Float8Vector tax = (Float8Vector) root.getVector("l_tax");
        DateDayVector shipdate = (DateDayVector) root.getVector("l_shipdate");
        DateDayVector commitdate = (DateDayVector) root.getVector("l_commitdate");
        DateDayVector receiptdate = (DateDayVector) root.getVector("l_receiptdate");
        VarCharVector commentVector = (VarCharVector) root.getVector("l_comment");
        IntVector size = (IntVector) root.getVector("p_size");
        FieldVector returnflag = root.getVector(RETURNFLAG.name()), linestatus = root.getVector(LINESTATUS.name());
        FieldVector instruct = root.getVector(SHIPINSTRUCT.name()), mode = root.getVector(SHIPMODE.name());
        FieldVector priority = root.getVector(ORDERPRIORITY.name()), type = root.getVector(TYPE.name());
        FieldVector brand = root.getVector(BRAND.name()), container = root.getVector(CONTAINER.name());
        for (int i = 0; i < n; i++) {
            long part = 1 + random.nextInt(200_000);
            long h = mix(part);
            int q = 1 + random.nextInt(50);
            partkey.set(i, part);
            quantity.set(i, q);
            price.set(i, Math.round(q * retailPriceCents(part)) / 100.0);
            discount.set(i, random.nextInt(11) / 100.0);
            tax.set(i, random.nextInt(9) / 100.0);
            int order = START_DATE + random.nextInt(END_ORDER_DATE - START_DATE + 1);
            int ship = order + 1 + random.nextInt(121);
            int receipt = ship + 1 + random.nextInt(30);
            shipdate.set(i, ship);
            commitdate.set(i, order + 30 + random.nextInt(61));
            receiptdate.set(i, receipt);
            RETURNFLAG.write(returnflag, i, receipt <= CURRENT_DATE ? (random.nextBoolean() ? 2 : 0) : 1);
            LINESTATUS.write(linestatus, i, ship > CURRENT_DATE ? 1 : 0);
            SHIPINSTRUCT.write(instruct, i, random.nextInt(SHIPINSTRUCT.cardinality()));
            SHIPMODE.write(mode, i, random.nextInt(SHIPMODE.cardinality()));
            ORDERPRIORITY.write(priority, i, random.nextInt(ORDERPRIORITY.cardinality()));
            TYPE.write(type, i, (int) Long.remainderUnsigned(h, TYPE.cardinality()));
            BRAND.write(brand, i, (int) Long.remainderUnsigned(h >>> 16, BRAND.cardinality()));
            CONTAINER.write(container, i, (int) Long.remainderUnsigned(h >>> 32, CONTAINER.cardinality()));
            size.set(i, 1 + (int) Long.remainderUnsigned(h >>> 40, 50));
            commentVector.setSafe(i, comment, 0, comment(random, comment));
        }
        root.setRowCount(n);
    }

    /** TPC-H's retail price of a part, in cents. */
    private static long retailPriceCents(long part) {
        return 90_000 + (part / 10) % 20_001 + 100 * (part % 1_000);
    }

    /** Words of {@link #WORDS} separated by spaces, cut at a length in [10, 43]: its length. */
    private static int comment(SplittableRandom random, byte[] into) {
        int length = 10 + random.nextInt(34), at = 0;
        while (at < length) {
            if (at > 0) {
                into[at++] = ' ';
            }
            byte[] w = WORD_BYTES[random.nextInt(WORD_BYTES.length)];
            System.arraycopy(w, 0, into, at, Math.min(w.length, into.length - at));
            at += w.length;
        }
        return length;
    }

    private static byte[][] wordBytes() {
        byte[][] out = new byte[WORDS.length][];
        for (int i = 0; i < WORDS.length; i++) {
            out[i] = WORDS[i].getBytes(US_ASCII);
        }
        return out;
    }

    /** A 64-bit mix of {@code x} (SplitMix64's finaliser): the part columns as a function of the key. */
    private static long mix(long x) {
        long z = x * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static String[] types() {
        String[] a = {"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"};
        String[] b = {"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"};
        String[] c = {"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"};
        List<String> out = new ArrayList<>();
        for (String x : a) {
            for (String y : b) {
                for (String z : c) {
                    out.add(x + " " + y + " " + z);
                }
            }
        }
        return out.toArray(String[]::new);
    }

    private static String[] brands() {
        List<String> out = new ArrayList<>();
        for (int m = 1; m <= 5; m++) {
            for (int n = 1; n <= 5; n++) {
                out.add("Brand#" + m + n);
            }
        }
        return out.toArray(String[]::new);
    }

    private static String[] containers() {
        List<String> out = new ArrayList<>();
        for (String size : new String[] {"SM", "LG", "MED", "JUMBO", "WRAP"}) {
            for (String kind : new String[] {"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"}) {
                out.add(size + " " + kind);
            }
        }
        return out.toArray(String[]::new);
    }
}
