package dev.quiver.cli;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.errors.QuiverException;
import dev.quiver.expr.Expr;
import dev.quiver.functions.PlanningException;
import dev.quiver.kernels.ArithmeticMode;
import dev.quiver.opencl.TransferMode;
import dev.quiver.types.DataType;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code quiver eval "<expr>" --input data.arrow [--output out.arrow]}: evaluates an expression
 * over every batch of an Arrow IPC file (or stream) and writes an Arrow IPC file with one
 * column, {@code result}, one output batch per input batch; without {@code --output} it prints
 * the columns the expression reads and the result as a table.
 *
 * <p>The paths are checked before anything is opened ({@link InputSource}, {@link OutputTarget}):
 * the output is never the input, is written beside its target and renamed into place only when
 * everything is written, and a failed run removes only its own temporary file. Failures are one
 * line and an exit status from {@link ExitStatus}.
 *
 * <p>Everything is allocated from one {@link RootAllocator}; after the run it must hold zero
 * bytes, or the command fails (exit 1) and says how much leaked.
 */
@Command(
        name = "eval",
        mixinStandardHelpOptions = true,
        description = {
            "Evaluate an expression over every batch of an Arrow IPC file (or stream) and write an Arrow IPC "
                    + "file with one column 'result', one batch per input batch; without --output, print the columns the "
                    + "expression reads and the result as a table.",
            "--output is written to a temporary file in its directory and renamed over the target only when every "
                    + "batch is written: a failed run (also one stopped by Ctrl-C or SIGTERM) leaves the target as it was "
                    + "(or absent) and removes only that temporary file. A symbolic link is followed (the file it points to is replaced). A device or FIFO "
                    + "(/dev/null, /dev/stdout on a pipe) and '-' (standard output) are written in place; a failed run "
                    + "there stops before the file's footer, so what was written is not a valid Arrow file. Refused, "
                    + "before anything is opened: the input itself under any name (a symbolic or hard link, or standard "
                    + "output appended onto it), a directory, a path ending in '/', a path in a missing directory.",
            "Text in the table has its control characters escaped (\\n, \\r, \\t, \\u001B, ...).",
            "An expression that starts with '-' is the expression (\"-x + 1\"); after '--' every argument is "
                    + "positional (eval --input f -- -h).",
            "Exit status: 0 done, 1 a failure while running (e.g. integer division by zero, writing the output, "
                    + "memory) or memory leaked, 2 a bad expression, input or option. Errors are one line on stderr."
        })
final class EvalCommand implements Callable<Integer> {

    private static final int PROGRESS_EVERY_BATCHES = 100;

    enum DeviceChoice {
        cpu,
        opencl,
        auto
    }

    @Parameters(index = "0", paramLabel = "EXPR", description = "SQL scalar expression over the input's columns.")
    String expression;

    @Option(
            names = "--arithmetic",
            converter = ArithmeticOption.class,
            paramLabel = "checked|wrapping",
            description = ArithmeticOption.DESCRIPTION)
    ArithmeticMode arithmetic = ArithmeticMode.CHECKED;

    @Option(
            names = "--transfer",
            converter = TransferOption.class,
            paramLabel = TransferOption.LABEL,
            description = TransferOption.DESCRIPTION)
    TransferMode transfer;

    @Option(
            names = "--input",
            required = true,
            paramLabel = "FILE",
            description = "Arrow IPC file, or IPC stream (recognised by the missing ARROW1 magic). '-' is standard "
                    + "input; standard input, /dev/stdin and FIFOs are read front to back as a stream (an IPC file "
                    + "arriving that way is read through the stream it holds).")
    Path input;

    @Option(
            names = "--output",
            paramLabel = "FILE",
            description = "Arrow IPC file to write (column 'result'), replaced only when the run succeeds; '-' is "
                    + "standard output. Without it, a table is printed.")
    String output; // as given: Path.of would drop a trailing '/', which OutputTarget refuses

    @Option(
            names = "--limit",
            paramLabel = "N",
            description = "Rows to print without --output. Default: ${DEFAULT-VALUE}.")
    int limit = 20;

    @Option(names = "--device", description = "cpu, opencl or auto (Quiver's placement). Default: ${DEFAULT-VALUE}.")
    DeviceChoice device = DeviceChoice.auto;

    /** Bytes the command's allocator still held at the end (0 unless something leaked); for tests. */
    long bytesLeft = -1;
    /**
     * Set when Arrow's reader refused the input (a malformed file or stream): what its allocator still
     * holds then is what the reader read of it and kept (the body of a message it could not load), not
     * Quiver's leak.
     */
    private boolean inputRefused;

