package dev.quiver.functions.builtin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.functions.ExecutionConfig;
import dev.quiver.functions.FunctionRegistry;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.SignatureResolver;
import dev.quiver.rowfn.IrSubstitution;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.RowFnSource;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowFailure;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.types.DataType;
import dev.quiver.types.ElementType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.Values;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The math library through its reference path (each RowFn's captured IR run by
 * {@link RowInterpreter}), row by row against oracles written here in plain Java: StrictMath
 * (the documented reference of the transcendental functions; a Float32 is computed in double
 * and rounded once), BigDecimal for rounding, a BigInteger gcd, and loops for least/greatest.
 * Inputs: the special values of each type (NaN, ±Infinity, ±0, subnormals, domain edges,
 * integer extremes) and random ones, also as raw bits. Results must match bit for bit (NaN
 * equals NaN). Replay with {@code -Dquiver.seed=<seed>}.
 */
class MathFunctionsTest {
    static final long SEED = Long.getLong("quiver.seed", System.nanoTime());
    static final int RANDOM_ROWS = 3_000;

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
        -1.5,
        2.5,
        -2.5,
        0.49999999999999994,
        -0.49999999999999994,
        Double.MIN_VALUE,
        -Double.MIN_VALUE,
        Double.MIN_NORMAL,
        1e-310,
        -1e-310,
        Double.MAX_VALUE,
        -Double.MAX_VALUE,
        0x1p52,
        -0x1p52,
        0x1p52 + 1,
        0x1p51 + 0.5,
        -0x1p51 - 0.5,
        0x1p53,
        0x1p63,
        Math.PI,
        -Math.PI,
        Math.PI / 2,
        Math.E,
        1e300,
        -1e300,
        1e-300,
        709.78,
        710,
        -745.2,
        -746,
        0.1,
        1e22,
        1e23,
        -1e20,
        418.15,
        2.345,
        1.0000000000000002,
        -1.0000000000000002,
        0.9999999999999999,
        -0.9999999999999999,
        2.0,
        8.0,
        1024.0,
        0x1p-1074,
        0x1p-1022,
        3.0,
        1e15 + 0.125,
        16_777_217.0,
        Float.MAX_VALUE
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
        1.5f,
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
        -0x1p22f - 0.5f,
        0x1p24f,
        (float) Math.PI,
        88.72f,
        89f,
        -103.9f,
        1.0000001f,
        -1.0000001f,
        0.99999994f,
        2f,
        8f,
        1e20f,
        16_777_216f,
        0.1f,
        418.15f
    };
    static final long[] SPECIAL_LONGS = {
        0,
        1,
        -1,
        2,
        -2,
        3,
        6,
        12,
        18,
        Long.MIN_VALUE,
        Long.MAX_VALUE,
        Long.MIN_VALUE + 1,
        Long.MAX_VALUE - 1,
        Integer.MIN_VALUE,
        Integer.MAX_VALUE,
        1L << 62,
        -(1L << 62),
        1L << 32,
        7_540_113_804_746_346_429L,
        4_660_046_610_375_530_309L,
        2_880_067_194_370_816_120L,
        1_779_979_416_004_714_189L,
        1_000_000_007L,
        65_536,
        97
    };
    static final int[] SPECIAL_INTS = {
        0,
        1,
        -1,
        2,
        -2,
        3,
        6,
        12,
        18,
        Integer.MIN_VALUE,
        Integer.MAX_VALUE,
        Integer.MIN_VALUE + 1,
        Integer.MAX_VALUE - 1,
        1 << 30,
        -(1 << 30),
        1_836_311_903,
        1_134_903_170,
        701_408_733,
        65_536,
        97,
        1 << 16,
        46_368
    };

    private final Random random = new Random(SEED);

    // ---- values ---------------------------------------------------------------------------

    /** The special values of {@code t} then random ones (small, large, raw bits). */
    List<Number> values(ElementType t) {
        List<Number> out = new ArrayList<>();
        switch (t) {
            case FLOAT64 -> {
                for (double d : SPECIAL_DOUBLES) {
                    out.add(d);
                }
                for (int i = 0; i < RANDOM_ROWS; i++) {
                    out.add(
                            switch (i % 4) {
                                case 0 -> random.nextGaussian();
                                case 1 -> random.nextGaussian() * Math.pow(10, random.nextInt(41) - 20);
                                case 2 -> Double.longBitsToDouble(random.nextLong());
                                default -> (random.nextInt(2001) - 1000) / 8.0 + (random.nextBoolean() ? 0 : 0.5);
                            });
                }
            }
            case FLOAT32 -> {
                for (float f : SPECIAL_FLOATS) {
                    out.add(f);
                }
                for (int i = 0; i < RANDOM_ROWS; i++) {
                    out.add(
                            switch (i % 4) {
                                case 0 -> (float) random.nextGaussian();
                                case 1 -> (float) (random.nextGaussian() * Math.pow(10, random.nextInt(21) - 10));
                                case 2 -> Float.intBitsToFloat(random.nextInt());
                                default -> (random.nextInt(2001) - 1000) / 8.0f;
                            });
                }
            }
            case INT64 -> {
                for (long l : SPECIAL_LONGS) {
                    out.add(l);
                }
                for (int i = 0; i < RANDOM_ROWS; i++) {
                    out.add(
                            switch (i % 4) {
                                case 0 -> random.nextLong();
                                case 1 -> (long) random.nextInt(2001) - 1000;
                                case 2 -> random.nextLong() >> random.nextInt(64);
                                default -> (random.nextLong() >> random.nextInt(40)) << random.nextInt(24);
                            });
                }
            }
            case INT32 -> {
                for (int v : SPECIAL_INTS) {
                    out.add(v);
                }
                for (int i = 0; i < RANDOM_ROWS; i++) {
                    out.add(
                            switch (i % 4) {
                                case 0 -> random.nextInt();
                                case 1 -> random.nextInt(2001) - 1000;
                                case 2 -> random.nextInt() >> random.nextInt(32);
                                default -> (random.nextInt() >> random.nextInt(20)) << random.nextInt(12);
                            });
                }
            }
            case BOOL -> throw new IllegalArgumentException("no Boolean values");
        }
        return out;
    }

    /** Rows of {@code arity} arguments of type t: every pair of special values, then random combinations. */
    List<Number[]> rows(ElementType t, int arity) {
        List<Number> v = values(t);
        int specials = switch (t) {
            case FLOAT64 -> SPECIAL_DOUBLES.length;
            case FLOAT32 -> SPECIAL_FLOATS.length;
            case INT64 -> SPECIAL_LONGS.length;
            default -> SPECIAL_INTS.length;
        };
        List<Number[]> out = new ArrayList<>();
        if (arity == 1) {
            for (Number n : v) {
                out.add(new Number[] {n});
            }
            return out;
        }
        for (int i = 0; i < specials; i++) {
            for (int j = 0; j < specials; j++) {
                out.add(
                        arity == 2
                                ? new Number[] {v.get(i), v.get(j)}
                                : new Number[] {v.get(i), v.get(j), v.get((i + j) % specials)});
            }
        }
        for (int k = 0; k < RANDOM_ROWS; k++) {
            Number[] row = new Number[arity];
            for (int a = 0; a < arity; a++) {
                row[a] = v.get(random.nextInt(v.size()));
            }
            out.add(row);
        }
        return out;
    }

    // ---- the reference path ------------------------------------------------------------------

    /** What a row gives: its value, null, or a failure with its message. */
    record Outcome(Number value, boolean isNull, String failure) {
        static Outcome of(Number v) {
            return new Outcome(v, false, null);
        }

        static final Outcome NULL = new Outcome(null, true, null);

        static Outcome fails(String message) {
            return new Outcome(null, false, message);
        }

        boolean matches(Outcome o) {
            if (failure != null || o.failure != null) {
                return failure != null && o.failure != null && o.failure.contains(failure);
            }
            if (isNull || o.isNull) {
                return isNull == o.isNull;
            }
            return sameBits(value, o.value);
        }
    }

    static boolean sameBits(Number a, Number b) {
        return switch (a) {
            case Double d -> b instanceof Double e && Double.doubleToLongBits(d) == Double.doubleToLongBits(e);
            case Float f -> b instanceof Float g && Float.floatToIntBits(f) == Float.floatToIntBits(g);
            case Integer i -> b instanceof Integer j && i.intValue() == j.intValue();
            case Long l -> b instanceof Long m && l.longValue() == m.longValue();
            default -> a.equals(b);
        };
    }

    /** The program the planner would run for {@code fn} over these types (folded, as KernelProgram does). */
    static KernelProgram program(RowFn fn, List<ElementType> types) {
        RowFn.Instance inst = fn.instance(types);
        return new KernelProgram(inst.irArgTypes(), inst.value(), inst.nullWhen(), inst.strict(), fn.name());
    }

    /** One row through the reference; {@code valid} is null for a strict function. */
    static Outcome reference(KernelProgram p, Number[] args, boolean[] valid) {
        Number[] row = args;
        if (valid != null) {
            row = Arrays.copyOf(args, args.length * 2);
            for (int i = 0; i < args.length; i++) {
                row[args.length + i] = valid[i] ? 1 : 0;
            }
        }
        try {
            Number v = RowInterpreter.evaluate(p.root(), row);
            return RowInterpreter.isNullResult(p, row) ? Outcome.NULL : Outcome.of(v);
        } catch (RowFailure e) {
            return Outcome.fails(e.getMessage());
        }
    }

    /** Every row of {@code rows} must give the oracle's outcome. */
    static void check(RowFn fn, List<ElementType> types, List<Number[]> rows, Function<Number[], Outcome> oracle) {
        KernelProgram p = program(fn, types);
        List<String> bad = new ArrayList<>();
        for (Number[] row : rows) {
            Outcome want = oracle.apply(row);
            Outcome got = reference(p, row, null);
            if (!want.matches(got)) {
                bad.add(fn.name() + Arrays.toString(row) + " = " + got + ", expected " + want);
            }
        }
        if (!bad.isEmpty()) {
            fail(bad.size() + " of " + rows.size() + " rows of " + fn.name() + types + " differ (seed " + SEED
                    + "), e.g.:\n" + String.join("\n", bad.subList(0, Math.min(10, bad.size()))));
        }
    }

    /** A float function of one argument: Float64 as {@code f}, Float32 as f in double rounded once. */
    void checkUnary(RowFn fn, DoubleUnaryOperator f) {
        check(
                fn,
                List.of(ElementType.FLOAT64),
                rows(ElementType.FLOAT64, 1),
                r -> Outcome.of(f.applyAsDouble(r[0].doubleValue())));
        check(
                fn,
                List.of(ElementType.FLOAT32),
                rows(ElementType.FLOAT32, 1),
                r -> Outcome.of((float) f.applyAsDouble(r[0].floatValue())));
    }

    void checkBinary(RowFn fn, DoubleBinaryOperator f) {
        check(
                fn,
                List.of(ElementType.FLOAT64, ElementType.FLOAT64),
                rows(ElementType.FLOAT64, 2),
                r -> Outcome.of(f.applyAsDouble(r[0].doubleValue(), r[1].doubleValue())));
        check(
                fn,
                List.of(ElementType.FLOAT32, ElementType.FLOAT32),
                rows(ElementType.FLOAT32, 2),
                r -> Outcome.of((float) f.applyAsDouble(r[0].floatValue(), r[1].floatValue())));
    }

    // ---- the functions ---------------------------------------------------------------------

    @Test
    void transcendentalFunctionsAreStrictMath() {
        checkUnary(MathFunctions.SQRT, StrictMath::sqrt);
        checkUnary(MathFunctions.CBRT, StrictMath::cbrt);
        checkUnary(MathFunctions.EXP, StrictMath::exp);
        checkUnary(MathFunctions.LN, StrictMath::log);
        checkUnary(MathFunctions.LOG10, StrictMath::log10);
        checkUnary(MathFunctions.LOG_1, StrictMath::log10);
        checkUnary(MathFunctions.SIN, StrictMath::sin);
        checkUnary(MathFunctions.COS, StrictMath::cos);
        checkUnary(MathFunctions.TAN, StrictMath::tan);
        checkUnary(MathFunctions.ASIN, StrictMath::asin);
        checkUnary(MathFunctions.ACOS, StrictMath::acos);
        checkUnary(MathFunctions.ATAN, StrictMath::atan);
        checkUnary(MathFunctions.SINH, StrictMath::sinh);
        checkUnary(MathFunctions.COSH, StrictMath::cosh);
        checkUnary(MathFunctions.TANH, StrictMath::tanh);
        checkBinary(MathFunctions.POW, StrictMath::pow);
        checkBinary(MathFunctions.ATAN2, StrictMath::atan2);
        checkBinary(MathFunctions.HYPOT, StrictMath::hypot);
    }

    @Test
    void domainErrorsAreNaNAndPolesAreInfinite() {
        double nan = Double.NaN;
        Object[][] cases = {
            {MathFunctions.SQRT, -1.0, nan},
            {MathFunctions.SQRT, -0.0, -0.0},
            {MathFunctions.LN, -1.0, nan},
            {MathFunctions.LN, 0.0, Double.NEGATIVE_INFINITY},
            {MathFunctions.LN, -0.0, Double.NEGATIVE_INFINITY},
            {MathFunctions.LOG2, 0.0, Double.NEGATIVE_INFINITY},
            {MathFunctions.LOG10, -1e-300, nan},
            {MathFunctions.ASIN, 2.0, nan},
            {MathFunctions.ASIN, 1.0, Math.PI / 2},
            {MathFunctions.ASIN, -1.0, -Math.PI / 2},
            {MathFunctions.ACOS, -1.0000000000000002, nan},
            {MathFunctions.ACOS, -1.0, Math.PI},
            {MathFunctions.ACOS, 1.0, 0.0},
            {MathFunctions.SIN, Double.POSITIVE_INFINITY, nan},
            {MathFunctions.COS, Double.NEGATIVE_INFINITY, nan},
            {MathFunctions.TAN, Double.POSITIVE_INFINITY, nan},
            {MathFunctions.SIN, -0.0, -0.0},
            {MathFunctions.EXP, nan, nan},
            {MathFunctions.EXP, 710.0, Double.POSITIVE_INFINITY},
            {MathFunctions.TANH, Double.NEGATIVE_INFINITY, -1.0},
            {MathFunctions.CBRT, -8.0, -2.0},
            {MathFunctions.ATAN, Double.POSITIVE_INFINITY, Math.PI / 2}
        };
        for (Object[] c : cases) {
            RowFn fn = (RowFn) c[0];
            Outcome got = reference(program(fn, List.of(ElementType.FLOAT64)), new Number[] {(Double) c[1]}, null);
            assertTrue(
                    Outcome.of((Double) c[2]).matches(got),
                    fn.name() + "(" + c[1] + ") = " + got.value() + ", expected " + c[2]);
        }
        // pow's special cases (StrictMath.pow): pow(x, 0) = 1 even for NaN, pow(NaN, y) = NaN otherwise,
        // pow(-8, 1/3) = NaN (a negative base and a non-integer exponent), pow(0, -1) = Infinity; and, as Java
        // and unlike C and IEEE 754's pow, pow(1, NaN) and pow(±1, ±Infinity) are NaN.
        KernelProgram pow = program(MathFunctions.POW, List.of(ElementType.FLOAT64, ElementType.FLOAT64));
        double[][] powCases = {
            {nan, 0.0, 1.0},
            {nan, 1.0, nan},
            {-8.0, 1.0 / 3, nan},
            {0.0, -1.0, Double.POSITIVE_INFINITY},
            {-0.0, -1.0, Double.NEGATIVE_INFINITY},
            {-1.0, Double.POSITIVE_INFINITY, nan},
            {1.0, nan, nan},
            {1.0, 5.5, 1.0},
            {2.0, 0.5, Math.sqrt(2)},
            {-2.0, 3.0, -8.0}
        };
        for (double[] c : powCases) {
            Outcome got = reference(pow, new Number[] {c[0], c[1]}, null);
            assertTrue(Outcome.of(c[2]).matches(got), "pow(" + c[0] + ", " + c[1] + ") = " + got.value());
        }
    }

    @Test
    void log2IsExactForPowersOfTwoAndWithinOneAndAHalfUlpElsewhere() {
        KernelProgram p = program(MathFunctions.LOG2, List.of(ElementType.FLOAT64));
        for (int e = -1074; e <= 1023; e++) {
            double x = Math.scalb(1.0, e);
            assertEquals((double) e, reference(p, new Number[] {x}, null).value(), "log2(2^" + e + ")");
        }
        for (Number[] row : rows(ElementType.FLOAT64, 1)) {
            double x = row[0].doubleValue();
            double got = reference(p, row, null).value().doubleValue();
            if (!(x > 0) || Double.isInfinite(x)) {
                assertTrue(sameBits(StrictMath.log(x), got), "log2(" + x + ") = " + got);
                continue;
            }
            // An independent value in 50 digits: the exponent plus 2 atanh((m - 1) / (m + 1)) / ln 2.
            BigDecimal exact = log2Exact(x);
            double ulps = new BigDecimal(got)
                    .subtract(exact)
                    .abs()
                    .divide(new BigDecimal(Math.ulp(exact.doubleValue())), LOG_CONTEXT)
                    .doubleValue();
            assertTrue(ulps <= 1.5, "log2(" + x + ") = " + got + ", " + ulps + " ulp from " + exact);
        }
        KernelProgram f = program(MathFunctions.LOG2, List.of(ElementType.FLOAT32));
        for (int e = -149; e <= 127; e++) {
            assertEquals(
                    (float) e,
                    reference(f, new Number[] {Math.scalb(1.0f, e)}, null).value(),
                    "log2(2^" + e + "f)");
        }
    }

    static final MathContext LOG_CONTEXT = new MathContext(50);
    static final BigDecimal LN2 = ln(new BigDecimal(2));

    /** ln(m) for m in (0.5, 2.5): 2 atanh((m - 1) / (m + 1)) summed to 50 digits. */
    static BigDecimal ln(BigDecimal m) {
        BigDecimal z = m.subtract(BigDecimal.ONE).divide(m.add(BigDecimal.ONE), LOG_CONTEXT);
        BigDecimal z2 = z.multiply(z, LOG_CONTEXT);
        BigDecimal term = z;
        BigDecimal sum = BigDecimal.ZERO;
        for (int k = 0; term.abs().compareTo(new BigDecimal("1e-60")) > 0; k++) {
            sum = sum.add(term.divide(BigDecimal.valueOf(2L * k + 1), LOG_CONTEXT), LOG_CONTEXT);
            term = term.multiply(z2, LOG_CONTEXT);
        }
        return sum.multiply(BigDecimal.valueOf(2), LOG_CONTEXT);
    }

    static BigDecimal log2Exact(double x) {
        int e = Math.getExponent(x);
        if (e < Double.MIN_EXPONENT) {
            return log2Exact(x * 0x1p54).subtract(BigDecimal.valueOf(54));
        }
        double m = x / Math.scalb(1.0, e);
        return BigDecimal.valueOf(e).add(ln(new BigDecimal(m)).divide(LN2, LOG_CONTEXT), LOG_CONTEXT);
    }

    @Test
    void logOfBaseIsLog10OverLog10() {
        check(
                MathFunctions.LOG_2,
                List.of(ElementType.FLOAT64, ElementType.FLOAT64),
                rows(ElementType.FLOAT64, 2),
                r -> Outcome.of(StrictMath.log10(r[1].doubleValue()) / StrictMath.log10(r[0].doubleValue())));
        check(
                MathFunctions.LOG_2,
                List.of(ElementType.FLOAT32, ElementType.FLOAT32),
                rows(ElementType.FLOAT32, 2),
                r -> Outcome.of(
                        (float) StrictMath.log10(r[1].floatValue()) / (float) StrictMath.log10(r[0].floatValue())));
        KernelProgram p = program(MathFunctions.LOG_2, List.of(ElementType.FLOAT64, ElementType.FLOAT64));
        double[][] exact = {
            {10, 1000, 3},
            {2, 8, 3},
            {3, 81, 4},
            {0.5, 8, -3},
            {10, 1e-300, -300},
            {1, 5, Double.POSITIVE_INFINITY},
            {1, 1, Double.NaN},
            {-2, 5, Double.NaN},
            {2, 0, Double.NEGATIVE_INFINITY}
        };
        for (double[] c : exact) {
            Outcome got = reference(p, new Number[] {c[0], c[1]}, null);
            assertTrue(Outcome.of(c[2]).matches(got), "log(" + c[0] + ", " + c[1] + ") = " + got.value());
        }
    }

    @Test
    void absSignFloorCeilTruncOverEveryNumberType() {
        for (ElementType t : List.of(ElementType.INT32, ElementType.INT64, ElementType.FLOAT32, ElementType.FLOAT64)) {
            List<ElementType> types = List.of(t);
            List<Number[]> rows = rows(t, 1);
            check(
                    MathFunctions.ABS,
                    types,
                    rows,
                    r -> Outcome.of(
                            switch (r[0]) {
                                case Integer i -> Math.abs(i);
                                case Long l -> Math.abs(l);
                                case Float f -> Float.intBitsToFloat(Float.floatToRawIntBits(f) & 0x7fffffff);
                                default ->
                                    Double.longBitsToDouble(
                                            Double.doubleToRawLongBits(r[0].doubleValue()) & Long.MAX_VALUE);
                            }));
            check(
                    MathFunctions.SIGN,
                    types,
                    rows,
                    r -> Outcome.of(
                            switch (r[0]) {
                                case Integer i -> Integer.signum(i);
                                case Long l -> (long) Long.signum(l);
                                case Float f -> Math.signum(f);
                                default -> Math.signum(r[0].doubleValue());
                            }));
            check(MathFunctions.FLOOR, types, rows, r -> Outcome.of(integral(r[0], RoundingMode.FLOOR)));
            check(MathFunctions.CEIL, types, rows, r -> Outcome.of(integral(r[0], RoundingMode.CEILING)));
            check(MathFunctions.TRUNC, types, rows, r -> Outcome.of(integral(r[0], RoundingMode.DOWN)));
        }
    }

    /** An integer unchanged; a float rounded in BigDecimal, keeping the sign of zero, NaN and infinities unchanged. */
    static Number integral(Number x, RoundingMode mode) {
        if (x instanceof Integer || x instanceof Long) {
            return x;
        }
        double d = x.doubleValue();
        if (!Double.isFinite(d)) {
            return x;
        }
        double r = Math.copySign(new BigDecimal(d).setScale(0, mode).doubleValue(), d);
        return x instanceof Float ? (Number) (float) r : (Number) r;
    }

    @Test
    void roundWithoutDigitsIsExactHalfAwayFromZero() {
        check(
                MathFunctions.ROUND_1,
                List.of(ElementType.FLOAT64),
                rows(ElementType.FLOAT64, 1),
                r -> Outcome.of(integral(r[0], RoundingMode.HALF_UP)));
        check(
                MathFunctions.ROUND_1,
                List.of(ElementType.FLOAT32),
                rows(ElementType.FLOAT32, 1),
                r -> Outcome.of(integral(r[0], RoundingMode.HALF_UP)));
    }

    /**
     * The documented formula, written independently: x * 10^d (x / 10^-d) in double, rounded
     * half away from zero in BigDecimal, divided (multiplied) back; x itself where the scaled
     * value has no fraction left or is not finite; a zero keeps x's sign.
     */
    static double roundOracle(double x, int digits) {
        double scale = BigDecimal.TEN.pow(Math.abs(digits)).doubleValue();
        double y = digits >= 0 ? x * scale : x / scale;
        if (!(Math.abs(y) < 0x1p52)) {
            return x;
        }
        double r = Math.copySign(
                new BigDecimal(y).setScale(0, RoundingMode.HALF_UP).doubleValue(), y);
        if (r == 0) {
            return r;
        }
        return digits >= 0 ? r / scale : r * scale;
    }

    @Test
    void roundToDigitsScalesRoundsAndScalesBack() {
        int[] digits = {
            0,
            1,
            2,
            3,
            5,
            10,
            15,
            17,
            22,
            23,
            29,
            44,
            100,
            300,
            308,
            309,
            400,
            -1,
            -2,
            -3,
            -10,
            -22,
            -29,
            -300,
            -308,
            -400,
            Integer.MAX_VALUE,
            Integer.MIN_VALUE
        };
        for (int d : digits) {
            List<Number[]> rows64 = new ArrayList<>();
            for (Number x : values(ElementType.FLOAT64)) {
                rows64.add(new Number[] {x, d});
            }
            // Digits past 10^44 are within an ulp of the scale: only check they keep x or follow the formula closely.
            int dd = d;
            if (Math.abs((long) d) <= 44) {
                check(
                        MathFunctions.ROUND_2,
                        List.of(ElementType.FLOAT64, ElementType.INT32),
                        rows64,
                        r -> Outcome.of(roundOracle(r[0].doubleValue(), dd)));
            }
            List<Number[]> rows32 = new ArrayList<>();
            for (Number x : values(ElementType.FLOAT32)) {
                rows32.add(new Number[] {x, d});
            }
            if (Math.abs((long) d) <= 44) {
                check(
                        MathFunctions.ROUND_2,
                        List.of(ElementType.FLOAT32, ElementType.INT32),
                        rows32,
                        r -> Outcome.of((float) roundOracle(r[0].floatValue(), dd)));
            }
        }
        KernelProgram p = program(MathFunctions.ROUND_2, List.of(ElementType.FLOAT64, ElementType.INT32));
        Object[][] cases = {
            {418.15, 1, 418.2},
            {2.345, 2, 2.35},
            {-1e20, 3, -1e20},
            {-0.004, 2, -0.0},
            {0.004, 2, 0.0},
            {1234.5678, -2, 1200.0},
            {-1250.0, -2, -1300.0},
            {16777217.0, -2, 16777200.0},
            {1.7e308, -308, Double.POSITIVE_INFINITY},
            {123.456, -400, 0.0},
            {-123.456, -400, -0.0},
            {1.5, 400, 1.5},
            {0.0, 400, 0.0},
            {Double.POSITIVE_INFINITY, -2, Double.POSITIVE_INFINITY},
            {Double.NaN, 2, Double.NaN},
            {0.125, 2, 0.13},
            {-0.125, 2, -0.13},
            {2.5, 0, 3.0},
            {Double.MIN_VALUE, 300, 0.0},
            {Double.MIN_VALUE, 330, Double.MIN_VALUE},
            {Double.MAX_VALUE, 2, Double.MAX_VALUE}
        };
        for (Object[] c : cases) {
            Outcome got = reference(p, new Number[] {(Double) c[0], (Integer) c[1]}, null);
            assertTrue(
                    Outcome.of((Double) c[2]).matches(got),
                    "round(" + c[0] + ", " + c[1] + ") = " + got.value() + ", expected " + c[2]);
        }
    }

    @Test
    void degreesAndRadiansMultiplyOnce() {
        checkUnary(MathFunctions.DEGREES, Math::toDegrees);
        checkUnary(MathFunctions.RADIANS, Math::toRadians);
    }

    @Test
    void piIsAConstant() {
        KernelProgram p = program(MathFunctions.PI, List.of());
        assertEquals(Math.PI, RowInterpreter.evaluate(p.root(), new Number[0]));
        assertInstanceOf(IrNode.Const.class, p.root(), "folded");
    }

    @Test
    void modIsJavaRemainderAndAZeroDivisorFails() {
        for (ElementType t : List.of(ElementType.INT32, ElementType.INT64)) {
            check(MathFunctions.MOD, List.of(t, t), rows(t, 2), r -> {
                if (r[1].longValue() == 0) {
                    return Outcome.fails("mod: division by zero");
                }
                return Outcome.of(
                        t == ElementType.INT32
                                ? (Number) (r[0].intValue() % r[1].intValue())
                                : (Number) (r[0].longValue() % r[1].longValue()));
            });
        }
    }

    @Test
    void gcdIsNonNegativeAndFailsOnlyWhereItDoesNotFit() {
        for (ElementType t : List.of(ElementType.INT32, ElementType.INT64)) {
            List<Number[]> rows = rows(t, 2);
            // Adversarial pairs for the unrolled steps: 1 against all-ones, Fibonacci neighbours, powers of two.
            long max = t == ElementType.INT64 ? Long.MAX_VALUE : Integer.MAX_VALUE;
            int bits = t == ElementType.INT64 ? 63 : 31;
            for (int k = 1; k <= bits; k++) {
                long ones = k == 63 ? Long.MAX_VALUE : (1L << k) - 1;
                rows.add(pair(t, 1, ones));
                rows.add(pair(t, ones, 3));
                rows.add(pair(t, 1L << (k - 1), -(1L << (k - 1))));
                rows.add(pair(t, (1L << (k - 1)) * 3, max));
            }
            long a = 1;
            long b = 1;
            while (b <= max - a && b > 0) {
                long c = a + b;
                a = b;
                b = c;
                rows.add(pair(t, a, b));
                rows.add(pair(t, -b, a * 2));
            }
            check(MathFunctions.GCD, List.of(t, t), rows, r -> {
                BigInteger g = BigInteger.valueOf(r[0].longValue()).gcd(BigInteger.valueOf(r[1].longValue()));
                if (g.bitLength() > bits) {
                    return Outcome.fails("gcd: integer overflow");
                }
                return Outcome.of(t == ElementType.INT32 ? (Number) g.intValue() : (Number) g.longValue());
            });
        }
    }

    private static Number[] pair(ElementType t, long a, long b) {
        return t == ElementType.INT32 ? new Number[] {(int) a, (int) b} : new Number[] {a, b};
    }

    @Test
    void gcdIsAModestDag() {
        // Each step uses its inputs twice: as a tree the IR would double with every step.
        for (ElementType t : List.of(ElementType.INT32, ElementType.INT64)) {
            RowFn.Instance inst = MathFunctions.GCD.instance(List.of(t, t));
            int nodes = distinctNodes(inst.value(), new IdentityHashMap<>());
            assertTrue(nodes < (t == ElementType.INT64 ? 720 : 370), t + ": " + nodes + " distinct nodes");
            // Two separately built programs are equal, hash alike, and render in bounded text.
            KernelProgram a = program(MathFunctions.GCD, List.of(t, t));
            KernelProgram b = new KernelProgram(
                    inst.irArgTypes(),
                    IrSubstitution.substitute(inst.value(), List.of(new IrNode.Arg(0, t), new IrNode.Arg(1, t))),
                    null,
                    true,
                    "gcd");
            assertEquals(a, b);
            assertEquals(a.hashCode(), b.hashCode());
            assertEquals(a.shape(), b.shape());
            assertTrue(KernelProgram.render(a.root()).length() < 5_000);
        }
    }

    private static int distinctNodes(IrNode n, IdentityHashMap<IrNode, Boolean> seen) {
        if (seen.put(n, Boolean.TRUE) != null) {
            return 0;
        }
        int count = 1;
        for (IrNode c : n.children()) {
            count += distinctNodes(c, seen);
        }
        return count;
    }

    // ---- greatest and least: NULLs skipped ---------------------------------------------------

    @Test
    void greatestAndLeastSkipNullsAndOrderNaNAboveNumbers() {
        for (ElementType t : List.of(ElementType.INT32, ElementType.INT64, ElementType.FLOAT32, ElementType.FLOAT64)) {
            for (int arity : new int[] {1, 2, 3, 5, 8}) {
                List<ElementType> types = Collections.nCopies(arity, t);
                KernelProgram greatest = program(MathFunctions.GREATEST, types);
                KernelProgram least = program(MathFunctions.LEAST, types);
                List<Number> values = values(t);
                for (int k = 0; k < 4_000; k++) {
                    Number[] row = new Number[arity];
                    boolean[] valid = new boolean[arity];
                    for (int i = 0; i < arity; i++) {
                        row[i] = k < 200 ? values.get(random.nextInt(8)) : values.get(random.nextInt(values.size()));
                        valid[i] = random.nextInt(4) > 0;
                    }
                    for (boolean g : new boolean[] {true, false}) {
                        Outcome want = extremumOracle(row, valid, g);
                        Outcome got = reference(g ? greatest : least, row, valid);
                        if (!want.matches(got)) {
                            fail((g ? "greatest" : "least") + Arrays.toString(row) + " valid " + Arrays.toString(valid)
                                    + " = " + got + ", expected " + want + " (seed " + SEED + ")");
                        }
                    }
                }
            }
        }
        KernelProgram g = program(MathFunctions.GREATEST, List.of(ElementType.FLOAT64, ElementType.FLOAT64));
        KernelProgram l = program(MathFunctions.LEAST, List.of(ElementType.FLOAT64, ElementType.FLOAT64));
        boolean[] both = {true, true};
        assertTrue(Outcome.of(Double.NaN).matches(reference(g, new Number[] {1.0, Double.NaN}, both)));
        assertTrue(Outcome.of(1.0).matches(reference(l, new Number[] {1.0, Double.NaN}, both)));
        assertTrue(
                Outcome.of(-0.0).matches(reference(g, new Number[] {-0.0, 0.0}, both)),
                "a tie keeps the earlier argument");
        assertTrue(Outcome.of(0.0).matches(reference(g, new Number[] {0.0, -0.0}, both)));
        assertTrue(Outcome.of(2.0).matches(reference(l, new Number[] {7.0, 2.0}, new boolean[] {false, true})));
        assertTrue(Outcome.NULL.matches(reference(g, new Number[] {7.0, 2.0}, new boolean[] {false, false})));
    }

    /** The sequential SQL definition: the first valid argument, replaced by each later valid one that is strictly better. */
    static Outcome extremumOracle(Number[] row, boolean[] valid, boolean greatest) {
        Number pick = null;
        for (int i = 0; i < row.length; i++) {
            if (!valid[i]) {
                continue;
            }
            if (pick == null || (greatest ? sqlCompare(row[i], pick) > 0 : sqlCompare(row[i], pick) < 0)) {
                pick = row[i];
            }
        }
        return pick == null ? Outcome.NULL : Outcome.of(pick);
    }

    /** SQL order: NaN above every number and equal to NaN, -0.0 equal to 0.0. */
    static int sqlCompare(Number a, Number b) {
        if (a instanceof Integer || a instanceof Long) {
            return Long.compare(a.longValue(), b.longValue());
        }
        double x = a.doubleValue();
        double y = b.doubleValue();
        if (Double.isNaN(x) || Double.isNaN(y)) {
            return Boolean.compare(Double.isNaN(x), Double.isNaN(y));
        }
        return x < y ? -1 : x > y ? 1 : 0;
    }

    // ---- through the registered functions, with Arrow vectors ------------------------------

    private RootAllocator root;
    private BufferAllocator allocator;
    private ExecutionConfig config;
    private final FunctionRegistry registry = FunctionRegistry.withDefaults();

    @BeforeEach
    void open() {
        root = new RootAllocator();
        allocator = root.newChildAllocator("test", 0, Long.MAX_VALUE);
        config = new ExecutionConfig(allocator, Instant.EPOCH, true, Map.of());
    }

    @AfterEach
    void close() {
        assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked");
        allocator.close();
        root.close();
    }

    /** {@code name(columns...)} through the registered function's invoke: the values, nulls as null. */
    List<Object> invoke(String name, List<DataType> types, List<List<?>> columns) {
        ScalarFunction f = registry.lookup(name);
        assertEquals(types, SignatureResolver.resolve(f, types), name + " takes " + types + " as they are");
        int rows = columns.getFirst().size();
        List<FieldVector> vectors = new ArrayList<>();
        try {
            List<ColumnarValue> args = new ArrayList<>();
            for (int i = 0; i < types.size(); i++) {
                FieldVector v = Values.of(types.get(i), "a" + i, columns.get(i), allocator);
                vectors.add(v);
                args.add(ColumnarValue.Array.borrowed(v));
            }
            DataType out = f.returnType(types);
            ScalarFunctionArgs call = new ScalarFunctionArgs(
                    args, vectors.stream().map(FieldVector::getField).toList(), rows, out.toField(name, true), config);
            try (ColumnarValue result = f.invoke(call)) {
                FieldVector r =
                        assertInstanceOf(ColumnarValue.Array.class, result).vector();
                assertEquals(out, DataType.fromField(r.getField()), name + " result type");
                List<Object> values = new ArrayList<>();
                for (int i = 0; i < rows; i++) {
                    values.add(Values.get(r, i).value());
                }
                return values;
            }
        } finally {
            vectors.forEach(FieldVector::close);
        }
    }

    @Test
    void nullsGiveNullAndTheRegisteredFunctionsChooseByType() {
        assertEquals(
                Arrays.asList(1.0, null, Double.NaN),
                invoke("sqrt", List.of(DataType.FLOAT64), List.of(Arrays.asList(1.0, null, -4.0))));
        assertEquals(
                Arrays.asList(2.0f, null),
                invoke("sqrt", List.of(DataType.FLOAT32), List.of(Arrays.asList(4.0f, null))));
        assertEquals(
                Arrays.asList(3, null, Integer.MIN_VALUE),
                invoke("abs", List.of(DataType.INT32), List.of(Arrays.asList(-3, null, Integer.MIN_VALUE))));
        DataType dec = new DataType.Decimal(10, 2);
        assertEquals(
                Arrays.asList(new BigDecimal("1.25"), null),
                invoke("abs", List.of(dec), List.of(Arrays.asList(new BigDecimal("-1.25"), null))));
        assertEquals(
                Arrays.asList(new BigDecimal("2.60"), null),
                invoke(
                        "round",
                        List.of(dec, DataType.INT32),
                        List.of(Arrays.asList(new BigDecimal("2.55"), null), Arrays.asList(1, 1))));
        assertEquals(
                Arrays.asList(3.0, -3.0, null, 418.2),
                invoke(
                        "round",
                        List.of(DataType.FLOAT64, DataType.INT32),
                        List.of(Arrays.asList(2.5, -2.5, null, 418.15), Arrays.asList(0, 0, 0, 1))));
        assertEquals(
                Arrays.asList(3.0f, null),
                invoke("round", List.of(DataType.FLOAT32), List.of(Arrays.asList(2.5f, null))));
        assertEquals(
                Arrays.asList(1L, null, -1L),
                invoke(
                        "mod",
                        List.of(DataType.INT64, DataType.INT64),
                        List.of(Arrays.asList(7L, null, -7L), Arrays.asList(3L, 0L, 2L))));
        assertEquals(
                Arrays.asList(6, 0, null, 5),
                invoke(
                        "gcd",
                        List.of(DataType.INT32, DataType.INT32),
                        List.of(Arrays.asList(12, 0, null, -5), Arrays.asList(-18, 0, 4, 0))));
        assertEquals(
                Arrays.asList(3.0, null),
                invoke(
                        "log",
                        List.of(DataType.FLOAT64, DataType.FLOAT64),
                        List.of(Arrays.asList(10.0, 2.0), Arrays.asList(1000.0, null))));
        assertEquals(
                Arrays.asList(3.0, null),
                invoke("log", List.of(DataType.FLOAT64), List.of(Arrays.asList(1000.0, null))));
        assertEquals(
                Arrays.asList(8.0, null),
                invoke(
                        "power",
                        List.of(DataType.FLOAT64, DataType.FLOAT64),
                        List.of(Arrays.asList(2.0, 2.0), Arrays.asList(3.0, null))));
        // greatest and least skip NULLs: numbers through the RowFn, strings through Extremum.
        assertEquals(
                Arrays.asList(5L, 2L, null),
                invoke(
                        "greatest",
                        List.of(DataType.INT64, DataType.INT64),
                        List.of(Arrays.asList(5L, null, null), Arrays.asList(1L, 2L, null))));
        assertEquals(
                Arrays.asList(Double.NaN, 1.0, -0.0),
                invoke(
                        "greatest",
                        List.of(DataType.FLOAT64, DataType.FLOAT64),
                        List.of(Arrays.asList(1.0, 1.0, -0.0), Arrays.asList(Double.NaN, null, 0.0))));
        assertEquals(
                Arrays.asList(1.0, 1.0),
                invoke(
                        "least",
                        List.of(DataType.FLOAT64, DataType.FLOAT64),
                        List.of(Arrays.asList(1.0, Double.NaN), Arrays.asList(Double.NaN, 1.0))));
        assertEquals(
                Arrays.asList("a", "b"),
                invoke(
                                "least",
                                List.of(DataType.UTF8, DataType.UTF8),
                                List.of(Arrays.asList("a", null), Arrays.asList("b", "b")))
                        .stream()
                        .map(String::valueOf)
                        .toList());
        ScalarFunctionArgs none =
                new ScalarFunctionArgs(List.of(), List.of(), 3, DataType.FLOAT64.toField("pi", true), config);
        try (ColumnarValue pi = registry.lookup("pi").invoke(none)) {
            assertEquals(
                    Math.PI,
                    assertInstanceOf(ColumnarValue.Scalar.class, pi).value().value());
        }
    }

    @Test
    void aZeroDivisorOrAnUnrepresentableGcdFailsTheCall() {
        KernelArithmeticException e = assertThrows(
                KernelArithmeticException.class,
                () -> invoke(
                        "mod",
                        List.of(DataType.INT32, DataType.INT32),
                        List.of(Arrays.asList(1, 7), Arrays.asList(1, 0))));
        assertTrue(e.getMessage().contains("mod: division by zero"), e.getMessage());
        KernelArithmeticException g = assertThrows(
                KernelArithmeticException.class,
                () -> invoke(
                        "gcd",
                        List.of(DataType.INT64, DataType.INT64),
                        List.of(Arrays.asList(4L, Long.MIN_VALUE), Arrays.asList(6L, 0L))));
        assertTrue(g.getMessage().contains("gcd: integer overflow"), g.getMessage());
        // A NULL row is never checked.
        assertEquals(
                Arrays.asList(2L, null),
                invoke(
                        "gcd",
                        List.of(DataType.INT64, DataType.INT64),
                        List.of(Arrays.asList(4L, Long.MIN_VALUE), Arrays.asList(6L, null))));
        assertEquals(
                Arrays.asList(2L),
                invoke("gcd", List.of(DataType.INT64, DataType.INT64), List.of(List.of(Long.MIN_VALUE), List.of(6L))));
    }

    @Test
    void integersAreReadAsFloat64AndFloat32StaysFloat32() {
        for (String name : List.of("sqrt", "sin", "exp", "ln", "log", "round", "degrees", "cbrt")) {
            ScalarFunction f = registry.lookup(name);
            assertEquals(
                    List.of(DataType.FLOAT64), SignatureResolver.resolve(f, List.of(DataType.INT32)), name + "(Int32)");
            assertEquals(
                    List.of(DataType.FLOAT64), SignatureResolver.resolve(f, List.of(DataType.INT16)), name + "(Int16)");
            assertEquals(
                    List.of(DataType.FLOAT32),
                    SignatureResolver.resolve(f, List.of(DataType.FLOAT32)),
                    name + "(Float32)");
            assertEquals(DataType.FLOAT32, f.returnType(List.of(DataType.FLOAT32)), name);
        }
        ScalarFunction pow = registry.lookup("pow");
        assertEquals(
                List.of(DataType.FLOAT64, DataType.FLOAT64),
                SignatureResolver.resolve(pow, List.of(DataType.FLOAT32, DataType.INT32)));
        assertEquals(
                List.of(DataType.FLOAT32, DataType.FLOAT32),
                SignatureResolver.resolve(pow, List.of(DataType.FLOAT32, DataType.FLOAT32)));
        for (String name : List.of("abs", "sign", "floor", "ceil", "trunc")) {
            ScalarFunction f = registry.lookup(name);
            assertEquals(
                    DataType.INT32,
                    f.returnType(SignatureResolver.resolve(f, List.of(DataType.INT16))),
                    name + "(Int16)");
            assertEquals(DataType.INT64, f.returnType(List.of(DataType.INT64)), name);
            assertEquals(DataType.FLOAT32, f.returnType(List.of(DataType.FLOAT32)), name);
        }
        assertEquals(
                List.of(DataType.INT64, DataType.INT64),
                SignatureResolver.resolve(registry.lookup("gcd"), List.of(DataType.INT64, DataType.INT32)));
        // abs and round of a decimal, greatest of strings: not a RowFn.
        assertTrue(RowFnSource.of(registry.lookup("abs"), List.of(new DataType.Decimal(10, 2)))
                .isEmpty());
        assertTrue(RowFnSource.of(registry.lookup("greatest"), List.of(DataType.UTF8, DataType.UTF8))
                .isEmpty());
        assertTrue(
                RowFnSource.of(registry.lookup("greatest"), List.of(DataType.INT16, DataType.INT16))
                        .isEmpty(),
                "Int16 keeps its type");
        assertEquals(
                MathFunctions.GREATEST,
                RowFnSource.of(registry.lookup("greatest"), List.of(DataType.FLOAT64, DataType.FLOAT64))
                        .orElseThrow());
        assertEquals(
                MathFunctions.ROUND_2,
                RowFnSource.of(registry.lookup("round"), List.of(DataType.FLOAT32, DataType.INT32))
                        .orElseThrow());
        assertTrue(registry.lookup("round").requiresLiteral(1));
    }

    @Test
    void everyFunctionHasADescription() {
        for (ScalarFunction f : MathFunctions.all()) {
            assertTrue(!f.description().isBlank() && !f.description().contains("\n"), f.name());
            if (f instanceof RowFnDispatch d) {
                d.rowFns().forEach(r -> assertTrue(!r.description().isBlank(), r.name()));
            }
        }
    }
}
