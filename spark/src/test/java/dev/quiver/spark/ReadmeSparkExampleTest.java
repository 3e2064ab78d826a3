package dev.quiver.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's Spark block compiles as written, against this build and Spark, as a method over a
 * session {@code spark} and a dataset {@code points}, with {@code GeoFunctions} the user's
 * {@link dev.quiver.spark.functions.QuiverFunctions} class it names (the other README blocks are
 * compiled by the tests module's {@code ReadmeCodeTest}).
 */
class ReadmeSparkExampleTest {
    @Test
    void theReadmesSparkBlockCompiles(@TempDir Path work) throws IOException {
        Path readme = Path.of(System.getProperty("user.dir")).getParent().resolve("README.md");
        Matcher m = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(Files.readString(readme));
        String block = null;
        while (m.find()) {
            if (m.group(1).contains("QuiverSpark.registerFunctions")) {
                block = m.group(1);
            }
        }
        assertNotNull(block, "README.md has no Spark block");
        String source = """
                import dev.quiver.spark.QuiverDatasets;
                import dev.quiver.spark.QuiverSpark;
                import dev.quiver.spark.functions.QuiverFunctions;
                import dev.quiver.rowfn.RowFn;
                import org.apache.spark.sql.Dataset;
                import org.apache.spark.sql.Row;
                import org.apache.spark.sql.SparkSession;
                import java.util.List;

                public class ReadmeSparkBlock {
                    public static final class GeoFunctions implements QuiverFunctions {
                        @Override
                        public List<RowFn> functions() {
                            return List.of();
                        }
                    }

                    static void example(SparkSession spark, Dataset<Row> points) {
                """ + block.indent(8) + """
                    }
                }
                """;
        Path file = work.resolve("ReadmeSparkBlock.java");
        Files.writeString(file, source);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = javac.run(
                null,
                null,
                errors,
                List.of(
                                "-proc:none",
                                "-Xlint:none",
                                "-classpath",
                                classpath,
                                "-d",
                                work.resolve("classes").toString(),
                                file.toString())
                        .toArray(String[]::new));
        assertEquals(0, rc, errors.toString(StandardCharsets.UTF_8) + "\n" + source);
    }
}
