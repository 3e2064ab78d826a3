package dev.quiver.spark;

import dev.quiver.CompiledExpression;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.functions.PlanningException;
import dev.quiver.kernels.ArithmeticMode;
import dev.quiver.memory.Resources;
import dev.quiver.spark.arrow.ArrowExport;
import dev.quiver.spark.arrow.RowsToArrow;
import dev.quiver.spark.arrow.SparkArrowTypes;
import dev.quiver.spark.exec.ExecutorQuivers;
import java.io.Serial;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.encoders.AgnosticEncoder;
import org.apache.spark.sql.catalyst.encoders.ExpressionEncoder;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.TaskCompletionListener;

/**
 * Quiver projections over a Spark {@link Dataset}, without a session extension: the given Quiver
 * SQL expressions are evaluated partition by partition, one Arrow batch at a time.
 *
 * <pre>{@code
 * Dataset<Row> out = QuiverDatasets.project(df, "sqrt(x * x + y * y) AS r", "sin(x) * 2 AS s");
 * Dataset<Row> big = QuiverDatasets.project(df, QuiverDatasets.Options.defaults().withBatchRows(8192), "x + y");
 * }</pre>
 *
 * <p>The expressions are compiled on the driver against the Arrow schema of the input's
 * columns (those {@link SparkArrowTypes} supports), which gives the output schema: one nullable
 * column per expression, named by its {@code AS} alias (else after the expression), typed by
 * {@link SparkArrowTypes#sparkType}. A bad expression therefore fails here, when the Dataset is
 * built, with Quiver's message. Column names are matched as Quiver matches them (exactly), not
 * case-insensitively as Spark SQL does.
 *
 * <p>Each partition compiles the expressions again (so {@code now()} is fixed per partition,
 * not per query) and streams: it reads up to {@code batchRows} rows into Arrow (only the columns
 * the expressions read), evaluates every expression over that batch, and hands out the batch's
 * result rows before it reads the next rows; a partition is never held whole. Everything is
 * allocated from a child allocator of {@link ExecutorQuivers} per partition, closed when the
 * partition's rows are exhausted, and on task completion (failure, kill, or a consumer that
 * stopped early, as {@code limit} does) through a {@link TaskContext} completion listener.
 * When the rows are exhausted, an allocator not back at zero bytes is an
 * {@link IllegalStateException} naming the bytes. Requires classic (not Connect) Spark: the
 * rows are converted with the input's and the output's {@link ExpressionEncoder}s.
 */
public final class QuiverDatasets {
    private QuiverDatasets() {}

    /**
     * How {@link #project(Dataset, Options, String...)} evaluates.
     *
     * @param batchRows the most rows per Arrow batch, at least 1; default {@value #DEFAULT_BATCH_ROWS}
     * @param placement where Quiver runs each batch's kernels; default {@link Placement#AUTO}
     */
    public record Options(int batchRows, Placement placement) implements Serializable {
        public static final int DEFAULT_BATCH_ROWS = 65_536;

        public Options {
            if (batchRows < 1) {
                throw new IllegalArgumentException("batchRows must be >= 1, got " + batchRows);
            }
            Objects.requireNonNull(placement, "placement is null");
        }

        /** Batches of {@value #DEFAULT_BATCH_ROWS} rows, placement AUTO. */
        public static Options defaults() {
            return new Options(DEFAULT_BATCH_ROWS, Placement.AUTO);
        }

        public Options withBatchRows(int rows) {
            return new Options(rows, placement);
        }

        public Options withPlacement(Placement p) {
            return new Options(batchRows, p);
        }
    }

    /** {@link #project(Dataset, Options, String...)} with {@link Options#defaults()}. */
    public static Dataset<Row> project(Dataset<Row> input, String... quiverExpressions) {
        return project(input, Options.defaults(), quiverExpressions);
    }

