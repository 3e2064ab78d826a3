package dev.quiver.bench;

import dev.quiver.expr.Expr;
import dev.quiver.expr.Operator;
import dev.quiver.sql.SqlParser;
import dev.quiver.types.DataType;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The baseline the benchmarks measure Quiver against: a per-row interpreter of a logical
 * {@link Expr}, written in plain Java. The expression is compiled once into a tree of
 * {@link Node}s; {@link #evaluate} then walks that tree once per row, one virtual
 * {@link Node#eval(int)} call per node per row, every value boxed ({@link Double},
 * {@link Integer}, {@link Long}, {@link Boolean}; {@code null} is SQL NULL), and writes each
 * row's value into the output vector.
 *
 * <p>It is meant to be an honest version of the textbook design, not a straw man: types and
 * operators are resolved at compile time (one node class per kind and type, no lookups or
 * string comparisons per row), AND/OR stop at the first FALSE/TRUE, and nothing throws on the
 * normal path. What makes it slow is exactly what the benchmarks are about: a call and a boxed
 * value per node per row instead of one whole-column kernel per node per batch.
 *
 * <p>It supports what the benchmarks need: columns and literals of Float64, Int32, Int64 and
 * Boolean; {@code + - * /}; {@code = <> < <= > >=}; {@code AND OR NOT} with SQL's three-valued
 * logic; {@code IS [NOT] NULL}; {@code CASE [operand] WHEN .. THEN .. [ELSE ..] END}; a top-level
 * alias. Numbers of different types meet in the wider type (Int32 &lt; Int64 &lt; Float64), as in
 * Quiver. Floats compare in SQL's total order ({@code -0.0 = 0.0}, {@code NaN = NaN}, NaN above
 * everything); integers wrap on overflow and integer division by zero throws
 * {@link ArithmeticException}, as Java does. Anything else is refused by {@link #compile} with an
 * {@link UnsupportedOperationException} naming the construct.
 *
 * <pre>{@code
 * PerRowBaseline r = PerRowBaseline.compile(batch.getSchema(), "x > 0.5 AND y < 0.25");
 * try (FieldVector out = r.evaluate(batch, allocator)) {   // the caller closes the result
 *     ...
 * }
 * }</pre>
 *
 * <p>It is not the reference semantics the tests hold every device to: that is the kernel IR's
 * scalar interpreter in host ({@code dev.quiver.rowfn.ir.RowInterpreter}).
 *
 * <p>Not thread-safe: {@link #evaluate} binds the batch's columns into the tree for the duration
 * of the call, so evaluate one batch at a time.
 */
public final class PerRowBaseline {
    private final Node root;
    private final List<ColumnNode> columns;
    private final String outputName;

    private PerRowBaseline(Node root, List<ColumnNode> columns, String outputName) {
        this.root = root;
        this.columns = List.copyOf(columns);
        this.outputName = outputName;
    }

    /** Parses {@code sql} ({@link SqlParser}) and compiles it against {@code schema}. */
    public static PerRowBaseline compile(Schema schema, String sql) {
        return compile(schema, SqlParser.parse(sql));
    }

    /**
     * Compiles {@code expr} against {@code schema}.
     *
     * @throws UnsupportedOperationException for a construct or type this interpreter does not
     *                                       support; the message names it
     * @throws IllegalArgumentException      for a column the schema does not have, or operand
     *                                       types that do not fit the operator
     */
    public static PerRowBaseline compile(Schema schema, Expr expr) {
        Objects.requireNonNull(schema, "schema is null");
        Objects.requireNonNull(expr, "expr is null");
        Compiler compiler = new Compiler(schema);
        String name = expr instanceof Expr.Alias a ? a.name() : expr.toString();
        Expr body = expr instanceof Expr.Alias a ? a.expr() : expr;
        return new PerRowBaseline(compiler.compile(body), compiler.columns, name);
    }

    /** The type of the values {@link #evaluate} returns: Float64, Int32, Int64 or Boolean. */
    public DataType outputType() {
        return root.type();
    }

    /** The names of the columns the expression reads, each once, in the order it first reads them. */
    public List<String> columns() {
        return columns.stream().map(c -> c.name).toList();
    }

    /** The root of the compiled tree. */
    public Node root() {
        return root;
    }

    /**
     * Evaluates the expression at every row of {@code batch}, one tree walk per row, and
     * returns a new vector of {@code batch.getRowCount()} rows allocated from {@code allocator},
     * named after the alias or the expression text and typed {@link #outputType()}. The caller
     * owns and closes it.
     *
     * @throws IllegalArgumentException when the batch lacks a column the expression reads or
     *                                  has it with another type
     * @throws ArithmeticException      when a row divides an integer by zero
     */
    public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
        Objects.requireNonNull(batch, "batch is null");
        Objects.requireNonNull(allocator, "allocator is null");
        int rows = batch.getRowCount();
        bind(batch);
        FieldVector out = root.type().toField(outputName, true).createVector(allocator);
        try {
            if (out instanceof BaseFixedWidthVector fixed) {
                fixed.allocateNew(rows);
            }
            RowSink sink = sink(out);
            Node tree = root;
            for (int row = 0; row < rows; row++) {
                sink.write(row, tree.eval(row));
            }
            out.setValueCount(rows);
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        } finally {
            for (ColumnNode c : columns) {
                c.vector = null;
            }
        }
    }

    private void bind(VectorSchemaRoot batch) {
        for (ColumnNode c : columns) {
            FieldVector v = batch.getVector(c.name);
            if (v == null) {
                throw new IllegalArgumentException("the batch has no column '" + c.name + "'");
            }
            DataType t = DataType.fromField(v.getField());
            if (!t.equals(c.type())) {
                throw new IllegalArgumentException(
                        "column '" + c.name + "' is " + t + " in the batch but was compiled as " + c.type());
            }
            c.vector = v;
        }
    }

    /** Writes one boxed row value into the output vector. */
    @FunctionalInterface
    private interface RowSink {
        void write(int row, Object value);
    }

    private static RowSink sink(FieldVector out) {
        return switch (out) {
            case Float8Vector v ->
                (row, value) -> {
                    if (value == null) {
                        v.setNull(row);
                    } else {
                        v.set(row, (Double) value);
                    }
                };
            case IntVector v ->
                (row, value) -> {
                    if (value == null) {
                        v.setNull(row);
                    } else {
                        v.set(row, (Integer) value);
                    }
                };
            case BigIntVector v ->
                (row, value) -> {
                    if (value == null) {
                        v.setNull(row);
                    } else {
                        v.set(row, (Long) value);
                    }
                };
            case BitVector v ->
                (row, value) -> {
                    if (value == null) {
                        v.setNull(row);
                    } else {
                        v.set(row, (Boolean) value ? 1 : 0);
                    }
                };
            default -> throw new AssertionError("no sink for " + out.getField());
        };
    }

    // ------------------------------------------------------------------ the nodes

    /** One node of the interpreted tree. */
    public abstract static class Node {
        private final DataType type;

        Node(DataType type) {
            this.type = type;
        }

        /** The type of the values {@link #eval} returns. */
        public final DataType type() {
            return type;
        }

        /** This node's value at {@code row} of the bound batch, boxed; {@code null} is SQL NULL. */
        public abstract Object eval(int row);

        /** The children, in order. */
        public abstract List<Node> children();
    }

    /** A column of the bound batch, read with {@link FieldVector#getObject(int)}. */
    private static final class ColumnNode extends Node {
        final String name;
        FieldVector vector;

        ColumnNode(String name, DataType type) {
            super(type);
            this.name = name;
        }

        @Override
        public Object eval(int row) {
            return vector.getObject(row);
        }

        @Override
        public List<Node> children() {
            return List.of();
        }
    }

    private static final class LiteralNode extends Node {
        private final Object value;

        LiteralNode(DataType type, Object value) {
            super(type);
            this.value = value;
        }

        @Override
        public Object eval(int row) {
            return value;
        }

        @Override
        public List<Node> children() {
            return List.of();
        }
    }

    /** A node with two operands. */
    private abstract static class BinaryNode extends Node {
        final Node left;
        final Node right;

        BinaryNode(DataType type, Node left, Node right) {
            super(type);
            this.left = left;
            this.right = right;
        }

        @Override
        public final List<Node> children() {
            return List.of(left, right);
        }
    }

    private static final class Float64Arithmetic extends BinaryNode {
        private final Operator op;

        Float64Arithmetic(Operator op, Node left, Node right) {
            super(DataType.FLOAT64, left, right);
            this.op = op;
        }

        @Override
        public Object eval(int row) {
            Object l = left.eval(row);
            Object r = right.eval(row);
            if (l == null || r == null) {
                return null;
            }
            double a = ((Number) l).doubleValue();
            double b = ((Number) r).doubleValue();
            return switch (op) {
                case PLUS -> a + b;
                case MINUS -> a - b;
                case MULTIPLY -> a * b;
                case DIVIDE -> a / b;
                default -> throw new AssertionError(op);
            };
        }
    }

    private static final class Int64Arithmetic extends BinaryNode {
        private final Operator op;

        Int64Arithmetic(Operator op, Node left, Node right) {
            super(DataType.INT64, left, right);
            this.op = op;
        }

        @Override
        public Object eval(int row) {
            Object l = left.eval(row);
            Object r = right.eval(row);
            if (l == null || r == null) {
                return null;
            }
            long a = ((Number) l).longValue();
            long b = ((Number) r).longValue();
            return switch (op) {
                case PLUS -> a + b;
                case MINUS -> a - b;
                case MULTIPLY -> a * b;
                case DIVIDE -> a / b;
                default -> throw new AssertionError(op);
            };
        }
    }

    private static final class Int32Arithmetic extends BinaryNode {
        private final Operator op;

        Int32Arithmetic(Operator op, Node left, Node right) {
            super(DataType.INT32, left, right);
            this.op = op;
        }

        @Override
        public Object eval(int row) {
            Object l = left.eval(row);
            Object r = right.eval(row);
            if (l == null || r == null) {
                return null;
            }
            int a = (Integer) l;
            int b = (Integer) r;
            return switch (op) {
                case PLUS -> a + b;
                case MINUS -> a - b;
                case MULTIPLY -> a * b;
                case DIVIDE -> a / b;
                default -> throw new AssertionError(op);
            };
        }
    }

    /** {@code = <> < <= > >=}: NULL when either side is NULL. */
    private abstract static class Comparison extends BinaryNode {
        private final Operator op;

        Comparison(Operator op, Node left, Node right) {
            super(DataType.BOOLEAN, left, right);
            this.op = op;
        }

        /** Negative, zero or positive as {@code l} is below, equal to or above {@code r}; both non-null. */
        abstract int compare(Object l, Object r);

        @Override
        public final Object eval(int row) {
            Object l = left.eval(row);
            Object r = right.eval(row);
            if (l == null || r == null) {
                return null;
            }
            int c = compare(l, r);
            return switch (op) {
                case EQ -> c == 0;
                case NOT_EQ -> c != 0;
                case LT -> c < 0;
                case LT_EQ -> c <= 0;
                case GT -> c > 0;
                case GT_EQ -> c >= 0;
                default -> throw new AssertionError(op);
            };
        }
    }

    /** Floats in SQL's total order: {@code -0.0 = 0.0}, {@code NaN = NaN}, NaN above everything. */
    private static final class Float64Comparison extends Comparison {
        Float64Comparison(Operator op, Node left, Node right) {
            super(op, left, right);
        }

        @Override
        int compare(Object l, Object r) {
            double a = ((Number) l).doubleValue();
            double b = ((Number) r).doubleValue();
            if (a < b) {
                return -1;
            }
            if (a > b) {
                return 1;
            }
            if (a == b) {
                return 0;
            }
            return Boolean.compare(Double.isNaN(a), Double.isNaN(b));
        }
    }

    private static final class IntegerComparison extends Comparison {
        IntegerComparison(Operator op, Node left, Node right) {
            super(op, left, right);
        }

        @Override
        int compare(Object l, Object r) {
            return Long.compare(((Number) l).longValue(), ((Number) r).longValue());
        }
    }

    /** FALSE below TRUE. */
    private static final class BooleanComparison extends Comparison {
        BooleanComparison(Operator op, Node left, Node right) {
            super(op, left, right);
        }

        @Override
        int compare(Object l, Object r) {
            return Boolean.compare((Boolean) l, (Boolean) r);
        }
    }

    /** FALSE when either side is FALSE (the right side is not evaluated when the left is), else NULL when either is NULL. */
    private static final class And extends BinaryNode {
        And(Node left, Node right) {
            super(DataType.BOOLEAN, left, right);
        }

        @Override
        public Object eval(int row) {
            Object l = left.eval(row);
            if (l != null && !(Boolean) l) {
                return Boolean.FALSE;
            }
            Object r = right.eval(row);
            if (r != null && !(Boolean) r) {
                return Boolean.FALSE;
            }
            return l == null || r == null ? null : Boolean.TRUE;
        }
    }

    /** TRUE when either side is TRUE (the right side is not evaluated when the left is), else NULL when either is NULL. */
    private static final class Or extends BinaryNode {
        Or(Node left, Node right) {
            super(DataType.BOOLEAN, left, right);
        }

        @Override
        public Object eval(int row) {
            Object l = left.eval(row);
            if (l != null && (Boolean) l) {
                return Boolean.TRUE;
            }
            Object r = right.eval(row);
            if (r != null && (Boolean) r) {
                return Boolean.TRUE;
            }
            return l == null || r == null ? null : Boolean.FALSE;
        }
    }

    private static final class NotNode extends Node {
        private final Node child;

        NotNode(Node child) {
            super(DataType.BOOLEAN);
            this.child = child;
        }

        @Override
        public Object eval(int row) {
            Object v = child.eval(row);
            return v == null ? null : !(Boolean) v;
        }

        @Override
        public List<Node> children() {
            return List.of(child);
        }
    }

    /** {@code IS NULL}, or {@code IS NOT NULL} when negated; never NULL. */
    private static final class IsNullNode extends Node {
        private final Node child;
        private final boolean negated;

        IsNullNode(Node child, boolean negated) {
            super(DataType.BOOLEAN);
            this.child = child;
            this.negated = negated;
        }

        @Override
        public Object eval(int row) {
            return (child.eval(row) == null) != negated;
        }

        @Override
        public List<Node> children() {
            return List.of(child);
        }
    }

    /** Widens a number to Int64 or Float64 where the branches of a CASE meet in a wider type. */
    private static final class Widen extends Node {
        private final Node child;

        Widen(DataType type, Node child) {
            super(type);
            this.child = child;
        }

        @Override
        public Object eval(int row) {
            Object v = child.eval(row);
            if (v == null) {
                return null;
            }
            Number n = (Number) v;
            return type().equals(DataType.FLOAT64) ? (Object) n.doubleValue() : (Object) n.longValue();
        }

        @Override
        public List<Node> children() {
            return List.of(child);
        }
    }

    /** Searched CASE: the THEN of the first WHEN that is TRUE (NULL counts as not TRUE), else the ELSE, else NULL. */
    private static final class CaseNode extends Node {
        private final Node[] whens;
        private final Node[] thens;
        private final Node otherwise;

        CaseNode(DataType type, List<Node> whens, List<Node> thens, Node otherwise) {
            super(type);
            this.whens = whens.toArray(Node[]::new);
            this.thens = thens.toArray(Node[]::new);
            this.otherwise = otherwise;
        }

        @Override
        public Object eval(int row) {
            for (int i = 0; i < whens.length; i++) {
                Object c = whens[i].eval(row);
                if (c != null && (Boolean) c) {
                    return thens[i].eval(row);
                }
            }
            return otherwise == null ? null : otherwise.eval(row);
        }

        @Override
        public List<Node> children() {
            List<Node> out = new ArrayList<>();
            for (int i = 0; i < whens.length; i++) {
                out.add(whens[i]);
                out.add(thens[i]);
            }
            if (otherwise != null) {
                out.add(otherwise);
            }
            return out;
        }
    }

    // ------------------------------------------------------------------ compiling

    /** Turns a logical {@link Expr} into nodes, resolving columns and types once. */
    private static final class Compiler {
        private final Schema schema;
        final List<ColumnNode> columns = new ArrayList<>();

        Compiler(Schema schema) {
            this.schema = schema;
        }

        Node compile(Expr e) {
            return switch (e) {
                case Expr.Column c -> column(c);
                case Expr.Literal l -> {
                    DataType t = l.value().type();
                    requireSupported(t, "a literal", e);
                    yield new LiteralNode(t, l.value().value());
                }
                case Expr.Binary b -> binary(b);
                case Expr.Not n -> new NotNode(bool(compile(n.expr()), e));
                case Expr.IsNull n -> new IsNullNode(compile(n.expr()), n.negated());
                case Expr.Case c -> caseWhen(c);
                case Expr.ScalarSubquery s ->
                    throw new UnsupportedOperationException("PerRowBaseline does not support scalar"
                            + " subqueries (they read a table of the query; run them in a pipeline): " + s);
                default ->
                    throw new UnsupportedOperationException(
                            "PerRowBaseline does not support " + e.getClass().getSimpleName() + " (" + e + ")");
            };
        }

        private Node column(Expr.Column c) {
            Field field = findField(c.flatName());
            if (field == null && c.qualifier() != null) {
                field = findField(c.name());
            }
            if (field == null) {
                throw new IllegalArgumentException("no column " + c + " in the schema " + schema);
            }
            DataType t = DataType.fromField(field);
            requireSupported(t, "column " + c + " of type", c);
            for (ColumnNode existing : columns) {
                if (existing.name.equals(field.getName())) {
                    return existing;
                }
            }
            ColumnNode node = new ColumnNode(field.getName(), t);
            columns.add(node);
            return node;
        }

        private Field findField(String name) {
            for (Field f : schema.getFields()) {
                if (f.getName().equals(name)) {
                    return f;
                }
            }
            return null;
        }

        private Node binary(Expr.Binary b) {
            Node l = compile(b.left());
            Node r = compile(b.right());
            Operator op = b.op();
            switch (op) {
                case AND -> {
                    return new And(bool(l, b), bool(r, b));
                }
                case OR -> {
                    return new Or(bool(l, b), bool(r, b));
                }
                case PLUS, MINUS, MULTIPLY, DIVIDE -> {
                    DataType t = wider(l, r, b);
                    if (t.equals(DataType.FLOAT64)) {
                        return new Float64Arithmetic(op, l, r);
                    }
                    return t.equals(DataType.INT64) ? new Int64Arithmetic(op, l, r) : new Int32Arithmetic(op, l, r);
                }
                case EQ, NOT_EQ, LT, LT_EQ, GT, GT_EQ -> {
                    if (l.type().equals(DataType.BOOLEAN) && r.type().equals(DataType.BOOLEAN)) {
                        return new BooleanComparison(op, l, r);
                    }
                    DataType t = wider(l, r, b);
                    return t.equals(DataType.FLOAT64)
                            ? new Float64Comparison(op, l, r)
                            : new IntegerComparison(op, l, r);
                }
                default ->
                    throw new UnsupportedOperationException(
                            "PerRowBaseline does not support the operator " + op.sql() + " (" + b + ")");
            }
        }

        private Node caseWhen(Expr.Case c) {
            List<Node> whens = new ArrayList<>();
            List<Node> thens = new ArrayList<>();
            for (Expr.WhenThen wt : c.branches()) {
                // CASE x WHEN v ...: each WHEN is x = v (x is evaluated again for each WHEN tried).
                Node when = c.operand() == null
                        ? compile(wt.when())
                        : binary(new Expr.Binary(c.operand(), Operator.EQ, wt.when()));
                whens.add(bool(when, c));
                thens.add(compile(wt.then()));
            }
            Node otherwise = c.otherwise() == null ? null : compile(c.otherwise());
            DataType type = thens.getFirst().type();
            List<Node> values = new ArrayList<>(thens);
            if (otherwise != null) {
                values.add(otherwise);
            }
            for (Node v : values) {
                type = commonType(type, v.type(), c);
            }
            List<Node> widened = new ArrayList<>();
            for (Node t : thens) {
                widened.add(widen(t, type));
            }
            return new CaseNode(type, whens, widened, otherwise == null ? null : widen(otherwise, type));
        }

        private static Node widen(Node n, DataType to) {
            return n.type().equals(to) ? n : new Widen(to, n);
        }

        private static DataType commonType(DataType a, DataType b, Expr where) {
            if (a.equals(b)) {
                return a;
            }
            if (a.equals(DataType.BOOLEAN) || b.equals(DataType.BOOLEAN)) {
                throw new IllegalArgumentException("no common type of " + a + " and " + b + " in " + where);
            }
            return a.equals(DataType.FLOAT64) || b.equals(DataType.FLOAT64) ? DataType.FLOAT64 : DataType.INT64;
        }

        private static DataType wider(Node l, Node r, Expr where) {
            if (l.type().equals(DataType.BOOLEAN) || r.type().equals(DataType.BOOLEAN)) {
                throw new IllegalArgumentException(
                        "numbers expected, not " + l.type() + " and " + r.type() + ", in " + where);
            }
            return commonType(l.type(), r.type(), where);
        }

        private static Node bool(Node n, Expr where) {
            if (!n.type().equals(DataType.BOOLEAN)) {
                throw new IllegalArgumentException("a Boolean operand expected, not " + n.type() + ", in " + where);
            }
            return n;
        }

        private static void requireSupported(DataType t, String what, Expr where) {
            if (!(t.equals(DataType.FLOAT64)
                    || t.equals(DataType.INT32)
                    || t.equals(DataType.INT64)
                    || t.equals(DataType.BOOLEAN))) {
                throw new UnsupportedOperationException(
                        "PerRowBaseline does not support " + what + " " + t + " (" + where + ")");
            }
        }
    }
}
