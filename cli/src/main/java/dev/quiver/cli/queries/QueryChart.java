package dev.quiver.cli.queries;

import static dev.quiver.cli.html.HtmlText.escape;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code quiver bench --queries --chart FILE}: the results as one self-contained HTML page (inline
 * SVG, no script, font or other file; well-formed XML as well as HTML): the header and the
 * table with its geometric means as the command prints them, the command that reproduces the run, a bar chart of
 * each engine's geometric-mean speedup over the two baselines, and per query a bar per engine of
 * its median ms, each bar's figures in a tooltip.
 */
public final class QueryChart {
    private static final int WIDTH = 760,
            LABEL = 130,
            SPEEDUP_LABEL = 200,
            RIGHT = 170,
            BAR = 16,
            GAP = 6,
            TOP = 8,
            AXIS = 26;
    private static final String[] COLOURS = {"#7f7f7f", "#ff7f0e", "#1f77b4", "#2ca02c", "#9467bd", "#d62728"};

    private QueryChart() {}

    /** The page for {@code outcome}, with {@code reproduce} as the command to run it again. */
    public static String html(QueryBench.Outcome outcome, String reproduce) {
        SuiteSummary summary = SuiteSummary.of(outcome.engines(), outcome.timings());
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html>\n");
        h.append("<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n");
        h.append("<title>Quiver bench --queries</title>\n<style>\n");
        h.append("body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }\n");
        h.append("pre { white-space: pre-wrap; background: #f6f6f6; padding: 0.6em; font-size: 0.85em; }\n");
        h.append("pre.summary { white-space: pre; overflow-x: auto; }\n");
        h.append(".chart { margin: 0 0 1.5em 0; }\n.chart h2 { font-size: 1em; margin: 0 0 0.3em 0; }\n");
        h.append(".chart p { margin: 0 0 0.3em 0; font-size: 0.85em; }\n");
        h.append("svg text { font-size: 11px; fill: #333; }\nsvg .axis { stroke: #444; stroke-width: 1; }\n");
        h.append("svg .one { stroke: #222; stroke-width: 1; stroke-dasharray: 4 3; }\n");
        h.append("svg rect:hover { stroke: #000; stroke-width: 1; }\n");
        for (int i = 0; i < outcome.engines().size(); i++) {
            h.append("svg rect.")
                    .append(css(outcome.engines().get(i)))
                    .append(" { fill: ")
                    .append(COLOURS[i % COLOURS.length])
                    .append("; }\n");
        }
        h.append("</style>\n</head>\n<body>\n<h1>Quiver bench --queries</h1>\n");
        h.append("<pre class=\"machine\">")
                .append(escape(String.join("\n", outcome.header())))
                .append("</pre>\n");
        List<String> table = new ArrayList<>();
        table.add(QueryReport.columnsLine(outcome.engines()));
        outcome.timings().forEach(t -> table.add(QueryReport.queryLine(t, outcome.engines())));
        table.addAll(QueryReport.summaryLines(summary));
        h.append("<pre class=\"summary\">")
                .append(escape(String.join("\n", table)))
                .append("</pre>\n");
        if (!outcome.errors().isEmpty()) {
            h.append("<pre class=\"errors\">")
                    .append(escape("errors:\n" + String.join("\n", outcome.errors())))
                    .append("</pre>\n");
        }
        h.append("<p>Reproduce: <code class=\"reproduce\">")
                .append(escape(reproduce))
                .append("</code></p>\n");
        speedups(h, summary);
        for (QueryTiming t : outcome.timings()) {
            query(h, t, outcome.engines());
        }
        h.append("</body>\n</html>\n");
        return h.toString();
    }