    /**
     * A Dataset with one column per expression of {@code quiverExpressions} (Quiver SQL, for
     * example {@code "CASE WHEN x > 0 THEN x ELSE -x END AS a"}), evaluated over every row of
     * {@code input}; lazy, as any Dataset transformation.
     *
     * @throws PlanningException        when an expression does not compile against the input's
     *                                  columns (Quiver's message; it also names the columns whose
     *                                  Spark types Quiver cannot read)
     * @throws IllegalArgumentException when no expression is given, an expression's result type
     *                                  has no Spark type, or an expression reads a column name the
     *                                  input has more than once
     */
    public static Dataset<Row> project(Dataset<Row> input, Options options, String... quiverExpressions) {
        Objects.requireNonNull(input, "input is null");
        Objects.requireNonNull(options, "options is null");
        Objects.requireNonNull(quiverExpressions, "quiverExpressions is null");
        if (quiverExpressions.length == 0) {
            throw new IllegalArgumentException("no expression to project");
        }
        String[] expressions = quiverExpressions.clone();
        for (int i = 0; i < expressions.length; i++) {
            Objects.requireNonNull(expressions[i], "expression " + i + " is null");
        }
        StructType inputSchema = input.schema();
        StructField[] fields = inputSchema.fields();
        List<Field> readable = new ArrayList<>();
        List<String> unreadable = new ArrayList<>();
        for (StructField f : fields) {
            SparkArrowTypes.arrowType(f.dataType())
                    .ifPresentOrElse(
                            t -> readable.add(SparkArrowTypes.field(f.name(), f.dataType(), f.nullable())),
                            () -> unreadable.add(f.name() + " (" + f.dataType().simpleString() + ")"));
        }
        Schema arrowSchema = new Schema(readable);
        Quiver quiver = ExecutorQuivers.quiver(ArithmeticMode.CHECKED, List.of());
        List<StructField> output = new ArrayList<>(expressions.length);
        Set<String> read = new LinkedHashSet<>();
        for (String expression : expressions) {
            CompiledExpression compiled;
            try {
                compiled = quiver.compile(arrowSchema, expression);
            } catch (PlanningException e) {
                if (unreadable.isEmpty()) {
                    throw e;
                }
                throw new PlanningException(
                        e.getMessage() + " (input columns Quiver cannot read: " + String.join(", ", unreadable) + ")",
                        e);
            }
            Field out = compiled.outputField();
            DataType type = SparkArrowTypes.sparkType(out.getType())
                    .orElseThrow(() -> new IllegalArgumentException("the expression " + expression
                            + " gives Arrow type " + out.getType() + ", which has no Spark type"));
            output.add(DataTypes.createStructField(out.getName(), type, true));
            compiled.inputColumns().forEach(c -> read.add(c.getName()));
        }
        int[] columns = ordinals(fields, read);
        StructType outputSchema = DataTypes.createStructType(output);
        Encoder<Row> outputEncoder = Encoders.row(outputSchema);
        ExpressionEncoder<Row> bound = expressionEncoder(outputEncoder);
        bound = bound.resolveAndBind(bound.resolveAndBind$default$1(), bound.resolveAndBind$default$2());
        return input.mapPartitions(
                new ProjectPartition(
                        expressions, inputSchema, columns, options, expressionEncoder(input.encoder()), bound),
                outputEncoder);
    }

    /** The ordinals in {@code fields} of the columns named {@code names}, in input order. */
    private static int[] ordinals(StructField[] fields, Set<String> names) {
        List<Integer> found = new ArrayList<>();
        for (String name : names) {
            int at = -1;
            for (int i = 0; i < fields.length; i++) {
                if (fields[i].name().equals(name)) {
                    if (at >= 0) {
                        throw new IllegalArgumentException("the input has more than one column named '" + name
                                + "': rename one before projecting with Quiver");
                    }
                    at = i;
                }
            }
            found.add(at);
        }
        return found.stream().mapToInt(Integer::intValue).sorted().toArray();
    }

    private static ExpressionEncoder<Row> expressionEncoder(Encoder<Row> e) {
        if (e instanceof ExpressionEncoder<Row> x) {
            return x;
        }
        if (e instanceof AgnosticEncoder<Row> a) {
            return ExpressionEncoder.apply(a);
        }
        throw new IllegalArgumentException(
                "the Dataset's encoder " + e.getClass().getName()
                        + " is not Spark classic's: QuiverDatasets needs classic Spark, not Spark Connect");
    }

