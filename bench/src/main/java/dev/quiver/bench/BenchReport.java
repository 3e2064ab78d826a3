package dev.quiver.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.openjdk.jmh.Main;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;

/**
 * Runs the JMH benchmarks of this module, then prints the figures the project's targets are
 * about, computed from the medians of the measurement iterations of that same run:
 * <ul>
 * <li>for {@link BooleanLogicBenchmark} and {@link CaseBenchmark}: PerRowBaseline's median over
 *     Quiver's (targets: at least 20 and 10), and the GB/s of each ({@link Workload#bytesMoved()});</li>
 * <li>for {@link DispatchBenchmark}: Quiver's median at 1 row over its median at 8192 rows, the
 *     share of the per-batch fixed cost in a batch of 8192 rows (target: under 5%);</li>
 * <li>{@link MemoryCopyBenchmark}'s GB/s, the machine's copy bandwidth;</li>
 * <li>for {@link ProjectionBenchmark}: the old way's median over the new one's, with a filter
 *     (every column copied, against the selection) and without (a bare column copied, against
 *     shared);</li>
 * <li>for {@link SharedSubexpressionBenchmark}: four columns over one haversine each compiled
 *     alone, over the same planned together (haversine once a batch);</li>
 * <li>for {@link HaversineBenchmark}: the speed of {@code quiver} relative to {@code vectorApi}
 *     (vectorApi's median over quiver's; target: at least 0.85) and to {@code boxedUdf} (target:
 *     at least 20), with {@code opencl}'s median beside them, or why it has none;</li>
 * <li>for {@link StringBenchmark}: the speed of {@code likeQuiver} and of {@code containsQuiver}
 *     relative to {@code containsPerRow} (containsPerRow's median over theirs; target: at least 5
 *     each), and of {@code upperQuiver} relative to {@code upperPerRow} (target: at least 3), with
 *     each median in ns per row, or why one has none;</li>
 * <li>for {@link DictionaryBenchmark}: each median in ns per row, and the speed of the mapped plan
 *     ({@code DictionaryMap}) relative to the decoded one, the plain Utf8 column and the per-row
 *     loop (no target).</li>
 * </ul>
 * A table of every target with its measured figure closes the summary.
 * Its arguments are JMH's ({@code -h} lists them), for example {@code -f 1 -wi 3 -w 1s -i 5 -r 1s
 * Dispatch}; the help and list options go straight to JMH. A figure whose benchmarks were not run
 * (a filter left them out) is not printed.
 */
public final class BenchReport {
    private BenchReport() {}

    public static void main(String[] args) throws Exception {
        CommandLineOptions options;
        try {
            options = new CommandLineOptions(args);
        } catch (CommandLineOptionException e) {
            System.err.println("error: " + e.getMessage() + " (-h lists JMH's options)");
            System.exit(2);
            return;
        }
        if (options.shouldHelp()
                || options.shouldList()
                || options.shouldListWithParams()
                || options.shouldListProfilers()
                || options.shouldListResultFormats()) {
            Main.main(args);
            return;
        }
        Collection<RunResult> results = new Runner(options).run();
        System.out.println();
        System.out.print(summarize(results, benchmark -> willRun(options, benchmark)));
    }

    /** Whether JMH's include and exclude patterns (regular expressions found anywhere in the name) select {@code benchmark}. */
    private static boolean willRun(CommandLineOptions options, String benchmark) {
        for (String regexp : options.getExcludes()) {
            if (Pattern.compile(regexp).matcher(benchmark).find()) {
                return false;
            }
        }
        List<String> includes = options.getIncludes();
        if (includes.isEmpty()) {
            return true;
        }
        for (String regexp : includes) {
            if (Pattern.compile(regexp).matcher(benchmark).find()) {
                return true;
            }
        }
        return false;
    }

    /** One row of the targets table: the target, the figure this run measured, and whether it met it. */
    private record Target(String target, String measured, boolean met) {}

