package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.CompiledExpression;
import dev.quiver.Device;
import dev.quiver.Placement;
import dev.quiver.expr.Expr;
import dev.quiver.types.DataType;
import dev.quiver.types.SqlTypes;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Golden results: per topic, a plain-text file in {@code src/test/resources/golden/} of
 * expressions, their input rows and, per row, the value Quiver must give, or the exact error
 * (format in {@code golden/README.md}). Each case is evaluated twice on the CPU: on its rows,
 * and on its rows followed by one more whose strings are {@code 'é'}, which sends the string
 * functions down their decoding path instead of the all-ASCII one; both must give the file's
 * values. A case whose plan has fused kernels is evaluated on every OpenCL device too (PoCL in
 * CI), which must give the same values. Every case ends with the allocator at zero bytes.
 *
 * <p>Run with {@code -Dquiver.golden.regenerate=true} to rewrite each row's value and each
 * error from what Quiver says now, then review the diff.
 */
class GoldenExpressionTest extends QuiverTestBase {
    private static final boolean REGENERATE = Boolean.getBoolean("quiver.golden.regenerate");
    private static final String ARROW = "->";

    @TestFactory
    Stream<DynamicNode> goldenFiles() throws IOException {
        List<DynamicNode> files = new ArrayList<>();
        try (Stream<Path> paths = Files.list(directory())) {
            for (Path p :
                    paths.filter(f -> f.toString().endsWith(".txt")).sorted().toList()) {
                GoldenFile file = GoldenFile.read(p);
                List<DynamicNode> tests = new ArrayList<>();
                for (GoldenCase c : file.cases) {
                    tests.add(DynamicTest.dynamicTest(c.name, p.toUri(), () -> run(file, c)));
                }
                if (REGENERATE) {
                    tests.add(DynamicTest.dynamicTest("(regenerate " + p.getFileName() + ")", file::rewrite));
                }
                files.add(DynamicContainer.dynamicContainer(p.getFileName().toString(), p.toUri(), tests.stream()));
            }
        }
        assertTrue(!files.isEmpty(), "golden files found in " + directory());
        return files.stream();
    }

