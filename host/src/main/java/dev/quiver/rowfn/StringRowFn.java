package dev.quiver.rowfn;

import dev.quiver.cancel.Cancellation;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.functions.PlanningException;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.memory.Resources;
import dev.quiver.rowfn.ir.RowFailure;
import dev.quiver.strings.Utf8;
import dev.quiver.strings.Utf8Input;
import dev.quiver.strings.Utf8Output;
import dev.quiver.strings.Utf8View;
import dev.quiver.types.DataType;
import dev.quiver.types.TypeCoercion;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.Values;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;

/**
 * A RowFn with string elements: a function declared once, row-wise, whose arguments or result
 * are UTF-8 strings ({@link RowType#UTF8}). Kernel IR has no strings, so its body is not
 * captured symbolically: it is plain Java that Quiver calls once per row on the CPU, with each
 * string argument as a {@link Utf8View} of the Arrow bytes (no copy, no {@code String}) and a
 * string result written through {@link Out}, which appends straight into the result's Arrow
 * buffers and grows them by doubling. Quiver still owns everything around the body: coercion
 * at planning, null arguments (a null argument gives a null result without calling the body),
 * constants, allocation, validity, and the check that the output is valid UTF-8.
 *
 * <pre>{@code
 * StringRowFn initials = RowFn.declare("initials")
 *         .arg("name", RowType.UTF8)
 *         .returns(RowType.UTF8)
 *         .perRow((row, out) -> {
 *             Utf8View name = row.utf8(0);
 *             boolean start = true;
 *             for (int i = 0; i < name.length(); i += name.charLengthAt(i)) {
 *                 byte b = name.byteAt(i);
 *                 if (b == ' ') { start = true; continue; }
 *                 if (start) { out.append(name, i, i + name.charLengthAt(i)); start = false; }
 *             }
 *         });
 * }</pre>
 *
 * Such a function runs on the CPU under every placement; EXPLAIN says so. See docs/rowfn.md.
 */
public final class StringRowFn implements ScalarFunction {

    /** The body: reads one row's arguments from {@code row}, writes its result to {@code out}. */
    @FunctionalInterface
    public interface Body {
        void apply(Row row, Out out);
    }

    private final String name;
    private final List<String> aliases;
    private final List<RowFn.Param> params;
    private final boolean variadic;
    private final int minArity;
    private final RowType returns;
    private final boolean fallible;
    private final boolean optionalOutput;
    private final Volatility volatility;
    private final String description;
    private final Body body;
    private final Signature signature;
    private final LongAdder rows = new LongAdder();
    private final LongAdder batches = new LongAdder();

    StringRowFn(
            String name,
            List<String> aliases,
            List<RowFn.Param> params,
            boolean variadic,
            int minArity,
            RowType returns,
            boolean fallible,
            boolean optionalOutput,
            Volatility volatility,
            String description,
            Body body) {
        this.name = name;
        this.aliases = List.copyOf(aliases);
        this.params = List.copyOf(params);
        this.variadic = variadic;
        this.minArity = minArity;
        if (returns == null) {
            throw new IllegalArgumentException(name + ": a per-row RowFn declares its result type with returns(...)");
        }
        if (returns.isVariable() || returns == RowType.SAME_AS_ARGS) {
            throw new IllegalArgumentException(name + ": a per-row RowFn returns a concrete type, not " + returns);
        }
        for (RowFn.Param p : params) {
            if (p.type().isVariable()) {
                throw new IllegalArgumentException(
                        name + ": argument '" + p.name() + "' of a per-row RowFn has a concrete type, not " + p.type());
            }
        }
        this.returns = returns;
        this.fallible = fallible;
        this.optionalOutput = optionalOutput;
        this.volatility = volatility;
        this.description = description;
        this.body = Objects.requireNonNull(body, "body is null");
        Signature s = Signature.userDefined(volatility);
        this.signature = variadic
                ? s
                : s.withParameterNames(params.stream().map(RowFn.Param::name).toArray(String[]::new));
    }

    private RowType param(int i) {
        return variadic ? params.getFirst().type() : params.get(i).type();
    }

