package dev.quiver.functions.builtin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.errors.EvaluationException;
import dev.quiver.functions.ExecutionConfig;
import dev.quiver.functions.FunctionRegistry;
import dev.quiver.functions.PlanningException;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The searching and composing string functions (contains, starts_with, ends_with, strpos,
 * replace, split_part, concat, strict_concat, concat_ws, regexp_matches, regexp_replace) called
 * through the registry, against plain-Java references ({@link String} semantics per code point)
 * on generated strings: ASCII, multi-byte (é, €, 日本語, 𝄞), empty, NULL rows with garbage
 * (invalid UTF-8 and the needles themselves) behind them, 100 KB strings, batches of 0, 1, 63,
 * 64, 65 and 1000 rows, Utf8 and LargeUtf8, constant and per-row needles. Seeded: the seed is
 * printed.
 */
class StringSearchFunctionsTest {
    private static final int[] SIZES = {0, 1, 63, 64, 65, 1000};
    private static final String[] PIECES = {"a", "b", "c", "abc", ",", "é", "€", "日本語", "𝄞", "x", "ab", "bc", " "};
    private static final long SEED = Long.getLong("quiver.seed", System.nanoTime());

    private RootAllocator root;
    private BufferAllocator allocator;
    private ExecutionConfig config;
    private final FunctionRegistry registry = FunctionRegistry.withDefaults();
    private final List<FieldVector> inputs = new ArrayList<>();
    private Random rnd;

    @BeforeEach
    void open() {
        root = new RootAllocator();
        allocator = root.newChildAllocator("test", 0, Long.MAX_VALUE);
        config = new ExecutionConfig(allocator, Instant.EPOCH, true, Map.of());
        System.out.println("StringSearchFunctionsTest seed " + SEED + " (replay with -Dquiver.seed=" + SEED + ")");
        rnd = new Random(SEED);
    }

    @AfterEach
    void close() {
        inputs.forEach(FieldVector::close);
        inputs.clear();
        assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked");
        allocator.close();
        root.close();
    }

    // ---------------------------------------------------------------- data

    private String randomString(boolean ascii) {
        int kind = rnd.nextInt(10);
        if (kind == 0) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        int n = rnd.nextInt(kind < 8 ? 8 : 30);
        for (int i = 0; i < n; i++) {
            String p = PIECES[rnd.nextInt(PIECES.length)];
            if (ascii && p.chars().anyMatch(c -> c >= 0x80)) {
                p = "ab";
            }
            sb.append(p);
        }
        return sb.toString();
    }