    private static Path directory() {
        try {
            return Path.of(GoldenExpressionTest.class.getResource("/golden").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private void run(GoldenFile file, GoldenCase c) {
        Outcome o = outcome(c, c.rows);
        assertEquals(0, allocator.getAllocatedMemory(), c.name + ": bytes left allocated");
        if (REGENERATE) {
            file.regenerated.put(c, o);
            return;
        }
        if (c.error != null) {
            if (o.error == null) {
                fail(c.name + ": expected " + c.error + " but it evaluated to " + o.values);
            }
            assertEquals(c.error, errorLine(o), c.name + ": " + o.error);
            assertEquals(c.message, BadInputCatalogueTest.messageOf(o.error), c.name + ": the message");
            return;
        }
        if (o.error != null) {
            throw new AssertionError(c.name + ": expected values but the " + o.stage + " failed", o.error);
        }
        assertEquals(c.expected, o.values, c.name);
        // A case whose plan has fused kernels gives the same values on every OpenCL device (PoCL here).
        for (Device device : quiver.openClDevices()) {
            Outcome on = outcome(c, c.rows, device);
            assertEquals(0, allocator.getAllocatedMemory(), c.name + ": bytes left allocated on " + device.name());
            if (on != null) {
                if (on.error != null) {
                    throw new AssertionError(c.name + ": failed on " + device.name(), on.error);
                }
                assertEquals(c.expected, on.values, c.name + " on " + device.name());
            }
        }
        // The same rows and one more of non-ASCII strings: the decoding path must agree.
        List<List<String>> more = new ArrayList<>(c.rows);
        more.add(c.schema.getFields().stream()
                .map(f -> DataType.fromField(f) instanceof DataType.Utf8 ? "'é'" : "NULL")
                .toList());
        Outcome decoded = outcome(c, more);
        assertEquals(0, allocator.getAllocatedMemory(), c.name + ": bytes left allocated (non-ASCII batch)");
        if (decoded.error != null) {
            throw new AssertionError(c.name + ": the batch with a non-ASCII row failed", decoded.error);
        }
        assertEquals(
                c.expected,
                decoded.values.subList(0, c.rows.size()),
                c.name + " (with a non-ASCII row, the decoding path)");
    }

    /** Where it failed (compile or evaluate; null: it did not) and with what, or the values it gave, printed. */
    private record Outcome(String stage, Throwable error, List<String> values) {}

    private Outcome outcome(GoldenCase c, List<List<String>> rows) {
        return outcome(c, rows, null);
    }

    /**
     * The case evaluated on the CPU ({@code device} null) or on {@code device}; null when the plan has no fused kernel
     * (nothing for a device to run) or {@code device} cannot run one of them.
     */
    private Outcome outcome(GoldenCase c, List<List<String>> rows, Device device) {
        CompiledExpression compiled;
        try {
            compiled = quiver.compile(c.schema, Expr.parse(c.expr));
        } catch (RuntimeException e) {
            return new Outcome("compile", e, null);
        }
        if (device != null
                && (compiled.programs().isEmpty()
                        || compiled.programs().stream()
                                .anyMatch(p ->
                                        device.backend().unsupportedReason(p).isPresent()))) {
            return null;
        }
        try (BufferAllocator results = allocator.newChildAllocator("results of " + c.name, 0, Long.MAX_VALUE);
                VectorSchemaRoot batch = batch(c, rows, allocator)) {
            try (FieldVector out = device == null
                    ? compiled.evaluate(batch, Placement.CPU, results)
                    : compiled.evaluate(batch, device, results)) {
                List<String> values = new ArrayList<>();
                for (int r = 0; r < out.getValueCount(); r++) {
                    values.add(print(Values.get(out, r).value()));
                }
                return new Outcome(null, null, values);
            } catch (RuntimeException e) {
                assertEquals(
                        0, results.getAllocatedMemory(), c.name + ": the failed evaluation left its result allocated");
                return new Outcome("evaluate", e, null);
            }
        }
    }

    /** Stage, exception class and error kind, as the bad-input catalogue writes them. */
    private static String errorLine(Outcome o) {
        return o.stage + " " + o.error.getClass().getSimpleName() + " " + BadInputCatalogueTest.kindOf(o.error);
    }

    /** A value as the files write it: NULL, true/false, numbers, 'text' ('' for a quote), x'hex' for text with control characters. */
    static String print(Object v) {
        if (v == null) {
            return "NULL";
        }
        if (v instanceof String s) {
            boolean control = s.chars().anyMatch(ch -> ch < 0x20 || ch == 0x7F);
            return control
                    ? "x'" + HexFormat.of().formatHex(s.getBytes(StandardCharsets.UTF_8)) + "'"
                    : "'" + s.replace("'", "''") + "'";
        }
        return v.toString();
    }

    private static VectorSchemaRoot batch(GoldenCase c, List<List<String>> rows, BufferAllocator allocator) {
        List<FieldVector> columns = new ArrayList<>();
        try {
            for (int k = 0; k < c.schema.getFields().size(); k++) {
                Field f = c.schema.getFields().get(k);
                DataType type = DataType.fromField(f);
                FieldVector v = Values.allocate(type, f.getName(), rows.size(), allocator);
                columns.add(v);
                for (int r = 0; r < rows.size(); r++) {
                    List<String> row = rows.get(r);
                    if (row.size() != c.schema.getFields().size()) {
                        throw new IllegalArgumentException(c.name + ": row " + r + " has " + row.size()
                                + " values, the schema " + c.schema.getFields().size() + " columns");
                    }
                    String text = row.get(k);
                    if (text.regionMatches(true, 0, "x'", 0, 2)) {
                        ((VarCharVector) v).setSafe(r, HexFormat.of().parseHex(text.substring(2, text.length() - 1)));
                    } else {
                        Values.set(v, r, value(type, text));
                    }
                }
                v.setValueCount(rows.size());
            }
            VectorSchemaRoot root = new VectorSchemaRoot(columns);
            root.setRowCount(rows.size());
            return root;
        } catch (RuntimeException e) {
            columns.forEach(FieldVector::close);
            throw e;
        }
    }

    private static ScalarValue value(DataType type, String text) {
        if (text.equalsIgnoreCase("null")) {
            return ScalarValue.nullOf(type);
        }
        Object v = switch (type) {
            case DataType.Int i when i.bitWidth() == 32 -> Integer.parseInt(text);
            case DataType.Int i when i.bitWidth() == 64 -> Long.parseLong(text);
            case DataType.FloatingPoint f when f.bitWidth() == 64 -> Double.parseDouble(text);
            case DataType.Decimal d -> new BigDecimal(text).setScale(d.scale());
            case DataType.Utf8 _ -> text.substring(1, text.length() - 1).replace("''", "'");
            case DataType.Bool _ -> Boolean.parseBoolean(text);
            default -> throw new IllegalArgumentException("the golden format has no values of type " + type);
        };
        return new ScalarValue(type, v);
    }

    /** One case: its expression, its rows (each a list of value texts) and what it must give. */
    static final class GoldenCase {
        String name;
        Schema schema;
        String expr;
        final List<List<String>> rows = new ArrayList<>();
        /** Per row, the printed value; empty for an error case. */
        final List<String> expected = new ArrayList<>();
        /** Per row, the file's line of that row, and its values as written there. */
        final List<Integer> rowLines = new ArrayList<>();

        final List<String> rawRows = new ArrayList<>();
        String error;
        String message = "";
        int errorLine = -1;
        int messageLine = -1;
        int lastLine;
    }

    /** A golden file: its lines, its cases, and (when regenerating) what each case gave. */
    static final class GoldenFile {
        final Path path;
        final List<String> lines;
        final List<GoldenCase> cases = new ArrayList<>();
        final Map<GoldenCase, Outcome> regenerated = new LinkedHashMap<>();

        private GoldenFile(Path path, List<String> lines) {
            this.path = path;
            this.lines = lines;
        }

        static GoldenFile read(Path path) throws IOException {
            GoldenFile file = new GoldenFile(path, Files.readAllLines(path, StandardCharsets.UTF_8));
            Schema schema = new Schema(List.of());
            GoldenCase c = null;
            boolean inRows = false;
            for (int i = 0; i < file.lines.size(); i++) {
                String line = file.lines.get(i);
                String where = path.getFileName() + ":" + (i + 1);
                if (line.isBlank() || line.startsWith("#")) {
                    inRows = false;
                    continue;
                }
                String key = line.split(" ", 2)[0];
                String rest = line.length() > key.length() ? line.substring(key.length() + 1) : "";
                if (inRows && !List.of("error", "message").contains(key)) {
                    List<String> values = splitRow(line);
                    int arrow = values.indexOf(ARROW);
                    c.rawRows.add(
                            arrow < 0
                                    ? line.strip()
                                    : line.substring(0, arrowAt(line)).strip());
                    if (arrow >= 0) {
                        if (arrow != values.size() - 2) {
                            throw new IllegalArgumentException(where + ": a row is 'v | v -> expected'");
                        }
                        c.expected.add(values.getLast());
                        values = values.subList(0, arrow);
                    }
                    c.rows.add(values);
                    c.rowLines.add(i);
                    c.lastLine = i;
                    continue;
                }
                inRows = false;
                switch (key) {
                    case "schema" -> {
                        Schema s = parseSchema(rest, where);
                        if (c == null) {
                            schema = s;
                        } else {
                            c.schema = s;
                        }
                    }
                    case "case" -> {
                        c = new GoldenCase();
                        c.name = rest.strip();
                        c.schema = schema;
                        file.cases.add(c);
                    }
                    case "expr" -> need(c, where).expr = expand(rest);
                    case "rows" -> inRows = need(c, where) != null;
                    case "error" -> {
                        need(c, where).error = rest.strip();
                        c.errorLine = i;
                    }
                    case "message" -> {
                        need(c, where).message = rest;
                        c.messageLine = i;
                    }
                    default -> throw new IllegalArgumentException(where + ": unknown line '" + line + "'");
                }
                if (c != null) {
                    c.lastLine = i;
                }
            }
            for (GoldenCase k : file.cases) {
                if (k.expr == null || k.rows.isEmpty() && k.error == null) {
                    throw new IllegalArgumentException(
                            path.getFileName() + ": case " + k.name + " needs an expr and rows or an error");
                }
                if (k.error == null && k.expected.size() != k.rows.size() && !REGENERATE) {
                    throw new IllegalArgumentException(
                            path.getFileName() + ": case " + k.name + ": every row needs '-> expected'");
                }
            }
            return file;
        }

        private static GoldenCase need(GoldenCase c, String where) {
            if (c == null) {
                throw new IllegalArgumentException(where + ": a case's line before any 'case'");
            }
            return c;
        }

        /** {@code {{repeat TEXT N}}} becomes TEXT N times: long strings without long lines. */
        static String expand(String text) {
            StringBuilder out = new StringBuilder();
            int i = 0;
            while (true) {
                int open = text.indexOf("{{repeat ", i);
                int close = open < 0 ? -1 : text.indexOf("}}", open);
                if (close < 0) {
                    return out.append(text, i, text.length()).toString();
                }
                String[] parts =
                        text.substring(open + "{{repeat ".length(), close).split(" ");
                out.append(text, i, open).append(parts[0].repeat(Integer.parseInt(parts[1])));
                i = close + 2;
            }
        }

        /** {@code printed} with each run of 20 or more of one letter or digit written as {@code {{repeat c N}}}. */
        static String compress(String printed) {
            StringBuilder out = new StringBuilder();
            int i = 0;
            while (i < printed.length()) {
                char ch = printed.charAt(i);
                int j = i;
                while (j < printed.length() && printed.charAt(j) == ch) {
                    j++;
                }
                if (j - i >= 20 && Character.isLetterOrDigit(ch)) {
                    out.append("{{repeat ").append(ch).append(' ').append(j - i).append("}}");
                } else {
                    out.append(printed, i, j);
                }
                i = j;
            }
            return out.toString();
        }

        /** Where the '->' outside quotes is in {@code line}. */
        private static int arrowAt(String line) {
            boolean quoted = false;
            for (int i = 0; i < line.length(); i++) {
                if (line.charAt(i) == '\'') {
                    quoted = !quoted;
                } else if (!quoted && line.startsWith(ARROW, i)) {
                    return i;
                }
            }
            return -1;
        }

        /** Values separated by '|' outside quotes, and the '->' before the expected value as a value of its own. */
        private static List<String> splitRow(String line) {
            List<String> out = new ArrayList<>();
            StringBuilder cur = new StringBuilder();
            boolean quoted = false;
            for (int i = 0; i < line.length(); i++) {
                char ch = line.charAt(i);
                if (ch == '\'') {
                    quoted = !quoted;
                }
                boolean arrow = !quoted && line.startsWith(ARROW, i);
                if (!quoted && (ch == '|' || arrow)) {
                    out.add(expand(cur.toString().strip()));
                    cur.setLength(0);
                    if (arrow) {
                        out.add(ARROW);
                        i++;
                    }
                } else {
                    cur.append(ch);
                }
            }
            out.add(expand(cur.toString().strip()));
            return out;
        }

        private static Schema parseSchema(String text, String where) {
            List<Field> fields = new ArrayList<>();
            for (String entry : text.split(",")) {
                String[] nt = entry.strip().split("\\s+", 2);
                if (nt.length < 2) {
                    throw new IllegalArgumentException(where + ": schema entry '" + entry + "' is not 'name TYPE'");
                }
                fields.add(SqlTypes.fromSql(nt[1]).toField(nt[0], true));
            }
            return new Schema(fields);
        }

        /** Writes the file back with each row's value and each error as regenerated. */
        void rewrite() {
            Map<Integer, List<String>> replaced = new HashMap<>();
            Map<Integer, List<String>> after = new HashMap<>();
            for (var entry : regenerated.entrySet()) {
                GoldenCase c = entry.getKey();
                Outcome o = entry.getValue();
                for (int r = 0; r < c.rowLines.size(); r++) {
                    String input = c.rawRows.get(r);
                    replaced.put(
                            c.rowLines.get(r),
                            List.of(o.error == null ? input + " " + ARROW + " " + compress(o.values.get(r)) : input));
                }
                List<String> error = o.error == null ? List.of() : List.of("error " + errorLine(o));
                List<String> message =
                        o.error == null ? List.of() : List.of("message " + BadInputCatalogueTest.messageOf(o.error));
                List<String> missing = new ArrayList<>();
                if (c.errorLine >= 0) {
                    replaced.put(c.errorLine, error);
                } else {
                    missing.addAll(error);
                }
                if (c.messageLine >= 0) {
                    replaced.put(c.messageLine, message);
                } else {
                    missing.addAll(message);
                }
                after.put(c.lastLine, missing);
            }
            List<String> out = new ArrayList<>();
            for (int i = 0; i < lines.size(); i++) {
                out.addAll(replaced.getOrDefault(i, List.of(lines.get(i))));
                out.addAll(after.getOrDefault(i, List.of()));
            }
            Path source = Path.of(
                    System.getProperty("user.dir"),
                    "src",
                    "test",
                    "resources",
                    "golden",
                    path.getFileName().toString());
            try {
                Files.write(source, out, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
