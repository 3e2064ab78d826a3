package dev.quiver.spark.exec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.ExprId$;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.catalyst.plans.physical.PartitioningCollection;
import org.apache.spark.sql.catalyst.plans.physical.UnknownPartitioning;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.metric.SQLMetrics;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag$;

/**
 * A Spark plan node that evaluates a filter and a projection with Quiver, once per batch, inside
 * executor tasks: Spark column vectors in (used as they are when already Arrow, otherwise copied
 * into Arrow once), Arrow vectors out, as {@link org.apache.spark.sql.vectorized.ArrowColumnVector}s
 * in a {@link ColumnarBatch}. Columns that are only passed through keep the child's vectors
 * (no copy) unless a filter removes rows. Spark inserts the transitions to and from rows around it.
 *
 * <p>Made by {@link dev.quiver.spark.QuiverColumnarRule} from {@code ProjectExec} and
 * {@code FilterExec} nodes; its metrics appear in the Spark UI's SQL tab.
 */
public final class QuiverExec extends SparkPlan {
    private static final long serialVersionUID = 1L;

    static final String OUTPUT_ROWS = "numOutputRows";
    static final String INPUT_BATCHES = "numInputBatches";
    static final String QUIVER_TIME = "quiverTime";
    static final String IMPORT_TIME = "importTime";
    static final String IMPORT_BYTES = "importBytes";
    static final String CPU_BATCHES = "cpuBatches";
    static final String OPENCL_BATCHES = "openClBatches";
    static final String BYTES_TO_DEVICE = "bytesToDevice";
    static final String BYTES_FROM_DEVICE = "bytesFromDevice";

    private final Seq<Attribute> output;
    private final NodeSpec spec;
    private final SparkPlan child;
    private final boolean rowInput;
    private final int batchRows;

    @SuppressWarnings("checkstyle:inlinefqn") // Scala's Map, beside java.util's
    private transient scala.collection.immutable.Map<String, SQLMetric> metrics;

    /**
     * @param output    the node's output attributes, one per {@code spec.columns()} entry
     * @param spec      what it computes
     * @param child     its input
     * @param rowInput  whether the child's rows are read (and written into Arrow by the node) instead of its batches
     * @param batchRows rows per Arrow batch when reading rows
     */
    public QuiverExec(Seq<Attribute> output, NodeSpec spec, SparkPlan child, boolean rowInput, int batchRows) {
        this.output = Objects.requireNonNull(output, "output is null");
        this.spec = Objects.requireNonNull(spec, "spec is null");
        this.child = Objects.requireNonNull(child, "child is null");
        this.rowInput = rowInput;
        this.batchRows = batchRows;
        if (output.size() != spec.columns().size()) {
            throw new IllegalArgumentException("one output attribute per column");
        }
    }

    public NodeSpec spec() {
        return spec;
    }

    public SparkPlan child() {
        return child;
    }

    public boolean rowInput() {
        return rowInput;
    }

    /** This node reading {@code rows}' rows itself instead of Spark's row-to-columnar conversion. */
    public QuiverExec readingRows(SparkPlan rows) {
        return new QuiverExec(output, spec, rows, true, batchRows);
    }

    @Override
    public Seq<Attribute> output() {
        return output;
    }

    @Override
    public Seq<SparkPlan> children() {
        return CollectionConverters.asScala(List.of(child)).toList();
    }

