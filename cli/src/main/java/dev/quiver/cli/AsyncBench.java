package dev.quiver.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.functions.FunctionRegistry;
import dev.quiver.stream.AsyncCallMetrics;
import dev.quiver.stream.AsyncOptions;
import dev.quiver.stream.BatchStreams;
import dev.quiver.stream.Pipeline;
import dev.quiver.stream.PipelinePlan;
import dev.quiver.stream.QueryExecution;
import dev.quiver.stream.QueryRuntime;
import dev.quiver.types.DataType;
import java.io.IOException;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import picocli.CommandLine;

/**
 * {@code quiver bench --async}: what batching and concurrency buy for a remote function. An HTTP
 * score service runs in-process on the loopback interface ({@link LoopbackScoreServer}: a JSON
 * array of strings in, their lengths out, after a fixed latency per request), and the pipeline
 * {@code project("id", "score(text) AS s")} calls it through {@link HttpScoreFunction} (an
 * {@code AsyncScalarFunction} over {@code HttpClient.sendAsync}) in several configurations of
 * rows per call and calls in flight, against one call per row.
 *
 * <p>Per configuration: a new Quiver (CPU placement, no OpenCL) with the function registered,
 * the pipeline planned once, then {@code --warmup} untimed runs and {@code --iterations} timed
 * runs; a run's input batches are built before its clock starts, and its time runs from
 * {@code execute} to the last output batch consumed. Every run's output is checked row by row
 * against the expected lengths, and its HTTP requests (counted by the server) against
 * ceil(rows / rows per call). Configurations with one row per call run on at most
 * {@code --per-row-rows} rows; the baseline {@code 1x1}'s time per row, scaled to {@code --rows},
 * is what the speedups compare with.
 */
final class AsyncBench {
    /** The async operator's batches in flight (the default of AsyncOptions). */
    private static final int BATCHES_IN_FLIGHT = AsyncOptions.defaults().batchesInFlight();

    static final int DEFAULT_ROWS = 100_000;
    static final int DEFAULT_PER_ROW_ROWS = 2000;
    static final int DEFAULT_ITERATIONS = 5;
    static final int DEFAULT_WARMUP = 1;
    static final double DEFAULT_LATENCY_MS = 2;
    /** Rows per input batch, and the async operator's batch size: the pipeline's default. */
    static final int BATCH_ROWS = AsyncOptions.DEFAULT_BATCH_SIZE;

    static final String DEFAULT_CONFIGS = "1x1,1000x1,1000x4,1000x16,batchx4";
    static final String PIPELINE = "project(\"id\", \"score(text) AS s\")";
    static final Schema SCHEMA =
            new Schema(List.of(DataType.INT64.toField("id", true), DataType.UTF8.toField("text", true)));
    private static final int MAX_TEXT_LENGTH = 16;
    private static final int MAX_IN_FLIGHT = 1024;

    /**
     * One configuration: rows per call ({@code 0}: the whole batch, {@value #BATCH_ROWS} rows) and
     * calls in flight at most.
     */
    record Config(int rowsPerCall, int maxInFlight) {
        String label() {
            return (rowsPerCall == 0 ? "batch" : Integer.toString(rowsPerCall)) + "x" + maxInFlight;
        }

        /** The rows one call carries (the stream's last call may carry fewer). */
        int chunkRows() {
            return rowsPerCall == 0 ? BATCH_ROWS : rowsPerCall;
        }

        boolean perRow() {
            return rowsPerCall == 1;
        }

        boolean baseline() {
            return rowsPerCall == 1 && maxInFlight == 1;
        }

        /** The rows of the async operator's batches: {@value #BATCH_ROWS} rounded down to a multiple of the chunk, or the chunk if larger. */
        int batchRows() {
            return chunkRows() >= BATCH_ROWS ? chunkRows() : BATCH_ROWS / chunkRows() * chunkRows();
        }

        long expectedRequests(int rows) {
            return (rows + (long) chunkRows() - 1) / chunkRows();
        }
    }

    /** {@code ROWSxCALLS}, e.g. {@code 1000x4}; {@code batchx4}: the whole batch per call. */
    static final class ConfigConverter implements CommandLine.ITypeConverter<Config> {
        @Override
        public Config convert(String s) {
            return parse(s);
        }
    }

