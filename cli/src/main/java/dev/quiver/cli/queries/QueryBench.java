package dev.quiver.cli.queries;

import static java.util.Objects.requireNonNull;

import dev.quiver.Device;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jdk.incubator.vector.DoubleVector;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.TransferPair;

/**
 * {@code quiver bench --queries}: the suite's queries ({@link QuerySuite}) over generated tables,
 * each on every engine over the same Arrow batches: the hand-written loop, DuckDB on one thread,
 * and Quiver under placement CPU on one thread, CPU on its default threads, and AUTO.
 *
 * <p>Per query: every engine runs it once and its whole result is checked against the loop's
 * ({@link ResultChecker}); an engine that disagrees or fails is reported as an error and not
 * timed. Then each engine warms up (at least {@code warmup} passes and {@code warmupMs}), and the
 * timed passes go round-robin across the engines, so that load on the machine falls on all of
 * them alike; each figure is the median pass over all batches, results materialised and freed.
 * After each query the allocator must hold exactly the table again.
 */
public final class QueryBench {
    private final QueryBenchOptions options;

    public QueryBench(QueryBenchOptions options) {
        this.options = requireNonNull(options, "options is null");
    }

    /** What a run measured, and what went wrong (an empty list when nothing did). */
    public record Outcome(List<String> header, List<String> engines, List<QueryTiming> timings, List<String> errors) {}

    /** The queries the options name, in the suite's order; an unknown name is an error. */
    public static List<BenchQuery> select(List<String> names) {
        List<BenchQuery> all = QuerySuite.all();
        if (names == null) {
            return all;
        }
        for (String n : names) {
            if (all.stream().noneMatch(q -> q.name().equals(n))) {
                throw new IllegalArgumentException(
                        "no query is named '" + n + "'; known: " + String.join(", ", QuerySuite.names()));
            }
        }
        return all.stream().filter(q -> names.contains(q.name())).toList();
    }

    /** Runs the selected queries, every buffer from {@code allocator}, and reports each as it finishes. */
    public Outcome run(BufferAllocator allocator, QueryReport report) {
        List<BenchQuery> queries = select(options.queries());
        List<Engine> engines = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        List<QueryTiming> timings = new ArrayList<>();
        BenchTable table = null;
        try {
            engines.add(new JavaLoopEngine(allocator));
            engines.add(DuckDbEngine.open(allocator, options.batchRows()));
            addQuiverEngines(engines, allocator);
            List<String> header = header(engines);
            List<String> names = engines.stream().map(Engine::name).toList();
            report.header(header, names);
            for (int i = 0; i < queries.size(); i++) {
                BenchQuery q = queries.get(i);
                if (table == null || !table.name().equals(q.table().sqlName()) || table.encoding() != q.encoding()) {
                    if (table != null) {
                        table.close();
                        table = null;
                    }
                    options.progress()
                            .printf(
                                    "generating %s (%s strings): %d rows in batches of %d%n",
                                    q.table().sqlName(),
                                    q.encoding().name().toLowerCase(Locale.ROOT),
                                    options.rows(),
                                    options.batchRows());
                    table = q.table()
                            .generate(allocator, options.rows(), options.batchRows(), options.seed(), q.encoding());
                }
                options.progress().printf("[%d/%d] %s: %s%n", i + 1, queries.size(), q.name(), q.description());
                QueryTiming t = measure(q, table, engines, allocator, errors);
                timings.add(t);
                report.query(t);
            }
            report.summary(SuiteSummary.of(names, timings));
            return new Outcome(header, names, timings, errors);
        } finally {
            if (table != null) {
                table.close();
            }
            for (Engine e : engines) {
                e.close();
            }
        }
    }

    private void addQuiverEngines(List<Engine> engines, BufferAllocator allocator) {
        String api = "Quiver compileProjection(schema, dictionaries, filter, projections), then project(batch, ";
        Quiver one = options.quiver()
                .get()
                .allocator(allocator)
                .cpuThreads(1)
                .openCl(false)
                .build();
        engines.add(new QuiverEngine(
                "quiver-cpu-1t", api + "Placement.CPU, allocator), cpuThreads(1)", one, Placement.CPU, allocator));
        Quiver cpu = options.quiver().get().allocator(allocator).openCl(false).build();
        engines.add(new QuiverEngine(
                "quiver-cpu",
                api + "Placement.CPU, allocator), default threads ("
                        + Runtime.getRuntime().availableProcessors() + " cores)",
                cpu,
                Placement.CPU,
                allocator));
        Quiver auto = options.quiver().get().allocator(allocator).build();
        engines.add(new QuiverEngine(
                "quiver-auto",
                api + "Placement.AUTO, allocator), default threads, devices: "
                        + String.join(
                                ", ", auto.devices().stream().map(Device::name).toList())
                        + (auto.openClDevices().isEmpty() ? " (no OpenCL: " + auto.openClStatus() + ")" : ""),
                auto,
                Placement.AUTO,
                allocator));
    }

    private List<String> header(List<Engine> engines) {
        List<String> lines = new ArrayList<>();
        lines.add(String.format(
                Locale.ROOT,
                "Quiver bench --queries: Java %s, %d cores, CPU vectors %d-bit, %s rows per table in batches of %d, "
                        + "%d timed passes (after at least %d and %d ms of warm-up), seed %d",
                Runtime.version(),
                Runtime.getRuntime().availableProcessors(),
                DoubleVector.SPECIES_PREFERRED.vectorBitSize(),
                options.rows(),
                options.batchRows(),
                options.iterations(),
                options.warmup(),
                options.warmupMs(),
                options.seed()));
        for (Engine e : engines) {
            lines.add("  " + e.name() + ": " + e.description());
        }
        lines.add("  every result is checked against " + JavaLoopEngine.NAME + " before it is timed (floats within "
                + ResultChecker.RELATIVE_TOLERANCE + " relative)");
        return lines;
    }

