package dev.quiver.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.CompiledExpression;
import dev.quiver.Device;
import dev.quiver.ExpressionMetrics;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.expr.Expr;
import dev.quiver.opencl.OpenClBackend;
import dev.quiver.opencl.OpenClDevice;
import dev.quiver.opencl.OpenClRuntime;
import dev.quiver.placement.DeviceFigures;
import dev.quiver.rowfn.ir.KernelProgram;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * {@code quiver bench --first-batch}: how long the first batch of a never-seen expression takes,
 * in a JVM already warm from other expressions. Per generated expression shape (random nestings
 * of sin, cos, exp, sqrt, abs and arithmetic over two float64 columns, each new to the process):
 * placement CPU (the generated Vector API loop); AUTO (which runs the batch where a program is
 * ready and builds the OpenCL one in the background); OPENCL with an empty kernel cache (the
 * program built from source in the batch); OPENCL in a new Quiver on the same kernel cache (the
 * program loaded from disk). Each also times the expression's second batch, the same work with
 * nothing left to build. Every first batch is checked against the CPU's result. The kernel cache
 * lives in a temporary directory, deleted at the end.
 */
final class FirstBatchBench {
    static final int DEFAULT_ROWS = 64 << 10;
    static final int DEFAULT_SHAPES = 5;
    private static final int WARMUP_SHAPES = 3;
    private static final String AUTO_BUILDING = "auto: the OpenCL kernel is still building";
    private static final Schema XY = new Schema(List.of(float64("x"), float64("y")));

    private final BenchCommand options;

    FirstBatchBench(BenchCommand options) {
        this.options = options;
    }

    private static Field float64(String name) {
        return new Field(name, FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null);
    }

    /** One way to run a first batch, and what it measured per shape. */
    record Measure(String name, String description, List<Double> firstMs, List<Double> secondMs, List<String> ranOn) {
        Measure(String name, String description) {
            this(name, description, new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        }

        double medianFirst() {
            return BenchCommand.median(
                    firstMs.stream().mapToDouble(Double::doubleValue).toArray());
        }

        double medianSecond() {
            return BenchCommand.median(
                    secondMs.stream().mapToDouble(Double::doubleValue).toArray());
        }
    }

    /**
     * {@code count} expressions over x and y whose shapes (the expression with its literals taken
     * out) differ from each other and from {@code taken}, which they join.
     */
    static List<String> shapes(SplittableRandom random, int count, Set<String> taken) {
        List<String> out = new ArrayList<>();
        while (out.size() < count) {
            String[] e = expression(random, 3);
            if (e[1].contains("(")
                    && (e[1].contains("sin") || e[1].contains("cos") || e[1].contains("exp") || e[1].contains("sqrt"))
                    && taken.add(e[1])) {
                out.add(e[0]);
            }
        }
        return out;
    }

    /**
     * A random expression of at most {@code depth} levels that reads a column in every subtree
     * (nothing folds into a constant): {text, shape}.
     */
    private static String[] expression(SplittableRandom random, int depth) {
        int pick = depth == 0 ? 0 : random.nextInt(1, 10);
        switch (pick) {
            case 0, 1 -> {
                String column = random.nextBoolean() ? "x" : "y";
                return new String[] {column, column};
            }
            case 2, 3, 4 -> {
                String f = List.of("sin", "cos", "exp", "sqrt", "abs").get(random.nextInt(5));
                String[] a = expression(random, depth - 1);
                // exp of a column in [-1000, 1000) overflows: scaled down, it stays finite on most rows.
                String arg = f.equals("exp") ? a[0] + " / 500" : f.equals("sqrt") ? "abs(" + a[0] + ")" : a[0];
                String argShape = f.equals("exp") ? a[1] + " / ?" : f.equals("sqrt") ? "abs(" + a[1] + ")" : a[1];
                return new String[] {f + "(" + arg + ")", f + "(" + argShape + ")"};
            }
            default -> {
                String op = List.of("+", "-", "*", "/").get(random.nextInt(4));
                String[] a = expression(random, depth - 1);
                String[] b = random.nextInt(3) == 0
                        ? new String[] {String.format(Locale.ROOT, "%.3f", 0.5 + random.nextDouble() * 2), "?"}
                        : expression(random, depth - 1);
                if (random.nextBoolean()) {
                    String[] t = a;
                    a = b;
                    b = t;
                }
                return new String[] {"(" + a[0] + " " + op + " " + b[0] + ")", "(" + a[1] + " " + op + " " + b[1] + ")"
                };
            }
        }
    }

