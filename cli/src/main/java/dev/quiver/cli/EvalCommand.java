package dev.quiver.cli;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.types.DataType;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.TemporalText;
import dev.quiver.value.Values;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code quiver eval "<expr>" --input data.arrow [--output out.arrow]}: evaluates an expression
 * over every batch of an Arrow IPC file (or stream) and writes an Arrow IPC file with one
 * column, {@code result}, one output batch per input batch; without {@code --output} it prints
 * the columns the expression reads and the result as a table.
 *
 * <p>Everything is allocated from one {@link RootAllocator}; after the run it must hold zero
 * bytes, or the command fails (exit 1) and says how much leaked.
 */
@Command(name = "eval", mixinStandardHelpOptions = true,
        description = {"Evaluate an expression over every batch of an Arrow IPC file (or stream) and write an Arrow IPC "
                + "file with one column 'result', one batch per input batch; without --output, print the columns the "
                + "expression reads and the result as a table.",
                "Exit status: 0 done, 1 evaluation failed (e.g. integer division by zero) or memory leaked, "
                        + "2 bad expression, input or options."})
final class EvalCommand implements Callable<Integer> {

    /** "ARROW1": the first bytes of an Arrow IPC file; a stream starts with a message instead. */
    private static final byte[] FILE_MAGIC = "ARROW1".getBytes(StandardCharsets.US_ASCII);
    private static final int PROGRESS_EVERY_BATCHES = 100;

    enum DeviceChoice { cpu, opencl, auto }

    @Parameters(index = "0", paramLabel = "EXPR", description = "SQL scalar expression over the input's columns.")
    String expression;

    @Option(names = "--arithmetic", converter = ArithmeticOption.class, paramLabel = "checked|wrapping",
            description = ArithmeticOption.DESCRIPTION)
    dev.quiver.kernels.ArithmeticMode arithmetic = dev.quiver.kernels.ArithmeticMode.CHECKED;

    @Option(names = "--transfer", converter = TransferOption.class, paramLabel = TransferOption.LABEL,
            description = TransferOption.DESCRIPTION)
    dev.quiver.opencl.TransferMode transfer;

    @Option(names = "--input", required = true, paramLabel = "FILE",
            description = "Arrow IPC file (or IPC stream, recognised by the missing ARROW1 magic).")
    Path input;

    @Option(names = "--output", paramLabel = "FILE",
            description = "Arrow IPC file to write (column 'result'). Without it, a table is printed.")
    Path output;

    @Option(names = "--limit", paramLabel = "N", description = "Rows to print without --output. Default: ${DEFAULT-VALUE}.")
    int limit = 20;

    @Option(names = "--device", description = "cpu, opencl or auto (Quiver's placement). Default: ${DEFAULT-VALUE}.")
    DeviceChoice device = DeviceChoice.auto;

    /** Bytes the command's allocator still held at the end (0 unless something leaked); for tests. */
    long bytesLeft = -1;

    @Override
    public Integer call() {
        if (limit < 0) {
            System.err.println("error: --limit must be 0 or more");
            return 2;
        }
        RootAllocator allocator = new RootAllocator();
        int rc;
        try {
            rc = run(allocator);
        } finally {
            bytesLeft = allocator.getAllocatedMemory();
            if (bytesLeft != 0) {
                System.err.println("error: " + bytesLeft + " bytes still allocated after eval (a leak):\n" + allocator.toVerboseString());
            } else {
                allocator.close();
            }
        }
        return bytesLeft != 0 ? 1 : rc;
    }

