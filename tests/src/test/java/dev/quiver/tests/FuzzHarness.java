package dev.quiver.tests;

import dev.quiver.CompiledExpression;
import dev.quiver.Device;
import dev.quiver.ExpressionMetrics;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.errors.QuiverException;
import dev.quiver.expr.Expr;
import dev.quiver.functions.PlanningException;
import dev.quiver.kernels.ArithmeticMode;
import dev.quiver.opencl.TransferMode;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.RowType;
import dev.quiver.types.DataType;
import dev.quiver.value.Values;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;

/**
 * Evaluates one {@link FuzzExpr} over one {@link FuzzBatch} on every Quiver placement (CPU,
 * OPENCL where a device exists and supports the program, AUTO) and, where the semantics agree,
 * in an embedded DuckDB, and says how they disagree; shrinks a disagreement to a small case.
 *
 * <p>Agreement: the same result type and rows on every placement, floats bit for bit (NaNs
 * equal), or, for a tree whose only transcendental call is its root, within that function's
 * CPU + OpenCL ulp bounds ({@link MathLibraryTest#BOUNDS}); a tree with a transcendental call
 * below its root is compared between CPU-only runs, since an ulp there may change a comparison,
 * a NULL or an error. Errors agree when their class, message (less the device) and row do. An
 * error that is no ArithmeticException and no documented conversion error (a
 * NullPointerException, an index out of bounds...) is a crash, a disagreement by itself.
 *
 * <p>OpenCL devices also run in the transfer mode the Quiver does not use (explicit copies on
 * PoCL, where Quiver picks zero copy), through a second Quiver, on one expression in
 * {@link #OTHER_MODE_EVERY} (every candidate while shrinking). Every OpenCL run's bytes copied
 * must match its mode: none in zero copy, some each way in copy mode.
 */
final class FuzzHarness implements AutoCloseable {
    /** Two simple RowFns: one float, one fallible integer function. */
    static RowFn lerp() {
        return RowFn.declare("fz_lerp")
                .arg("x", RowType.FLOAT64)
                .arg("y", RowType.FLOAT64)
                .returns(RowType.FLOAT64)
                .description("x * 0.75 + y * 0.25")
                .body((x, y) -> x.mul(0.75).add(y.mul(0.25)));
    }

    static RowFn imod() {
        return RowFn.declare("fz_imod")
                .arg("a", RowType.INTEGER)
                .arg("b", RowType.INTEGER)
                .returns(RowType.SAME_AS_ARGS)
                .fallible()
                .description("a % b, failing for b = 0")
                .body((a, b) -> a.rem(b.eq(0).choose(b.mul(0).add(1), b)).failIf(b.eq(0), "division by zero"));
    }

    /** One expression in this many also runs in the other transfer mode ({@code -Dquiver.fuzz.otherModeEvery}, 1: all). */
    static final int OTHER_MODE_EVERY = Integer.getInteger("quiver.fuzz.otherModeEvery", 8);

    final BufferAllocator allocator;
    final Quiver quiver;
    /** The same OpenCL devices in the transfer mode {@link #quiver} does not use. */
    final Quiver otherMode;

    final ArithmeticMode mode;
    private Connection duckDb;
    /** The batches loaded in DuckDB, each in a table of its own: t0, t1, ... */
    private final Map<FuzzBatch, String> duckDbTables = new IdentityHashMap<>();

    long evaluations;
    long openClSkippedUnsupported;
    long inexactCpuOnly;
    long duckDbCompared;
    /** DuckDB raised on a failing constant it folds eagerly, where Quiver evaluates lazily (not a mismatch). */
    long duckDbEagerConstantErrors;
    /** DuckDB raised in a row that an AND/OR's left operand decides, where Quiver (lazy) does not evaluate the right. */
    long duckDbEagerLogicErrors;
    /** Checks whose CPU run raised (an error that every placement must raise alike). */
    long raised;

    long rejected;
    final List<String> rejections = new ArrayList<>();

    private final Dictionary dictionary;
    private final DictionaryProvider.MapDictionaryProvider provider;
    private String compiledSql;
    private CompiledExpression compiled;
    private CompiledExpression compiledOtherMode; // null unless this expression runs in the other mode too
    private long expressionsCompiled;
    /** Set while shrinking a disagreement: every candidate runs in the other mode too. */
    private boolean allInOtherMode;
    /** Evaluations on a device in the other transfer mode. */
    long otherModeEvaluations;