    @Override
    public SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
        return new QuiverExec(output, spec, newChildren.apply(0), rowInput, batchRows);
    }

    /**
     * The child's partitioning where every column it is defined on passes through (a filter
     * keeps it too); otherwise unknown. Spark's joins and aggregates above rely on it.
     */
    @Override
    public Partitioning outputPartitioning() {
        var p = child.outputPartitioning();
        if (p instanceof PartitioningCollection c) {
            // A join's: keep the members whose columns pass through.
            List<Partitioning> kept = new ArrayList<>();
            for (var member : CollectionConverters.asJava(c.partitionings())) {
                if (!(member instanceof Expression e) || e.references().subsetOf(outputSet())) {
                    kept.add(member);
                }
            }
            if (kept.isEmpty()) {
                return new UnknownPartitioning(p.numPartitions());
            }
            return kept.size() == 1
                    ? kept.getFirst()
                    : new PartitioningCollection(
                            CollectionConverters.asScala(kept).toList());
        }
        if (p instanceof Expression e && !e.references().subsetOf(outputSet())) {
            return new UnknownPartitioning(p.numPartitions());
        }
        return p;
    }

    /** The longest prefix of the child's ordering whose sort keys pass through (equivalent keys that do not are dropped). */
    @Override
    public Seq<SortOrder> outputOrdering() {
        List<SortOrder> kept = new ArrayList<>();
        for (var o : CollectionConverters.asJava(child.outputOrdering())) {
            if (!o.child().references().subsetOf(outputSet())) {
                break;
            }
            List<Expression> same = new ArrayList<>();
            for (var x : CollectionConverters.asJava(o.sameOrderExpressions())) {
                if (x.references().subsetOf(outputSet())) {
                    same.add(x);
                }
            }
            kept.add(new SortOrder(
                    o.child(),
                    o.direction(),
                    o.nullOrdering(),
                    CollectionConverters.asScala(same).toList()));
        }
        return CollectionConverters.asScala(kept).toList();
    }

    @Override
    public boolean supportsColumnar() {
        return true;
    }

    @Override
    public boolean supportsRowBased() {
        return false;
    }

    @Override
    @SuppressWarnings("checkstyle:inlinefqn") // Scala's Map, beside java.util's
    public synchronized scala.collection.immutable.Map<String, SQLMetric> metrics() {
        if (metrics == null) {
            var sc = sparkContext();
            Map<String, SQLMetric> m = new LinkedHashMap<>();
            m.put(OUTPUT_ROWS, SQLMetrics.createMetric(sc, "number of output rows"));
            m.put(INPUT_BATCHES, SQLMetrics.createMetric(sc, "number of input batches"));
            m.put(
                    QUIVER_TIME,
                    SQLMetrics.createNanoTimingMetric(
                            sc, "time in Quiver", SQLMetrics.createNanoTimingMetric$default$3()));
            m.put(
                    IMPORT_TIME,
                    SQLMetrics.createNanoTimingMetric(
                            sc, "time copying into Arrow", SQLMetrics.createNanoTimingMetric$default$3()));
            m.put(
                    IMPORT_BYTES,
                    SQLMetrics.createSizeMetric(
                            sc, "bytes copied into Arrow", SQLMetrics.createSizeMetric$default$3()));
            m.put(CPU_BATCHES, SQLMetrics.createMetric(sc, "batches on CPU"));
            m.put(OPENCL_BATCHES, SQLMetrics.createMetric(sc, "batches on OpenCL"));
            m.put(
                    BYTES_TO_DEVICE,
                    SQLMetrics.createSizeMetric(sc, "bytes to OpenCL device", SQLMetrics.createSizeMetric$default$3()));
            m.put(
                    BYTES_FROM_DEVICE,
                    SQLMetrics.createSizeMetric(
                            sc, "bytes from OpenCL device", SQLMetrics.createSizeMetric$default$3()));
            metrics = scala.collection.immutable.Map.from(CollectionConverters.asScala(m));
        }
        return metrics;
    }

    @Override
    public RDD<InternalRow> doExecute() {
        throw new IllegalStateException(
                nodeName() + " produces columnar batches only; Spark puts a ColumnarToRow above it");
    }

    @Override
    public RDD<ColumnarBatch> doExecuteColumnar() {
        List<Attribute> childOutput = CollectionConverters.asJava(child.output());
        int[] ordinals = new int[spec.inputIds().size()];
        for (int i = 0; i < ordinals.length; i++) {
            long id = spec.inputIds().get(i);
            ordinals[i] = position(childOutput, id);
            if (ordinals[i] < 0) {
                throw new IllegalStateException("input #" + id + " is not in the child's output " + child.output());
            }
        }
        Map<String, SQLMetric> m = CollectionConverters.asJava(metrics());
        QuiverBatches f = new QuiverBatches(spec, ordinals, rowInput, batchRows, m, child.schema());
        @SuppressWarnings("unchecked")
        RDD<Object> in =
                rowInput ? (RDD<Object>) (RDD<?>) child.execute() : (RDD<Object>) (RDD<?>) child.executeColumnar();
        return in.mapPartitions(f, false, ClassTag$.MODULE$.apply(ColumnarBatch.class));
    }

    /**
     * The form Spark compares plans by (exchange and subquery reuse): the child's canonical
     * form, inputs by position in the child's output instead of expression ids, pass-through
     * outputs numbered by their position in the child, computed outputs by their own position,
     * no names or notes. Two nodes computing the same thing over the same input compare equal.
     */
    @Override
    public SparkPlan doCanonicalize() {
        List<Attribute> childOutput = CollectionConverters.asJava(child.output());
        List<Long> positions = new ArrayList<>();
        for (long id : spec.inputIds()) {
            positions.add((long) position(childOutput, id));
        }
        List<NodeSpec.Column> columns = spec.columns().stream()
                .map(c -> new NodeSpec.Column("", c.sql(), c.input()))
                .toList();
        NodeSpec canonical = new NodeSpec(
                positions,
                spec.inputTypes(),
                spec.referenced(),
                spec.filter(),
                columns,
                spec.requiredMode(),
                spec.providers(),
                spec.placement(),
                List.of());
        List<Attribute> out = CollectionConverters.asJava(output);
        List<Attribute> canonicalOutput = new ArrayList<>();
        for (int i = 0; i < out.size(); i++) {
            Attribute a = out.get(i);
            int inChild = position(childOutput, a.exprId().id());
            long id = inChild >= 0 ? inChild : -1L - i;
            canonicalOutput.add(
                    (Attribute) a.withExprId(ExprId$.MODULE$.apply(id)).canonicalized());
        }
        return new QuiverExec(
                CollectionConverters.asScala(canonicalOutput).toSeq(),
                canonical,
                child.canonicalized(),
                rowInput,
                batchRows);
    }

    private static int position(List<Attribute> attributes, long exprId) {
        for (int j = 0; j < attributes.size(); j++) {
            if (attributes.get(j).exprId().id() == exprId) {
                return j;
            }
        }
        return -1;
    }

    @Override
    public String nodeName() {
        return spec.filter() == null
                ? "QuiverProject"
                : spec.columns().stream().allMatch(NodeSpec.Column::passThrough)
                        ? "QuiverFilter"
                        : "QuiverFilterProject";
    }

    @Override
    public String simpleString(int maxFields) {
        StringBuilder sb = new StringBuilder(nodeName());
        List<Attribute> out = CollectionConverters.asJava(output);
        sb.append(" [");
        for (int i = 0; i < spec.columns().size(); i++) {
            NodeSpec.Column c = spec.columns().get(i);
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(out.get(i).name()).append('#').append(out.get(i).exprId().id());
            if (!c.passThrough()) {
                sb.append(" = ").append(c.sql());
            }
        }
        sb.append(']');
        if (spec.filter() != null) {
            sb.append(" WHERE ").append(spec.filter());
        }
        List<String> inputs = new ArrayList<>();
        for (int i = 0; i < spec.inputIds().size(); i++) {
            inputs.add("c" + i + "=#" + spec.inputIds().get(i));
        }
        sb.append(" inputs ").append(inputs);
        sb.append(", placement ").append(spec.placement().name().toLowerCase(Locale.ROOT));
        if (rowInput) {
            sb.append(", rows written into Arrow by Quiver");
        }
        for (String note : spec.notes()) {
            sb.append(", stays with Spark: ").append(note);
        }
        return sb.toString();
    }

    @Override
    public String verboseString(int maxFields) {
        return simpleString(maxFields);
    }

    @Override
    public int productArity() {
        return 5;
    }

    @Override
    public Object productElement(int n) {
        return switch (n) {
            case 0 -> output;
            case 1 -> spec;
            case 2 -> child;
            case 3 -> rowInput;
            case 4 -> batchRows;
            default -> throw new IndexOutOfBoundsException(n);
        };
    }

    @Override
    public boolean canEqual(Object that) {
        return that instanceof QuiverExec;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof QuiverExec q
                && q.output.equals(output)
                && q.spec.equals(spec)
                && q.child.equals(child)
                && q.rowInput == rowInput
                && q.batchRows == batchRows;
    }

    @Override
    public int hashCode() {
        return Objects.hash(output, spec, child, rowInput, batchRows);
    }
}
