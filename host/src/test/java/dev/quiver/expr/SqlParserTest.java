package dev.quiver.expr;

import static dev.quiver.expr.Expr.call;
import static dev.quiver.expr.Expr.callNamed;
import static dev.quiver.expr.Expr.caseOf;
import static dev.quiver.expr.Expr.col;
import static dev.quiver.expr.Expr.lit;
import static dev.quiver.expr.Expr.nullLit;
import static dev.quiver.expr.Expr.when;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.functions.PlanningException;
import dev.quiver.sql.SqlParser;
import dev.quiver.types.DataType;
import dev.quiver.value.ScalarValue;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.arrow.vector.types.IntervalUnit;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

class SqlParserTest {

    private static final Expr X = col("x");
    private static final Expr Y = col("y");
    private static final Expr A = col("a");
    private static final Expr B = col("b");
    private static final Expr C = col("c");

    private static Stream<DynamicTest> table(Object... textThenExpected) {
        return IntStream.range(0, textThenExpected.length / 2).mapToObj(i -> {
            String text = (String) textThenExpected[2 * i];
            Expr expected = (Expr) textThenExpected[2 * i + 1];
            return DynamicTest.dynamicTest(text, () -> assertEquals(expected, SqlParser.parse(text), text));
        });
    }

    @TestFactory
    Stream<DynamicTest> names() {
        return table(
                "x", X,
                "MyCol", col("MyCol"),
                "\"a b\"", col("a b"),
                "\"say \"\"hi\"\"\"", col("say \"hi\""),
                "\"select\"", col("select"),
                "t.x", col("t", "x"),
                "\"T 1\".\"X\"", col("T 1", "X"),
                "  x  ", X,
                "x -- a comment", X);
    }

    @TestFactory
    Stream<DynamicTest> literals() {
        return table(
                "2", lit(2),
                "2147483647", lit(Integer.MAX_VALUE),
                "2147483648", lit(2147483648L),
                "-2147483648", lit(Integer.MIN_VALUE),
                "-2147483649", lit(-2147483649L),
                "3000000000", lit(3000000000L),
                "-9223372036854775808", lit(Long.MIN_VALUE),
                "2.5", lit(2.5),
                "1e-3", lit(1e-3),
                "1.0E10", lit(1.0e10),
                "-0.0", lit(-0.0),
                "'text'", lit("text"),
                "'it''s'", lit("it's"),
                "''", lit(""),
                "'a\\b'", lit("a\\b"),
                "TRUE", lit(true),
                "false", lit(false),
                "NULL", nullLit(),
                "DATE '2024-01-31'", lit(LocalDate.of(2024, 1, 31)),
                "TIMESTAMP '2024-01-31 10:00:00'",
                        lit(1706695200_000_000L, new DataType.Timestamp(DataType.TimeUnit.MICROSECOND, null)),
                "TIMESTAMP_MS '1969-12-31 23:59:59.999'",
                        lit(-1L, new DataType.Timestamp(DataType.TimeUnit.MILLISECOND, null)),
                "BIGINT '5'", lit(5L),
                "UBIGINT '18446744073709551615'", lit(new BigInteger("18446744073709551615"), DataType.UINT64),
                "TINYINT '-128'", lit((byte) -128),
                "REAL '1.5'", lit(1.5f),
                "DOUBLE 'NaN'", lit(Double.NaN),
                "DOUBLE '-inf'", lit(Double.NEGATIVE_INFINITY),
                "DECIMAL(10, 2) '1.5'", lit(new BigDecimal("1.50"), new DataType.Decimal(10, 2)),
                "BLOB 'a\\x00\\\\'", lit(new byte[] {'a', 0, '\\'}),
                "NULL::BIGINT", nullLit(DataType.INT64),
                "CAST(NULL AS BIGINT)", nullLit().cast(DataType.INT64));
    }