    static DataType dataType(RowType t) {
        return t == RowType.UTF8 ? DataType.UTF8 : RowFn.dataType(t.types().getFirst());
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public List<String> aliases() {
        return aliases;
    }

    @Override
    public Signature signature() {
        return signature;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public boolean requiresLiteral(int index) {
        return !variadic && index < params.size() && params.get(index).constant();
    }

    /** UTF8 arguments take Utf8 and LargeUtf8 as they are; the others are coerced to their declared type. */
    @Override
    public List<DataType> coerceTypes(List<DataType> argTypes) {
        int n = argTypes.size();
        if (variadic ? n < minArity : n != params.size()) {
            throw new PlanningException(
                    name + " takes " + (variadic ? "at least " + minArity : params.size()) + " argument(s), not " + n);
        }
        List<DataType> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            DataType given = argTypes.get(i).valueType();
            RowType p = param(i);
            if (p == RowType.UTF8 && given instanceof DataType.Utf8) {
                out.add(given);
                continue;
            }
            DataType target = dataType(p);
            if (!given.equals(target) && !(given instanceof DataType.Null) && !TypeCoercion.canCoerce(given, target)) {
                throw new PlanningException("argument " + (i + 1) + " of " + name + " is " + given
                        + ", which does not coerce to " + target + " ("
                        + (variadic ? params.getFirst().name() : params.get(i).name()) + ")");
            }
            out.add(target);
        }
        return out;
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return dataType(returns);
    }

    /** Rows the body has computed since the function was declared. */
    public long rowsComputed() {
        return rows.sum();
    }

    /** Batches (calls) since the function was declared. */
    public long batches() {
        return batches.sum();
    }

    @Override
    public String toString() {
        return "StringRowFn " + name;
    }

    // ---- per batch ------------------------------------------------------------------------

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        // No arguments (a volatile function, not folded): one call per row of the batch.
        boolean allScalar =
                !call.args().isEmpty() && call.args().stream().allMatch(a -> a instanceof ColumnarValue.Scalar);
        int n = allScalar ? 1 : call.numberRows();
        List<AutoCloseable> resources = new ArrayList<>();
        FieldVector result = null;
        try {
            int k = call.args().size();
            Reader[] readers = new Reader[k];
            for (int i = 0; i < k; i++) {
                ColumnarValue v = call.arg(i);
                boolean constant = v instanceof ColumnarValue.Scalar;
                FieldVector vector;
                if (constant) {
                    ColumnarValue.Array one = Values.toArray(v, 1, call.config().allocator());
                    resources.add(one);
                    vector = one.vector();
                } else {
                    vector = ((ColumnarValue.Array) v).vector();
                }
                readers[i] = Reader.of(vector, constant, param(i) == RowType.UTF8, resources);
            }
            Row row = new Row(readers);
            Out out = new Out(this, n, call);
            resources.add(out);
            loop(readers, row, out, n);
            result = out.finish();
            rows.add(n);
            batches.increment();
            return new ColumnarValue.Array(result);
        } catch (RuntimeException e) {
            if (result != null) {
                result.close();
            }
            throw e;
        } finally {
            Resources.closeAll(resources);
        }
    }

    private void loop(Reader[] readers, Row row, Out out, int n) {
        for (int r = 0; r < n; r++) {
            // The body is the author's code, of any cost: a kernel boundary every row (about a nanosecond).
            Cancellation.check();
            boolean valid = true;
            for (Reader reader : readers) {
                valid &= reader.isValid(r);
            }
            if (!valid) {
                out.skipNull();
                continue;
            }
            for (Reader reader : readers) {
                reader.load(r);
            }
            row.index = r;
            out.begin();
            try {
                body.apply(row, out);
            } catch (RowFailure f) {
                throw new KernelArithmeticException(f.getMessage(), where(), r, "cpu");
            } catch (RuntimeException e) {
                if (e instanceof KernelArithmeticException) {
                    throw e;
                }
                throw new IllegalStateException(name + ": the body threw " + e + " at row " + r, e);
            }
            out.end();
        }
    }

    private String where() {
        List<String> names = new ArrayList<>();
        for (RowFn.Param p : params) {
            names.add(p.name());
        }
        return name + "(" + String.join(", ", names) + (variadic ? ", ..." : "") + ")";
    }

    // ---- arguments ------------------------------------------------------------------------

    /** One argument of one row, as the body reads it. */
    public static final class Row {
        private final Reader[] readers;
        private int index;

        private Row(Reader[] readers) {
            this.readers = readers;
        }

