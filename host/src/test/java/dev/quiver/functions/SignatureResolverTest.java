package dev.quiver.functions;

import static dev.quiver.types.DataType.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.arrow.vector.types.IntervalUnit;
import org.junit.jupiter.api.Test;

class SignatureResolverTest {

    /** A function that only has a name and a signature (and, for user-defined signatures, a coercion). */
    record TestFunction(String name, Signature signature, UnaryOperator<List<DataType>> coercion)
            implements ScalarFunction {
        TestFunction(String name, TypeSignature typeSignature) {
            this(name, new Signature(typeSignature, Volatility.IMMUTABLE), null);
        }

        @Override
        public DataType returnType(List<DataType> argTypes) {
            throw new UnsupportedOperationException();
        }

        @Override
        public ColumnarValue invoke(ScalarFunctionArgs args) {
            throw new UnsupportedOperationException();
        }

        @Override
        public List<DataType> coerceTypes(List<DataType> argTypes) {
            return coercion == null ? ScalarFunction.super.coerceTypes(argTypes) : coercion.apply(argTypes);
        }
    }

    static final Decimal D10_2 = new Decimal(10, 2);
    static final Dictionary DICT_UTF8 = new Dictionary(INT32, UTF8);

    static void assertResolves(ScalarFunction fn, List<DataType> args, List<DataType> expected) {
        assertEquals(expected, SignatureResolver.resolve(fn, args), fn.name() + args);
    }

    /** Accepted as given: no cast. */
    static void assertExact(ScalarFunction fn, List<DataType> args) {
        assertResolves(fn, args, args);
    }

    static void assertRejected(ScalarFunction fn, List<DataType> args, String message) {
        PlanningException e =
                assertThrows(PlanningException.class, () -> SignatureResolver.resolve(fn, args), fn.name() + args);
        assertEquals(message, e.getMessage());
    }

    // ------------------------------------------------------------------ Exact

    @Test
    void exact() {
        TestFunction sqrt = new TestFunction("sqrt", new TypeSignature.Exact(List.of(FLOAT64)));
        assertExact(sqrt, List.of(FLOAT64));
        assertExact(sqrt, List.of(new Dictionary(INT8, FLOAT64)));
        assertResolves(sqrt, List.of(INT32), List.of(FLOAT64));
        assertResolves(sqrt, List.of(D10_2), List.of(FLOAT64));
        assertResolves(sqrt, List.of(NULL), List.of(FLOAT64));
        assertRejected(sqrt, List.of(UTF8), "no signature of sqrt accepts (Utf8); signatures: sqrt(Float64)");
        assertRejected(sqrt, List.of(BOOLEAN), "no signature of sqrt accepts (Boolean); signatures: sqrt(Float64)");
        assertRejected(sqrt, List.of(), "sqrt takes 1 argument, got 0: sqrt(); signatures: sqrt(Float64)");

        TestFunction left = new TestFunction("left", new TypeSignature.Exact(List.of(UTF8, INT64)));
        // the dictionary needs no cast and stays a dictionary; only the Int32 is cast
        assertResolves(left, List.of(DICT_UTF8, INT32), List.of(DICT_UTF8, INT64));
        assertRejected(
                left,
                List.of(INT64, INT64),
                "no signature of left accepts (Int64, Int64); signatures: left(Utf8, Int64)");
    }

    // ------------------------------------------------------------------ Uniform and Variadic

    @Test
    void uniformTriesItsTypesInOrder() {
        TestFunction f = new TestFunction("f", new TypeSignature.Uniform(2, List.of(INT64, FLOAT64)));
        assertExact(f, List.of(INT64, INT64));
        assertExact(f, List.of(FLOAT64, FLOAT64));
        assertResolves(f, List.of(INT32, INT8), List.of(INT64, INT64));
        // Float32 cannot become Int64, so the Float64 form is the first that takes both
        assertResolves(f, List.of(INT32, FLOAT32), List.of(FLOAT64, FLOAT64));
        // Float64 cannot become Int64; the Null goes along with the Float64 form
        assertResolves(f, List.of(NULL, FLOAT64), List.of(FLOAT64, FLOAT64));
        assertRejected(
                f,
                List.of(BOOLEAN, INT64),
                "no signature of f accepts (Boolean, Int64); signatures: f(Int64, Int64), f(Float64, Float64)");
        assertRejected(
                f,
                List.of(INT64),
                "f takes 2 arguments, got 1: f(Int64); signatures: f(Int64, Int64), f(Float64, Float64)");
    }

