package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/**
 * {@code quiver bench --placement --chart FILE}: the page parses as XML, has a chart per case with a
 * line per present policy and the totals as the table prints them; {@code --chart} needs
 * {@code --placement}. Timings themselves are not asserted.
 */
class PlacementBenchChartTest {

    private static final List<String> CASES = List.of("cheap", "predicate", "transcendental", "heavy");
    private static final String SVG = "http://www.w3.org/2000/svg";

    @Test
    void theChartHasAnSvgPerCaseALinePerPolicyAndTheTotals(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("placement.html");
        CliRun run = CliRun.of(
                "bench",
                "--placement",
                "--rows",
                "64K",
                "--batch-rows",
                "1K,16K",
                "--iterations",
                "1",
                "--warmup",
                "1",
                "--warmup-ms",
                "0",
                "--chart",
                file.toString());
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.err().contains("chart written to " + file), run.err());
        assertTrue(Files.isRegularFile(file));
        try (var left = Files.list(dir)) {
            assertEquals(List.of(file), left.toList(), "no temporary file is left behind");
        }
        String html = Files.readString(file, StandardCharsets.UTF_8);
        assertTrue(html.startsWith("<!DOCTYPE html>\n<html"), html);
        for (String external : List.of("<script", "<link", "src=", "href=", "url(", "@import", "https:")) {
            assertFalse(html.contains(external), "self-contained, yet has " + external + ": " + html);
        }
        Document doc = parse(html);

        List<Element> svgs = elements(doc, SVG, "svg");
        assertEquals(CASES.size(), svgs.size(), html);
        boolean openCl = !run.out().contains("OpenCL: no device");
        List<String> modes = openCl ? transferModes(run.out()) : List.of();
        for (int i = 0; i < svgs.size(); i++) {
            Element svg = svgs.get(i);
            String c = CASES.get(i);
            assertEquals(c, svg.getAttribute("data-case"));
            Set<String> policies = new LinkedHashSet<>();
            for (Element line : elements(svg, SVG, "polyline")) {
                policies.add(line.getAttribute("data-policy"));
                assertEquals(2, line.getAttribute("points").trim().split(" ").length, "a point per batch size: " + c);
            }
            boolean openClHere = openCl && !run.err().contains("no OpenCL device can run " + c + ",");
            // With OpenCL, a line per policy in each transfer mode: the device's own (zero copy on PoCL), then the
            // other.
            List<String> expected = !openCl
                    ? List.of("cpu", "auto")
                    : openClHere
                            ? List.of(
                                    "cpu",
                                    "opencl[" + modes.get(0) + "]",
                                    "opencl[" + modes.get(1) + "]",
                                    "auto[" + modes.get(0) + "]",
                                    "auto[" + modes.get(1) + "]")
                            : List.of("cpu", "auto[" + modes.get(0) + "]", "auto[" + modes.get(1) + "]");
            assertEquals(expected, List.copyOf(policies), c);
            long points = elements(svg, SVG, "circle").stream()
                    .filter(e -> ((Element) e.getParentNode()).hasAttribute("data-policy"))
                    .count();
            assertEquals(2 * policies.size(), points, "a point per policy and batch size: " + c);
            String text = svg.getTextContent();
            assertTrue(text.contains("rows per batch (log2 scale)") && text.contains("ms per pass (log scale)"), text);
            assertTrue(text.contains("1K") && text.contains("16K"), "the x ticks: " + text);
            assertTrue(
                    text.contains((openCl ? "auto[" + modes.get(0) + "]" : "auto") + ", 16K rows per batch: "),
                    "a value on hover: " + text);
        }