    /** What a task needs to project its partition: shipped to the executors, so only strings, the schema and encoders. */
    private record ProjectPartition(
            String[] expressions,
            StructType inputSchema,
            int[] columns,
            Options options,
            ExpressionEncoder<Row> inputEncoder,
            ExpressionEncoder<Row> outputEncoder)
            implements MapPartitionsFunction<Row, Row> {
        @Serial
        private static final long serialVersionUID = 1L;

        @Override
        public Iterator<Row> call(Iterator<Row> rows) {
            TaskContext task = TaskContext.get();
            String name = "quiver-project"
                    + (task == null
                            ? ""
                            : "-stage-" + task.stageId() + "-partition-" + task.partitionId() + "-attempt-"
                                    + task.taskAttemptId());
            BufferAllocator allocator = ExecutorQuivers.taskAllocator(name);
            ProjectedRows projected;
            try {
                projected = new ProjectedRows(this, rows, allocator);
            } catch (RuntimeException | Error e) {
                allocator.close();
                throw e;
            }
            if (task != null) {
                task.addTaskCompletionListener(
                        (TaskCompletionListener) c -> projected.release(c.isFailed() || c.isInterrupted()));
            }
            return projected;
        }
    }

    /** The result rows of one partition, computed batch by batch as they are asked for. */
    private static final class ProjectedRows implements Iterator<Row> {
        private final BufferAllocator allocator;
        private final Iterator<InternalRow> input;
        private final RowsToArrow toArrow;
        private final List<CompiledExpression> compiled;
        private final Placement placement;
        private final ExpressionEncoder.Deserializer<Row> toRow;
        private ColumnarBatch batch;
        private Iterator<InternalRow> batchRows;
        private boolean released;

        ProjectedRows(ProjectPartition p, Iterator<Row> rows, BufferAllocator allocator) {
            this.allocator = allocator;
            ExpressionEncoder.Serializer<Row> toInternal = p.inputEncoder().createSerializer();
            this.input = new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return rows.hasNext();
                }

                @Override
                public InternalRow next() {
                    return toInternal.apply(rows.next());
                }
            };
            this.toArrow = new RowsToArrow(
                    p.inputSchema(), p.columns(), allocator, p.options().batchRows());
            Quiver quiver = ExecutorQuivers.quiver(ArithmeticMode.CHECKED, List.of());
            this.compiled = Arrays.stream(p.expressions())
                    .map(e -> quiver.compile(toArrow.schema(), e))
                    .toList();
            this.placement = p.options().placement();
            this.toRow = p.outputEncoder().createDeserializer();
        }

        @Override
        public boolean hasNext() {
            if (released) {
                return false;
            }
            try {
                while (batchRows == null || !batchRows.hasNext()) {
                    closeBatch();
                    if (!nextBatch()) {
                        release(false);
                        return false;
                    }
                }
                return true;
            } catch (RuntimeException | Error e) {
                try {
                    release(true);
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
        }

        @Override
        public Row next() {
            if (!hasNext()) {
                throw new NoSuchElementException("the partition has no more rows");
            }
            return toRow.apply(batchRows.next());
        }

        /** Reads, converts and evaluates the next batch; false when the input is exhausted. */
        private boolean nextBatch() {
            List<FieldVector> results = new ArrayList<>(compiled.size());
            int rows;
            try (VectorSchemaRoot root = toArrow.next(input)) {
                if (root == null) {
                    return false;
                }
                rows = root.getRowCount();
                for (CompiledExpression e : compiled) {
                    results.add(e.evaluate(root, placement, allocator));
                }
            } catch (RuntimeException | Error e) {
                Resources.closeAll(results);
                throw e;
            }
            try {
                batch = ArrowExport.batch(results, rows);
            } catch (RuntimeException | Error e) {
                Resources.closeAll(results);
                throw e;
            }
            batchRows = batch.rowIterator();
            return true;
        }

        private void closeBatch() {
            batchRows = null;
            if (batch != null) {
                ColumnarBatch b = batch;
                batch = null;
                b.close(); // closes the result vectors
            }
        }

        /**
         * Closes the batch, the reader and the allocator, once. {@code failed}: the task failed
         * or was killed, so the failure that got here is the one to report, not a leak.
         */
        synchronized void release(boolean failed) {
            if (released) {
                return;
            }
            released = true;
            try {
                closeBatch();
            } finally {
                toArrow.close();
                long leaked = allocator.getAllocatedMemory();
                if (leaked == 0) {
                    allocator.close();
                } else if (!failed) {
                    throw new IllegalStateException("Quiver's allocator " + allocator.getName() + " still holds "
                            + leaked + " bytes after the partition closed everything it allocated:\n"
                            + allocator.toVerboseString());
                }
            }
        }
    }
}