    static Config parse(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        int x = t.indexOf('x');
        String why = null;
        Config c = null;
        if (x <= 0 || x == t.length() - 1 || t.indexOf('x', x + 1) >= 0) {
            why = "not of the form ROWSxCALLS";
        } else {
            String rows = t.substring(0, x), calls = t.substring(x + 1);
            try {
                int r = rows.equals("batch") ? 0 : Integer.parseInt(rows);
                int n = Integer.parseInt(calls);
                if (!rows.equals("batch") && r < 1) {
                    why = "rows per call must be at least 1";
                } else if (n < 1 || n > MAX_IN_FLIGHT) {
                    why = "calls in flight must be between 1 and " + MAX_IN_FLIGHT;
                } else {
                    c = new Config(r, n);
                }
            } catch (NumberFormatException e) {
                why = "ROWS and CALLS must be whole numbers (ROWS may be 'batch')";
            }
        }
        if (c == null) {
            throw new CommandLine.TypeConversionException("bad async config '" + s + "': " + why
                    + ". ROWSxCALLS is rows per call x calls in flight at most, e.g. 1x1,1000x4,batchx4 "
                    + "('batch': the whole " + BATCH_ROWS + "-row batch in one call)");
        }
        return c;
    }

    /**
     * One configuration's figures.
     *
     * @param rows        rows each run processed (fewer than --rows for a per-row config)
     * @param requests    HTTP requests per run (checked)
     * @param peakInFlight the most calls in flight at once over the timed runs ({@code AsyncCallMetrics})
     * @param waitShare   the share of the timed runs' wall time with at least one call in flight
     * @param speedupVsPerRow the baseline's time per row times {@code rows}, over {@code medianMs}; null without a baseline
     */
    record Result(
            Config config,
            int rows,
            double medianMs,
            long requests,
            int peakInFlight,
            double waitShare,
            Double speedupVsPerRow) {
        double rowsPerSec() {
            return rows / (medianMs / 1e3);
        }
    }

    /** One run's figures. */
    record Run(double ms, long waitNanos, int peakInFlight) {}

    private final BenchCommand options;
    private final PrintStream out, progress;

    AsyncBench(BenchCommand options) {
        this.options = options;
        this.out = options.out;
        this.progress = options.progress;
    }

