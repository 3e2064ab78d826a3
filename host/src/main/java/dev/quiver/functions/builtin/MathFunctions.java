package dev.quiver.functions.builtin;

import dev.quiver.functions.Coercion;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.Signature;
import dev.quiver.functions.TypeSignature;
import dev.quiver.functions.TypeSignatureClass;
import dev.quiver.functions.Volatility;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.RowType;
import dev.quiver.rowfn.Val;
import dev.quiver.types.DataType;
import dev.quiver.types.ElementType;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The math library, declared as RowFns: each body runs once per type at declaration and is
 * captured as kernel IR, so every function fuses with its neighbours on the CPU and on OpenCL,
 * and the reference ({@link dev.quiver.rowfn.ir.RowInterpreter}, StrictMath) defines its value.
 * Bodies are branch-free ({@link Val#select} computes both sides).
 *
 * <p>Semantics, types and accuracy per function: {@code docs/math.md}. In short: floating-point
 * functions take Float32 or Float64 and keep it (anything else is read as Float64), follow IEEE
 * and Java (NaN in, NaN out; a domain error such as {@code sqrt(-1)} is NaN, {@code ln(0)} is
 * -Infinity, never an error); a NULL argument gives NULL, except for {@code greatest} and
 * {@code least}, which skip NULLs (SQL). Functions that also take other types (decimals,
 * strings, dates) are {@link RowFnDispatch}es: the RowFn for numbers, the older implementation
 * for the rest.
 */
public final class MathFunctions {
    private MathFunctions() {}

    /** Every function of the library, as registered by {@link BuiltinFunctions#all()}. */
    public static List<ScalarFunction> all() {
        List<ScalarFunction> out = new ArrayList<>();
        out.add(abs());
        out.add(MIN);
        out.add(MAX);
        out.add(FMA);
        out.add(SIGN);
        out.add(SQRT);
        out.add(CBRT);
        out.add(EXP);
        out.add(LN);
        out.add(LOG2);
        out.add(LOG10);
        out.add(log());
        out.add(POW);
        out.add(SIN);
        out.add(COS);
        out.add(TAN);
        out.add(ASIN);
        out.add(ACOS);
        out.add(ATAN);
        out.add(ATAN2);
        out.add(SINH);
        out.add(COSH);
        out.add(TANH);
        out.add(FLOOR);
        out.add(CEIL);
        out.add(trunc());
        out.add(round());
        out.add(DEGREES);
        out.add(RADIANS);
        out.add(PI);
        out.add(HYPOT);
        out.add(greatest());
        out.add(least());
        out.add(MOD);
        out.add(GCD);
        return out;
    }

    // ---- exact functions over any number type -------------------------------------------

    /** {@code abs(x)} of Int32, Int64, Float32, Float64; integers wrap (abs of MIN_VALUE is MIN_VALUE). */
    public static final RowFn ABS = RowFn.declare("abs")
            .arg("x", RowType.NUMERIC)
            .returns(RowType.SAME_AS_ARGS)
            .description("Absolute value; integers wrap (abs of the minimum is the minimum); decimals stay decimals.")
            .body(Val::abs);

    /** -1, 0 or 1 in the argument's type; for floats as Math.signum: NaN stays NaN and ±0.0 stays ±0.0. */
    public static final RowFn SIGN = RowFn.declare("sign")
            .arg("x", RowType.NUMERIC)
            .returns(RowType.SAME_AS_ARGS)
            .description("-1, 0 or 1 in x's type (Math.signum: NaN gives NaN, -0.0 gives -0.0).")
            .body(x -> Val.select(x.gt(0), one(x), Val.select(x.lt(0), Val.of(x.type(), -1), x)));

    public static final RowFn FLOOR = integral(
            "floor", Val::floor, "Largest integral value not above x; integers unchanged, Float32 stays Float32.");
    public static final RowFn CEIL = integral(
            "ceil", Val::ceil, "Smallest integral value not below x; integers unchanged, Float32 stays Float32.");
    public static final RowFn TRUNC = integral(
            "trunc",
            Val::trunc,
            "x rounded toward zero (sign of zero kept); integers unchanged, Float32 stays Float32.");

    /** floor, ceil, trunc: the identity on integers, the rounding on floats (exact). */
    private static RowFn integral(String name, UnaryOperator<Val> op, String description) {
        return RowFn.declare(name)
                .arg("x", RowType.NUMERIC)
                .returns(RowType.SAME_AS_ARGS)
                .description(description)
                .body(x -> x.type().isInteger() ? x : op.apply(x));
    }

    // ---- floating-point functions (Float32 stays Float32, anything else is read as Float64) --

    public static final RowFn SQRT =
            floating("sqrt", Val::sqrt, "Square root, correctly rounded; NaN for negative numbers.");
    public static final RowFn CBRT = floating("cbrt", Val::cbrt, "Cube root (negative for negative x).");
    public static final RowFn EXP = floating("exp", Val::exp, "e raised to x.");
    public static final RowFn LN =
            floating("ln", Val::ln, "Natural logarithm; NaN for negative numbers, -Infinity for 0.");
    public static final RowFn LOG2 = floating(
            "log2", Val::log2, "Base-2 logarithm, exact for powers of two; NaN for negative numbers, -Infinity for 0.");
    public static final RowFn LOG10 =
            floating("log10", Val::log10, "Base-10 logarithm; NaN for negative numbers, -Infinity for 0.");
    public static final RowFn SIN = floating("sin", Val::sin, "Sine of x radians; NaN for ±Infinity.");
    public static final RowFn COS = floating("cos", Val::cos, "Cosine of x radians; NaN for ±Infinity.");
    public static final RowFn TAN = floating("tan", Val::tan, "Tangent of x radians; NaN for ±Infinity.");
    public static final RowFn ASIN = floating("asin", Val::asin, "Arc sine in [-pi/2, pi/2]; NaN outside [-1, 1].");
    public static final RowFn ACOS = floating("acos", Val::acos, "Arc cosine in [0, pi]; NaN outside [-1, 1].");
    public static final RowFn ATAN = floating("atan", Val::atan, "Arc tangent in [-pi/2, pi/2].");
    public static final RowFn SINH = floating("sinh", Val::sinh, "Hyperbolic sine.");
    public static final RowFn COSH = floating("cosh", Val::cosh, "Hyperbolic cosine.");
    public static final RowFn TANH = floating("tanh", Val::tanh, "Hyperbolic tangent.");

    /** 180/pi and pi/180 as Math.toDegrees and Math.toRadians (and DuckDB, PostgreSQL) use them. */
    static final double RADIANS_TO_DEGREES = 180.0 / Math.PI;

    static final double DEGREES_TO_RADIANS = Math.PI / 180.0;

    public static final RowFn DEGREES = floating(
            "degrees",
            x -> timesInDouble(x, RADIANS_TO_DEGREES),
            "x radians in degrees: x * (180 / pi), one rounding (Float32 computed in Float64, then rounded).");
    public static final RowFn RADIANS = floating(
            "radians",
            x -> timesInDouble(x, DEGREES_TO_RADIANS),
            "x degrees in radians: x * (pi / 180), one rounding (Float32 computed in Float64, then rounded).");

    /** {@code x * k} computed in Float64 and rounded back to x's type. */
    private static Val timesInDouble(Val x, double k) {
        return x.asFloat64().mul(k).as(x.type());
    }

    private static RowFn floating(String name, UnaryOperator<Val> op, String description) {
        return RowFn.declare(name)
                .arg("x", RowType.FLOATING)
                .returns(RowType.SAME_AS_ARGS)
                .description(description)
                .body(op::apply);
    }

    /** {@code pow(x, y)} (alias power) as StrictMath.pow: pow(x, 0) = 1 even for NaN, pow(-8, 1/3) = NaN. */
    public static final RowFn POW = RowFn.declare("pow")
            .aliases("power")
            .arg("x", RowType.FLOATING)
            .arg("y", RowType.FLOATING)
            .returns(RowType.SAME_AS_ARGS)
            .description("x raised to the power y (alias power), as StrictMath.pow (pow(x, 0) = 1, NaN for a negative x"
                    + " and a non-integer y).")
            .body(Val::pow);

    /** {@code atan2(y, x)}: the angle of the point (x, y), in [-pi, pi]. */
    public static final RowFn ATAN2 = RowFn.declare("atan2")
            .arg("y", RowType.FLOATING)
            .arg("x", RowType.FLOATING)
            .returns(RowType.SAME_AS_ARGS)
            .description("The angle of the point (x, y) in radians, in [-pi, pi] (argument order y, x).")
            .body(Val::atan2);

    public static final RowFn HYPOT = RowFn.declare("hypot")
            .arg("x", RowType.FLOATING)
            .arg("y", RowType.FLOATING)
            .returns(RowType.SAME_AS_ARGS)
            .description(
                    "sqrt(x*x + y*y) without intermediate overflow; Infinity if either is infinite, even with NaN.")
            .body(Val::hypot);

    public static final RowFn PI = RowFn.declare("pi")
            .returns(RowType.FLOAT64)
            .description("The Float64 closest to pi (folded at planning).")
            .body(() -> Val.of(Math.PI));

    // ---- logarithms ---------------------------------------------------------------------

    /** {@code log(x)}: the base-10 logarithm, as DuckDB and PostgreSQL. */
    static final RowFn LOG_1 = RowFn.declare("log")
            .arg("x", RowType.FLOATING)
            .returns(RowType.SAME_AS_ARGS)
            .description("log(x): base-10 logarithm (as DuckDB and PostgreSQL).")
            .body(Val::log10);

    /** {@code log(b, x)}: log10(x) / log10(b), as DuckDB computes it (so log(10, 1000) is exactly 3). */
    static final RowFn LOG_2 = RowFn.declare("log")
            .arg("b", RowType.FLOATING)
            .arg("x", RowType.FLOATING)
            .returns(RowType.SAME_AS_ARGS)
            .description("log(b, x): logarithm of x to base b, log10(x) / log10(b).")
            .body((b, x) -> x.log10().div(b.log10()));

    static ScalarFunction log() {
        return new RowFnDispatch(
                "log",
                List.of(),
                Signature.oneOf(
                        List.of(
                                new TypeSignature.Exact(List.of(DataType.FLOAT64)),
                                new TypeSignature.Exact(List.of(DataType.FLOAT32)),
                                new TypeSignature.Exact(List.of(DataType.FLOAT64, DataType.FLOAT64)),
                                new TypeSignature.Exact(List.of(DataType.FLOAT32, DataType.FLOAT32))),
                        Volatility.IMMUTABLE),
                "log(x): base-10 logarithm; log(b, x): logarithm of x to base b (log10(x) / log10(b)).",
                List.of(LOG_1, LOG_2),
                null);
    }

    // ---- abs: numbers here, decimals in DecimalAbs ------------------------------------

    static ScalarFunction abs() {
        return new RowFnDispatch(
                "abs",
                List.of(),
                Signature.oneOf(
                                List.of(
                                        new TypeSignature.Exact(List.of(DataType.INT32)),
                                        new TypeSignature.Exact(List.of(DataType.INT64)),
                                        new TypeSignature.Exact(List.of(DataType.FLOAT32)),
                                        new TypeSignature.Exact(List.of(DataType.FLOAT64)),
                                        new TypeSignature.Coercible(
                                                List.of(Coercion.exact(TypeSignatureClass.Family.DECIMAL)))),
                                Volatility.IMMUTABLE)
                        .withParameterNames("x"),
                ABS.description(),
                List.of(ABS),
                new DecimalAbs());
    }

    // ---- round --------------------------------------------------------------------------

    /** {@code round(x)}: half away from zero, exact. */
    static final RowFn ROUND_1 = RowFn.declare("round")
            .arg("x", RowType.FLOATING)
            .returns(RowType.SAME_AS_ARGS)
            .description("x rounded to an integral value, half away from zero.")
            .body(MathFunctions::roundHalfAway);

    /**
     * {@code round(x, digits)}: x * 10^digits rounded half away from zero, divided back (for a
     * negative {@code digits}: x / 10^-digits, rounded, multiplied back), in Float64 (a Float32
     * is widened and the result rounded back), as DuckDB and PostgreSQL compute it. Where the
     * scaled value is not below 2^52 (no fraction left to round), infinite or NaN, x is
     * returned unchanged; a result that rounds to zero keeps x's sign.
     */
    static final RowFn ROUND_2 = RowFn.declare("round")
            .arg("x", RowType.FLOATING)
            .constantArg("digits", RowType.INT32)
            .returns(RowType.SAME_AS_ARGS)
            .description("x rounded half away from zero to a literal number of decimal places.")
            .body((x, digits) -> roundToDigits(x.asFloat64(), digits).as(x.type()));

    /**
     * Rounds to an integral value, half away from zero, exactly and without a branch: the
     * integral part {@code t} and the fraction {@code x - t} are exact, and t ± 1 is exact
     * wherever a fraction is left (|x| below 2^52, 2^23 for Float32). Infinity and NaN give
     * themselves (their fraction is NaN), and the sign of zero is kept (-0.3 gives -0.0).
     */
    static Val roundHalfAway(Val x) {
        Val t = x.trunc();
        Val fraction = x.sub(t);
        return Val.select(fraction.ge(0.5), t.add(1), Val.select(fraction.le(-0.5), t.sub(1), t));
    }

    private static Val roundToDigits(Val x, Val digits) {
        // 10^|digits|, correctly rounded up to 10^44 (10^22 is the largest exact power of ten).
        // The digits are a literal at every call site, so all of this folds into two constants.
        Val magnitude = digits.asFloat64().abs();
        Val ten = Val.of(10.0);
        Val scale = ten.pow(magnitude.min(22.0)).mul(ten.pow(magnitude.sub(22.0).max(0.0)));
        Val up = digits.ge(0);
        Val multiplier = Val.select(up, scale, Val.of(1.0));
        Val divisor = Val.select(up, Val.of(1.0), scale);
        Val scaled = x.mul(multiplier).div(divisor);
        Val rounded = roundHalfAway(scaled);
        Val back = rounded.mul(divisor).div(multiplier);
        Val nothingToRound = scaled.abs().lt(0x1p52).not(); // also NaN and ±Infinity
        return Val.select(nothingToRound, x, Val.select(rounded.eq(0.0), rounded, back));
    }

    static ScalarFunction round() {
        return new RowFnDispatch(
                "round",
                List.of(),
                Signature.oneOf(
                                List.of(
                                        new TypeSignature.Exact(List.of(DataType.FLOAT64)),
                                        new TypeSignature.Exact(List.of(DataType.FLOAT32)),
                                        new TypeSignature.Exact(List.of(DataType.FLOAT64, DataType.INT32)),
                                        new TypeSignature.Exact(List.of(DataType.FLOAT32, DataType.INT32)),
                                        new TypeSignature.Coercible(
                                                List.of(Coercion.exact(TypeSignatureClass.Family.DECIMAL))),
                                        new TypeSignature.Coercible(List.of(
                                                Coercion.exact(TypeSignatureClass.Family.DECIMAL),
                                                Coercion.implicit(
                                                        TypeSignatureClass.of(DataType.INT32),
                                                        List.of(TypeSignatureClass.Family.INTEGER),
                                                        DataType.INT32)))),
                                Volatility.IMMUTABLE)
                        .withParameterNames("x", "digits"),
                "x rounded half away from zero to a literal number of decimal places (0 when omitted); decimals stay decimals.",
                List.of(ROUND_1, ROUND_2),
                DecimalRound.round());
    }

    /** {@code trunc(x)} of numbers (the RowFn {@link #TRUNC}); {@code trunc(dec [, digits])} of decimals, exactly. */
    static ScalarFunction trunc() {
        return new RowFnDispatch(
                "trunc",
                List.of(),
                Signature.oneOf(
                                List.of(
                                        new TypeSignature.Exact(List.of(DataType.INT32)),
                                        new TypeSignature.Exact(List.of(DataType.INT64)),
                                        new TypeSignature.Exact(List.of(DataType.FLOAT32)),
                                        new TypeSignature.Exact(List.of(DataType.FLOAT64)),
                                        new TypeSignature.Coercible(
                                                List.of(Coercion.exact(TypeSignatureClass.Family.DECIMAL))),
                                        new TypeSignature.Coercible(List.of(
                                                Coercion.exact(TypeSignatureClass.Family.DECIMAL),
                                                Coercion.implicit(
                                                        TypeSignatureClass.of(DataType.INT32),
                                                        List.of(TypeSignatureClass.Family.INTEGER),
                                                        DataType.INT32)))),
                                Volatility.IMMUTABLE)
                        .withParameterNames("x", "digits"),
                "x rounded toward zero (sign of zero kept); integers unchanged, Float32 stays Float32; a decimal to a literal"
                        + " number of decimal places (0 when omitted), staying a decimal.",
                List.of(TRUNC),
                DecimalRound.trunc());
    }

    // ---- greatest, least ----------------------------------------------------------------

    /** {@code greatest(a, ...)} of numbers: NULLs skipped, NaN above every number, the earlier argument on a tie. */
    public static final RowFn GREATEST = extremum("greatest", true);
    /** {@code least(a, ...)} of numbers: NULLs skipped, NaN above every number, the earlier argument on a tie. */
    public static final RowFn LEAST = extremum("least", false);

    /**
     * A knock-out tournament over the arguments (a balanced tree of pairwise picks, so the IR
     * grows as n log n, not 2^n): in each pair the later argument replaces the earlier one only
     * when it is valid and the earlier one is null or strictly worse, so the winner is the
     * first best valid argument, as the sequential SQL definition gives.
     */
    private static RowFn extremum(String name, boolean greatest) {
        return RowFn.declare(name)
                .variadic("x", RowType.NUMERIC, 1)
                .returns(RowType.SAME_AS_ARGS)
                .description((greatest ? "The largest" : "The smallest")
                        + " of its arguments, NULLs skipped (SQL); NaN is above" + " every number.")
                .rowBody(row -> {
                    List<Val[]> picks = new ArrayList<>(); // {value, valid}
                    for (int i = 0; i < row.size(); i++) {
                        picks.add(new Val[] {row.arg(i), row.isValid(i)});
                    }
                    while (picks.size() > 1) {
                        List<Val[]> next = new ArrayList<>();
                        for (int i = 0; i + 1 < picks.size(); i += 2) {
                            next.add(pick(picks.get(i), picks.get(i + 1), greatest));
                        }
                        if (picks.size() % 2 == 1) {
                            next.add(picks.getLast());
                        }
                        picks = next;
                    }
                    Val[] winner = picks.getFirst();
                    return winner[0].nullIf(winner[1].not());
                });
    }

    /** The pick of an earlier and a later {value, valid} pair. */
    private static Val[] pick(Val[] earlier, Val[] later, boolean greatest) {
        Val a = earlier[0];
        Val b = later[0];
        Val better = greatest ? b.gt(a) : b.lt(a);
        if (a.type().isFloatingPoint()) {
            // SQL orders NaN above every number: a NaN beats a number for greatest, a number beats a NaN for least.
            better = greatest
                    ? better.or(b.isNaN().and(a.isNaN().not()))
                    : better.or(a.isNaN().and(b.isNaN().not()));
        }
        Val replace = later[1].and(earlier[1].not().or(better));
        return new Val[] {Val.select(replace, b, a), earlier[1].or(later[1])};
    }

    static ScalarFunction greatest() {
        return extremumDispatch(GREATEST, new Extremum.Greatest());
    }

    static ScalarFunction least() {
        return extremumDispatch(LEAST, new Extremum.Least());
    }

    /** The RowFn when the arguments compare as Int32, Int64, Float32 or Float64; Extremum for every other type. */
    private static ScalarFunction extremumDispatch(RowFn rowFn, Extremum other) {
        String which = rowFn == GREATEST ? "The largest" : "The smallest";
        return new RowFnDispatch(
                rowFn.name(),
                List.of(),
                other.signature(),
                which + " of its arguments of any comparable"
                        + " types, NULLs skipped (SQL); NaN is above every number.",
                List.of(rowFn),
                other);
    }

    // ---- two numbers ---------------------------------------------------------------------

    /** {@code min(a, b)}: as {@link Math#min} (NaN wins, -0.0 below +0.0); for SQL's null-skipping form, {@code least}. */
    public static final RowFn MIN = RowFn.declare("min")
            .arg("a", RowType.NUMERIC)
            .arg("b", RowType.NUMERIC)
            .returns(RowType.SAME_AS_ARGS)
            .description("The smaller of two numbers, as Math.min (NaN wins, -0.0 < +0.0); fused into kernels.")
            .body(Val::min);

    /** {@code max(a, b)}: as {@link Math#max} (NaN wins, +0.0 above -0.0); for SQL's null-skipping form, {@code greatest}. */
    public static final RowFn MAX = RowFn.declare("max")
            .arg("a", RowType.NUMERIC)
            .arg("b", RowType.NUMERIC)
            .returns(RowType.SAME_AS_ARGS)
            .description("The larger of two numbers, as Math.max (NaN wins, +0.0 > -0.0); fused into kernels.")
            .body(Val::max);

    /** {@code fma(a, b, c)}: {@code a * b + c} with one rounding, as {@link Math#fma}. */
    public static final RowFn FMA = RowFn.declare("fma")
            .arg("a", RowType.FLOATING)
            .arg("b", RowType.FLOATING)
            .arg("c", RowType.FLOATING)
            .returns(RowType.SAME_AS_ARGS)
            .description("a * b + c with a single rounding (Math.fma).")
            .body(Val::fma);

    // ---- integers -----------------------------------------------------------------------

    /** {@code mod(a, b)}: Java's {@code %} (the sign of a); a zero divisor fails the row, as {@code %} does. */
    public static final RowFn MOD = RowFn.declare("mod")
            .arg("a", RowType.INTEGER)
            .arg("b", RowType.INTEGER)
            .returns(RowType.SAME_AS_ARGS)
            .fallible()
            .description("Remainder of a / b with the sign of a (as %); a zero divisor is an error (division by zero).")
            .body((a, b) -> {
                Val zero = b.eq(0);
                return a.rem(Val.select(zero, one(b), b)).failIf(zero, "division by zero", a);
            });

    /**
     * {@code gcd(a, b)}: the greatest common divisor, non-negative; gcd(0, 0) = 0, gcd(a, 0) =
     * |a|. The one result that does not fit, 2^63 (2^31 for Int32: gcd(MIN_VALUE, 0),
     * gcd(MIN_VALUE, MIN_VALUE)), fails the row with an integer overflow.
     */
    public static final RowFn GCD = RowFn.declare("gcd")
            .arg("a", RowType.INTEGER)
            .arg("b", RowType.INTEGER)
            .returns(RowType.SAME_AS_ARGS)
            .fallible()
            .description(
                    "Greatest common divisor, non-negative (gcd(0, 0) = 0); an error where it is 2^63 (2^31 for Int32).")
            .body(MathFunctions::gcd);

    /**
     * Binary GCD (Stein), unrolled: no loop, no division. Both magnitudes lose their common
     * factor 2^k and then all their factors of two (odd from there on); each step replaces
     * (u, v) by (min(u, v), |u - v| without its factors of two). Odd values of n bits meet in
     * at most n steps (every pair checked up to 15 bits; a search at 63 bits finds no more), so
     * below 2^63 in 63 steps (Int32: 31), and one more is unrolled; the steps after the meeting
     * keep (0, g) or (g, 0). The trailing zeros of a power of two come from
     * its exponent: rint(log2(p)) is exact at any log2 accuracy better than half a unit. The
     * IR is a DAG of about 10 nodes a step (64 steps for Int64, 32 for Int32).
     */
    static Val gcd(Val a, Val b) {
        ElementType t = a.type();
        int steps = t == ElementType.INT64 ? 64 : 32;
        // |MIN_VALUE| is MIN_VALUE: read without sign it is 2^63 (2^31), which the unsigned shifts handle.
        Val u = a.abs();
        Val v = b.abs();
        Val common = trailingZeros(u.or(v), true);
        u = u.ushr(trailingZeros(u, true));
        v = v.ushr(trailingZeros(v, true));
        for (int i = 0; i < steps; i++) {
            Val smaller = u.min(v);
            Val difference = u.sub(v).abs();
            u = smaller;
            v = difference.ushr(trailingZeros(difference, false));
        }
        Val g = u.or(v).shl(common); // one of them is 0
        return g.failIf(g.lt(0), "integer overflow (the greatest common divisor is 2^" + (steps - 1) + ")", a);
    }

    /**
     * The number of trailing zero bits of {@code x} (any value for 0: shifting 0 gives 0), as
     * x's type. {@code mayBeMin}: x can be MIN_VALUE, whose lowest bit is the sign bit.
     */
    private static Val trailingZeros(Val x, boolean mayBeMin) {
        Val lowest = x.and(x.neg()).asFloat64();
        if (mayBeMin) {
            lowest = lowest.abs();
        }
        return lowest.log2().rint().as(x.type());
    }

    private static Val one(Val like) {
        return Val.of(like.type(), 1);
    }
}