    @Override
    public Integer call() {
        if (limit < 0) {
            throw new CliError(ExitStatus.Kind.OPTION, "--limit must be 0 or more, not " + limit);
        }
        // Both paths are checked before anything is opened: a refused output leaves even a FIFO input unread.
        InputSource source = InputSource.resolve(input);
        OutputTarget target = output == null ? null : OutputTarget.resolve("--output", output, source);
        RootAllocator allocator = new RootAllocator();
        // The reader's own: after it refuses the input, what it kept is told apart from Quiver's memory.
        BufferAllocator inputAllocator = allocator.newChildAllocator("input", 0, Long.MAX_VALUE);
        int rc = ExitStatus.FAILED;
        boolean returned = false;
        try {
            try {
                run(allocator, inputAllocator, source, target);
                rc = ExitStatus.OK;
            } catch (RuntimeException e) {
                rc = ExitStatus.report(e, System.err);
            }
            returned = true;
        } finally {
            long held = allocator.getAllocatedMemory();
            bytesLeft = held - (inputRefused ? inputAllocator.getAllocatedMemory() : 0);
            if (held == 0) {
                inputAllocator.close();
                allocator.close();
            } else if (bytesLeft == 0) {
                // Only the reader's memory of an input it refused: the process's exit frees it; closing would throw.
            } else {
                // After StackOverflowError or OutOfMemoryError (returned is false) one line; the boundary reports the
                // error.
                System.err.println("error: " + bytesLeft + " bytes still allocated after eval (a leak)"
                        + (returned ? ":\n" + allocator.toVerboseString() : ""));
            }
        }
        return bytesLeft != 0 ? ExitStatus.FAILED : rc;
    }

    private void run(
            BufferAllocator allocator, BufferAllocator inputAllocator, InputSource source, OutputTarget target) {
        try (Quiver quiver = TransferOption.apply(
                                Quiver.builder()
                                        .allocator(allocator)
                                        .functions(CliFunctions.registry())
                                        .arithmetic(arithmetic),
                                transfer)
                        .build();
                ArrowReader reader = source.open(inputAllocator)) {
            VectorSchemaRoot batch;
            Schema schema;
            try {
                batch = reader.getVectorSchemaRoot();
                schema = batch.getSchema();
                source.checkBlocks(reader);
                checkNames(schema.getFields(), source);
            } catch (CliError e) {
                inputRefused = true;
                throw e;
            } catch (IOException | RuntimeException | OutOfMemoryError | AssertionError e) {
                throw refused(source + " is not an Arrow IPC file or stream: ", e);
            }
            CompiledExpression compiled;
            try {
                // The reader is the dictionary provider: dictionary-encoded columns compute as their values.
                compiled = quiver.compile(schema, reader, Expr.parse(expression));
            } catch (PlanningException | IllegalArgumentException e) {
                throw new CliError(ExitStatus.Kind.EXPRESSION, String.valueOf(e.getMessage()), e);
            }
            Batches batches = new Batches(reader, batch, compiled, source, allocator);
            if (target != null) {
                write(batches, compiled, target, allocator);
            } else {
                print(batches, compiled, reader, source);
            }
        } catch (IOException e) { // opening or closing the input
            inputRefused = true;
            throw new CliError(ExitStatus.Kind.INPUT, "reading " + source + ": " + reason(e), e);
        }
    }

    /**
     * Arrow's reader refused the input: an input error (exit 2) whatever it threw. Out of memory while
     * reading means a length in the input (of a message, a body, a batch's rows) asks for more than the
     * JVM has, which a valid input of this size does not; a failure without a message of its own, a
     * NullPointerException (a part the metadata must have is missing) or a ClassCastException (whose
     * message names the reader's classes) is named as malformed metadata, never by internal class names.
     */
    private CliError refused(String what, Throwable e) {
        inputRefused = true;
        String why = switch (e) {
            case IOException io -> OutputTarget.reason(io);
            case OutOfMemoryError m -> outOfMemory(m.getMessage());
            case OutOfMemoryException m -> outOfMemory(m.getMessage());
            case NullPointerException _ -> "its metadata is malformed (a part it must have is missing)";
            case ClassCastException _ -> "its metadata is malformed (a part has the wrong kind)";
            default -> e.getMessage() != null ? firstLine(e.getMessage()) : "its metadata is malformed";
        };
        return new CliError(ExitStatus.Kind.INPUT, what + why, e);
    }

    /** A schema whose field has no name (a corrupt one: Arrow's reader accepts it) is the input's fault. */
    private static void checkNames(List<Field> fields, InputSource source) {
        for (Field f : fields) {
            if (f.getName() == null) {
                throw new CliError(
                        ExitStatus.Kind.INPUT,
                        source + " is not an Arrow IPC file or stream: its schema has a "
                                + "field without a name (type " + f.getType() + ")");
            }
            checkNames(f.getChildren(), source);
        }
    }

