package dev.quiver.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.expr.Operator;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.junit.jupiter.api.Test;

/**
 * String and binary comparisons ({@link StringOrder}) against a reference: code point order
 * ({@code String.codePoints()}, compared lexicographically) and {@code String.equals} for text,
 * unsigned bytes for binaries. The columns are hostile: empty strings, multi-byte UTF-8 on
 * either side of an 8-byte boundary, common prefixes longer than one and two words, nulls with
 * other strings' bytes behind them, a first offset above zero (a slice, with bytes of other
 * strings before it), and a data buffer that ends exactly where the last string does (no
 * padding to read a whole word from). Seeded: {@code -Dquiver.seed=<n>} replays.
 */
class StringOrderTest extends KernelTestBase {
    private static final long SEED = Long.getLong("quiver.seed", System.nanoTime());
    private static final Operator[] OPS = {
        Operator.EQ,
        Operator.NOT_EQ,
        Operator.LT,
        Operator.LT_EQ,
        Operator.GT,
        Operator.GT_EQ,
        Operator.IS_DISTINCT_FROM,
        Operator.IS_NOT_DISTINCT_FROM
    };

    /** Prefixes of 0 to 20 bytes that many strings share, so that rows differ late (in a second or third word). */
    private static final String[] PREFIXES = {"", "a", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghijklmnop", "é€"};

    private static final String[] TAILS = {
        "", "a", "b", "\u0000", "é", "e\u0301", "€", "\uD83D\uDE00", "\uFFFF", "\u007F", "zz", "A", "ab", "ba"
    };

    @Test
    void textOrdersAsItsCodePoints() {
        Random r = new Random(SEED);
        for (int round = 0; round < 40; round++) {
            int n = switch (round % 5) {
                case 0 -> 1;
                case 1 -> 63;
                case 2 -> 65;
                case 3 -> 1025;
                default -> 2 + r.nextInt(200);
            };
            List<String> xs = strings(r, n, 0.15);
            List<String> ys = strings(r, n, 0.15);
            String scalar = r.nextInt(6) == 0 ? null : string(r);
            for (DataType t : List.of(DataType.UTF8, DataType.LARGE_UTF8)) {
                for (boolean v : new boolean[] {true, false}) {
                    vectorApi = v;
                    check(t, xs, ys, scalar, r, "round " + round + (v ? "" : " (plain loops)"));
                }
            }
        }
    }

    @Test
    void binariesOrderAsUnsignedBytes() {
        Random r = new Random(SEED ^ 0x5EED);
        for (int round = 0; round < 20; round++) {
            int n = 1 + r.nextInt(300);
            List<byte[]> xs = new ArrayList<>();
            List<byte[]> ys = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                xs.add(r.nextInt(8) == 0 ? null : bytes(r));
                ys.add(r.nextInt(8) == 0 ? null : r.nextBoolean() && xs.getLast() != null ? xs.getLast() : bytes(r));
            }
            byte[] scalar = bytes(r);
            int lead = r.nextInt(12);
            vectorApi = round % 2 == 0;
            for (Operator op : OPS) {
                String what = "binary " + op.sql() + ", round " + round + (vectorApi ? "" : " (plain loops)")
                        + " (seed " + SEED + ")";
                List<Object> arrays = values(
                        compare(op, sliced(DataType.BINARY, xs, lead), sliced(DataType.BINARY, ys, 3), n, allocator),
                        n);
                List<Object> withScalar = values(
                        compare(
                                op,
                                sliced(DataType.BINARY, xs, lead),
                                new ColumnarValue.Scalar(new ScalarValue(DataType.BINARY, scalar)),
                                n,
                                allocator),
                        n);
                for (int i = 0; i < n; i++) {
                    assertEquals(expected(op, xs.get(i), ys.get(i)), arrays.get(i), what + ", row " + i);
                    assertEquals(expected(op, xs.get(i), scalar), withScalar.get(i), what + " scalar, row " + i);
                }
            }
        }
    }

