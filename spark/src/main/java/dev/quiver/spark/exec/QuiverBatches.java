package dev.quiver.spark.exec;

import dev.quiver.CompiledExpression;
import dev.quiver.CompiledProjection;
import dev.quiver.ExpressionMetrics;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.spark.arrow.ArrowImport;
import dev.quiver.spark.arrow.RowsToArrow;
import dev.quiver.spark.arrow.SparkArrowTypes;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.util.AutoCloseables;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;
import org.apache.spark.QueryContext;
import org.apache.spark.SparkArithmeticException;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.errors.QueryExecutionErrors;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.TaskCompletionListener;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;
import scala.collection.immutable.Map$;
import scala.runtime.AbstractFunction1;

/**
 * The per-partition work of a {@link QuiverExec}: a function from the child's batches (or rows)
 * to Quiver's batches, run inside executor tasks. Each output batch is valid until the next one
 * is asked for (Spark's contract for columnar batches); everything is freed when the task ends,
 * and the task's allocator must then be at zero.
 */
final class QuiverBatches extends AbstractFunction1<Iterator<Object>, Iterator<ColumnarBatch>> implements Serializable {
    private static final long serialVersionUID = 1L;

    private final NodeSpec spec;
    /** Child ordinal of each input column c0, c1, ... */
    private final int[] inputOrdinals;

    private final boolean rowInput;
    private final int batchRows;
    private final Map<String, SQLMetric> metrics;
    /** The child's row layout, when it produces rows. */
    private final StructType childSchema;

    QuiverBatches(
            NodeSpec spec,
            int[] inputOrdinals,
            boolean rowInput,
            int batchRows,
            Map<String, SQLMetric> metrics,
            StructType childSchema) {
        this.spec = spec;
        this.childSchema = childSchema;
        this.inputOrdinals = inputOrdinals.clone();
        this.rowInput = rowInput;
        this.batchRows = batchRows;
        this.metrics = Map.copyOf(metrics);
    }

    private boolean importAll() {
        return rowInput || spec.filter() != null;
    }

    /** The Arrow schema of the imported inputs: c0, c1, ... */
    Schema inputSchema() {
        List<Field> fields = new ArrayList<>();
        int n = spec.imported(importAll());
        for (int i = 0; i < n; i++) {
            fields.add(SparkArrowTypes.field("c" + i, spec.inputTypes().get(i), true));
        }
        return new Schema(fields);
    }

    ExecutorQuivers.ProjectionKey key() {
        return new ExecutorQuivers.ProjectionKey(
                inputSchema(), spec.filter(), spec.projectionSql(), spec.mode(), spec.providers());
    }

    @Override
    public Iterator<ColumnarBatch> apply(Iterator<Object> input) {
        TaskContext task = TaskContext.get();
        String name =
                "quiver-task-" + (task == null ? "driver" : task.taskAttemptId()) + "-" + System.identityHashCode(this);
        BufferAllocator allocator = ExecutorQuivers.taskAllocator(name);
        ExecutorQuivers.ProjectionKey key = key();
        CompiledProjection projection;
        try {
            projection = ExecutorQuivers.borrow(key);
        } catch (RuntimeException | Error e) {
            allocator.close();
            throw e;
        }
        PartitionIterator it;
        try {
            it = new PartitionIterator(input, allocator, projection, key);
        } catch (RuntimeException | Error e) {
            ExecutorQuivers.release(key, projection);
            allocator.close();
            throw e;
        }
        if (task != null) {
            task.addTaskCompletionListener(new TaskCompletionListener() {
                @Override
                public void onTaskCompletion(TaskContext context) {
                    it.close();
                }
            });
        }
        return it;
    }

    private void add(String metric, long value) {
        SQLMetric m = metrics.get(metric);
        if (m != null) {
            m.add(value);
        }
    }

    private final class PartitionIterator extends AbstractIterator<ColumnarBatch> {
        private final Iterator<Object> input;
        private final BufferAllocator allocator;
        private final CompiledProjection projection;
        private final ExecutorQuivers.ProjectionKey key;
        private final Schema inputSchema;
        private final RowsToArrow rows;
        /** What the current output batch holds: freed when the next is asked for, or at the end. */
        private final List<AutoCloseable> held = new ArrayList<>();

