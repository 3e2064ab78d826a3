package dev.quiver.planning;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.expr.Expr;
import dev.quiver.functions.ExecutionConfig;
import dev.quiver.functions.FunctionRegistry;
import dev.quiver.physical.BinaryExpr;
import dev.quiver.physical.ConjunctionExpr;
import dev.quiver.physical.EvalContext;
import dev.quiver.physical.KernelExecutor;
import dev.quiver.physical.PhysicalExpr;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.ir.RowFailure;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A fresh allocator per test (it must end at zero bytes), a planner over the default
 * functions, a small schema and a kernel executor that runs fused programs row by row with
 * {@link RowInterpreter}, the reference semantics of the IR.
 */
abstract class PlanningTestBase {
    /** The query start every test config uses; {@code now()} must return it. */
    static final Instant QUERY_START = Instant.parse("2024-05-06T07:08:09.123456Z");

    /**
     * x Int32, y Float64, l Int64, name Utf8, flag Boolean, t8 Int8, u32 UInt32,
     * dec Decimal(10, 2), day Date32.
     */
    static final Schema SCHEMA = new Schema(List.of(
            field("x", DataType.INT32),
            field("y", DataType.FLOAT64),
            field("l", DataType.INT64),
            field("name", DataType.UTF8),
            field("flag", DataType.BOOLEAN),
            field("t8", DataType.INT8),
            field("u32", DataType.UINT32),
            field("dec", new DataType.Decimal(10, 2)),
            field("day", DataType.DATE32)));

    /** Runs a fused program one row at a time with the reference; a row is null as the program says. */
    static final KernelExecutor ROW_INTERPRETER = (program, args, rows, allocator, mode) -> {
        DataType out = DataType.fromField(
                new Field("result", FieldType.nullable(program.resultType().arrowType()), null));
        FieldVector v = Values.allocate(out, "result", rows, allocator);
        try {
            for (int r = 0; r < rows; r++) {
                Number[] row = new Number[args.size()];
                boolean isNull = false;
                for (int k = 0; k < args.size(); k++) {
                    ScalarValue s = Values.get(args.get(k), r);
                    isNull |= s.isNull();
                    row[k] = RowFn.toNumber(s.value(), program.argTypes().get(k));
                }
                if (isNull && program.isStrict()) {
                    Values.setNull(v, r);
                    continue;
                }
                Number value;
                try {
                    value = RowInterpreter.evaluate(program.root(), row);
                    if (RowInterpreter.isNullResult(program, row)) {
                        Values.setNull(v, r);
                        continue;
                    }
                } catch (RowFailure e) {
                    throw RowInterpreter.failure(program, e, r, "reference");
                }
                Values.set(v, r, new ScalarValue(out, RowFn.fromNumber(value, program.resultType())));
            }
            v.setValueCount(rows);
            return new KernelExecutor.Result(v, rows, "reference");
        } catch (RuntimeException e) {
            v.close();
            throw e;
        }
    };

    protected RootAllocator root;
    protected BufferAllocator allocator;
    protected ExecutionConfig config;
    protected FunctionRegistry registry;
    private final List<FieldVector> inputs = new ArrayList<>();

    @BeforeEach
    void openAllocator() {
        root = new RootAllocator();
        allocator = root.newChildAllocator("test", 0, Long.MAX_VALUE);
        config = new ExecutionConfig(allocator, QUERY_START, true, Map.of());
        registry = FunctionRegistry.withDefaults();
    }

    @AfterEach
    void closeAllocator() {
        inputs.forEach(FieldVector::close);
        inputs.clear();
        assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked");
        allocator.close();
        root.close();
    }

    static Field field(String name, DataType type) {
        return type.toField(name, true);
    }

    PhysicalPlan plan(Expr e) {
        return new ExpressionPlanner(registry, config).plan(SCHEMA, e);
    }

    PhysicalPlan plan(String sql) {
        return plan(Expr.parse(sql));
    }

    /** Planned with wrapping integer arithmetic, which fused kernels run (checked integer arithmetic is not fused). */
    PhysicalPlan planWrapping(Expr e) {
        ExecutionConfig wrapping =
                new ExecutionConfig(allocator, QUERY_START, true, Map.of(ExecutionConfig.ARITHMETIC, "wrapping"));
        return new ExpressionPlanner(registry, wrapping).plan(SCHEMA, e);
    }