        /** The number of arguments. */
        public int size() {
            return readers.length;
        }

        /** The row of the batch being computed. */
        public int rowIndex() {
            return index;
        }

        /** String argument {@code i}, as a view of its bytes (reused: valid during this call only). */
        public Utf8View utf8(int i) {
            if (!(readers[i] instanceof TextReader t)) {
                throw new IllegalStateException("argument " + i + " is not a UTF8 argument");
            }
            return t.view;
        }

        public long int64(int i) {
            return readers[i].asLong();
        }

        public int int32(int i) {
            return (int) readers[i].asLong();
        }

        public double float64(int i) {
            return readers[i].asDouble();
        }

        public float float32(int i) {
            return (float) readers[i].asDouble();
        }

        public boolean bool(int i) {
            return readers[i].asLong() != 0;
        }
    }

    private abstract static class Reader {
        final FieldVector vector;
        final boolean constant;
        final boolean nullable;

        Reader(FieldVector vector, boolean constant) {
            this.vector = vector;
            this.constant = constant;
            this.nullable = vector.getNullCount() > 0;
        }

        static Reader of(FieldVector v, boolean constant, boolean text, List<AutoCloseable> resources) {
            if (text) {
                Utf8Input in = constant ? Utf8Input.constant(v) : Utf8Input.of(v);
                resources.add(in);
                return new TextReader(v, constant, in);
            }
            return new FixedReader(v, constant);
        }

        boolean isValid(int row) {
            return !nullable || !vector.isNull(constant ? 0 : row);
        }

        abstract void load(int row);

        long asLong() {
            throw new IllegalStateException("a string argument read as a number");
        }

        double asDouble() {
            throw new IllegalStateException("a string argument read as a number");
        }
    }

    private static final class TextReader extends Reader {
        final Utf8Input in;
        final Utf8View view = new Utf8View();

        TextReader(FieldVector v, boolean constant, Utf8Input in) {
            super(v, constant);
            this.in = in;
        }

        @Override
        void load(int row) {
            long s = in.start(row);
            view.reset(in.data(), s, in.end(row) - s);
        }
    }

    private static final class FixedReader extends Reader {
        private final ArrowBuf data;
        private final int kind;
        private long longValue;
        private double doubleValue;

        FixedReader(FieldVector v, boolean constant) {
            super(v, constant);
            this.data = v.getDataBuffer();
            this.kind = switch (v) {
                case BitVector _ -> 0;
                case IntVector _ -> 1;
                case BigIntVector _ -> 2;
                case Float4Vector _ -> 3;
                case Float8Vector _ -> 4;
                default ->
                    throw new IllegalStateException(
                            "a per-row RowFn reads no " + v.getField().getType());
            };
        }

        @Override
        void load(int row) {
            long r = constant ? 0 : row;
            switch (kind) {
                case 0 -> longValue = (data.getByte(r >>> 3) >> (r & 7)) & 1;
                case 1 -> longValue = data.getInt(r << 2);
                case 2 -> longValue = data.getLong(r << 3);
                case 3 -> doubleValue = data.getFloat(r << 2);
                default -> doubleValue = data.getDouble(r << 3);
            }
            if (kind <= 2) {
                doubleValue = longValue;
            } else {
                longValue = (long) doubleValue;
            }
        }

        @Override
        long asLong() {
            return longValue;
        }

        @Override
        double asDouble() {
            return doubleValue;
        }
    }

    // ---- the result -----------------------------------------------------------------------

    /**
     * The result of one row. A string result is appended ({@code append...}); a row that appends
     * nothing is the empty string. A numeric or Boolean result is {@code set}. {@link #setNull}
     * makes the row null (declare {@code optionalOutput()}); {@link #fail} fails the query
     * (declare {@code fallible()}).
     */
    public static final class Out implements AutoCloseable {
        private final StringRowFn fn;
        private final Utf8Output text;
        private final FieldVector fixed;
        private final int kind;
        private final int rows;
        private int row;
        private boolean set;
        private boolean isNull;
        private boolean finished;