    @TestFactory
    Stream<DynamicTest> operators() {
        return table(
                "a + b", A.add(B),
                "a - b", A.sub(B),
                "a * b", A.mul(B),
                "a / b", A.div(B),
                "a % b", A.mod(B),
                "a = b", A.eq(B),
                "a <> b", A.notEq(B),
                "a != b", A.notEq(B),
                "a < b", A.lt(B),
                "a <= b", A.ltEq(B),
                "a > b", A.gt(B),
                "a >= b", A.gtEq(B),
                "a IS DISTINCT FROM b", A.isDistinctFrom(B),
                "a IS NOT DISTINCT FROM b", A.isNotDistinctFrom(B),
                "a AND b", A.and(B),
                "a OR b", A.or(B),
                "NOT a", A.not(),
                "a IS NULL", A.isNull(),
                "a IS NOT NULL", A.isNotNull(),
                "-x", X.neg(),
                "-(2)", lit(2).neg(),
                "- 2", lit(-2),
                "+x", X,
                "x - -5", X.sub(lit(-5)));
    }

    @TestFactory
    Stream<DynamicTest> precedence() {
        return table(
                "a + b * c", A.add(B.mul(C)),
                "(a + b) * c", A.add(B).mul(C),
                "a - b - c", A.sub(B).sub(C),
                "NOT a = b AND c", A.eq(B).not().and(C),
                "a OR b AND c", A.or(B.and(C)),
                "-x * y", X.neg().mul(Y),
                "-2 * y", lit(-2).mul(Y),
                "a = b OR a IS NULL", A.eq(B).or(A.isNull()),
                "x + 1 BETWEEN a AND b + 1", X.add(lit(1)).between(A, B.add(lit(1))),
                "x * 2 > y AND name LIKE 'a%'",
                        X.mul(lit(2)).gt(Y).and(col("name").like(lit("a%"))));
    }

    @TestFactory
    Stream<DynamicTest> casts() {
        return table(
                "CAST(x AS DOUBLE)", X.cast(DataType.FLOAT64),
                "x::BIGINT", X.cast(DataType.INT64),
                "CAST(x AS DECIMAL(10, 2))", X.cast(new DataType.Decimal(10, 2)),
                "CAST(x AS VARCHAR)", X.cast(DataType.UTF8),
                "CAST(x AS TIMESTAMP_MS)", X.cast(new DataType.Timestamp(DataType.TimeUnit.MILLISECOND, null)),
                "CAST(x AS UBIGINT)", X.cast(DataType.UINT64),
                "CAST(x AS \"Timestamp(ms, UTC)\")",
                        X.cast(new DataType.Timestamp(DataType.TimeUnit.MILLISECOND, "UTC")),
                "CAST(x AS double precision)", X.cast(DataType.FLOAT64),
                "TRY_CAST(x AS INTEGER)", X.tryCast(DataType.INT32),
                "(x + 1)::REAL", X.add(lit(1)).cast(DataType.FLOAT32));
    }

    @TestFactory
    Stream<DynamicTest> conditionals() {
        return table(
                "CASE WHEN a THEN 1 ELSE 2 END", when(A, lit(1)).otherwise(lit(2)),
                "CASE WHEN a THEN 1 WHEN b THEN 2 END",
                        when(A, lit(1)).when(B, lit(2)).end(),
                "CASE x WHEN 1 THEN 'one' ELSE 'many' END",
                        caseOf(X).when(lit(1), lit("one")).otherwise(lit("many")),
                "CASE x WHEN 1 THEN 'one' END",
                        caseOf(X).when(lit(1), lit("one")).end(),
                "x IN (1, 2, 3)", X.in(lit(1), lit(2), lit(3)),
                "x NOT IN ('a')", X.notIn(lit("a")),
                "x BETWEEN 1 AND 10", X.between(lit(1), lit(10)),
                "x NOT BETWEEN a AND b", X.notBetween(A, B),
                "x LIKE 'a%'", X.like(lit("a%")),
                "x NOT LIKE 'a%'", X.notLike(lit("a%")),
                "x ILIKE 'a%'", X.ilike(lit("a%")),
                "x NOT ILIKE 'a%'", X.notIlike(lit("a%")),
                "x LIKE 'a!%' ESCAPE '!'", new Expr.Like(X, lit("a!%"), '!', false, false),
                "x NOT ILIKE 'a''%' ESCAPE ''''", new Expr.Like(X, lit("a'%"), '\'', true, true));
    }

