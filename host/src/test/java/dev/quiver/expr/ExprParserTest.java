package dev.quiver.expr;

import org.junit.jupiter.api.Test;

import static dev.quiver.expr.Expr.call;
import static dev.quiver.expr.Expr.col;
import static dev.quiver.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ExprParserTest {

    @Test
    void precedenceAndAssociativityFollowArithmetic() {
        assertEquals(col("a").mul(col("b")).add(col("c")), Expr.parse("a*b+c"));
        assertEquals(col("a").add(col("b").mul(col("c"))), Expr.parse("a + b * c"));
        assertEquals(col("a").sub(col("b")).sub(col("c")), Expr.parse("a - b - c"));
        assertEquals(col("a").div(col("b")).div(col("c")), Expr.parse("a / b / c"));
        assertEquals(col("a").mul(col("b").add(col("c"))), Expr.parse("a * (b + c)"));
        assertEquals(call("sqrt", col("x").mul(col("x")).add(col("y").mul(col("y")))), Expr.parse("sqrt(x*x + y*y)"));
        assertEquals(col("x").neg().mul(col("y")), Expr.parse("-x * y"));
    }

    @Test
    void literalsAreTypedByTheirSpelling() {
        assertEquals(lit(2), Expr.parse("2"));
        assertEquals(lit(3_000_000_000L), Expr.parse("3000000000"));
        assertEquals(lit(2L), Expr.parse("2L"));
        assertEquals(lit(2.5), Expr.parse("2.5"));
        assertEquals(lit(1e-3), Expr.parse("1e-3"));
        assertEquals(lit(2.5f), Expr.parse("2.5f"));
        assertEquals(lit(-7), Expr.parse("-7"));
        assertEquals(lit(-0.0), Expr.parse("-0.0"));
        assertEquals(lit(Integer.MIN_VALUE), Expr.parse("-2147483648"));
        assertEquals(lit(2147483648L), Expr.parse("2147483648"));
        assertEquals(col("x").sub(lit(-3)), Expr.parse("x - -3"));
        assertEquals(col("x").neg(), Expr.parse("- x"));
    }

    @Test
    void functionNamesAreCaseInsensitiveAndQuotedNamesAreColumns() {
        assertEquals(call("fma", col("a"), col("b"), lit(1)), Expr.parse("FMA(a, b, 1)"));
        assertEquals(col("unit price").mul(col("qty")), Expr.parse("\"unit price\" * qty"));
    }

    @Test
    void printingAndParsingRoundTrip() {
        for (String text : new String[]{"sqrt(x*x + y*y)", "fma(a, b, -c) / 2.5", "min(abs(i), 7) - max(l, 0L)", "x * 2.5f - -3", "-(a + b)"}) {
            Expr e = Expr.parse(text);
            assertEquals(e, Expr.parse(e.toString()), text);
        }
    }

    @Test
    void errorsSayWhatAndWhere() {
        assertEquals("expected ')' at 12 in \"sqrt(x*x + y\"",
                assertThrows(IllegalArgumentException.class, () -> Expr.parse("sqrt(x*x + y")).getMessage());
        assertEquals("unexpected ')' at 3 in \"a +)\"",
                assertThrows(IllegalArgumentException.class, () -> Expr.parse("a +)")).getMessage());
        assertEquals("unexpected 'b' at 2 in \"a b\"",
                assertThrows(IllegalArgumentException.class, () -> Expr.parse("a b")).getMessage());
        assertEquals("expected an expression at 2 in \"a*\"",
                assertThrows(IllegalArgumentException.class, () -> Expr.parse("a*")).getMessage());
        assertEquals("bad number '1.2.3' at 0 in \"1.2.3\"",
                assertThrows(IllegalArgumentException.class, () -> Expr.parse("1.2.3")).getMessage());
    }
}