        private Out(StringRowFn fn, int rows, ScalarFunctionArgs call) {
            this.fn = fn;
            this.rows = rows;
            if (fn.returns == RowType.UTF8) {
                // A first guess that growth corrects; never a reservation that could itself exceed 2 GiB.
                long hint = Math.min(16L * rows, 64L << 20);
                this.text = Utf8Output.allocate(
                        false, fn.name, rows, hint, call.config().allocator());
                this.fixed = null;
                this.kind = -1;
            } else {
                this.text = null;
                this.fixed = Values.allocate(
                        dataType(fn.returns), fn.name, rows, call.config().allocator());
                this.kind = switch (fn.returns) {
                    case BOOLEAN -> 0;
                    case INT32 -> 1;
                    case INT64 -> 2;
                    case FLOAT32 -> 3;
                    default -> 4;
                };
            }
        }

        void begin() {
            set = false;
            isNull = false;
        }

        void end() {
            if (text != null) {
                if (isNull) {
                    text.nullRow();
                } else {
                    text.endRow();
                }
            } else if (isNull) {
                fixed.setNull(row);
            } else if (!set) {
                throw new IllegalStateException(fn.name + ": the body set no result for row " + row);
            }
            row++;
        }

        void skipNull() {
            if (text != null) {
                text.nullRow();
            } else {
                fixed.setNull(row);
            }
            row++;
        }

        FieldVector finish() {
            finished = true;
            if (text != null) {
                FieldVector v = text.finish();
                try (Utf8Input check = Utf8Input.of(v)) {
                    if (!check.isAllAscii()) {
                        for (int r = 0; r < rows; r++) {
                            if (check.isValid(r)
                                    && Utf8.firstInvalid(check.data(), check.start(r), check.end(r)) >= 0) {
                                throw new IllegalStateException(fn.name + ": the body wrote invalid UTF-8 at row " + r);
                            }
                        }
                    }
                } catch (RuntimeException e) {
                    v.close();
                    throw e;
                }
                return v;
            }
            fixed.setValueCount(rows);
            return fixed;
        }

        private Utf8Output text() {
            if (text == null) {
                throw new IllegalStateException(fn.name + " returns " + fn.returns + ", not a string: use set(...)");
            }
            return text;
        }

        public void append(byte b) {
            text().append(b);
        }

        public void append(byte[] bytes) {
            text().append(bytes);
        }

        public void append(Utf8View v) {
            text().append(v);
        }

        /** Appends the bytes {@code [from, to)} of {@code v}. */
        public void append(Utf8View v, int from, int to) {
            text().append(v, from, to);
        }

        public void appendCodePoint(int cp) {
            text().appendCodePoint(cp);
        }

        /** Appends a Java string (encodes it: for constants and slow paths, not per row on a hot path). */
        public void append(CharSequence s) {
            text().append(s);
        }

        /** Bytes appended to this row so far. */
        public long length() {
            return text().rowLength();
        }

        public void set(long v) {
            switch (kind) {
                case 1 -> ((IntVector) fixed).set(row, Math.toIntExact(v));
                case 2 -> ((BigIntVector) fixed).set(row, v);
                case 3 -> ((Float4Vector) fixed).set(row, v);
                case 4 -> ((Float8Vector) fixed).set(row, v);
                default ->
                    throw new IllegalStateException(
                            fn.name + " returns " + fn.returns + ": use set(boolean) or append");
            }
            set = true;
        }

        public void set(double v) {
            switch (kind) {
                case 3 -> ((Float4Vector) fixed).set(row, (float) v);
                case 4 -> ((Float8Vector) fixed).set(row, v);
                default ->
                    throw new IllegalStateException(
                            fn.name + " returns " + fn.returns + ", not a floating-point number");
            }
            set = true;
        }

        public void set(boolean v) {
            if (kind != 0) {
                throw new IllegalStateException(fn.name + " returns " + fn.returns + ", not a Boolean");
            }
            ((BitVector) fixed).set(row, v ? 1 : 0);
            set = true;
        }

        /** This row's result is null. */
        public void setNull() {
            if (!fn.optionalOutput) {
                throw new IllegalStateException(fn.name + " set a null result but is not declared optionalOutput()");
            }
            isNull = true;
        }

        /** Fails the query at this row with {@code message}. */
        public void fail(String message) {
            if (!fn.fallible) {
                throw new IllegalStateException(
                        fn.name + " failed a row (" + message + ") but is not declared fallible()");
            }
            throw new RowFailure(fn.name + ": " + message, null);
        }

        @Override
        public void close() {
            if (text != null) {
                text.close();
            } else if (!finished) {
                fixed.close();
            }
        }
    }
}
