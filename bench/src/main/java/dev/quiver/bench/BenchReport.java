package dev.quiver.bench;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Runs the JMH benchmarks of this module, then prints the figures the project's targets are
 * about, computed from the medians of the measurement iterations of that same run:
 * <ul>
 * <li>for {@link BooleanLogicBenchmark} and {@link CaseBenchmark}: RowInterpreter's median over
 *     Quiver's (targets: at least 20 and 10), and the GB/s of each ({@link Workload#bytesMoved()});</li>
 * <li>for {@link DispatchBenchmark}: Quiver's median at 1 row over its median at 8192 rows, the
 *     share of the per-batch fixed cost in a batch of 8192 rows (target: under 5%);</li>
 * <li>{@link MemoryCopyBenchmark}'s GB/s, the machine's copy bandwidth;</li>
 * <li>for {@link StringSearchBenchmark}: the per-row String.contains loop's median over Quiver's
 * {@code contains(s, 'abc')} (target: at least 5);</li>
 * <li>for {@link HaversineBenchmark}: the speed of {@code quiver} relative to {@code vectorApi}
 *     (vectorApi's median over quiver's; target: at least 0.85) and to {@code boxedUdf} (target:
 *     at least 20), with {@code opencl}'s median beside them, or why it has none.</li>
 * </ul>
 * A table of every target with its measured figure closes the summary.
 * Its arguments are JMH's ({@code -h} lists them), for example {@code -f 1 -wi 3 -w 1s -i 5 -r 1s
 * Dispatch}; the help and list options go straight to JMH. A figure whose benchmarks were not run
 * (a filter left them out) is not printed.
 */
public final class BenchReport {
    private BenchReport() {
    }

    public static void main(String[] args) throws Exception {
        CommandLineOptions options;
        try {
            options = new CommandLineOptions(args);
        } catch (CommandLineOptionException e) {
            System.err.println("error: " + e.getMessage() + " (-h lists JMH's options)");
            System.exit(2);
            return;
        }
        if (options.shouldHelp() || options.shouldList() || options.shouldListWithParams() || options.shouldListProfilers()
                || options.shouldListResultFormats()) {
            org.openjdk.jmh.Main.main(args);
            return;
        }
        Collection<RunResult> results = new Runner(options).run();
        System.out.println();
        System.out.print(summarize(results, willRun(options, HaversineBenchmark.class.getName() + ".opencl")));
    }

    /** Whether JMH's include and exclude patterns (regular expressions found anywhere in the name) select {@code benchmark}. */
    private static boolean willRun(CommandLineOptions options, String benchmark) {
        for (String regexp : options.getExcludes()) {
            if (java.util.regex.Pattern.compile(regexp).matcher(benchmark).find()) {
                return false;
            }
        }
        List<String> includes = options.getIncludes();
        if (includes.isEmpty()) {
            return true;
        }
        for (String regexp : includes) {
            if (java.util.regex.Pattern.compile(regexp).matcher(benchmark).find()) {
                return true;
            }
        }
        return false;
    }

    /** One row of the targets table: the target, the figure this run measured, and whether it met it. */
    private record Target(String target, String measured, boolean met) {
    }

