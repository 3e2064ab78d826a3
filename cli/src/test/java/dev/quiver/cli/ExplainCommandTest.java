package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** {@code quiver explain}: both plans for a schema; bad expressions and schemas are exit 2 with the reason. */
class ExplainCommandTest {

    @Test
    void printsTheLogicalAndThePhysicalPlan() {
        CliRun run = CliRun.of("explain", "sqrt(x*x + y) + 1", "--schema", "x:float64,y:int32,name:utf8");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("Logical plan (as written):"), run.out());
        assertTrue(run.out().contains("Physical plan (as it will run)"), run.out());
        assertTrue(run.out().contains("'x' Float64"), run.out());
        assertTrue(run.out().contains("'y' Int32"), run.out());
        assertFalse(run.out().contains("'name'"), "only the columns the expression reads are inputs: " + run.out());
        assertTrue(run.out().contains("Devices:"), run.out());
    }

    @Test
    void showsEachDevicesEstimateAtTheBatchSizeAsked() {
        CliRun run = CliRun.of("explain", "sqrt(x*x + y) + 1", "--schema", "x:float64,y:int32", "--batch-rows", "1K");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("Placement (auto) at 1024 rows per batch:"), run.out());
        assertTrue(run.out().contains("4 arith, 1 div, 0 transcendental, 20.4 B/row"), run.out());
        // A 1K-row batch of a cheap kernel: the cpu wins on any machine (an OpenCL launch alone costs more).
        assertTrue(run.out().matches("(?s).*\\n    cpu: [0-9.]+ ms \\(launch .*<- auto\\n.*"), run.out());
    }

    @Test
    void transferChoosesHowOpenClDevicesGetMemoryAndTheDevicesSayIt() {
        for (String mode : List.of("copy", "zero-copy")) {
            CliRun run = CliRun.of("explain", "x * 2 + 1", "--schema", "x:float64", "--transfer", mode);
            assertEquals(0, run.exitCode(), run.err());
            for (String line : run.out().split("\n")) {
                if (line.startsWith("  opencl:")) {
                    assertTrue(line.contains(": can run every kernel; transfer " + mode + "; "), line);
                }
            }
        }
        CliRun bad = CliRun.of("explain", "x", "--schema", "x:float64", "--transfer", "dma");
        assertEquals(2, bad.exitCode());
        assertTrue(bad.err().contains("unknown OpenCL transfer mode 'dma': use auto, zero-copy or copy"), bad.err());
    }

    @Test
    void stringAndBooleanExpressionsPlanToo() {
        CliRun run = CliRun.of("explain", "x > 2 AND upper(name) LIKE 'A%'", "--schema", "x:float64,name:utf8");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("Boolean"), run.out());
    }

    @Test
    void aPlanningErrorIsExitTwoWithTheMessageAndNoStackTrace() {
        CliRun run = CliRun.of("explain", "x + nope", "--schema", "x:float64");
        assertEquals(2, run.exitCode());
        assertTrue(run.err().startsWith("error: "), run.err());
        assertTrue(run.err().contains("nope"), run.err());
        assertFalse(run.err().contains("\tat "), "no stack trace: " + run.err());
        assertEquals("", run.out());
    }

    @Test
    void integerArithmeticIsCheckedUnlessWrappingIsAskedFor() {
        CliRun checked = CliRun.of("explain", "a + b * 2", "--schema", "a:int32,b:int32");
        assertEquals(0, checked.exitCode(), checked.err());
        assertFalse(checked.out().contains("kernel segment"), "checked integers run as host kernels: " + checked.out());
        CliRun wrapping = CliRun.of("explain", "a + b * 2", "--schema", "a:int32,b:int32", "--arithmetic", "wrapping");
        assertEquals(0, wrapping.exitCode(), wrapping.err());
        assertTrue(wrapping.out().contains("kernel segment (a + (b * 2))"), wrapping.out());
        CliRun bad = CliRun.of("explain", "a", "--schema", "a:int32", "--arithmetic", "saturating");
        assertEquals(2, bad.exitCode());
        assertTrue(bad.err().contains("'saturating' is not checked or wrapping"), bad.err());
    }

    @Test
    void aSyntaxErrorIsExitTwo() {
        CliRun run = CliRun.of("explain", "x + * 2", "--schema", "x:float64");
        assertEquals(2, run.exitCode());
        assertTrue(run.err().startsWith("error: "), run.err());
        assertFalse(run.err().contains("\tat "), run.err());
    }

    @Test
    void aBadSchemaIsExitTwoNamingTheEntry() {
        CliRun run = CliRun.of("explain", "x", "--schema", "x:float64,y:complex");
        assertEquals(2, run.exitCode());
        assertTrue(run.err().contains("column 'y': bad type 'complex'"), run.err());
        assertEquals(2, CliRun.of("explain", "x", "--schema", "x").exitCode());
    }

    @Test
    void schemaSpecsKeepCommasInsideTypes() {
        Schema s = SchemaSpec.parse(
                "x:float64, price:decimal(10,2),at:timestamp[ms, UTC] ,d:date32,n:large_utf8,b:boolean");
        assertEquals(
                List.of("x", "price", "at", "d", "n", "b"),
                s.getFields().stream().map(f -> f.getName()).toList());
        assertEquals("Decimal(10, 2, 128)", s.findField("price").getType().toString());
        assertEquals("Timestamp(MILLISECOND, UTC)", s.findField("at").getType().toString());
        assertTrue(s.getFields().stream().allMatch(f -> f.isNullable()));
        assertEquals(0, SchemaSpec.parse("").getFields().size());
    }

    @Test
    void badSchemaSpecsSayWhatIsWrong() {
        assertMessage("schema entry 'x' is not name:type", "x");
        assertMessage("schema entry ':int32' has no column name", ":int32");
        assertMessage("schema entry 'x:' has no type", "x:");
        assertMessage("column 'x' appears twice", "x:int32,x:int64");
        assertMessage("unclosed '(' or '['", "p:decimal(10,2");
        assertMessage("unbalanced ']'", "t:timestamp]ms]");
        assertMessage("column 't': bad type 'timestampz'", "t:timestampz");
        assertMessage("column 't': bad type 'timestamp[m]': unknown time unit", "t:timestamp[m]");
    }

    private static void assertMessage(String expected, String spec) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SchemaSpec.parse(spec));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