    /**
     * The summary of a run, as text. {@code selected}: whether a benchmark, by its full name
     * ({@code dev.quiver.bench.HaversineBenchmark.opencl}), was among the benchmarks to run, so
     * that a missing result means its setup failed.
     */
    static String summarize(Collection<RunResult> results, Predicate<String> selected) {
        boolean openClSelected = selected.test(HaversineBenchmark.class.getName() + ".opencl");
        List<String> lines = new ArrayList<>();
        List<Target> targets = new ArrayList<>();
        lines.add("Quiver against its baselines, medians of the measurement iterations:");
        speedup(results, "BooleanLogicBenchmark", BooleanLogicBenchmark.WORKLOAD, 20, lines, targets);
        speedup(results, "CaseBenchmark", CaseBenchmark.WORKLOAD, 10, lines, targets);
        Median one = find(results, "DispatchBenchmark", "quiver", "1");
        Median full = find(results, "DispatchBenchmark", "quiver", "8192");
        if (one != null && full != null) {
            double share = one.seconds / full.seconds;
            lines.add(String.format(
                    Locale.ROOT,
                    "  %-22s %d-node tree: %s at 1 row / %s at 8192 rows = %.1f%% per-batch fixed cost"
                            + " (target < 5%%: %s)",
                    "DispatchBenchmark",
                    DispatchBenchmark.NODES,
                    one,
                    full,
                    100 * share,
                    share < 0.05 ? "met" : "missed"));
            targets.add(new Target(
                    "Dispatch: per-batch fixed cost < 5% of an 8192-row batch",
                    String.format(Locale.ROOT, "%.1f%%", 100 * share), share < 0.05));
        }
        Median copy = find(results, "MemoryCopyBenchmark", "copy", null);
        if (copy != null) {
            lines.add(String.format(
                    Locale.ROOT,
                    "  %-22s %s: %.1f GB/s (read + written)",
                    "MemoryCopyBenchmark",
                    copy,
                    MemoryCopyBenchmark.bytesMoved() / copy.seconds / 1e9));
        }
        ratio(results, "ProjectionBenchmark", "copyEveryColumn", "onTheSelection", lines);
        ratio(results, "ProjectionBenchmark", "passThroughCopied", "passThroughShared", lines);
        ratio(results, "SharedSubexpressionBenchmark", "eachAlone", "plannedTogether", lines);
        haversine(results, openClSelected, lines, targets);
        strings(results, selected, lines, targets);
        dictionaries(results, lines);
        if (lines.size() == 1) {
            return "";
        }
        if (!targets.isEmpty()) {
            lines.add("");
            lines.add("Targets (this run):");
            int width =
                    targets.stream().mapToInt(t -> t.target().length()).max().orElse(0);
            lines.add(String.format(Locale.ROOT, "  %-" + width + "s  %-9s %s", "target", "measured", "result"));
            for (Target t : targets) {
                lines.add(String.format(
                        Locale.ROOT,
                        "  %-" + width + "s  %-9s %s",
                        t.target(),
                        t.measured(),
                        t.met() ? "met" : "MISSED"));
            }
        }
        return String.join("\n", lines) + "\n";
    }

    /** One line: {@code before}'s median over {@code after}'s, two ways of one benchmark's work. */
    private static void ratio(
            Collection<RunResult> results, String benchmark, String before, String after, List<String> lines) {
        Median b = find(results, benchmark, before, null);
        Median a = find(results, benchmark, after, null);
        if (a != null && b != null) {
            lines.add(String.format(
                    Locale.ROOT,
                    "  %-22s %s %s / %s %s = %.2fx",
                    benchmark,
                    before,
                    b,
                    after,
                    a,
                    b.seconds / a.seconds));
        }
    }

    private static void speedup(
            Collection<RunResult> results,
            String benchmark,
            Workload workload,
            double target,
            List<String> lines,
            List<Target> targets) {
        Median quiver = find(results, benchmark, "quiver", null);
        Median interpreter = find(results, benchmark, "interpreter", null);
        if (quiver == null || interpreter == null) {
            return;
        }
        double ratio = interpreter.seconds / quiver.seconds;
        long bytes = workload.bytesMoved();
        lines.add(String.format(
                Locale.ROOT,
                "  %-22s quiver %s (%.1f GB/s), interpreter %s (%.2f GB/s): %.1fx (target >= %.0fx: %s)",
                benchmark,
                quiver,
                bytes / quiver.seconds / 1e9,
                interpreter,
                bytes / interpreter.seconds / 1e9,
                ratio,
                target,
                ratio >= target ? "met" : "missed"));
        targets.add(new Target(
                String.format(
                        Locale.ROOT, "%s: quiver >= %.0fx interpreter", benchmark.replace("Benchmark", ""), target),
                String.format(Locale.ROOT, "%.1fx", ratio),
                ratio >= target));
    }

