package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.rowfn.RowFn;
import java.io.ByteArrayOutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code haversine} workload of {@code quiver bench}, and the guide's RowFn the command line
 * registers for {@code bench --expr}, {@code explain} and {@code eval}.
 */
class HaversineWorkloadTest {

    @Test
    void theWorkloadRunsOnEveryDeviceAndEachOneAgreesWithTheRowLoop() throws Exception {
        // 1000-row batches and one of 3001 rows: both hand-written loops end with a partial vector step.
        CliRun run = CliRun.of(
                "bench",
                "--workload",
                "haversine",
                "--format",
                "json",
                "--rows",
                "3001",
                "--batch-rows",
                "1000,3001",
                "--nulls",
                "0,0.1",
                "--iterations",
                "1",
                "--warmup",
                "1",
                "--warmup-ms",
                "0");
        assertEquals(0, run.exitCode(), run.err());
        assertFalse(run.err().contains("ERROR"), run.err());
        assertTrue(
                run.err()
                        .contains(
                                "haversine: lat1 in [-90, 90), lon1 in [-180, 180), lat2 in [-90, 90), lon2 in [-180, 180)"),
                run.err());
        Set<String> workloads = new LinkedHashSet<>(), devices = new LinkedHashSet<>();
        int lines = 0;
        for (String line : run.out().strip().split("\n")) {
            JsonNode n = new ObjectMapper().readTree(line);
            lines++;
            workloads.add(n.get("workload").asText());
            devices.add(n.get("device").asText());
            assertEquals(3001, n.get("rows").asInt());
            assertTrue(n.get("medianMs").asDouble() > 0, n.toString());
        }
        assertEquals(Set.of("haversine", "haversine [10% nulls]"), workloads);
        assertTrue(devices.containsAll(List.of("row-loop", "vector-api-loop", "cpu")), devices.toString());
        assertEquals(2 * 2 * devices.size(), lines, run.out());
    }

    @Test
    void theHandWrittenLoopsAgreeWithinTheToleranceAndOnNulls() {
        Schema schema = new Schema(Workload.HAVERSINE.columns().stream()
                .map(c -> new Field(
                        c, FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null))
                .toList());
        SplittableRandom random = new SplittableRandom(3);
        int rows = 1029;
        try (RootAllocator allocator = new RootAllocator();
                VectorSchemaRoot batch = VectorSchemaRoot.create(schema, allocator)) {
            for (int c = 0; c < 4; c++) {
                Float8Vector v = (Float8Vector) batch.getVector(c);
                Workload.Range range = Workload.HAVERSINE.ranges().get(c);
                v.allocateNew(rows);
                for (int i = 0; i < rows; i++) {
                    v.set(i, random.nextDouble(range.min(), range.max()));
                    if (i % 11 == c) {
                        v.setNull(i);
                    }
                }
                v.setValueCount(rows);
            }
            batch.setRowCount(rows);
            try (Float8Vector expected = Workload.HAVERSINE.rowLoop().apply(batch, allocator);
                    Float8Vector actual = Workload.HAVERSINE.vectorLoop().apply(batch, allocator)) {
                for (int i = 0; i < rows; i++) {
                    assertEquals(i % 11 < 4, expected.isNull(i), "row " + i);
                    assertEquals(expected.isNull(i), actual.isNull(i), "row " + i);
                    if (!expected.isNull(i)) {
                        assertTrue(
                                Workload.HAVERSINE.agrees(expected.get(i), actual.get(i)),
                                "row " + i + ": " + expected.get(i) + " vs " + actual.get(i));
                    }
                }
            }
        }
        // The formula itself: London to Paris, and two antipodes.
        assertEquals(343.5, Workload.haversineKm(51.5074, -0.1278, 48.8566, 2.3522), 0.5);
        assertEquals(Math.PI * CliFunctions.EARTH_RADIUS_KM, Workload.haversineKm(0, 0, 0, 180), 1e-9);
        assertFalse(Workload.FMA_LIKE.agrees(1.0, Math.nextUp(1.0)), "the other workloads compare bits");
    }

    @Test
    void benchExprExplainCanCallIt() {
        CliRun explain = CliRun.of(
                "explain", "haversine(lat, lon, 51.4779, -0.0015) < 100", "--schema", "lat:float64,lon:float64");
        assertEquals(0, explain.exitCode(), explain.err());
        assertTrue(
                explain.out().contains("kernel segment") && explain.out().contains("[RowFn haversine]"), explain.out());
        // Every device: their sin, cos and asin differ by a few ulps, which the check allows for an inexact function.
        CliRun bench = CliRun.of(
                "bench",
                "--expr",
                "haversine(a, b, 51.4779, -0.0015)",
                "--schema",
                "a:float64,b:float64",
                "--rows",
                "2000",
                "--batch",
                "1000",
                "--nulls",
                "0.1",
                "--iterations",
                "1",
                "--warmup",
                "1",
                "--warmup-ms",
                "0");
        assertEquals(0, bench.exitCode(), bench.err());
        assertFalse(bench.err().contains("ERROR"), bench.err());
        assertTrue(bench.out().contains("haversine(a, b, 51.4779, -0.0015) [10% nulls]"), bench.out());
    }

    /** The RowFn the command line registers captures the same IR as the guide's declaration, compiled from docs/rowfn.md. */
    @Test
    void theRegisteredRowFnIsTheGuides(@TempDir Path work) throws Exception {
        Path doc = Path.of(System.getProperty("user.dir")).getParent().resolve("docs/rowfn.md");
        Matcher m = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(Files.readString(doc));
        String source = null;
        while (m.find() && source == null) {
            if (m.group(1).contains("public final class GuideFunctions")) {
                source = m.group(1);
            }
        }
        assertNotNull(source, "docs/rowfn.md has no GuideFunctions block");
        Path file = work.resolve("GuideFunctions.java");
        Files.writeString(file, source);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = javac.run(
                null, null, errors, "-proc:none", "-classpath", classpath, "-d", work.toString(), file.toString());
        assertEquals(0, rc, errors.toString(StandardCharsets.UTF_8));
        try (URLClassLoader loader =
                new URLClassLoader(new URL[] {work.toUri().toURL()}, getClass().getClassLoader())) {
            RowFn guide = (RowFn)
                    loader.loadClass("GuideFunctions").getMethod("haversine").invoke(null);
            RowFn ours = CliFunctions.haversine();
            assertEquals(guide.params(), ours.params());
            assertEquals(guide.description(), ours.description());
            assertEquals(guide.capturedInstances(), ours.capturedInstances());
        }
        assertTrue(CliFunctions.registry().find("haversine").isPresent());
    }
}
