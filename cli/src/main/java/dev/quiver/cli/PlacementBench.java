package dev.quiver.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.CompiledExpression;
import dev.quiver.Device;
import dev.quiver.ExpressionMetrics;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.memory.Resources;
import dev.quiver.opencl.TransferMode;
import dev.quiver.placement.CalibrationCache;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Function;
import jdk.incubator.vector.DoubleVector;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * {@code quiver bench --placement}: the placement policies {@link Placement#CPU},
 * {@link Placement#OPENCL} and {@link Placement#AUTO} side by side on a suite of kernel segments
 * (each one fused kernel over float64 columns) at batch sizes from 1K to 4M rows, and AUTO's
 * regret against the per-case oracle (the faster fixed policy).
 *
 * <p>With an OpenCL device, the suite runs it in both transfer modes ({@link TransferMode}): one
 * Quiver instance opens the devices in their own mode (zero copy on PoCL), a second in the other
 * (explicit copies on PoCL), so OPENCL and AUTO are timed once per mode ({@code opencl[zero-copy]},
 * {@code opencl[copy]}, each mode a row of its own with its own oracle and regret), next to one CPU
 * run; {@code --transfer} keeps one mode. Without OpenCL a single Quiver runs CPU and AUTO.
 *
 * <p>Per case the batches are generated once and each policy gets its own
 * {@link CompiledExpression}, so AUTO's learning state belongs to that case alone. Each policy is
 * warmed up (as the other modes: at least {@code --warmup} passes and {@code --warmup-ms}, cut by
 * {@code --budget-ms}), then the policies are timed pass by pass, interleaved, in the orders of a
 * balanced Latin square (every permutation for up to three policies) so that drift and what one
 * policy leaves behind affect all alike; a pass evaluates every batch of the case and closes each
 * result. Each figure is the median pass. The bytes each OpenCL policy copied per batch come from
 * its expression's metrics.
 */
final class PlacementBench {

    /** One kernel segment of the suite: an expression over float64 columns uniform in their ranges. */
    record Case(String name, String expression, List<String> columns, List<Workload.Range> ranges) {}

    static final List<Case> CASES = List.of(
            new Case("cheap", "a * b + c", List.of("a", "b", "c"), List.of(Workload.ANY, Workload.ANY, Workload.ANY)),
            new Case(
                    "predicate",
                    "a * b + c > 0.5",
                    List.of("a", "b", "c"),
                    List.of(Workload.ANY, Workload.ANY, Workload.ANY)),
            new Case(
                    "transcendental",
                    "haversine(a, b, c, d)",
                    List.of("a", "b", "c", "d"),
                    List.of(Workload.LATITUDE, Workload.LONGITUDE, Workload.LATITUDE, Workload.LONGITUDE)),
            // log1p is not a Quiver function: ln(1 + abs(c)) is the same work (one transcendental); one fused segment.
            new Case(
                    "heavy",
                    "exp(sin(a) * cos(b)) + ln(1 + abs(c)) * atan2(a, b)",
                    List.of("a", "b", "c"),
                    List.of(Workload.ANY, Workload.ANY, Workload.ANY)));

    static final int DEFAULT_ROWS = 4 << 20;
    static final List<Integer> DEFAULT_BATCH_ROWS =
            List.of(1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20);
    static final int DEFAULT_ITERATIONS = 7;

    /**
     * The orders {@code n} policies take pass by pass: a balanced Latin square (Williams), in which
     * each policy runs first as often as the others and follows each other policy equally often; for
     * odd {@code n} each order is followed by its reverse. For up to three policies these are every
     * permutation.
     */
    static int[][] orders(int n) {
        int[] first = new int[n];
        for (int j = 0, lo = 1, hi = n - 1; j < n; j++) {
            first[j] = j == 0 ? 0 : j % 2 == 1 ? lo++ : hi--;
        }
        int[][] orders = new int[n % 2 == 0 ? n : 2 * n][];
        int k = 0;
        for (int r = 0; r < n; r++) {
            int[] order = new int[n];
            for (int j = 0; j < n; j++) {
                order[j] = (first[j] + r) % n;
            }
            orders[k++] = order;
            if (n % 2 == 1) {
                int[] reverse = new int[n];
                for (int j = 0; j < n; j++) {
                    reverse[j] = order[n - 1 - j];
                }
                orders[k++] = reverse;
            }
        }
        return orders;
    }
    /** The batch size whose scheduler time is reported against the batch's own time. */
    static final int SCHEDULER_BATCH_ROWS = 64 << 10;

    /**
     * One case's medians in one transfer mode, in ms; {@code openclMs} null where no OpenCL device can
     * run the case. The CPU figure is the same for every mode of a case (measured once).
     *
     * @param transfer                    the OpenCL devices' transfer mode ({@code zero-copy}, {@code copy}),
     *                                    or null without OpenCL
     * @param openclBytesToDevicePerBatch mean bytes the OPENCL policy copied to the device per batch (null
     *                                    where it did not run)
     * @param autoRanOn                   batches per device of the AUTO expression over the whole case (warm-up
     *                                    included)
     */
    record Result(
            String caseName,
            int rows,
            int batchRows,
            int batches,
            String transfer,
            double cpuMs,
            Double openclMs,
            double autoMs,
            Double openclBytesToDevicePerBatch,
            Double openclBytesFromDevicePerBatch,
            String autoRanOn,
            long decisions,
            long schedulerNanos) {
        double oracleMs() {
            return openclMs == null ? cpuMs : Math.min(cpuMs, openclMs);
        }

        double regret() {
            return autoMs / oracleMs() - 1;
        }

        /** {@code opencl[copy]}, or {@code opencl} without a mode. */
        String openclLabel() {
            return label("opencl", transfer);
        }

        /** {@code auto[copy]}, or {@code auto} without OpenCL. */
        String autoLabel() {
            return label("auto", transfer);
        }
    }

    static String label(String policy, String transfer) {
        return transfer == null ? policy : policy + "[" + transfer + "]";
    }

    /** The OpenCL devices of one Quiver, in one transfer mode; {@code transfer} null without OpenCL. */
    private record Mode(String transfer, Quiver quiver) {}

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
        if (options.noOpenCl && options.transfer != null) {
            progress.println("error: --transfer chooses how OpenCL devices get memory; --no-opencl leaves them out");
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
            try {
                OutputTarget.resolve("--chart", options.chart, null); // checked now, written after the run
            } catch (CliError e) {
                return ExitStatus.report(e, progress);
            }
        }
        List<Case> cases = CASES.stream()
                .filter(c -> options.workloads == null || options.workloads.contains(c.name()))
                .toList();
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
            progress.println("error: " + left + " bytes still allocated after the benchmark (a leak):\n"
                    + allocator.toVerboseString());
            return 1;
        }
        allocator.close();
        return failures == 0 ? 0 : 1;
    }

    private int run(
            RootAllocator allocator,
            List<Case> cases,
            List<int[]> sizes,
            List<Double> nulls,
            int iterations,
            String reproduce)
            throws Exception {
        boolean table = options.format == BenchCommand.Format.table;
        PrintStream info = table ? out : progress;
        ObjectMapper json = new ObjectMapper();
        int failures = 0;
        List<Mode> modes = new ArrayList<>();
        try {
            open(allocator, modes);
            List<String> header = describe(modes, info, cases, iterations, reproduce);
            if (table) {
                out.printf(
                        "%-20s %6s %9s  %-9s %10s %10s %10s %10s %8s %16s %16s  %s%n",
                        "case",
                        "rows",
                        "batchRows",
                        "transfer",
                        "cpu ms",
                        "opencl ms",
                        "auto ms",
                        "oracle ms",
                        "regret",
                        "B to dev/batch",
                        "B from dev/batch",
                        "auto ran on (batches, warm-up included)");
            }
            List<Result> results = new ArrayList<>();
            Map<String, String> expressions = new LinkedHashMap<>();
            int total = cases.size() * nulls.size() * sizes.size(), step = 0;
            for (Case c : cases) {
                for (double nullFraction : nulls) {
                    String name = c.name()
                            + (nullFraction > 0
                                    ? String.format(Locale.ROOT, " [%.0f%% nulls]", nullFraction * 100)
                                    : "");
                    expressions.put(name, c.expression());
                    for (int[] size : sizes) {
                        step++;
                        progress.printf(
                                "[%d/%d] %s %s rows in batches of %s ...%n",
                                step, total, name, rows(size[0]), rows(size[1]));
                        int[] errors = {0};
                        List<Result> rs =
                                measure(modes, allocator, c, name, nullFraction, size[0], size[1], iterations, errors);
                        failures += errors[0];
                        for (Result r : rs) {
                            results.add(r);
                            print(json, r);
                        }
                        out.flush();
                    }
                }
            }
            List<String> totals = totals(info, results);
            info.println("  reproduce: " + reproduce);
            if (options.chart != null) {
                try {
                    OutputTarget.resolve("--chart", options.chart, null)
                            .write(PlacementChart.html(header, totals, reproduce, results, expressions)
                                    .getBytes(StandardCharsets.UTF_8));
                    progress.println("chart written to " + options.chart);
                } catch (RuntimeException e) {
                    progress.println("error: could not write the chart: " + ExitStatus.message(e));
                    failures++;
                }
            }
        } finally {
            Resources.closeAll(modes.stream().map(Mode::quiver).toList());
        }
        return failures;
    }

    /**
     * The Quivers of the run, into {@code modes}: without OpenCL one; with {@code --transfer} one in
     * that mode; else one with the devices in their own mode and one in the other mode.
     */
    private void open(RootAllocator allocator, List<Mode> modes) {
        Quiver first =
                builder(allocator, options.transfer).openCl(!options.noOpenCl).build();
        TransferMode own = first.openClDevices().isEmpty()
                ? null
                : first.openClDevices().getFirst().transferMode().orElseThrow();
        modes.add(new Mode(own == null ? null : own.label(), first));
        if (own != null && options.transfer == null) {
            TransferMode other = own == TransferMode.ZERO_COPY ? TransferMode.COPY : TransferMode.ZERO_COPY;
            modes.add(new Mode(other.label(), builder(allocator, other).build()));
        }
    }

    private static Quiver.Builder builder(RootAllocator allocator, TransferMode mode) {
        return TransferOption.apply(Quiver.builder().allocator(allocator).functions(CliFunctions.registry()), mode);
    }

    /**
     * The machine, the devices with the figures AUTO estimates with, the cases and the method.
     *
     * @return the machine line and the device lines (with their figures, and why OpenCL is absent), as printed
     */
    private List<String> describe(
            List<Mode> modes, PrintStream to, List<Case> cases, int iterations, String reproduce) {
        Quiver quiver = modes.getFirst().quiver();
        List<String> printed = new ArrayList<>();
        String machine = String.format(
                Locale.ROOT,
                "Quiver bench --placement: %d cores, %s %s (%s), Java %s (%s, %s), CPU vectors %d-bit",
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("os.name"),
                System.getProperty("os.version"),
                System.getProperty("os.arch"),
                Runtime.version(),
                System.getProperty("java.vm.name"),
                System.getProperty("java.vendor"),
                DoubleVector.SPECIES_PREFERRED.vectorBitSize());
        to.println(machine);
        printed.add(machine);
        to.flush();
        progress.println(
                "reading or measuring each device's figures for auto placement (calibration takes up to a second "
                        + "per device, then they are cached in " + CalibrationCache.defaultDirectory() + ") ...");
        for (Mode m : modes) {
            for (Device d : m.quiver().devices()) {
                if (m != modes.getFirst() && !d.isOpenCl()) {
                    continue; // the same CPU
                }
                String figures;
                try {
                    figures = m.quiver().figures(d).describe();
                } catch (RuntimeException e) {
                    figures = "unavailable: " + e;
                }
                String name = d.isOpenCl() && m.transfer() != null ? d.name() + " [" + m.transfer() + "]" : d.name();
                for (String line : List.of("  device " + name + ": " + d.description(), "    figures: " + figures)) {
                    to.println(line);
                    printed.add(line);
                }
            }
        }
        if (modes.size() > 1) {
            String line = "  transfer modes: "
                    + String.join(
                            " and ",
                            modes.stream()
                                    .map(m -> label("opencl", m.transfer()))
                                    .toList()) + ", the device's own first (--transfer " + TransferOption.LABEL
                    + " runs one); the cpu runs once per case";
            to.println(line);
            printed.add(line);
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
        to.printf(
                Locale.ROOT,
                "  each figure: the median of %d passes (a pass evaluates every batch of the case and closes "
                        + "each result), the policies interleaved pass by pass, in the orders of a balanced Latin square in turn, after at least %d warm-up passes and %d ms "
                        + "each (cut at %d ms after 1 pass)%n",
                iterations,
                Math.max(1, options.warmup),
                options.warmupMs,
                options.budgetMs / 2);
        to.println("  oracle = the faster of cpu and opencl per case (per transfer mode); regret = auto / oracle - 1;"
                + " B to/from dev/batch = mean bytes opencl copied each way per batch (0: zero copy)");
        to.println("  reproduce: " + reproduce);
        to.flush();
        return printed;
    }

    /** The policies of one case: a name, an evaluation, and the expression it compiled (for its metrics). */
    private record Policy(String name, CompiledExpression expr, Function<VectorSchemaRoot, FieldVector> run) {}

    /** One case at one size: a result per mode, the CPU timed once with every mode's OPENCL and AUTO, interleaved. */
    private List<Result> measure(
            List<Mode> modes,
            BufferAllocator allocator,
            Case c,
            String name,
            double nullFraction,
            int rows,
            int batchRows,
            int iterations,
            int[] errors) {
        List<VectorSchemaRoot> batches =
                options.generate(allocator, c.columns(), c.ranges(), rows, batchRows, nullFraction);
        try {
            Schema schema = batches.getFirst().getSchema();
            // One compiled expression per policy: AUTO learns from this case's batches only.
            CompiledExpression cpu = modes.getFirst().quiver().compile(schema, c.expression());
            List<Policy> policies = new ArrayList<>();
            policies.add(new Policy("cpu", cpu, b -> cpu.evaluate(b, Placement.CPU, allocator)));
            Policy[] opencl = new Policy[modes.size()], auto = new Policy[modes.size()];
            for (int m = 0; m < modes.size(); m++) {
                Quiver quiver = modes.get(m).quiver();
                String transfer = modes.get(m).transfer();
                if (openClCanRun(quiver, cpu)) {
                    CompiledExpression e = quiver.compile(schema, c.expression());
                    opencl[m] =
                            new Policy(label("opencl", transfer), e, b -> e.evaluate(b, Placement.OPENCL, allocator));
                    policies.add(opencl[m]);
                } else if (!quiver.openClDevices().isEmpty()) {
                    progress.println("  note: no OpenCL device can run " + name + ", so " + label("opencl", transfer)
                            + " is absent");
                }
            }
            for (int m = 0; m < modes.size(); m++) {
                CompiledExpression e = modes.get(m).quiver().compile(schema, c.expression());
                auto[m] = new Policy(
                        label("auto", modes.get(m).transfer()), e, b -> e.evaluate(b, Placement.AUTO, allocator));
                policies.add(auto[m]);
            }

            boolean inexact = ExpressionBench.hasInexactMath(cpu);
            try (FieldVector expected = policies.getFirst().run().apply(batches.getFirst())) {
                for (Policy p : policies.subList(1, policies.size())) {
                    try (FieldVector actual = p.run().apply(batches.getFirst())) {
                        String d = ExpressionBench.firstDifference(expected, actual, inexact);
                        if (d != null) {
                            progress.println("  ERROR " + p.name() + " disagrees with cpu on " + name + ": " + d);
                            errors[0]++;
                        }
                    }
                }
            }
            for (Policy p : policies) {
                warmUp(batches, p.run());
            }
            int[][] orders = orders(policies.size());
            double[][] times = new double[policies.size()][iterations];
            for (int it = 0; it < iterations; it++) {
                // The order changes pass by pass (a balanced Latin square): whatever one policy leaves behind (PoCL's
                // worker threads winding down on the same cores, a cache full of its data) falls on each of the others
                // alike. A rotation alone would keep the same predecessor for each.
                for (int p : orders[it % orders.length]) {
                    long t0 = System.nanoTime();
                    BenchCommand.runAll(batches, policies.get(p).run());
                    times[p][it] = (System.nanoTime() - t0) / 1e6;
                }
            }
            double cpuMs = BenchCommand.median(times[0]);
            List<Result> results = new ArrayList<>();
            for (int m = 0; m < modes.size(); m++) {
                Double openclMs = null, toDevice = null, fromDevice = null;
                if (opencl[m] != null) {
                    openclMs = BenchCommand.median(times[policies.indexOf(opencl[m])]);
                    ExpressionMetrics om = opencl[m].expr().metrics();
                    toDevice = om.bytesToDevice() / (double) Math.max(1, om.batches());
                    fromDevice = om.bytesFromDevice() / (double) Math.max(1, om.batches());
                    if (om.fallbacks() > 0) {
                        progress.println("  note: " + om.fallbacks() + " " + opencl[m].name() + " batches of " + name
                                + " failed on the device and were recomputed on the cpu (their time is in its own)");
                    }
                }
                double autoMs = BenchCommand.median(times[policies.indexOf(auto[m])]);
                ExpressionMetrics am = auto[m].expr().metrics();
                results.add(new Result(
                        name,
                        rows,
                        batchRows,
                        batches.size(),
                        modes.get(m).transfer(),
                        cpuMs,
                        openclMs,
                        autoMs,
                        toDevice,
                        fromDevice,
                        ranOn(modes.get(m), am, opencl[m] != null),
                        am.decisions(),
                        am.schedulerNanos()));
            }
            return results;
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

    /** e.g. {@code cpu 3900 / opencl[copy] 196}: batches per device, every device AUTO could use, in the Quiver's order. */
    private static String ranOn(Mode mode, ExpressionMetrics m, boolean withOpenCl) {
        Quiver quiver = mode.quiver();
        Map<String, ExpressionMetrics.DeviceTotals> by = m.byDevice();
        List<String> parts = new ArrayList<>();
        for (Device d : quiver.devices()) {
            boolean isCpu = d.equals(quiver.cpu());
            if (!isCpu && !withOpenCl) {
                continue;
            }
            ExpressionMetrics.DeviceTotals t = by.get(d.name());
            String label =
                    isCpu ? "cpu" : label(quiver.openClDevices().size() == 1 ? "opencl" : d.name(), mode.transfer());
            String part = label + " " + (t == null ? 0 : t.batches());
            if (t != null && t.fallbacks() > 0) {
                part += " (" + t.fallbacks() + " failed, recomputed on the cpu)";
            }
            parts.add(part);
        }
        return String.join(" / ", parts);
    }

    private void print(ObjectMapper json, Result r) throws IOException {
        if (options.format == BenchCommand.Format.json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("case", r.caseName());
            m.put("rows", r.rows());
            m.put("batchRows", r.batchRows());
            m.put("transfer", r.transfer());
            m.put("cpuMs", BenchCommand.round(r.cpuMs(), 4));
            m.put("openclMs", r.openclMs() == null ? null : BenchCommand.round(r.openclMs(), 4));
            m.put("autoMs", BenchCommand.round(r.autoMs(), 4));
            m.put("oracleMs", BenchCommand.round(r.oracleMs(), 4));
            m.put("regret", BenchCommand.round(r.regret(), 4));
            m.put(
                    "openclBytesToDevicePerBatch",
                    r.openclBytesToDevicePerBatch() == null ? null : Math.round(r.openclBytesToDevicePerBatch()));
            m.put(
                    "openclBytesFromDevicePerBatch",
                    r.openclBytesFromDevicePerBatch() == null ? null : Math.round(r.openclBytesFromDevicePerBatch()));
            out.println(json.writeValueAsString(m));
        } else {
            out.printf(
                    Locale.ROOT,
                    "%-20s %6s %9s  %-9s %10.2f %10s %10.2f %10.2f %+7.1f%% %16s %16s  %s%n",
                    r.caseName(),
                    rows(r.rows()),
                    rows(r.batchRows()),
                    r.transfer() == null ? "-" : r.transfer(),
                    r.cpuMs(),
                    r.openclMs() == null ? "-" : String.format(Locale.ROOT, "%.2f", r.openclMs()),
                    r.autoMs(),
                    r.oracleMs(),
                    r.regret() * 100,
                    bytes(r.openclBytesToDevicePerBatch()),
                    bytes(r.openclBytesFromDevicePerBatch()),
                    r.autoRanOn());
        }
    }

    /** A mean byte count, whole bytes, or "-" where there is none. */
    private static String bytes(Double b) {
        return b == null ? "-" : String.format(Locale.ROOT, "%.0f", b);
    }

    /**
     * Per transfer mode, sums over the cases, auto against the oracle and the worse fixed policy; the
     * modes against each other; and the scheduler's own time.
     *
     * @return the lines printed after the blank line
     */
    private static List<String> totals(PrintStream to, List<Result> results) {
        Map<String, List<Result>> byMode = new LinkedHashMap<>();
        for (Result r : results) {
            byMode.computeIfAbsent(String.valueOf(r.transfer()), k -> new ArrayList<>())
                    .add(r);
        }
        List<String> lines = new ArrayList<>();
        Map<String, double[]> openclTotals = new LinkedHashMap<>(); // per mode with opencl everywhere: ms, B to, B from
        for (List<Result> group : byMode.values()) {
            double auto = 0, oracle = 0, cpu = 0, opencl = 0, bytesTo = 0, bytesFrom = 0;
            boolean openclEverywhere = true, openclAnywhere = false;
            for (Result r : group) {
                openclAnywhere |= r.openclMs() != null;
                auto += r.autoMs();
                oracle += r.oracleMs();
                cpu += r.cpuMs();
                if (r.openclMs() == null) {
                    openclEverywhere = false;
                } else {
                    opencl += r.openclMs();
                    bytesTo += r.openclBytesToDevicePerBatch() * r.batches();
                    bytesFrom += r.openclBytesFromDevicePerBatch() * r.batches();
                }
            }
            String transfer = group.getFirst().transfer();
            String o = label("opencl", transfer);
            lines.add(String.format(
                    Locale.ROOT,
                    "Totals over %d cases%s: auto %.2f ms, oracle %.2f ms, cpu %.2f ms, %s %s",
                    group.size(),
                    transfer == null ? "" : ", transfer " + transfer,
                    auto,
                    oracle,
                    cpu,
                    o,
                    openclEverywhere
                            ? String.format(Locale.ROOT, "%.2f ms", opencl)
                            : openclAnywhere ? "- (absent in some cases)" : "- (absent)"));
            boolean openclWorse = openclEverywhere && opencl > cpu;
            double worse = openclWorse ? opencl : cpu;
            lines.add(String.format(
                    Locale.ROOT,
                    "  auto/oracle %.3f (%+.1f%%), auto/worse fixed %.3f (the worse fixed policy: %s)",
                    auto / oracle,
                    (auto / oracle - 1) * 100,
                    auto / worse,
                    openclWorse ? o : "cpu"));
            if (openclEverywhere && transfer != null) {
                openclTotals.put(transfer, new double[] {opencl, bytesTo, bytesFrom});
            }
        }
        if (openclTotals.size() == 2) {
            List<String> modes = List.copyOf(openclTotals.keySet());
            double[] a = openclTotals.get(modes.get(0)), b = openclTotals.get(modes.get(1));
            lines.add(String.format(
                    Locale.ROOT,
                    "  %s took %.3fx the time of %s, copying %.0f B to the device and %.0f B back"
                            + " per pass of every case, against %.0f B and %.0f B",
                    label("opencl", modes.get(1)),
                    b[0] / a[0],
                    label("opencl", modes.get(0)),
                    b[1],
                    b[2],
                    a[1],
                    a[2]));
        }
        List<String> scheduler = new ArrayList<>();
        for (Result r : results) {
            if (r.batchRows() == SCHEDULER_BATCH_ROWS && r.decisions() > 0) {
                double perDecision = r.schedulerNanos() / (double) r.decisions();
                double perBatchMs = r.autoMs() / r.batches();
                scheduler.add(String.format(
                        Locale.ROOT,
                        "%s%s %.0f ns per decision = %.3f%% of %.3f ms per batch",
                        r.caseName(),
                        byMode.size() > 1 ? " " + r.autoLabel() : "",
                        perDecision,
                        perDecision / 1e6 / perBatchMs * 100,
                        perBatchMs));
            }
        }
        lines.add(
                "  scheduler's own time at 64K rows per batch (auto, per placement decision, against auto's median time "
                        + "per batch): "
                        + (scheduler.isEmpty() ? "no 64K case was run" : String.join("; ", scheduler)));
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
            batches.forEach(b -> sizes.add(new int[] {r, b}));
        }
        return sizes;
    }

    /** The command line that runs this again with every setting spelled out. */
    private String reproduce(List<Integer> rowCounts, List<Integer> batchSizes, int iterations, List<Double> nulls) {
        StringBuilder sb = new StringBuilder("./quiver bench --placement");
        sb.append(" --rows ")
                .append(String.join(
                        ",", rowCounts.stream().map(PlacementBench::rows).toList()));
        sb.append(" --batch-rows ")
                .append(String.join(
                        ",", batchSizes.stream().map(PlacementBench::rows).toList()));
        sb.append(" --iterations ").append(iterations);
        sb.append(" --warmup ").append(options.warmup).append(" --warmup-ms ").append(options.warmupMs);
        sb.append(" --budget-ms ").append(options.budgetMs).append(" --seed ").append(options.seed);
        sb.append(" --nulls ")
                .append(String.join(
                        ",", nulls.stream().map(PlacementBench::fraction).toList()));
        if (options.workloads != null) {
            sb.append(" --workload ").append(String.join(",", options.workloads));
        }
        if (options.noOpenCl) {
            sb.append(" --no-opencl");
        }
        if (options.transfer != null) {
            sb.append(" --transfer ").append(options.transfer.label());
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
