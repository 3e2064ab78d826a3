package dev.quiver.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.types.DataType;
import dev.quiver.value.Values;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Gathering a per-entry table by dictionary indices, against a per-row lookup written here: every
 * layout (Boolean, fixed widths 1 to 16, Utf8, LargeUtf8, Binary), every index width and
 * signedness, null rows with garbage behind them (out-of-range and negative values included),
 * null entries, the entry for a null index, lengths around the 64-row word, and a valid index
 * outside the dictionary refused.
 */
class DictionaryTableTest extends KernelTestBase {
    private static final List<DataType> TYPES = List.of(
            DataType.BOOLEAN,
            DataType.INT8,
            DataType.INT16,
            DataType.INT32,
            DataType.INT64,
            DataType.FLOAT64,
            new DataType.Decimal(20, 2),
            DataType.UTF8,
            DataType.LARGE_UTF8,
            DataType.BINARY);

    @ParameterizedTest
    @CsvSource({"8, true", "8, false", "16, true", "16, false", "32, true", "32, false", "64, true", "64, false"})
    void everyLayoutGathersEveryIndexAndTheNullEntry(int bits, boolean signed) {
        Random random = new Random(bits * 31L + (signed ? 1 : 0));
        for (DataType type : TYPES) {
            for (int rows : new int[] {0, 1, 63, 64, 65, 130, 1000}) {
                int size = 1 + random.nextInt(bits == 8 ? 100 : 300);
                List<Object> entries = new ArrayList<>();
                for (int i = 0; i <= size; i++) {
                    entries.add(random.nextInt(6) == 0 ? null : value(type, random));
                }
                long[] index = new long[rows];
                boolean[] isNull = new boolean[rows];
                try (FieldVector perEntry = Values.of(type, "t", entries, allocator);
                        FieldVector v = indices(bits, signed, rows)) {
                    for (int r = 0; r < rows; r++) {
                        isNull[r] = random.nextInt(5) == 0;
                        // Garbage behind a null: anything, also outside the dictionary and negative.
                        index[r] = isNull[r] ? random.nextInt(1 << 7) - 64 : random.nextInt(size);
                        ((BaseIntVector) v).setWithPossibleTruncate(r, index[r]);
                        if (isNull[r]) {
                            ((BaseFixedWidthVector) v).setNull(r);
                        }
                    }
                    v.setValueCount(rows);
                    DictionaryTable table = DictionaryTable.of(perEntry);
                    assertEquals(size + 1, table.entries());
                    try (FieldVector out = table.gather(v, allocator)) {
                        assertEquals(rows, out.getValueCount());
                        assertEquals(
                                perEntry.getField().getType(), out.getField().getType());
                        for (int r = 0; r < rows; r++) {
                            int e = isNull[r] ? size : (int) index[r];
                            String at = type + " " + bits + "/" + signed + " rows " + rows + " row " + r;
                            assertEquals(Values.get(perEntry, e), Values.get(out, r), at);
                        }
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @CsvSource({
        "8, true, -1",
        "8, false, 200",
        "16, true, 5",
        "32, true, -2147483648",
        "32, false, -1",
        "64, true, 4294967296"
    })
    void aValidIndexOutsideTheDictionaryIsRefused(int bits, boolean signed, long bad) {
        try (FieldVector perEntry =
                        Values.of(DataType.UTF8, "t", Arrays.asList("a", "b", null, "c", "d", null), allocator);
                FieldVector flags = Values.of(
                        DataType.BOOLEAN, "f", Arrays.asList(true, false, true, null, true, null), allocator);
                FieldVector v = indices(bits, signed, 70)) {
            for (int r = 0; r < 70; r++) {
                ((BaseIntVector) v).setWithPossibleTruncate(r, r == 66 ? bad : r % 5);
            }
            v.setValueCount(70);
            for (FieldVector t : List.of(perEntry, flags)) {
                DictionaryTable table = DictionaryTable.of(t);
                IndexOutOfBoundsException e =
                        assertThrows(IndexOutOfBoundsException.class, () -> table.gather(v, allocator));
                assertTrue(e.getMessage().contains("row 66"), e.getMessage());
            }
        }
    }

    @Test
    void onlyFlatResultsAndIntegerIndicesAreTabled() {
        try (Float8Vector f = new Float8Vector("f", allocator);
                ListVector list = ListVector.empty("l", allocator);
                FieldVector v = indices(16, true, 1)) {
            assertFalse(DictionaryTable.readable(f));
            assertTrue(DictionaryTable.readable(v));
            list.allocateNew();
            list.setValueCount(1);
            assertNull(DictionaryTable.of(list));
        }
    }

    private static Object value(DataType type, Random random) {
        return switch (type) {
            case DataType.Bool _ -> random.nextBoolean();
            case DataType.Int i when i.bitWidth() == 8 -> (byte) random.nextInt();
            case DataType.Int i when i.bitWidth() == 16 -> (short) random.nextInt();
            case DataType.Int i when i.bitWidth() == 32 -> random.nextInt();
            case DataType.Int _ -> random.nextLong();
            case DataType.FloatingPoint _ -> random.nextGaussian();
            case DataType.Decimal _ -> BigDecimal.valueOf(random.nextLong() % 1_000_000_000_000L, 2);
            case DataType.Utf8 _ -> "v" + "é".repeat(random.nextInt(3)) + random.nextInt(1000);
            case DataType.Binary _ -> new byte[] {(byte) random.nextInt(), 0, (byte) random.nextInt(7)};
            default -> throw new IllegalArgumentException(type.toString());
        };
    }

    private FieldVector indices(int bits, boolean signed, int rows) {
        FieldVector v =
                new Field("m", FieldType.nullable(new ArrowType.Int(bits, signed)), null).createVector(allocator);
        ((BaseFixedWidthVector) v).allocateNew(Math.max(rows, 1));
        return v;
    }

    @Test
    void aDecodingTableGathersTheValuesAndANullForANullIndex() {
        Random rnd = new Random(9);
        try (VarCharVector dict = new VarCharVector("dict", allocator);
                IntVector indices = new IntVector("ix", allocator)) {
            String[] words = {"A", "NN", null, "a longer value than sixteen bytes"};
            dict.allocateNew();
            for (int i = 0; i < words.length; i++) {
                if (words[i] == null) {
                    dict.setNull(i);
                } else {
                    dict.setSafe(i, words[i].getBytes(StandardCharsets.UTF_8));
                }
            }
            dict.setValueCount(words.length);
            int rows = 200;
            indices.allocateNew(rows);
            List<String> expected = new ArrayList<>();
            for (int k = 0; k < rows; k++) {
                if (rnd.nextInt(5) == 0) {
                    indices.set(k, 1_000_000); // garbage behind a null
                    indices.setNull(k);
                    expected.add(null);
                } else {
                    int i = rnd.nextInt(words.length);
                    indices.set(k, i);
                    expected.add(words[i]);
                }
            }
            indices.setValueCount(rows);
            try (FieldVector out = DictionaryTable.decoding(dict).gather(indices, allocator)) {
                assertEquals(rows, out.getValueCount());
                List<String> got = new ArrayList<>();
                for (int k = 0; k < rows; k++) {
                    Object v = out.getObject(k);
                    got.add(v == null ? null : v.toString());
                }
                assertEquals(expected, got, "seed 9");
            }
        }
        assertEquals(0, allocator.getAllocatedMemory());
    }
}
