package dev.quiver.functions;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Long literals quoted in planning messages are cut to their start and length; the rest is kept as written. */
class PlanningExceptionTest {
    @Test
    void aLongLiteralIsShownByItsStartAndLength() {
        String literal = "ab''c".repeat(30_000); // 150,000 characters with escaped quotes
        String message = new PlanningException("cannot apply + to Utf8 and Boolean in ('" + literal + "' + (i > 0))")
                .getMessage();
        assertEquals(
                "cannot apply + to Utf8 and Boolean in ('" + literal.substring(0, 60)
                        + "...' (150000 characters) + (i > 0))",
                message);
    }

    @Test
    void shortLiteralsAndUnbalancedQuotesAreKept() {
        String shortOnes =
                "no column 'x' in the schema; did you mean 'y'? (columns: y Int32) and a 'quote that never ends "
                        + "x".repeat(100);
        assertEquals(shortOnes, new PlanningException(shortOnes).getMessage());
        assertEquals("a 'b'", new PlanningException("a 'b'").getMessage());
        assertEquals(null, new PlanningException(null).getMessage());
    }
}