    private QueryTiming measure(
            BenchQuery q, BenchTable table, List<Engine> engines, BufferAllocator allocator, List<String> errors) {
        long tableBytes = allocator.getAllocatedMemory();
        Map<Engine, PreparedQuery> ready = new LinkedHashMap<>();
        for (Engine e : engines) {
            try {
                ready.put(e, e.prepare(q, table));
            } catch (RuntimeException ex) {
                error(errors, q.name() + ": " + e.name() + " could not plan it: " + ex.getMessage());
            }
        }
        Engine loop = engines.stream()
                .filter(e -> e.name().equals(JavaLoopEngine.NAME))
                .findFirst()
                .orElseThrow();
        long rowsOut = -1;
        List<VectorSchemaRoot> expected = null;
        try {
            if (ready.containsKey(loop)) {
                try {
                    expected = collect(ready.get(loop), allocator);
                    rowsOut = expected.stream()
                            .mapToLong(VectorSchemaRoot::getRowCount)
                            .sum();
                } catch (RuntimeException ex) {
                    error(errors, q.name() + ": " + loop.name() + " failed: " + ex);
                }
            }
            if (expected == null) {
                return new QueryTiming(q, table.rows(), rowsOut, Map.of());
            }
            for (Engine e : engines) {
                if (e == loop || !ready.containsKey(e)) {
                    continue;
                }
                List<VectorSchemaRoot> actual = List.of();
                try {
                    actual = collect(ready.get(e), allocator);
                    ResultChecker.check(q.name(), e.name(), loop.name(), expected, actual);
                } catch (RuntimeException ex) {
                    error(
                            errors,
                            ex instanceof ResultMismatchException
                                    ? ex.getMessage()
                                    : q.name() + ": " + e.name() + " failed: " + ex);
                    ready.remove(e);
                } finally {
                    actual.forEach(VectorSchemaRoot::close);
                }
            }
        } finally {
            if (expected != null) {
                expected.forEach(VectorSchemaRoot::close);
            }
        }
        Map<String, Double> medians = time(q, ready, rowsOut, errors);
        long left = allocator.getAllocatedMemory() - tableBytes;
        if (left != 0) {
            error(errors, q.name() + ": " + left + " bytes still allocated after its runs (a leak)");
        }
        return new QueryTiming(q, table.rows(), rowsOut, medians);
    }

    /** Warm-up per engine, then round-robin timed passes: the median ms per engine. */
    private Map<String, Double> time(
            BenchQuery q, Map<Engine, PreparedQuery> ready, long rowsOut, List<String> errors) {
        Map<Engine, double[]> times = new LinkedHashMap<>();
        for (var e : ready.entrySet()) {
            try {
                long end = System.nanoTime() + options.warmupMs() * 1_000_000L;
                for (int i = 0; i < options.warmup() || System.nanoTime() < end; i++) {
                    pass(e.getValue(), rowsOut);
                }
                times.put(e.getKey(), new double[options.iterations()]);
            } catch (RuntimeException ex) {
                error(errors, q.name() + ": " + e.getKey().name() + " failed while warming up: " + ex);
            }
        }
        for (int i = 0; i < options.iterations(); i++) {
            for (var e : List.copyOf(times.entrySet())) {
                try {
                    long t0 = System.nanoTime();
                    pass(ready.get(e.getKey()), rowsOut);
                    e.getValue()[i] = (System.nanoTime() - t0) / 1e6;
                } catch (RuntimeException ex) {
                    error(errors, q.name() + ": " + e.getKey().name() + " failed while timed: " + ex);
                    times.remove(e.getKey());
                }
            }
        }
        Map<String, Double> medians = new LinkedHashMap<>();
        times.forEach((e, t) -> medians.put(e.name(), median(t)));
        return medians;
    }

    private static void pass(PreparedQuery q, long rowsOut) {
        long rows = q.run(r -> {});
        if (rows != rowsOut) {
            throw new IllegalStateException("a pass gave " + rows + " rows, the checked run " + rowsOut);
        }
    }

    /** Every result batch of one run, kept (its buffers transferred to {@code allocator}); the caller closes them. */
    static List<VectorSchemaRoot> collect(PreparedQuery q, BufferAllocator allocator) {
        List<VectorSchemaRoot> kept = new ArrayList<>();
        try {
            q.run(r -> kept.add(keep(r, allocator)));
            return kept;
        } catch (RuntimeException | Error e) {
            kept.forEach(VectorSchemaRoot::close);
            throw e;
        }
    }

    private static VectorSchemaRoot keep(VectorSchemaRoot r, BufferAllocator allocator) {
        List<FieldVector> vectors = new ArrayList<>();
        for (FieldVector v : r.getFieldVectors()) {
            TransferPair t = v.getTransferPair(allocator);
            t.transfer();
            vectors.add((FieldVector) t.getTo());
        }
        VectorSchemaRoot kept = new VectorSchemaRoot(vectors);
        kept.setRowCount(r.getRowCount());
        return kept;
    }

    private void error(List<String> errors, String message) {
        errors.add(message);
        options.progress().println("error: " + message);
    }

    static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
