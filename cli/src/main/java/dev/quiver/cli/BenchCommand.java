package dev.quiver.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.CompiledExpression;
import dev.quiver.Device;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.expr.Expr;
import dev.quiver.kernels.ArithmeticMode;
import dev.quiver.opencl.TransferMode;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.function.Function;
import jdk.incubator.vector.DoubleVector;
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
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/**
 * {@code quiver bench}: the built-in workload on every device, next to two baselines over the
 * same Arrow memory, as a table or JSON lines.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = {
            "Benchmark an expression of your own (--expr with --schema) over seeded generated data, or, without "
                    + "--expr, the built-in workload.",
            "With --expr the baseline is Quiver's own cpu device: speedupVsRowLoop (the 'vs cpu' column) is the cpu "
                    + "median divided by this device's median, and every device's result is checked against the cpu "
                    + "device's (values and nulls; floats within 1 ulp, or 1e-9 relative where the expression computes an "
                    + "inexact math function such as sin or haversine) before it is timed.",
            "Without --expr: run the built-in workloads (a*b+c and sqrt(x*x+y*y) over generated float64 columns, "
                    + "and haversine(lat1, lon1, lat2, lon2), the guide's RowFn, over latitudes and longitudes; "
                    + "without and with 10%% nulls) on every device, next to a per-row Float8Vector get/set loop "
                    + "and a hand-written Vector API loop over the same memory.",
            "Each figure is the median over --iterations runs of all batches, after at least --warmup runs and --warmup-ms of warm-up "
                    + "(a run slower than about --budget-ms / 7 gets fewer, at least 1 warm-up run and 3 timed runs). "
                    + "GB/s counts bytes read and written (values and validity). Every device's result is "
                    + "checked against the row loop before it is timed (the same bits; haversine within 4 ulps, widened near "
                    + "antipodal points).",
            "The command line registers haversine(lat1, lon1, lat2, lon2) (docs/rowfn.md) in every command, so --expr, "
                    + "explain and eval can call it too."
        })
final class BenchCommand implements Callable<Integer> {

    enum Format {
        table,
        json
    }

    @Option(
            names = "--rows",
            split = ",",
            converter = RowCount.class,
            paramLabel = "N",
            description = "Total rows per workload (suffixes K, M). Default: 1M,16M.")
    List<Integer> rows = List.of(1 << 20, 16 << 20);

    @Option(
            names = {"--batch-rows", "--batch"},
            split = ",",
            converter = RowCount.class,
            paramLabel = "N",
            description = "Rows per batch. Default: 64K, 1M and all rows (those not above --rows).")
    List<Integer> batchRows;

    @Option(
            names = "--nulls",
            split = ",",
            paramLabel = "FRACTION",
            description = "Null fractions to run (each column). Default: 0,0.1.")
    List<Double> nulls = List.of(0.0, 0.1);

    @Option(names = "--iterations", description = "Timed runs per measurement. Default: ${DEFAULT-VALUE}.")
    int iterations = 7;

    @Option(names = "--warmup", description = "Untimed runs before timing, at least. Default: ${DEFAULT-VALUE}.")
    int warmup = 3;

    @Option(
            names = "--warmup-ms",
            description = "Keep warming up until this much time has passed, so the JIT has "
                    + "compiled every loop before timing starts, however small the batches. Default: ${DEFAULT-VALUE}.")
    int warmupMs = 250;

    @Option(
            names = "--budget-ms",
            description = "Cut slow measurements short: the warm-up stops once it has taken half of "
                    + "this (after at least 1 run), the timing once it has taken this (after at least 3 timed runs); 0: no limit. "
                    + "Only runs slower than about a seventh of it are affected, such as the row loop and OpenCL on haversine. "
                    + "Default: ${DEFAULT-VALUE}.")
    int budgetMs = 2000;

    @Option(names = "--format", description = "table or json (one object per line). Default: ${DEFAULT-VALUE}.")
    Format format = Format.table;

    @Option(
            names = "--workload",
            split = ",",
            description = "Workloads to run, by name. Default: all (a*b+c, sqrt(x*x+y*y), " + "haversine).")
    List<String> workloads;

    @Option(names = "--seed", description = "Seed of the generated data. Default: ${DEFAULT-VALUE}.")
    long seed = 42;

    @Option(
            names = "--expr",
            paramLabel = "EXPR",
            description = "Benchmark this SQL expression over generated columns of "
                    + "--schema instead of the built-in workload; the baseline is then Quiver's cpu device.")
    String expression;

    @Option(
            names = "--arithmetic",
            converter = ArithmeticOption.class,
            paramLabel = "checked|wrapping",
            description = ArithmeticOption.DESCRIPTION)
    ArithmeticMode arithmetic = ArithmeticMode.CHECKED;

    @Option(
            names = "--schema",
            converter = SchemaSpec.class,
            paramLabel = "NAME:TYPE,...",
            description = "Columns to generate for --expr, e.g. x:float64,y:int32,name:utf8,d:decimal(10,2),"
                    + "t:timestamp[ms, UTC]. Default: none.")
    Schema schema = new Schema(List.of());

    enum DeviceChoice {
        cpu,
        opencl,
        auto
    }

    @Option(
            names = "--device",
            paramLabel = "cpu|opencl|auto",
            description = "Devices to time: cpu, opencl (every OpenCL "
                    + "device) or auto (Quiver's automatic placement, reported as 'auto'). The baselines always run. "
                    + "Default: every device.")
    DeviceChoice device;

    @Option(
            names = "--placement",
            description =
                    "Instead of the workloads: time the placement policies cpu, opencl and "
                            + "auto side by side on a suite of kernel segments (cheap, predicate, transcendental, heavy) at batch sizes "
                            + "from 1K to 4M rows, and report auto's regret against the faster fixed policy per case (--workload picks "
                            + "cases). Its defaults differ: --rows 4M, --batch-rows 1K,4K,16K,64K,256K,1M,4M, --iterations 7, --nulls 0.")
    boolean placement;

    @Option(
            names = "--overlap",
            description = "Instead of the workloads: how much of the copy path's transfer time "
                    + "overlapped chunks hide, for the transcendental segment " + OverlapBench.EXPRESSION
                    + " on the first OpenCL "
                    + "device: copy with overlap, copy serial and (on host-unified memory) zero copy as the kernel alone, medians "
                    + "of --iterations round-robin runs. Default rows: 16M (--rows takes the first value).")
    boolean overlap;

    @Option(
            names = "--transfer",
            converter = TransferOption.class,
            paramLabel = TransferOption.LABEL,
            description =
                    TransferOption.DESCRIPTION + " With --placement, where the default runs the OpenCL device in its "
                            + "own mode and in the other one (opencl[zero-copy] and opencl[copy]), only this mode.")
    TransferMode transfer;

    @Option(
            names = "--queries",
            description = "Instead of the workloads: whole filter+project queries over generated tables, the scalar "
                    + "parts of TPC-H Q1, Q6, Q12, Q14 and Q19 over a lineitem-like table (strings plain and "
                    + "dictionary-encoded, '-dict'), a string-heavy query and a taxi query with the haversine RowFn, each "
                    + "timed over the same Arrow batches on Quiver (cpu on 1 thread, cpu, auto), a hand-written per-row Java "
                    + "loop and DuckDB (embedded, 1 thread, Arrow in and out through the C Data interface), every result "
                    + "checked against the loop's first. --workload picks queries, --chart FILE also writes an HTML chart. "
                    + "Its defaults differ: --rows 6M, --batch-rows 64K.")
    boolean queries;

    @Option(
            names = "--no-opencl",
            description = "With --placement: leave OpenCL out, as on a machine without a device "
                    + "(opencl is then reported as absent).")
    boolean noOpenCl;

    @Option(
            names = "--chart",
            paramLabel = "FILE",
            description = "With --placement or --queries: after the suite, also write FILE, one "
                    + "self-contained HTML page (inline SVG, no scripts or network) under the machine, the devices' figures, "
                    + "the totals and the command that reproduces the run: for --placement a chart per case of ms per pass "
                    + "against batch rows for cpu, opencl and auto; for --queries a bar chart per query of each engine's "
                    + "median, and the geometric-mean speedups.")
    String chart; // as given: Path.of would drop a trailing '/', which OutputTarget refuses

    @Option(
            names = "--first-batch",
            description = "Instead of the workloads: the latency of the first batch of a "
                    + "never-seen expression, in a JVM warmed on other expressions, for --shapes generated expression shapes (random "
                    + "nestings of sin, cos, exp, sqrt, abs and arithmetic over x and y): placement CPU, AUTO (OpenCL programs built "
                    + "in the background), OPENCL with an empty kernel cache (built in the batch) and OPENCL in a new Quiver on the "
                    + "same kernel cache (loaded from disk), each next to its second batch. The kernel cache is a temporary "
                    + "directory. Its defaults differ: --rows 64K (one batch), --seed a fresh one (printed).")
    boolean firstBatch;

    @Option(
            names = "--shapes",
            paramLabel = "N",
            description = "With --first-batch: expression shapes per measure. " + "Default: "
                    + FirstBatchBench.DEFAULT_SHAPES + ".")
    int shapes = FirstBatchBench.DEFAULT_SHAPES;

    @Option(
            names = "--async",
            description = "Instead of the workloads: what batching and concurrency buy for a remote "
                    + "function. Starts a loopback HTTP score service in-process (a JSON array of strings in, their lengths out, "
                    + "--latency-ms per request) and times the pipeline project(\"id\", \"score(text) AS s\") calling it through an "
                    + "HttpClient-based async function, in each of --async-configs, against one call per row. Its defaults differ: "
                    + "--rows 100000, --iterations 5, --warmup 1.")
    boolean async;

    @Option(
            names = "--latency-ms",
            paramLabel = "MS",
            description = "With --async: the service's latency per request, in ms "
                    + "(a waiting request holds no platform thread). Default: 2.")
    Double latencyMs;

    @Option(
            names = "--per-row-rows",
            paramLabel = "N",
            description = "With --async: configs of 1 row per call run on at most "
                    + "this many rows, and 1x1's time per row is scaled to --rows for the speedups. Default: 2000.")
    Integer perRowRows;

    @Option(
            names = "--async-configs",
            split = ",",
            converter = AsyncBench.ConfigConverter.class,
            paramLabel = "ROWSxCALLS",
            description =
                    "With --async: the configs to time, rows per call x calls in flight at most ('batch' for the whole "
                            + "8192-row batch per call). Default: " + AsyncBench.DEFAULT_CONFIGS + ".")
    List<AsyncBench.Config> asyncConfigs;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Whether the command line gave {@code option} (so a mode with other defaults keeps the user's value). */
    boolean given(String option) {
        return spec != null
                && spec.commandLine().getParseResult() != null
                && spec.commandLine().getParseResult().hasMatchedOption(option);
    }

    static final class RowCount implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String s) {
            String t = s.trim().toUpperCase(Locale.ROOT);
            long mult = t.endsWith("K") ? 1 << 10 : t.endsWith("M") ? 1 << 20 : 1;
            String digits = mult == 1 ? t : t.substring(0, t.length() - 1);
            long v = Math.round(Double.parseDouble(digits) * mult);
            if (v < 1 || v > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("row count must be between 1 and " + Integer.MAX_VALUE + ": " + s);
            }
            return (int) v;
        }
    }

    /**
     * The first numeric option out of its range, as the message to print, or null when all are in range;
     * checked before any mode starts, whatever its defaults ({@code --rows} and {@code --batch-rows} are
     * checked by their converter, {@code --async-configs} by its own).
     */
    String badNumber() {
        if (iterations < 1) {
            return "--iterations must be at least 1, not " + iterations;
        }
        if (warmup < 0) {
            return "--warmup must be at least 0, not " + warmup;
        }
        if (warmupMs < 0) {
            return "--warmup-ms must be at least 0, not " + warmupMs;
        }
        if (budgetMs < 0) {
            return "--budget-ms must be at least 0 (0: no limit), not " + budgetMs;
        }
        if (shapes < 1) {
            return "--shapes must be at least 1, not " + shapes;
        }
        for (double f : nulls) {
            if (!(f >= 0 && f <= 1)) {
                return "--nulls must be between 0 and 1: " + f;
            }
        }
        if (latencyMs != null && !(latencyMs >= 0 && latencyMs <= 60_000)) {
            return "--latency-ms must be between 0 and 60000: " + latencyMs;
        }
        if (perRowRows != null && perRowRows < 1) {
            return "--per-row-rows must be at least 1, not " + perRowRows;
        }
        return null;
    }

    /** One measured line. */
    record Result(
            String workload,
            int rows,
            int batchRows,
            String device,
            double medianMs,
            double gbPerSec,
            double speedupVsRowLoop) {}

    final PrintStream out = System.out;
    final PrintStream progress = System.err;

    @Override
    public Integer call() throws Exception {
        String badNumber = badNumber();
        if (badNumber != null) {
            progress.println("error: " + badNumber);
            return 2;
        }
        if (async && transfer != null) {
            progress.println("error: --transfer chooses how OpenCL devices get memory; --async runs without OpenCL");
            return 2;
        }
        if (async) {
            return new AsyncBench(this).call();
        }
        if (latencyMs != null || perRowRows != null || asyncConfigs != null) {
            progress.println(
                    "error: --latency-ms, --per-row-rows and --async-configs go with --async; give --async too");
            return 2;
        }
        if (queries) {
            if (placement || overlap || firstBatch) {
                progress.println(
                        "error: --queries is a mode of its own: leave out --placement, --overlap and --first-batch");
                return 2;
            }
            return new QueryBenchCommand(this).call();
        }
        if (firstBatch) {
            return new FirstBatchBench(this).call();
        }
        if (given("--shapes")) {
            progress.println("error: --shapes goes with --first-batch");
            return 2;
        }
        if (placement) {
            return new PlacementBench(this).call();
        }
        if (overlap) {
            return new OverlapBench(this).call();
        }
        if (chart != null) {
            progress.println("error: --chart draws the results of --placement or --queries; give one of them too");
            return 2;
        }
        if (noOpenCl) {
            progress.println("error: --no-opencl goes with --placement");
            return 2;
        }
        if (expression != null) {
            return new ExpressionBench(this).call();
        }
        if (!schema.getFields().isEmpty()) {
            progress.println("error: --schema describes the columns of --expr; give --expr too");
            return 2;
        }
        List<Workload> chosen = Workload.ALL.stream()
                .filter(w -> workloads == null || workloads.contains(w.name()))
                .toList();
        if (chosen.isEmpty()) {
            progress.println("no workload matches " + workloads + "; known: " + Workload.names());
            return 2;
        }
        int failures = 0;
        ObjectMapper json = new ObjectMapper();
        try (RootAllocator allocator = new RootAllocator();
                Quiver quiver = TransferOption.apply(
                                Quiver.builder().allocator(allocator).functions(CliFunctions.registry()), transfer)
                        .build()) {
            describeMachine(
                    quiver,
                    format == Format.table ? out : progress,
                    "  baselines: 'row-loop' = Float8Vector get/set per row; 'vector-api-loop' = hand-written Vector API loop\n"
                            + "  data: "
                            + String.join(
                                    "; ",
                                    chosen.stream()
                                            .map(BenchCommand::describeData)
                                            .toList()));
            if (format == Format.table) {
                out.printf(
                        "%-30s %10s %10s %-42s %10s %8s %10s%n",
                        "workload", "rows", "batchRows", "device", "median ms", "GB/s", "vs rows");
            }
            List<int[]> sizes = sizes();
            int total = chosen.size() * nulls.size() * sizes.size(), step = 0;
            for (Workload w : chosen) {
                for (double nullFraction : nulls) {
                    for (int[] size : sizes) {
                        step++;
                        String name = w.name()
                                + (nullFraction > 0
                                        ? String.format(Locale.ROOT, " [%.0f%% nulls]", nullFraction * 100)
                                        : "");
                        progress.printf("[%d/%d] %s, %d rows in batches of %d%n", step, total, name, size[0], size[1]);
                        List<Result> results = new ArrayList<>();
                        failures += measure(quiver, allocator, w, name, nullFraction, size[0], size[1], results);
                        for (Result r : results) {
                            printResult(json, r);
                        }
                        out.flush();
                    }
                }
            }
            if (allocator.getAllocatedMemory() != 0) {
                progress.println(
                        "error: " + allocator.getAllocatedMemory() + " bytes still allocated after the benchmark");
                failures++;
            }
        }
        return failures == 0 ? 0 : 1;
    }

    /** What a workload's columns hold, e.g. {@code haversine: lat1 in [-90, 90), lon1 in [-180, 180), ...}. */
    private static String describeData(Workload w) {
        List<String> parts = new ArrayList<>();
        for (int c = 0; c < w.columns().size(); c++) {
            parts.add(w.columns().get(c) + " in " + w.ranges().get(c));
        }
        return w.name() + ": " + String.join(", ", parts);
    }

    void printResult(ObjectMapper json, Result r) throws IOException {
        if (format == Format.json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("workload", r.workload());
            m.put("rows", r.rows());
            m.put("batchRows", r.batchRows());
            m.put("device", r.device());
            m.put("medianMs", round(r.medianMs(), 3));
            m.put("gbPerSec", round(r.gbPerSec(), 2));
            m.put("speedupVsRowLoop", round(r.speedupVsRowLoop(), 2));
            out.println(json.writeValueAsString(m));
        } else {
            out.printf(
                    Locale.ROOT,
                    "%-30s %10d %10d %-42s %10.2f %8.2f %9.2fx%n",
                    r.workload(),
                    r.rows(),
                    r.batchRows(),
                    r.device(),
                    r.medianMs(),
                    r.gbPerSec(),
                    r.speedupVsRowLoop());
        }
    }

    /** The devices --device asks for, by run name; "auto" is Quiver's placement rather than one device. */
    Map<String, Function<VectorSchemaRoot, FieldVector>> deviceRuns(
            Quiver quiver, CompiledExpression expr, BufferAllocator allocator) {
        Map<String, Function<VectorSchemaRoot, FieldVector>> runs = new LinkedHashMap<>();
        if (device == DeviceChoice.auto) {
            runs.put("auto", b -> expr.evaluate(b, Placement.AUTO, allocator));
            return runs;
        }
        for (Device d : quiver.devices()) {
            boolean isCpu = d.equals(quiver.cpu());
            if (device == DeviceChoice.cpu && !isCpu || device == DeviceChoice.opencl && isCpu) {
                continue;
            }
            Optional<String> why = Optional.empty();
            for (var p : expr.programs()) {
                why = d.backend().unsupportedReason(p);
                if (why.isPresent()) {
                    break;
                }
            }
            if (why.isPresent()) {
                progress.println("  skipping " + d.name() + ": " + why.get());
                continue;
            }
            runs.put(d.name(), b -> expr.evaluate(b, d, allocator));
        }
        return runs;
    }

    List<int[]> sizes() {
        List<int[]> sizes = new ArrayList<>();
        for (int r : rows) {
            TreeSet<Integer> batches = new TreeSet<>();
            if (batchRows != null) {
                batchRows.stream().filter(b -> b <= r).forEach(batches::add);
                if (batches.isEmpty()) {
                    batches.add(r);
                }
            } else {
                for (int b : new int[] {64 << 10, 1 << 20, r}) {
                    if (b <= r) {
                        batches.add(b);
                    }
                }
            }
            batches.forEach(b -> sizes.add(new int[] {r, b}));
        }
        return sizes;
    }

    void describeMachine(Quiver quiver, PrintStream to, String baselines) {
        to.printf(
                "Quiver bench: Java %s, %d cores, CPU vectors %d-bit%n",
                Runtime.version(),
                Runtime.getRuntime().availableProcessors(),
                DoubleVector.SPECIES_PREFERRED.vectorBitSize());
        for (Device d : quiver.devices()) {
            to.printf("  device %s: %s%n", d.name(), d.description());
        }
        if (quiver.openClDevices().isEmpty()) {
            to.println("  OpenCL: no device, so only CPU rows follow. Why: " + quiver.openClStatus());
        }
        to.println(baselines);
    }

    private int measure(
            Quiver quiver,
            BufferAllocator allocator,
            Workload w,
            String name,
            double nullFraction,
            int rows,
            int batchRows,
            List<Result> results) {
        int failures = 0;
        List<VectorSchemaRoot> batches = generate(allocator, w, rows, batchRows, nullFraction);
        Float8Vector expected = null;
        try {
            CompiledExpression expr = quiver.compile(batches.getFirst().getSchema(), Expr.parse(w.expression()));
            long bytes = bytesMoved(batches, w.columns().size());
            Map<String, Function<VectorSchemaRoot, FieldVector>> runs = new LinkedHashMap<>();
            runs.put("row-loop", b -> w.rowLoop().apply(b, allocator));
            runs.put("vector-api-loop", b -> w.vectorLoop().apply(b, allocator));
            if (device == null) {
                for (Device d : quiver.devices()) {
                    Optional<String> why = d.backend().unsupportedReason(expr.program());
                    if (why.isPresent()) {
                        progress.println("  skipping " + d.name() + ": " + why.get());
                        continue;
                    }
                    runs.put(d.name(), b -> expr.evaluate(b, d, allocator));
                }
            } else {
                runs.putAll(deviceRuns(quiver, expr, allocator));
            }
            double rowLoopMs = Double.NaN;
            // The row loop's result for the first batch, computed once: every run is checked against it.
            expected = w.rowLoop().apply(batches.getFirst(), allocator);
            for (Map.Entry<String, Function<VectorSchemaRoot, FieldVector>> run : runs.entrySet()) {
                String mismatch = verify(batches.getFirst(), w, expected, run.getValue());
                if (mismatch != null) {
                    progress.println(
                            "  ERROR " + run.getKey() + " disagrees with the row loop: " + mismatch + " (not timed)");
                    failures++;
                    continue;
                }
                double ms = medianMs(batches, run.getValue());
                if (run.getKey().equals("row-loop")) {
                    rowLoopMs = ms;
                }
                results.add(
                        new Result(name, rows, batchRows, run.getKey(), ms, bytes / (ms / 1e3) / 1e9, rowLoopMs / ms));
            }
        } finally {
            if (expected != null) {
                expected.close();
            }
            batches.forEach(VectorSchemaRoot::close);
        }
        return failures;
    }

    /**
     * The median time of one run over all batches, in ms: after at least {@link #warmup} runs and
     * {@link #warmupMs} of warm-up, over {@link #iterations} timed runs. A slow run stops early:
     * the warm-up once it has taken half of {@link #budgetMs} (after at least 1 run), the timing
     * once it has taken {@link #budgetMs} (after at least 3 runs).
     */
    double medianMs(List<VectorSchemaRoot> batches, Function<VectorSchemaRoot, FieldVector> run) {
        long start = System.nanoTime();
        long warmupEnd = start + warmupMs * 1_000_000L;
        for (int it = 0; it < warmup || System.nanoTime() < warmupEnd; it++) {
            if (it >= 1 && overBudget(start, budgetMs / 2)) {
                break;
            }
            runAll(batches, run);
        }
        double[] times = new double[iterations];
        int timed = 0;
        long timingStart = System.nanoTime();
        for (; timed < iterations; timed++) {
            if (timed >= Math.min(3, iterations) && overBudget(timingStart, budgetMs)) {
                break;
            }
            long t0 = System.nanoTime();
            runAll(batches, run);
            times[timed] = (System.nanoTime() - t0) / 1e6;
        }
        return median(Arrays.copyOf(times, timed));
    }

    /** The median of {@code times} (sorted in place). */
    static double median(double[] times) {
        Arrays.sort(times);
        return times.length % 2 == 1
                ? times[times.length / 2]
                : (times[times.length / 2 - 1] + times[times.length / 2]) / 2;
    }

    boolean overBudget(long since, int ms) {
        return budgetMs > 0 && System.nanoTime() - since >= ms * 1_000_000L;
    }

    static void runAll(List<VectorSchemaRoot> batches, Function<VectorSchemaRoot, FieldVector> run) {
        for (VectorSchemaRoot b : batches) {
            try (FieldVector r = run.apply(b)) {
                if (r.getValueCount() != b.getRowCount()) {
                    throw new IllegalStateException(
                            "result has " + r.getValueCount() + " rows, batch " + b.getRowCount());
                }
            }
        }
    }

    /** Compares one batch's result with the row loop's: same validity, valid rows as {@link Workload#agrees} allows. */
    private static String verify(
            VectorSchemaRoot batch, Workload w, Float8Vector expected, Function<VectorSchemaRoot, FieldVector> run) {
        try (FieldVector actual = run.apply(batch)) {
            Float8Vector a = (Float8Vector) actual;
            for (int i = 0; i < expected.getValueCount(); i++) {
                if (expected.isNull(i) != a.isNull(i)) {
                    return "row " + i + " null=" + expected.isNull(i) + " vs " + a.isNull(i);
                }
                if (!expected.isNull(i) && !w.agrees(expected.get(i), a.get(i))) {
                    return "row " + i + ": " + expected.get(i) + " vs " + a.get(i) + " (required: "
                            + w.agreement().requirement() + ")";
                }
            }
            return null;
        } catch (RuntimeException e) {
            return e.toString();
        }
    }

    private static long bytesMoved(List<VectorSchemaRoot> batches, int inputs) {
        long total = 0;
        for (VectorSchemaRoot b : batches) {
            long n = b.getRowCount();
            long validityBytes = (n + 7) / 8;
            total += n * 8L * (inputs + 1) + validityBytes; // values in, values out, validity out
            for (FieldVector v : b.getFieldVectors()) {
                if (v.getNullCount() > 0) {
                    total += validityBytes;
                }
            }
        }
        return total;
    }

    /** The workload's columns, each uniform in its range, with nulls at {@code nullFraction}, from {@link #seed}. */
    private List<VectorSchemaRoot> generate(
            BufferAllocator allocator, Workload w, int rows, int batchRows, double nullFraction) {
        return generate(allocator, w.columns(), w.ranges(), rows, batchRows, nullFraction);
    }

    /** Float64 {@code columns}, each uniform in its range of {@code ranges}, with nulls at {@code nullFraction}, from {@link #seed}. */
    List<VectorSchemaRoot> generate(
            BufferAllocator allocator,
            List<String> columns,
            List<Workload.Range> ranges,
            int rows,
            int batchRows,
            double nullFraction) {
        List<Field> fields = columns.stream()
                .map(c -> new Field(
                        c, FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null))
                .toList();
        Schema schema = new Schema(fields);
        SplittableRandom random = new SplittableRandom(seed);
        List<VectorSchemaRoot> batches = new ArrayList<>();
        try {
            for (int start = 0; start < rows; start += batchRows) {
                int n = Math.min(batchRows, rows - start);
                VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
                batches.add(root);
                for (int c = 0; c < columns.size(); c++) {
                    Float8Vector f = (Float8Vector) root.getVector(c);
                    Workload.Range range = ranges.get(c);
                    f.allocateNew(n);
                    for (int i = 0; i < n; i++) {
                        f.set(i, random.nextDouble(range.min(), range.max()));
                        if (nullFraction > 0 && random.nextDouble() < nullFraction) {
                            f.setNull(i);
                        }
                    }
                    f.setValueCount(n);
                }
                root.setRowCount(n);
            }
        } catch (RuntimeException e) {
            batches.forEach(VectorSchemaRoot::close);
            throw e;
        }
        return batches;
    }

    static double round(double v, int digits) {
        double p = Math.pow(10, digits);
        return Math.round(v * p) / p;
    }
}