    private int run(BufferAllocator allocator) {
        if (!Files.isRegularFile(input)) {
            System.err.println("error: no such file: " + input);
            return 2;
        }
        try (Quiver quiver = TransferOption.apply(Quiver.builder().allocator(allocator).functions(CliFunctions.registry())
                .arithmetic(arithmetic), transfer).build();
             ArrowReader reader = open(input, allocator)) {
            VectorSchemaRoot batch;
            Schema schema;
            try {
                batch = reader.getVectorSchemaRoot();
                schema = batch.getSchema();
            } catch (IOException | RuntimeException e) {
                System.err.println("error: " + input + " is not an Arrow IPC file or stream: " + e.getMessage());
                return 2;
            }
            CompiledExpression compiled;
            try {
                // The reader is the dictionary provider: dictionary-encoded columns compute as their values.
                compiled = quiver.compile(schema, reader, dev.quiver.expr.Expr.parse(expression));
            } catch (IllegalArgumentException e) {
                System.err.println("error: " + e.getMessage());
                return 2;
            }
            Placement placement = switch (device) {
                case cpu -> Placement.CPU;
                case opencl -> Placement.OPENCL;
                case auto -> Placement.AUTO;
            };
            try {
                return output != null ? write(compiled, reader, batch, placement, allocator) : print(compiled, reader, batch, placement, allocator);
            } catch (dev.quiver.strings.InvalidUtf8Exception e) {
                // Malformed input data, not a failure of the evaluation.
                System.err.println("error: " + input + ": " + e.getMessage());
                return 2;
            } catch (ArithmeticException | IllegalStateException | IllegalArgumentException e) {
                System.err.println("error: " + e.getMessage());
                return 1;
            }
        } catch (IOException e) {
            System.err.println("error: reading " + input + ": " + e.getMessage());
            return 2;
        }
    }

    /** Row {@code i} of {@code v}; for a dictionary-encoded column, the value its index points at. */
    private static dev.quiver.value.ScalarValue valueAt(FieldVector v, int i, ArrowReader reader) throws IOException {
        var encoding = v.getField().getDictionary();
        if (encoding == null) {
            return Values.get(v, i, DataType.fromField(v.getField()));
        }
        FieldVector values = reader.getDictionaryVectors().get(encoding.getId()).getVector();
        DataType type = DataType.fromField(values.getField());
        if (v.isNull(i)) {
            return dev.quiver.value.ScalarValue.nullOf(type);
        }
        return Values.get(values, (int) ((org.apache.arrow.vector.BaseIntVector) v).getValueAsLong(i), type);
    }