    @Test
    void variadic() {
        TestFunction concat = new TestFunction("concat", new TypeSignature.Variadic(List.of(UTF8, LARGE_UTF8)));
        assertExact(concat, List.of(UTF8));
        assertExact(concat, List.of(UTF8, DICT_UTF8, UTF8));
        assertResolves(concat, List.of(UTF8, LARGE_UTF8), List.of(LARGE_UTF8, LARGE_UTF8));
        assertResolves(concat, List.of(NULL, UTF8), List.of(UTF8, UTF8));
        assertRejected(
                concat,
                List.of(UTF8, INT32),
                "no signature of concat accepts (Utf8, Int32); signatures: concat(Utf8, ...), concat(LargeUtf8, ...)");
        assertRejected(
                concat,
                List.of(),
                "concat takes at least 1 argument, got 0: concat(); signatures: concat(Utf8, ...), concat(LargeUtf8, ...)");
    }

    // ------------------------------------------------------------------ Any and VariadicAny

    @Test
    void anyKeepsTypesAndChecksArity() {
        TestFunction f = new TestFunction("f", new TypeSignature.Any(2));
        assertExact(f, List.of(BOOLEAN, DATE32));
        assertExact(f, List.of(NULL, DICT_UTF8));
        assertRejected(f, List.of(INT32), "f takes 2 arguments, got 1: f(Int32); signatures: f(Any, Any)");

        TestFunction coalesce = new TestFunction("coalesce", new TypeSignature.VariadicAny());
        assertExact(coalesce, List.of(INT32, UTF8, NULL));
        assertRejected(
                coalesce,
                List.of(),
                "coalesce takes at least 1 argument, got 0: coalesce(); signatures: coalesce(Any, ...)");
    }

    // ------------------------------------------------------------------ Numeric, StringArgs, Comparable

    @Test
    void numericCastsToTheCommonNumericType() {
        TestFunction hypot = new TestFunction("hypot", new TypeSignature.Numeric(2));
        assertExact(hypot, List.of(FLOAT64, FLOAT64));
        assertExact(hypot, List.of(new Dictionary(INT8, INT32), INT32));
        assertResolves(hypot, List.of(INT32, FLOAT64), List.of(FLOAT64, FLOAT64));
        assertResolves(hypot, List.of(INT32, NULL), List.of(INT32, INT32));
        assertResolves(hypot, List.of(NULL, NULL), List.of(INT64, INT64));
        assertResolves(hypot, List.of(INT64, UINT64), List.of(new Decimal(20, 0), new Decimal(20, 0)));
        assertResolves(hypot, List.of(D10_2, INT32), List.of(new Decimal(12, 2), new Decimal(12, 2)));
        assertRejected(
                hypot,
                List.of(UTF8, INT32),
                "no signature of hypot accepts (Utf8, Int32); signatures: hypot(Numeric, Numeric)");
        assertRejected(
                hypot,
                List.of(INT32, INT32, INT32),
                "hypot takes 2 arguments, got 3: hypot(Int32, Int32, Int32); signatures: hypot(Numeric, Numeric)");
    }

    @Test
    void stringArgsCastToTheCommonStringType() {
        TestFunction f = new TestFunction("starts_with", new TypeSignature.StringArgs(2));
        assertExact(f, List.of(UTF8, UTF8));
        assertExact(f, List.of(DICT_UTF8, UTF8));
        assertResolves(f, List.of(UTF8, LARGE_UTF8), List.of(LARGE_UTF8, LARGE_UTF8));
        assertResolves(f, List.of(NULL, UTF8), List.of(UTF8, UTF8));
        assertResolves(f, List.of(NULL, NULL), List.of(UTF8, UTF8));
        assertRejected(
                f,
                List.of(UTF8, INT32),
                "no signature of starts_with accepts (Utf8, Int32); signatures: starts_with(String, String)");
    }

