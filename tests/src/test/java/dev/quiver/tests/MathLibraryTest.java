package dev.quiver.tests;

import static java.util.Map.entry;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.CompiledExpression;
import dev.quiver.Device;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.SignatureResolver;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.RowFnSource;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowFailure;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.types.DataType;
import dev.quiver.types.ElementType;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The math library (docs/math.md) through the public API: each function's SQL compiled by
 * {@link Quiver} and evaluated on the CPU ({@link Placement#CPU}) and on every OpenCL device that
 * can run it, on hostile batches (nulls with garbage behind them, NaN, ±Infinity, ±0,
 * subnormals, integer extremes, domain edges), compared row by row with the reference: the
 * function's RowFn body for the planned argument types, run by {@link RowInterpreter}
 * (StrictMath). A device may be off the reference by at most the function's bound in
 * {@link #BOUNDS} (ulps of the result type; 0 means bit for bit). Replay with
 * {@code -Dquiver.seed=<seed>}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MathLibraryTest {
    static final long SEED = Long.getLong("quiver.seed", System.nanoTime());

    /** How far (in ulps of the result type) a device may be from the reference; 0: bit for bit. */
    record Bound(int cpu, int openCl) {
        int on(Device d) {
            return d.isOpenCl() ? openCl : cpu;
        }

        boolean exact() {
            return cpu == 0 && openCl == 0;
        }
    }

    private static Bound exact() {
        return new Bound(0, 0);
    }

    /** Bit for bit on the CPU, within {@code ulps} of the reference on OpenCL. */
    private static Bound openClWithin(int ulps) {
        return new Bound(0, ulps);
    }

    /**
     * THE table of accuracy bounds, one row per function (docs/math.md, columns CPU and OpenCL).
     * Exact functions are bit for bit everywhere (integer arithmetic, rounding, comparisons, one
     * IEEE multiplication, a correctly rounded square root). The CPU is bit for bit the reference
     * for the others too (its math functions are fdlibm's, in vector lanes: docs/math.md,
     * "Determinism"). OpenCL: the reference's own error (StrictMath, under 1 ulp; 1.5 for log2)
     * plus what the OpenCL C full profile allows (sin, cos, tan, asin, acos 4; atan, tanh 5; atan2
     * 6; exp, ln, log2, log10 3; cbrt 2; pow 16; hypot 4). {@code log(b, x)} is two logarithms and
     * a division.
     */
    static final Map<String, Bound> BOUNDS = Map.ofEntries(
            entry("abs", exact()),
            entry("sign", exact()),
            entry("floor", exact()),
            entry("ceil", exact()),
            entry("trunc", exact()),
            entry("round", exact()),
            entry("degrees", exact()),
            entry("radians", exact()),
            entry("pi", exact()),
            entry("sqrt", exact()),
            entry("mod", exact()),
            entry("gcd", exact()),
            entry("greatest", exact()),
            entry("least", exact()),
            entry("cbrt", openClWithin(3)),
            entry("exp", openClWithin(4)),
            entry("ln", openClWithin(4)),
            entry("log2", openClWithin(5)),
            entry("log10", openClWithin(4)),
            entry("log", openClWithin(10)),
            entry("pow", openClWithin(17)),
            entry("sin", openClWithin(5)),
            entry("cos", openClWithin(5)),
            entry("tan", openClWithin(5)),
            entry("asin", openClWithin(5)),
            entry("acos", openClWithin(5)),
            entry("atan", openClWithin(6)),
            entry("atan2", openClWithin(7)),
            entry("sinh", openClWithin(5)),
            entry("cosh", openClWithin(5)),
            entry("tanh", openClWithin(6)),
            entry("hypot", openClWithin(5)));

    /** The bound of a function by any of its names ({@code power} is {@code pow}). */
    static Bound bound(String function) {
        Bound b = BOUNDS.get(function.equals("power") ? "pow" : function);
        if (b == null) {
            throw new IllegalArgumentException("no bound for " + function);
        }
        return b;
    }

    /**
     * One call: the function and its arguments, each a column of {@link #SCHEMA} or a literal
     * (an integer literal is Int32, one with a point Float64, as in SQL).
     */
    record Case(String function, List<String> args) {
        String sql() {
            return function + "(" + String.join(", ", args) + ")";
        }

        @Override
        public String toString() {
            return sql();
        }
    }

    private static Case c(String function, String... args) {
        return new Case(function, List.of(args));
    }

    /** Every function, over each type it takes (integers read as Float64 included), with literals where it takes them. */
    static final List<Case> CASES = List.of(
            c("abs", "i32"),
            c("abs", "i64"),
            c("abs", "f32"),
            c("abs", "f64"),
            c("sign", "i32"),
            c("sign", "i64"),
            c("sign", "f32"),
            c("sign", "f64"),
            c("sqrt", "f64"),
            c("sqrt", "f32"),
            c("sqrt", "i32"),
            c("sqrt", "h64"),
            c("cbrt", "f64"),
            c("cbrt", "f32"),
            c("cbrt", "i64"),
            c("exp", "h64"),
            c("exp", "f64"),
            c("exp", "h32"),
            c("exp", "i32"),
            c("ln", "f64"),
            c("ln", "f32"),
            c("ln", "i64"),
            c("ln", "h64"),
            c("log2", "f64"),
            c("log2", "f32"),
            c("log2", "i32"),
            c("log10", "f64"),
            c("log10", "h32"),
            c("log", "f64"),
            c("log", "f32"),
            c("log", "h64", "f64"),
            c("log", "f32", "h32"),
            c("log", "2", "h64"),
            c("log", "10", "i32"),
            c("pow", "h64", "h64"),
            c("pow", "f64", "2"),
            c("pow", "f64", "h64"),
            c("power", "f32", "h32"),
            c("pow", "f32", "2"),
            c("pow", "i32", "u64"),
            c("sin", "f64"),
            c("sin", "h64"),
            c("sin", "f32"),
            c("cos", "f64"),
            c("cos", "h32"),
            c("tan", "h64"),
            c("tan", "f32"),
            c("asin", "u64"),
            c("asin", "f64"),
            c("asin", "u32"),
            c("acos", "u64"),
            c("acos", "u32"),
            c("atan", "f64"),
            c("atan", "f32"),
            c("atan2", "h64", "f64"),
            c("atan2", "f32", "h32"),
            c("atan2", "i32", "i64"),
            c("sinh", "h64"),
            c("sinh", "h32"),
            c("cosh", "h64"),
            c("cosh", "f32"),
            c("tanh", "h64"),
            c("tanh", "f32"),
            c("floor", "f64"),
            c("floor", "f32"),
            c("floor", "i32"),
            c("floor", "i64"),
            c("ceil", "f64"),
            c("ceil", "h32"),
            c("ceil", "i64"),
            c("trunc", "h64"),
            c("trunc", "f32"),
            c("trunc", "i32"),
            c("round", "f64"),
            c("round", "h64"),
            c("round", "f32"),
            c("round", "i32"),
            c("round", "h64", "2"),
            c("round", "f64", "-2"),
            c("round", "h64", "0"),
            c("round", "f32", "1"),
            c("round", "h32", "-1"),
            c("round", "f64", "400"),
            c("round", "h64", "-400"),
            c("degrees", "f64"),
            c("degrees", "f32"),
            c("radians", "h64"),
            c("radians", "h32"),
            c("pi"),
            c("hypot", "f64", "h64"),
            c("hypot", "f32", "h32"),
            c("hypot", "i32", "f64"),
            c("greatest", "f64", "h64"),
            c("greatest", "i32", "j32", "i32"),
            c("greatest", "i64"),
            c("greatest", "f32", "h32", "f32", "h32", "f32"),
            c("greatest", "i64", "j64", "d64"),
            c("least", "f64", "h64", "f64"),
            c("least", "i32", "j32"),
            c("least", "f32", "h32"),
            c("least", "i64", "j64"),
            c("least", "h64", "i32"),
            c("mod", "i32", "d32"),
            c("mod", "i64", "d64"),
            c("mod", "i64", "d32"),
            c("mod", "j32", "7"),
            c("gcd", "i32", "d32"),
            c("gcd", "i64", "d64"),
            c("gcd", "j32", "d64"),
            c("gcd", "j32", "d32"),
            c("gcd", "j64", "12"));

    // ---- the batch ------------------------------------------------------------------------

    static final double[] SPECIAL_DOUBLES = {
        0.0,
        -0.0,
        Double.NaN,
        Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1.5,
        2.5,
        -2.5,
        0.49999999999999994,
        Double.MIN_VALUE,
        -Double.MIN_VALUE,
        Double.MIN_NORMAL,
        1e-310,
        Double.MAX_VALUE,
        -Double.MAX_VALUE,
        0x1p52,
        0x1p51 + 0.5,
        0x1p53,
        Math.PI,
        Math.PI / 2,
        709.78,
        710,
        -745.2,
        1e300,
        1e-300,
        0.1,
        1e22,
        -1e20,
        418.15,
        1.0000000000000002,
        0.9999999999999999,
        2.0,
        1024.0,
        Float.MAX_VALUE,
        1e-40
    };
    static final float[] SPECIAL_FLOATS = {
        0f,
        -0f,
        Float.NaN,
        Float.POSITIVE_INFINITY,
        Float.NEGATIVE_INFINITY,
        1f,
        -1f,
        0.5f,
        -0.5f,
        2.5f,
        -2.5f,
        0.49999997f,
        Float.MIN_VALUE,
        -Float.MIN_VALUE,
        Float.MIN_NORMAL,
        1e-40f,
        Float.MAX_VALUE,
        -Float.MAX_VALUE,
        0x1p23f,
        0x1p22f + 0.5f,
        (float) Math.PI,
        88.72f,
        89f,
        -103.9f,
        1.0000001f,
        0.99999994f,
        2f,
        0.1f
    };
    static final long[] SPECIAL_LONGS = {
        0,
        1,
        -1,
        2,
        3,
        12,
        18,
        Long.MIN_VALUE,
        Long.MAX_VALUE,
        Long.MIN_VALUE + 1,
        Integer.MIN_VALUE,
        Integer.MAX_VALUE,
        1L << 62,
        7_540_113_804_746_346_429L,
        4_660_046_610_375_530_309L,
        97,
        1L << 40
    };
    static final int[] SPECIAL_INTS = {
        0,
        1,
        -1,
        2,
        3,
        12,
        18,
        Integer.MIN_VALUE,
        Integer.MAX_VALUE,
        Integer.MIN_VALUE + 1,
        1 << 30,
        1_836_311_903,
        1_134_903_170,
        97,
        1 << 16
    };

    /** A column: its name, its type, and how to draw a (non-null) value. */
    record Column(String name, DataType type, Function<Random, Object> draw) {}

    private static Object pick(Random r, Object usual, Object special) {
        return r.nextInt(3) == 0 ? special : usual;
    }

    /**
     * f64, f32: any value (special a third of the time, else Gaussian over 40 decades, or raw
     * bits); h64, h32: moderate (|x| below 2^40) with the specials; u64, u32: [-1.25, 1.25]
     * with ±1, ±0, NaN; i32, j32, i64, j64: any integer with the extremes; d32, d64: divisors
     * that are never 0 or MIN_VALUE (so mod and gcd never fail); z32, m64: zeros and MIN_VALUE, for the failures.
     */
    static final List<Column> COLUMNS = List.of(
            new Column(
                    "f64",
                    DataType.FLOAT64,
                    r -> pick(
                            r,
                            switch (r.nextInt(3)) {
                                case 0 -> r.nextGaussian() * Math.pow(10, r.nextInt(41) - 20);
                                case 1 -> Double.longBitsToDouble(r.nextLong());
                                default -> r.nextGaussian() * 1e6;
                            },
                            SPECIAL_DOUBLES[r.nextInt(SPECIAL_DOUBLES.length)])),
            new Column(
                    "h64",
                    DataType.FLOAT64,
                    r -> pick(
                            r,
                            Math.scalb(r.nextDouble() - 0.5, r.nextInt(80) - 40),
                            SPECIAL_DOUBLES[r.nextInt(SPECIAL_DOUBLES.length)])),
            new Column(
                    "u64",
                    DataType.FLOAT64,
                    r -> pick(
                            r,
                            (r.nextDouble() - 0.5) * 2.5,
                            new double[] {1.0, -1.0, 0.0, -0.0, Double.NaN, 0.9999999999999999, -1.0000000000000002, 0.5
                                    }
                                    [r.nextInt(8)])),
            new Column(
                    "f32",
                    DataType.FLOAT32,
                    r -> pick(
                            r,
                            switch (r.nextInt(3)) {
                                case 0 -> (float) (r.nextGaussian() * Math.pow(10, r.nextInt(21) - 10));
                                case 1 -> Float.intBitsToFloat(r.nextInt());
                                default -> (float) (r.nextGaussian() * 1e3);
                            },
                            SPECIAL_FLOATS[r.nextInt(SPECIAL_FLOATS.length)])),
            new Column(
                    "h32",
                    DataType.FLOAT32,
                    r -> pick(
                            r,
                            (float) Math.scalb(r.nextDouble() - 0.5, r.nextInt(40) - 20),
                            SPECIAL_FLOATS[r.nextInt(SPECIAL_FLOATS.length)])),
            new Column(
                    "u32",
                    DataType.FLOAT32,
                    r -> pick(
                            r,
                            (float) ((r.nextDouble() - 0.5) * 2.5),
                            new float[] {1f, -1f, 0f, -0f, Float.NaN, 0.99999994f, -1.0000001f}[r.nextInt(7)])),
            new Column("i32", DataType.INT32, r -> pick(r, r.nextInt(), SPECIAL_INTS[r.nextInt(SPECIAL_INTS.length)])),
            new Column(
                    "j32",
                    DataType.INT32,
                    r -> pick(r, r.nextInt(2001) - 1000, SPECIAL_INTS[r.nextInt(SPECIAL_INTS.length)])),
            new Column(
                    "i64", DataType.INT64, r -> pick(r, r.nextLong(), SPECIAL_LONGS[r.nextInt(SPECIAL_LONGS.length)])),
            new Column(
                    "j64",
                    DataType.INT64,
                    r -> pick(
                            r,
                            (r.nextLong() >> r.nextInt(64)) << r.nextInt(8),
                            SPECIAL_LONGS[r.nextInt(SPECIAL_LONGS.length)])),
            new Column("d32", DataType.INT32, r -> {
                int v = (Integer) pick(r, r.nextInt() >> r.nextInt(32), SPECIAL_INTS[r.nextInt(SPECIAL_INTS.length)]);
                return v == 0 || v == Integer.MIN_VALUE ? -1 : v;
            }),
            new Column("d64", DataType.INT64, r -> {
                long v = (Long) pick(r, r.nextLong() >> r.nextInt(64), SPECIAL_LONGS[r.nextInt(SPECIAL_LONGS.length)]);
                return v == 0 || v == Long.MIN_VALUE ? 1L : v;
            }),
            // For the failing rows: zeros and MIN_VALUE, often.
            new Column("z32", DataType.INT32, r -> new int[] {0, 1, -1, 5, Integer.MIN_VALUE}[r.nextInt(5)]),
            new Column("m64", DataType.INT64, r -> new long[] {0, Long.MIN_VALUE, 4, -6}[r.nextInt(4)]));

    static final Schema SCHEMA = new Schema(
            COLUMNS.stream().map(c -> c.type().toField(c.name(), true)).toList());
    static final int[] LENGTHS = {0, 1, 7, 65, 4_099};

    private BufferAllocator allocator;
    private Quiver quiver;
    private final List<VectorSchemaRoot> batches = new ArrayList<>();

    @BeforeAll
    void open() {
        System.out.println("MathLibraryTest seed " + SEED + " (replay with -Dquiver.seed=" + SEED + ")");
        allocator = new RootAllocator();
        quiver = Quiver.builder().allocator(allocator).build();
        Random random = new Random(SEED);
        for (int rows : LENGTHS) {
            batches.add(batch(rows, 0.15, random));
        }
    }

    @AfterAll
    void close() {
        batches.forEach(VectorSchemaRoot::close);
        quiver.close();
        assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked");
        allocator.close();
    }

    /** {@code rows} rows; about {@code nullFraction} of each column is null, with a drawn value behind it. */
    VectorSchemaRoot batch(int rows, double nullFraction, Random random) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        try {
            for (Column c : COLUMNS) {
                FieldVector v = root.getVector(c.name());
                v.setInitialCapacity(Math.max(rows, 1));
                v.allocateNew();
                for (int i = 0; i < rows; i++) {
                    Values.set(v, i, new ScalarValue(c.type(), c.draw().apply(random)));
                    if (random.nextDouble() < nullFraction) {
                        Values.setNull(v, i);
                    }
                }
                v.setValueCount(rows);
            }
            root.setRowCount(rows);
            return root;
        } catch (RuntimeException e) {
            root.close();
            throw e;
        }
    }

    // ---- the reference ------------------------------------------------------------------------

    static boolean isLiteral(String arg) {
        return arg.matches("-?[0-9]*\\.?[0-9]+");
    }

    /** The argument's type: the column's, or the literal's (Int32, or Float64 with a point). */
    static DataType typeOf(String arg) {
        if (arg.matches("-?[0-9]+")) {
            return DataType.INT32;
        }
        if (arg.matches("-?[0-9]*\\.[0-9]+")) {
            return DataType.FLOAT64;
        }
        return COLUMNS.stream()
                .filter(c -> c.name().equals(arg))
                .findFirst()
                .orElseThrow()
                .type();
    }

    static Number literal(String arg) {
        return arg.contains(".") ? (Number) Double.parseDouble(arg) : (Number) Integer.parseInt(arg);
    }

    /** The reference of one call: the RowFn the function is for the planned types, its program, and how to read a row. */
    record Reference(RowFn rowFn, List<ElementType> types, KernelProgram program) {
        /** The outcome for row {@code r}: a value, null (a Java null) or a failure (the RowFailure). */
        Object row(Case k, VectorSchemaRoot batch, int r) {
            int n = types.size();
            Number[] args = new Number[program.argTypes().size()];
            boolean anyNull = false;
            for (int i = 0; i < n; i++) {
                String a = k.args().get(i);
                Number v;
                boolean valid;
                if (isLiteral(a)) {
                    v = literal(a);
                    valid = true;
                } else {
                    ScalarValue s = Values.get(batch.getVector(a), r);
                    valid = !s.isNull();
                    v = valid ? (Number) s.value() : 0;
                }
                anyNull |= !valid;
                args[i] = convert(v, types.get(i));
                if (!rowFn.isStrict()) {
                    args[n + i] = valid ? 1 : 0;
                }
            }
            if (rowFn.isStrict() && anyNull) {
                return null;
            }
            try {
                Number v = RowInterpreter.evaluate(program.root(), args);
                return RowInterpreter.isNullResult(program, args) ? null : v;
            } catch (RowFailure e) {
                return e;
            }
        }
    }

    /** Java's cast of {@code v} to {@code t}, as the planner's coercion casts do. */
    static Number convert(Number v, ElementType t) {
        return switch (t) {
            case INT32 -> v.intValue();
            case INT64 -> v.longValue();
            case FLOAT32 -> v instanceof Long l ? (float) (long) l : v.floatValue();
            case FLOAT64 -> v instanceof Long l ? (double) (long) l : v.doubleValue();
            case BOOL -> v.intValue();
        };
    }

    Reference reference(Case k) {
        ScalarFunction fn = quiver.functions().lookup(k.function());
        List<DataType> given = k.args().stream().map(MathLibraryTest::typeOf).toList();
        List<DataType> planned = SignatureResolver.resolve(fn, given).stream()
                .map(DataType::valueType)
                .toList();
        RowFn rowFn = RowFnSource.of(fn, planned)
                .orElseThrow(() -> new AssertionError(k + ": " + fn.name() + " is not a RowFn for " + planned));
        List<ElementType> types =
                planned.stream().map(t -> t.elementType().orElseThrow()).toList();
        RowFn.Instance inst = rowFn.instance(types);
        return new Reference(
                rowFn,
                types,
                new KernelProgram(inst.irArgTypes(), inst.value(), inst.nullWhen(), inst.strict(), k.sql()));
    }

    // ---- comparing ------------------------------------------------------------------------------

    /** The distance in ulps of the value's own type (Float32 or Float64); 0 for equal bits, NaN equal to NaN. */
    static long ulpDistance(Number expected, Number actual) {
        if (expected instanceof Double e && actual instanceof Double a) {
            if (Double.isNaN(e) || Double.isNaN(a)) {
                return Double.isNaN(e) && Double.isNaN(a) ? 0 : Long.MAX_VALUE;
            }
            return Math.abs(ordered(Double.doubleToRawLongBits(e)) - ordered(Double.doubleToRawLongBits(a)));
        }
        if (expected instanceof Float e && actual instanceof Float a) {
            if (Float.isNaN(e) || Float.isNaN(a)) {
                return Float.isNaN(e) && Float.isNaN(a) ? 0 : Long.MAX_VALUE;
            }
            return Math.abs((long) ordered(Float.floatToRawIntBits(e)) - ordered(Float.floatToRawIntBits(a)));
        }
        return expected.getClass() == actual.getClass() && expected.longValue() == actual.longValue()
                ? 0
                : Long.MAX_VALUE;
    }

    /** Float bits as integers in the order of the values: -0.0 just below +0.0, a negative value's magnitude reversed. */
    private static long ordered(long bits) {
        return bits >= 0 ? bits : Long.MIN_VALUE - bits - 1;
    }

    private static int ordered(int bits) {
        return bits >= 0 ? bits : Integer.MIN_VALUE - bits - 1;
    }

    static Stream<Case> cases() {
        return CASES.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void everyDeviceIsWithinTheFunctionsBoundOfTheReference(Case k) {
        Bound bound = bound(k.function());
        Reference ref = reference(k);
        CompiledExpression e = quiver.compile(SCHEMA, k.sql());
        DataType expectedType = DataType.fromArrow(ref.program().resultType().arrowType());
        assertEquals(expectedType, DataType.fromField(e.outputField()), k + ": result type");
        for (VectorSchemaRoot batch : batches) {
            int rows = batch.getRowCount();
            List<Object> expected = new ArrayList<>(rows);
            for (int r = 0; r < rows; r++) {
                Object o = ref.row(k, batch, r);
                if (o instanceof RowFailure f) {
                    fail(k + " fails at row " + r + " in the reference (" + f.getMessage()
                            + "): the columns should not make it fail");
                }
                expected.add(o);
            }
            Map<Device, FieldVector> results = new LinkedHashMap<>();
            try {
                results.put(quiver.cpu(), e.evaluate(batch, Placement.CPU, allocator));
                for (Device d : quiver.openClDevices()) {
                    if (e.programs().stream()
                            .anyMatch(p -> d.backend().unsupportedReason(p).isPresent())) {
                        continue; // said so in explain(); openClRunsTheWholeLibrary checks that some device runs it
                    }
                    results.put(d, e.evaluate(batch, d, allocator));
                }
                for (Map.Entry<Device, FieldVector> result : results.entrySet()) {
                    Device device = result.getKey();
                    compare(k, bound.on(device), expected, result.getValue(), device.name(), batch);
                }
            } finally {
                results.values().forEach(FieldVector::close);
            }
        }
    }

    private void compare(
            Case k, int ulps, List<Object> expected, FieldVector actual, String device, VectorSchemaRoot batch) {
        int rows = expected.size();
        assertEquals(rows, actual.getValueCount(), k + " on " + device);
        List<String> bad = new ArrayList<>();
        long worst = 0;
        for (int r = 0; r < rows; r++) {
            Object want = expected.get(r);
            Object got = Values.get(actual, r).value();
            if (want == null || got == null) {
                if (want != got) {
                    bad.add("row " + r + ": " + got + ", expected " + want + inputs(k, batch, r));
                }
                continue;
            }
            long d = ulpDistance((Number) want, (Number) got);
            worst = Math.max(worst, d);
            if (d > ulps) {
                bad.add("row " + r + ": " + got + ", expected " + want + " ("
                        + (d == Long.MAX_VALUE ? "NaN or type mismatch" : d + " ulp") + ")" + inputs(k, batch, r));
            }
        }
        if (!bad.isEmpty()) {
            fail(k + " on " + device + ": " + bad.size() + " of " + rows + " rows beyond " + ulps + " ulp (seed " + SEED
                    + "):\n" + String.join("\n", bad.subList(0, Math.min(10, bad.size()))));
        }
        if (worst > 0 && rows > 1000) {
            System.out.println(
                    "MathLibraryTest: " + k + " on " + device + ": worst " + worst + " ulp (bound " + ulps + ")");
        }
    }

    private static String inputs(Case k, VectorSchemaRoot batch, int r) {
        StringBuilder sb = new StringBuilder(" for ");
        for (String a : k.args()) {
            sb.append(a).append('=');
            sb.append(isLiteral(a) ? a : Values.get(batch.getVector(a), r).value());
            sb.append(' ');
        }
        return sb.toString();
    }

    // ---- failures, coverage, devices -----------------------------------------------------------

    @Test
    void everyFunctionIsCoveredAndBounded() {
        List<String> names = CASES.stream()
                .map(k -> k.function().equals("power") ? "pow" : k.function())
                .distinct()
                .sorted()
                .toList();
        assertEquals(
                BOUNDS.keySet().stream().sorted().toList(), names, "one bound per function, every function a case");
    }

    @Test
    void aZeroDivisorOrAGcdOfTwoToTheSixtyThreeFailsTheBatchOnEveryDevice() {
        VectorSchemaRoot batch = batches.getLast();
        Object[][] failing = {
            {"mod(i32, z32)", "division by zero"},
            {"mod(i64, z32)", "division by zero"},
            {"gcd(m64, m64)", "integer overflow"},
            {"gcd(z32, z32)", "integer overflow"}
        };
        for (Object[] f : failing) {
            CompiledExpression e = quiver.compile(SCHEMA, (String) f[0]);
            List<Device> devices = new ArrayList<>(List.of(quiver.cpu()));
            devices.addAll(quiver.openClDevices());
            for (Device d : devices) {
                if (e.programs().stream()
                        .anyMatch(p -> d.backend().unsupportedReason(p).isPresent())) {
                    continue;
                }
                KernelArithmeticException x = assertThrows(
                        KernelArithmeticException.class,
                        () -> e.evaluate(batch, d, allocator).close(),
                        f[0] + " on " + d.name());
                assertTrue(x.getMessage().contains((String) f[1]), f[0] + " on " + d.name() + ": " + x.getMessage());
            }
        }
    }

    @Test
    void openClRunsTheWholeLibrary() {
        OpenClAvailability.requireOpenCl(quiver);
        List<String> none = new ArrayList<>();
        for (Case k : CASES) {
            CompiledExpression e = quiver.compile(SCHEMA, k.sql());
            boolean any = quiver.openClDevices().stream()
                    .anyMatch(d -> e.programs().stream()
                            .allMatch(p -> d.backend().unsupportedReason(p).isEmpty()));
            if (!any) {
                none.add(k + ":\n" + e.explain());
            }
        }
        assertTrue(none.isEmpty(), "no OpenCL device runs " + none);
    }

    @Test
    void theSameFunctionsFoldAtPlanning() {
        // All-literal calls fold with the reference: what the devices must agree with.
        for (String sql : List.of(
                "pi()",
                "gcd(12, 18)",
                "round(2.5)",
                "log(10, 1000)",
                "greatest(1, NULL, 3)",
                "mod(-7, 2)",
                "sign(-0.0)")) {
            CompiledExpression e = quiver.compile(SCHEMA, sql);
            assertTrue(e.programs().isEmpty(), sql + " should fold:\n" + e.explain());
        }
        try (VectorSchemaRoot one = batch(1, 0, new Random(1));
                FieldVector out = quiver.compile(SCHEMA, "log(10, 1000) + gcd(12, 18) + round(2.5)")
                        .evaluate(one, Placement.CPU, allocator)) {
            assertEquals(Arrays.asList(12.0), List.of(Values.get(out, 0).value()));
        }
    }
}