    int call() throws Exception {
        if (options.placement) {
            progress.println("error: --async and --placement are two different benchmarks; give one of them");
            return 2;
        }
        List<String> foreign = new ArrayList<>();
        for (String o : List.of(
                "--expr",
                "--schema",
                "--device",
                "--chart",
                "--no-opencl",
                "--batch-rows",
                "--nulls",
                "--workload",
                "--warmup-ms",
                "--budget-ms",
                "--arithmetic")) {
            if (options.given(o)) {
                foreign.add(o);
            }
        }
        if (!foreign.isEmpty()) {
            progress.println("error: --async times its own pipeline, " + PIPELINE + ", over generated data; "
                    + String.join(", ", foreign) + (foreign.size() == 1 ? " does" : " do") + " not go with it");
            return 2;
        }
        if (options.given("--rows") && options.rows.size() != 1) {
            progress.println("error: --async takes one --rows value, got " + options.rows.size());
            return 2;
        }
        int rows = options.given("--rows") ? options.rows.getFirst() : DEFAULT_ROWS;
        int iterations = options.given("--iterations") ? options.iterations : DEFAULT_ITERATIONS;
        int warmup = options.given("--warmup") ? options.warmup : DEFAULT_WARMUP;
        double latencyMs = options.latencyMs == null ? DEFAULT_LATENCY_MS : options.latencyMs;
        int perRowRows = options.perRowRows == null ? DEFAULT_PER_ROW_ROWS : options.perRowRows;
        List<Config> configs = options.asyncConfigs != null
                ? options.asyncConfigs
                : List.of(DEFAULT_CONFIGS.split(",")).stream()
                        .map(AsyncBench::parse)
                        .toList();
        if (iterations < 1) {
            progress.println("error: --iterations must be at least 1");
            return 2;
        }
        if (warmup < 0) {
            progress.println("error: --warmup must be at least 0");
            return 2;
        }
        if (!(latencyMs >= 0 && latencyMs <= 60_000)) {
            progress.println("error: --latency-ms must be between 0 and 60000: " + latencyMs);
            return 2;
        }
        if (perRowRows < 1) {
            progress.println("error: --per-row-rows must be at least 1");
            return 2;
        }
        Set<Config> unique = new LinkedHashSet<>(configs);
        if (unique.size() != configs.size()) {
            progress.println("error: --async-configs lists a config twice: "
                    + String.join(",", configs.stream().map(Config::label).toList()));
            return 2;
        }
        // The baseline runs first, so every other line can print its speedup as soon as it is measured.
        List<Config> order = new ArrayList<>();
        configs.stream().filter(Config::baseline).forEach(order::add);
        configs.stream().filter(c -> !c.baseline()).forEach(order::add);

        String reproduce = reproduce(rows, perRowRows, latencyMs, configs, iterations, warmup);
        RootAllocator allocator = new RootAllocator();
        int failures;
        try {
            failures = run(allocator, order, rows, perRowRows, latencyMs, iterations, warmup, reproduce);
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
            List<Config> configs,
            int rows,
            int perRowRows,
            double latencyMs,
            int iterations,
            int warmup,
            String reproduce)
            throws Exception {
        boolean table = options.format == BenchCommand.Format.table;
        PrintStream info = table ? out : progress;
        ObjectMapper json = new ObjectMapper();
        Data data = new Data(rows, options.seed);
        int failures = 0;
        try (LoopbackScoreServer server = new LoopbackScoreServer(Math.round(latencyMs * 1e6));
                HttpClient http = HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .build();
                QueryRuntime runtime = QueryRuntime.create()) {
            describe(info, rows, perRowRows, latencyMs, iterations, warmup, runtime.threads(), reproduce);
            if (table) {
                out.printf(
                        "%-10s %9s %9s %8s %10s %12s %9s %5s %8s %11s%n",
                        "config",
                        "rows/call",
                        "in flight",
                        "rows",
                        "median ms",
                        "rows/s",
                        "requests",
                        "peak",
                        "waiting",
                        "vs per-row");
            }
            Result baseline = null;
            List<String> notes = new ArrayList<>();
            int step = 0;
            for (Config c : configs) {
                step++;
                int n = c.perRow() ? Math.min(rows, perRowRows) : rows;
                progress.printf(
                        Locale.ROOT,
                        "[%d/%d] %s: %d rows, %d row%s per call, at most %d in flight, "
                                + "%d warm-up + %d timed run%s ...%n",
                        step,
                        configs.size(),
                        c.label(),
                        n,
                        c.chunkRows(),
                        c.chunkRows() == 1 ? "" : "s",
                        c.maxInFlight(),
                        warmup,
                        iterations,
                        iterations == 1 ? "" : "s");
                Result r;
                try {
                    r = measure(allocator, runtime, http, server, data, c, n, iterations, warmup, baseline);
                } catch (Exception e) {
                    progress.println(
                            "  ERROR " + c.label() + ": " + (e instanceof IllegalStateException ? e.getMessage() : e));
                    failures++;
                    continue;
                }
                if (c.baseline()) {
                    baseline = r;
                    if (n < rows) {
                        notes.add(String.format(
                                Locale.ROOT,
                                "  * %s ran on %d of the %d rows (--per-row-rows): %.3f ms per row, "
                                        + "%.1f ms scaled to %d rows; every speedup compares with its time per row",
                                c.label(),
                                n,
                                rows,
                                r.medianMs() / n,
                                r.medianMs() / n * rows,
                                rows));
                    }
                } else if (c.perRow() && n < rows) {
                    notes.add(String.format(
                            Locale.ROOT, "  * %s ran on %d of the %d rows (--per-row-rows)", c.label(), n, rows));
                }
                print(json, r, n < rows);
                out.flush();
                int callsPerBatch = (int) Math.min(c.batchRows() / c.chunkRows(), c.expectedRequests(n));
                int reachable = (int) Math.min((long) callsPerBatch * BATCHES_IN_FLIGHT, c.expectedRequests(n));
                if (r.peakInFlight() < c.maxInFlight() && reachable < c.maxInFlight()) {
                    notes.add(String.format(
                            Locale.ROOT,
                            "  %s peaked at %d call%s in flight, not %d: a batch of %d rows holds %d call%s "
                                    + "of %d rows, and the async operator has at most %d batches in flight",
                            c.label(),
                            r.peakInFlight(),
                            r.peakInFlight() == 1 ? "" : "s",
                            c.maxInFlight(),
                            Math.min(c.batchRows(), n),
                            callsPerBatch,
                            callsPerBatch == 1 ? "" : "s",
                            c.chunkRows(),
                            BATCHES_IN_FLIGHT));
                }
            }
            if (baseline == null && failures == 0) {
                notes.add("  no 1x1 config was run: no speedups");
            }
            notes.forEach(info::println);
            info.println("  reproduce: " + reproduce);
            info.flush();
        }
        return failures;
    }

    private void describe(
            PrintStream to,
            int rows,
            int perRowRows,
            double latencyMs,
            int iterations,
            int warmup,
            int workers,
            String reproduce) {
        to.printf(
                Locale.ROOT,
                "Quiver bench --async: %d cores, %s %s (%s), Java %s (%s, %s)%n",
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("os.name"),
                System.getProperty("os.version"),
                System.getProperty("os.arch"),
                Runtime.version(),
                System.getProperty("java.vm.name"),
                System.getProperty("java.vendor"));
        to.printf(
                Locale.ROOT,
                "  service: in-process loopback HTTP (JDK HttpServer, a virtual thread per request), POST /score: "
                        + "a JSON array of strings in, their lengths out, %s ms latency per request (slept on the request's virtual "
                        + "thread: no platform thread held), TCP_NODELAY %s (-D%s)%n",
                ms(latencyMs),
                Boolean.getBoolean(LoopbackScoreServer.NODELAY) ? "on" : "off",
                LoopbackScoreServer.NODELAY);
        to.println(
                "  function: score(text), an AsyncScalarFunction over java.net.http.HttpClient.sendAsync (HTTP/1.1), "
                        + "one POST per call");
        to.printf(
                Locale.ROOT,
                "  pipeline: %s over %d rows (id BIGINT, text VARCHAR of 1 to %d random letters, seed %d) in input "
                        + "batches of %d rows, %d runtime workers; the async operator works on %d-row batches (a multiple of the "
                        + "rows per call), %d batches in flight: calls overlap within a batch and across batches%n",
                PIPELINE,
                rows,
                MAX_TEXT_LENGTH,
                options.seed,
                BATCH_ROWS,
                workers,
                BATCH_ROWS,
                BATCHES_IN_FLIGHT);
        to.printf(
                Locale.ROOT,
                "  configs: ROWSxCALLS = rows per call x calls in flight at most ('batch': the whole %d-row batch); "
                        + "1 row per call runs on at most %d rows (--per-row-rows)%n",
                BATCH_ROWS,
                perRowRows);
        to.printf(
                Locale.ROOT,
                "  each figure: the median wall time of %d run%s (execute to the last batch consumed) after %d warm-up "
                        + "run%s; every row of every run checked (score = the text's length), and the HTTP requests counted by the server "
                        + "(= ceil(rows / rows per call)); peak = the most calls in flight (AsyncCallMetrics); waiting = share of the wall "
                        + "time with at least one call in flight; vs per-row = 1x1's time per row x rows / median%n",
                iterations,
                iterations == 1 ? "" : "s",
                warmup,
                warmup == 1 ? "" : "s");
        to.flush();
    }

    private Result measure(
            BufferAllocator allocator,
            QueryRuntime runtime,
            HttpClient http,
            LoopbackScoreServer server,
            Data data,
            Config c,
            int rows,
            int iterations,
            int warmup,
            Result baseline)
            throws Exception {
        try (Quiver quiver = quiverWith(
                allocator, new HttpScoreFunction(http, server.endpoint(), c.rowsPerCall(), c.maxInFlight()))) {
            PipelinePlan plan = plan(quiver);
            double[] times = new double[iterations];
            long waitNanos = 0;
            int peak = 0;
            for (int it = -warmup; it < iterations; it++) {
                Run r = runOnce(allocator, runtime, server, plan, data, c, rows);
                if (it >= 0) {
                    times[it] = r.ms();
                    waitNanos += r.waitNanos();
                    peak = Math.max(peak, r.peakInFlight());
                }
            }
            double totalMs = 0;
            for (double t : times) {
                totalMs += t;
            }
            double median = BenchCommand.median(times.clone());
            Double speedup = null;
            if (c.baseline()) {
                speedup = 1.0;
            } else if (baseline != null) {
                speedup = baseline.medianMs() / baseline.rows() * rows / median;
            }
            return new Result(c, rows, median, c.expectedRequests(rows), peak, waitNanos / 1e6 / totalMs, speedup);
        }
    }

    /** A Quiver of its own for one config (CPU placement, no OpenCL), with {@code score} registered. */
    static Quiver quiverWith(BufferAllocator allocator, HttpScoreFunction score) {
        FunctionRegistry functions = CliFunctions.registry();
        functions.register(score);
        return Quiver.builder()
                .allocator(allocator)
                .functions(functions)
                .openCl(false)
                .calibration(false)
                .placement(Placement.CPU)
                .build();
    }

    /** The pipeline timed: {@value #PIPELINE}. */
    static PipelinePlan plan(Quiver quiver) {
        return Pipeline.from(SCHEMA).project("id", "score(text) AS s").plan(quiver);
    }

    /** One run: its input built before the clock starts, its output checked row by row, its requests counted. */
    static Run runOnce(
            BufferAllocator allocator,
            QueryRuntime runtime,
            LoopbackScoreServer server,
            PipelinePlan plan,
            Data data,
            Config c,
            int rows)
            throws Exception {
        Handover source = new Handover(data.batches(allocator, rows));
        long requests0 = server.requests(), strings0 = server.strings();
        Check check = new Check(data);
        long t0 = System.nanoTime();
        QueryExecution q;
        try {
            q = plan.execute(runtime, BatchStreams.fromIterator(SCHEMA, source, runtime.executor()));
        } catch (RuntimeException e) {
            source.close();
            throw e;
        }
        long seen;
        long t1;
        AsyncCallMetrics m;
        try {
            seen = BatchStreams.drain(q.stream(), check);
            t1 = System.nanoTime();
            m = q.asyncMetrics().getFirst();
        } finally {
            q.close();
            q.whenReleased().get(60, TimeUnit.SECONDS);
            source.close();
        }
        long requests = server.requests() - requests0, strings = server.strings() - strings0;
        long expected = c.expectedRequests(rows);
        if (seen != rows) {
            throw new IllegalStateException("the pipeline produced " + seen + " rows for " + rows);
        }
        if (requests != expected || m.calls() != expected) {
            throw new IllegalStateException(String.format(
                    Locale.ROOT,
                    "%d rows at %d rows per call: the server counted %d HTTP "
                            + "requests and the pipeline %d calls, expected %d = ceil(%d / %d)%s",
                    rows,
                    c.chunkRows(),
                    requests,
                    m.calls(),
                    expected,
                    rows,
                    c.chunkRows(),
                    c.perRow() ? " (one per row)" : ""));
        }
        if (strings != rows) {
            throw new IllegalStateException("the server received " + strings + " strings for " + rows + " rows");
        }
        if (m.peakInFlight() > c.maxInFlight() || m.failures() != 0 || m.retries() != 0) {
            throw new IllegalStateException("the call metrics are off: peak in flight " + m.peakInFlight()
                    + " (at most " + c.maxInFlight() + "), " + m.failures() + " failures, " + m.retries() + " retries");
        }
        return new Run((t1 - t0) / 1e6, m.waitNanos(), m.peakInFlight());
    }

    private void print(ObjectMapper json, Result r, boolean scaled) throws IOException {
        if (options.format == BenchCommand.Format.json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("config", r.config().label());
            m.put("rowsPerCall", r.config().chunkRows());
            m.put("maxInFlight", r.config().maxInFlight());
            m.put("rows", r.rows());
            m.put("medianMs", BenchCommand.round(r.medianMs(), 3));
            m.put("rowsPerSec", Math.round(r.rowsPerSec()));
            m.put("requests", r.requests());
            m.put("peakInFlight", r.peakInFlight());
            m.put("speedupVsPerRow", r.speedupVsPerRow() == null ? null : BenchCommand.round(r.speedupVsPerRow(), 2));
            out.println(json.writeValueAsString(m));
        } else {
            out.printf(
                    Locale.ROOT,
                    "%-10s %9d %9d %8s %10.2f %12s %9d %5d %7.0f%% %11s%n",
                    r.config().label(),
                    r.config().chunkRows(),
                    r.config().maxInFlight(),
                    r.rows() + (scaled ? "*" : ""),
                    r.medianMs(),
                    String.format(Locale.ROOT, "%,.0f", r.rowsPerSec()),
                    r.requests(),
                    r.peakInFlight(),
                    r.waitShare() * 100,
                    r.speedupVsPerRow() == null ? "-" : String.format(Locale.ROOT, "%.2fx", r.speedupVsPerRow()));
        }
    }

    private String reproduce(
            int rows, int perRowRows, double latencyMs, List<Config> configs, int iterations, int warmup) {
        StringBuilder sb = new StringBuilder("./quiver bench --async");
        sb.append(" --rows ").append(rows);
        sb.append(" --per-row-rows ").append(perRowRows);
        sb.append(" --latency-ms ").append(ms(latencyMs));
        sb.append(" --async-configs ")
                .append(String.join(",", configs.stream().map(Config::label).toList()));
        sb.append(" --iterations ").append(iterations).append(" --warmup ").append(warmup);
        sb.append(" --seed ").append(options.seed);
        if (options.format == BenchCommand.Format.json) {
            sb.append(" --format json");
        }
        return sb.toString();
    }

    private static String ms(double ms) {
        return ms == Math.rint(ms) ? Long.toString((long) ms) : Double.toString(ms);
    }

    /** The generated rows: text i has 1 to {@value #MAX_TEXT_LENGTH} random lowercase letters; id i is i. */
    static final class Data {
        final byte[][] texts;

        Data(int rows, long seed) {
            SplittableRandom random = new SplittableRandom(seed);
            texts = new byte[rows][];
            for (int i = 0; i < rows; i++) {
                byte[] t = new byte[1 + random.nextInt(MAX_TEXT_LENGTH)];
                for (int k = 0; k < t.length; k++) {
                    t[k] = (byte) ('a' + random.nextInt(26));
                }
                texts[i] = t;
            }
        }

        /** The score the service must give row {@code i}: its text's length (ASCII, so bytes are code points). */
        double expected(long i) {
            return texts[(int) i].length;
        }

        /** The first {@code rows} rows, in new batches of {@link #BATCH_ROWS} rows (the last may be shorter). */
        List<VectorSchemaRoot> batches(BufferAllocator allocator, int rows) {
            List<VectorSchemaRoot> out = new ArrayList<>();
            try {
                for (int first = 0; first < rows; first += BATCH_ROWS) {
                    int n = Math.min(BATCH_ROWS, rows - first);
                    VectorSchemaRoot b = VectorSchemaRoot.create(SCHEMA, allocator);
                    out.add(b);
                    BigIntVector id = (BigIntVector) b.getVector("id");
                    VarCharVector text = (VarCharVector) b.getVector("text");
                    id.allocateNew(n);
                    text.allocateNew((long) n * MAX_TEXT_LENGTH, n);
                    for (int i = 0; i < n; i++) {
                        id.set(i, first + i);
                        text.setSafe(i, texts[first + i]);
                    }
                    b.setRowCount(n);
                }
            } catch (RuntimeException | Error e) {
                out.forEach(VectorSchemaRoot::close);
                throw e;
            }
            return out;
        }
    }

    /** Hands the batches over one by one; closing it closes those not handed over. */
    private static final class Handover implements Iterator<VectorSchemaRoot>, AutoCloseable {
        private final List<VectorSchemaRoot> batches;
        private int next;

        Handover(List<VectorSchemaRoot> batches) {
            this.batches = batches;
        }

        @Override
        public synchronized boolean hasNext() {
            return next < batches.size();
        }

        @Override
        public synchronized VectorSchemaRoot next() {
            if (next >= batches.size()) {
                throw new NoSuchElementException();
            }
            return batches.get(next++);
        }

        @Override
        public synchronized void close() {
            while (next < batches.size()) {
                batches.get(next++).close();
            }
        }
    }

    /** Checks the output row by row: ids 0, 1, 2, ... in order, each score the length of its text. */
    private static final class Check implements Consumer<VectorSchemaRoot> {
        private final Data data;
        private long row;

        Check(Data data) {
            this.data = data;
        }

        @Override
        public void accept(VectorSchemaRoot batch) {
            BigIntVector id = (BigIntVector) batch.getVector("id");
            Float8Vector s = (Float8Vector) batch.getVector("s");
            for (int i = 0; i < batch.getRowCount(); i++, row++) {
                if (id.isNull(i) || id.get(i) != row) {
                    throw new IllegalStateException("output row " + row + " has id "
                            + (id.isNull(i) ? "null" : id.get(i)) + ", expected " + row);
                }
                double expected = data.expected(row);
                if (s.isNull(i) || s.get(i) != expected) {
                    throw new IllegalStateException(
                            "row " + row + " ('" + new String(data.texts[(int) row], StandardCharsets.US_ASCII)
                                    + "'): score " + (s.isNull(i) ? "null" : s.get(i)) + ", expected " + expected);
                }
            }
        }
    }
}