    PhysicalPlan planWrapping(String sql) {
        return planWrapping(Expr.parse(sql));
    }

    /** A column of {@code values} (null entries are nulls), closed after the test. */
    FieldVector column(DataType type, Object... values) {
        FieldVector v = Values.of(type, "in", Arrays.asList(values), allocator);
        inputs.add(v);
        return v;
    }

    /** Closes the columns of {@code batch} (made by {@link #column}) now rather than after the test. */
    void closeInputs(List<FieldVector> batch) {
        for (FieldVector v : batch) {
            inputs.removeIf(x -> x == v);
            v.close();
        }
    }

    /**
     * The default batch, 5 rows:
     * <pre>
     * x     y     l     name    flag   t8    u32         dec     day
     * 1     1.5   10    'ab'    true   127   4294967295  1.25    2024-01-31
     * -2    NULL  NULL  'Abc'   false  -128  0           -0.50   NULL
     * NULL  0.0   -3    NULL    NULL   NULL  NULL        NULL    1970-01-01
     * 0     -4.0  7     'a_c'   true   5     7           10.00   2000-02-29
     * 5     2.5   0     '%x'    NULL   -1    1           0.01    1969-12-31
     * </pre>
     */
    List<FieldVector> batch() {
        return List.of(
                column(DataType.INT32, 1, -2, null, 0, 5),
                column(DataType.FLOAT64, 1.5, null, 0.0, -4.0, 2.5),
                column(DataType.INT64, 10L, null, -3L, 7L, 0L),
                column(DataType.UTF8, "ab", "Abc", null, "a_c", "%x"),
                column(DataType.BOOLEAN, true, false, null, true, null),
                column(DataType.INT8, (byte) 127, (byte) -128, null, (byte) 5, (byte) -1),
                column(DataType.UINT32, 4294967295L, 0L, null, 7L, 1L),
                column(
                        new DataType.Decimal(10, 2),
                        new BigDecimal("1.25"),
                        new BigDecimal("-0.50"),
                        null,
                        new BigDecimal("10.00"),
                        new BigDecimal("0.01")),
                column(
                        DataType.DATE32,
                        (int) LocalDate.of(2024, 1, 31).toEpochDay(),
                        null,
                        0,
                        (int) LocalDate.of(2000, 2, 29).toEpochDay(),
                        -1));
    }

    /** The plan's input columns picked from the full schema-ordered batch. */
    EvalContext context(PhysicalPlan p, List<FieldVector> batch) {
        List<FieldVector> cols = p.schemaIndexes().stream().map(batch::get).toList();
        return new EvalContext(cols, batch.getFirst().getValueCount(), config, ROW_INTERPRETER);
    }

    /** Evaluates {@code p} over the batch and returns one value per row (a scalar result repeated). */
    List<Object> evaluate(PhysicalPlan p, List<FieldVector> batch) {
        // The context keeps the batch's shared subtrees (common subexpressions): closed after the value is read.
        try (EvalContext ctx = context(p, batch);
                ColumnarValue v = p.root().evaluate(ctx)) {
            return values(v, ctx.rows());
        }
    }

    static List<Object> values(ColumnarValue v, int rows) {
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            out.add(
                    switch (v) {
                        case ColumnarValue.Scalar s -> s.value().value();
                        case ColumnarValue.Array a ->
                            Values.get(a.vector(), i, v.dataType()).value();
                    });
        }
        return out;
    }

    /** Every node of the tree, depth first. */
    /** The terms of a host AND/OR chain as written, planned in written order or an adaptive one. */
    static List<PhysicalExpr> chainTerms(PhysicalExpr e) {
        return switch (e) {
            case BinaryExpr b -> b.terms();
            case ConjunctionExpr c -> c.terms();
            default -> throw new AssertionError("not a host chain: " + e.describe());
        };
    }

    static List<PhysicalExpr> nodes(PhysicalExpr e) {
        List<PhysicalExpr> out = new ArrayList<>();
        out.add(e);
        for (PhysicalExpr c : e.children()) {
            out.addAll(nodes(c));
        }
        return out;
    }
}
