package dev.quiver.tests;

import dev.quiver.types.DataType;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ArrowWriter;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Valid Arrow IPC files and streams, written by Arrow Java's own writers, that {@link IpcFuzzTest}
 * mutates: one to four columns (now and then every kind at once) of every type Quiver reads,
 * one to three batches of 0 to 200 rows, nulls with garbage behind them (fixed-width values,
 * bytes that are not UTF-8, dictionary indices outside the dictionary), and now and then the
 * values at the edges of each type (integer and decimal extremes, NaN, ±0, infinities, the
 * ends of the timestamp range).
 */
final class IpcCorpus {
    private IpcCorpus() {}

    /** A column kind: its Arrow type (for a dictionary, the index type and the values' type). */
    enum Kind {
        INT8(new ArrowType.Int(8, true)),
        INT16(new ArrowType.Int(16, true)),
        INT32(new ArrowType.Int(32, true)),
        INT64(new ArrowType.Int(64, true)),
        UINT8(new ArrowType.Int(8, false)),
        UINT16(new ArrowType.Int(16, false)),
        UINT32(new ArrowType.Int(32, false)),
        UINT64(new ArrowType.Int(64, false)),
        FLOAT32(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
        FLOAT64(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
        DECIMAL_10_2(new ArrowType.Decimal(10, 2, 128)),
        DECIMAL_38_6(new ArrowType.Decimal(38, 6, 128)),
        BOOL(ArrowType.Bool.INSTANCE),
        UTF8(ArrowType.Utf8.INSTANCE),
        LARGE_UTF8(ArrowType.LargeUtf8.INSTANCE),
        BINARY(ArrowType.Binary.INSTANCE),
        DATE32(new ArrowType.Date(DateUnit.DAY)),
        TIMESTAMP_S(new ArrowType.Timestamp(TimeUnit.SECOND, null)),
        TIMESTAMP_MS_UTC(new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC")),
        TIMESTAMP_US(new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
        TIMESTAMP_NS_TZ(new ArrowType.Timestamp(TimeUnit.NANOSECOND, "Europe/Paris")),
        LIST_INT32(ArrowType.List.INSTANCE),
        LIST_UTF8(ArrowType.List.INSTANCE),
        STRUCT(ArrowType.Struct.INSTANCE),
        DICTIONARY_UTF8(new ArrowType.Int(32, true)),
        DICTIONARY_UTF8_INT8(new ArrowType.Int(8, true)),
        NULL(ArrowType.Null.INSTANCE);

        final ArrowType type;

        Kind(ArrowType type) {
            this.type = type;
        }

        boolean dictionary() {
            return this == DICTIONARY_UTF8 || this == DICTIONARY_UTF8_INT8;
        }
    }

    /** A valid file ({@code file}) or stream, its schema and each dictionary id's value field. */
    record Item(byte[] bytes, boolean file, Schema schema, Map<Long, Field> dictionaryValues, String description) {
        IpcLayout layout() {
            return IpcLayout.of(bytes, file, schema, dictionaryValues);
        }
    }

    static final int[] ROWS = {0, 1, 2, 7, 8, 9, 63, 64, 65, 200};
    static final String[] STRINGS = {
        "", "a", "abc", "ABC", "héllo", "日本語", "a%b", "xyz ", "ß", "\uD83D\uDE00", "  ", "aaaaaaaaaaaaaaaaaaaa"
    };

    /** A random valid file or stream (both formats equally often), written from {@code allocator} (nothing stays allocated). */
    static Item random(Random r, BufferAllocator allocator) {
        Kind[] kinds = Kind.values();
        List<Kind> columns = new ArrayList<>();
        if (r.nextInt(25) == 0) {
            columns.addAll(List.of(kinds));
        } else {
            for (int n = 1 + r.nextInt(4); columns.size() < n; ) {
                columns.add(kinds[r.nextInt(kinds.length)]);
            }
        }
        boolean edges = r.nextInt(10) == 0;
        double nulls = new double[] {0.0, 0.2, 0.2, 0.9, 1.0}[r.nextInt(5)];
        int batches = 1 + r.nextInt(3);
        boolean file = r.nextBoolean();

        List<Field> fields = new ArrayList<>();
        Map<Long, Field> dictionaryValues = new LinkedHashMap<>();
        DictionaryProvider.MapDictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider();
        Map<Long, Integer> dictionarySizes = new LinkedHashMap<>();
        try {
            for (int c = 0; c < columns.size(); c++) {
                Kind k = columns.get(c);
                String name = "c" + c;
                if (k.dictionary()) {
                    long id = c + 1;
                    DictionaryEncoding encoding = new DictionaryEncoding(id, false, (ArrowType.Int) k.type);
                    fields.add(new Field(name, new FieldType(true, k.type, encoding), null));
                    List<String> values = new ArrayList<>();
                    for (int n = r.nextInt(9); values.size() < n; ) {
                        String s = STRINGS[r.nextInt(STRINGS.length)] + (values.size() % 3 == 0 ? "" : values.size());
                        if (!values.contains(s)) {
                            values.add(s);
                        }
                    }
                    FieldVector dictionary = Values.of(DataType.UTF8, name + "_dictionary", values, allocator);
                    provider.put(new Dictionary(dictionary, encoding));
                    dictionaryValues.put(id, dictionary.getField());
                    dictionarySizes.put(id, values.size());
                } else {
                    fields.add(field(name, k));
                }
            }
            Schema schema = new Schema(fields);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
                    ArrowWriter writer = file
                            ? new ArrowFileWriter(root, provider, Channels.newChannel(out))
                            : new ArrowStreamWriter(root, provider, Channels.newChannel(out))) {
                writer.start();
                StringBuilder rowCounts = new StringBuilder();
                for (int b = 0; b < batches; b++) {
                    int rows = ROWS[r.nextInt(ROWS.length)];
                    rowCounts.append(b == 0 ? "" : ", ").append(rows);
                    for (int c = 0; c < columns.size(); c++) {
                        Field f = fields.get(c);
                        int dictionarySize = f.getDictionary() == null
                                ? 0
                                : dictionarySizes.get(f.getDictionary().getId());
                        try (FieldVector v =
                                column(f, columns.get(c), rows, nulls, edges, dictionarySize, r, allocator)) {
                            v.makeTransferPair(root.getVector(c)).transfer();
                        }
                    }
                    root.setRowCount(rows);
                    writer.writeBatch();
                }
                writer.end();
                String description = (file ? "file" : "stream") + " of " + columns + ", batches of " + rowCounts
                        + " rows, nulls " + nulls + (edges ? ", edge values" : "");
                return new Item(out.toByteArray(), file, schema, dictionaryValues, description);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (long id : provider.getDictionaryIds()) {
                provider.lookup(id).getVector().close();
            }
        }
    }

    private static Field field(String name, Kind k) {
        return switch (k) {
            case LIST_INT32 ->
                new Field(
                        name, FieldType.nullable(k.type), List.of(Field.nullable("item", new ArrowType.Int(32, true))));
            case LIST_UTF8 ->
                new Field(name, FieldType.nullable(k.type), List.of(Field.nullable("item", ArrowType.Utf8.INSTANCE)));
            case STRUCT ->
                new Field(
                        name,
                        FieldType.nullable(k.type),
                        List.of(
                                Field.nullable("a", new ArrowType.Int(32, true)),
                                Field.nullable("b", ArrowType.Utf8.INSTANCE)));
            default -> Field.nullable(name, k.type);
        };
    }

    /** A column of {@code rows} rows of kind {@code k}; the caller closes it. */
    private static FieldVector column(
            Field f,
            Kind k,
            int rows,
            double nulls,
            boolean edges,
            int dictionarySize,
            Random r,
            BufferAllocator allocator) {
        FieldVector v = f.createVector(allocator);
        try {
            v.setInitialCapacity(Math.max(rows, 1));
            v.allocateNew();
            for (int i = 0; i < rows; i++) {
                boolean isNull = r.nextDouble() < nulls;
                switch (v) {
                    case VarCharVector s ->
                        s.setSafe(
                                i,
                                isNull
                                        ? garbage(r)
                                        : STRINGS[r.nextInt(STRINGS.length)].getBytes(StandardCharsets.UTF_8));
                    case LargeVarCharVector s ->
                        s.setSafe(
                                i,
                                isNull
                                        ? garbage(r)
                                        : STRINGS[r.nextInt(STRINGS.length)].getBytes(StandardCharsets.UTF_8));
                    case VarBinaryVector b -> {
                        byte[] bytes = new byte[r.nextInt(12)];
                        r.nextBytes(bytes);
                        b.setSafe(i, bytes);
                    }
                    case BaseIntVector index
                    when k.dictionary() -> {
                        // Behind a null, an index that may lie outside the dictionary; else one inside.
                        long garbage = r.nextInt(4) == 0 ? 100 + r.nextInt(20) : r.nextInt(Math.max(1, dictionarySize));
                        index.setWithPossibleTruncate(
                                i, isNull || dictionarySize == 0 ? garbage : r.nextInt(dictionarySize));
                        isNull |= dictionarySize == 0;
                    }
                    default -> {
                        if (k != Kind.NULL) {
                            Values.set(v, i, new ScalarValue(DataType.fromField(f), value(k, edges, r)));
                        }
                    }
                }
                if (isNull && k != Kind.NULL) {
                    if (v instanceof BaseFixedWidthVector
                            || v instanceof VarCharVector
                            || v instanceof LargeVarCharVector
                            || v instanceof VarBinaryVector) {
                        BitVectorHelper.unsetBit(v.getValidityBuffer(), i); // the value stays behind the null
                    } else {
                        Values.setNull(v, i);
                    }
                }
            }
            v.setValueCount(rows);
            return v;
        } catch (RuntimeException e) {
            v.close();
            throw e;
        }
    }

    private static byte[] garbage(Random r) {
        byte[] bytes = new byte[r.nextInt(6)];
        for (int k = 0; k < bytes.length; k++) {
            bytes[k] = new byte[] {(byte) 0xFF, (byte) 0xC3, 'x', (byte) 0x80}[r.nextInt(4)];
        }
        return bytes;
    }

    /** A value of {@code k} as {@link Values#set} takes it; with {@code edges}, often an extreme. */
    private static Object value(Kind k, boolean edges, Random r) {
        boolean edge = edges && r.nextInt(3) == 0;
        return switch (k) {
            case INT8 ->
                (byte) (edge ? new int[] {Byte.MIN_VALUE, Byte.MAX_VALUE, 0, -1}[r.nextInt(4)] : r.nextInt(256) - 128);
            case INT16 ->
                (short) (edge ? new int[] {Short.MIN_VALUE, Short.MAX_VALUE, 0}[r.nextInt(3)] : r.nextInt(2001) - 1000);
            case INT32 ->
                edge ? new int[] {Integer.MIN_VALUE, Integer.MAX_VALUE, 0}[r.nextInt(3)] : r.nextInt(2001) - 1000;
            case INT64 ->
                edge ? new long[] {Long.MIN_VALUE, Long.MAX_VALUE, 0}[r.nextInt(3)] : r.nextLong() >> r.nextInt(64);
            case UINT8 -> (short) (edge ? 255 : r.nextInt(256));
            case UINT16 -> edge ? 65535 : r.nextInt(65536);
            case UINT32 -> edge ? 4294967295L : (long) r.nextInt(100_000);
            case UINT64 -> edge ? new BigInteger("18446744073709551615") : BigInteger.valueOf(r.nextInt(100_000));
            case FLOAT32 ->
                edge
                        ? new float[] {Float.NaN, Float.POSITIVE_INFINITY, -0.0f, Float.MIN_VALUE, Float.MAX_VALUE}
                                [r.nextInt(5)]
                        : (float) (r.nextGaussian() * 100);
            case FLOAT64 ->
                edge
                        ? new double[] {Double.NaN, Double.NEGATIVE_INFINITY, -0.0, Double.MIN_VALUE, Double.MAX_VALUE}
                                [r.nextInt(5)]
                        : r.nextGaussian() * 1e3;
            case DECIMAL_10_2 ->
                edge
                        ? new BigDecimal(r.nextBoolean() ? "99999999.99" : "-99999999.99")
                        : BigDecimal.valueOf(r.nextInt(2_000_001) - 1_000_000, 2);
            case DECIMAL_38_6 ->
                edge
                        ? new BigDecimal((r.nextBoolean() ? "" : "-") + "9".repeat(32) + "." + "9".repeat(6))
                        : BigDecimal.valueOf(r.nextLong() >> r.nextInt(64), 6);
            case BOOL -> r.nextBoolean();
            case DATE32 ->
                edge ? new int[] {Integer.MIN_VALUE, Integer.MAX_VALUE, 0}[r.nextInt(3)] : r.nextInt(40_000) - 10_000;
            case TIMESTAMP_S, TIMESTAMP_MS_UTC, TIMESTAMP_US, TIMESTAMP_NS_TZ ->
                edge
                        ? new long[] {Long.MIN_VALUE, Long.MAX_VALUE, 0, -1}[r.nextInt(4)]
                        : (r.nextLong() % 2_000_000_000L)
                                * switch (k) {
                                    case TIMESTAMP_S -> 1L;
                                    case TIMESTAMP_MS_UTC -> 1_000L;
                                    case TIMESTAMP_US -> 1_000_000L;
                                    default -> 1_000_000_000L / 8;
                                };
            case LIST_INT32 -> {
                List<Object> items = new ArrayList<>();
                for (int n = r.nextInt(5); items.size() < n; ) {
                    items.add(r.nextInt(6) == 0 ? null : (Object) (edge ? Integer.MIN_VALUE : r.nextInt(10)));
                }
                yield items;
            }
            case LIST_UTF8 -> {
                List<Object> items = new ArrayList<>();
                for (int n = r.nextInt(4); items.size() < n; ) {
                    items.add(r.nextInt(6) == 0 ? null : STRINGS[r.nextInt(STRINGS.length)]);
                }
                yield items;
            }
            case STRUCT -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("a", r.nextInt(5) == 0 ? null : (Object) (edge ? Integer.MAX_VALUE : r.nextInt(100)));
                m.put("b", r.nextInt(5) == 0 ? null : STRINGS[r.nextInt(STRINGS.length)]);
                yield m;
            }
            default -> throw new IllegalStateException("no generic values of " + k);
        };
    }
}
