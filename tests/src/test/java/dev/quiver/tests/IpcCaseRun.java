package dev.quiver.tests;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.QuiverOutOfMemoryException;
import dev.quiver.errors.ErrorKind;
import dev.quiver.errors.QuiverException;
import dev.quiver.expr.Expr;
import dev.quiver.functions.PlanningException;
import dev.quiver.tests.FuzzTally.Observation;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel;

/**
 * One case of {@link IpcFuzzTest}: a (mutated) IPC file read as {@code quiver eval} reads its
 * input, its expressions ({@link IpcExpressions}) planned once against the schema read (with the
 * reader as the dictionary provider), then evaluated on every batch, each outcome judged against
 * the reference ({@link IpcBatchCheck}). docs/reliability.md says the same in prose.
 *
 * <p>Each phase has its own contract:
 * <ul>
 *   <li><b>reading</b> (opening, the schema, each {@code loadNextBatch}): anything Arrow's reader
 *       throws that is an {@link IOException} or a {@link RuntimeException} is accepted, counted
 *       by its class: that is Arrow refusing the file, which the CLI reports as an input error
 *       (exit 2); so is an {@link Error} raised inside Arrow's reader ({@link #readFailure});
 *       a reader still reading at the time limit is waited for ({@link FuzzCases});</li>
 *   <li><b>planning</b>: a {@link PlanningException} (a mutated schema may hold types or names
 *       the expressions cannot use), nothing else;</li>
 *   <li><b>evaluation</b> of a batch that is well-formed in every column the expression reads:
 *       the same outcome as the same plan on the batch's canonical copy, on the same placement:
 *       equal values (floats bit for bit), or the same {@link QuiverException} (class, kind,
 *       detail, row); an exception that is no {@code QuiverException} is a failure even when the
 *       copy raises it too; an {@code InputException} is accepted where another column of the
 *       batch is malformed (validation may check the whole batch); decimals beyond their declared
 *       precision and strings that are not UTF-8 are values, not malformed buffers (Quiver
 *       checks UTF-8 where it reads a string), so their result may be beyond its precision or
 *       not UTF-8 too;</li>
 *   <li><b>evaluation</b> of a batch malformed in a column the expression reads: an
 *       {@code InputException} ({@link ErrorKind#INPUT}); a result or any other exception is a
 *       failure.</li>
 * </ul>
 * Every result is checked to be a well-formed vector of the batch's rows and the planned type.
 */
final class IpcCaseRun {
    /** At most this many batches are read from one file (a mutation can make a stream repeat a batch). */
    static final int MAX_BATCHES = 8;

    /** How the input is read: as a seekable file (IPC file or stream, by its magic), or as a pipe (a stream, an IPC file through its stream). */
    enum ReadPath {
        SEEKABLE,
        PIPE
    }

    private static final byte[] MAGIC = "ARROW1".getBytes(StandardCharsets.US_ASCII);

    private final Quiver quiver;
    private final BufferAllocator allocator;
    private final Placement placement;
    private final Random random;
    private final List<Observation> observations = new ArrayList<>();
    /** Nanoseconds spent planning, evaluating and computing the reference (copy, plan, evaluate), added to. */
    private final long[] nanos;
    /** Set while Arrow's reader runs, read by the thread that times the case. */
    private volatile boolean reading;

    private IpcCaseRun(Quiver quiver, BufferAllocator allocator, Placement placement, Random random, long[] nanos) {
        this.nanos = nanos;
        this.quiver = quiver;
        this.allocator = allocator;
        this.placement = placement;
        this.random = random;
    }

    /** A case that evaluates on {@code placement}, allocating from {@code allocator}, adding its times to {@code nanos}. */
    static IpcCaseRun of(Quiver quiver, Placement placement, Random random, BufferAllocator allocator, long[] nanos) {
        return new IpcCaseRun(quiver, allocator, placement, random, nanos);
    }

    /** Reads {@code bytes} by {@code path} and evaluates; what happened, in order. Closes everything it opens. */
    List<Observation> run(byte[] bytes, ReadPath path) {
        read(bytes, path);
        return observations;
    }

    /** Whether the case is inside Arrow's reader now (opening, reading the schema or a batch, closing), not in Quiver. */
    boolean reading() {
        return reading;
    }

    static ArrowReader open(byte[] bytes, ReadPath path, BufferAllocator allocator) throws IOException {
        boolean magic = bytes.length >= 8 && Arrays.equals(bytes, 0, MAGIC.length, MAGIC, 0, MAGIC.length);
        if (path == ReadPath.SEEKABLE) {
            ByteArrayReadableSeekableByteChannel channel = new ByteArrayReadableSeekableByteChannel(bytes);
            return magic ? new ArrowFileReader(channel, allocator) : new ArrowStreamReader(channel, allocator);
        }
        ByteArrayInputStream in = new ByteArrayInputStream(bytes);
        if (magic) {
            in.skipNBytes(8); // an IPC file on a pipe: the stream after its header, as the CLI reads it
        }
        return new ArrowStreamReader(in, allocator);
    }