    final long[] nanos = new long[5]; // compile, CPU, OpenCL, AUTO, DuckDB

    FuzzHarness(BufferAllocator allocator) {
        this(allocator, ArithmeticMode.CHECKED);
    }

    /**
     * @param mode the Quiver's integer arithmetic: under {@link ArithmeticMode#WRAPPING} integer
     *             + - * / fuse into the CPU and OpenCL kernels (under CHECKED they run as host
     *             kernels); DuckDB is asked only under CHECKED, where overflow raises in both
     */
    FuzzHarness(BufferAllocator allocator, ArithmeticMode mode) {
        this.allocator = allocator;
        this.mode = mode;
        this.dictionary = FuzzBatch.dictionary(allocator);
        this.provider = new DictionaryProvider.MapDictionaryProvider(dictionary);
        // The scalar reference joins as a device of its own: every fused segment computed by RowInterpreter.
        this.quiver = Quiver.builder()
                .allocator(allocator)
                .arithmetic(mode)
                .addDevice(ScalarReferenceBackend.device())
                .build();
        quiver.functions().register(lerp());
        quiver.functions().register(imod());
        boolean allZeroCopy = quiver.openClDevices().stream()
                .allMatch(d -> d.transferMode().orElse(TransferMode.ZERO_COPY) == TransferMode.ZERO_COPY);
        this.otherMode = Quiver.builder()
                .allocator(allocator)
                .arithmetic(mode)
                .transferMode(allZeroCopy ? TransferMode.COPY : TransferMode.ZERO_COPY)
                .build();
        otherMode.functions().register(lerp());
        otherMode.functions().register(imod());
    }

    /** The transfer mode of the second Quiver's OpenCL devices, e.g. {@code copy}. */
    String otherModeName() {
        return otherMode.transferMode().label();
    }

    /** The counters of two harnesses together. */
    record Totals(
            long evaluations,
            long rejected,
            long raised,
            long duckDbCompared,
            long inexactCpuOnly,
            long openClSkippedUnsupported,
            long otherModeEvaluations,
            long[] nanos,
            List<String> rejections) {}

    Totals plus(FuzzHarness o) {
        long[] n = new long[nanos.length];
        for (int i = 0; i < n.length; i++) {
            n[i] = nanos[i] + o.nanos[i];
        }
        List<String> r = new ArrayList<>(rejections);
        r.addAll(o.rejections);
        return new Totals(
                evaluations + o.evaluations,
                rejected + o.rejected,
                raised + o.raised,
                duckDbCompared + o.duckDbCompared,
                inexactCpuOnly + o.inexactCpuOnly,
                openClSkippedUnsupported + o.openClSkippedUnsupported,
                otherModeEvaluations + o.otherModeEvaluations,
                n,
                r);
    }

    /** What one placement gave: a type and rows, or an error. */
    record Outcome(String where, DataType type, List<Object> rows, Throwable error) {
        String errorKey() {
            if (error == null) {
                return null;
            }
            // The device is data on the exception, not part of what is compared: detail() is the
            // message without it, the same text on every device.
            if (error instanceof QuiverException q) {
                return q.getClass().getSimpleName() + " " + q.kind() + ": " + q.detail()
                        + (q.row() >= 0 ? " [row " + q.row() + "]" : "");
            }
            return error.getClass().getSimpleName() + ": " + error.getMessage();
        }

        /** The same outcome with integers as Long, as DuckDB's are compared. */
        Outcome withRowsNormalised() {
            return rows == null
                    ? this
                    : new Outcome(
                            where,
                            type,
                            rows.stream().map(FuzzHarness::normalise).toList(),
                            error);
        }

        @Override
        public String toString() {
            if (error != null) {
                return where + " raised " + errorKey();
            }
            return where + " (" + type + ") " + rows;
        }
    }

    /** A disagreement: which two sides (the kind, kept while shrinking) and how. */
    record Mismatch(String kind, String detail) {}

    /** The expression did not plan: the generator's fault, not a disagreement. */
    static final class Rejected extends Exception {
        Rejected(String message) {
            super(message, null, false, false);
        }
    }