    /**
     * The summary of a run, as text. {@code openClSelected}: whether {@code HaversineBenchmark.opencl}
     * was among the benchmarks to run (so a missing result means its setup failed).
     */
    static String summarize(Collection<RunResult> results, boolean openClSelected) {
        List<String> lines = new ArrayList<>();
        List<Target> targets = new ArrayList<>();
        lines.add("Quiver against its baselines, medians of the measurement iterations:");
        speedup(results, "BooleanLogicBenchmark", BooleanLogicBenchmark.WORKLOAD, 20, lines, targets);
        speedup(results, "CaseBenchmark", CaseBenchmark.WORKLOAD, 10, lines, targets);
        Median one = find(results, "DispatchBenchmark", "quiver", "1");
        Median full = find(results, "DispatchBenchmark", "quiver", "8192");
        if (one != null && full != null) {
            double share = one.seconds / full.seconds;
            lines.add(String.format(Locale.ROOT, "  %-22s %d-node tree: %s at 1 row / %s at 8192 rows = %.1f%% per-batch fixed cost"
                            + " (target < 5%%: %s)", "DispatchBenchmark", DispatchBenchmark.NODES, one, full, 100 * share,
                    share < 0.05 ? "met" : "missed"));
            targets.add(new Target("Dispatch: per-batch fixed cost < 5% of an 8192-row batch",
                    String.format(Locale.ROOT, "%.1f%%", 100 * share), share < 0.05));
        }
        Median copy = find(results, "MemoryCopyBenchmark", "copy", null);
        if (copy != null) {
            lines.add(String.format(Locale.ROOT, "  %-22s %s: %.1f GB/s (read + written)", "MemoryCopyBenchmark", copy,
                    MemoryCopyBenchmark.bytesMoved() / copy.seconds / 1e9));
        }
        haversine(results, openClSelected, lines, targets);
        Median search = find(results, "StringSearchBenchmark", "quiver", null);
        Median perRow = find(results, "StringSearchBenchmark", "perRowString", null);
        if (search != null && perRow != null) {
            double ratio = perRow.seconds / search.seconds;
            lines.add(String.format(Locale.ROOT, "  %-22s contains(s, 'abc') %s, per-row String.contains %s: %.1fx (target >= 5x: %s)",
                    "StringSearchBenchmark", search, perRow, ratio, ratio >= 5 ? "met" : "missed"));
            targets.add(new Target("StringSearch: contains >= 5x per-row String.contains", String.format(Locale.ROOT, "%.1fx", ratio),
                    ratio >= 5));
        }
        if (lines.size() == 1) {
            return "";
        }
        if (!targets.isEmpty()) {
            lines.add("");
            lines.add("Targets (this run):");
            int width = targets.stream().mapToInt(t -> t.target().length()).max().orElse(0);
            lines.add(String.format(Locale.ROOT, "  %-" + width + "s  %-9s %s", "target", "measured", "result"));
            for (Target t : targets) {
                lines.add(String.format(Locale.ROOT, "  %-" + width + "s  %-9s %s", t.target(), t.measured(), t.met() ? "met" : "MISSED"));
            }
        }
        return String.join("\n", lines) + "\n";
    }

    private static void speedup(Collection<RunResult> results, String benchmark, Workload workload, double target, List<String> lines,
                                List<Target> targets) {
        Median quiver = find(results, benchmark, "quiver", null);
        Median interpreter = find(results, benchmark, "interpreter", null);
        if (quiver == null || interpreter == null) {
            return;
        }
        double ratio = interpreter.seconds / quiver.seconds;
        long bytes = workload.bytesMoved();
        lines.add(String.format(Locale.ROOT, "  %-22s quiver %s (%.1f GB/s), interpreter %s (%.2f GB/s): %.1fx (target >= %.0fx: %s)",
                benchmark, quiver, bytes / quiver.seconds / 1e9, interpreter, bytes / interpreter.seconds / 1e9, ratio, target,
                ratio >= target ? "met" : "missed"));
        targets.add(new Target(String.format(Locale.ROOT, "%s: quiver >= %.0fx interpreter", benchmark.replace("Benchmark", ""), target),
                String.format(Locale.ROOT, "%.1fx", ratio), ratio >= target));
    }

