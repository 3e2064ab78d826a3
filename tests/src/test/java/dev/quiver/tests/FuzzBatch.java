package dev.quiver.tests;

import dev.quiver.tests.FuzzExpr.Type;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * A hostile batch for {@link ExpressionFuzzTest}, kept as rows so it can be shrunk: each cell
 * has a value and a null flag, and a null cell keeps its value as garbage behind the null (for
 * strings: bytes that are not UTF-8). Columns: Int32 {@code i32}, {@code j32} (small, often
 * zero), Int64 {@code i64}, Float64 {@code f64}, {@code g64}, Float32 {@code f32}, Boolean
 * {@code b}, Utf8 {@code s} and the dictionary-encoded Utf8 {@code ds}.
 */
final class FuzzBatch {
    static final List<String> NAMES = List.of("i32", "j32", "i64", "f64", "g64", "f32", "b", "s", "ds");
    static final List<Type> TYPES =
            List.of(Type.I32, Type.I32, Type.I64, Type.F64, Type.F64, Type.F32, Type.BOOL, Type.STR, Type.STR);
    /** The dictionary of {@code ds}: index i is DICTIONARY[i]. */
    static final List<String> DICTIONARY = List.of("", "a", "abc", "ABC", "héllo", "日本語", "a%b", "xyz ");

    static final long DICTIONARY_ID = 7L;
    static final int[] LENGTHS = {0, 1, 7, 8, 9, 63, 64, 65, 127, 128, 129};
    static final String[] STRINGS = {
        "", "a", "A", "b", "abc", "ABC", "aBc", "a%b", "a_b", "_", "%", "héllo", "HÉLLO", "日本語", "5", "-3", "abc ",
        " abc", "zz", "ab", "éa", "bab"
    };
    static final byte[] GARBAGE_BYTES = {(byte) 0xFF, (byte) 0xC3, 'x', (byte) 0x80};

    final Object[][] values;
    final boolean[][] nulls;

    FuzzBatch(Object[][] values, boolean[][] nulls) {
        this.values = values;
        this.nulls = nulls;
    }

    int rows() {
        return values.length;
    }

