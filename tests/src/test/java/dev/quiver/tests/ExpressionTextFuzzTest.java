package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.CompiledExpression;
import dev.quiver.Device;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.errors.ErrorKind;
import dev.quiver.errors.QuiverException;
import dev.quiver.functions.PlanningException;
import dev.quiver.tests.FuzzTally.Observation;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * Mutated expression text ({@link ExpressionTexts}: from the grammar, from random tokens, deeply
 * nested, very large, then mutated) compiled against the schema of {@link FuzzBatch} with its
 * dictionary ({@code Quiver.compile(schema, dictionaries, text)}) and, when it plans, evaluated on
 * a small hostile batch.
 *
 * <p>Per case: parsing and planning either plan or throw a {@link PlanningException} (kind
 * {@link ErrorKind#PLANNING}), never another exception, never a {@link StackOverflowError}; a
 * planned expression evaluates on the CPU to a well-formed vector of the batch's rows and the
 * planned type, or throws a {@link QuiverException} of a kind other than PLANNING; where the
 * text calls no transcendental function ({@link MathLibraryTest#BOUNDS}), the scalar reference
 * ({@link ScalarReferenceBackend}, every fused kernel row by row through RowInterpreter) gives
 * the same values or the same error (kind, detail, row). No hang ({@link FuzzCases}), no leak
 * (the case's allocator back at zero, and the Quiver's own where it was).
 *
 * <p>By default a bounded run of {@link #DEFAULT_CASES} cases from a fixed seed;
 * {@code -Dquiver.fuzz.text.soak=N} runs N cases from a random seed, {@code -Dquiver.fuzz.text.seed=S}
 * replays a seed, {@code -Dquiver.fuzz.text.case=K} runs only case K of it. It prints the seed,
 * the cases by source and outcome, and the failures with their first reports.
 */
class ExpressionTextFuzzTest {
    static final int DEFAULT_CASES = Integer.getInteger("quiver.fuzz.text.cases", 2_000);
    /** Rows of the hostile batch at most. */
    static final int MAX_ROWS = 65;

    @Test
    void mutatedExpressionTextPlansOrIsAPlanningError() throws Exception {
        fuzz();
    }

    private void fuzz() throws Exception {
        long soak = Long.getLong("quiver.fuzz.text.soak", 0L);
        long seed = FuzzCases.seed("quiver.fuzz.text.seed", 20261202L, soak > 0);
        Long only = Long.getLong("quiver.fuzz.text.case");
        long cases = soak > 0 ? soak : DEFAULT_CASES;
        System.out.println("ExpressionTextFuzzTest seed " + seed + " (replay with -Dquiver.fuzz.text.seed=" + seed
                + (soak > 0 ? " -Dquiver.fuzz.text.soak=" + soak : "") + "; one case: -Dquiver.fuzz.text.case=K)");
        FuzzTally tally = new FuzzTally();
        FuzzCases runner = new FuzzCases("ExpressionTextFuzzTest");
        long started = System.nanoTime();
        RootAllocator root = new RootAllocator();
        Dictionary dictionary = FuzzBatch.dictionary(root);
        DictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider(dictionary);
        Schema schema;
        try (FuzzBatch.Arrow empty = new FuzzBatch(new Object[0][], new boolean[0][]).toArrow(root, dictionary)) {
            schema = empty.root().getSchema();
        }
        Device reference = ScalarReferenceBackend.device();
        // The Quiver's own memory (folded constants) apart from the cases', so each can be checked.
        BufferAllocator quiverMemory = root.newChildAllocator("the Quiver", 0, Long.MAX_VALUE);
        try (Quiver quiver = Quiver.builder()
                .allocator(quiverMemory)
                .openCl(false)
                .addDevice(reference)
                .build()) {
            quiver.functions().register(FuzzHarness.lerp());
            quiver.functions().register(FuzzHarness.imod());
            Device referenceDevice = quiver.devices().stream()
                    .filter(d -> d.name().equals(reference.name()))
                    .findFirst()
                    .orElseThrow();
            for (long k = only != null ? only : 0;
                    k < (only != null ? only + 1 : cases) && !runner.tooManyHangs();
                    k++) {
                tally.cases++;
                Random r = FuzzCases.caseRandom(seed, k);
                ExpressionTexts.Text text =
                        ExpressionTexts.random(r, new FuzzGenerator(r, ExpressionFuzzTest.MAX_DEPTH));
                FuzzBatch full = FuzzBatch.random(r);
                FuzzBatch batch = full.select(IntStream.range(0, Math.min(full.rows(), MAX_ROWS))
                        .boxed()
                        .toList());
                tally.count("source: " + text.source());
                String what = "seed " + seed + ", case " + k + " (-Dquiver.fuzz.text.seed=" + seed
                        + " -Dquiver.fuzz.text.case=" + k + "): "
                        + text.source() + ", " + text.description() + ":\n  "
                        + ExpressionTexts.abbreviate(text.sql().replace("\n", "\\n"))
                                .indent(2)
                                .strip();
                BufferAllocator allocator = root.newChildAllocator("case " + k, 0, 256L << 20);
                // Parsing is linear in the text (about 2 s for a megabyte on a loaded machine): 10 ms more per
                // kilobyte.
                long limit = FuzzCases.LIMIT_SECONDS * 1000 + text.sql().length() / 100;
                FuzzCases.Timed<List<Observation>> timed = runner.run(
                        k,
                        () -> run(quiver, schema, provider, dictionary, referenceDevice, text.sql(), batch, allocator),
                        () -> false,
                        limit);
                if (timed.hung()) {
                    tally.hangs++;
                    tally.fail("a hang (" + text.source() + ")", what + "\n" + timed.hang());
                    continue;
                }
                if (timed.thrown() != null) {
                    tally.fail(
                            "the case raised " + timed.thrown().getClass().getName() + " (" + text.source() + ")",
                            what + "\n" + FuzzTally.stack(timed.thrown()));
                } else {
                    // A failure's category names the source: deep nesting, large, grammar, tokens.
                    timed.value()
                            .forEach(o -> tally.add(
                                    o.failure() == null
                                            ? o
                                            : Observation.failed(o.failure() + " (" + text.source() + ")", o.report()),
                                    what));
                }
                long left = allocator.getAllocatedMemory(), quivers = quiverMemory.getAllocatedMemory();
                // A hung case may still be planning: the Quiver's memory is checked only while none has hung.
                if (left != 0 || quivers != 0 && runner.hangs() == 0) {
                    tally.leaks++;
                    tally.fail(
                            "a leak",
                            what + "\n" + left + " bytes left in the case's allocator, " + quivers
                                    + " in the Quiver's");
                }
                if (left == 0) {
                    allocator.close();
                }
                if (soak > 0 && (k + 1) % 10_000 == 0) {
                    System.out.printf(
                            "  soak: %d of %d cases, %d failures, %.0f s%n",
                            k + 1, soak, tally.failureCount(), (System.nanoTime() - started) / 1e9);
                }
            }
        }
        dictionary.getVector().close();
        if (quiverMemory.getAllocatedMemory() == 0) {
            quiverMemory.close();
        }
        String summary = tally.summary("ExpressionTextFuzzTest", seed, (System.nanoTime() - started) / 1e9);
        System.out.print(summary);
        if (runner.tooManyHangs()) {
            fail("stopped after " + FuzzCases.MAX_HANGS + " hangs (seed " + seed + ")\n" + summary);
        }
        if (tally.failed()) {
            fail(tally.failureCount() + " failures (seed " + seed + ")\n" + summary);
        }
        assertEquals(0, root.getAllocatedMemory(), "bytes leaked");
        root.close();
    }

    private static List<Observation> run(
            Quiver quiver,
            Schema schema,
            DictionaryProvider provider,
            Dictionary dictionary,
            Device reference,
            String text,
            FuzzBatch batch,
            BufferAllocator allocator) {
        List<Observation> out = new ArrayList<>();
        CompiledExpression compiled;
        try {
            compiled = quiver.compile(schema, provider, text);
        } catch (PlanningException e) {
            out.add(
                    e.kind() != ErrorKind.PLANNING
                            ? Observation.failed("a PlanningException of kind " + e.kind(), FuzzTally.stack(e))
                            : Observation.ok("plan: PlanningException (PLANNING)"));
            return out;
        } catch (Throwable e) {
            out.add(Observation.failed(
                    "planning raised " + e.getClass().getName() + ", not a PlanningException", FuzzTally.stack(e)));
            return out;
        }
        try (FuzzBatch.Arrow arrow = batch.toArrow(allocator, dictionary)) {
            VectorSchemaRoot root = arrow.root();
            int rows = root.getRowCount();
            FuzzResult cpu = FuzzResult.of(() -> compiled.evaluate(root, Placement.CPU, allocator), compiled, rows);
            if (cpu.malformed() != null || cpu.beyondPrecision() != null) {
                out.add(Observation.failed("a malformed result vector", "on " + rows + " rows: " + cpu.describe()));
                return out;
            }
            if (cpu.error() == null) {
                out.add(Observation.ok("evaluate: a result"));
            } else if (cpu.error() instanceof QuiverException q && q.kind() != ErrorKind.PLANNING) {
                out.add(Observation.ok("evaluate: " + q.getClass().getSimpleName() + " (" + q.kind() + ")"));
            } else {
                out.add(Observation.failed(
                        "evaluation raised " + cpu.error().getClass().getName()
                                + (cpu.error() instanceof QuiverException q ? " (" + q.kind() + ")" : ""),
                        "on " + rows + " rows: " + cpu.describe()));
                return out;
            }
            if (exact(text)) {
                FuzzResult ref = FuzzResult.of(() -> compiled.evaluate(root, reference, allocator), compiled, rows);
                if (!cpu.same(ref)) {
                    out.add(Observation.failed(
                            "the CPU and the scalar reference differ",
                            "on " + rows + " rows\n  CPU: " + cpu.describe() + "\n  reference: " + ref.describe() + "\n"
                                    + batch.describe()));
                }
            }
        }
        return out;
    }

    /** Whether the text calls no function whose devices may differ by ulps (a linear scan: texts run to a million characters). */
    private static boolean exact(String text) {
        for (int open = text.indexOf('('); open >= 0; open = text.indexOf('(', open + 1)) {
            int end = open;
            while (end > 0 && Character.isWhitespace(text.charAt(end - 1))) {
                end--;
            }
            int start = end;
            while (start > 0 && (Character.isLetterOrDigit(text.charAt(start - 1)) || text.charAt(start - 1) == '_')) {
                start--;
            }
            String name = text.substring(start, end).toLowerCase(Locale.ROOT);
            MathLibraryTest.Bound b = MathLibraryTest.BOUNDS.get(name.equals("power") ? "pow" : name);
            if (b != null && (b.cpu() > 0 || b.openCl() > 0)) {
                return false;
            }
        }
        return true;
    }
}