    /** HaversineBenchmark: quiver's speed relative to vectorApi and to boxedUdf, opencl beside them. */
    private static void haversine(Collection<RunResult> results, boolean openClSelected, List<String> lines, List<Target> targets) {
        String name = "HaversineBenchmark";
        Median quiver = find(results, name, "quiver", null);
        Median quiverOneThread = find(results, name, "quiverOneThread", null);
        Median vectorApi = find(results, name, "vectorApi", null);
        Median boxedUdf = find(results, name, "boxedUdf", null);
        Median opencl = find(results, name, "opencl", null);
        if (quiver == null && vectorApi == null && boxedUdf == null && opencl == null) {
            return;
        }
        double rows = HaversineBenchmark.ROWS;
        lines.add(String.format(Locale.ROOT, "  %-22s %s, %dM Float64 rows in batches of %dK, no nulls:", name, Haversine.SQL,
                HaversineBenchmark.ROWS >> 20, HaversineBenchmark.BATCH_ROWS >> 10));
        for (var m : new Object[][] {{"quiver", quiver}, {"quiverOneThread", quiverOneThread}, {"vectorApi", vectorApi},
                {"boxedUdf", boxedUdf}, {"opencl", opencl}}) {
            Median median = (Median) m[1];
            String text;
            if (median != null) {
                text = String.format(Locale.ROOT, "%s (%.2f ns/row)", median, median.seconds / rows * 1e9);
            } else if (m[0].equals("opencl")) {
                text = openClSelected ? "not available (no result: its setup failed, the reason is above, e.g. no OpenCL device)"
                        : "not run (left out by the benchmark filter)";
            } else {
                text = "not run";
            }
            lines.add(String.format(Locale.ROOT, "  %-22s   %-15s %s", "", m[0], text));
        }
        if (quiver != null && vectorApi != null) {
            double ratio = vectorApi.seconds / quiver.seconds;
            lines.add(String.format(Locale.ROOT, "  %-22s   quiver vs vectorApi: %.2fx (vectorApi / quiver; target >= 0.85x: %s)", "",
                    ratio, ratio >= 0.85 ? "met" : "missed"));
            targets.add(new Target("Haversine: quiver >= 0.85x vectorApi (hand-written Vector API)",
                    String.format(Locale.ROOT, "%.2fx", ratio), ratio >= 0.85));
        }
        if (quiver != null && boxedUdf != null) {
            double ratio = boxedUdf.seconds / quiver.seconds;
            lines.add(String.format(Locale.ROOT, "  %-22s   quiver vs boxedUdf: %.1fx (boxedUdf / quiver; target >= 20x: %s)", "",
                    ratio, ratio >= 20 ? "met" : "missed"));
            targets.add(new Target("Haversine: quiver >= 20x boxedUdf (one boxed call per row)",
                    String.format(Locale.ROOT, "%.1fx", ratio), ratio >= 20));
        }
        if (quiverOneThread != null && vectorApi != null && boxedUdf != null) {
            lines.add(String.format(Locale.ROOT, "  %-22s   quiverOneThread (the calling thread only): %.2fx vectorApi, %.1fx boxedUdf"
                    + " (no target; the CPU device uses %d threads for batches this large)", "",
                    vectorApi.seconds / quiverOneThread.seconds, boxedUdf.seconds / quiverOneThread.seconds,
                    Runtime.getRuntime().availableProcessors()));
        }
        if (quiver != null && opencl != null) {
            lines.add(String.format(Locale.ROOT, "  %-22s   opencl vs quiver: %.2fx (quiver / opencl; no target)", "",
                    quiver.seconds / opencl.seconds));
        }
    }

    /** The median of one benchmark method, with {@code rows} as its parameter (null: any). */
    private static Median find(Collection<RunResult> results, String benchmark, String method, String rows) {
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark();
            if (!name.endsWith("." + benchmark + "." + method)) {
                continue;
            }
            if (rows != null && !rows.equals(r.getParams().getParam("rows"))) {
                continue;
            }
            double median = r.getPrimaryResult().getStatistics().getPercentile(50);
            TimeUnit unit = r.getParams().getTimeUnit();
            return new Median(median, r.getPrimaryResult().getScoreUnit(), median * unit.toNanos(1) / 1e9);
        }
        return null;
    }

    private record Median(double value, String unit, double seconds) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%.3f %s", value, unit);
        }
    }
}