    static List<String> columnsOf(Type t) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < NAMES.size(); i++) {
            if (TYPES.get(i) == t) {
                out.add(NAMES.get(i));
            }
        }
        return out;
    }

    static FuzzBatch random(Random r) {
        // Now and then a batch the CPU splits between threads (from 2 * 16,384 rows, for costly rows).
        int n = r.nextInt(60) == 0
                ? 32_768 + r.nextInt(8_000)
                : r.nextInt(4) == 0 ? 1 + r.nextInt(400) : LENGTHS[r.nextInt(LENGTHS.length)];
        double nullFraction = switch (r.nextInt(4)) {
            case 0 -> 0.0;
            case 1 -> 0.9;
            default -> 0.2;
        };
        Object[][] values = new Object[n][NAMES.size()];
        boolean[][] nulls = new boolean[n][NAMES.size()];
        for (int i = 0; i < n; i++) {
            for (int c = 0; c < NAMES.size(); c++) {
                values[i][c] = draw(r, c);
                nulls[i][c] = r.nextDouble() < nullFraction;
                if (NAMES.get(c).equals("ds") && !nulls[i][c]) {
                    values[i][c] = (Integer) values[i][c] % DICTIONARY.size();
                }
            }
        }
        return new FuzzBatch(values, nulls);
    }

    private static Object draw(Random r, int c) {
        boolean special = r.nextInt(3) == 0;
        return switch (NAMES.get(c)) {
            case "i32" ->
                special
                        ? new int[] {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 46341, -46341, 65536}[r.nextInt(8)]
                        : r.nextInt(2) == 0 ? r.nextInt() : r.nextInt(2001) - 1000;
            case "j32" ->
                special ? new int[] {0, 0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE}[r.nextInt(5)] : r.nextInt(21) - 10;
            case "i64" ->
                special
                        ? new long[] {
                                    0,
                                    1,
                                    -1,
                                    Long.MIN_VALUE,
                                    Long.MAX_VALUE,
                                    Integer.MIN_VALUE,
                                    Integer.MAX_VALUE,
                                    3037000500L
                                }
                                [r.nextInt(8)]
                        : r.nextInt(2) == 0 ? r.nextLong() : (long) (r.nextInt(2001) - 1000);
            case "f64", "g64" ->
                special
                        ? DuckDbSemanticsTest.SPECIAL_DOUBLES[r.nextInt(DuckDbSemanticsTest.SPECIAL_DOUBLES.length)]
                        : r.nextInt(2) == 0
                                ? r.nextGaussian() * 1e3
                                : Math.scalb(r.nextDouble() - 0.5, r.nextInt(200) - 100);
            case "f32" ->
                special
                        ? (float)
                                DuckDbSemanticsTest.SPECIAL_DOUBLES[
                                        r.nextInt(DuckDbSemanticsTest.SPECIAL_DOUBLES.length)]
                        : (float) (r.nextGaussian() * 100);
            case "b" -> r.nextBoolean();
            case "s" -> STRINGS[r.nextInt(STRINGS.length)];
            // A garbage index behind a null may lie outside the dictionary.
            case "ds" -> r.nextInt(20) == 0 ? 1_000 + r.nextInt(1000) : r.nextInt(DICTIONARY.size());
            default -> throw new IllegalStateException(NAMES.get(c));
        };
    }

    /** The batch with only the rows in {@code keep}. */
    FuzzBatch select(List<Integer> keep) {
        Object[][] v = new Object[keep.size()][];
        boolean[][] n = new boolean[keep.size()][];
        for (int i = 0; i < keep.size(); i++) {
            v[i] = values[keep.get(i)];
            n[i] = nulls[keep.get(i)];
        }
        return new FuzzBatch(v, n);
    }

    /** A cell as Java and SQL see it: null, or its value ({@code ds}: the dictionary string). */
    Object cell(int row, int c) {
        if (nulls[row][c]) {
            return null;
        }
        Object v = values[row][c];
        return NAMES.get(c).equals("ds") ? DICTIONARY.get((Integer) v) : v;
    }

    /** The rows, for a failure report. */
    String describe() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < rows(); i++) {
            sb.append("  row ").append(i).append(": ");
            for (int c = 0; c < NAMES.size(); c++) {
                Object v = cell(i, c);
                sb.append(NAMES.get(c))
                        .append('=')
                        .append(v instanceof String s ? "'" + s + "'" : v == null ? "NULL" : v);
                if (v instanceof Float) {
                    sb.append('f');
                }
                sb.append(c + 1 < NAMES.size() ? ", " : "\n");
            }
        }
        return sb.toString();
    }

    /** The dictionary of {@code ds}, in a vector the caller closes. */
    static Dictionary dictionary(BufferAllocator allocator) {
        VarCharVector dict = new VarCharVector("ds_dictionary", allocator);
        dict.allocateNew(DICTIONARY.size());
        for (int i = 0; i < DICTIONARY.size(); i++) {
            dict.setSafe(i, DICTIONARY.get(i).getBytes(StandardCharsets.UTF_8));
        }
        dict.setValueCount(DICTIONARY.size());
        return new Dictionary(dict, new DictionaryEncoding(DICTIONARY_ID, false, new ArrowType.Int(32, true)));
    }

    /** The batch in Arrow with its dictionary; closing it frees both. */
    record Arrow(VectorSchemaRoot root) implements AutoCloseable {
        @Override
        public void close() {
            root.close();
        }
    }

    /** The batch in Arrow over {@code dictionary} (not closed with the batch). */
    Arrow toArrow(BufferAllocator allocator, Dictionary dictionary) {
        List<FieldVector> vectors = new ArrayList<>();
        try {
            int n = rows();
            for (int c = 0; c < NAMES.size(); c++) {
                String name = NAMES.get(c);
                FieldVector v = switch (name) {
                    case "i32", "j32" -> new IntVector(name, allocator);
                    case "i64" -> new BigIntVector(name, allocator);
                    case "f64", "g64" -> new Float8Vector(name, allocator);
                    case "f32" -> new Float4Vector(name, allocator);
                    case "b" -> new BitVector(name, allocator);
                    case "s" -> new VarCharVector(name, allocator);
                    case "ds" ->
                        new IntVector(
                                new Field(
                                        name,
                                        new FieldType(true, new ArrowType.Int(32, true), dictionary.getEncoding()),
                                        null),
                                allocator);
                    default -> throw new IllegalStateException(name);
                };
                vectors.add(v);
                v.setInitialCapacity(n);
                v.allocateNew();
                for (int i = 0; i < n; i++) {
                    Object x = values[i][c];
                    switch (v) {
                        case IntVector iv -> iv.set(i, (Integer) x);
                        case BigIntVector bv -> bv.set(i, (Long) x);
                        case Float8Vector fv -> fv.set(i, (Double) x);
                        case Float4Vector fv -> fv.set(i, (Float) x);
                        case BitVector bv -> bv.set(i, (Boolean) x ? 1 : 0);
                        case VarCharVector sv -> {
                            byte[] bytes = ((String) x).getBytes(StandardCharsets.UTF_8);
                            if (nulls[i][c]) {
                                bytes = new byte[1 + i % 5];
                                for (int k = 0; k < bytes.length; k++) {
                                    bytes[k] = GARBAGE_BYTES[(i + k) % GARBAGE_BYTES.length];
                                }
                            }
                            sv.setSafe(i, bytes);
                        }
                        default -> throw new IllegalStateException();
                    }
                    if (nulls[i][c]) {
                        // The value stays behind the null.
                        BitVectorHelper.unsetBit(v.getValidityBuffer(), i);
                    }
                }
                v.setValueCount(n);
            }
            VectorSchemaRoot root = new VectorSchemaRoot(vectors);
            root.setRowCount(n);
            return new Arrow(root);
        } catch (RuntimeException e) {
            vectors.forEach(FieldVector::close);
            throw e;
        }
    }

    /** Replaces DuckDB's table {@code table} with these rows (and an {@code id} to order by). */
    void toDuckDb(Connection duckDb, String table) throws SQLException {
        StringBuilder create = new StringBuilder("CREATE OR REPLACE TABLE " + table + " (id INTEGER");
        StringBuilder insert = new StringBuilder("INSERT INTO " + table + " VALUES (?");
        for (int c = 0; c < NAMES.size(); c++) {
            create.append(", ").append(NAMES.get(c)).append(' ').append(TYPES.get(c).sql);
            insert.append(", ?");
        }
        try (Statement s = duckDb.createStatement()) {
            s.execute(create.append(')').toString());
        }
        if (rows() == 0) {
            return;
        }
        try (PreparedStatement p = duckDb.prepareStatement(insert.append(')').toString())) {
            for (int i = 0; i < rows(); i++) {
                p.setInt(1, i);
                for (int c = 0; c < NAMES.size(); c++) {
                    p.setObject(c + 2, cell(i, c));
                }
                p.addBatch();
            }
            p.executeBatch();
        }
    }
}