    private static String outOfMemory(String message) {
        return "it declares a length (of a message, a buffer or a batch) that needs more memory than the JVM can give ("
                + firstLine(String.valueOf(message)) + "): it is corrupt, or its batches need a larger heap "
                + "(QUIVER_JAVA_OPTS=-Xmx8g)";
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    private void write(Batches batches, CompiledExpression compiled, OutputTarget target, BufferAllocator allocator) {
        Field of = compiled.outputField();
        Field resultField = new Field("result", of.getFieldType(), of.getChildren());
        try (VectorSchemaRoot out = VectorSchemaRoot.create(new Schema(List.of(resultField)), allocator);
                OutputTarget.Writing writing = target.open()) {
            // Never closed: ArrowWriter.close() writes the footer, which would make a partial result a valid
            // file; the channel is the Writing's, closed (or committed) by it. The writer holds no memory.
            ArrowFileWriter writer =
                    new ArrowFileWriter(out, new DictionaryProvider.MapDictionaryProvider(), writing.channel());
            try {
                writer.start();
            } catch (IOException e) {
                throw writing.failure(e);
            }
            batches.forEach((index, batch, result) -> {
                // Hand the result's buffers to the writer's root: no copy, and the root frees them.
                result.makeTransferPair(out.getVector(0)).transfer();
                out.setRowCount(batch.getRowCount());
                try {
                    writer.writeBatch();
                } catch (IOException e) {
                    throw writing.failure(e);
                }
            });
            try {
                writer.end();
            } catch (IOException e) {
                throw writing.failure(e);
            }
            writing.commit();
        }
        System.err.printf(
                Locale.ROOT, "%d rows in %d batches written to %s%n", batches.rows(), batches.count(), output);
    }

    private void print(Batches batches, CompiledExpression compiled, ArrowReader reader, InputSource source) {
        ResultTable table = new ResultTable(compiled.inputColumns(), reader, source.toString(), limit);
        batches.forEach(table::add);
        System.out.print(table.render(batches.rows(), batches.count(), DataType.fromField(compiled.outputField())));
        System.out.flush();
    }

    private Placement placement() {
        return switch (device) {
            case cpu -> Placement.CPU;
            case opencl -> Placement.OPENCL;
            case auto -> Placement.AUTO;
        };
    }

    private static String reason(IOException e) {
        return OutputTarget.reason(e);
    }

    /** What is done with each evaluated batch. */
    @FunctionalInterface
    private interface BatchConsumer {
        /** {@code index} numbers the batches from 0; {@code result} is closed after the call. */
        void accept(long index, VectorSchemaRoot batch, FieldVector result);
    }

    /**
     * The input's batches, each evaluated: a batch that cannot be read is an input error naming it,
     * an evaluation failure is classified by {@link ExitStatus#ofEvaluation}.
     */
    private final class Batches {
        private final ArrowReader reader;
        private final VectorSchemaRoot batch;
        private final CompiledExpression compiled;
        private final InputSource source;
        private final BufferAllocator allocator;
        private long rows, count;

        Batches(
                ArrowReader reader,
                VectorSchemaRoot batch,
                CompiledExpression compiled,
                InputSource source,
                BufferAllocator allocator) {
            this.reader = reader;
            this.batch = batch;
            this.compiled = compiled;
            this.source = source;
            this.allocator = allocator;
        }

        void forEach(BatchConsumer consumer) {
            Placement placement = placement();
            while (next()) {
                FieldVector result;
                try {
                    result = compiled.evaluate(batch, placement, allocator);
                } catch (CliError e) {
                    throw e;
                } catch (RuntimeException e) {
                    ExitStatus.Kind kind = ExitStatus.ofEvaluation(e);
                    String message = ExitStatus.message(e, kind);
                    if (e instanceof QuiverException q) {
                        q.fillBatch(count); // as data on the cause; the line below names the batch already
                    }
                    throw new CliError(
                            kind,
                            (kind == ExitStatus.Kind.INPUT ? source + ", batch " : "batch ") + count + ": " + message,
                            e);
                }
                try (result) {
                    consumer.accept(count, batch, result);
                }
                rows += batch.getRowCount();
                count++;
                if (count % PROGRESS_EVERY_BATCHES == 0) {
                    System.err.printf(Locale.ROOT, "  %d batches, %d rows so far%n", count, rows);
                }
            }
        }

        private boolean next() {
            try {
                return reader.loadNextBatch();
            } catch (IOException | RuntimeException | OutOfMemoryError | AssertionError e) {
                throw refused("reading batch " + count + " of " + source + ": ", e);
            }
        }

        long rows() {
            return rows;
        }

        long count() {
            return count;
        }
    }
}