    /** HaversineBenchmark: quiver's speed relative to vectorApi and to boxedUdf, opencl beside them. */
    private static void haversine(
            Collection<RunResult> results, boolean openClSelected, List<String> lines, List<Target> targets) {
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
        lines.add(String.format(
                Locale.ROOT,
                "  %-22s %s, %dM Float64 rows in batches of %dK, no nulls:",
                name,
                Haversine.SQL,
                HaversineBenchmark.ROWS >> 20,
                HaversineBenchmark.BATCH_ROWS >> 10));
        for (var m : new Object[][] {
            {"quiver", quiver},
            {"quiverOneThread", quiverOneThread},
            {"vectorApi", vectorApi},
            {"boxedUdf", boxedUdf},
            {"opencl", opencl}
        }) {
            Median median = (Median) m[1];
            String text;
            if (median != null) {
                text = String.format(Locale.ROOT, "%s (%.2f ns/row)", median, median.seconds / rows * 1e9);
            } else if (m[0].equals("opencl")) {
                text = openClSelected
                        ? "not available (no result: its setup failed, the reason is above, e.g. no OpenCL device)"
                        : "not run (left out by the benchmark filter)";
            } else {
                text = "not run";
            }
            lines.add(String.format(Locale.ROOT, "  %-22s   %-15s %s", "", m[0], text));
        }
        if (quiver != null && vectorApi != null) {
            double ratio = vectorApi.seconds / quiver.seconds;
            lines.add(String.format(
                    Locale.ROOT,
                    "  %-22s   quiver vs vectorApi: %.2fx (vectorApi / quiver; target >= 0.85x: %s)",
                    "",
                    ratio,
                    ratio >= 0.85 ? "met" : "missed"));
            targets.add(new Target(
                    "Haversine: quiver >= 0.85x vectorApi (hand-written Vector API)",
                    String.format(Locale.ROOT, "%.2fx", ratio),
                    ratio >= 0.85));
        }
        if (quiver != null && boxedUdf != null) {
            double ratio = boxedUdf.seconds / quiver.seconds;
            lines.add(String.format(
                    Locale.ROOT,
                    "  %-22s   quiver vs boxedUdf: %.1fx (boxedUdf / quiver; target >= 20x: %s)",
                    "",
                    ratio,
                    ratio >= 20 ? "met" : "missed"));
            targets.add(new Target(
                    "Haversine: quiver >= 20x boxedUdf (one boxed call per row)",
                    String.format(Locale.ROOT, "%.1fx", ratio),
                    ratio >= 20));
        }
        if (quiverOneThread != null && vectorApi != null && boxedUdf != null) {
            lines.add(String.format(
                    Locale.ROOT,
                    "  %-22s   quiverOneThread (the calling thread only): %.2fx vectorApi, %.1fx boxedUdf"
                            + " (no target; the CPU device uses %d threads for batches this large)",
                    "",
                    vectorApi.seconds / quiverOneThread.seconds,
                    boxedUdf.seconds / quiverOneThread.seconds,
                    Runtime.getRuntime().availableProcessors()));
        }
        if (quiver != null && opencl != null) {
            lines.add(String.format(
                    Locale.ROOT,
                    "  %-22s   opencl vs quiver: %.2fx (quiver / opencl; no target)",
                    "",
                    quiver.seconds / opencl.seconds));
        }
    }

    /**
     * StringBenchmark: likeQuiver and containsQuiver against containsPerRow, upperQuiver against
     * upperPerRow. A selected benchmark without a result is reported as such (containsQuiver's
     * setup fails where the build has no {@code contains}).
     */
    private static void strings(
            Collection<RunResult> results, Predicate<String> selected, List<String> lines, List<Target> targets) {
        String name = "StringBenchmark";
        String[] methods = {"likeQuiver", "containsQuiver", "upperQuiver", "containsPerRow", "upperPerRow"};
        String[] what = {
            StringBenchmark.LIKE_SQL,
            StringBenchmark.CONTAINS_SQL,
            StringBenchmark.UPPER_SQL,
            "get, new String, String.contains",
            "get, new String, toUpperCase, getBytes, setSafe"
        };
        Median[] medians = new Median[methods.length];
        boolean any = false;
        for (int i = 0; i < methods.length; i++) {
            medians[i] = find(results, name, methods[i], null);
            any |= medians[i] != null;
        }
        if (!any) {
            return;
        }
        double rows = StringBenchmark.ROWS;
        lines.add(String.format(
                Locale.ROOT,
                "  %-22s %dM Utf8 rows of %d-%d ASCII characters (%.0f%% contain '%s', %.0f%% nulls)"
                        + " in batches of %dK:",
                name,
                StringBenchmark.ROWS >> 20,
                StringBatches.MIN_LENGTH,
                StringBatches.MAX_LENGTH,
                100 * StringBatches.MATCH_FRACTION,
                StringBatches.NEEDLE,
                100 * StringBatches.NULL_FRACTION,
                StringBenchmark.BATCH_ROWS >> 10));
        for (int i = 0; i < methods.length; i++) {
            String text;
            if (medians[i] != null) {
                text = String.format(Locale.ROOT, "%s (%.2f ns/row)", medians[i], medians[i].seconds / rows * 1e9);
            } else if (selected.test(StringBenchmark.class.getName() + "." + methods[i])) {
                text = "no result (its setup failed, the reason is above"
                        + (methods[i].equals("containsQuiver") ? ", e.g. no function 'contains' in this build)" : ")");
            } else {
                text = "not run (left out by the benchmark filter)";
            }
            lines.add(String.format(Locale.ROOT, "  %-22s   %-15s %-30s %s", "", methods[i], text, what[i]));
        }
        stringRatio(StringBenchmark.LIKE_SQL, medians[0], "containsPerRow", medians[3], 5, lines, targets);
        stringRatio(StringBenchmark.CONTAINS_SQL, medians[1], "containsPerRow", medians[3], 5, lines, targets);
        stringRatio(StringBenchmark.UPPER_SQL, medians[2], "upperPerRow", medians[4], 3, lines, targets);
    }

