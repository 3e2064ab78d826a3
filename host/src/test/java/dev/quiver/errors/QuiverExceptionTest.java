package dev.quiver.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.expr.Expr;
import dev.quiver.functions.PlanningException;
import dev.quiver.strings.InvalidUtf8Exception;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** The hierarchy's contract: kinds, location as data, each field set once, the message built from them. */
class QuiverExceptionTest {
    /** A device named as PoCL names an Intel CPU: parentheses, spaces, a comma and non-ASCII letters. */
    private static final String HOSTILE_DEVICE = "pthread-skylake-avx512-Intel(R) Xeon(R) Processor, één";

    @Test
    void theDeviceIsDataAndTheDetailIsTheSameOnEveryDevice() {
        KernelArithmeticException a = new KernelArithmeticException("division by zero", "(a / b)", 13, HOSTILE_DEVICE);
        KernelArithmeticException b = new KernelArithmeticException("division by zero", "(a / b)", 13, "cpu");
        assertEquals(ErrorKind.ARITHMETIC, a.kind());
        assertEquals("division by zero in (a / b) at row 13", a.detail());
        assertEquals(a.detail(), b.detail());
        assertEquals(HOSTILE_DEVICE, a.device());
        assertEquals("(a / b)", a.expression());
        assertEquals(13, a.row());
        assertEquals("division by zero in (a / b) at row 13 (on " + HOSTILE_DEVICE + ")", a.getMessage());
        assertEquals(-1, a.batch());
        a.fillBatch(2);
        assertEquals("division by zero in (a / b) at row 13 in batch 2 (on " + HOSTILE_DEVICE + ")", a.getMessage());
    }

    @Test
    void eachLocationIsSetOnceByTheInnermostPlaceThatKnowsIt() {
        InputException e = new InputException("offsets decrease");
        assertNull(e.column());
        assertSame(
                e,
                e.fillColumn("s")
                        .fillRow(4)
                        .fillBatch(0)
                        .fillExpression("length(s)")
                        .fillDevice("cpu"));
        e.fillColumn("t").fillRow(9).fillBatch(7).fillExpression("upper(t)").fillDevice("gpu");
        assertEquals("s", e.column());
        assertEquals(4, e.row());
        assertEquals(0, e.batch());
        assertEquals("length(s)", e.expression());
        assertEquals("cpu", e.device());
        e.fillRow(-5);
        assertEquals(4, e.row());
        assertEquals("offsets decrease in batch 0 (on cpu)", e.getMessage());
    }

    @Test
    void everySubclassHasItsKindAndOnlyPlanningAndInputAreTheCallersFault() {
        assertEquals(ErrorKind.PLANNING, new PlanningException("x").kind());
        assertEquals(ErrorKind.INPUT, new InputException("x").kind());
        assertEquals(ErrorKind.INPUT, new InvalidUtf8Exception("s", 3, 1, 0xC0).kind());
        assertEquals(ErrorKind.EVALUATION, new EvaluationException("x").kind());
        assertEquals(ErrorKind.RESOURCE, new ResourceException("x").kind());
        assertEquals(ErrorKind.DEVICE, new DeviceException("x").kind());
        assertEquals(ErrorKind.CANCELLED, new CancelledException("x").kind());
        EnumSet<ErrorKind> callers = EnumSet.noneOf(ErrorKind.class);
        for (ErrorKind k : ErrorKind.values()) {
            if (k.isCallerError()) {
                callers.add(k);
            }
        }
        assertEquals(EnumSet.of(ErrorKind.PLANNING, ErrorKind.INPUT), callers);
        InvalidUtf8Exception u = new InvalidUtf8Exception("s", 3, 1, 0xC0);
        assertEquals("s", u.column());
        assertEquals(3, u.row());
    }

    @Test
    void aSyntaxErrorIsAPlanningErrorWithItsCaretIntact() {
        PlanningException e = assertThrows(PlanningException.class, () -> Expr.parse("x + * 2"));
        assertEquals(ErrorKind.PLANNING, e.kind());
        assertTrue(e.getMessage().startsWith("syntax error"), e.getMessage());
        assertTrue(e.getMessage().contains("\nx + * 2\n"), e.getMessage());
    }

    @Test
    void aMessageWithoutContextIsTheDetailItself() {
        assertNull(new EvaluationException(null).getMessage());
        assertEquals("plain", new EvaluationException("plain").getMessage());
        RuntimeException cause = new RuntimeException("inner");
        assertSame(cause, new ResourceException("outer", cause).getCause());
        KernelArithmeticException later = new KernelArithmeticException("integer overflow", "-x", 0, "cpu");
        later.initCause(cause); // kernels name their cause after construction
        assertSame(cause, later.getCause());
    }
}
