package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/**
 * {@code quiver bench --queries} from the command line, at a tiny size and on two queries: JSON
 * lines with exactly the documented fields, an object per query and engine and one per engine with
 * the geometric means; the chart page parses as XML, with a chart per query and one of the
 * speedups; wrong options are refused with exit status 2. Timings are not asserted. (The table
 * format is checked by {@code QueryBenchTest}.)
 */
class QueryBenchCommandTest {
    private static final String SVG = "http://www.w3.org/2000/svg";
    private static final List<String> ENGINES =
            List.of("java-loop", "duckdb-1t", "quiver-cpu-1t", "quiver-cpu", "quiver-auto");
    private static final String[] TINY = {
        "bench",
        "--queries",
        "--rows",
        "5K",
        "--batch-rows",
        "2K",
        "--iterations",
        "1",
        "--warmup",
        "0",
        "--warmup-ms",
        "0",
        "--workload",
        "q6,taxi"
    };

    private static CliRun queries(String... more) {
        List<String> args = new ArrayList<>(List.of(TINY));
        args.addAll(List.of(more));
        return CliRun.of(args.toArray(String[]::new));
    }

    @Test
    void jsonLinesHaveAnObjectPerQueryAndEngineThenTheGeometricMeans(@TempDir Path dir) throws Exception {
        Path chart = dir.resolve("queries.html");
        CliRun run = queries("--format", "json", "--chart", chart.toString());
        assertEquals(0, run.exitCode(), run.err());
        assertFalse(run.err().contains("error:"), run.err());
        ObjectMapper mapper = new ObjectMapper();
        List<JsonNode> lines = new ArrayList<>();
        for (String line : run.out().split("\n")) {
            lines.add(mapper.readTree(line));
        }
        assertEquals(2 * ENGINES.size() + ENGINES.size(), lines.size(), run.out());
        for (int i = 0; i < 2 * ENGINES.size(); i++) {
            JsonNode n = lines.get(i);
            List<String> fields = new ArrayList<>();
            n.fieldNames().forEachRemaining(fields::add);
            assertEquals(
                    List.of(
                            "query",
                            "table",
                            "encoding",
                            "rows",
                            "batchRows",
                            "rowsOut",
                            "engine",
                            "medianMs",
                            "speedupVsJavaLoop",
                            "speedupVsDuckDb"),
                    fields);
            assertEquals(i < ENGINES.size() ? "q6" : "taxi", n.get("query").asText());
            assertEquals(
                    i < ENGINES.size() ? "lineitem" : "taxi", n.get("table").asText());
            assertEquals(ENGINES.get(i % ENGINES.size()), n.get("engine").asText());
            assertEquals(5 * 1024, n.get("rows").asLong());
            assertEquals(2048, n.get("batchRows").asInt());
            assertTrue(n.get("medianMs").asDouble() > 0, n.toString());
            // the same rows out on every engine of a query
            assertEquals(lines.get(i - i % ENGINES.size()).get("rowsOut"), n.get("rowsOut"));
            double loop = lines.get(i - i % ENGINES.size()).get("medianMs").asDouble();
            assertEquals(
                    loop / n.get("medianMs").asDouble(),
                    n.get("speedupVsJavaLoop").asDouble(),
                    0.01 * loop / n.get("medianMs").asDouble() + 0.001);
        }
        for (int i = 0; i < ENGINES.size(); i++) {
            JsonNode n = lines.get(2 * ENGINES.size() + i);
            assertEquals("geomean", n.get("summary").asText());
            assertEquals(ENGINES.get(i), n.get("engine").asText());
            assertEquals(2, n.get("queries").asInt());
        }

        String html = Files.readString(chart, StandardCharsets.UTF_8);
        for (String external : List.of("<script", "<link", "src=", "href=", "url(", "@import", "https:")) {
            assertFalse(html.contains(external), "self-contained, yet has " + external);
        }
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        Document doc = f.newDocumentBuilder().parse(new InputSource(new StringReader(html)));
        NodeList svgs = doc.getElementsByTagNameNS(SVG, "svg");
        List<String> charts = new ArrayList<>();
        for (int i = 0; i < svgs.getLength(); i++) {
            Element svg = (Element) svgs.item(i);
            charts.add(svg.getAttribute("data-chart"));
            assertEquals(
                    i == 0 ? 2 * ENGINES.size() : ENGINES.size(),
                    svg.getElementsByTagNameNS(SVG, "rect").getLength(),
                    "a bar per engine (and baseline): " + charts.getLast());
        }
        assertEquals(List.of("speedups", "q6", "taxi"), charts);
        String page = doc.getDocumentElement().getTextContent();
        assertTrue(page.contains("./quiver bench --queries --rows 5120 --batch-rows 2048 --iterations 1"), page);
        assertTrue(page.contains("duckdb-1t: DuckDB v"), page);
        assertTrue(page.contains("query             rows in   rows out     java-loop") && page.contains("\nq6 "), page);
        assertTrue(page.contains("Geometric means of the speedups"), page);
        assertTrue(run.err().contains("reproduce: ./quiver bench --queries --rows 5120"), run.err());
        assertTrue(run.err().contains("chart written to " + chart), run.err());
    }

    @Test
    void wrongOptionsAreRefused() {
        CliRun unknown = CliRun.of("bench", "--queries", "--workload", "q7");
        assertEquals(2, unknown.exitCode(), unknown.err());
        assertTrue(
                unknown.err().contains("error: no query is named 'q7'; known: q1, q6, q12, q14, q19, strings,"),
                unknown.err());
        CliRun expr = CliRun.of("bench", "--queries", "--expr", "x + 1");
        assertEquals(2, expr.exitCode(), expr.err());
        assertTrue(expr.err().contains("error: --expr does not go with --queries"), expr.err());
        CliRun twoSizes = CliRun.of("bench", "--queries", "--rows", "1K,2K");
        assertEquals(2, twoSizes.exitCode(), twoSizes.err());
        CliRun both = CliRun.of("bench", "--queries", "--placement");
        assertEquals(2, both.exitCode(), both.err());
        CliRun chart = CliRun.of("bench", "--chart", "x.html");
        assertTrue(chart.err().contains("--chart draws the results of --placement or --queries"), chart.err());
    }
}