    Integer call() throws Exception {
        int rows = options.given("--rows") ? options.rows.getFirst() : DEFAULT_ROWS;
        if (options.given("--rows") && options.rows.size() != 1) {
            options.progress.println("error: --first-batch times one batch size: give one --rows value");
            return 2;
        }
        int count = options.shapes;
        if (count < 1) {
            options.progress.println("error: --shapes must be at least 1");
            return 2;
        }
        // A fresh seed by default: the shapes are then new to the driver's own caches too (PoCL keeps one on disk).
        long seed = options.given("--seed") ? options.seed : System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        Set<String> taken = new HashSet<>();
        List<String> warmup = shapes(random, WARMUP_SHAPES, taken);
        List<String> forCpu = shapes(random, count, taken),
                forAuto = shapes(random, count, taken),
                forFavoured = shapes(random, count, taken),
                forFavouredInBatch = shapes(random, count, taken),
                forOpenCl = shapes(random, count, taken);
        Path kernels = Files.createTempDirectory("quiver-first-batch-kernels-");
        int failures = 0;
        Measure cpu = new Measure("cpu", "placement CPU: the generated Vector API loop");
        Measure auto = new Measure("auto", "placement AUTO, background compilation on");
        Measure favoured = new Measure(
                "auto-opencl-favoured",
                "placement AUTO, OpenCL given the figures of a fast GPU: "
                        + "the batch runs where a program is ready while the OpenCL one builds in the background");
        Measure favouredInBatch = new Measure(
                "auto-opencl-favoured-build-in-batch",
                "the same with " + "backgroundCompilation(false): the batch waits for the OpenCL build");
        Measure cold = new Measure(
                "opencl-empty-cache", "placement OPENCL, empty kernel cache: built from source in the batch");
        Measure cached = new Measure(
                "opencl-cached", "placement OPENCL, a new Quiver on the same kernel cache: loaded from disk");
        String[] stats = {"", ""};
        try (RootAllocator allocator = new RootAllocator()) {
            try (VectorSchemaRoot batch = new DataGenerator(seed, 0.0)
                    .batches(XY, allocator, rows, rows)
                    .getFirst()) {
                boolean openCl;
                try (Quiver quiver = quiver(allocator, kernels)) {
                    openCl = !quiver.openClDevices().isEmpty();
                    options.describeMachine(
                            quiver,
                            options.format == BenchCommand.Format.table ? options.out : options.progress,
                            String.format(
                                    Locale.ROOT,
                                    "  first batch of %d never-seen expression shapes per measure, %d rows "
                                            + "of x, y float64 in [-1000, 1000) (seed %d, --seed to replay); a JVM warmed on %d other "
                                            + "shapes; kernel cache in a temporary directory",
                                    count,
                                    rows,
                                    seed,
                                    WARMUP_SHAPES));
                    options.progress.println(
                            "warming up on " + WARMUP_SHAPES + " other shapes (cpu, auto, opencl) ...");
                    warmUp(quiver, allocator, batch, warmup);
                    options.progress.println("cpu and auto ...");
                    for (int i = 0; i < count; i++) {
                        failures += firstBatch(quiver, allocator, batch, forCpu.get(i), Placement.CPU, cpu);
                        failures += firstBatch(quiver, allocator, batch, forAuto.get(i), Placement.AUTO, auto);
                    }
                }
                if (openCl) {
                    options.progress.println("auto, with OpenCL given the figures of a fast GPU ...");
                    failures += favouredInNewQuiver(
                            allocator, kernels, batch, warmup.getFirst(), forFavoured, favoured, true);
                    options.progress.println("the same, building in the batch ...");
                    failures += favouredInNewQuiver(
                            allocator, kernels, batch, warmup.getFirst(), forFavouredInBatch, favouredInBatch, false);
                    options.progress.println("opencl, empty kernel cache ...");
                    failures +=
                            openClInNewQuiver(allocator, kernels, batch, warmup.getFirst(), forOpenCl, cold, stats, 0);
                    options.progress.println("opencl, a new Quiver on the same kernel cache ...");
                    failures += openClInNewQuiver(
                            allocator, kernels, batch, warmup.getFirst(), forOpenCl, cached, stats, 1);
                } else {
                    options.progress.println("note: no OpenCL device, so only cpu and auto are measured");
                }
            }
            if (allocator.getAllocatedMemory() != 0) {
                options.progress.println(
                        "error: " + allocator.getAllocatedMemory() + " bytes still allocated after the benchmark");
                failures++;
            }
        } finally {
            deleteRecursively(kernels);
        }
        report(List.of(cpu, auto, favoured, favouredInBatch, cold, cached), rows, seed, stats[0], stats[1]);
        return failures == 0 ? 0 : 1;
    }