        private boolean closed;

        PartitionIterator(
                Iterator<Object> input,
                BufferAllocator allocator,
                CompiledProjection projection,
                ExecutorQuivers.ProjectionKey key) {
            this.input = input;
            this.allocator = allocator;
            this.projection = projection;
            this.key = key;
            this.inputSchema = key.schema();
            this.rows = rowInput ? new RowsToArrow(rowSchema(), inputOrdinals, allocator, batchRows) : null;
        }

        /** The child's rows with the columns Quiver reads renamed c0, c1, ... */
        private StructType rowSchema() {
            StructField[] fields = childSchema.fields().clone();
            for (int j = 0; j < fields.length; j++) {
                fields[j] = new StructField("unread" + j, fields[j].dataType(), true, Metadata.empty());
            }
            for (int i = 0; i < inputOrdinals.length; i++) {
                fields[inputOrdinals[i]] =
                        new StructField("c" + i, spec.inputTypes().get(i), true, Metadata.empty());
            }
            return new StructType(fields);
        }

        @Override
        public boolean hasNext() {
            if (closed) {
                return false;
            }
            releaseHeld();
            boolean more = input.hasNext();
            if (!more) {
                close();
            }
            return more;
        }

        @Override
        public ColumnarBatch next() {
            if (closed) {
                throw new NoSuchElementException();
            }
            releaseHeld();
            try {
                return rowInput ? fromRows() : fromBatch((ColumnarBatch) input.next());
            } catch (RuntimeException | Error e) {
                releaseHeld();
                throw e;
            }
        }

        private ColumnarBatch fromBatch(ColumnarBatch in) {
            int n = in.numRows();
            long start = System.nanoTime();
            long copied = 0;
            List<FieldVector> vectors = new ArrayList<>();
            for (int i = 0; i < inputSchema.getFields().size(); i++) {
                Field field = inputSchema.getFields().get(i);
                ColumnVector source = in.column(inputOrdinals[i]);
                ValueVector arrow = ArrowImport.arrowVectorOf(source);
                FieldVector v;
                if (arrow != null && arrow.getField().getType().equals(field.getType())) {
                    // Already Arrow: share its buffers (reference counted, no copy) under our column name.
                    TransferPair share = arrow.getTransferPair(field, arrow.getAllocator());
                    share.splitAndTransfer(0, n);
                    v = (FieldVector) share.getTo();
                } else {
                    v = ArrowImport.copy(source, n, field, allocator);
                    copied += ArrowImport.bytes(v);
                }
                held.add(v);
                vectors.add(v);
            }
            add(QuiverExec.IMPORT_TIME, System.nanoTime() - start);
            add(QuiverExec.IMPORT_BYTES, copied);
            VectorSchemaRoot root = new VectorSchemaRoot(inputSchema.getFields(), vectors, n);
            return evaluate(root, n, in);
        }

        private ColumnarBatch fromRows() {
            long start = System.nanoTime();
            long before = rows.bytesWritten();
            @SuppressWarnings("unchecked")
            Iterator<InternalRow> rowIterator = (Iterator<InternalRow>) (Iterator<?>) input;
            VectorSchemaRoot root = rows.next(rowIterator);
            if (root == null) {
                throw new NoSuchElementException();
            }
            held.add(root);
            add(QuiverExec.IMPORT_TIME, System.nanoTime() - start);
            add(QuiverExec.IMPORT_BYTES, rows.bytesWritten() - before);
            return evaluate(root, root.getRowCount(), null);
        }