    @TestFactory
    Stream<DynamicTest> calls() {
        return table(
                "sqrt(x)", call("sqrt", X),
                "SQRT(x)", call("sqrt", X),
                "Hypot(x, y)", call("hypot", X, Y),
                "\"MyFn\"(x)", call("MyFn", X),
                "pi()", call("pi"),
                "f(x => 1, y => 2)", callNamed("f", List.of("x", "y"), lit(1), lit(2)),
                "f(a, y => 2)", callNamed("f", Arrays.asList(null, "y"), A, lit(2)),
                "trim(x)", call("trim", X),
                "trim(x, 'ab')", call("trim", X, lit("ab")),
                "TRIM(BOTH 'ab' FROM x)", call("trim", X, lit("ab")),
                "TRIM('ab' FROM x)", call("trim", X, lit("ab")),
                "TRIM(LEADING 'ab' FROM x)", call("ltrim", X, lit("ab")),
                "TRIM(TRAILING FROM x)", call("rtrim", X),
                "TRIM(LEADING x)", call("ltrim", X),
                "SUBSTRING(x FROM 2 FOR y)", call("substring", X, lit(2), Y),
                "substring(x FROM -1)", call("substring", X, lit(-1)),
                "substr(x, 2, 3)", call("substr", X, lit(2), lit(3)),
                "left(x, 2)", call("left", X, lit(2)),
                "coalesce(x, 0) + 1", call("coalesce", X, lit(0)).add(lit(1)),
                "x + 1 AS y", X.add(lit(1)).alias("y"),
                "x AS \"my y\"", X.alias("my y"));
    }

    /** Every expression here prints as text that parses back to an equal expression. */
    static List<Expr> roundTripCorpus() {
        DataType tsMs = new DataType.Timestamp(DataType.TimeUnit.MILLISECOND, null);
        return List.of(
                X,
                col("MyCol"),
                col("a b"),
                col("q\"uote"),
                col("select"),
                col("end"),
                col("current"),
                col("date"),
                col("t", "x"),
                col("T", "order"),
                lit(2),
                lit(-7),
                lit(Integer.MIN_VALUE),
                lit(5L),
                lit(Long.MIN_VALUE),
                lit(3000000000L),
                lit(2.5),
                lit(-0.0),
                lit(1e-300),
                lit(Double.MAX_VALUE),
                lit(Double.NaN),
                lit(Double.NEGATIVE_INFINITY),
                lit(1.5f),
                lit(Float.NaN),
                lit("it's"),
                lit(""),
                lit(true),
                lit(false),
                nullLit(),
                nullLit(DataType.INT64),
                nullLit(DataType.UTF8),
                nullLit(new DataType.Decimal(10, 2)),
                nullLit(new DataType.Timestamp(DataType.TimeUnit.MILLISECOND, "UTC")),
                lit((byte) -5),
                lit((short) 300),
                lit(200, DataType.UINT16),
                lit(new BigInteger("18446744073709551615"), DataType.UINT64),
                lit(new BigDecimal("-12.34")),
                lit(LocalDate.of(1969, 7, 20)),
                lit(-1L, tsMs),
                lit(1_706_695_200_123_456_789L, new DataType.Timestamp(DataType.TimeUnit.NANOSECOND, null)),
                lit(0L, new DataType.Timestamp(DataType.TimeUnit.MICROSECOND, "UTC")),
                lit(new byte[] {0, 'a', '\\', (byte) 0xff, '\''}),
                X.add(Y).mul(lit(2)),
                X.sub(lit(-5)),
                X.neg(),
                lit(2).neg(),
                lit(-2).neg(),
                X.neg().neg(),
                nullLit(DataType.INT32).neg(),
                A.add(B).neg(),
                call("f", X).neg(),
                X.cast(DataType.FLOAT64).neg(),
                X.mod(lit(3)).eq(lit(0)),
                A.eq(B).not().and(C),
                A.or(B.and(C)),
                A.isDistinctFrom(B),
                A.isNotDistinctFrom(B),
                A.isNull().or(B.isNotNull()),
                X.cast(DataType.INT64),
                X.cast(new DataType.Decimal(10, 2)),
                X.cast(tsMs),
                X.cast(DataType.LARGE_UTF8),
                X.cast(DataType.NULL),
                X.cast(DataType.UINT8),
                X.cast(DataType.BINARY),
                X.cast(DataType.DATE32),
                X.cast(new DataType.Timestamp(DataType.TimeUnit.SECOND, "Europe/Paris")),
                nullLit().cast(DataType.INT64),
                X.tryCast(DataType.FLOAT32),
                when(A, lit(1)).when(B, lit(2)).otherwise(lit(3)),
                when(A, X).end(),
                caseOf(X.add(lit(1))).when(lit(1), lit("one")).end(),
                X.in(lit(1), lit(2)),
                X.notIn(lit("a"), nullLit()),
                X.between(lit(1), lit(2)),
                X.notBetween(A, B),
                X.like(lit("a%")),
                X.notIlike(lit("A_")),
                new Expr.Like(X, lit("a!%"), '!', true, false),
                new Expr.Like(X, lit("a'%"), '\'', false, true),
                call("sqrt", X.mul(X).add(Y.mul(Y))),
                call("pi"),
                call("MyFn", X),
                call("trim", X),
                call("left", X, lit(1)),
                call("if", A, B, C),
                callNamed("round", List.of("x", "digits"), X, lit(2)),
                new Expr.Call("f", List.of(X, Y), Arrays.asList(null, "scale")),
                X.add(lit(1)).alias("y"),
                X.alias("Select Me"),
                when(X.gt(lit(0)).and(Y.like(lit("%z"))), call("abs", X.neg())).otherwise(nullLit(DataType.FLOAT64)));
    }