    /**
     * A new Quiver on {@code kernels}, warmed on one other shape, then the first batch of each of
     * {@code shapes} under placement OPENCL; its program counts go to {@code stats[index]}. Closing
     * it stores the binaries it built.
     */
    private int openClInNewQuiver(
            BufferAllocator allocator,
            Path kernels,
            VectorSchemaRoot batch,
            String warmup,
            List<String> shapes,
            Measure into,
            String[] stats,
            int index) {
        int failures = 0;
        try (Quiver quiver = quiver(allocator, kernels)) {
            warmUp(quiver, allocator, batch, List.of(warmup));
            for (String e : shapes) {
                failures += firstBatch(quiver, allocator, batch, e, Placement.OPENCL, into);
            }
            stats[index] = stats(quiver);
        }
        return failures;
    }

    /**
     * A new Quiver on {@code kernels} whose OpenCL devices have the figures of a device no CPU
     * beats (a fast GPU), building in the background or not, warmed on one other shape; then the
     * first batch of each of {@code shapes} under AUTO.
     */
    private int favouredInNewQuiver(
            BufferAllocator allocator,
            Path kernels,
            VectorSchemaRoot batch,
            String warmup,
            List<String> shapes,
            Measure into,
            boolean background) {
        int failures = 0;
        Quiver.Builder b = builder(allocator, kernels).backgroundCompilation(background);
        for (OpenClDevice d : OpenClRuntime.discover().devices()) {
            b.deviceFigures("opencl:" + d.name(), FAST_GPU);
        }
        try (Quiver quiver = b.build()) {
            warmUp(quiver, allocator, batch, List.of(warmup));
            for (String e : shapes) {
                failures += firstBatch(quiver, allocator, batch, e, Placement.AUTO, into);
            }
        }
        return failures;
    }

    /** A microsecond a batch, host memory read in place, no work per row to speak of: AUTO always prefers it. */
    private static final DeviceFigures FAST_GPU = new DeviceFigures(
            "bench: a fast GPU", 1_000, 1e-5, 1e-5, 0, 1e-5, 1e-5, 1e-5, 1, 1, 0, 0, DeviceFigures.Source.GIVEN);

    private Quiver quiver(BufferAllocator allocator, Path kernels) {
        return builder(allocator, kernels).build();
    }

    private static Quiver.Builder builder(BufferAllocator allocator, Path kernels) {
        return Quiver.builder()
                .allocator(allocator)
                .functions(CliFunctions.registry())
                .kernelCacheDirectory(kernels);
    }

    /** Each warm-up shape: 10 batches on the cpu, 10 under AUTO (calibrating the devices first), 3 on OpenCL. */
    private void warmUp(Quiver quiver, BufferAllocator allocator, VectorSchemaRoot batch, List<String> shapes) {
        for (String text : shapes) {
            CompiledExpression e = quiver.compile(XY, Expr.parse(text));
            for (int i = 0; i < 10; i++) {
                e.evaluate(batch, Placement.CPU, allocator).close();
                e.evaluate(batch, Placement.AUTO, allocator).close();
            }
            if (!quiver.openClDevices().isEmpty()) {
                for (int i = 0; i < 3; i++) {
                    e.evaluate(batch, Placement.OPENCL, allocator).close();
                }
            }
            awaitBackgroundBuilds(quiver, e);
        }
    }