    /** Per engine, a bar per baseline: its geometric-mean speedup, a dashed line at 1. */
    private static void speedups(StringBuilder h, SuiteSummary s) {
        double max = 1;
        for (String e : s.engines()) {
            for (String b : s.baselines()) {
                Double v = s.speedups().get(e).get(b);
                max = Math.max(max, v == null ? 0 : v);
            }
        }
        int rows = s.engines().size() * s.baselines().size();
        int height = TOP + rows * (BAR + GAP) + s.engines().size() * GAP + AXIS;
        h.append("<div class=\"chart\">\n<h2>Geometric-mean speedup over the suite</h2>\n");
        h.append("<p>A baseline's median over the engine's, per query, then the geometric mean; ")
                .append("right of the dashed line the engine is faster than that baseline.</p>\n");
        open(h, height, "speedups");
        double scale = (WIDTH - SPEEDUP_LABEL - RIGHT) / (max * 1.05);
        int y = TOP;
        for (int i = 0; i < s.engines().size(); i++) {
            String e = s.engines().get(i);
            for (String b : s.baselines()) {
                Double v = s.speedups().get(e).get(b);
                text(h, SPEEDUP_LABEL - 6, y + BAR - 4, "end", e + " vs " + b);
                if (v != null) {
                    String tip = String.format(
                            Locale.ROOT,
                            "%s vs %s: %.2fx (geometric mean over %d queries)",
                            e,
                            b,
                            v,
                            s.queries().get(e).get(b));
                    bar(h, css(e), SPEEDUP_LABEL, y, v * scale, tip, QueryReport.ratio(v));
                }
                y += BAR + GAP;
            }
            y += GAP;
        }
        int one = (int) Math.round(SPEEDUP_LABEL + scale);
        h.append(String.format(
                Locale.ROOT, "<line class=\"one\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", one, TOP - 4, one, y));
        text(h, one, y + 14, "middle", "1x");
        h.append("</svg>\n</div>\n");
    }

    /** A bar per engine of its median ms (the axis from 0 to the slowest engine). */
    private static void query(StringBuilder h, QueryTiming t, List<String> engines) {
        double max = t.medianMs().values().stream()
                .mapToDouble(Double::doubleValue)
                .max()
                .orElse(1);
        int height = TOP + engines.size() * (BAR + GAP) + AXIS;
        h.append("<div class=\"chart\">\n<h2>")
                .append(escape(t.query().name() + ": " + t.query().description()))
                .append("</h2>\n<p><code>")
                .append(escape("WHERE " + t.query().filter()))
                .append("</code>; ")
                .append(escape(t.rowsIn() + " rows in, " + t.rowsOut() + " out; median ms per pass"))
                .append("</p>\n");
        open(h, height, t.query().name());
        double scale = (WIDTH - LABEL - RIGHT) / (max * 1.05);
        int y = TOP;
        for (String e : engines) {
            Double ms = t.medianMs().get(e);
            text(h, LABEL - 6, y + BAR - 4, "end", e);
            if (ms == null) {
                text(h, LABEL + 4, y + BAR - 4, "start", "no figure (see the errors)");
            } else {
                Double vsLoop = t.speedup(e, JavaLoopEngine.NAME), vsDuck = t.speedup(e, DuckDbEngine.NAME);
                String tip = String.format(
                        Locale.ROOT,
                        "%s, %s: %.3f ms (%s java-loop, %s duckdb-1t)",
                        t.query().name(),
                        e,
                        ms,
                        QueryReport.ratio(vsLoop),
                        QueryReport.ratio(vsDuck));
                bar(h, css(e), LABEL, y, ms * scale, tip, QueryReport.ms(ms) + " ms");
            }
            y += BAR + GAP;
        }
        h.append(String.format(
                Locale.ROOT,
                "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
                LABEL,
                TOP - 4,
                LABEL,
                y));
        h.append("</svg>\n</div>\n");
    }

    private static void open(StringBuilder h, int height, String name) {
        h.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                        + "role=\"img\" data-chart=\"%s\">\n",
                WIDTH,
                height,
                WIDTH,
                height,
                escape(name)));
    }

    private static void bar(StringBuilder h, String css, int x, int y, double width, String tip, String label) {
        h.append(String.format(
                Locale.ROOT,
                "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\"><title>%s</title></rect>\n",
                css,
                x,
                y,
                Math.max(width, 1),
                BAR,
                escape(tip)));
        text(h, (int) Math.round(x + Math.max(width, 1) + 4), y + BAR - 4, "start", label);
    }

    private static void text(StringBuilder h, int x, int y, String anchor, String s) {
        h.append(String.format(
                Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"%s\">%s</text>\n", x, y, anchor, escape(s)));
    }

    private static String css(String engine) {
        return "e-" + engine.replaceAll("[^a-z0-9]+", "-");
    }
}