    /**
     * DictionaryBenchmark: each variant's median in ns per row, then the ratios that say what
     * dictionary mapping bought: mapped against decoded (the plan before it), against the plain
     * Utf8 column and against the per-row loop.
     */
    private static void dictionaries(Collection<RunResult> results, List<String> lines) {
        String name = "DictionaryBenchmark";
        String[] methods = {
            "eqPlain", "eqDecoded", "eqMapped", "eqPerRow", "inDecoded", "inMapped", "upperDecoded", "upperMapped"
        };
        Median[] m = new Median[methods.length];
        boolean any = false;
        for (int i = 0; i < methods.length; i++) {
            m[i] = find(results, name, methods[i], null);
            any |= m[i] != null;
        }
        if (!any) {
            return;
        }
        double rows = DictionaryBenchmark.ROWS;
        lines.add(String.format(
                Locale.ROOT,
                "  %-22s %d rows of payment_type (%d values, Int32 indices, %.0f%% null) in batches of %dK:",
                name,
                DictionaryBenchmark.ROWS,
                DictionaryBenchmark.VALUES.length,
                100 * DictionaryBenchmark.NULL_FRACTION,
                DictionaryBenchmark.BATCH_ROWS >> 10));
        for (int i = 0; i < methods.length; i++) {
            if (m[i] != null) {
                lines.add(String.format(
                        Locale.ROOT,
                        "  %-22s   %-15s %s (%.2f ns/row)",
                        "",
                        methods[i],
                        m[i],
                        m[i].seconds / rows * 1e9));
            }
        }
        ratio(DictionaryBenchmark.EQ_SQL + ": mapped vs decoded", m[2], m[1], lines);
        ratio(DictionaryBenchmark.EQ_SQL + ": mapped vs plain Utf8", m[2], m[0], lines);
        ratio(DictionaryBenchmark.EQ_SQL + ": mapped vs per-row loop", m[2], m[3], lines);
        ratio(DictionaryBenchmark.EQ_SQL + ": decoded vs per-row loop", m[1], m[3], lines);
        ratio(DictionaryBenchmark.IN_SQL + ": mapped vs decoded", m[5], m[4], lines);
        ratio(DictionaryBenchmark.UPPER_SQL + ": mapped vs decoded", m[7], m[6], lines);
    }

    /** "what: 12.3x (baseline / measured)", when both ran. */
    private static void ratio(String what, Median measured, Median baseline, List<String> lines) {
        if (measured != null && baseline != null) {
            lines.add(String.format(
                    Locale.ROOT, "  %-22s   %s: %.2fx faster", "", what, baseline.seconds / measured.seconds));
        }
    }

    private static void stringRatio(
            String sql,
            Median quiver,
            String baselineName,
            Median baseline,
            double target,
            List<String> lines,
            List<Target> targets) {
        if (quiver == null || baseline == null) {
            return;
        }
        double ratio = baseline.seconds / quiver.seconds;
        lines.add(String.format(
                Locale.ROOT,
                "  %-22s   %s vs %s: %.1fx (%s / quiver; target >= %.0fx: %s)",
                "",
                sql,
                baselineName,
                ratio,
                baselineName,
                target,
                ratio >= target ? "met" : "missed"));
        targets.add(new Target(
                String.format(Locale.ROOT, "Strings: %s >= %.0fx %s", sql, target, baselineName),
                String.format(Locale.ROOT, "%.1fx", ratio),
                ratio >= target));
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