    /**
     * Times the first and the second batch of {@code text} (compiled now) under {@code placement}
     * and checks the first: bit for bit against the second when both ran on one OpenCL device
     * (the program built or loaded for the first batch is the one the second uses), bit for bit
     * against the same shape's first batch under an empty kernel cache when this one loaded it
     * ({@link #builtResults}), and against the cpu device (within 1 ulp, or 1e-9 relative where
     * math functions compute: beyond that only noted, as composed functions amplify the few ulps
     * by which devices' math functions differ). Then waits for any build AUTO started, so that it
     * does not run during the next measure. Returns 1 on a wrong result.
     */
    private int firstBatch(
            Quiver quiver,
            BufferAllocator allocator,
            VectorSchemaRoot batch,
            String text,
            Placement placement,
            Measure into) {
        CompiledExpression e = quiver.compile(XY, Expr.parse(text));
        long t0 = System.nanoTime();
        FieldVector first = e.evaluate(batch, placement, allocator);
        long t1 = System.nanoTime();
        try (first) {
            String where = ranOn(e);
            long t2 = System.nanoTime();
            try (FieldVector second = e.evaluate(batch, placement, allocator)) {
                long t3 = System.nanoTime();
                into.firstMs().add((t1 - t0) / 1e6);
                into.secondMs().add((t3 - t2) / 1e6);
                into.ranOn().add(where);
                options.progress.printf(
                        Locale.ROOT,
                        "  %-36s %8.2f ms first, %8.2f ms second, on %s: %s%n",
                        into.name(),
                        (t1 - t0) / 1e6,
                        (t3 - t2) / 1e6,
                        where,
                        text);
                return check(e, batch, allocator, text, into, first, second, where);
            }
        } finally {
            awaitBackgroundBuilds(quiver, e);
        }
    }

    /** The first batch's result per expression under an empty kernel cache, to compare the cache hit's with. */
    private final Map<String, String> builtResults = new HashMap<>();

    private int check(
            CompiledExpression e,
            VectorSchemaRoot batch,
            BufferAllocator allocator,
            String text,
            Measure into,
            FieldVector first,
            FieldVector second,
            String where) {
        String bits = bits(first);
        if (where.startsWith("opencl:") && !where.contains(", ") && !bits.equals(bits(second))) {
            options.progress.println(
                    "  ERROR " + into.name() + ": the first and the second batch on one device differ");
            return 1;
        }
        if (into.name().equals("opencl-empty-cache")) {
            builtResults.put(text, bits);
        } else if (into.name().equals("opencl-cached") && !bits.equals(builtResults.get(text))) {
            options.progress.println(
                    "  ERROR " + into.name() + ": the program loaded from the kernel cache computes other "
                            + "bits than the one built from source");
            return 1;
        }
        if (where.startsWith("cpu (placement CPU)")) {
            return 0;
        }
        try (FieldVector want = e.evaluate(batch, Placement.CPU, allocator)) {
            boolean inexact = ExpressionBench.hasInexactMath(e);
            String diff = ExpressionBench.firstDifference(want, first, inexact);
            if (diff != null && !inexact) {
                options.progress.println("  ERROR " + into.name() + " disagrees with the cpu device: " + diff);
                return 1;
            }
            if (diff != null) {
                options.progress.println(
                        "  note: " + into.name() + " differs from the cpu device beyond 1e-9 relative (" + diff
                                + "): the devices' math functions differ by a few ulp, which this expression amplifies");
            }
        }
        return 0;
    }