    @TestFactory
    Stream<DynamicTest> roundTrip() {
        return roundTripCorpus().stream()
                .map(e -> DynamicTest.dynamicTest(
                        e.toString(), () -> assertEquals(e, SqlParser.parse(e.toString()), "text: " + e)));
    }

    @Test
    void literalsWithoutATypedLiteralSpellingReadBackAsCasts() {
        Expr large = lit("a", DataType.LARGE_UTF8);
        assertEquals("CAST('a' AS LARGE_UTF8)", large.toString());
        assertEquals(lit("a").cast(DataType.LARGE_UTF8), SqlParser.parse(large.toString()));
        assertEquals(lit(1L).alias("y").add(lit(1)).toString(), "(BIGINT '1' AS y + 1)");
        assertThrows(PlanningException.class, () -> SqlParser.parse("(BIGINT '1' AS y + 1)"));
    }

    @Test
    void roundTripCorpusIsLarge() {
        assertTrue(roundTripCorpus().size() >= 40);
    }

    @Test
    void syntaxErrorsPointAtThePosition() {
        assertError("sqrt(x*x + y", """
                syntax error at column 13 in "sqrt(x*x + y": expected ')' to close '(' at column 5
                sqrt(x*x + y
                            ^""");
        assertError("a + ", """
                syntax error at column 5 in "a + ": expected an expression after '+'
                a +\s
                    ^""");
        assertError("x = 'abc", """
                syntax error at column 5 in "x = 'abc": unterminated string literal
                x = 'abc
                    ^""");
        assertError("a b", """
                syntax error at column 3 in "a b": unexpected 'b'
                a b
                  ^""");
        assertError("f(x))", """
                syntax error at column 5 in "f(x))": unexpected ')' without a matching '('
                f(x))
                    ^""");
        assertError("CASE WHEN a THEN 1", """
                syntax error at column 19 in "CASE WHEN a THEN 1": expected 'ELSE', 'END' or 'WHEN', found end of input
                CASE WHEN a THEN 1
                                  ^""");
        assertError("x +\n  y z", """
                syntax error at line 2, column 5: unexpected 'z'
                  y z
                    ^""");
        assertError("CAST(x AS)", """
                syntax error at column 10 in "CAST(x AS)": expected a type name, found ')'
                CAST(x AS)
                         ^""");
        assertError("x BETWEN 1 AND 2", """
                syntax error at column 3 in "x BETWEN 1 AND 2": unexpected 'BETWEN'; did you mean BETWEEN?
                x BETWEN 1 AND 2
                  ^""");
        assertError("CASE WHEN a THN 1 END", """
                syntax error at column 13 in "CASE WHEN a THN 1 END": expected 'THEN', found 'THN'; did you mean THEN?
                CASE WHEN a THN 1 END
                            ^""");
        assertError("sqrt(a * )", """
                syntax error at column 10 in "sqrt(a * )": expected an expression after '*', found ')'
                sqrt(a * )
                         ^""");
        assertError("", """
                syntax error at column 1 in "": expected an expression, found empty text

                ^""");
    }