    /** A reader for an IPC file when the file starts with the ARROW1 magic, else for an IPC stream. */
    static ArrowReader open(Path path, BufferAllocator allocator) throws IOException {
        FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
        try {
            ByteBuffer head = ByteBuffer.allocate(FILE_MAGIC.length);
            while (head.hasRemaining() && channel.read(head) >= 0) {
                // read until the magic's length or the end of the file
            }
            channel.position(0);
            boolean file = !head.hasRemaining() && java.util.Arrays.equals(head.array(), FILE_MAGIC);
            return file ? new ArrowFileReader(channel, allocator) : new ArrowStreamReader(channel, allocator);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private int write(CompiledExpression compiled, ArrowReader reader, VectorSchemaRoot batch, Placement placement,
                      BufferAllocator allocator) throws IOException {
        Field of = compiled.outputField();
        Field resultField = new Field("result", of.getFieldType(), of.getChildren());
        long rows = 0, batches = 0;
        boolean done = false;
        try (VectorSchemaRoot out = VectorSchemaRoot.create(new Schema(List.of(resultField)), allocator);
             FileChannel channel = FileChannel.open(output, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                     StandardOpenOption.TRUNCATE_EXISTING);
             ArrowFileWriter writer = new ArrowFileWriter(out, new DictionaryProvider.MapDictionaryProvider(), channel)) {
            writer.start();
            while (reader.loadNextBatch()) {
                try (FieldVector result = compiled.evaluate(batch, placement, allocator)) {
                    // Hand the result's buffers to the writer's root: no copy, and the root frees them.
                    result.makeTransferPair(out.getVector(0)).transfer();
                }
                out.setRowCount(batch.getRowCount());
                writer.writeBatch();
                rows += batch.getRowCount();
                batches++;
                progress(batches, rows);
            }
            writer.end();
            done = true;
        } finally {
            if (!done) {
                Files.deleteIfExists(output); // no half-written file that looks like a result
            }
        }
        System.err.printf(Locale.ROOT, "%d rows in %d batches written to %s%n", rows, batches, output);
        return 0;
    }

    private int print(CompiledExpression compiled, ArrowReader reader, VectorSchemaRoot batch, Placement placement,
                      BufferAllocator allocator) throws IOException {
        List<String> header = new ArrayList<>();
        compiled.inputColumns().forEach(f -> header.add(f.getName()));
        header.add("result");
        List<List<String>> table = new ArrayList<>();
        long rows = 0, batches = 0;
        while (reader.loadNextBatch()) {
            try (FieldVector result = compiled.evaluate(batch, placement, allocator)) {
                DataType resultType = DataType.fromField(result.getField());
                for (int i = 0; i < batch.getRowCount() && table.size() < limit; i++) {
                    List<String> line = new ArrayList<>();
                    for (Field f : compiled.inputColumns()) {
                        FieldVector v = batch.getVector(f.getName());
                        line.add(text(valueAt(v, i, reader)));
                    }
                    line.add(text(Values.get(result, i, resultType)));
                    table.add(line);
                }
            }
            rows += batch.getRowCount();
            batches++;
            progress(batches, rows);
        }
        int[] width = new int[header.size()];
        for (int c = 0; c < width.length; c++) {
            width[c] = header.get(c).length();
            for (List<String> line : table) {
                width[c] = Math.max(width[c], line.get(c).length());
            }
        }
        StringBuilder sb = new StringBuilder();
        appendLine(sb, header, width);
        List<String> rule = new ArrayList<>();
        for (int w : width) {
            rule.add("-".repeat(w));
        }
        appendLine(sb, rule, width);
        for (List<String> line : table) {
            appendLine(sb, line, width);
        }
        sb.append(String.format(Locale.ROOT, "%d rows in %d batches%s; result %s%n", rows, batches,
                rows > table.size() ? " (first " + table.size() + " shown, --limit)" : "",
                DataType.fromField(compiled.outputField())));
        System.out.print(sb);
        System.out.flush();
        return 0;
    }

    private static void appendLine(StringBuilder sb, List<String> cells, int[] width) {
        for (int c = 0; c < cells.size(); c++) {
            if (c > 0) {
                sb.append(" | ");
            }
            String cell = cells.get(c);
            sb.append(c == cells.size() - 1 ? cell : cell + " ".repeat(width[c] - cell.length()));
        }
        sb.append('\n');
    }

    private static void progress(long batches, long rows) {
        if (batches % PROGRESS_EVERY_BATCHES == 0) {
            System.err.printf(Locale.ROOT, "  %d batches, %d rows so far%n", batches, rows);
        }
    }

    /** A value as a person reads it: NULL, strings without quotes, dates and timestamps in ISO form (UTC). */
    static String text(ScalarValue v) {
        if (v.isNull()) {
            return "NULL";
        }
        Object o = v.value();
        return switch (v.type().valueType()) {
            case DataType.Utf8 u -> (String) o;
            case DataType.Date32 d -> TemporalText.formatDate((Integer) o);
            case DataType.Timestamp ts -> {
                // TemporalText: any value of the unit, years beyond 9999 and beyond java.time's range included.
                ZoneId zone = null;
                if (ts.timezone() != null) {
                    try {
                        zone = ZoneId.of(ts.timezone());
                    } catch (java.time.DateTimeException e) {
                        yield TemporalText.formatTimestamp((Long) o, ts.unit()) + " UTC";
                    }
                }
                yield zone == null ? TemporalText.formatTimestamp((Long) o, ts.unit())
                        : TemporalText.formatInZone((Long) o, ts.unit(), zone) + " " + ts.timezone();
            }
            case DataType.Decimal d -> ((BigDecimal) o).toPlainString();
            default -> v.toString();
        };
    }
}
