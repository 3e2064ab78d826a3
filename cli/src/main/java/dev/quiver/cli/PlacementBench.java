package dev.quiver.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.CompiledExpression;
import dev.quiver.Device;
import dev.quiver.ExpressionMetrics;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.placement.CalibrationCache;
import jdk.incubator.vector.DoubleVector;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * {@code quiver bench --placement}: the placement policies {@link Placement#CPU},
 * {@link Placement#OPENCL} and {@link Placement#AUTO} side by side on a suite of kernel segments
 * (each one fused kernel over float64 columns) at batch sizes from 1K to 4M rows, and AUTO's
 * regret against the per-case oracle (the faster fixed policy).
 *
 * <p>One Quiver instance serves the whole run. Per case the batches are generated once and each
 * policy gets its own {@link CompiledExpression}, so AUTO's learning state belongs to that case
 * alone. Each policy is warmed up (as the other modes: at least {@code --warmup} passes and
 * {@code --warmup-ms}, cut by {@code --budget-ms}), then the policies are timed pass by pass,
 * interleaved, the order going through every permutation pass by pass so that drift and what one
 * policy leaves behind affect all three alike; a pass
 * evaluates every batch of the case and closes each result. Each figure is the median pass.
 */
final class PlacementBench {

    /** One kernel segment of the suite: an expression over float64 columns uniform in their ranges. */
    record Case(String name, String expression, List<String> columns, List<Workload.Range> ranges) {
    }

    static final List<Case> CASES = List.of(
            new Case("cheap", "a * b + c", List.of("a", "b", "c"), List.of(Workload.ANY, Workload.ANY, Workload.ANY)),
            new Case("predicate", "a * b + c > 0.5", List.of("a", "b", "c"), List.of(Workload.ANY, Workload.ANY, Workload.ANY)),
            new Case("transcendental", "haversine(a, b, c, d)", List.of("a", "b", "c", "d"),
                    List.of(Workload.LATITUDE, Workload.LONGITUDE, Workload.LATITUDE, Workload.LONGITUDE)),
            // log1p is not a Quiver function: ln(1 + abs(c)) is the same work (one transcendental); one fused segment.
            new Case("heavy", "exp(sin(a) * cos(b)) + ln(1 + abs(c)) * atan2(a, b)", List.of("a", "b", "c"),
                    List.of(Workload.ANY, Workload.ANY, Workload.ANY)));

    static final int DEFAULT_ROWS = 4 << 20;
    static final List<Integer> DEFAULT_BATCH_ROWS = List.of(1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20);
    static final int DEFAULT_ITERATIONS = 7;

    /** Per number of policies, the orders passes take in turn: every permutation. */
    private static final int[][][] ORDERS = {
            {},
            {{0}},
            {{0, 1}, {1, 0}},
            {{0, 1, 2}, {2, 1, 0}, {1, 0, 2}, {2, 0, 1}, {0, 2, 1}, {1, 2, 0}}};
    /** The batch size whose scheduler time is reported against the batch's own time. */
    static final int SCHEDULER_BATCH_ROWS = 64 << 10;

    /**
     * One case's medians, in ms; {@code openclMs} null where no OpenCL device can run the case.
     *
     * @param autoRanOn batches per device of the AUTO expression over the whole case (warm-up included)
     */
    record Result(String caseName, int rows, int batchRows, int batches, double cpuMs, Double openclMs, double autoMs,
                  String autoRanOn, long decisions, long schedulerNanos) {
        double oracleMs() {
            return openclMs == null ? cpuMs : Math.min(cpuMs, openclMs);
        }

        double regret() {
            return autoMs / oracleMs() - 1;
        }
    }

    private final BenchCommand options;
    private final PrintStream out, progress;

    PlacementBench(BenchCommand options) {
        this.options = options;
        this.out = options.out;
        this.progress = options.progress;
    }

    int call() throws Exception {
        if (options.expression != null || !options.schema.getFields().isEmpty() || options.device != null) {
            progress.println("error: --placement times its own suite of cases under cpu, opencl and auto; "
                    + "--expr, --schema and --device do not go with it");
            return 2;
        }
        List<Integer> rowCounts = options.given("--rows") ? options.rows : List.of(DEFAULT_ROWS);
        List<Integer> batchSizes = options.batchRows != null ? options.batchRows : DEFAULT_BATCH_ROWS;
        int iterations = options.given("--iterations") ? options.iterations : DEFAULT_ITERATIONS;
        List<Double> nulls = options.given("--nulls") ? options.nulls : List.of(0.0);
        if (iterations < 1) {
            progress.println("error: --iterations must be at least 1");
            return 2;
        }
        for (double f : nulls) {
            if (!(f >= 0 && f <= 1)) {
                progress.println("error: --nulls must be between 0 and 1: " + f);
                return 2;
            }
        }
        if (options.chart != null) {
            java.nio.file.Path dir = options.chart.toAbsolutePath().getParent();
            if (java.nio.file.Files.isDirectory(options.chart) || dir == null || !java.nio.file.Files.isDirectory(dir)) {
                progress.println("error: --chart needs a file in an existing directory: " + options.chart);
                return 2;
            }
        }
        List<Case> cases = CASES.stream().filter(c -> options.workloads == null || options.workloads.contains(c.name())).toList();
        if (cases.isEmpty()) {
            progress.println("no placement case matches " + options.workloads + "; known: "
                    + String.join(", ", CASES.stream().map(Case::name).toList()));
            return 2;
        }
        List<int[]> sizes = sizes(rowCounts, batchSizes);
        String reproduce = reproduce(rowCounts, batchSizes, iterations, nulls);

        RootAllocator allocator = new RootAllocator();
        int failures;
        try {
            failures = run(allocator, cases, sizes, nulls, iterations, reproduce);
        } catch (RuntimeException | Error e) {
            if (allocator.getAllocatedMemory() == 0) {
                allocator.close();
            }
            throw e;
        }
        long left = allocator.getAllocatedMemory();
        if (left != 0) {
            // Not closed: RootAllocator.close() would throw over the leak this reports.
            progress.println("error: " + left + " bytes still allocated after the benchmark (a leak):\n" + allocator.toVerboseString());
            return 1;
        }
        allocator.close();
        return failures == 0 ? 0 : 1;
    }

    private int run(RootAllocator allocator, List<Case> cases, List<int[]> sizes, List<Double> nulls, int iterations,
                    String reproduce) throws Exception {
        boolean table = options.format == BenchCommand.Format.table;
        PrintStream info = table ? out : progress;
        ObjectMapper json = new ObjectMapper();
        int failures = 0;
        try (Quiver quiver = Quiver.builder().allocator(allocator).functions(CliFunctions.registry())
                .openCl(!options.noOpenCl).build()) {
            List<String> header = describe(quiver, info, cases, iterations, reproduce);
            if (table) {
                out.printf("%-20s %6s %9s %10s %10s %10s %10s %8s  %s%n", "case", "rows", "batchRows", "cpu ms", "opencl ms",
                        "auto ms", "oracle ms", "regret", "auto ran on (batches, warm-up included)");
            }
            List<Result> results = new ArrayList<>();
            Map<String, String> expressions = new LinkedHashMap<>();
            int total = cases.size() * nulls.size() * sizes.size(), step = 0;
            for (Case c : cases) {
                for (double nullFraction : nulls) {
                    String name = c.name() + (nullFraction > 0
                            ? String.format(Locale.ROOT, " [%.0f%% nulls]", nullFraction * 100) : "");
                    expressions.put(name, c.expression());
                    for (int[] size : sizes) {
                        step++;
                        progress.printf("[%d/%d] %s %s rows in batches of %s ...%n", step, total, name, rows(size[0]), rows(size[1]));
                        int[] errors = {0};
                        Result r = measure(quiver, allocator, c, name, nullFraction, size[0], size[1], iterations, errors);
                        failures += errors[0];
                        results.add(r);
                        print(json, r);
                        out.flush();
                    }
                }
            }
            List<String> totals = totals(info, results);
            info.println("  reproduce: " + reproduce);
            if (options.chart != null) {
                try {
                    PlacementChart.write(options.chart, PlacementChart.html(header, totals, reproduce, results, expressions));
                    progress.println("chart written to " + options.chart);
                } catch (java.io.IOException | RuntimeException e) {
                    progress.println("error: could not write the chart to " + options.chart + ": " + e);
                    failures++;
                }
            }
        }
        return failures;
    }

    /**
     * The machine, the devices with the figures AUTO estimates with, the cases and the method.
     *
     * @return the machine line and the device lines (with their figures, and why OpenCL is absent), as printed
     */
    private List<String> describe(Quiver quiver, PrintStream to, List<Case> cases, int iterations, String reproduce) {
        List<String> printed = new ArrayList<>();
        String machine = String.format(Locale.ROOT, "Quiver bench --placement: %d cores, %s %s (%s), Java %s (%s, %s), CPU vectors %d-bit",
                Runtime.getRuntime().availableProcessors(), System.getProperty("os.name"), System.getProperty("os.version"),
                System.getProperty("os.arch"), Runtime.version(), System.getProperty("java.vm.name"),
                System.getProperty("java.vendor"), DoubleVector.SPECIES_PREFERRED.vectorBitSize());
        to.println(machine);
        printed.add(machine);
        to.flush();
        progress.println("reading or measuring each device's figures for auto placement (calibration takes up to a second "
                + "per device, then they are cached in " + CalibrationCache.defaultDirectory() + ") ...");
        for (Device d : quiver.devices()) {
            String figures;
            try {
                figures = quiver.figures(d).describe();
            } catch (RuntimeException e) {
                figures = "unavailable: " + e;
            }
            for (String line : List.of("  device " + d.name() + ": " + d.description(), "    figures: " + figures)) {
                to.println(line);
                printed.add(line);
            }
        }
        if (quiver.openClDevices().isEmpty()) {
            String line = "  OpenCL: no device, so opencl is absent ('-') and the oracle is cpu. Why: "
                    + (options.noOpenCl ? "--no-opencl" : quiver.openClStatus());
            to.println(line);
            printed.add(line);
        }
        List<String> described = new ArrayList<>();
        for (Case c : cases) {
            List<String> cols = new ArrayList<>();
            for (int i = 0; i < c.columns().size(); i++) {
                cols.add(c.columns().get(i) + " in " + c.ranges().get(i));
            }
            described.add(c.name() + " = " + c.expression() + " (" + String.join(", ", cols) + ")");
        }
        to.println("  cases (float64 columns, uniform): " + String.join("; ", described));
        to.printf(Locale.ROOT, "  each figure: the median of %d passes (a pass evaluates every batch of the case and closes "
                        + "each result), the policies interleaved pass by pass, in every order in turn, after at least %d warm-up passes and %d ms "
                        + "each (cut at %d ms after 1 pass)%n", iterations, Math.max(1, options.warmup), options.warmupMs,
                options.budgetMs / 2);
        to.println("  oracle = the faster of cpu and opencl per case; regret = auto / oracle - 1");
        to.println("  reproduce: " + reproduce);
        to.flush();
        return printed;
    }

    private Result measure(Quiver quiver, BufferAllocator allocator, Case c, String name, double nullFraction, int rows,
                           int batchRows, int iterations, int[] errors) {
        List<VectorSchemaRoot> batches = options.generate(allocator, c.columns(), c.ranges(), rows, batchRows, nullFraction);
        try {
            Schema schema = batches.getFirst().getSchema();
            // One compiled expression per policy: AUTO learns from this case's batches only.
            CompiledExpression cpu = quiver.compile(schema, c.expression());
            CompiledExpression auto = quiver.compile(schema, c.expression());
            CompiledExpression opencl = openClCanRun(quiver, cpu) ? quiver.compile(schema, c.expression()) : null;
            if (opencl == null && !quiver.openClDevices().isEmpty()) {
                progress.println("  note: no OpenCL device can run " + name + ", so opencl is absent");
            }
            Map<String, Function<VectorSchemaRoot, FieldVector>> runs = new LinkedHashMap<>();
            runs.put("cpu", b -> cpu.evaluate(b, Placement.CPU, allocator));
            if (opencl != null) {
                runs.put("opencl", b -> opencl.evaluate(b, Placement.OPENCL, allocator));
            }
            runs.put("auto", b -> auto.evaluate(b, Placement.AUTO, allocator));

            boolean inexact = ExpressionBench.hasInexactMath(cpu);
            try (FieldVector expected = runs.get("cpu").apply(batches.getFirst())) {
                for (var run : runs.entrySet()) {
                    if (!run.getKey().equals("cpu")) {
                        try (FieldVector actual = run.getValue().apply(batches.getFirst())) {
                            String d = ExpressionBench.firstDifference(expected, actual, inexact);
                            if (d != null) {
                                progress.println("  ERROR " + run.getKey() + " disagrees with cpu on " + name + ": " + d);
                                errors[0]++;
                            }
                        }
                    }
                }
            }
            for (var run : runs.values()) {
                warmUp(batches, run);
            }
            List<Function<VectorSchemaRoot, FieldVector>> ordered = List.copyOf(runs.values());
            double[][] times = new double[ordered.size()][iterations];
            for (int it = 0; it < iterations; it++) {
                // The order changes pass by pass, through every permutation: whatever one policy leaves behind
                // (PoCL's worker threads winding down on the same cores, a cache full of its data) falls on each of
                // the others alike. A rotation alone would keep the same predecessor for each.
                int[] order = ORDERS[ordered.size()][it % ORDERS[ordered.size()].length];
                for (int p : order) {
                    long t0 = System.nanoTime();
                    BenchCommand.runAll(batches, ordered.get(p));
                    times[p][it] = (System.nanoTime() - t0) / 1e6;
                }
            }
            double cpuMs = BenchCommand.median(times[0]);
            Double openclMs = opencl == null ? null : BenchCommand.median(times[1]);
            double autoMs = BenchCommand.median(times[ordered.size() - 1]);
            if (opencl != null && opencl.metrics().fallbacks() > 0) {
                progress.println("  note: " + opencl.metrics().fallbacks() + " opencl batches of " + name
                        + " failed on the device and were recomputed on the cpu (their time is in opencl's)");
            }
            ExpressionMetrics m = auto.metrics();
            return new Result(name, rows, batchRows, batches.size(), cpuMs, openclMs, autoMs, ranOn(quiver, m, opencl != null),
                    m.decisions(), m.schedulerNanos());
        } finally {
            batches.forEach(VectorSchemaRoot::close);
        }
    }

    /** Whether some OpenCL device can run every fused kernel of {@code expr} (else OPENCL placement is an error). */
    private static boolean openClCanRun(Quiver quiver, CompiledExpression expr) {
        for (Device d : quiver.openClDevices()) {
            boolean all = true;
            for (var p : expr.programs()) {
                Optional<String> why = d.backend().unsupportedReason(p);
                all &= why.isEmpty();
            }
            if (all) {
                return true;
            }
        }
        return false;
    }

    /** At least {@code --warmup} passes (1 at least) and {@code --warmup-ms}; over half of {@code --budget-ms}, stop after 1. */
    private void warmUp(List<VectorSchemaRoot> batches, Function<VectorSchemaRoot, FieldVector> run) {
        long start = System.nanoTime();
        long end = start + options.warmupMs * 1_000_000L;
        for (int it = 0; it < Math.max(1, options.warmup) || System.nanoTime() < end; it++) {
            if (it >= 1 && options.overBudget(start, options.budgetMs / 2)) {
                break;
            }
            BenchCommand.runAll(batches, run);
        }
    }

    /** e.g. {@code cpu 3900 / opencl 196}: batches per device, every device AUTO could use, in the Quiver's order. */
    private static String ranOn(Quiver quiver, ExpressionMetrics m, boolean withOpenCl) {
        Map<String, ExpressionMetrics.DeviceTotals> by = m.byDevice();
        List<String> parts = new ArrayList<>();
        for (Device d : quiver.devices()) {
            boolean isCpu = d.equals(quiver.cpu());
            if (!isCpu && !withOpenCl) {
                continue;
            }
            ExpressionMetrics.DeviceTotals t = by.get(d.name());
            String label = isCpu ? "cpu" : quiver.openClDevices().size() == 1 ? "opencl" : d.name();
            String part = label + " " + (t == null ? 0 : t.batches());
            if (t != null && t.fallbacks() > 0) {
                part += " (" + t.fallbacks() + " failed, recomputed on the cpu)";
            }
            parts.add(part);
        }
        return String.join(" / ", parts);
    }

    private void print(ObjectMapper json, Result r) throws java.io.IOException {
        if (options.format == BenchCommand.Format.json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("case", r.caseName());
            m.put("rows", r.rows());
            m.put("batchRows", r.batchRows());
            m.put("cpuMs", BenchCommand.round(r.cpuMs(), 4));
            m.put("openclMs", r.openclMs() == null ? null : BenchCommand.round(r.openclMs(), 4));
            m.put("autoMs", BenchCommand.round(r.autoMs(), 4));
            m.put("oracleMs", BenchCommand.round(r.oracleMs(), 4));
            m.put("regret", BenchCommand.round(r.regret(), 4));
            out.println(json.writeValueAsString(m));
        } else {
            out.printf(Locale.ROOT, "%-20s %6s %9s %10.2f %10s %10.2f %10.2f %+7.1f%%  %s%n", r.caseName(), rows(r.rows()),
                    rows(r.batchRows()), r.cpuMs(), r.openclMs() == null ? "-" : String.format(Locale.ROOT, "%.2f", r.openclMs()),
                    r.autoMs(), r.oracleMs(), r.regret() * 100, r.autoRanOn());
        }
    }

    /**
     * Sums over the cases, auto against the oracle and the worse fixed policy, and the scheduler's own time.
     *
     * @return the lines printed after the blank line
     */
    private static List<String> totals(PrintStream to, List<Result> results) {
        double auto = 0, oracle = 0, cpu = 0, opencl = 0;
        boolean openclEverywhere = true, openclAnywhere = false;
        for (Result r : results) {
            openclAnywhere |= r.openclMs() != null;
            auto += r.autoMs();
            oracle += r.oracleMs();
            cpu += r.cpuMs();
            if (r.openclMs() == null) {
                openclEverywhere = false;
            } else {
                opencl += r.openclMs();
            }
        }
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "Totals over %d cases: auto %.2f ms, oracle %.2f ms, cpu %.2f ms, opencl %s", results.size(),
                auto, oracle, cpu, openclEverywhere ? String.format(Locale.ROOT, "%.2f ms", opencl)
                        : openclAnywhere ? "- (absent in some cases)" : "- (absent)"));
        boolean openclWorse = openclEverywhere && opencl > cpu;
        double worse = openclWorse ? opencl : cpu;
        lines.add(String.format(Locale.ROOT, "  auto/oracle %.3f (%+.1f%%), auto/worse fixed %.3f (the worse fixed policy: %s)",
                auto / oracle, (auto / oracle - 1) * 100, auto / worse, openclWorse ? "opencl" : "cpu"));
        List<String> scheduler = new ArrayList<>();
        for (Result r : results) {
            if (r.batchRows() == SCHEDULER_BATCH_ROWS && r.decisions() > 0) {
                double perDecision = r.schedulerNanos() / (double) r.decisions();
                double perBatchMs = r.autoMs() / r.batches();
                scheduler.add(String.format(Locale.ROOT, "%s %.0f ns per decision = %.3f%% of %.3f ms per batch", r.caseName(),
                        perDecision, perDecision / 1e6 / perBatchMs * 100, perBatchMs));
            }
        }
        lines.add("  scheduler's own time at 64K rows per batch (auto, per placement decision, against auto's median time "
                + "per batch): " + (scheduler.isEmpty() ? "no 64K case was run" : String.join("; ", scheduler)));
        to.println();
        lines.forEach(to::println);
        to.flush();
        return lines;
    }

    /** Per --rows value, the batch sizes not above it (or all rows in one batch when none is). */
    static List<int[]> sizes(List<Integer> rowCounts, List<Integer> batchSizes) {
        List<int[]> sizes = new ArrayList<>();
        for (int r : rowCounts) {
            TreeSet<Integer> batches = new TreeSet<>();
            batchSizes.stream().filter(b -> b <= r).forEach(batches::add);
            if (batches.isEmpty()) {
                batches.add(r);
            }
            batches.forEach(b -> sizes.add(new int[]{r, b}));
        }
        return sizes;
    }

    /** The command line that runs this again with every setting spelled out. */
    private String reproduce(List<Integer> rowCounts, List<Integer> batchSizes, int iterations, List<Double> nulls) {
        StringBuilder sb = new StringBuilder("./quiver bench --placement");
        sb.append(" --rows ").append(String.join(",", rowCounts.stream().map(PlacementBench::rows).toList()));
        sb.append(" --batch-rows ").append(String.join(",", batchSizes.stream().map(PlacementBench::rows).toList()));
        sb.append(" --iterations ").append(iterations);
        sb.append(" --warmup ").append(options.warmup).append(" --warmup-ms ").append(options.warmupMs);
        sb.append(" --budget-ms ").append(options.budgetMs).append(" --seed ").append(options.seed);
        sb.append(" --nulls ").append(String.join(",", nulls.stream().map(PlacementBench::fraction).toList()));
        if (options.workloads != null) {
            sb.append(" --workload ").append(String.join(",", options.workloads));
        }
        if (options.noOpenCl) {
            sb.append(" --no-opencl");
        }
        if (options.format == BenchCommand.Format.json) {
            sb.append(" --format json");
        }
        return sb.toString();
    }

    private static String fraction(double f) {
        return f == Math.rint(f) ? Long.toString((long) f) : Double.toString(f);
    }

    /** 4194304 as 4M, 65536 as 64K, other counts as they are (what {@link BenchCommand.RowCount} reads back). */
    static String rows(int n) {
        if (n % (1 << 20) == 0) {
            return (n >> 20) + "M";
        }
        if (n % (1 << 10) == 0) {
            return (n >> 10) + "K";
        }
        return Integer.toString(n);
    }
}
