package dev.quiver.bench;

import dev.quiver.CompiledExpression;
import dev.quiver.Device;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.cli.CliFunctions;
import dev.quiver.rowfn.ir.KernelProgram;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * A RowFn against the code a person would write by hand: {@code haversine(lat1, lon1, lat2, lon2)},
 * the guide's RowFn (docs/rowfn.md, {@link CliFunctions#haversine()}), over 16M rows of four
 * Float64 columns in 256 batches of 64K rows: latitudes uniform in [-90, 90), longitudes in
 * [-180, 180), a fixed seed, <b>no nulls</b>. One operation evaluates every batch and closes each
 * result. In the same run:
 * <ul>
 * <li>{@code quiver}: the RowFn registered in a Quiver, compiled from {@link Haversine#SQL} and
 *     evaluated with {@code CompiledExpression.evaluate(batch, Placement.CPU, allocator)}, the
 *     fused Vector API loop on the calling thread (OpenCL is off in this fork);</li>
 * <li>{@code vectorApi}: {@link Haversine#vectorApi}, the hand-written Vector API loop;</li>
 * <li>{@code boxedUdf}: {@link Haversine#boxedUdf}, one boxed {@code Function<Object[], Object>}
 *     call per row. The JIT is told not to inline the UDF ({@code -XX:CompileCommand=dontinline}),
 *     as it could not where one call site serves every UDF, so the boxes are really allocated;</li>
 * <li>{@code opencl}: the same expression with {@link Placement#OPENCL} (PoCL here). Its setup
 *     fails with "OpenCL not available" when no OpenCL device can run it, and
 *     {@link BenchReport} reports it so.</li>
 * </ul>
 * The setup checks, on the first batch, that quiver, boxedUdf (and opencl in its fork) agree with
 * vectorApi within {@value #MAX_ERROR} ulps, widened near antipodal points by the formula's
 * condition ({@link Haversine#errorUnits}), and prints the largest differences. It runs before
 * the warm-up, when the Vector API still computes SIN, COS and ASIN with {@link Math} lane by
 * lane; once C2 has compiled the loops they use the JDK's vector math library, which differs
 * from {@link Math} by up to an ulp or so in each function (1.3 units over the 16M rows, 53 plain
 * ulps of the result; PoCL: 1.6 units). The project's targets ({@link BenchReport}): quiver at least 0.85x the speed of
 * vectorApi, and at least 20x that of boxedUdf.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {
            "-Xms2g",
            "-Xmx2g",
            "-XX:CompileCommand=quiet",
            "-XX:CompileCommand=dontinline,dev.quiver.bench.Haversine$BoxedUdf::apply"
        })
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class HaversineBenchmark {
    public static final long ROWS = 16L << 20;
    public static final int BATCH_ROWS = 64 << 10;
    public static final long SEED = 20240601L;
    /** How far each implementation may be from vectorApi, in {@link Haversine#errorUnits}. */
    public static final double MAX_ERROR = 4;

    private BufferAllocator allocator;
    private Quiver quiver;
    private CompiledExpression compiled;
    private Quiver oneThread;
    private CompiledExpression compiledOneThread;
    private List<VectorSchemaRoot> batches = List.of();
    private final Function<Object[], Object> udf = new Haversine.BoxedUdf();

    /**
     * Generates the batches, compiles the expression, and checks the implementations against
     * each other on the first batch. Only the {@code opencl} fork looks for OpenCL devices.
     */
    @Setup(Level.Trial)
    public void load(BenchmarkParams params) {
        boolean openCl = params.getBenchmark().endsWith(".opencl");
        allocator = new RootAllocator();
        try {
            quiver = Quiver.builder().allocator(allocator).openCl(openCl).build();
            quiver.functions().register(CliFunctions.haversine());
            compiled = quiver.compile(Haversine.schema(), Haversine.SQL);
            oneThread = Quiver.builder()
                    .allocator(allocator)
                    .openCl(false)
                    .cpuThreads(1)
                    .build();
            oneThread.functions().register(CliFunctions.haversine());
            compiledOneThread = oneThread.compile(Haversine.schema(), Haversine.SQL);
            if (openCl) {
                Optional<String> why = whyNoOpenCl(quiver, compiled);
                if (why.isPresent()) {
                    throw new IllegalStateException("OpenCL not available: " + why.get());
                }
            }
            batches = Haversine.generate(allocator, SEED, ROWS, BATCH_ROWS);
            System.out.println(check(compiled, batches.getFirst(), allocator, openCl));
        } catch (RuntimeException | Error e) {
            free();
            throw e;
        }
    }

    /** Why no OpenCL device can run every kernel of {@code compiled}, or empty when one can. */
    static Optional<String> whyNoOpenCl(Quiver quiver, CompiledExpression compiled) {
        if (quiver.openClDevices().isEmpty()) {
            return Optional.of(quiver.openClStatus());
        }
        List<String> why = new ArrayList<>();
        for (Device d : quiver.openClDevices()) {
            Optional<String> reason = Optional.empty();
            for (KernelProgram p : compiled.programs()) {
                reason = d.backend().unsupportedReason(p);
                if (reason.isPresent()) {
                    break;
                }
            }
            if (reason.isEmpty()) {
                return Optional.empty();
            }
            why.add(d.name() + ": " + reason.get());
        }
        return Optional.of(String.join("; ", why));
    }

    /**
     * Evaluates {@code batch} every way and compares the results with vectorApi's; throws
     * {@link IllegalStateException} when one is further than allowed. Returns the differences found.
     */
    static String check(
            CompiledExpression compiled, VectorSchemaRoot batch, BufferAllocator allocator, boolean openCl) {
        StringBuilder report = new StringBuilder("haversine, first batch (" + batch.getRowCount()
                + " rows), largest difference from vectorApi in condition-widened ulps:");
        try (Float8Vector expected = Haversine.vectorApi(batch, allocator)) {
            List<String> failures = new ArrayList<>();
            compare("quiver", expected, () -> compiled.evaluate(batch, Placement.CPU, allocator), report, failures);
            compare(
                    "boxedUdf",
                    expected,
                    () -> Haversine.boxedUdf(batch, allocator, new Haversine.BoxedUdf()),
                    report,
                    failures);
            if (openCl) {
                compare(
                        "opencl",
                        expected,
                        () -> compiled.evaluate(batch, Placement.OPENCL, allocator),
                        report,
                        failures);
            }
            if (!failures.isEmpty()) {
                throw new IllegalStateException(
                        "the implementations disagree on the first batch: " + String.join("; ", failures));
            }
        }
        return report.toString();
    }

    private static void compare(
            String name,
            Float8Vector expected,
            Supplier<FieldVector> run,
            StringBuilder report,
            List<String> failures) {
        try (FieldVector actual = run.get()) {
            double error = Haversine.maxError(expected, actual);
            String text = Double.isInfinite(error)
                    ? "(nulls, NaN or length differ)"
                    : String.format(Locale.ROOT, "%.2f", error);
            report.append(' ').append(name).append(' ').append(text);
            if (!(error <= MAX_ERROR)) {
                failures.add(name + " is " + text + " from vectorApi (at most " + MAX_ERROR + " allowed)");
            }
        }
    }

    @TearDown(Level.Trial)
    public void free() {
        try {
            batches.forEach(VectorSchemaRoot::close);
            batches = List.of();
            if (quiver != null) {
                quiver.close();
                quiver = null;
            }
            if (oneThread != null) {
                oneThread.close();
                oneThread = null;
            }
        } finally {
            if (allocator != null) {
                long leaked = allocator.getAllocatedMemory();
                allocator.close();
                allocator = null;
                if (leaked != 0) {
                    throw new IllegalStateException(leaked + " bytes still allocated after the haversine benchmark");
                }
            }
        }
    }

    @Benchmark
    public long quiver() {
        long rows = 0;
        for (VectorSchemaRoot batch : batches) {
            try (FieldVector v = compiled.evaluate(batch, Placement.CPU, allocator)) {
                rows += v.getValueCount();
            }
        }
        return rows;
    }

    /** The same, with the CPU device kept on the calling thread ({@code Quiver.builder().cpuThreads(1)}). */
    @Benchmark
    public long quiverOneThread() {
        long rows = 0;
        for (VectorSchemaRoot batch : batches) {
            try (FieldVector v = compiledOneThread.evaluate(batch, Placement.CPU, allocator)) {
                rows += v.getValueCount();
            }
        }
        return rows;
    }

    @Benchmark
    public long vectorApi() {
        long rows = 0;
        for (VectorSchemaRoot batch : batches) {
            try (FieldVector v = Haversine.vectorApi(batch, allocator)) {
                rows += v.getValueCount();
            }
        }
        return rows;
    }

    @Benchmark
    public long boxedUdf() {
        long rows = 0;
        for (VectorSchemaRoot batch : batches) {
            try (FieldVector v = Haversine.boxedUdf(batch, allocator, udf)) {
                rows += v.getValueCount();
            }
        }
        return rows;
    }

    @Benchmark
    public long opencl() {
        long rows = 0;
        for (VectorSchemaRoot batch : batches) {
            try (FieldVector v = compiled.evaluate(batch, Placement.OPENCL, allocator)) {
                rows += v.getValueCount();
            }
        }
        return rows;
    }
}
