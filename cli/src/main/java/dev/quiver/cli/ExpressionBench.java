package dev.quiver.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.CompiledExpression;
import dev.quiver.Quiver;
import dev.quiver.functions.PlanningException;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.DataType;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * {@code quiver bench --expr}: an arbitrary expression over seeded generated columns
 * ({@link DataGenerator}). There is no hand-written loop to compare with, so the baseline is
 * Quiver's own cpu device: it always runs, and each other run's speedup is the cpu median over
 * its median. Before a run is timed, its result for every batch must equal the cpu device's
 * (same nulls, equal values; floats within 1 ulp, or, when a fused kernel computes an inexact
 * math function, within {@link #INEXACT_RELATIVE_F64} relative for Float64 and
 * {@link #INEXACT_RELATIVE_F32} for Float32).
 */
final class ExpressionBench {
    static final String BASELINE = "cpu";
    /**
     * How far apart, relative to the larger, two devices' Float64 results may be when the
     * expression computes an inexact math function ({@code sin}, {@code exp}, {@code pow}, a
     * RowFn such as {@code haversine} that uses one, ...): each device is within its own few ulps
     * of the exact value (docs/math.md), and the rest of the expression can magnify that (asin
     * near 1 does without bound). Loose enough for such differences, tight enough for a wrong result.
     */
    static final double INEXACT_RELATIVE_F64 = 1e-9;
    /** As {@link #INEXACT_RELATIVE_F64}, for Float32 results. */
    static final double INEXACT_RELATIVE_F32 = 1e-4;

    private final BenchCommand options;

    ExpressionBench(BenchCommand options) {
        this.options = options;
    }

    int call() throws Exception {
        int failures = 0;
        ObjectMapper json = new ObjectMapper();
        try (RootAllocator allocator = new RootAllocator();
                Quiver quiver = TransferOption.apply(
                                Quiver.builder()
                                        .allocator(allocator)
                                        .functions(CliFunctions.registry())
                                        .arithmetic(options.arithmetic),
                                options.transfer)
                        .build()) {
            CompiledExpression expr;
            try {
                expr = quiver.compile(options.schema, options.expression);
            } catch (PlanningException | IllegalArgumentException e) {
                options.progress.println("error: " + e.getMessage());
                return 2;
            }
            if (options.device == BenchCommand.DeviceChoice.opencl
                    && quiver.openClDevices().isEmpty()) {
                options.progress.println(
                        "error: --device opencl, but there is no OpenCL device: " + quiver.openClStatus());
                return 2;
            }
            for (double f : options.nulls) {
                if (!(f >= 0 && f <= 1)) {
                    options.progress.println("error: --nulls must be between 0 and 1: " + f);
                    return 2;
                }
            }
            options.describeMachine(
                    quiver,
                    options.format == BenchCommand.Format.table ? options.out : options.progress,
                    "  baseline: Quiver's own cpu device ('vs cpu' = cpu median / this median; no hand-written loop exists "
                            + "for an arbitrary expression)\n  data: " + DataGenerator.describe());
            if (options.format == BenchCommand.Format.table) {
                options.out.printf(
                        "%-30s %10s %10s %-42s %10s %8s %10s%n",
                        "workload", "rows", "batchRows", "device", "median ms", "GB/s", "vs cpu");
            }
            List<int[]> sizes = options.sizes();
            int total = options.nulls.size() * sizes.size(), step = 0;
            for (double nullFraction : options.nulls) {
                for (int[] size : sizes) {
                    step++;
                    String name = options.expression
                            + (nullFraction > 0
                                    ? String.format(Locale.ROOT, " [%.0f%% nulls]", nullFraction * 100)
                                    : "");
                    options.progress.printf(
                            "[%d/%d] %s, %d rows in batches of %d%n", step, total, name, size[0], size[1]);
                    List<BenchCommand.Result> results = new ArrayList<>();
                    failures += measure(quiver, allocator, expr, name, nullFraction, size[0], size[1], results);
                    for (BenchCommand.Result r : results) {
                        options.printResult(json, r);
                    }
                    options.out.flush();
                }
            }
            if (allocator.getAllocatedMemory() != 0) {
                options.progress.println(
                        "error: " + allocator.getAllocatedMemory() + " bytes still allocated after the benchmark");
                failures++;
            }
        }
        return failures == 0 ? 0 : 1;
    }

    private int measure(
            Quiver quiver,
            BufferAllocator allocator,
            CompiledExpression expr,
            String name,
            double nullFraction,
            int rows,
            int batchRows,
            List<BenchCommand.Result> results) {
        List<VectorSchemaRoot> batches =
                new DataGenerator(options.seed, nullFraction).batches(options.schema, allocator, rows, batchRows);
        List<FieldVector> expected = new ArrayList<>();
        try {
            Function<VectorSchemaRoot, FieldVector> baseline = b -> expr.evaluate(b, quiver.cpu(), allocator);
            long bytes = 0;
            try {
                for (VectorSchemaRoot b : batches) {
                    FieldVector e = baseline.apply(b);
                    expected.add(e);
                    bytes += e.getBufferSize();
                    for (Field f : expr.inputColumns()) {
                        bytes += b.getVector(f.getName()).getBufferSize();
                    }
                }
            } catch (RuntimeException e) {
                options.progress.println("  ERROR the cpu baseline failed: " + e);
                return 1;
            }
            Map<String, Function<VectorSchemaRoot, FieldVector>> runs = new LinkedHashMap<>();
            runs.put(BASELINE, baseline);
            options.deviceRuns(quiver, expr, allocator).forEach(runs::putIfAbsent);
            if (expr.programs().isEmpty() && runs.size() > 1) {
                options.progress.println(
                        "  note: the plan has no fused kernel, so every device runs it on the calling thread");
            }
            int failures = 0;
            double baselineMs = Double.NaN;
            for (Map.Entry<String, Function<VectorSchemaRoot, FieldVector>> run : runs.entrySet()) {
                if (!run.getKey().equals(BASELINE)) {
                    String mismatch = verify(batches, expected, run.getValue(), hasInexactMath(expr));
                    if (mismatch != null) {
                        options.progress.println("  ERROR " + run.getKey() + " disagrees with the cpu device: "
                                + mismatch + " (not timed)");
                        failures++;
                        continue;
                    }
                }
                double ms = options.medianMs(batches, run.getValue());
                if (run.getKey().equals(BASELINE)) {
                    baselineMs = ms;
                }
                results.add(new BenchCommand.Result(
                        name, rows, batchRows, run.getKey(), ms, bytes / (ms / 1e3) / 1e9, baselineMs / ms));
            }
            return failures;
        } finally {
            expected.forEach(FieldVector::close);
            batches.forEach(VectorSchemaRoot::close);
        }
    }

    /** The first difference between each batch's result and the cpu device's, or null when there is none. */
    private static String verify(
            List<VectorSchemaRoot> batches,
            List<FieldVector> expected,
            Function<VectorSchemaRoot, FieldVector> run,
            boolean inexact) {
        try {
            for (int k = 0; k < batches.size(); k++) {
                try (FieldVector actual = run.apply(batches.get(k))) {
                    String d = firstDifference(expected.get(k), actual, inexact);
                    if (d != null) {
                        return "batch " + k + ", " + d;
                    }
                }
            }
            return null;
        } catch (RuntimeException e) {
            return e.toString();
        }
    }

    /** Same type, length and nulls; equal values, floats within 1 ulp. Null when they agree. */
    static String firstDifference(FieldVector expected, FieldVector actual) {
        return firstDifference(expected, actual, false);
    }

    /**
     * As {@link #firstDifference(FieldVector, FieldVector)}; with {@code inexact}, floats may also
     * differ by {@link #INEXACT_RELATIVE_F64} ({@link #INEXACT_RELATIVE_F32}) of the larger.
     */
    static String firstDifference(FieldVector expected, FieldVector actual, boolean inexact) {
        if (!expected.getField().getType().equals(actual.getField().getType())) {
            return "type " + expected.getField().getType() + " vs "
                    + actual.getField().getType();
        }
        if (expected.getValueCount() != actual.getValueCount()) {
            return expected.getValueCount() + " rows vs " + actual.getValueCount();
        }
        DataType type = DataType.fromField(expected.getField());
        for (int i = 0; i < expected.getValueCount(); i++) {
            ScalarValue e = Values.get(expected, i, type), a = Values.get(actual, i, type);
            if (e.isNull() != a.isNull()) {
                return "row " + i + ": " + e + " vs " + a;
            }
            if (!e.equals(a)
                    && !withinOneUlp(e.value(), a.value())
                    && !(inexact && withinRelative(e.value(), a.value()))) {
                return "row " + i + ": " + e + " vs " + a;
            }
        }
        return null;
    }

    private static boolean withinRelative(Object e, Object a) {
        if (e instanceof Double x && a instanceof Double y) {
            return Math.abs(x - y) <= INEXACT_RELATIVE_F64 * Math.max(Math.abs(x), Math.abs(y));
        }
        if (e instanceof Float x && a instanceof Float y) {
            return Math.abs(x - y) <= INEXACT_RELATIVE_F32 * Math.max(Math.abs(x), Math.abs(y));
        }
        return false;
    }

    /** Whether a fused kernel of {@code expr} computes a math function that is not exact on every device (docs/math.md). */
    static boolean hasInexactMath(CompiledExpression expr) {
        for (KernelProgram p : expr.programs()) {
            Set<IrNode> seen = Collections.newSetFromMap(new IdentityHashMap<>());
            if (hasInexactMath(p.root(), seen)
                    || p.nullWhen().map(n -> hasInexactMath(n, seen)).orElse(false)) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasInexactMath(IrNode node, Set<IrNode> seen) {
        if (!seen.add(node)) {
            return false; // a shared node, already looked at
        }
        boolean inexact = switch (node) {
            case IrNode.Unary u ->
                switch (u.op()) {
                    case NEG, ABS, NOT, SQRT, FLOOR, CEIL, TRUNC, RINT -> false;
                    default -> true;
                };
            case IrNode.Binary b ->
                switch (b.op()) {
                    case POW, ATAN2, HYPOT -> true;
                    default -> false;
                };
            default -> false;
        };
        if (inexact) {
            return true;
        }
        for (IrNode c : node.children()) {
            if (hasInexactMath(c, seen)) {
                return true;
            }
        }
        return false;
    }

    private static boolean withinOneUlp(Object e, Object a) {
        if (e instanceof Double x && a instanceof Double y) {
            return Math.abs(x - y) <= Math.ulp(x);
        }
        if (e instanceof Float x && a instanceof Float y) {
            return Math.abs(x - y) <= Math.ulp(x);
        }
        return false;
    }
}