    Mismatch check(FuzzExpr expr, FuzzBatch batch, boolean withDuckDb) throws Rejected {
        String sql = expr.sql();
        try (FuzzBatch.Arrow arrow = batch.toArrow(allocator, dictionary)) {
            long t0 = System.nanoTime();
            try {
                // Every batch has the same schema and dictionary: an expression is compiled once for all of them.
                if (!sql.equals(compiledSql) || allInOtherMode && compiledOtherMode == null) {
                    compiledSql = null;
                    compiled = quiver.compile(arrow.root().getSchema(), provider, Expr.parse(sql));
                    compiledOtherMode = allInOtherMode || expressionsCompiled++ % OTHER_MODE_EVERY == 0
                            ? otherMode.compile(arrow.root().getSchema(), provider, Expr.parse(sql))
                            : null;
                    compiledSql = sql;
                }
            } catch (PlanningException e) {
                rejected++;
                if (rejections.size() < 20) {
                    rejections.add(sql + ": " + e.getMessage());
                }
                throw new Rejected(e.getMessage());
            } catch (RuntimeException e) {
                return new Mismatch("planning crash", "planning " + sql + " crashed: " + e);
            }
            nanos[0] += System.nanoTime() - t0;
            Outcome cpu = run("CPU", compiled, arrow, Placement.CPU, null);
            List<Outcome> others = new ArrayList<>();
            boolean inexact = !expr.inexactFunctions().isEmpty();
            boolean compareDevices = !inexact || expr.inexactOnlyAtRoot();
            if (!compareDevices) {
                inexactCpuOnly++;
            }
            if (compareDevices) {
                for (Device device : quiver.openClDevices()) {
                    if (compiled.programs().stream()
                            .anyMatch(p -> device.backend().unsupportedReason(p).isPresent())) {
                        openClSkippedUnsupported++;
                        continue;
                    }
                    Outcome o = run(device.name(), compiled, arrow, null, device);
                    others.add(o);
                    String wrong =
                            transferMismatch(o, compiled, device, arrow.root().getRowCount());
                    if (wrong != null) {
                        return new Mismatch("transfer accounting", wrong);
                    }
                }
                if (compiledOtherMode != null) {
                    for (Device device : otherMode.openClDevices()) {
                        if (compiledOtherMode.programs().stream()
                                .anyMatch(p ->
                                        device.backend().unsupportedReason(p).isPresent())) {
                            continue;
                        }
                        otherModeEvaluations++;
                        Outcome o = run(
                                device.name() + " [" + device.transferMode().orElseThrow() + "]",
                                compiledOtherMode,
                                arrow,
                                null,
                                device);
                        others.add(o);
                        String wrong = transferMismatch(
                                o, compiledOtherMode, device, arrow.root().getRowCount());
                        if (wrong != null) {
                            return new Mismatch("transfer accounting", wrong);
                        }
                    }
                }
                others.add(run("AUTO", compiled, arrow, Placement.AUTO, null));
            }
            if (cpu.error() != null) {
                raised++;
            }
            if (isCrash(cpu.error())) {
                return new Mismatch("crash", "CPU crashed: " + describe(cpu.error()));
            }
            int ulps = 0;
            if (expr.inexactOnlyAtRoot()) {
                MathLibraryTest.Bound b = MathLibraryTest.bound(expr.inexact());
                ulps = b.cpu() + b.openCl();
            }
            for (Outcome o : others) {
                if (isCrash(o.error())) {
                    return new Mismatch("crash", o.where() + " crashed: " + describe(o.error()));
                }
                String diff = differ(cpu, o, ulps);
                if (diff != null) {
                    return new Mismatch(
                            "CPU vs "
                                    + (o.where().equals("AUTO")
                                            ? "AUTO"
                                            : o.where().equals(ScalarReferenceBackend.NAME)
                                                    ? "the scalar reference"
                                                    : o.where().endsWith("]")
                                                            ? "OpenCL in the other transfer mode"
                                                            : "OpenCL"),
                            diff);
                }
            }
            if (withDuckDb
                    && mode == ArithmeticMode.CHECKED
                    && !inexact
                    && expr.duckDbAgrees()
                    && cpu.error() == null) {
                duckDbCompared++;
                long t1 = System.nanoTime();
                Outcome duck = duckDb(sql, batch);
                nanos[4] += System.nanoTime() - t1;
                // DuckDB's sign of a zero is not Quiver's (least(-0.0, 1.0) is 0.0 there): zeros compare equal.
                String diff = differ(cpu.withRowsNormalised(), duck.withRowsNormalised(), 0);
                if (diff != null && duck.error() != null && constantSubtreeRaises(expr)) {
                    // DuckDB folds a failing constant (-(-2147483648)) at planning and raises whatever
                    // the rows; Quiver keeps a node whose folding fails and raises only on a row that
                    // needs it (docs/evaluation.md): a documented difference, counted, not a mismatch.
                    duckDbEagerConstantErrors++;
                    diff = null;
                }
                if (diff != null && duck.error() != null && expr.hasLogic()) {
                    // DuckDB evaluates both operands of AND and OR on every row; Quiver evaluates the right one
                    // only on the rows the left leaves undecided (docs/evaluation.md). Asked again with each
                    // AND/OR written as the equivalent lazy CASE, DuckDB must agree with Quiver row for row.
                    Outcome lazy = duckDb(expr.lazyLogicSql(), batch);
                    if (differ(cpu.withRowsNormalised(), lazy.withRowsNormalised(), 0) == null) {
                        duckDbEagerLogicErrors++;
                        diff = null;
                    }
                }
                if (diff != null) {
                    return new Mismatch("Quiver vs DuckDB", diff);
                }
            }
            return null;
        }
    }