    private static void assertError(String text, String expected) {
        PlanningException e = assertThrows(PlanningException.class, () -> SqlParser.parse(text));
        assertEquals(expected, e.getMessage());
    }

    /** A filter the Spark extension wrote (SparkDifferentialFuzzTest): Booleans compared seven levels deep. */
    @Test
    void comparisonsOfBooleansNestedSevenLevelsDeepParse() {
        String text = "((c0 IS NOT NULL) AND (NOT ((((CAST(c0 AS DOUBLE) / -1.0) % 1.0) >= -15821.0)"
                + " = ('bc%' IS NOT DISTINCT FROM c1))))";
        Expr e = SqlParser.parse(text);
        assertEquals(text, e.toString());
        assertEquals(e, SqlParser.parse(e.toString()));
    }

    @Test
    void concatOperatorAndPositionBecomeCalls() {
        assertEquals(
                new Expr.Call("strict_concat", List.of(Expr.col("a"), Expr.col("b"), Expr.lit("c"))),
                SqlParser.parse("a || b || 'c'"));
        assertEquals(
                new Expr.Call(
                        "strict_concat",
                        List.of(Expr.col("a"), new Expr.Call("strict_concat", List.of(Expr.col("b"), Expr.col("c"))))),
                SqlParser.parse("a || (b || c)"));
        assertEquals(
                new Expr.Call("strpos", List.of(Expr.col("s"), Expr.lit("b"))), SqlParser.parse("POSITION('b' IN s)"));
    }

    @Test
    void rejectsConstructsQuiverHasNoNodeFor() {
        Map<String, String> cases = Map.ofEntries(
                Map.entry("(SELECT 1)", "a subquery without FROM"),
                Map.entry("x IN (SELECT 1)", "IN (SELECT ...)"),
                Map.entry("EXISTS (SELECT 1)", "EXISTS"),
                Map.entry("*", "'*'"),
                Map.entry("count(*)", "'*'"),
                Map.entry("count(DISTINCT x)", "an aggregate or decorated call"),
                Map.entry("row_number() OVER ()", "a window function"),
                Map.entry("x = ?", "a parameter"),
                Map.entry("s.f(x)", "a qualified function name"),
                Map.entry("x < ANY(l)", "ANY/ALL/SOME with '<'"),
                Map.entry("x = ANY(SELECT a FROM t)", "ANY/ALL/SOME with a subquery"));
        cases.forEach((text, what) -> {
            PlanningException e = assertThrows(PlanningException.class, () -> SqlParser.parse(text), text);
            assertTrue(
                    e.getMessage().startsWith(what)
                            && e.getMessage().contains("is not supported in a Quiver expression"),
                    text + " -> " + e.getMessage());
        });
    }

