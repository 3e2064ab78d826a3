package dev.quiver.planning;

import static dev.quiver.expr.Expr.col;
import static dev.quiver.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.expr.Expr;
import org.junit.jupiter.api.Test;

/** EXPLAIN as golden text: the logical plan as written, the physical plan with casts, folded literals, inputs and kernels. */
class ExplainTest extends PlanningTestBase {

    @Test
    void aFoldedConstantInsideAFusedKernel() {
        assertEquals("""
                Logical plan (as written):
                  (x + (1 + 2))
                Physical plan (as it will run), result '(x + (1 + 2))' Int32:
                  kernel segment (x + 3) as ($0 + 3) [dense] -> Int32
                    #0 x -> Int32
                Inputs:
                  #0 = column 0 'x' Int32
                """, planWrapping(col("x").add(lit(1).add(lit(2)))).explain());
    }

    @Test
    void checkedIntegerArithmeticIsAHostKernel() {
        assertEquals("""
                Logical plan (as written):
                  (x + (1 + 2))
                Physical plan (as it will run), result '(x + (1 + 2))' Int32:
                  + -> Int32
                    #0 x -> Int32
                    literal 3 -> Int32
                Inputs:
                  #0 = column 0 'x' Int32
                """, plan(col("x").add(lit(1).add(lit(2)))).explain());
    }

    @Test
    void castsAndResolvedIndexesAndAnAlias() {
        assertEquals("""
                Logical plan (as written):
                  (sqrt(((l * l) + (y * y))) + 1) AS dist
                Physical plan (as it will run), result 'dist' Float64:
                  kernel segment (sqrt((CAST((l * l) AS DOUBLE) + (y * y))) + 1.0) as (sqrt((cast(($0 * $0) as Float64) + ($1 * $1))) + 1.0) [RowFn sqrt] [dense] -> Float64
                    #0 l -> Int64
                    #1 y -> Float64
                Inputs:
                  #0 = column 2 'l' Int64
                  #1 = column 1 'y' Float64
                """, planWrapping("sqrt(l*l + y*y) + 1 AS dist").explain());
    }

    @Test
    void unfusedNodesCaseAndAVolatileCall() {
        assertEquals(
                """
                Logical plan (as written):
                  CASE WHEN (t8 > 0) THEN (random() + x) ELSE CAST(name AS DOUBLE) END
                Physical plan (as it will run), result 'CASE WHEN (t8 > 0) THEN (random() + x) ELSE CAST(name AS DOUBLE) END' Float64:
                  CASE, 1 WHEN/THEN pair(s), ELSE last -> Float64
                    > -> Boolean
                      CAST AS INTEGER -> Int32
                        #0 t8 -> Int8
                      literal 0 -> Int32
                    kernel segment (random() + CAST(x AS DOUBLE)) as ($0 + cast($1 as Float64)) [dense] -> Float64
                      call random (volatile) -> Float64
                      #1 x -> Int32
                    CAST AS DOUBLE -> Float64
                      #2 name -> Utf8
                Inputs:
                  #0 = column 5 't8' Int8
                  #1 = column 0 'x' Int32
                  #2 = column 3 'name' Utf8
                """,
                plan("CASE WHEN t8 > 0 THEN random() + x ELSE CAST(name AS DOUBLE) END")
                        .explain());
    }

    @Test
    void aFullyFoldedExpressionHasNoInputs() {
        assertEquals("""
                Logical plan (as written):
                  (upper('ab') = 'AB') AS same
                Physical plan (as it will run), result 'same' Boolean:
                  literal TRUE -> Boolean
                """, plan(Expr.parse("upper('ab') = 'AB'").alias("same")).explain());
    }

    @Test
    void predicatesAndFunctionCalls() {
        assertEquals(
                """
                Logical plan (as written):
                  ((name ILIKE 'a%') AND (round(dec, 1) BETWEEN 0 AND 2))
                Physical plan (as it will run), result '((name ILIKE 'a%') AND (round(dec, 1) BETWEEN 0 AND 2))' Boolean:
                  AND -> Boolean
                    ILIKE (prefix) -> Boolean
                      #0 name -> Utf8
                      literal 'a%' -> Utf8
                    BETWEEN -> Boolean
                      CAST AS DECIMAL(11, 1) -> Decimal128(11, 1)
                        call round (immutable) -> Decimal128(10, 1)
                          #1 dec -> Decimal128(10, 2)
                          literal 1 -> Int32
                      literal DECIMAL(11, 1) '0.0' -> Decimal128(11, 1)
                      literal DECIMAL(11, 1) '2.0' -> Decimal128(11, 1)
                Inputs:
                  #0 = column 3 'name' Utf8
                  #1 = column 7 'dec' Decimal128(10, 2)
                """, plan("name ILIKE 'a%' AND round(dec, 1) BETWEEN 0 AND 2").explain());
    }
}