    /** The same comparisons through the vectors Arrow writes itself (offsets from 0, padded buffers). */
    @Test
    void unslicedColumnsAgree() {
        vectorApi = true;
        List<Object> l = Arrays.asList("", "abcdefghijklmnopq", "abcdefghijklmnopq", "é", null, "abcdefgh", "x");
        List<Object> r = Arrays.asList("", "abcdefghijklmnopr", "abcdefghijklmnopq", "e", "a", "abcdefghi", "x");
        List<Object> lt = values(
                compare(Operator.LT, arr(DataType.UTF8, l.toArray()), arr(DataType.UTF8, r.toArray()), 7, allocator),
                7);
        assertEquals(Arrays.asList(false, true, false, false, null, true, false), lt);
        List<Object> eq = values(
                compare(Operator.EQ, arr(DataType.UTF8, l.toArray()), arr(DataType.UTF8, r.toArray()), 7, allocator),
                7);
        assertEquals(Arrays.asList(true, false, true, false, null, false, true), eq);
    }

    private void check(DataType t, List<String> xs, List<String> ys, String scalar, Random r, String round) {
        List<byte[]> xb = utf8(xs);
        List<byte[]> yb = utf8(ys);
        int n = xs.size();
        int leadX = r.nextInt(20);
        int leadY = r.nextInt(20);
        for (Operator op : OPS) {
            String what = t + " " + op.sql() + ", " + n + " rows, " + round + " (seed " + SEED + ")";
            List<Object> aa = values(compare(op, sliced(t, xb, leadX), sliced(t, yb, leadY), n, allocator), n);
            ColumnarValue.Scalar s =
                    new ColumnarValue.Scalar(scalar == null ? ScalarValue.nullOf(t) : new ScalarValue(t, scalar));
            List<Object> as = values(compare(op, sliced(t, xb, leadX), s, n, allocator), n);
            List<Object> sa = values(compare(op, s, sliced(t, yb, leadY), n, allocator), n);
            for (int i = 0; i < n; i++) {
                expect(what + ", array op array", i, xs.get(i), ys.get(i), expected(op, xs.get(i), ys.get(i)), aa);
                expect(what + ", array op scalar", i, xs.get(i), scalar, expected(op, xs.get(i), scalar), as);
                expect(what + ", scalar op array", i, scalar, ys.get(i), expected(op, scalar, ys.get(i)), sa);
            }
        }
    }

    /** Whether the comparisons use the Vector API's length check: every case runs with it and with the plain loops. */
    private boolean vectorApi;

    private ColumnarValue compare(Operator op, ColumnarValue l, ColumnarValue r, int rows, BufferAllocator a) {
        return ComparisonKernels.compare(op, l, r, rows, a, vectorApi);
    }

    private static void expect(String what, int row, Object x, Object y, Object expected, List<Object> actual) {
        if (!Objects.equals(expected, actual.get(row))) {
            fail(what + ": row " + row + " ('" + x + "', '" + y + "'): expected " + expected + ", got "
                    + actual.get(row));
        }
    }

    private static Boolean expected(Operator op, Object x, Object y) {
        if (x == null || y == null) {
            boolean both = x == null && y == null;
            return switch (op) {
                case IS_DISTINCT_FROM -> !both;
                case IS_NOT_DISTINCT_FROM -> both;
                default -> null;
            };
        }
        int c;
        boolean equal;
        if (x instanceof String a) {
            c = Integer.signum(Arrays.compare(
                    a.codePoints().toArray(), ((String) y).codePoints().toArray()));
            equal = a.equals(y);
        } else {
            c = Integer.signum(Arrays.compareUnsigned((byte[]) x, (byte[]) y));
            equal = Arrays.equals((byte[]) x, (byte[]) y);
        }
        if (equal != (c == 0)) {
            throw new AssertionError("the reference disagrees with itself on " + x + " and " + y);
        }
        return switch (op) {
            case EQ, IS_NOT_DISTINCT_FROM -> equal;
            case NOT_EQ, IS_DISTINCT_FROM -> !equal;
            case LT -> c < 0;
            case LT_EQ -> c <= 0;
            case GT -> c > 0;
            case GT_EQ -> c >= 0;
            default -> throw new AssertionError(op);
        };
    }

