package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code ```java} block of README.md compiles as written, against this build, with the
 * README's own block of imports: each block becomes a method (its classes top-level classes
 * beside it) whose parameters are the variables the README's text says the block has at hand
 * ({@link #CONTEXTS}). A new block without a context here fails the test, so none is left
 * unchecked. The Spark block is compiled by the spark module's {@code ReadmeSparkExampleTest},
 * which has Spark on its class path.
 */
class ReadmeCodeTest {
    /** What the README's examples take from the JDK and Jackson (a user's own code), besides the README's imports. */
    private static final List<String> MORE_IMPORTS = List.of(
            "import com.fasterxml.jackson.databind.ObjectMapper;",
            "import com.fasterxml.jackson.databind.node.ArrayNode;",
            "import java.io.IOException;",
            "import java.net.URI;",
            "import java.net.http.HttpClient;",
            "import java.net.http.HttpRequest;",
            "import java.net.http.HttpResponse;",
            "import java.util.List;",
            "import java.util.OptionalInt;",
            "import java.util.concurrent.CompletableFuture;",
            "import java.util.concurrent.CompletionException;",
            "import java.util.function.Consumer;",
            "import org.apache.arrow.memory.BufferAllocator;",
            "import static java.nio.charset.StandardCharsets.UTF_8;");

    /** A block, by a line of it, and the variables it uses without declaring them; null: compiled elsewhere. */
    private static final Map<String, String> CONTEXTS = new LinkedHashMap<>();

    static {
        CONTEXTS.put("QuiverSpark.registerFunctions", null);
        CONTEXTS.put(
                "final class HttpScoreFunction",
                "Quiver quiver, Schema schema, List<VectorSchemaRoot> batches, " + "Consumer<VectorSchemaRoot> sink");
        CONTEXTS.put(
                "Quiver.builder().allocator(allocator).build()",
                "Schema schema, List<VectorSchemaRoot> batches, " + "Consumer<FieldVector> sink");
        CONTEXTS.put(
                "quiver.compileProjection(schema, List.of(",
                "Quiver quiver, Schema schema, VectorSchemaRoot batch, " + "BufferAllocator allocator");
        CONTEXTS.put("RowFn.declare(\"my_hypot\")", "Quiver quiver, Schema schema");
        CONTEXTS.put("RowFn.declare(\"word_count\")", "");
    }

    @Test
    void everyJavaBlockOfTheReadmeCompiles(@TempDir Path work) throws IOException {
        Path readme = Path.of(System.getProperty("user.dir")).getParent().resolve("README.md");
        Matcher m = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(Files.readString(readme));
        List<String> blocks = new ArrayList<>();
        while (m.find()) {
            blocks.add(m.group(1));
        }
        List<String> importBlocks =
                blocks.stream().filter(ReadmeCodeTest::isImports).toList();
        assertEquals(1, importBlocks.size(), "README.md has one block of imports (\"Use it from Maven\")");
        String imports = importBlocks.getFirst();

        List<Path> sources = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (String block : blocks) {
            if (isImports(block)) {
                continue;
            }
            String key = CONTEXTS.keySet().stream()
                    .filter(block::contains)
                    .findFirst()
                    .orElseGet(() ->
                            fail("a java block of README.md has no context in ReadmeCodeTest.CONTEXTS:\n" + block));
            seen.add(key);
            String params = CONTEXTS.get(key);
            if (params == null) {
                continue;
            }
            String name = "ReadmeBlock" + sources.size();
            Path file = work.resolve(name + ".java");
            Files.writeString(file, unit(name, imports, block, params));
            sources.add(file);
        }
        assertEquals(CONTEXTS.size(), seen.size(), "each context matches one block: " + seen);
        assertEquals(new HashSet<>(CONTEXTS.keySet()), new HashSet<>(seen), "each context matches one block");

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> args = new ArrayList<>(List.of(
                "-proc:none",
                "-Xlint:none",
                "--add-modules",
                "jdk.incubator.vector",
                "-classpath",
                classpath,
                "-d",
                work.resolve("classes").toString()));
        sources.forEach(s -> args.add(s.toString()));
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = javac.run(null, null, errors, args.toArray(String[]::new));
        StringBuilder shown = new StringBuilder();
        for (Path s : sources) {
            shown.append("---- ").append(s.getFileName()).append('\n').append(Files.readString(s));
        }
        assertEquals(0, rc, errors.toString(StandardCharsets.UTF_8) + "\n" + shown);
        assertFalse(sources.isEmpty());
    }

    private static boolean isImports(String block) {
        return block.lines().allMatch(l -> l.isBlank() || l.startsWith("import "));
    }

    /**
     * A compilation unit: the imports, a class whose method holds the block's statements, and the
     * block's own top-level classes (those starting at column 0) after it.
     */
    private static String unit(String name, String imports, String block, String params) {
        StringBuilder statements = new StringBuilder();
        StringBuilder classes = new StringBuilder();
        boolean inClass = false;
        for (String line : block.split("\n", -1)) {
            if (!inClass
                    && (line.startsWith("final class ")
                            || line.startsWith("class ")
                            || line.startsWith("public final class "))) {
                inClass = true;
            }
            (inClass ? classes : statements).append(line).append('\n');
            if (inClass && line.equals("}")) {
                inClass = false;
            }
        }
        assertFalse(inClass, "a class of the block does not end with a '}' at column 0:\n" + block);
        StringBuilder out = new StringBuilder(imports);
        MORE_IMPORTS.forEach(i -> out.append(i).append('\n'));
        out.append("\npublic class ")
                .append(name)
                .append(" {\n")
                .append("    static void example(")
                .append(params)
                .append(") throws Exception {\n")
                .append(statements.toString().indent(8))
                .append("    }\n}\n\n")
                .append(classes);
        assertTrue(out.indexOf("example(") > 0);
        return out.toString();
    }
}
