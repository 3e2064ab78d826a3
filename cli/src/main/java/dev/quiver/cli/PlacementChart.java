package dev.quiver.cli;

import dev.quiver.cli.html.HtmlText;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * {@code quiver bench --placement --chart FILE}: the results as one self-contained HTML page, a
 * line chart per case (ms per pass on a log scale against rows per batch on a log2 scale, a line
 * per policy, each point's value in a tooltip) under the machine, device and totals lines as the
 * table prints them and the command that reproduces the run.
 *
 * <p>The page is well-formed XML as well as HTML ({@code <!DOCTYPE html>}, then an XHTML tree with
 * inline SVG, every element closed, every text escaped), with no script, font or other file.
 */
final class PlacementChart {

    private static final int WIDTH = 700, HEIGHT = 340, LEFT = 72, RIGHT = 178, TOP = 16, BOTTOM = 52;

    /**
     * A policy drawn: its name ({@code cpu}, {@code opencl[copy]}, ...), its CSS class, its colour, whether
     * its line is dashed (a second transfer mode), and its figure of a result (null where absent or
     * where the result is another mode's).
     */
    private record Policy(
            String name, String css, String colour, boolean dashed, Function<PlacementBench.Result, Double> ms) {}

    /** Per transfer mode in the order they ran, its OpenCL and AUTO colours. */
    private static final String[][] MODE_COLOURS = {
        {"#d62728", "#2ca02c"}, {"#ff7f0e", "#8c564b"}, {"#9467bd", "#17becf"}
    };

    /** cpu, then OPENCL per transfer mode, then AUTO per transfer mode (one mode, unlabelled, without OpenCL). */
    static List<Policy> policies(List<PlacementBench.Result> results) {
        List<String> modes = new ArrayList<>();
        for (PlacementBench.Result r : results) {
            if (!modes.contains(r.transfer())) {
                modes.add(r.transfer());
            }
        }
        String firstMode = modes.isEmpty() ? null : modes.getFirst();
        List<Policy> policies = new ArrayList<>();
        // The cpu ran once per case: every mode's result has the same figure, so the first mode's stands for it.
        policies.add(new Policy(
                "cpu", "cpu", "#1f77b4", false, r -> Objects.equals(r.transfer(), firstMode) ? r.cpuMs() : null));
        for (String policy : List.of("opencl", "auto")) {
            for (int m = 0; m < modes.size(); m++) {
                String mode = modes.get(m);
                String name = PlacementBench.label(policy, mode);
                Function<PlacementBench.Result, Double> ms =
                        policy.equals("opencl") ? PlacementBench.Result::openclMs : PlacementBench.Result::autoMs;
                policies.add(new Policy(
                        name,
                        name.replaceAll("[^a-z0-9]+", "-").replaceAll("-$", ""),
                        MODE_COLOURS[m % MODE_COLOURS.length][policy.equals("opencl") ? 0 : 1],
                        m > 0,
                        r -> Objects.equals(r.transfer(), mode) ? ms.apply(r) : null));
            }
        }
        return policies;
    }

    private PlacementChart() {}

    /**
     * The page.
     *
     * @param header      the machine line and the device lines, as printed
     * @param totals      the totals lines, as printed
     * @param expressions per case name, its expression
     */
    static String html(
            List<String> header,
            List<String> totals,
            String reproduce,
            List<PlacementBench.Result> results,
            Map<String, String> expressions) {
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html>\n");
        h.append("<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n");
        h.append("<title>Quiver bench --placement</title>\n");
        h.append("<style>\n");
        h.append("body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }\n");
        h.append("pre { white-space: pre-wrap; background: #f6f6f6; padding: 0.6em; font-size: 0.85em; }\n");
        h.append(".chart { display: inline-block; vertical-align: top; margin: 0 1.5em 1.5em 0; }\n");
        h.append(".chart h2 { font-size: 1em; margin: 0 0 0.3em 0; }\n");
        h.append(".chart h2 code { font-weight: normal; }\n");
        h.append("svg text { font-size: 11px; fill: #333; }\n");
        h.append("svg .grid { stroke: #e4e4e4; stroke-width: 1; }\n");
        h.append("svg .axis { stroke: #444; stroke-width: 1; }\n");
        h.append("svg .label { font-size: 12px; }\n");
        h.append("svg polyline { fill: none; stroke-width: 2; }\n");
        h.append("svg circle { stroke: #fff; stroke-width: 1; }\n");
        h.append("svg circle:hover { stroke: #000; }\n");
        for (Policy p : policies(results)) {
            h.append("svg .")
                    .append(p.css())
                    .append(" { stroke: ")
                    .append(p.colour())
                    .append(p.dashed() ? "; stroke-dasharray: 6 3" : "")
                    .append("; }\n");
            h.append("svg circle.")
                    .append(p.css())
                    .append(", svg rect.")
                    .append(p.css())
                    .append(" { fill: ")
                    .append(p.colour())
                    .append("; stroke-dasharray: none; }\n");
        }
        h.append("</style>\n</head>\n<body>\n");
        h.append("<h1>Quiver bench --placement</h1>\n");
        h.append("<pre class=\"machine\">");
        appendLines(h, header);
        h.append("</pre>\n<pre class=\"totals\">");
        appendLines(h, totals);
        h.append("</pre>\n<p>Reproduce: <code class=\"reproduce\">")
                .append(escape(reproduce))
                .append("</code></p>\n");
        h.append("<p>Each point: the median pass (every batch of the case evaluated once), in ms; ")
                .append("hover over a point for its value.</p>\n");

        // A chart per case and row count, in the order they ran.
        Map<String, List<PlacementBench.Result>> groups = new LinkedHashMap<>();
        boolean severalRowCounts =
                results.stream().map(PlacementBench.Result::rows).distinct().count() > 1;
        for (PlacementBench.Result r : results) {
            groups.computeIfAbsent(
                            r.caseName() + (severalRowCounts ? ", " + PlacementBench.rows(r.rows()) + " rows" : ""),
                            k -> new ArrayList<>())
                    .add(r);
        }
        List<Policy> policies = policies(results);
        for (var g : groups.entrySet()) {
            chart(h, g.getKey(), expressions.get(g.getValue().getFirst().caseName()), g.getValue(), policies);
        }
        h.append("</body>\n</html>\n");
        return h.toString();
    }

    private static void chart(
            StringBuilder h,
            String title,
            String expression,
            List<PlacementBench.Result> results,
            List<Policy> policies) {
        List<PlacementBench.Result> sorted = new ArrayList<>(results);
        sorted.sort((a, b) -> Integer.compare(a.batchRows(), b.batchRows()));
        List<Policy> present = policies.stream()
                .filter(p -> sorted.stream().anyMatch(r -> p.ms().apply(r) != null))
                .toList();

        // x: log2 of the batch rows, whole powers of two at the ends
        int minX = Integer.MAX_VALUE, maxX = 1;
        double minY = Double.MAX_VALUE, maxY = 0;
        for (PlacementBench.Result r : sorted) {
            minX = Math.min(minX, r.batchRows());
            maxX = Math.max(maxX, r.batchRows());
            for (Policy p : present) {
                Double v = p.ms().apply(r);
                if (v != null) {
                    minY = Math.min(minY, positive(v));
                    maxY = Math.max(maxY, positive(v));
                }
            }
        }
        int x0 = 31 - Integer.numberOfLeadingZeros(minX), x1 = 32 - Integer.numberOfLeadingZeros(maxX - 1);
        if (x0 == x1) {
            x0--;
            x1++;
        }
        // y: log10 of the ms, whole decades at the ends
        int y0 = (int) Math.floor(Math.log10(minY)), y1 = (int) Math.ceil(Math.log10(maxY));
        if (y0 == y1) {
            y1++;
        }
        int plotW = WIDTH - LEFT - RIGHT, plotH = HEIGHT - TOP - BOTTOM;
        final int fx0 = x0, fx1 = x1, fy0 = y0, fy1 = y1;
        Function<Double, Double> sx = rows -> LEFT + (log2(rows) - fx0) / (fx1 - fx0) * plotW;
        Function<Double, Double> sy = ms -> TOP + plotH - (Math.log10(positive(ms)) - fy0) / (fy1 - fy0) * plotH;

        h.append("<div class=\"chart\">\n<h2>").append(escape(title));
        if (expression != null) {
            h.append(": <code>").append(escape(expression)).append("</code>");
        }
        h.append("</h2>\n");
        h.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"case\" width=\"")
                .append(WIDTH)
                .append("\" height=\"")
                .append(HEIGHT)
                .append("\" viewBox=\"0 0 ")
                .append(WIDTH)
                .append(' ')
                .append(HEIGHT)
                .append("\" role=\"img\" data-case=\"")
                .append(escape(title))
                .append("\">\n");
        h.append("<title>")
                .append(escape(title + ": ms per pass against rows per batch"))
                .append("</title>\n");

        // x ticks: every power of two (every other one when there are many)
        int xStep = x1 - x0 > 12 ? 2 : 1;
        for (int k = x0; k <= x1; k += xStep) {
            double x = sx.apply(Math.pow(2, k));
            h.append(String.format(
                    Locale.ROOT,
                    "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n",
                    x,
                    TOP,
                    x,
                    TOP + plotH));
            h.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                    x,
                    TOP + plotH + 16,
                    escape(rowsLabel(k))));
        }
        // y ticks: decades, with 2 and 5 between when the span is short
        for (int d = y0; d <= y1; d++) {
            for (int m : fy1 - fy0 <= 2 ? new int[] {1, 2, 5} : new int[] {1}) {
                double v = m * Math.pow(10, d);
                if (d == y1 && m > 1) {
                    break;
                }
                double y = sy.apply(v);
                h.append(String.format(
                        Locale.ROOT,
                        "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n",
                        LEFT,
                        y,
                        LEFT + plotW,
                        y));
                h.append(String.format(
                        Locale.ROOT,
                        "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                        LEFT - 6,
                        y + 4,
                        escape(number(v))));
            }
        }
        // axes and their labels
        h.append(String.format(
                Locale.ROOT,
                "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
                LEFT,
                TOP + plotH,
                LEFT + plotW,
                TOP + plotH));
        h.append(String.format(
                Locale.ROOT,
                "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
                LEFT,
                TOP,
                LEFT,
                TOP + plotH));
        h.append(String.format(
                Locale.ROOT,
                "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">"
                        + "rows per batch (log2 scale)</text>\n",
                LEFT + plotW / 2,
                HEIGHT - 10));
        h.append(String.format(
                Locale.ROOT,
                "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
                        + "transform=\"rotate(-90 %d %d)\">ms per pass (log scale)</text>\n",
                16,
                TOP + plotH / 2,
                16,
                TOP + plotH / 2));

        // a line and its points per policy
        for (Policy p : present) {
            StringBuilder points = new StringBuilder();
            StringBuilder circles = new StringBuilder();
            for (PlacementBench.Result r : sorted) {
                Double v = p.ms().apply(r);
                if (v == null) {
                    continue;
                }
                double x = sx.apply((double) r.batchRows()), y = sy.apply(v);
                points.append(String.format(Locale.ROOT, "%s%.1f,%.1f", points.isEmpty() ? "" : " ", x, y));
                String tip = String.format(
                        Locale.ROOT,
                        "%s, %s rows per batch: %.3f ms per pass",
                        p.name(),
                        PlacementBench.rows(r.batchRows()),
                        v);
                if (p.name().startsWith("auto")) {
                    tip += String.format(
                            Locale.ROOT,
                            " (oracle %.3f ms, regret %+.1f%%; ran on %s)",
                            r.oracleMs(),
                            r.regret() * 100,
                            r.autoRanOn());
                } else if (p.name().startsWith("opencl") && r.openclBytesToDevicePerBatch() != null) {
                    tip += String.format(
                            Locale.ROOT,
                            " (%.0f B to the device and %.0f B from it per batch)",
                            r.openclBytesToDevicePerBatch(),
                            r.openclBytesFromDevicePerBatch());
                }
                circles.append(String.format(
                        Locale.ROOT,
                        "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"><title>%s</title></circle>\n",
                        p.css(),
                        x,
                        y,
                        escape(tip)));
            }
            h.append("<g class=\"policy\" data-policy=\"")
                    .append(escape(p.name()))
                    .append("\">\n");
            h.append("<polyline class=\"")
                    .append(p.css())
                    .append("\" data-policy=\"")
                    .append(escape(p.name()))
                    .append("\" points=\"")
                    .append(points)
                    .append("\"><title>")
                    .append(escape(p.name()))
                    .append("</title></polyline>\n");
            h.append(circles);
            h.append("</g>\n");
        }

        // the legend, right of the plot
        int lx = LEFT + plotW + 14, ly = TOP + 8;
        h.append("<g class=\"legend\">\n");
        for (Policy p : present) {
            h.append(String.format(
                    Locale.ROOT,
                    "<line class=\"%s\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke-width=\"2\"/>\n",
                    p.css(),
                    lx,
                    ly,
                    lx + 22,
                    ly));
            h.append(String.format(
                    Locale.ROOT, "<circle class=\"%s\" cx=\"%d\" cy=\"%d\" r=\"3\"/>\n", p.css(), lx + 11, ly));
            h.append(String.format(
                    Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>\n", lx + 28, ly + 4, escape(p.name())));
            ly += 18;
        }
        if (present.stream().noneMatch(p -> p.name().startsWith("opencl"))) {
            h.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">(opencl absent)</text>\n", lx, ly + 4));
        }
        h.append("</g>\n</svg>\n</div>\n");
    }

    private static void appendLines(StringBuilder h, List<String> lines) {
        for (int i = 0; i < lines.size(); i++) {
            h.append(i == 0 ? "" : "\n").append(escape(lines.get(i)));
        }
    }

    /** {@code s} as XML/HTML text or attribute value ({@link HtmlText#escape}). */
    static String escape(String s) {
        return HtmlText.escape(s);
    }

    /** 2^k rows as the CLI writes row counts (1K, 64K, 4M; under 1K as it is). */
    private static String rowsLabel(int k) {
        return k >= 0 && k <= 30 ? PlacementBench.rows(1 << k) : number(Math.pow(2, k));
    }

    /** A tick value with at most 3 significant digits, no exponent, no trailing zeros. */
    private static String number(double v) {
        return new BigDecimal(v).round(new MathContext(3)).stripTrailingZeros().toPlainString();
    }

    private static double positive(double ms) {
        return Math.max(ms, 1e-6);
    }

    private static double log2(double v) {
        return Math.log(v) / Math.log(2);
    }
}