        private ColumnarBatch evaluate(VectorSchemaRoot inputs, int n, ColumnarBatch in) {
            long start = System.nanoTime();
            VectorSchemaRoot out;
            try {
                out = projection.project(inputs, spec.placement(), allocator);
            } catch (KernelArithmeticException e) {
                throw asSparkError(e);
            }
            held.add(out);
            add(QuiverExec.QUIVER_TIME, System.nanoTime() - start);
            recordDevices();
            int outRows = out.getRowCount();
            List<NodeSpec.Column> columns = spec.columns();
            ColumnVector[] vectors = new ColumnVector[columns.size()];
            int next = 0;
            for (int i = 0; i < columns.size(); i++) {
                NodeSpec.Column c = columns.get(i);
                if (c.passThrough() && !importAll()) {
                    vectors[i] = in.column(inputOrdinals[c.input()]);
                } else if (c.passThrough() && spec.filter() == null) {
                    vectors[i] = new ArrowColumnVector(inputs.getVector(c.input()));
                } else {
                    vectors[i] = new ArrowColumnVector(out.getVector(next++));
                }
            }
            add(QuiverExec.OUTPUT_ROWS, outRows);
            add(QuiverExec.INPUT_BATCHES, 1);
            return new ColumnarBatch(vectors, outRows);
        }

        /**
         * Quiver's arithmetic error as Spark's own (ARITHMETIC_OVERFLOW or DIVIDE_BY_ZERO), so code
         * that handles Spark's errors handles these; Quiver's message (expression, row, device) is the cause.
         */
        private RuntimeException asSparkError(KernelArithmeticException e) {
            String message = String.valueOf(e.getMessage());
            String expression = String.valueOf(e.expression());
            ArithmeticException spark;
            if (message.contains("division by zero")) {
                boolean remainder = expression.contains(" % ") || expression.startsWith("mod(");
                // Built directly: Spark's helpers put a null context in the array, which its own
                // error formatting then trips over.
                spark = new SparkArithmeticException(
                        remainder ? "REMAINDER_BY_ZERO" : "DIVIDE_BY_ZERO",
                        Map$.MODULE$.<String, String>empty().updated("config", "\"spark.sql.ansi.enabled\""),
                        new QueryContext[0],
                        "");
            } else if (message.contains("overflow")) {
                spark = QueryExecutionErrors.arithmeticOverflowError(
                        message, QueryExecutionErrors.arithmeticOverflowError$default$2(), null);
            } else {
                return e;
            }
            try {
                spark.initCause(e);
            } catch (IllegalStateException alreadyHasOne) {
                spark.addSuppressed(e);
            }
            return spark;
        }

        private void recordDevices() {
            boolean openCl = false;
            long toDevice = 0;
            long fromDevice = 0;
            List<CompiledExpression> all = new ArrayList<>(projection.columns());
            projection.filter().ifPresent(all::add);
            for (CompiledExpression e : all) {
                Optional<ExpressionMetrics.BatchReport> r = e.lastBatch();
                if (r.isPresent()) {
                    openCl |= r.get().devices().stream().anyMatch(d -> !d.equals("cpu"));
                    toDevice += r.get().bytesToDevice();
                    fromDevice += r.get().bytesFromDevice();
                }
            }
            add(openCl ? QuiverExec.OPENCL_BATCHES : QuiverExec.CPU_BATCHES, 1);
            add(QuiverExec.BYTES_TO_DEVICE, toDevice);
            add(QuiverExec.BYTES_FROM_DEVICE, fromDevice);
        }

        private void releaseHeld() {
            if (held.isEmpty()) {
                return;
            }
            List<AutoCloseable> toClose = new ArrayList<>(held);
            held.clear();
            try {
                AutoCloseables.close(toClose);
            } catch (Exception e) {
                throw new IllegalStateException("cannot free a Quiver batch", e);
            }
        }

        void close() {
            if (closed) {
                return;
            }
            closed = true;
            try {
                releaseHeld();
                if (rows != null) {
                    rows.close();
                }
            } finally {
                ExecutorQuivers.release(key, projection);
                long leaked = allocator.getAllocatedMemory();
                allocator.close(); // throws, naming the buffers, if the task leaked Arrow memory
                if (leaked != 0) {
                    throw new IllegalStateException(
                            "Quiver task allocator " + allocator.getName() + " ended at " + leaked + " bytes");
                }
            }
        }
    }
}
