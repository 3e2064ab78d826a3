package dev.quiver.tests;

import static dev.quiver.tests.ProbeFixtures.assertZeroLeftAfter;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.cancel.CancelHandle;
import dev.quiver.errors.ErrorKind;
import dev.quiver.errors.QuiverException;
import dev.quiver.expr.Expr;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.RowType;
import dev.quiver.rowfn.Val;
import dev.quiver.stream.AsyncFunctionException;
import dev.quiver.stream.AsyncOptions;
import dev.quiver.stream.Pipeline;
import dev.quiver.stream.QueryExecution;
import dev.quiver.stream.QueryRuntime;
import dev.quiver.types.DataType;
import dev.quiver.types.SqlTypes;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;

/**
 * The bad-input catalogue: malformed expressions, schemas, batches and misbehaving functions,
 * each with the exception it must give (its class, its {@link ErrorKind} and its exact message:
 * a {@link QuiverException}'s {@link QuiverException#detail()}, the same on every device), each
 * proven leak-free (every byte back to the allocator after the failure) and harmless (the same
 * Quiver then evaluates a correct expression correctly).
 *
 * <p>Most cases are golden files, one per topic, in {@code src/test/resources/bad-input/*.txt}
 * (format, and how to add cases, in {@code bad-input/README.md}). Run with
 * {@code -Dquiver.golden.regenerate=true} to rewrite every case's {@code error}/{@code message}
 * lines from what Quiver says now, then review the diff. The cases a text file cannot say (closed
 * vectors, columns of different lengths, schema drift between batches, dictionaries that do not
 * fit or change, Arrow types Quiver does not read, allocator limits, an async call that times
 * out) are Java cases below.
 *
 * <p>Functions the golden files may call, registered here: {@code udf_short(x BIGINT)} returns
 * one row fewer than the batch; {@code udf_wrong_type(x BIGINT)} is declared BIGINT and returns
 * VARCHAR; {@code udf_throws(x BIGINT)} throws; {@code udf_null_vector(x BIGINT)} returns a
 * null ColumnarValue; {@code no_negatives(x BIGINT)} is a RowFn that fails a negative row
 * ({@code failIf}).
 */
class BadInputCatalogueTest extends QuiverTestBase {
    private static final boolean REGENERATE = Boolean.getBoolean("quiver.golden.regenerate");

    /** What each case's check evaluates afterwards: x * 2 + length(s) over three rows. */
    private static final Schema SANITY =
            new Schema(List.of(DataType.INT64.toField("x", true), DataType.UTF8.toField("s", true)));

    // ------------------------------------------------------------------ the golden files

    @TestFactory
    Stream<DynamicNode> goldenFiles() throws IOException {
        registerFixtures();
        List<DynamicNode> files = new ArrayList<>();
        try (Stream<Path> paths = Files.list(goldenDirectory())) {
            for (Path p :
                    paths.filter(f -> f.toString().endsWith(".txt")).sorted().toList()) {
                GoldenFile file = GoldenFile.read(p);
                List<DynamicNode> tests = new ArrayList<>();
                for (GoldenCase c : file.cases) {
                    for (Placement placement : c.placements) {
                        String name = c.placements.size() == 1 ? c.name : c.name + " (" + placement + ")";
                        tests.add(DynamicTest.dynamicTest(name, p.toUri(), () -> runGolden(file, c, placement)));
                    }
                }
                if (REGENERATE) {
                    tests.add(DynamicTest.dynamicTest("(regenerate " + p.getFileName() + ")", file::rewrite));
                }
                files.add(DynamicContainer.dynamicContainer(p.getFileName().toString(), p.toUri(), tests.stream()));
            }
        }
        assertTrue(files.size() >= 5, "golden files found in " + goldenDirectory() + ": " + files.size());
        return files.stream();
    }

