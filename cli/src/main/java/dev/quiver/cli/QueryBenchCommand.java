package dev.quiver.cli;

import dev.quiver.Quiver;
import dev.quiver.cli.queries.QueryBench;
import dev.quiver.cli.queries.QueryBenchOptions;
import dev.quiver.cli.queries.QueryChart;
import dev.quiver.cli.queries.QueryReport;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.RootAllocator;

/**
 * {@code quiver bench --queries}: the options of {@link BenchCommand} turned into a
 * {@link QueryBench} run (its defaults: 6M rows, batches of 64K), its report on standard output,
 * the chart written with {@code --chart}, and the exit status: 1 when an engine disagreed or
 * failed, or Arrow memory was left allocated at the end.
 */
final class QueryBenchCommand implements Callable<Integer> {
    static final int DEFAULT_ROWS = 6 << 20;
    static final int DEFAULT_BATCH_ROWS = 64 << 10;

    private final BenchCommand options;

    QueryBenchCommand(BenchCommand options) {
        this.options = options;
    }

    @Override
    public Integer call() {
        for (String other : List.of("--expr", "--schema", "--nulls", "--device", "--budget-ms", "--arithmetic")) {
            if (options.given(other)) {
                options.progress.println("error: " + other + " does not go with --queries");
                return ExitStatus.USAGE;
            }
        }
        if (options.given("--rows") && options.rows.size() != 1
                || options.batchRows != null && options.batchRows.size() != 1) {
            options.progress.println("error: --queries takes one --rows and one --batch-rows");
            return ExitStatus.USAGE;
        }
        if (options.chart != null) {
            try {
                OutputTarget.resolve("--chart", options.chart, null); // checked now, written after the run
            } catch (CliError e) {
                return ExitStatus.report(e, options.progress);
            }
        }
        int rows = options.given("--rows") ? options.rows.getFirst() : DEFAULT_ROWS;
        int batchRows = options.batchRows != null ? options.batchRows.getFirst() : DEFAULT_BATCH_ROWS;
        try {
            QueryBench.select(options.workloads);
        } catch (IllegalArgumentException e) {
            options.progress.println("error: " + e.getMessage());
            return ExitStatus.USAGE;
        }
        QueryBenchOptions o = new QueryBenchOptions(
                rows,
                batchRows,
                options.warmup,
                options.warmupMs,
                options.iterations,
                options.seed,
                options.workloads,
                () -> TransferOption.apply(Quiver.builder().functions(CliFunctions.registry()), options.transfer),
                options.progress);
        QueryReport report =
                new QueryReport(options.out, options.progress, options.format == BenchCommand.Format.json, batchRows);
        int failures = 0;
        QueryBench.Outcome outcome;
        try (RootAllocator allocator = new RootAllocator()) {
            outcome = new QueryBench(o).run(allocator, report);
            failures += outcome.errors().size();
            if (allocator.getAllocatedMemory() != 0) {
                options.progress.println(
                        "error: " + allocator.getAllocatedMemory() + " bytes still allocated after the benchmark");
                failures++;
            }
        }
        String reproduce = reproduce(rows, batchRows);
        options.progress.println("reproduce: " + reproduce);
        if (options.chart != null) {
            try {
                OutputTarget.resolve("--chart", options.chart, null)
                        .write(QueryChart.html(outcome, reproduce).getBytes(StandardCharsets.UTF_8));
                options.progress.println("chart written to " + options.chart);
            } catch (RuntimeException e) {
                options.progress.println("error: could not write the chart: " + ExitStatus.message(e));
                failures++;
            }
        }
        return failures == 0 ? ExitStatus.OK : ExitStatus.FAILED;
    }

    private String reproduce(int rows, int batchRows) {
        List<String> args = new ArrayList<>(List.of(
                "./quiver",
                "bench",
                "--queries",
                "--rows",
                Integer.toString(rows),
                "--batch-rows",
                Integer.toString(batchRows),
                "--iterations",
                Integer.toString(options.iterations),
                "--warmup",
                Integer.toString(options.warmup),
                "--warmup-ms",
                Integer.toString(options.warmupMs),
                "--seed",
                Long.toString(options.seed)));
        if (options.workloads != null) {
            args.add("--workload");
            args.add(String.join(",", options.workloads));
        }
        if (options.transfer != null) {
            args.add("--transfer");
            args.add(options.transfer.label());
        }
        return String.join(" ", args);
    }
}
