package dev.quiver.cli.queries;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Prints {@link QueryBench}'s figures as they come: a table (the header, a line per query with
 * each engine's median ms and Quiver-on-one-thread's speedups over the two baselines, then the
 * geometric means), or JSON lines (an object per query and engine, then one per engine with its
 * geometric means; the header goes to {@code info}).
 */
public final class QueryReport {
    /** The engine whose speedups the table's last two columns show. */
    public static final String FOCUS = "quiver-cpu-1t";

    private final PrintStream out;
    private final PrintStream info;
    private final boolean json;
    private final int batchRows;
    private final ObjectMapper mapper = new ObjectMapper();
    private List<String> engines = List.of();

    /**
     * @param out       where the table or the JSON lines go
     * @param info      where the header goes with JSON
     * @param json      JSON lines rather than a table
     * @param batchRows the batch size, for the JSON
     */
    public QueryReport(PrintStream out, PrintStream info, boolean json, int batchRows) {
        this.out = out;
        this.info = info;
        this.json = json;
        this.batchRows = batchRows;
    }

    void header(List<String> header, List<String> engineNames) {
        this.engines = List.copyOf(engineNames);
        PrintStream to = json ? info : out;
        header.forEach(to::println);
        if (!json) {
            StringBuilder line =
                    new StringBuilder(String.format(Locale.ROOT, "%-14s %10s %10s", "query", "rows in", "rows out"));
            for (String e : engines) {
                line.append(String.format(Locale.ROOT, " %13s", e));
            }
            line.append(String.format(Locale.ROOT, " %12s %12s", "1t vs loop", "1t vs duckdb"));
            out.println("median ms per pass over all batches; the last two columns: " + FOCUS
                    + "'s speedup over java-loop and duckdb-1t (their median / its median)");
            out.println(line);
        }
        out.flush();
    }

    /** The table's column headings. */
    public static String columnsLine(List<String> engines) {
        StringBuilder line =
                new StringBuilder(String.format(Locale.ROOT, "%-14s %10s %10s", "query", "rows in", "rows out"));
        for (String e : engines) {
            line.append(String.format(Locale.ROOT, " %13s", e));
        }
        return line.append(String.format(Locale.ROOT, " %12s %12s", "1t vs loop", "1t vs duckdb"))
                .toString();
    }

    /** A query's line of the table. */
    public static String queryLine(QueryTiming t, List<String> engines) {
        StringBuilder line = new StringBuilder(
                String.format(Locale.ROOT, "%-14s %10d %10d", t.query().name(), t.rowsIn(), t.rowsOut()));
        for (String e : engines) {
            line.append(String.format(Locale.ROOT, " %13s", ms(t.medianMs().get(e))));
        }
        return line.append(String.format(
                        Locale.ROOT,
                        " %12s %12s",
                        ratio(t.speedup(FOCUS, JavaLoopEngine.NAME)),
                        ratio(t.speedup(FOCUS, DuckDbEngine.NAME))))
                .toString();
    }

    void query(QueryTiming t) {
        if (json) {
            for (String e : engines) {
                Double ms = t.medianMs().get(e);
                if (ms == null) {
                    continue;
                }
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("query", t.query().name());
                m.put("table", t.query().table().sqlName());
                m.put("encoding", t.query().encoding().name().toLowerCase(Locale.ROOT));
                m.put("rows", t.rowsIn());
                m.put("batchRows", batchRows);
                m.put("rowsOut", t.rowsOut());
                m.put("engine", e);
                m.put("medianMs", round(ms, 3));
                m.put("speedupVsJavaLoop", round(t.speedup(e, JavaLoopEngine.NAME), 3));
                m.put("speedupVsDuckDb", round(t.speedup(e, DuckDbEngine.NAME), 3));
                print(m);
            }
        } else {
            out.println(queryLine(t, engines));
        }
        out.flush();
    }

    void summary(SuiteSummary s) {
        if (json) {
            for (String e : s.engines()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("summary", "geomean");
                m.put("engine", e);
                m.put("queries", s.queries().get(e).get(JavaLoopEngine.NAME));
                m.put("speedupVsJavaLoop", round(s.speedups().get(e).get(JavaLoopEngine.NAME), 3));
                m.put("speedupVsDuckDb", round(s.speedups().get(e).get(DuckDbEngine.NAME), 3));
                m.put("geomeanMs", round(s.medianMs().get(e), 3));
                print(m);
            }
        } else {
            for (String line : summaryLines(s)) {
                out.println(line);
            }
        }
        out.flush();
    }

    /** The table's closing lines: the geometric mean of each engine's medians, then each engine's speedups. */
    public static List<String> summaryLines(SuiteSummary s) {
        List<String> lines = new ArrayList<>();
        StringBuilder g = new StringBuilder(String.format(Locale.ROOT, "%-14s %10s %10s", "geomean", "", ""));
        for (String e : s.engines()) {
            g.append(String.format(Locale.ROOT, " %13s", ms(s.medianMs().get(e))));
        }
        lines.add(g + "   (over the " + s.common() + " queries every engine ran)");
        lines.add(
                "Geometric means of the speedups over the queries (a baseline's median / the engine's; above 1: faster):");
        lines.add(String.format(Locale.ROOT, "  %-14s %14s %14s", "engine", "vs java-loop", "vs duckdb-1t"));
        for (String e : s.engines()) {
            lines.add(String.format(
                    Locale.ROOT,
                    "  %-14s %14s %14s",
                    e,
                    ratio(s.speedups().get(e).get(JavaLoopEngine.NAME)),
                    ratio(s.speedups().get(e).get(DuckDbEngine.NAME))));
        }
        return lines;
    }

    private void print(Map<String, Object> m) {
        try {
            out.println(mapper.writeValueAsString(m));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String ms(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%.2f", v);
    }

    static String ratio(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%.2fx", v);
    }

    private static Double round(Double v, int digits) {
        if (v == null) {
            return null;
        }
        double p = Math.pow(10, digits);
        return Math.round(v * p) / p;
    }
}