    @Test
    void comparableCastsToTheComparisonType() {
        TestFunction nullif = new TestFunction("nullif", new TypeSignature.Comparable(2));
        assertExact(nullif, List.of(BOOLEAN, BOOLEAN));
        assertResolves(nullif, List.of(INT32, UTF8), List.of(INT32, INT32));
        assertResolves(nullif, List.of(INT32, INT64), List.of(INT64, INT64));
        assertResolves(nullif, List.of(DATE32, UTF8), List.of(DATE32, DATE32));
        Timestamp tokyo = new Timestamp(TimeUnit.MICROSECOND, "Asia/Tokyo");
        Timestamp paris = new Timestamp(TimeUnit.MICROSECOND, "Europe/Paris");
        Timestamp utc = new Timestamp(TimeUnit.MICROSECOND, "UTC");
        assertResolves(nullif, List.of(tokyo, paris), List.of(utc, utc));
        assertRejected(
                nullif,
                List.of(BOOLEAN, INT32),
                "no signature of nullif accepts (Boolean, Int32); signatures: nullif(Comparable, Comparable)");
    }

    // ------------------------------------------------------------------ Coercible

    @Test
    void coercibleCoercesArgumentByArgument() {
        TestFunction round = new TestFunction(
                "round",
                new TypeSignature.Coercible(List.of(
                        Coercion.implicit(
                                TypeSignatureClass.Family.FLOAT, List.of(TypeSignatureClass.Family.NUMERIC), FLOAT64),
                        Coercion.exact(TypeSignatureClass.of(INT64)))));
        assertExact(round, List.of(FLOAT32, INT64));
        assertExact(round, List.of(FLOAT64, new Dictionary(INT8, INT64)));
        assertResolves(round, List.of(INT32, INT64), List.of(FLOAT64, INT64));
        assertResolves(round, List.of(D10_2, INT64), List.of(FLOAT64, INT64));
        assertResolves(round, List.of(NULL, NULL), List.of(FLOAT64, INT64));
        assertRejected(
                round,
                List.of(FLOAT64, INT32),
                "no signature of round accepts (Float64, Int32); signatures: round(Float (or Numeric as Float64), Int64)");
        assertRejected(
                round,
                List.of(UTF8, INT64),
                "no signature of round accepts (Utf8, Int64); signatures: round(Float (or Numeric as Float64), Int64)");

        // an implicit coercion is a direct cast even where canCoerce would refuse it (number to string)
        TestFunction toText = new TestFunction(
                "to_text",
                new TypeSignature.Coercible(List.of(Coercion.implicit(
                        TypeSignatureClass.Family.STRING, List.of(TypeSignatureClass.Family.NUMERIC), UTF8))));
        assertResolves(toText, List.of(INT32), List.of(UTF8));
        assertExact(toText, List.of(LARGE_UTF8));

        TestFunction year = new TestFunction(
                "year", new TypeSignature.Coercible(List.of(Coercion.exact(TypeSignatureClass.Family.TIMESTAMP))));
        assertResolves(year, List.of(NULL), List.of(new Timestamp(TimeUnit.MICROSECOND, null)));
        assertRejected(year, List.of(DATE32), "no signature of year accepts (Date32); signatures: year(Timestamp)");
    }

    // ------------------------------------------------------------------ UserDefined, Nullary

    @Test
    void userDefinedAsksTheFunction() {
        TestFunction f = new TestFunction(
                "widen", new Signature(new TypeSignature.UserDefined(), Volatility.IMMUTABLE), args -> {
                    if (!args.stream().allMatch(t -> t instanceof Int || t instanceof Null)) {
                        throw new PlanningException("widen takes integers, got " + args);
                    }
                    return args.stream().map(t -> (DataType) INT64).toList();
                });
        assertResolves(f, List.of(INT32, NULL), List.of(INT64, INT64));
        assertRejected(f, List.of(UTF8), "widen takes integers, got [Utf8]");

        TestFunction lazy = new TestFunction("lazy", new TypeSignature.UserDefined());
        assertRejected(
                lazy,
                List.of(INT32),
                "function 'lazy' has a user-defined signature but does not implement coerceTypes");
    }