    /**
     * Arrow's reader threw: any exception is Arrow refusing the input (the CLI's input error), and
     * so is an Error raised inside it, counted apart by its class: it allocates a message's
     * metadata on the heap at the length the file says (an {@code OutOfMemoryError} near 2 GiB),
     * follows a schema's flatbuffer offsets however they loop (a {@code StackOverflowError}), and
     * asserts on what it reads (an {@code AssertionError}, as tests run with {@code -ea}).
     */
    private void readFailure(Throwable e) {
        String what = e instanceof Error ? "raised an Error (" : "refused the input (";
        observations.add(
                Observation.ok("read: Arrow's reader " + what + e.getClass().getName() + ")"));
    }

    private void read(byte[] bytes, ReadPath path) {
        ArrowReader reader;
        reading = true;
        try {
            reader = open(bytes, path, allocator);
        } catch (Throwable e) {
            readFailure(e);
            return;
        } finally {
            reading = false;
        }
        try {
            readBatches(reader);
        } finally {
            reading = true;
            try {
                reader.close();
            } catch (Throwable e) {
                readFailure(e);
            } finally {
                reading = false;
            }
        }
    }

    private record Compiled(IpcExpressions.Text text, CompiledExpression compiled) {}

    /** Parsing or planning: the value, or null once a PlanningException is counted (anything else is a failure). */
    private <T> T plan(Supplier<T> step, String sql, Schema schema) {
        long t0 = System.nanoTime();
        try {
            return step.get();
        } catch (PlanningException e) {
            observations.add(Observation.ok("plan: PlanningException (PLANNING)"));
        } catch (Throwable e) {
            observations.add(Observation.failed(
                    "planning raised " + e.getClass().getName() + ", not a PlanningException",
                    sql + " over " + schema + ":\n" + FuzzTally.stack(e)));
        } finally {
            nanos[0] += System.nanoTime() - t0;
        }
        return null;
    }

    private void readBatches(ArrowReader reader) {
        VectorSchemaRoot root;
        List<String> texts;
        reading = true;
        try {
            root = reader.getVectorSchemaRoot();
            texts = IpcExpressions.forSchema(root.getSchema(), reader, random);
        } catch (Throwable e) {
            readFailure(e);
            return;
        } finally {
            reading = false;
        }
        Schema schema = root.getSchema();
        // The reader is the provider, as in the CLI; switched to a canonical copy's dictionaries for the reference.
        SwitchedDictionaries dictionaries = new SwitchedDictionaries(reader);
        List<IpcExpressions.Text> parsed = new ArrayList<>();
        for (int c = 0; c < texts.size(); c++) {
            String text = texts.get(c);
            Expr e = plan(() -> IpcExpressions.parse(text), text, schema);
            if (e != null) {
                parsed.add(new IpcExpressions.Text(text, e, Set.of(c)));
            }
        }
        IpcExpressions.Text every = IpcExpressions.everyColumn(parsed);
        if (every != null) {
            parsed.add(every);
        }
        List<Compiled> compiled = new ArrayList<>();
        for (IpcExpressions.Text t : parsed) {
            CompiledExpression e = plan(() -> quiver.compile(schema, dictionaries, t.expr()), t.sql(), schema);
            if (e != null) {
                compiled.add(new Compiled(t, e));
            }
        }
        for (int batch = 0; batch < MAX_BATCHES; batch++) {
            reading = true;
            try {
                if (!reader.loadNextBatch()) {
                    return;
                }
            } catch (Throwable e) {
                readFailure(e);
                return;
            } finally {
                reading = false;
            }
            IpcBatchCheck.Problem[] problems =
                    new IpcBatchCheck.Problem[schema.getFields().size()];
            for (int c = 0; c < problems.length; c++) {
                problems[c] = IpcBatchCheck.problem(root, c, reader);
            }
            for (Compiled c : compiled) {
                judge(c, root, reader, dictionaries, problems, batch);
            }
        }
    }

    private FuzzResult evaluate(CompiledExpression e, VectorSchemaRoot batch) {
        return FuzzResult.of(() -> e.evaluate(batch, placement, allocator), e, batch.getRowCount());
    }

