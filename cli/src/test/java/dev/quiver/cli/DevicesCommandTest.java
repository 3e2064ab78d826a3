package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.opencl.ProgramBinaryCache;
import dev.quiver.placement.CalibrationCache;
import org.junit.jupiter.api.Test;

/** {@code quiver devices}: every device with its figures (and health and programs for OpenCL), the caches, and --recalibrate. */
class DevicesCommandTest {

    @Test
    void listsTheCpuWithItsFiguresAndTheCache() {
        CliRun run = CliRun.of("devices");
        assertEquals(0, run.exitCode(), run.err());
        String out = run.out();
        assertTrue(out.matches("(?s)cpu +Vector API .*\\n  figures: launch .*"), out);
        for (String line : out.split("\n")) {
            if (line.startsWith("opencl:")) {
                assertTrue(out.contains(line + "\n  figures: "), "each OpenCL device has figures: " + out);
            }
        }
        if (out.contains("\nopencl:")) {
            assertTrue(out.contains("\n  health: "), "OpenCL devices have a health line: " + out);
            assertTrue(
                    out.matches(
                            "(?s).*\n  programs: \\d+ built from source, \\d+ loaded from the kernel cache, \\d+ rejected\n.*"),
                    "OpenCL devices count their programs: " + out);
        }
        assertTrue(out.contains("\nCalibration cache: " + CalibrationCache.defaultDirectory()), out);
        assertTrue(out.contains("\nKernel cache: " + ProgramBinaryCache.defaultDirectory()), out);
        assertTrue(out.contains("\nOpenCL: "), out);
    }

    @Test
    void eachOpenClDeviceSaysItsTransferModeAndTransferChangesIt() {
        CliRun auto = CliRun.of("devices");
        assertEquals(0, auto.exitCode(), auto.err());
        CliRun copy = CliRun.of("devices", "--transfer", "copy");
        assertEquals(0, copy.exitCode(), copy.err());
        for (String line : auto.out().split("\n")) {
            if (line.startsWith("opencl:")) {
                assertTrue(line.matches(".*, transfer (zero-copy|copy) \\(auto\\).*"), line);
            }
        }
        String[] lines = copy.out().split("\n");
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].startsWith("opencl:")) {
                assertTrue(lines[i].contains(", transfer copy (configured)"), lines[i]);
                // figures of the copy mode's own: a device that copies has a transfer cost
                assertTrue(lines[i + 1].matches("  figures: .*, transfer [0-9.]+ ns/B .*"), lines[i + 1]);
            }
        }
    }

    @Test
    void recalibrateMeasuresAgainAndPrintsTheNewFigures() {
        CliRun run = CliRun.of("devices", "--recalibrate");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().matches("(?s)cpu +Vector API .*\\n  figures: launch .*"), run.out());
        assertTrue(run.out().contains("(just recalibrated)"), run.out());
        assertTrue(run.err().contains("measuring each device's figures again"), run.err());
    }
}