        String page = doc.getDocumentElement().getTextContent();
        List<String> printed = new ArrayList<>();
        for (String line : run.out().split("\n")) {
            if (line.startsWith("Quiver bench --placement: ")
                    || line.startsWith("  device ")
                    || line.startsWith("    figures: ")
                    || line.startsWith("Totals over ")
                    || line.startsWith("  auto/oracle ")
                    || line.startsWith("  scheduler's own time")
                    || line.startsWith("  transfer modes: ")) {
                printed.add(line);
            }
        }
        // The machine, and per mode the totals and auto/oracle, the modes, the scheduler's time.
        assertEquals(
                openCl ? 7 : 4,
                printed.stream()
                        .filter(l -> !l.startsWith("  device ") && !l.startsWith("    figures: "))
                        .count(),
                run.out());
        assertTrue(printed.stream().anyMatch(l -> l.startsWith("    figures: launch ")), run.out());
        for (String line : printed) {
            assertTrue(page.contains(line), "the chart has '" + line + "' as the table prints it");
        }
        assertTrue(page.contains("./quiver bench --placement --rows 64K --batch-rows 1K,16K --iterations 1 "), page);
    }

    /** The transfer modes of the run in the order they ran, from the line that names them. */
    static List<String> transferModes(String out) {
        Matcher m = Pattern.compile("\n  transfer modes: opencl\\[([a-z-]+)\\] and opencl\\[([a-z-]+)\\],")
                .matcher(out);
        assertTrue(m.find(), out);
        return List.of(m.group(1), m.group(2));
    }

    @Test
    void chartWithoutPlacementOrIntoAMissingDirectoryIsExitTwo(@TempDir Path dir) {
        CliRun alone = CliRun.of(
                "bench", "--rows", "10", "--chart", dir.resolve("x.html").toString());
        assertEquals(2, alone.exitCode(), alone.err());
        assertTrue(alone.err().contains("--chart") && alone.err().contains("--placement"), alone.err());
        CliRun missing = CliRun.of(
                "bench", "--placement", "--chart", dir.resolve("no/such/x.html").toString());
        assertEquals(2, missing.exitCode(), missing.err());
        assertTrue(missing.err().contains("--chart"), missing.err());
        assertFalse(Files.exists(dir.resolve("x.html")));
    }

    @Test
    void textIsEscapedAndAnAbsentOpenclHasNoLine() throws Exception {
        List<PlacementBench.Result> results = List.of(
                new PlacementBench.Result(
                        "a<b & \"c\"", 1 << 20, 1 << 10, 1024, null, 12.5, null, 13.0, null, null, "cpu 3", 3, 3000),
                new PlacementBench.Result(
                        "a<b & \"c\"", 1 << 20, 4 << 20 >> 2, 1, null, 0.25, null, 0.3, null, null, "cpu 3", 3, 3000));
        String html = PlacementChart.html(
                List.of("Quiver bench --placement: <machine> & 'friends'\u0001"),
                List.of("Totals over 2 cases: auto 13.30 ms"),
                "./quiver bench --placement --workload 'x<y'",
                results,
                Map.of("a<b & \"c\"", "a < b && c"));
        Document doc = parse(html);
        List<Element> svgs = elements(doc, SVG, "svg");
        assertEquals(1, svgs.size());
        assertEquals("a<b & \"c\"", svgs.getFirst().getAttribute("data-case"));
        List<String> policies = elements(svgs.getFirst(), SVG, "polyline").stream()
                .map(e -> e.getAttribute("data-policy"))
                .toList();
        assertEquals(List.of("cpu", "auto"), policies);
        String text = doc.getDocumentElement().getTextContent();
        assertTrue(text.contains("Quiver bench --placement: <machine> & 'friends'\uFFFD"), text);
        assertTrue(text.contains("a < b && c"), text);
        assertTrue(text.contains("./quiver bench --placement --workload 'x<y'"), text);
        assertTrue(text.contains("(opencl absent)"), text);
    }

    @Test
    void twoTransferModesGetALinePerPolicyAndModeTheSecondDashed() throws Exception {
        List<PlacementBench.Result> results = List.of(
                new PlacementBench.Result(
                        "cheap",
                        1 << 16,
                        1 << 10,
                        64,
                        "zero-copy",
                        2.0,
                        3.0,
                        2.5,
                        0.0,
                        0.0,
                        "cpu 64 / opencl[zero-copy] 0",
                        64,
                        6400),
                new PlacementBench.Result(
                        "cheap",
                        1 << 16,
                        1 << 10,
                        64,
                        "copy",
                        2.0,
                        4.0,
                        2.25,
                        24576.0,
                        8192.0,
                        "cpu 64 / opencl[copy] 0",
                        64,
                        6400),
                new PlacementBench.Result(
                        "cheap",
                        1 << 16,
                        1 << 14,
                        4,
                        "zero-copy",
                        1.0,
                        0.5,
                        0.75,
                        0.0,
                        0.0,
                        "cpu 1 / opencl[zero-copy] 3",
                        4,
                        400),
                new PlacementBench.Result(
                        "cheap",
                        1 << 16,
                        1 << 14,
                        4,
                        "copy",
                        1.0,
                        0.8,
                        0.9,
                        393216.0,
                        131072.0,
                        "cpu 1 / opencl[copy] 3",
                        4,
                        400));
        String html = PlacementChart.html(
                List.of("machine"),
                List.of("totals"),
                "./quiver bench --placement",
                results,
                Map.of("cheap", "a * b + c"));
        Document doc = parse(html);
        List<Element> svgs = elements(doc, SVG, "svg");
        assertEquals(1, svgs.size(), "one chart per case, both modes in it");
        List<Element> lines = elements(svgs.getFirst(), SVG, "polyline");
        assertEquals(
                List.of("cpu", "opencl[zero-copy]", "opencl[copy]", "auto[zero-copy]", "auto[copy]"),
                lines.stream().map(e -> e.getAttribute("data-policy")).toList());
        assertEquals(
                List.of("cpu", "opencl-zero-copy", "opencl-copy", "auto-zero-copy", "auto-copy"),
                lines.stream().map(e -> e.getAttribute("class")).toList());
        for (Element line : lines) {
            assertEquals(
                    2, line.getAttribute("points").trim().split(" ").length, "a point per batch size, the cpu's once");
        }
        assertTrue(html.contains("svg .opencl-copy { stroke: #ff7f0e; stroke-dasharray: 6 3; }"), html);
        assertTrue(html.contains("svg .opencl-zero-copy { stroke: #d62728; }"), html);
        String text = svgs.getFirst().getTextContent();
        assertTrue(
                text.contains(
                        "opencl[copy], 16K rows per batch: 0.800 ms per pass (393216 B to the device and 131072 B from it per batch)"),
                text);
        assertTrue(
                text.contains(
                        "auto[zero-copy], 1K rows per batch: 2.500 ms per pass (oracle 2.000 ms, regret +25.0%; ran on cpu 64 / opencl[zero-copy] 0)"),
                text);
        assertFalse(text.contains("(opencl absent)"), text);
    }

    /** The page as XML: the {@code <!DOCTYPE html>} line is well-formed XML too, so it stays. */
    private static Document parse(String html) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", false);
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        return f.newDocumentBuilder().parse(new InputSource(new StringReader(html)));
    }

    private static List<Element> elements(Object root, String ns, String name) {
        NodeList nodes = root instanceof Document d
                ? d.getElementsByTagNameNS(ns, name)
                : ((Element) root).getElementsByTagNameNS(ns, name);
        List<Element> list = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            list.add((Element) nodes.item(i));
        }
        return list;
    }
}
