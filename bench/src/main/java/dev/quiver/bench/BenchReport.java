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
 * <li>{@link MemoryCopyBenchmark}'s GB/s, the machine's copy bandwidth.</li>
 * </ul>
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
        System.out.print(summarize(results));
    }

    /** The summary of a run, as text. */
    static String summarize(Collection<RunResult> results) {
        List<String> lines = new ArrayList<>();
        lines.add("Quiver against RowInterpreter, medians of the measurement iterations:");
        speedup(results, "BooleanLogicBenchmark", BooleanLogicBenchmark.WORKLOAD, 20, lines);
        speedup(results, "CaseBenchmark", CaseBenchmark.WORKLOAD, 10, lines);
        Median one = find(results, "DispatchBenchmark", "quiver", "1");
        Median full = find(results, "DispatchBenchmark", "quiver", "8192");
        if (one != null && full != null) {
            double share = one.seconds / full.seconds;
            lines.add(String.format(Locale.ROOT, "  %-22s %d-node tree: %s at 1 row / %s at 8192 rows = %.1f%% per-batch fixed cost"
                            + " (target < 5%%: %s)", "DispatchBenchmark", DispatchBenchmark.NODES, one, full, 100 * share,
                    share < 0.05 ? "met" : "missed"));
        }
        Median copy = find(results, "MemoryCopyBenchmark", "copy", null);
        if (copy != null) {
            lines.add(String.format(Locale.ROOT, "  %-22s %s: %.1f GB/s (read + written)", "MemoryCopyBenchmark", copy,
                    MemoryCopyBenchmark.bytesMoved() / copy.seconds / 1e9));
        }
        return lines.size() == 1 ? "" : String.join("\n", lines) + "\n";
    }

    private static void speedup(Collection<RunResult> results, String benchmark, Workload workload, double target, List<String> lines) {
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