    private void judge(
            Compiled c,
            VectorSchemaRoot batch,
            ArrowReader reader,
            SwitchedDictionaries dictionaries,
            IpcBatchCheck.Problem[] problems,
            int index) {
        String problem = null, values = null, elsewhere = null;
        for (int column = 0; column < problems.length; column++) {
            IpcBatchCheck.Problem p = problems[column];
            if (p == null) {
                continue;
            }
            String named = "column " + batch.getSchema().getFields().get(column).getName() + " " + p.description();
            if (!c.text.columns().contains(column)) {
                elsewhere = elsewhere == null ? named : elsewhere;
            } else if (p.values()) {
                values = values == null ? named : values;
            } else {
                problem = problem == null ? named : problem;
            }
        }
        long t0 = System.nanoTime();
        FuzzResult got = evaluate(c.compiled, batch);
        long t1 = System.nanoTime();
        nanos[1] += t1 - t0;
        String where = c.text.sql() + " on batch " + index + " (" + batch.getRowCount() + " rows, " + placement + ")";
        if (problem != null) {
            if (got.error() instanceof QuiverException q && q.kind() == ErrorKind.INPUT) {
                observations.add(Observation.ok("evaluate: InputException (INPUT) on a malformed batch"));
            } else if (got.error() == null) {
                observations.add(Observation.failed(
                        "a malformed batch evaluated to a result (validation)",
                        where + ", where " + problem + ", gave " + got.describe()));
            } else {
                String what = got.error() instanceof QuiverException q
                        ? q.getClass().getSimpleName() + " (" + q.kind() + ")"
                        : got.error().getClass().getName();
                observations.add(Observation.failed(
                        "a malformed batch raised " + what + ", not an InputException (validation)",
                        where + ", where " + problem + ", raised " + got.describe()));
            }
            return;
        }
        if (got.malformed() != null || got.beyondPrecision() != null && values == null) {
            observations.add(Observation.failed("a malformed result vector", where + ": " + got.describe()));
            return;
        }
        if (elsewhere != null && got.error() instanceof QuiverException q && q.kind() == ErrorKind.INPUT) {
            // Validation may check the whole batch, not only what the expression reads.
            observations.add(
                    Observation.ok("evaluate: InputException (INPUT) for another column of the batch, malformed"));
            return;
        }
        FuzzResult expected;
        try (IpcBatchCheck.Copy copy = IpcBatchCheck.copy(batch, reader, c.text.columns(), allocator)) {
            // The same plan (the copy has the batch's schema) over the copy's columns and dictionaries.
            dictionaries.switchTo(copy.dictionaries());
            expected = evaluate(c.compiled, copy.root());
        } catch (OutOfMemoryException e) {
            // A mutated length can make a well-formed batch of millions of rows: its copy may not fit in
            // the case's memory next to the batch. Quiver's own outcome is still judged by its kind.
            if (got.error() == null || got.error() instanceof QuiverException) {
                observations.add(Observation.ok("evaluate: "
                        + (got.error() == null
                                ? "a result"
                                : "a " + got.error().getClass().getSimpleName())
                        + "; the canonical copy does not fit in the case's memory (not compared)"));
            } else {
                observations.add(Observation.failed(
                        "a well-formed batch raised " + got.error().getClass().getName() + ", not a QuiverException",
                        where + ": " + got.describe()));
            }
            return;
        } finally {
            dictionaries.switchTo(reader);
            nanos[2] += System.nanoTime() - t1;
        }
        String inputs =
                values != null ? " (" + values + ": values the buffers' checks do not judge, computed as values)" : "";
        if (!got.same(expected) && (outOfMemory(got) || outOfMemory(expected))) {
            // The batch and its copy share the case's memory limit: which of the two runs out depends on what the
            // other holds at the time. Out of memory is a documented outcome (RESOURCE); nothing else differed.
            observations.add(
                    Observation.ok("evaluate: out of the case's memory on one side (QuiverOutOfMemoryException,"
                            + " RESOURCE), not compared"));
        } else if (!got.same(expected)) {
            observations.add(Observation.failed(
                    "a well-formed batch gave another outcome than its canonical copy",
                    where + inputs + " gave " + got.describe() + "\n  its canonical copy gave " + expected.describe()));
        } else if (got.error() == null) {
            observations.add(Observation.ok("evaluate: a result, equal to the canonical copy's"
                    + (values != null ? " (decimals beyond their precision or strings not UTF-8)" : "")));
        } else if (got.error() instanceof QuiverException q) {
            observations.add(Observation.ok(
                    "evaluate: " + q.getClass().getSimpleName() + " (" + q.kind() + "), alike on the canonical copy"));
        } else {
            observations.add(Observation.failed(
                    "a well-formed batch raised " + got.error().getClass().getName()
                            + " (so does its canonical copy), not a QuiverException",
                    where + inputs + ": " + got.describe()));
        }
    }

    /** Whether {@code r} is Quiver running out of the memory it was given (kind RESOURCE). */
    private static boolean outOfMemory(FuzzResult r) {
        return r.error() instanceof QuiverOutOfMemoryException;
    }
}