    /**
     * Null when the batch a device just evaluated reports the bytes its transfer mode moves: none
     * without copies (zero copy, the reference), some each way with them (any kernel over rows).
     */
    private static String transferMismatch(Outcome o, CompiledExpression c, Device device, int rows) {
        if (o.error() != null) {
            return null; // no batch report: the evaluation did not complete
        }
        ExpressionMetrics.BatchReport r = c.lastBatch().orElse(null);
        if (r == null || r.rows() != rows) {
            return o.where() + " completed a batch of " + rows + " rows but reports " + r;
        }
        if (r.kernelRuns() == 0) {
            return r.bytesCopied() == 0 && r.devices().isEmpty() ? null : o.where() + " ran no kernel but reports " + r;
        }
        if (!r.devices().equals(List.of(device.name()))) {
            return o.where() + " was requested, but the batch reports " + r;
        }
        boolean copies = device.transferMode().orElse(TransferMode.ZERO_COPY) == TransferMode.COPY;
        if (copies ? rows > 0 && (r.bytesToDevice() == 0 || r.bytesFromDevice() == 0) : r.bytesCopied() != 0) {
            return o.where() + " (" + (copies ? "copies" : "no copies") + ") reports " + r;
        }
        return null;
    }

    /** Whether a column-free, non-literal subtree of {@code e} raises when Quiver evaluates it on its own. */
    boolean constantSubtreeRaises(FuzzExpr e) {
        if (!e.literal() && !e.kids().isEmpty() && columnFree(e)) {
            try (VectorSchemaRoot one = VectorSchemaRoot.create(new Schema(List.of()), allocator)) {
                one.setRowCount(1);
                quiver.compile(one.getSchema(), Expr.parse(e.sql()))
                        .evaluateValue(one, Placement.CPU, allocator)
                        .close();
                return false;
            } catch (QuiverException | ArithmeticException | IllegalArgumentException | IllegalStateException x) {
                return true;
            }
        }
        for (FuzzExpr k : e.kids()) {
            if (constantSubtreeRaises(k)) {
                return true;
            }
        }
        return false;
    }

    private static boolean columnFree(FuzzExpr e) {
        if (e.kids().isEmpty()) {
            return e.literal();
        }
        return e.kids().stream().allMatch(FuzzHarness::columnFree);
    }

    private Outcome run(
            String where, CompiledExpression compiled, FuzzBatch.Arrow arrow, Placement placement, Device device) {
        evaluations++;
        long t0 = System.nanoTime();
        try {
            return runTimed(where, compiled, arrow, placement, device);
        } finally {
            nanos[placement == Placement.CPU ? 1 : placement == null ? 2 : 3] += System.nanoTime() - t0;
        }
    }