    private static Path goldenDirectory() {
        try {
            return Path.of(BadInputCatalogueTest.class.getResource("/bad-input").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private void runGolden(GoldenFile file, GoldenCase c, Placement placement) {
        if (placement == Placement.OPENCL) {
            OpenClAvailability.requireOpenCl(quiver); // skips, saying why, only where no OpenCL device exists
        }
        Outcome o = outcome(c, placement);
        String actualError =
                o.stage + " " + (o.error == null ? "none" : o.error.getClass().getSimpleName());
        String actualMessage = o.error == null ? "" : messageOf(o.error);
        String actualKind = kindOf(o.error);
        if (REGENERATE) {
            file.regenerated.put(c, new String[] {actualError + " " + actualKind, actualMessage});
        }
        assertEquals(0, allocator.getAllocatedMemory(), c.name + ": bytes leaked after the failure");
        sanityCheck();
        if (o.error == null) {
            fail(c.name + ": expected " + c.error + " but the expression "
                    + (o.stage.equals("evaluate") ? "evaluated" : o.stage));
        }
        if (!REGENERATE) {
            assertEquals(
                    3,
                    c.error.split(" ").length,
                    c.name + ": the error line says no kind ('error <stage> <Exception> <KIND>');"
                            + " regenerate with -Dquiver.golden.regenerate=true");
            assertEquals(c.error, actualError + " " + actualKind, c.name + ": " + o.error);
            assertEquals(c.message, actualMessage, c.name + ": the message");
        }
    }

    /**
     * The exact message a golden file holds: a {@link QuiverException}'s {@link QuiverException#detail()}
     * (its message without the batch and the device, the same on every placement), else the
     * message; backslashes and line breaks escaped ({@code \\}, {@code \n}) so it stays one line.
     */
    static String messageOf(Throwable e) {
        String m = e instanceof QuiverException q ? q.detail() : e.getMessage();
        return m == null ? "" : m.replace("\\", "\\\\").replace("\n", "\\n");
    }

    /** A {@link QuiverException}'s {@link ErrorKind}, or {@code -} for an exception that is not one. */
    static String kindOf(Throwable e) {
        return e instanceof QuiverException q ? q.kind().name() : "-";
    }

    /** Where it failed (parse, compile, evaluate; "evaluate" with no error: it did not fail) and with what. */
    private record Outcome(String stage, Throwable error) {}

    private Outcome outcome(GoldenCase c, Placement placement) {
        Expr expr;
        try {
            expr = Expr.parse(c.expr);
        } catch (RuntimeException e) {
            return new Outcome("parse", e);
        }
        // Built first: the dictionaries of its encoded columns are what the expression is compiled with.
        try (GoldenBatch batch = c.batch(allocator)) {
            CompiledExpression compiled;
            try {
                compiled = quiver.compile(c.schema, batch.dictionaries(), expr);
            } catch (RuntimeException e) {
                return new Outcome("compile", e);
            }
            try (BufferAllocator results = allocator.newChildAllocator("results of " + c.name, 0, Long.MAX_VALUE)) {
                try (FieldVector ignored = compiled.evaluate(batch.root(), placement, results)) {
                    return new Outcome("evaluate", null);
                } catch (RuntimeException e) {
                    assertEquals(
                            0,
                            results.getAllocatedMemory(),
                            c.name + ": the failed evaluation left its result allocated");
                    return new Outcome("evaluate", e);
                }
            }
        }
    }

    /** After a failure, the same Quiver still compiles and evaluates correctly, and leaks nothing. */
    private void sanityCheck() {
        CompiledExpression e = quiver.compile(SANITY, Expr.parse("x * 2 + length(s)"));
        try (BigIntVector x = (BigIntVector)
                        TestColumns.of(allocator, "x", DataType.INT64, Arrays.asList(1L, null, 40L), () -> 7L);
                FieldVector s = TestColumns.of(allocator, "s", DataType.UTF8, List.of("a", "bc", "déf"), null);
                VectorSchemaRoot b = new VectorSchemaRoot(List.of(x, s))) {
            b.setRowCount(3);
            assertEquals(
                    Arrays.asList(3L, null, 83L),
                    TestColumns.valuesAndClose(e.evaluate(b, Placement.AUTO)),
                    "the Quiver no longer evaluates correctly after the failure");
        }
        assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked by the check after the failure");
    }

    // ------------------------------------------------------------------ functions the files call

    private void registerFixtures() {
        quiver.functions().register(new Udf("udf_short", DataType.INT64, a -> {
            int n = a.numberRows() - 1;
            return new ColumnarValue.Array(Values.of(
                    DataType.INT64,
                    "udf_short",
                    Collections.nCopies(n, 1L),
                    a.config().allocator()));
        }));
        quiver.functions()
                .register(new Udf(
                        "udf_wrong_type",
                        DataType.INT64,
                        a -> new ColumnarValue.Array(Values.of(
                                DataType.UTF8,
                                "udf_wrong_type",
                                Collections.nCopies(a.numberRows(), "one"),
                                a.config().allocator()))));
        quiver.functions().register(new Udf("udf_throws", DataType.INT64, a -> {
            throw new IllegalStateException("udf_throws: the service is down");
        }));
        quiver.functions().register(new Udf("udf_null_vector", DataType.INT64, a -> null));
        quiver.functions()
                .register(RowFn.declare("no_negatives")
                        .arg("x", RowType.INT64)
                        .returns(RowType.INT64)
                        .fallible()
                        .body(x -> x.failIf(x.lt(Val.of(0L)), "negative input")));
    }

    /** {@code name(x BIGINT) -> declared}, computed by {@code body}. */
    private record Udf(String name, DataType declared, Function<ScalarFunctionArgs, ColumnarValue> body)
            implements ScalarFunction {
        @Override
        public Signature signature() {
            return Signature.exact(List.of(DataType.INT64), Volatility.IMMUTABLE);
        }

        @Override
        public DataType returnType(List<DataType> argTypes) {
            return declared;
        }

        @Override
        public ColumnarValue invoke(ScalarFunctionArgs args) {
            return body.apply(args);
        }
    }

    // ------------------------------------------------------------------ cases a text file cannot say

    private static final Schema AB =
            new Schema(List.of(DataType.INT32.toField("a", true), DataType.INT32.toField("b", true)));

    private VectorSchemaRoot ab(int aRows, int bRows, int rowCount) {
        IntVector a = (IntVector) TestColumns.of(allocator, "a", DataType.INT32, Collections.nCopies(aRows, 6), null);
        IntVector b = (IntVector) TestColumns.of(allocator, "b", DataType.INT32, Collections.nCopies(bRows, 3), null);
        VectorSchemaRoot root = new VectorSchemaRoot(List.of(a, b));
        root.setRowCount(rowCount);
        a.setValueCount(aRows);
        b.setValueCount(bRows);
        return root;
    }

    /** Runs {@code bad}, which must throw a {@link QuiverException} of {@code kind} whose detail is exactly {@code detail}. */
    private static void rejects(ErrorKind kind, String detail, Executable bad) {
        QuiverException e = Assertions.assertThrows(QuiverException.class, bad);
        assertEquals(kind, e.kind(), "the kind of " + e);
        assertEquals(detail, e.detail(), "the detail of " + e);
    }

    /** Runs {@code bad}, a misuse of the API (not bad input), which must throw {@code type} with exactly {@code message}. */
    private static <T extends Throwable> void misuse(Class<T> type, String message, Executable bad) {
        T e = Assertions.assertThrows(type, bad);
        assertEquals(message, e.getMessage());
    }

    @TestFactory
    Stream<DynamicTest> javaCases() {
        Map<String, Executable> cases = new LinkedHashMap<>();
        CompiledExpression sum = quiver.compile(AB, Expr.parse("a / b"));
        cases.put("a column shorter than the batch", () -> {
            try (VectorSchemaRoot b = ab(10, 7, 10)) {
                rejects(ErrorKind.INPUT, "column 'b' has 7 values but the batch has 10 rows", () -> sum.evaluate(b));
            }
        });
        cases.put("a column longer than the batch", () -> {
            try (VectorSchemaRoot b = ab(12, 10, 10)) {
                rejects(ErrorKind.INPUT, "column 'a' has 12 values but the batch has 10 rows", () -> sum.evaluate(b));
            }
        });
        cases.put("a closed batch (vectors cleared)", () -> {
            VectorSchemaRoot b = ab(10, 10, 10);
            b.close(); // clears every vector: no buffers, value count 0, but the root still says 10 rows
            rejects(ErrorKind.INPUT, "column 'a' has 0 values but the batch has 10 rows", () -> sum.evaluate(b));
        });
        cases.put("one closed vector in a batch", () -> {
            try (VectorSchemaRoot b = ab(10, 10, 10)) {
                b.getVector("b").close();
                rejects(ErrorKind.INPUT, "column 'b' has 0 values but the batch has 10 rows", () -> sum.evaluate(b));
            }
        });
        cases.put("schema drift: a column changes type between batches", () -> {
            try (VectorSchemaRoot good = ab(4, 4, 4);
                    FieldVector out = sum.evaluate(good)) {
                assertEquals(List.of(2, 2, 2, 2), TestColumns.values(out));
            }
            FieldVector a = TestColumns.of(allocator, "a", DataType.INT64, List.of(6L, 6L), null);
            FieldVector b = TestColumns.of(allocator, "b", DataType.INT32, List.of(3, 3), null);
            try (VectorSchemaRoot drifted = TestColumns.batch(2, a, b)) {
                rejects(
                        ErrorKind.INPUT,
                        "column 'a' is Int(64, true) in the batch but was planned as Int(32, true)",
                        () -> sum.evaluate(drifted));
            }
        });
        cases.put("schema drift: a column goes missing between batches", () -> {
            FieldVector b = TestColumns.of(allocator, "b", DataType.INT32, List.of(3, 3), null);
            try (VectorSchemaRoot drifted = TestColumns.batch(2, b)) {
                rejects(
                        ErrorKind.INPUT,
                        "the batch has no column 'a' (it was planned against a schema with it)",
                        () -> sum.evaluate(drifted));
            }
        });
        cases.put("schema drift: columns swap places between batches", () -> {
            FieldVector b = TestColumns.of(allocator, "b", DataType.INT32, List.of(0, 0), null);
            FieldVector a = TestColumns.of(allocator, "a", DataType.INT32, List.of(6, 6), null);
            try (VectorSchemaRoot swapped = TestColumns.batch(2, b, a)) {
                // Columns are read by name: 6 / 0, a division by zero, never b / a computed as a / b.
                rejects(
                        ErrorKind.ARITHMETIC,
                        "division by zero in (a / b) at row 0",
                        () -> sum.evaluate(swapped).close());
            }
        });
        cases.put("a closed Quiver's expression", () -> {
            var q = Quiver.builder().allocator(allocator).openCl(false).build();
            CompiledExpression e = q.compile(AB, Expr.parse("a + b"));
            q.close();
            try (VectorSchemaRoot b = ab(2, 2, 2)) {
                misuse(IllegalStateException.class, "this Quiver instance is closed", () -> e.evaluate(b));
            }
        });
        cases.put("an async call that times out", this::asyncTimeout);
        dictionaryCases(cases);
        unsupportedTypeCases(cases);
        resourceCases(cases);
        return cases.entrySet().stream()
                .map(c -> DynamicTest.dynamicTest(c.getKey(), () -> {
                    c.getValue().execute();
                    assertEquals(0, allocator.getAllocatedMemory(), c.getKey() + ": bytes leaked after the failure");
                    sanityCheck();
                }));
    }

    /** {@code s}: Utf8 values in dictionary {@code id}, Int32 indices. */
    private static Field encoded(String name, long id) {
        var indices = new ArrowType.Int(32, true);
        return new Field(name, new FieldType(true, indices, new DictionaryEncoding(id, false, indices)), null);
    }

    /** Two rows of dictionary indices 0 and 1 under {@code field}. */
    private VectorSchemaRoot indices(Field field) {
        IntVector v = (IntVector) field.createVector(allocator);
        v.allocateNew(2);
        v.set(0, 0);
        v.set(1, 1);
        v.setValueCount(2);
        return new VectorSchemaRoot(List.of(field), List.of(v), 2);
    }

    /** Batches whose dictionary-encoded columns do not fit what was planned, or whose dictionary changed. */
    private void dictionaryCases(Map<String, Executable> cases) {
        Schema plain = new Schema(List.of(DataType.UTF8.toField("s", true)));
        cases.put("a dictionary-encoded column planned as plain text", () -> {
            CompiledExpression e = quiver.compile(plain, Expr.parse("upper(s)"));
            try (VectorSchemaRoot b = indices(encoded("s", 3))) {
                rejects(
                        ErrorKind.INPUT,
                        "column 's' is dictionary-encoded in the batch (indices Int(32, true)) but was planned as Utf8:"
                                + " decode it first",
                        () -> e.evaluate(b));
            }
        });
        cases.put("a plain column planned dictionary-encoded", () -> {
            try (FieldVector values = Values.of(DataType.UTF8, "d", List.of("x", "y"), allocator)) {
                var provider = new DictionaryProvider.MapDictionaryProvider(
                        new Dictionary(values, encoded("s", 3).getDictionary()));
                CompiledExpression e =
                        quiver.compile(new Schema(List.of(encoded("s", 3))), provider, Expr.parse("upper(s)"));
                try (VectorSchemaRoot b =
                        TestColumns.batch(2, TestColumns.of(allocator, "s", DataType.UTF8, List.of("a", "b"), null))) {
                    rejects(
                            ErrorKind.INPUT,
                            "column 's' was planned dictionary-encoded with dictionary 3 but the batch's column is not"
                                    + " dictionary-encoded",
                            () -> e.evaluate(b));
                }
            }
        });
        cases.put("a column encoded with another dictionary than planned", () -> {
            try (FieldVector values = Values.of(DataType.UTF8, "d", List.of("x", "y"), allocator)) {
                var provider = new DictionaryProvider.MapDictionaryProvider(
                        new Dictionary(values, encoded("s", 3).getDictionary()));
                CompiledExpression e =
                        quiver.compile(new Schema(List.of(encoded("s", 3))), provider, Expr.parse("upper(s)"));
                try (VectorSchemaRoot b = indices(encoded("s", 4))) {
                    rejects(
                            ErrorKind.INPUT,
                            "column 's' was planned dictionary-encoded with dictionary 3 but the batch's column uses"
                                    + " dictionary 4",
                            () -> e.evaluate(b));
                }
            }
        });
        cases.put("a dictionary gone from its provider at evaluation", () -> {
            try (FieldVector values = Values.of(DataType.UTF8, "d", List.of("x", "y"), allocator)) {
                // The provider is consulted on every batch (an IPC reader's dictionaries change as it reads).
                SwitchedDictionaries provider = new SwitchedDictionaries(new DictionaryProvider.MapDictionaryProvider(
                        new Dictionary(values, encoded("s", 3).getDictionary())));
                CompiledExpression e =
                        quiver.compile(new Schema(List.of(encoded("s", 3))), provider, Expr.parse("upper(s)"));
                try (VectorSchemaRoot b = indices(encoded("s", 3))) {
                    assertEquals(List.of("X", "Y"), TestColumns.valuesAndClose(e.evaluate(b)));
                    provider.switchTo(new DictionaryProvider.MapDictionaryProvider());
                    rejects(ErrorKind.INPUT, "no dictionary with id 3 for #0 s", () -> e.evaluate(b));
                }
            }
        });
        cases.put("a dictionary whose values changed type at evaluation", () -> {
            try (FieldVector text = Values.of(DataType.UTF8, "d", List.of("x", "y"), allocator);
                    FieldVector numbers = Values.of(DataType.INT64, "d", List.of(1L, 2L), allocator)) {
                SwitchedDictionaries provider = new SwitchedDictionaries(new DictionaryProvider.MapDictionaryProvider(
                        new Dictionary(text, encoded("s", 3).getDictionary())));
                CompiledExpression e =
                        quiver.compile(new Schema(List.of(encoded("s", 3))), provider, Expr.parse("upper(s)"));
                provider.switchTo(new DictionaryProvider.MapDictionaryProvider(
                        new Dictionary(numbers, encoded("s", 3).getDictionary())));
                try (VectorSchemaRoot b = indices(encoded("s", 3))) {
                    rejects(
                            ErrorKind.INPUT,
                            "dictionary 3 holds Int64 values, but #0 s was planned with Utf8",
                            () -> e.evaluate(b));
                }
            }
        });
    }

    /** Columns of Arrow types Quiver does not read: refused when planning, naming the column and the type. */
    private void unsupportedTypeCases(Map<String, Executable> cases) {
        String supported =
                " is not supported (supported: Null, Bool, Int8-64, UInt8-64, Float32/64, Decimal128, Utf8, LargeUtf8, Binary,"
                        + " Date32, Timestamp, Interval, List, Struct, and dictionaries of these)";
        Map<String, Field> types = new LinkedHashMap<>();
        types.put(
                "a half-precision float column",
                Field.nullable("h", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)));
        types.put("a large binary column", Field.nullable("h", ArrowType.LargeBinary.INSTANCE));
        types.put("a date in milliseconds column", Field.nullable("h", new ArrowType.Date(DateUnit.MILLISECOND)));
        types.put("a fixed-size binary column", Field.nullable("h", new ArrowType.FixedSizeBinary(4)));
        types.put("a time-of-day column", Field.nullable("h", new ArrowType.Time(TimeUnit.MILLISECOND, 32)));
        types.put("a duration column", Field.nullable("h", new ArrowType.Duration(TimeUnit.SECOND)));
        types.put(
                "a large list column",
                new Field(
                        "h",
                        FieldType.nullable(ArrowType.LargeList.INSTANCE),
                        List.of(Field.nullable("item", new ArrowType.Int(32, true)))));
        types.forEach((name, field) -> cases.put(
                name,
                () -> rejects(
                        ErrorKind.PLANNING,
                        "column 'h': Arrow type " + field.getType() + supported,
                        () -> quiver.compile(new Schema(List.of(field)), Expr.parse("h IS NULL")))));
        cases.put(
                "a string view column",
                () -> rejects(
                        ErrorKind.PLANNING,
                        "column 'h': Arrow type Utf8View (string views) is not supported:"
                                + " Quiver's string kernels read Utf8 and LargeUtf8; convert the column to one of those (docs/strings.md)",
                        () -> quiver.compile(
                                new Schema(List.of(Field.nullable("h", ArrowType.Utf8View.INSTANCE))),
                                Expr.parse("h IS NULL"))));
    }

    /**
     * Results larger than the allocator given: a QuiverOutOfMemoryException (RESOURCE) naming what
     * was needed; evaluations cancelled (CANCELLED) by a handle or an interrupt; a filter that is not
     * Boolean (PLANNING).
     */
    private void resourceCases(Map<String, Executable> cases) {
        Schema xs = new Schema(List.of(DataType.INT64.toField("x", true), DataType.UTF8.toField("s", true)));
        cases.put("a result larger than its allocator's limit", () -> {
            CompiledExpression e = quiver.compile(xs, Expr.parse("x * 2"));
            try (BufferAllocator tiny = allocator.newChildAllocator("tiny", 0, 512);
                    VectorSchemaRoot b = TestColumns.batch(
                            1000,
                            TestColumns.of(allocator, "x", DataType.INT64, Collections.nCopies(1000, 1L), null),
                            TestColumns.of(allocator, "s", DataType.UTF8, Collections.nCopies(1000, "a"), null))) {
                rejects(
                        ErrorKind.RESOURCE,
                        "out of memory evaluating (x * 2) (needed 8192 bytes; allocator 'tiny' limit 512 bytes,"
                                + " 0 allocated) at a batch of 1000 rows on cpu (host kernels)",
                        () -> e.evaluate(b, Placement.CPU, tiny));
            }
        });
        cases.put("text results larger than their allocator's limit", () -> {
            CompiledExpression e = quiver.compile(xs, Expr.parse("repeat(s, 100)"));
            try (BufferAllocator tiny = allocator.newChildAllocator("tiny", 0, 4096);
                    VectorSchemaRoot b = TestColumns.batch(
                            100,
                            TestColumns.of(allocator, "x", DataType.INT64, Collections.nCopies(100, 1L), null),
                            TestColumns.of(allocator, "s", DataType.UTF8, Collections.nCopies(100, "abc"), null))) {
                rejects(
                        ErrorKind.RESOURCE,
                        "out of memory evaluating repeat(s, 100) (needed 4096 bytes; allocator 'tiny' limit 4096 bytes,"
                                + " 2576 allocated) at a batch of 100 rows on cpu (host kernels)",
                        () -> e.evaluate(b, Placement.CPU, tiny));
            }
        });
        cases.put("an evaluation under a cancelled handle", () -> {
            CompiledExpression e = quiver.compile(xs, Expr.parse("upper(s) || 'x'"));
            CancelHandle cancel = new CancelHandle();
            cancel.cancel();
            try (VectorSchemaRoot b = TestColumns.batch(
                    3,
                    TestColumns.of(allocator, "x", DataType.INT64, List.of(1L, 2L, 3L), null),
                    TestColumns.of(allocator, "s", DataType.UTF8, List.of("a", "b", "c"), null))) {
                rejects(
                        ErrorKind.CANCELLED,
                        "evaluation of strict_concat(upper(s), 'x') cancelled by its CancelHandle",
                        () -> cancel.call(() -> e.evaluate(b, Placement.CPU)));
            }
        });
        cases.put("an evaluation on an interrupted thread", () -> {
            CompiledExpression e = quiver.compile(xs, Expr.parse("x * 2 + length(s)"));
            try (VectorSchemaRoot b = TestColumns.batch(
                    3,
                    TestColumns.of(allocator, "x", DataType.INT64, List.of(1L, 2L, 3L), null),
                    TestColumns.of(allocator, "s", DataType.UTF8, List.of("a", "b", "c"), null))) {
                Thread.currentThread().interrupt();
                try {
                    rejects(
                            ErrorKind.CANCELLED,
                            "evaluation of ((x * 2) + length(s)) interrupted",
                            () -> e.evaluate(b, Placement.CPU));
                    assertTrue(Thread.currentThread().isInterrupted(), "the interrupt flag stays set");
                } finally {
                    Thread.interrupted(); // the test's thread goes on
                }
            }
        });
        cases.put(
                "a projection whose filter is not Boolean",
                () -> rejects(
                        ErrorKind.PLANNING,
                        "the filter (x + 1) is Int64, not Boolean",
                        () -> quiver.compileProjection(xs, "x + 1", List.of("s"))));
    }

    private void asyncTimeout() throws Exception {
        ProbeFixtures.Probe hang = new ProbeFixtures.Probe("hang", 0, 4); // holds every call, never answers
        quiver.functions().register(hang);
        try (QueryRuntime runtime = QueryRuntime.create(2)) {
            QueryExecution q = Pipeline.from(ProbeFixtures.SCHEMA)
                    .project("id", "hang(v) AS y")
                    .options(AsyncOptions.defaults().withBatchSize(100).withCallTimeout(Duration.ofMillis(50)))
                    .placement(Placement.CPU)
                    .plan(quiver)
                    .execute(runtime, ProbeFixtures.source(allocator, 1, 100, runtime.executor()));
            try {
                Throwable t = ProbeFixtures.failure(q.stream().next(), "the batch");
                AsyncFunctionException e = ProbeFixtures.causeOf(t, AsyncFunctionException.class);
                assertEquals(ErrorKind.EVALUATION, e.kind(), "the kind of " + e);
                ProbeFixtures.assertContains(e.getMessage(), "'hang'", "[0, 100)", "timeout of 50 ms");
                assertTrue(e.getCause() instanceof TimeoutException, String.valueOf(e.getCause()));
            } finally {
                q.close();
            }
            assertZeroLeftAfter(allocator, q.whenReleased());
        }
    }

    // ------------------------------------------------------------------ the file format

    /** One case of a golden file; {@code errorLine}/{@code messageLine} index the file's lines (-1: absent). */
    static final class GoldenCase {
        String name;
        Schema schema;
        String expr;
        final List<List<String>> rows = new ArrayList<>();
        /** {@code corrupt} lines ({@link BatchCorruption}), applied in order to the batch once built. */
        final List<String> corruptions = new ArrayList<>();

        List<Placement> placements = List.of(Placement.CPU);
        String error = "";
        String message = "";
        int errorLine = -1;
        int messageLine = -1;
        int lastLine;

        /** The case's rows as a batch (dictionary-encoded columns with their dictionaries), corrupted as the case says. */
        GoldenBatch batch(BufferAllocator allocator) {
            List<FieldVector> columns = new ArrayList<>();
            DictionaryProvider.MapDictionaryProvider dictionaries = new DictionaryProvider.MapDictionaryProvider();
            try {
                for (int c = 0; c < schema.getFields().size(); c++) {
                    Field f = schema.getFields().get(c);
                    for (int r = 0; r < rows.size(); r++) {
                        if (rows.get(r).size() != schema.getFields().size()) {
                            throw new IllegalArgumentException(
                                    name + ": row " + r + " has " + rows.get(r).size() + " values, the schema "
                                            + schema.getFields().size() + " columns");
                        }
                    }
                    int column = c;
                    List<String> texts =
                            rows.stream().map(row -> row.get(column)).toList();
                    if (f.getDictionary() != null) {
                        columns.add(encoded(f, texts, dictionaries, allocator));
                    } else {
                        columns.add(plain(DataType.fromField(f), f.getName(), texts, allocator));
                    }
                }
                VectorSchemaRoot root = new VectorSchemaRoot(schema.getFields(), columns, rows.size());
                for (String corruption : corruptions) {
                    BatchCorruption.apply(root, corruption, allocator);
                }
                return new GoldenBatch(root, dictionaries);
            } catch (RuntimeException e) {
                columns.forEach(FieldVector::close);
                closeDictionaries(dictionaries);
                throw e;
            }
        }

        private static FieldVector plain(DataType type, String column, List<String> texts, BufferAllocator allocator) {
            FieldVector v = Values.allocate(type, column, texts.size(), allocator);
            try {
                for (int r = 0; r < texts.size(); r++) {
                    String text = texts.get(r);
                    if (text.regionMatches(true, 0, "x'", 0, 2)) {
                        ((VarCharVector) v).setSafe(r, HexFormat.of().parseHex(text.substring(2, text.length() - 1)));
                    } else {
                        Values.set(v, r, value(type, text));
                    }
                }
                v.setValueCount(texts.size());
                return v;
            } catch (RuntimeException e) {
                v.close();
                throw e;
            }
        }

        /**
         * A dictionary-encoded column (32-bit indices): its dictionary holds the distinct non-null
         * values in the order they first appear, and is put into {@code dictionaries}.
         */
        private static FieldVector encoded(
                Field f,
                List<String> texts,
                DictionaryProvider.MapDictionaryProvider dictionaries,
                BufferAllocator allocator) {
            DataType valueType = GoldenFile.goldenType(f.getMetadata().get(GoldenFile.DICTIONARY_VALUES));
            List<Object> distinct = new ArrayList<>();
            List<Integer> indices = new ArrayList<>();
            for (String text : texts) {
                Object value = value(valueType, text).value();
                if (value == null) {
                    indices.add(null);
                    continue;
                }
                if (!distinct.contains(value)) {
                    distinct.add(value);
                }
                indices.add(distinct.indexOf(value));
            }
            FieldVector values = Values.of(valueType, f.getName() + " values", distinct, allocator);
            dictionaries.put(new Dictionary(values, f.getDictionary()));
            IntVector v = (IntVector) f.createVector(allocator);
            v.allocateNew(Math.max(1, texts.size()));
            for (int r = 0; r < indices.size(); r++) {
                if (indices.get(r) == null) {
                    v.setNull(r);
                } else {
                    v.set(r, indices.get(r));
                }
            }
            v.setValueCount(indices.size());
            return v;
        }

        private static ScalarValue value(DataType type, String text) {
            if (text.equalsIgnoreCase("null")) {
                return ScalarValue.nullOf(type);
            }
            Object v = switch (type) {
                case DataType.Int i
                when i.signed() ->
                    switch (i.bitWidth()) {
                        case 8 -> Byte.parseByte(text);
                        case 16 -> Short.parseShort(text);
                        case 32 -> Integer.parseInt(text);
                        default -> Long.parseLong(text);
                    };
                case DataType.Int i ->
                    switch (i.bitWidth()) {
                        case 8 -> Short.parseShort(text);
                        case 16 -> Integer.parseInt(text);
                        case 32 -> Long.parseLong(text);
                        default -> new BigInteger(text);
                    };
                case DataType.FloatingPoint f ->
                    f.bitWidth() == 32 ? (Object) Float.parseFloat(text) : (Object) Double.parseDouble(text);
                case DataType.Decimal d -> new BigDecimal(text).setScale(d.scale());
                case DataType.Utf8 _ -> text.substring(1, text.length() - 1).replace("''", "'");
                case DataType.Bool _ -> Boolean.parseBoolean(text);
                case DataType.Date32 _ -> Integer.parseInt(text);
                case DataType.Timestamp _ -> Long.parseLong(text);
                case DataType.ListType l -> {
                    List<Object> items = new ArrayList<>();
                    for (String item : GoldenFile.splitTopLevel(
                            text.substring(1, text.length() - 1).strip())) {
                        items.add(value(l.element(), item).value());
                    }
                    yield items;
                }
                case DataType.Struct st -> {
                    List<String> items = GoldenFile.splitTopLevel(
                            text.substring(1, text.length() - 1).strip());
                    Map<String, Object> fields = new LinkedHashMap<>();
                    for (int k = 0; k < st.fields().size(); k++) {
                        fields.put(
                                st.fields().get(k).name(),
                                value(st.fields().get(k).type(), items.get(k)).value());
                    }
                    yield fields;
                }
                default -> throw new IllegalArgumentException("the golden format has no values of type " + type);
            };
            return new ScalarValue(type, v);
        }
    }

    /** A case's batch and the dictionaries of its encoded columns; closing it closes both. */
    record GoldenBatch(VectorSchemaRoot root, DictionaryProvider.MapDictionaryProvider dictionaries)
            implements AutoCloseable {
        @Override
        public void close() {
            root.close();
            closeDictionaries(dictionaries);
        }
    }

    private static void closeDictionaries(DictionaryProvider.MapDictionaryProvider dictionaries) {
        for (long id : dictionaries.getDictionaryIds()) {
            dictionaries.lookup(id).getVector().close();
        }
    }

    /** A golden file: its lines, its cases, and (when regenerating) what each case said. */
    static final class GoldenFile {
        final Path path;
        final List<String> lines;
        final List<GoldenCase> cases = new ArrayList<>();
        final Map<GoldenCase, String[]> regenerated = new LinkedHashMap<>();

        private GoldenFile(Path path, List<String> lines) {
            this.path = path;
            this.lines = lines;
        }

        static GoldenFile read(Path path) throws IOException {
            GoldenFile file = new GoldenFile(path, Files.readAllLines(path, StandardCharsets.UTF_8));
            Schema schema = new Schema(List.of());
            GoldenCase c = null;
            boolean inRows = false;
            for (int i = 0; i < file.lines.size(); i++) {
                String line = file.lines.get(i);
                String where = path.getFileName() + ":" + (i + 1);
                if (line.isBlank() || line.startsWith("#")) {
                    inRows = false;
                    continue;
                }
                String key = line.split(" ", 2)[0];
                String rest = line.length() > key.length() ? line.substring(key.length() + 1) : "";
                if (inRows
                        && !List.of("error", "message", "placement", "corrupt").contains(key)) {
                    c.rows.add(splitRow(line));
                    c.lastLine = i;
                    continue;
                }
                inRows = false;
                switch (key) {
                    case "schema" -> {
                        Schema s = parseSchema(rest, where);
                        if (c == null) {
                            schema = s;
                        } else {
                            c.schema = s;
                        }
                    }
                    case "case" -> {
                        c = new GoldenCase();
                        c.name = rest.strip();
                        c.schema = schema;
                        file.cases.add(c);
                    }
                    case "expr" -> need(c, where).expr = expand(rest);
                    case "rows" -> inRows = need(c, where) != null;
                    case "placement" ->
                        need(c, where).placements = Arrays.stream(rest.strip().split("\\s+"))
                                .map(Placement::valueOf)
                                .toList();
                    case "corrupt" -> need(c, where).corruptions.add(rest.strip());
                    case "error" -> {
                        need(c, where).error = rest.strip();
                        c.errorLine = i;
                    }
                    case "message" -> {
                        need(c, where).message = rest;
                        c.messageLine = i;
                    }
                    default -> throw new IllegalArgumentException(where + ": unknown line '" + line + "'");
                }
                if (c != null) {
                    c.lastLine = i;
                }
            }
            for (GoldenCase k : file.cases) {
                if (k.expr == null) {
                    throw new IllegalArgumentException(path.getFileName() + ": case " + k.name + " has no expr");
                }
            }
            return file;
        }

        private static GoldenCase need(GoldenCase c, String where) {
            if (c == null) {
                throw new IllegalArgumentException(where + ": a case's line before any 'case'");
            }
            return c;
        }

        /** {@code {{repeat TEXT N}}} becomes TEXT N times: huge literals without huge files. */
        private static String expand(String expr) {
            var m = Pattern.compile("\\{\\{repeat (\\S+) (\\d+)}}").matcher(expr);
            return m.replaceAll(r -> Matcher.quoteReplacement(r.group(1).repeat(Integer.parseInt(r.group(2)))));
        }

        /** Values separated by '|' (quoted strings may hold it). */
        private static List<String> splitRow(String line) {
            List<String> out = new ArrayList<>();
            StringBuilder cur = new StringBuilder();
            boolean quoted = false;
            for (char ch : line.toCharArray()) {
                if (ch == '\'') {
                    quoted = !quoted;
                }
                if (ch == '|' && !quoted) {
                    out.add(cur.toString().strip());
                    cur.setLength(0);
                } else {
                    cur.append(ch);
                }
            }
            out.add(cur.toString().strip());
            return out;
        }

        /** {@code name TYPE, name TYPE, ...} with SQL type names; commas inside (...) belong to the type. */
        private static Schema parseSchema(String text, String where) {
            List<Field> fields = new ArrayList<>();
            int depth = 0, start = 0;
            text = text + ",";
            for (int i = 0; i < text.length(); i++) {
                char ch = text.charAt(i);
                if (ch == '(' || ch == '[') {
                    depth++;
                } else if (ch == ')' || ch == ']') {
                    depth--;
                } else if (ch == ',' && depth == 0) {
                    String entry = text.substring(start, i).strip();
                    start = i + 1;
                    if (entry.isEmpty()) {
                        continue;
                    }
                    String[] nt = entry.split("\\s+", 2);
                    if (nt.length < 2) {
                        throw new IllegalArgumentException(where + ": schema entry '" + entry + "' is not 'name TYPE'");
                    }
                    fields.add(goldenField(nt[0], nt[1].strip(), fields.size()));
                }
            }
            return new Schema(fields);
        }

        /** The metadata key of a dictionary-encoded column's field that holds its values' type. */
        static final String DICTIONARY_VALUES = "golden dictionary values";

        /**
         * A column of the schema line: {@code TYPE}, or {@code TYPE DICTIONARY} for a
         * dictionary-encoded column (32-bit indices, dictionary id = the column's position + 1).
         */
        private static Field goldenField(String name, String type, int position) {
            var dictionary = Pattern.compile("(?i)(.*\\S)\\s+DICTIONARY").matcher(type);
            if (!dictionary.matches()) {
                return goldenType(type).toField(name, true);
            }
            goldenType(dictionary.group(1)); // a type the format knows
            ArrowType.Int indices = new ArrowType.Int(32, true);
            return new Field(
                    name,
                    new FieldType(
                            true,
                            indices,
                            new DictionaryEncoding(position + 1, false, indices),
                            Map.of(DICTIONARY_VALUES, dictionary.group(1))),
                    null);
        }

        /** A SQL type name, {@code TYPE[]} (a list of TYPE) or {@code STRUCT(name TYPE, ...)}. */
        static DataType goldenType(String text) {
            String t = text.strip();
            if (t.endsWith("[]")) {
                return new DataType.ListType(goldenType(t.substring(0, t.length() - 2)), true);
            }
            if (t.regionMatches(true, 0, "STRUCT(", 0, 7) && t.endsWith(")")) {
                List<DataType.StructField> fields = new ArrayList<>();
                for (String entry : splitTopLevel(t.substring(7, t.length() - 1))) {
                    String[] nt = entry.strip().split("\\s+", 2);
                    fields.add(new DataType.StructField(nt[0], goldenType(nt[1]), true));
                }
                return new DataType.Struct(fields);
            }
            return SqlTypes.fromSql(t);
        }

        /** {@code text} split at the commas outside (), [], {} and quotes. */
        static List<String> splitTopLevel(String text) {
            List<String> out = new ArrayList<>();
            if (text.isBlank()) {
                return out;
            }
            int depth = 0, start = 0;
            boolean quoted = false;
            for (int i = 0; i < text.length(); i++) {
                char ch = text.charAt(i);
                if (ch == '\'') {
                    quoted = !quoted;
                } else if (!quoted && (ch == '(' || ch == '[' || ch == '{')) {
                    depth++;
                } else if (!quoted && (ch == ')' || ch == ']' || ch == '}')) {
                    depth--;
                } else if (!quoted && ch == ',' && depth == 0) {
                    out.add(text.substring(start, i).strip());
                    start = i + 1;
                }
            }
            out.add(text.substring(start).strip());
            return out;
        }

        /** Writes the file back with each case's error and message lines as regenerated. */
        void rewrite() {
            List<String> out = new ArrayList<>(lines);
            Map<Integer, List<String>> insertAfter = new TreeMap<>(Comparator.reverseOrder());
            for (var entry : regenerated.entrySet()) {
                GoldenCase c = entry.getKey();
                String error = "error " + entry.getValue()[0];
                String message = "message " + entry.getValue()[1];
                List<String> missing = new ArrayList<>();
                if (c.errorLine >= 0) {
                    out.set(c.errorLine, error);
                } else {
                    missing.add(error);
                }
                if (c.messageLine >= 0) {
                    out.set(c.messageLine, message);
                } else {
                    missing.add(message);
                }
                if (!missing.isEmpty()) {
                    insertAfter.put(c.lastLine, missing);
                }
            }
            insertAfter.forEach((line, added) -> out.addAll(line + 1, added));
            Path source = Path.of(
                    System.getProperty("user.dir"),
                    "src",
                    "test",
                    "resources",
                    "bad-input",
                    path.getFileName().toString());
            try {
                Files.write(source, out, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
