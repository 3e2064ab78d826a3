package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@code quiver bench --first-batch}: every measure in the table (or as JSON lines), every first
 * batch checked against the cpu (a mismatch is exit code 1), the second Quiver's programs all
 * loaded from the kernel cache the first one filled. Timings themselves are not asserted.
 */
class FirstBatchBenchTest {

    @Test
    void theTableHasEveryMeasureAndTheCacheHitBuildsNothing() {
        CliRun run = CliRun.of("bench", "--first-batch", "--shapes", "1", "--rows", "1K", "--seed", "7");
        assertEquals(0, run.exitCode(), run.err());
        String out = run.out();
        assertTrue(out.contains("first batch of 1 never-seen expression shapes per measure, 1024 rows"), out);
        assertTrue(out.contains("(seed 7, --seed to replay)"), out);
        for (String m : List.of("cpu", "auto")) {
            assertTrue(
                    out.matches("(?s).*\\n" + m + " +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+  placement .*"),
                    m + ": " + out);
        }
        if (out.contains("device opencl:")) {
            for (String m : List.of(
                    "auto-opencl-favoured",
                    "auto-opencl-favoured-build-in-batch",
                    "opencl-empty-cache",
                    "opencl-cached")) {
                assertTrue(out.matches("(?s).*\\n" + m + " +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+  .*"), m + ": " + out);
            }
            assertTrue(
                    out.matches("(?s).*programs, empty cache: opencl:[^\\n]*: 1 built from source, 1 loaded.*"), out);
            assertTrue(out.matches("(?s).*programs, cache hit: +opencl:[^\\n]*: 0 built from source, 2 loaded.*"), out);
            assertTrue(run.err().contains("(auto: the OpenCL kernel is still building in the background)"), run.err());
        }
        assertFalse(run.err().contains("ERROR"), run.err());
    }

    @Test
    void jsonLinesNameTheMeasures() throws Exception {
        CliRun run =
                CliRun.of("bench", "--first-batch", "--shapes", "1", "--rows", "1K", "--seed", "8", "--format", "json");
        assertEquals(0, run.exitCode(), run.err());
        ObjectMapper json = new ObjectMapper();
        Set<String> measures = new HashSet<>();
        for (String line : run.out().strip().split("\n")) {
            JsonNode n = json.readTree(line);
            measures.add(n.get("measure").asText());
            assertEquals(1024, n.get("rows").asInt());
            assertEquals(1, n.get("firstBatchMs").size());
            assertTrue(n.get("firstBatchMedianMs").asDouble() > 0, line);
        }
        assertTrue(measures.containsAll(List.of("cpu", "auto")), measures.toString());
    }

    @Test
    void shapesAreDistinctAndReadAColumnEverywhere() {
        Set<String> taken = new HashSet<>();
        List<String> shapes = FirstBatchBench.shapes(new SplittableRandom(1), 50, taken);
        assertEquals(50, new HashSet<>(shapes).size());
        assertEquals(50, taken.size(), "50 different shapes (literals aside)");
        for (String s : shapes) {
            assertTrue(s.matches(".*\\b(sin|cos|exp|sqrt)\\(.*"), s);
        }
        assertEquals(
                shapes, FirstBatchBench.shapes(new SplittableRandom(1), 50, new HashSet<>()), "the seed replays them");
    }

    @Test
    void shapesWithoutFirstBatchIsAnError() {
        CliRun run = CliRun.of("bench", "--shapes", "2");
        assertEquals(2, run.exitCode());
        assertTrue(run.err().contains("--shapes goes with --first-batch"), run.err());
    }
}