    private Outcome runTimed(
            String where, CompiledExpression compiled, FuzzBatch.Arrow arrow, Placement placement, Device device) {
        try (FieldVector out = placement != null
                ? compiled.evaluate(arrow.root(), placement, allocator)
                : compiled.evaluate(arrow.root(), device, allocator)) {
            DataType t = DataType.fromField(out.getField());
            int n = arrow.root().getRowCount();
            if (out.getValueCount() != n) {
                return new Outcome(
                        where,
                        t,
                        null,
                        new IllegalStateException("result has " + out.getValueCount() + " rows for " + n));
            }
            List<Object> rows = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                rows.add(Values.get(out, i).value());
            }
            return new Outcome(where, t, rows, null);
        } catch (RuntimeException | Error e) {
            return new Outcome(where, null, null, e);
        }
    }

    /** Not an answer: an exception no documented rule raises. */
    static boolean isCrash(Throwable e) {
        if (e == null) {
            return false;
        }
        return e instanceof Error
                || e instanceof NullPointerException
                || e instanceof IndexOutOfBoundsException
                || e instanceof ClassCastException
                || e instanceof IllegalStateException
                || e instanceof UnsupportedOperationException
                || e instanceof NegativeArraySizeException
                || e instanceof ArrayStoreException;
    }

    static String describe(Throwable e) {
        StringBuilder sb = new StringBuilder(e.toString());
        StackTraceElement[] st = e.getStackTrace();
        for (int i = 0; i < Math.min(8, st.length); i++) {
            sb.append("\n      at ").append(st[i]);
        }
        return sb.toString();
    }

    /** Null when a and b agree, else where they first differ. */
    static String differ(Outcome a, Outcome b, int ulps) {
        if (a.error() != null || b.error() != null) {
            if (Objects.equals(a.errorKey(), b.errorKey())) {
                return null;
            }
            return a.where() + (a.error() != null ? " raised " + a.errorKey() : " returned rows") + " but " + b.where()
                    + (b.error() != null ? " raised " + b.errorKey() : " returned rows");
        }
        if (!b.where().equals("DuckDB") && !a.type().equals(b.type())) {
            return a.where() + " typed " + a.type() + " but " + b.where() + " " + b.type();
        }
        if (a.rows().size() != b.rows().size()) {
            return a.where() + " gave " + a.rows().size() + " rows, " + b.where() + " "
                    + b.rows().size();
        }
        for (int i = 0; i < a.rows().size(); i++) {
            if (!same(a.rows().get(i), b.rows().get(i), ulps)) {
                return "row " + i + ": " + a.where() + " " + show(a.rows().get(i)) + " but " + b.where() + " "
                        + show(b.rows().get(i)) + (ulps > 0 ? " (bound " + ulps + " ulps)" : "");
            }
        }
        return null;
    }

    static String show(Object v) {
        return v == null
                ? "NULL"
                : v instanceof String s
                        ? "'" + s + "'"
                        : v + " (" + v.getClass().getSimpleName() + ")";
    }

    static boolean same(Object a, Object b, int ulps) {
        if (a == null || b == null) {
            return a == b;
        }
        if (a instanceof Double x && b instanceof Double y) {
            long bx = Double.doubleToLongBits(x);
            long by = Double.doubleToLongBits(y);
            return bx == by
                    || ulps > 0
                            && Double.isFinite(x)
                            && Double.isFinite(y)
                            && Math.signum(x) == Math.signum(y)
                            && Math.abs(bx - by) <= ulps;
        }
        if (a instanceof Float x && b instanceof Float y) {
            int bx = Float.floatToIntBits(x);
            int by = Float.floatToIntBits(y);
            return bx == by
                    || ulps > 0
                            && Float.isFinite(x)
                            && Float.isFinite(y)
                            && Math.signum(x) == Math.signum(y)
                            && Math.abs(bx - by) <= ulps;
        }
        if (a instanceof List<?> x && b instanceof List<?> y) {
            if (x.size() != y.size()) {
                return false;
            }
            for (int i = 0; i < x.size(); i++) {
                if (!same(x.get(i), y.get(i), ulps)) {
                    return false;
                }
            }
            return true;
        }
        return a.equals(b);
    }

    /** Integers as Long, text as String: how DuckDB's JDBC values compare with Quiver's. */
    static Object normalise(Object v) {
        return switch (v) {
            case null -> null;
            case Byte b -> (long) b;
            case Short s -> (long) s;
            case Integer i -> (long) i;
            case BigInteger b -> b.longValue();
            case Text t -> t.toString();
            case Double d when d == 0.0 -> 0.0;
            case Float f when f == 0.0f -> 0.0f;
            default -> v;
        };
    }

    private Outcome duckDb(String sql, FuzzBatch batch) {
        try {
            if (duckDb == null) {
                duckDb = DriverManager.getConnection("jdbc:duckdb:");
            }
            String table = duckDbTables.get(batch);
            if (table == null) {
                if (duckDbTables.size() >= 8) {
                    duckDbTables.clear();
                }
                table = "t" + duckDbTables.size();
                batch.toDuckDb(duckDb, table);
                duckDbTables.put(batch, table);
            }
            List<Object> rows = new ArrayList<>();
            try (Statement s = duckDb.createStatement();
                    ResultSet r = s.executeQuery("SELECT " + sql + " FROM " + table + " ORDER BY id")) {
                while (r.next()) {
                    rows.add(normalise(r.getObject(1)));
                }
            }
            return new Outcome("DuckDB", null, rows, null);
        } catch (SQLException e) {
            return new Outcome("DuckDB", null, null, e);
        }
    }

    /** The minimised case: a smaller tree and fewer rows with a disagreement of the same kind. */
    record Minimised(FuzzExpr expr, FuzzBatch batch, Mismatch mismatch) {}

    Minimised minimise(FuzzExpr expr, FuzzBatch batch, Mismatch first, boolean withDuckDb, Random random) {
        allInOtherMode = true;
        try {
            return shrink(expr, batch, first, withDuckDb, random);
        } finally {
            allInOtherMode = false;
        }
    }

    private Minimised shrink(FuzzExpr expr, FuzzBatch batch, Mismatch first, boolean withDuckDb, Random random) {
        Mismatch current = first;
        int budget = 4_000;
        for (int pass = 0; pass < 2; pass++) {
            boolean progress = true;
            while (progress && budget > 0) {
                progress = false;
                List<FuzzExpr> candidates = expr.shrinkCandidates(random);
                candidates.sort(Comparator.comparingInt(FuzzExpr::size));
                for (FuzzExpr c : candidates) {
                    if (c.size() >= expr.size() && !(c.size() == expr.size() && c.literal() && !expr.literal())) {
                        continue;
                    }
                    if (--budget <= 0) {
                        break;
                    }
                    Mismatch m = mismatchOrNull(c, batch, withDuckDb);
                    if (m != null && m.kind().equals(current.kind())) {
                        expr = c;
                        current = m;
                        progress = true;
                        break;
                    }
                }
            }
            for (int chunk = Math.max(1, batch.rows() / 2); chunk >= 1 && budget > 0; chunk /= 2) {
                int i = 0;
                while (i < batch.rows() && budget-- > 0) {
                    List<Integer> keep = new ArrayList<>();
                    for (int r = 0; r < batch.rows(); r++) {
                        if (r < i || r >= i + chunk) {
                            keep.add(r);
                        }
                    }
                    FuzzBatch smaller = batch.select(keep);
                    Mismatch m = mismatchOrNull(expr, smaller, withDuckDb);
                    if (m != null && m.kind().equals(current.kind())) {
                        batch = smaller;
                        current = m;
                    } else {
                        i += chunk;
                    }
                }
                if (chunk == 1) {
                    break;
                }
            }
        }
        return new Minimised(expr, batch, current);
    }

    private Mismatch mismatchOrNull(FuzzExpr e, FuzzBatch b, boolean withDuckDb) {
        try {
            return check(e, b, withDuckDb);
        } catch (Rejected r) {
            return null;
        }
    }

    @Override
    public void close() throws SQLException {
        try {
            if (duckDb != null) {
                duckDb.close();
            }
        } finally {
            try {
                otherMode.close();
            } finally {
                quiver.close();
                dictionary.getVector().close();
            }
        }
    }
}