    @Test
    void nullary() {
        TestFunction now = new TestFunction("now", new TypeSignature.Nullary());
        assertExact(now, List.of());
        assertRejected(now, List.of(INT32), "now takes no arguments, got 1: now(Int32); signatures: now()");
    }

    // ------------------------------------------------------------------ OneOf

    @Test
    void oneOfTakesTheFirstAlternativeThatAccepts() {
        TestFunction round = new TestFunction(
                "round",
                new TypeSignature.OneOf(List.of(
                        new TypeSignature.Exact(List.of(FLOAT64)), new TypeSignature.Exact(List.of(FLOAT64, INT64)))));
        assertExact(round, List.of(FLOAT64));
        assertResolves(round, List.of(INT32), List.of(FLOAT64));
        assertResolves(round, List.of(FLOAT64, INT32), List.of(FLOAT64, INT64));
        assertRejected(
                round,
                List.of(),
                "round takes 1 or 2 arguments, got 0: round(); signatures: round(Float64), round(Float64, Int64)");
        assertRejected(
                round,
                List.of(BOOLEAN),
                "no signature of round accepts (Boolean); signatures: round(Float64), round(Float64, Int64)");
    }

    @Test
    void oneOfPrefersAnExactMatchInALaterAlternativeToACastInAnEarlierOne() {
        TestFunction abs = new TestFunction(
                "abs",
                new TypeSignature.OneOf(
                        List.of(new TypeSignature.Exact(List.of(FLOAT64)), new TypeSignature.Exact(List.of(INT64)))));
        assertExact(abs, List.of(INT64));
        // no exact match: order decides, and Int32 reaches Float64 first
        assertResolves(abs, List.of(INT32), List.of(FLOAT64));
    }

    @Test
    void oneOfSkipsAUserDefinedAlternativeThatRejects() {
        TestFunction f = new TestFunction(
                "f",
                new Signature(
                        new TypeSignature.OneOf(
                                List.of(new TypeSignature.UserDefined(), new TypeSignature.Exact(List.of(UTF8)))),
                        Volatility.IMMUTABLE),
                args -> {
                    throw new PlanningException("never");
                });
        assertExact(f, List.of(UTF8));
        assertResolves(f, List.of(NULL), List.of(UTF8));
    }

    // ------------------------------------------------------------------ describe

    @Test
    void describe() {
        assertEquals(
                List.of("sqrt(Float64)"),
                SignatureResolver.describe("sqrt", new TypeSignature.Exact(List.of(FLOAT64))));
        assertEquals(
                List.of("concat(Utf8, ...)"),
                SignatureResolver.describe("concat", new TypeSignature.Variadic(List.of(UTF8))));
        assertEquals(List.of("f(Any, Any)"), SignatureResolver.describe("f", new TypeSignature.Any(2)));
        assertEquals(
                List.of("coalesce(Any, ...)"), SignatureResolver.describe("coalesce", new TypeSignature.VariadicAny()));
        assertEquals(List.of("now()"), SignatureResolver.describe("now", new TypeSignature.Nullary()));
        assertEquals(List.of("g(user-defined)"), SignatureResolver.describe("g", new TypeSignature.UserDefined()));
        assertEquals(
                List.of("f(Int8, Int8, Int8)", "f(Int16, Int16, Int16)"),
                SignatureResolver.describe("f", new TypeSignature.Uniform(3, List.of(INT8, INT16))));
        assertEquals(
                List.of("m(Numeric)", "m(String, String)", "m(Comparable, Comparable)", "m(Interval(DAY_TIME))"),
                SignatureResolver.describe(
                        "m",
                        new TypeSignature.OneOf(List.of(
                                new TypeSignature.Numeric(1),
                                new TypeSignature.StringArgs(2),
                                new TypeSignature.Comparable(2),
                                new TypeSignature.Coercible(List.of(Coercion.exact(
                                        TypeSignatureClass.of(new Interval(IntervalUnit.DAY_TIME)))))))));
    }
}
