package dev.quiver.strings;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CoderResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link Utf8}, {@link Utf8Input} and {@link Utf8Output} against the JDK's own UTF-8 codec. */
class Utf8Test {
    private final BufferAllocator allocator = new RootAllocator();

    @AfterEach
    void zero() {
        assertEquals(0, allocator.getAllocatedMemory());
        allocator.close();
    }

    private static MemorySegment segment(Arena arena, byte[] b) {
        MemorySegment s = arena.allocate(Math.max(1, b.length));
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, 0, b.length);
        return s.asSlice(0, b.length);
    }

    /** The JDK's strict decoder: the reference for validity. */
    static boolean jdkValid(byte[] b) {
        try {
            StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(b));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    @Test
    void validationAgreesWithTheJdkOnRandomAndCraftedBytes() {
        Random r = new Random(7);
        List<byte[]> cases = new ArrayList<>();
        int[][] crafted = {
            {0xC0, 0x80},
            {0xC1, 0xBF},
            {0xE0, 0x80, 0x80},
            {0xE0, 0xA0, 0x80},
            {0xED, 0xA0, 0x80},
            {0xED, 0x9F, 0xBF},
            {0xF0, 0x8F, 0xBF, 0xBF},
            {0xF0, 0x90, 0x80, 0x80},
            {0xF4, 0x8F, 0xBF, 0xBF},
            {0xF4, 0x90, 0x80, 0x80},
            {0xF5, 0x80, 0x80, 0x80},
            {0xFF},
            {0x80},
            {0xC3},
            {0xE2, 0x82},
            {0x61, 0xE2, 0x82, 0xAC}
        };
        for (int[] c : crafted) {
            byte[] b = new byte[c.length];
            for (int i = 0; i < c.length; i++) {
                b[i] = (byte) c[i];
            }
            cases.add(b);
        }
        for (int i = 0; i < 20_000; i++) {
            byte[] b = new byte[r.nextInt(24)];
            for (int k = 0; k < b.length; k++) {
                b[k] = (byte)
                        (r.nextInt(3) == 0
                                ? r.nextInt(256)
                                : r.nextInt(3) == 0 ? 0x80 | r.nextInt(64) : r.nextInt(128));
            }
            cases.add(b);
            cases.add(("ab€𝄞ßz" + i).getBytes(StandardCharsets.UTF_8));
        }
        try (Arena arena = Arena.ofConfined()) {
            for (byte[] b : cases) {
                MemorySegment s = segment(arena, b);
                long bad = Utf8.firstInvalid(s, 0, b.length);
                assertEquals(jdkValid(b), bad < 0, () -> HexFormat.of().formatHex(b));
                if (bad >= 0) {
                    assertTrue(
                            jdkValid(Arrays.copyOf(b, (int) bad)), "the bytes before the first invalid one are valid");
                } else {
                    String text = new String(b, StandardCharsets.UTF_8);
                    assertEquals(text.codePointCount(0, text.length()), Utf8.codePoints(s, 0, b.length));
                    assertEquals(isAscii(b), Utf8.isAscii(s, 0, b.length));
                }
            }
        }
    }

    private static boolean isAscii(byte[] b) {
        for (byte x : b) {
            if (x < 0) {
                return false;
            }
        }
        return true;
    }

    @Test
    void asciiCaseMappingOfWholeWordsMatchesTheJdk() {
        Random r = new Random(3);
        for (int i = 0; i < 100_000; i++) {
            long w = r.nextLong() & 0x7F7F_7F7F_7F7F_7F7FL;
            byte[] b = new byte[8];
            for (int k = 0; k < 8; k++) {
                b[k] = (byte) (w >>> (k * 8));
            }
            String s = new String(b, StandardCharsets.US_ASCII);
            assertEquals(s.toUpperCase(Locale.ROOT), ascii(Utf8.upperAsciiWord(w)));
            assertEquals(s.toLowerCase(Locale.ROOT), ascii(Utf8.lowerAsciiWord(w)));
        }
    }

    private static String ascii(long w) {
        byte[] b = new byte[8];
        for (int k = 0; k < 8; k++) {
            b[k] = (byte) (w >>> (k * 8));
        }
        return new String(b, StandardCharsets.US_ASCII);
    }

    @Test
    void outputGrowsFromATinyHintAndReadsBackThroughInput() {
        for (boolean large : new boolean[] {false, true}) {
            Random r = new Random(11);
            List<String> expected = new ArrayList<>();
            FieldVector v;
            try (Utf8Output out = Utf8Output.allocate(large, "s", 5_000, 1, allocator)) {
                for (int i = 0; i < 5_000; i++) {
                    if (r.nextInt(5) == 0) {
                        out.append((byte) 'x');
                        out.nullRow();
                        expected.add(null);
                        continue;
                    }
                    StringBuilder sb = new StringBuilder();
                    int n = r.nextInt(40);
                    for (int k = 0; k < n; k++) {
                        int cp = switch (r.nextInt(4)) {
                            case 0 -> 'a' + r.nextInt(26);
                            case 1 -> 0xE9;
                            case 2 -> 0x20AC;
                            default -> 0x1D11E;
                        };
                        sb.appendCodePoint(cp);
                        out.appendCodePoint(cp);
                    }
                    out.endRow();
                    expected.add(sb.toString());
                }
                v = out.finish();
            }
            try (v;
                    Utf8Input in = Utf8Input.of(v)) {
                assertEquals(large, v instanceof LargeVarCharVector);
                assertEquals(5_000, in.rows());
                assertFalse(in.isAllAscii());
                in.checkValid("s");
                for (int i = 0; i < expected.size(); i++) {
                    String e = expected.get(i);
                    assertEquals(e == null, v.isNull(i));
                    if (e != null) {
                        assertEquals(e, in.string(i));
                        byte[] viaArrow = large ? ((LargeVarCharVector) v).get(i) : ((VarCharVector) v).get(i);
                        assertArrayEquals(e.getBytes(StandardCharsets.UTF_8), viaArrow);
                    } else {
                        assertNull(large ? ((LargeVarCharVector) v).get(i) : ((VarCharVector) v).get(i));
                    }
                }
            }
        }
    }

    @Test
    void invalidUtf8IsReportedWithTheRowAndIgnoredBehindNulls() {
        try (VarCharVector v = new VarCharVector("name", allocator)) {
            v.allocateNew(4);
            v.setSafe(0, "ok".getBytes(StandardCharsets.UTF_8));
            v.setSafe(1, new byte[] {(byte) 0xC3});
            v.setSafe(2, "fine é".getBytes(StandardCharsets.UTF_8));
            v.setSafe(3, new byte[] {'a', 'b', (byte) 0xFF});
            v.setValueCount(4);
            v.setNull(1);
            InvalidUtf8Exception e = assertThrows(InvalidUtf8Exception.class, () -> Utf8Input.check(v, "name"));
            assertEquals(3, e.row());
            assertEquals(2, e.byteIndex());
            assertTrue(e.getMessage().contains("column 'name' at row 3"), e.getMessage());
        }
    }

    /** Where the JDK's strict decoder finds the first malformed sequence of {@code b}, or -1: the reference for byte indices. */
    private static int jdkFirstInvalid(byte[] b) {
        ByteBuffer in = ByteBuffer.wrap(b);
        CoderResult result =
                StandardCharsets.UTF_8.newDecoder().decode(in, CharBuffer.allocate(2 * b.length + 2), true);
        return result.isError() ? in.position() : -1;
    }

    @Test
    void checkingAColumnFindsTheFirstInvalidRowAsTheJdkDoesRowByRow() {
        long seed = 20_251_203L;
        Random r = new Random(seed);
        byte[][] planted = {
            "é".getBytes(StandardCharsets.UTF_8),
            "€".getBytes(StandardCharsets.UTF_8),
            "𝄞".getBytes(StandardCharsets.UTF_8),
            {(byte) 0xFF},
            {(byte) 0x80},
            {(byte) 0xC3},
            {(byte) 0xE0, (byte) 0x80, (byte) 0x80},
            {(byte) 0xED, (byte) 0xA0, (byte) 0x80}
        };
        int thrown = 0;
        for (int column = 0; column < 400; column++) {
            boolean large = column % 2 == 1;
            int rows = column < 100 ? column : r.nextInt(2_000);
            int plantEvery = 2 + r.nextInt(column % 3 == 0 ? 400 : 40); // some columns mostly ASCII, some dense
            byte[][] values = new byte[rows][];
            boolean[] nulls = new boolean[rows];
            for (int i = 0; i < rows; i++) {
                byte[] b = new byte[r.nextInt(80)];
                for (int k = 0; k < b.length; k++) {
                    b[k] = (byte) (' ' + r.nextInt(95));
                }
                if (b.length > 0 && r.nextInt(plantEvery) == 0) {
                    // Invalid sequences ten times rarer than valid ones, so that many columns pass.
                    byte[] seq = planted[r.nextInt(10) == 0 ? 3 + r.nextInt(planted.length - 3) : r.nextInt(3)];
                    int at = r.nextInt(b.length);
                    b = Arrays.copyOf(b, Math.max(b.length, at + seq.length));
                    System.arraycopy(seq, 0, b, at, seq.length);
                }
                values[i] = b;
                nulls[i] = r.nextInt(8) == 0;
            }
            int expectedRow = -1;
            int expectedByte = -1;
            boolean ascii = true;
            for (int i = 0; i < rows; i++) {
                ascii &= isAscii(values[i]); // behind nulls too: the data buffer's bytes
                int bad = jdkFirstInvalid(values[i]);
                if (expectedRow < 0 && !nulls[i] && bad >= 0) {
                    expectedRow = i;
                    expectedByte = bad;
                }
            }
            try (FieldVector v = large ? new LargeVarCharVector("s", allocator) : new VarCharVector("s", allocator)) {
                for (int i = 0; i < rows; i++) {
                    if (large) {
                        ((LargeVarCharVector) v).setSafe(i, values[i]);
                    } else {
                        ((VarCharVector) v).setSafe(i, values[i]);
                    }
                    if (nulls[i]) { // its bytes stay behind it
                        v.getValidityBuffer()
                                .setByte(i >> 3, v.getValidityBuffer().getByte(i >> 3) & ~(1 << (i & 7)));
                    }
                }
                v.setValueCount(rows);
                String what = "column " + column + ", " + rows + " rows (seed " + seed + ")";
                try (Utf8Input in = Utf8Input.of(v)) {
                    if (expectedRow < 0) {
                        in.checkValid("s");
                    } else {
                        InvalidUtf8Exception e =
                                assertThrows(InvalidUtf8Exception.class, () -> in.checkValid("s"), what);
                        assertEquals(expectedRow, e.row(), what);
                        assertEquals(expectedByte, e.byteIndex(), what);
                        thrown++;
                    }
                    assertEquals(ascii, in.isAllAscii(), what);
                }
            }
        }
        assertTrue(thrown > 50 && thrown < 350, thrown + " of 400 columns invalid: both outcomes are tested");
    }
}
