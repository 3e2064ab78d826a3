package dev.quiver.rowfn.ir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.quiver.types.ElementType;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Boolean identities {@link Ir#fold} applies past literal-only subtrees (what a null
 * condition folds to when a batch has no nulls), and the part it must keep: a dropped operand
 * that can fail. Each folded tree is checked against the unfolded one with the reference, on
 * every combination of its Boolean arguments.
 */
class FoldingIdentitiesTest {
    private static final IrNode A = Ir.arg(0, ElementType.BOOL);
    private static final IrNode B = Ir.arg(1, ElementType.BOOL);
    private static final IrNode T = Ir.lit(true);
    private static final IrNode F = Ir.lit(false);
    /** A Boolean that fails where its Int32 divisor (argument 2) is zero: {@code 1 / $2 > 0}. */
    private static final IrNode FALLIBLE =
            Ir.compare(CmpOp.GT, Ir.div(Ir.lit(1), Ir.arg(2, ElementType.INT32)), Ir.lit(0));

    @Test
    void andAndOrWithALiteral() {
        check(Ir.and(A, T), A);
        check(Ir.and(T, A), A);
        check(Ir.and(A, F), F);
        check(Ir.or(A, F), A);
        check(Ir.or(F, A), A);
        check(Ir.or(A, T), T);
        check(Ir.not(Ir.not(A)), A);
    }

    @Test
    void selectOnALiteralOrWithLiteralSides() {
        IrNode x = Ir.arg(2, ElementType.INT32);
        check(Ir.select(T, x, Ir.lit(7)), x);
        check(Ir.select(F, x, Ir.lit(7)), Ir.lit(7));
        check(Ir.select(A, x, x), x);
        check(Ir.select(A, T, F), A);
        check(Ir.select(A, F, T), Ir.not(A));
        check(Ir.select(A, T, B), Ir.or(A, B));
        check(Ir.select(A, F, B), Ir.and(Ir.not(A), B));
        check(Ir.select(A, B, F), Ir.and(A, B));
        check(Ir.select(A, B, T), Ir.or(Ir.not(A), B));
    }

    @Test
    void aPartThatCanFailIsKept() {
        // The whole tree runs for every row: the division must still fail where its divisor is zero.
        assertNotEquals(F, Ir.fold(Ir.and(FALLIBLE, F)));
        assertNotEquals(T, Ir.fold(Ir.or(T, FALLIBLE)));
        IrNode sel = Ir.select(T, A, FALLIBLE);
        assertEquals(sel, Ir.fold(sel));
        // The identity itself drops nothing: kept.
        assertEquals(FALLIBLE, Ir.fold(Ir.and(FALLIBLE, T)));
    }

    /** {@code tree} folds to {@code expected}, and both give the same value for every combination of A and B. */
    private static void check(IrNode tree, IrNode expected) {
        IrNode folded = Ir.fold(tree);
        assertEquals(expected, folded, KernelProgram.render(tree));
        for (int a = 0; a < 2; a++) {
            for (int b = 0; b < 2; b++) {
                Number[] args = {a, b, 5};
                assertEquals(
                        RowInterpreter.evaluate(tree, args),
                        RowInterpreter.evaluate(folded, args),
                        KernelProgram.render(tree) + " at " + List.of(a, b));
            }
        }
    }
}