    /** The forms JSqlParser refused that Quiver's grammar reads: each becomes the call or node DataFusion plans it as. */
    @TestFactory
    Stream<DynamicTest> formsWithoutANodeOfTheirOwn() {
        Expr l = col("l");
        return table(
                "l[1:2]", call("array_slice", l, lit(1), lit(2)),
                "(l)[1:2]", call("array_slice", l, lit(1), lit(2)),
                "l[:2]", call("array_slice", l, lit(1), lit(2)),
                "l[2:]", call("array_slice", l, lit(2), lit(-1)),
                "INTERVAL '1 day'", lit("1 day").cast(new DataType.Interval(IntervalUnit.MONTH_DAY_NANO)),
                "(a, b)", call("struct", A, B),
                "ROW(a, b)", call("struct", A, B),
                "x SIMILAR TO 'a'", call("similar_to", X, lit("a")),
                "x NOT SIMILAR TO 'a' ESCAPE '!'",
                        call("similar_to", X, lit("a"), lit("!")).not(),
                "t.s.x", call("get_field", col("t", "s"), lit("x")),
                "x IS TRUE", X.isNotDistinctFrom(lit(true)),
                "x IS NOT FALSE", X.isDistinctFrom(lit(false)),
                "x IS UNKNOWN", X.isNull(),
                "~x", call("bitwise_not", X),
                "a & b | c", call("bitwise_or", call("bitwise_and", A, B), C),
                "2 ^ 3 ^ 2", call("power", call("power", lit(2), lit(3)), lit(2)),
                "-2 ^ 2", call("power", lit(-2), lit(2)),
                "x = ANY(l)", call("array_has", l, X),
                "x <> ALL(l)", call("array_has", l, X).not(),
                "s ~ 'a+'", call("regexp_like", col("s"), lit("a+")),
                "s !~* 'a+'", call("regexp_like", col("s"), lit("a+"), lit("i")).not(),
                "EXTRACT(YEAR FROM t)", call("date_part", lit("year"), col("t")),
                "X'1F00'", lit(new byte[] {0x1f, 0}),
                "E'a\\tb'", lit("a\tb"),
                "9223372036854775808", lit(new BigDecimal("9223372036854775808"), new DataType.Decimal(19, 0)),
                "CAST(x AS INT[])", X.cast(new DataType.ListType(DataType.INT32, true)),
                "CAST(x AS INT UNSIGNED)", X.cast(DataType.UINT32),
                "x IN ('MAIL', 'SHIP') AND y < 3",
                        X.in(lit("MAIL"), lit("SHIP")).and(Y.lt(lit(3))));
    }

    @Test
    void literalErrors() {
        assertEquals(
                "integer literal out of range (DECIMAL(38, 0), beyond Int64): " + "9".repeat(39),
                assertThrows(PlanningException.class, () -> SqlParser.parse("9".repeat(39)))
                        .getMessage());
        assertTrue(assertThrows(PlanningException.class, () -> SqlParser.parse("TINYINT '300'"))
                .getMessage()
                .startsWith("invalid TINYINT literal '300'"));
        assertTrue(assertThrows(PlanningException.class, () -> SqlParser.parse("DATE '2024-02-30'"))
                .getMessage()
                .startsWith("invalid DATE literal '2024-02-30'"));
        assertTrue(assertThrows(PlanningException.class, () -> SqlParser.parse("CAST(x AS NOSUCHTYPE)"))
                .getMessage()
                .contains("unknown type"));
    }

    @Test
    void literalTyping() {
        assertEquals(
                DataType.INT32, ((Expr.Literal) SqlParser.parse("2")).value().type());
        assertEquals(
                DataType.INT64,
                ((Expr.Literal) SqlParser.parse("3000000000")).value().type());
        assertEquals(
                DataType.FLOAT64,
                ((Expr.Literal) SqlParser.parse("2.5")).value().type());
        assertEquals(
                DataType.UTF8, ((Expr.Literal) SqlParser.parse("'2'")).value().type());
        assertEquals(ScalarValue.nullOf(DataType.NULL), ((Expr.Literal) SqlParser.parse("NULL")).value());
    }

    @Test
    void reservedWords() {
        for (String w : List.of(
                "and", "or", "not", "null", "true", "false", "case", "when", "then", "else", "end", "in", "is", "like",
                "ilike", "between", "as", "cast", "select", "from", "where", "AND", "Select", "current")) {
            assertTrue(SqlParser.isReserved(w), w);
        }
        for (String w : List.of("x", "price", "total_2", "sqrt", "name", "a b")) {
            assertFalse(SqlParser.isReserved(w), w);
        }
    }
}
