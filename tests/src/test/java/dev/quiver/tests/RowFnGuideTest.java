package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.rowfn.RowFn;
import dev.quiver.types.DataType;
import java.io.ByteArrayOutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The functions of docs/rowfn.md, compiled from the guide's own code block and run on every device. */
class RowFnGuideTest extends QuiverTestBase {

    /** The first {@code ```java} block of docs/rowfn.md that declares a class, compiled and loaded. */
    static Class<?> guideClass(Path work) throws Exception {
        return guideClass(work, "GuideFunctions");
    }

    /** The {@code ```java} block of docs/rowfn.md that declares {@code public final class <name>}, compiled and loaded. */
    static Class<?> guideClass(Path work, String name) throws Exception {
        Path doc = Path.of(System.getProperty("user.dir")).getParent().resolve("docs/rowfn.md");
        String text = Files.readString(doc);
        Matcher m = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(text);
        String source = null;
        while (m.find()) {
            if (m.group(1).contains("public final class " + name + " ")) {
                source = m.group(1);
                break;
            }
        }
        assertTrue(source != null, "docs/rowfn.md has no " + name + " block");
        Path file = work.resolve(name + ".java");
        Files.writeString(file, source);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = javac.run(
                null, null, errors, "-proc:none", "-classpath", classpath, "-d", work.toString(), file.toString());
        assertEquals(0, rc, "the guide's code does not compile:\n" + errors.toString(StandardCharsets.UTF_8));
        URLClassLoader loader =
                new URLClassLoader(new URL[] {work.toUri().toURL()}, RowFnGuideTest.class.getClassLoader());
        return loader.loadClass(name);
    }

    @Test
    void theGuidesHypotAndHaversineCompileFromTheDocAndComputeOnEveryDevice(@TempDir Path work) throws Exception {
        Class<?> guide = guideClass(work);
        RowFn hypot = (RowFn) guide.getMethod("hypot").invoke(null);
        RowFn haversine = (RowFn) guide.getMethod("haversine").invoke(null);
        quiver.functions().register(hypot);
        quiver.functions().register(haversine);

        int rows = 3000;
        Random r = new Random(11);
        Schema schema = new Schema(List.of(
                DataType.FLOAT64.toField("lat", true),
                DataType.FLOAT64.toField("lon", true),
                DataType.FLOAT32.toField("fx", true),
                DataType.FLOAT32.toField("fy", true)));
        List<Placement> placements = new ArrayList<>(List.of(Placement.CPU));
        if (!quiver.openClDevices().isEmpty()) {
            placements.add(Placement.OPENCL);
        }
        try (VectorSchemaRoot batch = VectorSchemaRoot.create(schema, allocator)) {
            batch.allocateNew();
            Float8Vector lat = (Float8Vector) batch.getVector(0), lon = (Float8Vector) batch.getVector(1);
            Float4Vector fx = (Float4Vector) batch.getVector(2), fy = (Float4Vector) batch.getVector(3);
            for (int i = 0; i < rows; i++) {
                if (i % 17 == 0) {
                    lat.setNull(i);
                } else {
                    lat.setSafe(i, r.nextDouble() * 180 - 90);
                }
                lon.setSafe(i, r.nextDouble() * 360 - 180);
                fx.setSafe(i, (float) (r.nextGaussian() * 1e3));
                fy.setSafe(i, (float) (r.nextGaussian() * 1e3));
            }
            batch.setRowCount(rows);
            double greenwichLat = 51.4779, greenwichLon = -0.0015;
            for (Placement p : placements) {
                CompiledExpression distance = quiver.compile(schema, "haversine(lat, lon, 51.4779, -0.0015)");
                CompiledExpression near = quiver.compile(schema, "haversine(lat, lon, 51.4779, -0.0015) < 1000");
                assertTrue(
                        near.explain().contains("kernel segment")
                                && near.explain().contains("[RowFn haversine]"),
                        near.explain());
                try (FieldVector d = distance.evaluate(batch, p);
                        FieldVector n = near.evaluate(batch, p)) {
                    for (int i = 0; i < rows; i++) {
                        if (lat.isNull(i)) {
                            assertTrue(d.isNull(i) && n.isNull(i), "row " + i);
                            continue;
                        }
                        double expected = haversineKm(lat.get(i), lon.get(i), greenwichLat, greenwichLon);
                        double got = ((Float8Vector) d).get(i);
                        assertEquals(expected, got, 1e-9 * Math.max(1, expected), p + " row " + i);
                        if (Math.abs(expected - 1000) > 1e-6) {
                            assertEquals(expected < 1000, ((BitVector) n).get(i) == 1, p + " row " + i);
                        }
                    }
                }
                try (FieldVector h = quiver.compile(schema, "my_hypot(fx, fy)").evaluate(batch, p)) {
                    assertTrue(h instanceof Float4Vector, "a Float32 call stays Float32: " + h.getField());
                    for (int i = 0; i < rows; i++) {
                        float x = fx.get(i), y = fy.get(i);
                        assertEquals(
                                (float) Math.sqrt((double) (x * x + y * y)),
                                ((Float4Vector) h).get(i),
                                p + " row " + i);
                    }
                }
            }
        }
        assertTrue(haversine.stats().bodyRows() > 0, haversine.stats().toString());
        String explain = quiver.compile(
                        new Schema(List.of(DataType.FLOAT64.toField("lat", true))),
                        "haversine(lat, 0.0, 51.4779, -0.0015)")
                .explain();
        assertTrue(
                explain.contains("RowFns (counted since each was declared")
                        && explain.contains(
                                "haversine: rows computed " + haversine.stats().bodyRows()),
                explain);
    }

    /** The textbook formula, independently of Quiver. */
    static double haversineKm(double lat1, double lon1, double lat2, double lon2) {
        double p1 = Math.toRadians(lat1), p2 = Math.toRadians(lat2);
        double dLat = p2 - p1, dLon = Math.toRadians(lon2 - lon1);
        double a = Math.pow(Math.sin(dLat / 2), 2) + Math.cos(p1) * Math.cos(p2) * Math.pow(Math.sin(dLon / 2), 2);
        return 2 * 6371.0088 * Math.asin(Math.sqrt(a));
    }
}
