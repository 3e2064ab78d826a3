package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.CompiledExpression;
import dev.quiver.Quiver;
import dev.quiver.errors.QuiverException;
import dev.quiver.expr.Expr;
import dev.quiver.types.DataType;
import dev.quiver.types.SqlTypes;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The grammar's golden files, one per topic in {@code src/test/resources/grammar/*.txt}: each case is an
 * expression and the tree it parses to (the {@code Expr}'s canonical text) or its exact error, and in files with a
 * schema what planning the tree gives (its result type, or the planning error: the forms whose functions Quiver
 * does not have yet parse, then fail here with "unknown function"). Each tree also reads back: its canonical text
 * parses to the same tree. {@code -Dquiver.golden.regenerate=true} rewrites every {@code tree}, {@code error} and
 * {@code plan} line from what Quiver gives now (in the source tree); review the diff.
 */
class GrammarGoldenTest {
    private static final boolean REGENERATE = Boolean.getBoolean("quiver.golden.regenerate");
    private static BufferAllocator allocator;
    private static Quiver quiver;

    @BeforeAll
    static void start() {
        allocator = new RootAllocator();
        quiver = Quiver.builder().allocator(allocator).openCl(false).build();
    }

    @AfterAll
    static void stop() {
        quiver.close();
        assertEquals(0, allocator.getAllocatedMemory(), "bytes left allocated");
        allocator.close();
    }

    private static Path directory() throws URISyntaxException {
        Path compiled = Path.of(GrammarGoldenTest.class.getResource("/grammar").toURI());
        // target/test-classes/grammar -> src/test/resources/grammar, where regenerated files go.
        Path source = compiled.getParent().getParent().getParent().resolve("src/test/resources/grammar");
        return REGENERATE ? source : compiled;
    }

    private static List<Path> files() throws IOException, URISyntaxException {
        try (Stream<Path> s = Files.list(directory())) {
            return s.filter(p -> p.toString().endsWith(".txt")).sorted().toList();
        }
    }

    @Test
    void theFilesHoldAtLeastFourHundredCases() throws IOException, URISyntaxException {
        int n = 0;
        for (Path p : files()) {
            n += GrammarCase.File.parse(Files.readAllLines(p, StandardCharsets.UTF_8))
                    .cases()
                    .size();
        }
        assertTrue(n >= 400, "grammar golden cases: " + n);
    }

    @TestFactory
    Stream<DynamicNode> goldenFiles() throws IOException, URISyntaxException {
        List<DynamicNode> files = new ArrayList<>();
        for (Path p : files()) {
            GrammarCase.File file = GrammarCase.File.parse(Files.readAllLines(p, StandardCharsets.UTF_8));
            Schema schema = file.schema() == null ? null : schema(file.schema());
            if (REGENERATE) {
                List<GrammarCase> now = new ArrayList<>();
                for (GrammarCase c : file.cases()) {
                    Outcome o = run(c.expr(), schema);
                    now.add(new GrammarCase(c.expr(), o.outcome(), o.plan(), c.line()));
                }
                Files.write(
                        p, new GrammarCase.File(file.header(), file.schema(), now).render(), StandardCharsets.UTF_8);
                continue;
            }
            List<DynamicTest> tests = new ArrayList<>();
            for (GrammarCase c : file.cases()) {
                tests.add(DynamicTest.dynamicTest("line " + c.line() + ": " + c.expr(), () -> {
                    Outcome o = run(c.expr(), schema);
                    String where = p.getFileName() + " line " + c.line() + ": " + c.expr();
                    assertEquals(c.outcome(), o.outcome(), where);
                    assertEquals(c.plan(), o.plan(), where + " (plan)");
                    if (o.tree() != null) {
                        assertEquals(
                                o.tree(),
                                Expr.parse(o.tree().toString()),
                                where + " (read back from " + o.tree() + ")");
                    }
                }));
            }
            files.add(DynamicContainer.dynamicContainer(p.getFileName().toString(), tests));
        }
        return files.stream();
    }

    private record Outcome(String outcome, String plan, Expr tree) {}

    private static Outcome run(String text, Schema schema) {
        Expr tree;
        try {
            tree = Expr.parse(text);
        } catch (QuiverException e) {
            return new Outcome("error " + GrammarCase.escape(e.getMessage()), null, null);
        }
        String plan = null;
        if (schema != null) {
            try {
                CompiledExpression compiled = quiver.compile(schema, tree);
                plan = SqlTypes.sqlName(DataType.fromField(compiled.outputField()));
            } catch (QuiverException e) {
                plan = "error " + GrammarCase.escape(e.getMessage());
            }
        }
        return new Outcome("tree " + GrammarCase.escape(tree.toString()), plan, tree);
    }

    /** {@code a INTEGER, l INTEGER[], s STRUCT("f" INTEGER)}: names and type names, commas inside parentheses kept. */
    static Schema schema(String spec) {
        List<Field> fields = new ArrayList<>();
        int depth = 0, start = 0;
        for (int i = 0; i <= spec.length(); i++) {
            char c = i < spec.length() ? spec.charAt(i) : ',';
            depth += c == '(' ? 1 : c == ')' ? -1 : 0;
            if (c == ',' && depth == 0) {
                String item = spec.substring(start, i).trim();
                int space = item.startsWith("\"") ? item.indexOf('"', 1) + 1 : item.indexOf(' ');
                String name = item.startsWith("\"") ? item.substring(1, space - 1) : item.substring(0, space);
                // The type as the parser reads it: the type of CAST(NULL AS type).
                DataType type = ((Expr.Cast) Expr.parse("CAST(NULL AS " + item.substring(space + 1) + ")")).type();
                fields.add(type.toField(name, true));
                start = i + 1;
            }
        }
        return new Schema(fields);
    }
}