    private List<String> randomStrings(int n, boolean ascii, double nullRate) {
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(rnd.nextDouble() < nullRate ? null : randomString(ascii));
        }
        return out;
    }

    /** A string vector of {@code values}; null rows hold garbage bytes (invalid UTF-8, needles). */
    FieldVector strings(List<String> values, boolean large) {
        FieldVector v = large ? new LargeVarCharVector("s", allocator) : new VarCharVector("s", allocator);
        inputs.add(v);
        v.allocateNew();
        byte[][] garbage = {
            {(byte) 0xFF, (byte) 0xC3},
            "abc".getBytes(StandardCharsets.UTF_8),
            ",".getBytes(StandardCharsets.UTF_8),
            {(byte) 0x80, 'a', 'b', 'c', (byte) 0xE2},
            new byte[0]
        };
        for (int i = 0; i < values.size(); i++) {
            String s = values.get(i);
            byte[] b = s == null ? garbage[rnd.nextInt(garbage.length)] : s.getBytes(StandardCharsets.UTF_8);
            if (large) {
                ((LargeVarCharVector) v).setSafe(i, b);
            } else {
                ((VarCharVector) v).setSafe(i, b);
            }
        }
        v.setValueCount(values.size());
        for (int i = 0; i < values.size(); i++) {
            if (values.get(i) == null) {
                BitVectorHelper.unsetBit(v.getValidityBuffer(), i);
            }
        }
        if (large) {
            ((BaseLargeVariableWidthVector) v).setLastSet(values.size() - 1);
        } else {
            ((BaseVariableWidthVector) v).setLastSet(values.size() - 1);
        }
        return v;
    }

    private static ColumnarValue.Scalar str(String s, boolean large) {
        return new ColumnarValue.Scalar(new ScalarValue(large ? DataType.LARGE_UTF8 : DataType.UTF8, s));
    }

    private static ColumnarValue.Scalar int64(Long n) {
        return new ColumnarValue.Scalar(new ScalarValue(DataType.INT64, n));
    }

    // ---------------------------------------------------------------- calling

    /** Calls {@code name} as the planner would: bind with the scalar arguments as literals, invoke, read the rows. */
    private List<Object> call(String name, int rows, ColumnarValue... args) {
        ScalarFunction fn = registry.lookup(name);
        List<DataType> types = Arrays.stream(args).map(ColumnarValue::dataType).toList();
        List<Optional<ScalarValue>> literals = Arrays.stream(args)
                .map(a -> a instanceof ColumnarValue.Scalar s ? Optional.of(s.value()) : Optional.<ScalarValue>empty())
                .toList();
        ScalarFunction bound = fn.bind(types, literals);
        DataType rt = bound.returnType(types);
        List<Field> fields = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) {
            fields.add(types.get(i).toField("arg" + i, true));
        }
        boolean allScalar = Arrays.stream(args).allMatch(a -> a instanceof ColumnarValue.Scalar);
        try (ColumnarValue out =
                bound.invoke(new ScalarFunctionArgs(List.of(args), fields, rows, rt.toField(name, true), config))) {
            List<Object> values = new ArrayList<>();
            if (out instanceof ColumnarValue.Scalar s) {
                assertTrue(allScalar, name + " returned a scalar for array arguments");
                values.add(s.value().value());
            } else {
                FieldVector v = ((ColumnarValue.Array) out).vector();
                assertEquals(rt, DataType.fromField(v.getField()), name + " result type");
                assertEquals(allScalar ? 1 : rows, v.getValueCount());
                for (int i = 0; i < v.getValueCount(); i++) {
                    values.add(Values.get(v, i).value());
                }
            }
            return values;
        }
    }

    private static ColumnarValue.Array array(FieldVector v) {
        return ColumnarValue.Array.borrowed(v);
    }

    // ---------------------------------------------------------------- references

    static Object strpos(String s, String n) {
        int i = s.indexOf(n);
        return i < 0 ? 0L : (long) s.codePointCount(0, i) + 1;
    }

    static String splitPart(String s, String d, long n) {
        List<String> parts = new ArrayList<>();
        if (d.isEmpty()) {
            s.codePoints().forEach(cp -> parts.add(new String(Character.toChars(cp))));
        } else {
            int p = 0;
            for (int q = s.indexOf(d); q >= 0; q = s.indexOf(d, p)) {
                parts.add(s.substring(p, q));
                p = q + d.length();
            }
            parts.add(s.substring(p));
        }
        long index = n > 0 ? n - 1 : parts.size() + n;
        return n == 0 || index < 0 || index >= parts.size() ? "" : parts.get((int) index);
    }

    private void searchCase(String fn, BiFunction<String, String, Object> ref, int rows, boolean ascii, boolean large) {
        List<String> s = randomStrings(rows, ascii, 0.2);
        FieldVector sv = strings(s, large);
        for (String needle : new String[] {"abc", "a", "", "日本語", "𝄞", "b,", "abcabcabcabc"}) {
            List<Object> got = call(fn, rows, array(sv), str(needle, large));
            for (int i = 0; i < rows; i++) {
                Object want = s.get(i) == null ? null : ref.apply(s.get(i), needle);
                assertEquals(want, got.get(i), fn + "('" + s.get(i) + "', '" + needle + "') row " + i + " of " + rows);
            }
        }
        // A needle per row, with NULL needles.
        List<String> needles = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            needles.add(
                    rnd.nextInt(8) == 0
                            ? null
                            : s.get(i) != null && rnd.nextBoolean() && !s.get(i).isEmpty()
                                    ? s.get(i).substring(rnd.nextInt(s.get(i).length()))
                                    : PIECES[rnd.nextInt(PIECES.length)]);
        }
        needles.replaceAll(x -> x != null && !x.isEmpty() && Character.isLowSurrogate(x.charAt(0)) ? "x" : x);
        List<Object> got = call(fn, rows, array(sv), array(strings(needles, large)));
        for (int i = 0; i < rows; i++) {
            Object want = s.get(i) == null || needles.get(i) == null ? null : ref.apply(s.get(i), needles.get(i));
            assertEquals(want, got.get(i), fn + " with a needle per row, row " + i);
        }
    }

    private void forAllShapes(String fn, BiFunction<String, String, Object> ref) {
        for (int rows : SIZES) {
            for (boolean ascii : new boolean[] {true, false}) {
                for (boolean large : new boolean[] {false, true}) {
                    searchCase(fn, ref, rows, ascii, large);
                }
            }
        }
    }

    // ---------------------------------------------------------------- tests

    @Test
    void containsStartsWithEndsWithAndStrposAgreeWithJavaStrings() {
        forAllShapes("contains", (s, n) -> s.contains(n));
        forAllShapes("starts_with", (s, n) -> s.startsWith(n));
        forAllShapes("ends_with", (s, n) -> s.endsWith(n));
        forAllShapes("suffix", (s, n) -> s.endsWith(n));
        forAllShapes("strpos", StringSearchFunctionsTest::strpos);
        forAllShapes("instr", StringSearchFunctionsTest::strpos);
        forAllShapes("position", StringSearchFunctionsTest::strpos);
    }

    @Test
    void aNeedleSplitAcrossTwoRowsIsNoMatch() {
        List<String> s = Arrays.asList("xab", "cyy", "a", "bc", "ab", null, "c", "abc", "€a", "bc€");
        FieldVector sv = strings(s, false);
        assertEquals(
                Arrays.asList(false, false, false, false, false, null, false, true, false, false),
                call("contains", s.size(), array(sv), str("abc", false)));
        assertEquals(
                Arrays.asList(0L, 0L, 0L, 0L, 0L, null, 0L, 1L, 0L, 0L),
                call("strpos", s.size(), array(sv), str("abc", false)));
        assertEquals(
                Arrays.asList("xab", "cyy", "a", "bc", "ab", null, "c", "X", "€a", "bc€"),
                call("replace", s.size(), array(sv), str("abc", false), str("X", false)));
    }

    @Test
    void veryLongStrings() {
        StringBuilder sb = new StringBuilder();
        while (sb.length() < 100_000) {
            sb.append(randomString(false));
        }
        String big = sb.toString();
        String bigAscii = big.replaceAll("[^\\x00-\\x7F]", "q");
        for (String b : new String[] {big, bigAscii}) {
            List<String> s = Arrays.asList(b, b + "needle!", null, "needle!" + b, b);
            FieldVector sv = strings(s, false);
            int from = b.offsetByCodePoints(0, 40_000);
            for (String n : new String[] {"needle!", "abc", b.substring(from, b.offsetByCodePoints(from, 100))}) {
                List<Object> got = call("strpos", s.size(), array(sv), str(n, false));
                List<Object> cont = call("contains", s.size(), array(sv), str(n, false));
                List<Object> rep = call("replace", s.size(), array(sv), str(n, false), str("<>", false));
                for (int i = 0; i < s.size(); i++) {
                    assertEquals(s.get(i) == null ? null : strpos(s.get(i), n), got.get(i));
                    assertEquals(s.get(i) == null ? null : s.get(i).contains(n), cont.get(i));
                    assertEquals(s.get(i) == null ? null : s.get(i).replace(n, "<>"), rep.get(i));
                }
            }
        }
    }

    @Test
    void replaceAndSplitPart() {
        for (int rows : SIZES) {
            for (boolean ascii : new boolean[] {true, false}) {
                for (boolean large : new boolean[] {false, true}) {
                    List<String> s = randomStrings(rows, ascii, 0.2);
                    FieldVector sv = strings(s, large);
                    for (String from : new String[] {"abc", "a", "", "日本語", "bcab", ","}) {
                        List<Object> got = call("replace", rows, array(sv), str(from, large), str("[é]", large));
                        for (int i = 0; i < rows; i++) {
                            Object want = s.get(i) == null
                                    ? null
                                    : from.isEmpty() ? s.get(i) : s.get(i).replace(from, "[é]");
                            assertEquals(want, got.get(i), "replace row " + i);
                        }
                    }
                    for (String d : new String[] {",", "", "ab", "日本語", "abc"}) {
                        for (long n : new long[] {1, 2, 3, 7, 0, -1, -2, -5, Long.MAX_VALUE, Long.MIN_VALUE}) {
                            List<Object> got = call("split_part", rows, array(sv), str(d, large), int64(n));
                            for (int i = 0; i < rows; i++) {
                                Object want = s.get(i) == null ? null : splitPart(s.get(i), d, n);
                                assertEquals(
                                        want, got.get(i), "split_part('" + s.get(i) + "', '" + d + "', " + n + ")");
                            }
                        }
                    }
                    // Per-row delimiter, from and to.
                    List<String> d = randomStrings(rows, ascii, 0.1);
                    d.replaceAll(
                            x -> x == null ? null : x.length() > 3 ? x.substring(0, x.offsetByCodePoints(0, 1)) : x);
                    FieldVector dv = strings(d, large);
                    List<Object> parts = call("split_part", rows, array(sv), array(dv), int64(2L));
                    List<Object> reps = call("replace", rows, array(sv), array(dv), array(sv));
                    for (int i = 0; i < rows; i++) {
                        boolean isNull = s.get(i) == null || d.get(i) == null;
                        assertEquals(
                                isNull ? null : splitPart(s.get(i), d.get(i), 2),
                                parts.get(i),
                                "split_part per row " + i);
                        assertEquals(
                                isNull
                                        ? null
                                        : d.get(i).isEmpty()
                                                ? s.get(i)
                                                : s.get(i).replace(d.get(i), s.get(i)),
                                reps.get(i),
                                "replace per row " + i);
                    }
                }
            }
        }
        assertEquals(List.of("ba"), call("replace", 1, str("aaa", false), str("aa", false), str("b", false)));
        assertEquals(
                Arrays.asList((Object) null), call("replace", 1, str("aaa", false), str(null, false), str("b", false)));
        assertEquals(
                Arrays.asList((Object) null), call("split_part", 1, str("a,b", false), str(",", false), int64(null)));
    }

    @Test
    void concatSkipsNullsStrictConcatDoesNotConcatWsSkipsSeparators() {
        for (int rows : SIZES) {
            for (boolean large : new boolean[] {false, true}) {
                List<String> a = randomStrings(rows, false, 0.3);
                List<String> b = randomStrings(rows, true, 0.3);
                List<String> sep = randomStrings(rows, false, 0.2);
                FieldVector av = strings(a, large);
                FieldVector bv = strings(b, false);
                FieldVector sv = strings(sep, false);
                List<Object> concat = call("concat", rows, array(av), str("-", false), array(bv), str(null, false));
                List<Object> strict = call("strict_concat", rows, array(av), str("-", false), array(bv));
                List<Object> ws =
                        call("concat_ws", rows, array(sv), array(av), str(null, false), array(bv), str("z", false));
                List<Object> wsConst = call("concat_ws", rows, str("|", false), array(av), array(bv));
                for (int i = 0; i < rows; i++) {
                    String x = a.get(i);
                    String y = b.get(i);
                    assertEquals((x == null ? "" : x) + "-" + (y == null ? "" : y), concat.get(i), "concat row " + i);
                    assertEquals(x == null || y == null ? null : x + "-" + y, strict.get(i), "strict_concat row " + i);
                    List<String> parts = new ArrayList<>();
                    if (x != null) {
                        parts.add(x);
                    }
                    if (y != null) {
                        parts.add(y);
                    }
                    assertEquals(String.join("|", parts), wsConst.get(i), "concat_ws const row " + i);
                    parts.add("z");
                    assertEquals(
                            sep.get(i) == null ? null : String.join(sep.get(i), parts),
                            ws.get(i),
                            "concat_ws row " + i);
                }
            }
        }
        assertEquals(List.of(""), call("concat", 1, str(null, false)));
        assertEquals(Arrays.asList((Object) null), call("strict_concat", 1, str("a", false), str(null, false)));
        assertEquals(Arrays.asList((Object) null), call("concat_ws", 1, str(null, false), str("a", false)));
    }

    /**
     * Java's replaceAll, except that (as RE2) an empty match right where the previous match ended,
     * or between the halves of a surrogate pair, is not replaced.
     */
    private static String re2ReplaceAll(Pattern p, String s, Function<Matcher, String> replacement) {
        Matcher m = p.matcher(s);
        StringBuilder sb = new StringBuilder();
        int last = 0;
        boolean matched = false;
        while (m.find()) {
            if (matched && m.start() == last && m.end() == last
                    || m.start() == m.end()
                            && m.start() > 0
                            && m.start() < s.length()
                            && Character.isLowSurrogate(s.charAt(m.start()))) {
                continue;
            }
            matched = true;
            sb.append(s, last, m.start()).append(replacement.apply(m));
            last = m.end();
        }
        return sb.append(s.substring(last)).toString();
    }

    @Test
    void regularExpressions() {
        String[] patterns = {"abc", "a.c", "^a", "c$", "(b+)(c)", "[é€]", "日本.", "x*", "\\d|,", "(?i)ABC", "𝄞+"};
        for (int rows : SIZES) {
            for (boolean ascii : new boolean[] {true, false}) {
                List<String> s = randomStrings(rows, ascii, 0.2);
                FieldVector sv = strings(s, false);
                for (String p : patterns) {
                    Pattern jp = Pattern.compile(p);
                    List<Object> m = call("regexp_matches", rows, array(sv), str(p, false));
                    List<Object> first = call("regexp_replace", rows, array(sv), str(p, false), str("<\\0>", false));
                    List<Object> all =
                            call("regexp_replace", rows, array(sv), str(p, false), str("$\\1", false), str("g", false));
                    boolean hasGroup = jp.matcher("").groupCount() >= 1;
                    for (int i = 0; i < rows; i++) {
                        String x = s.get(i);
                        assertEquals(
                                x == null ? null : jp.matcher(x).find(),
                                m.get(i),
                                "regexp_matches('" + x + "', '" + p + "')");
                        assertEquals(
                                x == null ? null : jp.matcher(x).replaceFirst("<$0>"),
                                first.get(i),
                                "regexp_replace first " + p);
                        Object want = x == null ? null : hasGroup ? re2ReplaceAll(jp, x, mm -> "$" + mm.group(1)) : x;
                        assertEquals(want, all.get(i), "regexp_replace all '" + x + "' " + p);
                    }
                }
                // A pattern per row (compiled per distinct value), case-insensitive.
                List<String> ps = new ArrayList<>();
                for (int i = 0; i < rows; i++) {
                    ps.add(rnd.nextInt(10) == 0 ? null : patterns[rnd.nextInt(patterns.length)]);
                }
                FieldVector pv = strings(ps, false);
                List<Object> m = call("regexp_like", rows, array(sv), array(pv), str("i", false));
                List<Object> r =
                        call("regexp_replace", rows, array(sv), array(pv), str("\\\\", false), str("gi", false));
                for (int i = 0; i < rows; i++) {
                    boolean isNull = s.get(i) == null || ps.get(i) == null;
                    Pattern jp =
                            isNull ? null : Pattern.compile(ps.get(i), Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
                    assertEquals(isNull ? null : jp.matcher(s.get(i)).find(), m.get(i), "regexp_like per row " + i);
                    assertEquals(
                            isNull ? null : re2ReplaceAll(jp, s.get(i), mm -> "\\"),
                            r.get(i),
                            "regexp_replace per row " + i);
                }
            }
        }
        assertEquals(
                List.of("a<b>c"), call("regexp_replace", 1, str("abc", false), str("(b)", false), str("<\\1>", false)));
        assertEquals(
                List.of("abc"), call("regexp_replace", 1, str("abc", false), str("(b)", false), str("\\2", false)));
        assertEquals(List.of("abc"), call("regexp_replace", 1, str("abc", false), str("b", false), str("\\q", false)));
        assertEquals(
                List.of("-a-b-c-"),
                call("regexp_replace", 1, str("abc", false), str("x*", false), str("-", false), str("g", false)));
        assertEquals(List.of(true), call("regexp_matches", 1, str("a.c", false), str(".", false), str("l", false)));
        assertEquals(List.of(false), call("regexp_matches", 1, str("abc", false), str("B", false), str("ic", false)));
        assertEquals(List.of(true), call("regexp_matches", 1, str("x", false), str("[[:alpha:]]", false)));
        assertEquals(
                List.of("ayc"), call("regexp_replace", 1, str("abc", false), str("(?P<x>b)", false), str("y", false)));
        assertEquals(Arrays.asList((Object) null), call("regexp_matches", 1, str("abc", false), str(null, false)));
        PlanningException bad = assertThrows(
                PlanningException.class, () -> call("regexp_matches", 1, str("abc", false), str("(", false)));
        assertTrue(bad.getMessage().contains("'('"), bad.getMessage());
        assertThrows(
                PlanningException.class,
                () -> call("regexp_matches", 1, str("abc", false), str("b", false), str("g", false)));
        assertThrows(
                PlanningException.class,
                () -> call("regexp_matches", 1, str("abc", false), str("b", false), str("z", false)));
        assertThrows(
                PlanningException.class,
                () -> call("regexp_matches", 1, str("abc", false), str("b", false), str(null, false)));
        EvaluationException column = assertThrows(EvaluationException.class, () -> {
            FieldVector pv = strings(List.of("("), false);
            call("regexp_matches", 1, str("abc", false), array(pv));
        });
        assertEquals(
                "regexp_matches (pattern of row 0): invalid regular expression '(': missing closing ): `(`",
                column.detail());
    }
}