    private static List<String> strings(Random r, int n, double nulls) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            // Neighbours often equal, or equal but for the last character, so that equal lengths are common.
            out.add(
                    r.nextDouble() < nulls
                            ? null
                            : i > 0 && r.nextInt(4) == 0 && out.getLast() != null ? out.getLast() : string(r));
        }
        return out;
    }

    private static String string(Random r) {
        StringBuilder sb = new StringBuilder(PREFIXES[r.nextInt(PREFIXES.length)]);
        int parts = r.nextInt(4);
        for (int k = 0; k < parts; k++) {
            sb.append(TAILS[r.nextInt(TAILS.length)]);
        }
        return sb.toString();
    }

    private static byte[] bytes(Random r) {
        byte[] b = new byte[r.nextInt(26)];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte)
                    switch (r.nextInt(4)) {
                        case 0 -> 0;
                        case 1 -> 0xFF;
                        case 2 -> 0x80;
                        default -> 'a' + r.nextInt(2);
                    };
        }
        return b;
    }

    private static List<byte[]> utf8(List<String> s) {
        return s.stream()
                .map(x -> x == null ? null : x.getBytes(StandardCharsets.UTF_8))
                .toList();
    }

    /**
     * A column of {@code values} whose first offset is {@code lead}: the bytes before it, and behind each null row, are
     * those of other rows (so a kernel that reads them gets a plausible wrong answer); its data buffer ends with the
     * last row's bytes.
     */
    private ColumnarValue.Array sliced(DataType t, List<byte[]> values, int lead) {
        int n = values.size();
        List<byte[]> stored = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] v = values.get(i);
            // Behind a null: a copy of the row before it, or nothing.
            stored.add(
                    v != null ? v : i > 0 && stored.get(i - 1) != null && i % 2 == 0 ? stored.get(i - 1) : new byte[0]);
        }
        int total = lead + stored.stream().mapToInt(b -> b.length).sum();
        boolean large = t instanceof DataType.Utf8 u && u.large();
        int width = large ? 8 : 4;
        FieldVector v = t instanceof DataType.Binary
                ? new VarBinaryVector("s", allocator)
                : large ? new LargeVarCharVector("s", allocator) : new VarCharVector("s", allocator);
        try (ArrowBuf validity = allocator.buffer(Math.max(8, (n + 7) / 8));
                ArrowBuf offsets = allocator.buffer((long) (n + 1) * width);
                ArrowBuf whole = allocator.buffer(Math.max(1, total))) {
            validity.setZero(0, validity.capacity());
            int nulls = 0;
            long at = lead;
            for (int k = 0; k < lead; k++) {
                whole.setByte(k, 'a' + k % 3);
            }
            for (int i = 0; i < n; i++) {
                if (values.get(i) != null) {
                    validity.setByte(i >> 3, validity.getByte(i >> 3) | (1 << (i & 7)));
                } else {
                    nulls++;
                }
                setOffset(offsets, large, i, at);
                whole.setBytes(at, stored.get(i));
                at += stored.get(i).length;
            }
            setOffset(offsets, large, n, at);
            // Exactly the bytes up to the last row's end: no padding a word could be read from.
            ArrowBuf data = whole.slice(0, total);
            v.loadFieldBuffers(new ArrowFieldNode(n, nulls), List.of(validity, offsets, data));
        } catch (RuntimeException e) {
            v.close();
            throw e;
        }
        track(v);
        return ColumnarValue.Array.borrowed(v);
    }

    private static void setOffset(ArrowBuf offsets, boolean large, int row, long value) {
        if (large) {
            offsets.setLong((long) row * 8, value);
        } else {
            offsets.setInt((long) row * 4, (int) value);
        }
    }
}