    /** A digest of a float64 result's raw bits and nulls: equal digests are bit-identical results. */
    private static String bits(FieldVector v) {
        Float8Vector f = (Float8Vector) v;
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
        ByteBuffer row = ByteBuffer.allocate(1 + Long.BYTES);
        for (int i = 0; i < f.getValueCount(); i++) {
            boolean isNull = f.isNull(i);
            row.clear();
            row.put((byte) (isNull ? 1 : 0)).putLong(isNull ? 0 : Double.doubleToRawLongBits(f.get(i)));
            sha.update(row.array());
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /** The device the expression's first batch ran on, with AUTO's reason: {@code cpu (auto: ...)}. */
    private static String ranOn(CompiledExpression e) {
        List<String> parts = new ArrayList<>();
        for (Map.Entry<String, ExpressionMetrics.DeviceTotals> d :
                e.metrics().byDevice().entrySet()) {
            parts.add(d.getKey() + " (" + d.getValue().lastReason().replaceAll(", estimated.*", "") + ")");
        }
        return String.join(", ", parts);
    }

    /** Waits (up to 2 minutes) for the builds AUTO started for {@code e}: asking again starts nothing, it returns them. */
    private static void awaitBackgroundBuilds(Quiver quiver, CompiledExpression e) {
        boolean building = e.metrics().byDevice().values().stream()
                .anyMatch(t -> t.lastReason() != null && t.lastReason().startsWith(AUTO_BUILDING));
        if (!building) {
            return;
        }
        for (Device d : quiver.openClDevices()) {
            for (KernelProgram p : e.programs()) {
                if (d.backend().unsupportedReason(p).isEmpty()) {
                    try {
                        d.backend().prepareAsync(p).get(2, TimeUnit.MINUTES);
                    } catch (Exception ignored) {
                        // a failed build: AUTO retries it in a batch; nothing to wait for
                    }
                }
            }
        }
    }

    private static String stats(Quiver quiver) {
        List<String> parts = new ArrayList<>();
        for (Device d : quiver.openClDevices()) {
            for (OpenClBackend b :
                    d.backend().unwrap(OpenClBackend.class).stream().toList()) {
                OpenClBackend.ProgramStats s = b.programStats();
                parts.add(String.format(
                        Locale.ROOT,
                        "%s: %d built from source, %d loaded from the kernel cache, %d rejected",
                        d.name(),
                        s.built(),
                        s.loaded(),
                        s.rejected()));
            }
        }
        return String.join("; ", parts);
    }

    private void report(List<Measure> measures, int rows, long seed, String builtStats, String loadedStats)
            throws IOException {
        Map<String, Measure> byName = new LinkedHashMap<>();
        for (Measure m : measures) {
            if (!m.firstMs().isEmpty()) {
                byName.put(m.name(), m);
            }
        }
        if (options.format == BenchCommand.Format.json) {
            ObjectMapper json = new ObjectMapper();
            for (Measure m : byName.values()) {
                Map<String, Object> line = new LinkedHashMap<>();
                line.put("measure", m.name());
                line.put("rows", rows);
                line.put("shapes", m.firstMs().size());
                line.put("seed", seed);
                line.put("firstBatchMedianMs", m.medianFirst());
                line.put("secondBatchMedianMs", m.medianSecond());
                line.put("firstBatchMs", m.firstMs());
                line.put("ranOn", m.ranOn());
                options.out.println(json.writeValueAsString(line));
            }
            return;
        }
        options.out.printf("%-36s %10s %10s %10s %10s  %s%n", "measure", "first ms", "min", "max", "second ms", "what");
        for (Measure m : byName.values()) {
            options.out.printf(
                    Locale.ROOT,
                    "%-36s %10.2f %10.2f %10.2f %10.2f  %s%n",
                    m.name(),
                    m.medianFirst(),
                    m.firstMs().stream().min(Comparator.naturalOrder()).orElseThrow(),
                    m.firstMs().stream().max(Comparator.naturalOrder()).orElseThrow(),
                    m.medianSecond(),
                    m.description());
        }
        Measure auto = byName.get("auto"),
                cold = byName.get("opencl-empty-cache"),
                cached = byName.get("opencl-cached"),
                favoured = byName.get("auto-opencl-favoured"),
                inBatch = byName.get("auto-opencl-favoured-build-in-batch");
        if (auto != null) {
            Map<String, Long> where = new LinkedHashMap<>();
            auto.ranOn().forEach(w -> where.merge(w, 1L, Long::sum));
            options.out.println("auto's first batches ran on: " + where);
        }
        if (favoured != null && inBatch != null) {
            options.out.printf(
                    Locale.ROOT,
                    "auto, OpenCL favoured: first batch %.2f ms building in the background, %.2f ms "
                            + "building in the batch (%.0fx)%n",
                    favoured.medianFirst(),
                    inBatch.medianFirst(),
                    inBatch.medianFirst() / favoured.medianFirst());
        }
        if (cold != null && cached != null) {
            options.out.printf(
                    Locale.ROOT,
                    "opencl first batch: empty cache / cache hit = %.0fx; empty cache / auto = %.0fx%n",
                    cold.medianFirst() / cached.medianFirst(),
                    cold.medianFirst() / auto.medianFirst());
            options.out.println("programs, empty cache: " + builtStats);
            options.out.println("programs, cache hit:   " + loadedStats);
        }
        options.out.println(
                "first ms and second ms are medians over the shapes; second: the same expression's next batch.");
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
