package dev.quiver;

import dev.quiver.cpu.CpuBackend;
import dev.quiver.expr.Expr;
import dev.quiver.functions.ExecutionConfig;
import dev.quiver.functions.FunctionRegistry;
import dev.quiver.functions.PlanningException;
import dev.quiver.kernels.ArithmeticMode;
import dev.quiver.memory.Resources;
import dev.quiver.opencl.ProgramBinaryCache;
import dev.quiver.opencl.TransferMode;
import dev.quiver.placement.CalibrationCache;
import dev.quiver.placement.DeviceFigures;
import dev.quiver.placement.DeviceHealth;
import dev.quiver.placement.Devices;
import dev.quiver.placement.FigureSource;
import dev.quiver.placement.SpareCores;
import dev.quiver.planning.ExpressionLimits;
import dev.quiver.planning.ExpressionPlanner;
import dev.quiver.planning.ProjectionPlan;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;
import jdk.incubator.vector.DoubleVector;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The entry point: finds the devices of this machine once, then compiles expressions against
 * schemas. Owns the device backends until {@link #close()}; does not own the allocator.
 *
 * <p>Threads: thread-safe. Any thread may compile, and many threads may evaluate what was
 * compiled at once: the devices are shared (the CPU device may also split one large batch between
 * its own helper threads, {@link Builder#cpuThreads}). Register functions in {@link #functions()}
 * before compiling the expressions that call them (the registry is thread-safe; a plan keeps the
 * function it resolved). Close it only when no evaluation is running: its devices close with it,
 * and a compile or evaluation after {@code close()} throws {@link IllegalStateException}. See
 * docs/placement.md, "Threads".
 *
 * <pre>{@code
 * try (var allocator = new RootAllocator();
 *      var quiver = Quiver.builder().allocator(allocator).build()) {
 *     CompiledExpression r = quiver.compile(batch.getSchema(), Expr.parse("sqrt(x*x + y*y)"));
 *     try (FieldVector out = r.evaluate(batch)) {    // the caller closes the result
 *         ...
 *     }
 * }
 * }</pre>
 */
public final class Quiver implements AutoCloseable {
    private final BufferAllocator allocator;
    private final Placement placement;
    private final List<Device> devices;
    private final String openClStatus;
    private final FunctionRegistry functions;
    private final boolean checkTypes;
    private final ArithmeticMode arithmetic;
    /** The devices as placement sees them: figures, health, queues, memory budgets. */
    private final Devices placementDevices;

    private final TransferMode transferMode;
    private final ExpressionLimits limits;
    private final long maxFoldedValueBytes;
    private volatile boolean closed;

    private Quiver(Builder b) {
        this.allocator = Objects.requireNonNull(b.allocator, "allocator is null: call Quiver.builder().allocator(...)");
        this.placement = b.placement;
        this.functions = b.functions == null ? FunctionRegistry.withDefaults() : b.functions;
        this.checkTypes = b.checkTypes;
        this.arithmetic = b.arithmetic;
        this.limits = b.limits;
        this.maxFoldedValueBytes = b.maxFoldedValueBytes;
        List<Device> found = new ArrayList<>();
        CpuBackend cpu = new CpuBackend(b.cpuThreads);
        found.add(new Device(
                "cpu",
                Device.Kind.CPU,
                "Vector API " + DoubleVector.SPECIES_PREFERRED.vectorBitSize() + "-bit, "
                        + (cpu.threads() == 1
                                ? "the calling thread"
                                : "up to " + cpu.threads() + " threads per batch of " + 2 * CpuBackend.PARALLEL_MIN_ROWS
                                        + "+ rows of a compute-bound kernel")
                        + " ("
                        + Runtime.getRuntime().availableProcessors() + " cores in the machine)",
                cpu));
        String status;
        this.transferMode = b.transferMode != null ? b.transferMode : TransferMode.configured();
        if (b.openCl) {
            OpenClDevices.Opened opened = OpenClDevices.open(
                    transferMode,
                    !b.kernelCache
                            ? ProgramBinaryCache.disabled()
                            : b.kernelCacheDirectory != null
                                    ? ProgramBinaryCache.at(b.kernelCacheDirectory)
                                    : ProgramBinaryCache.atDefaultDirectory());
            found.addAll(opened.devices());
            status = opened.status();
        } else {
            status = "disabled by Quiver.builder().openCl(false)";
        }
        found.addAll(b.extraDevices);
        this.devices = List.copyOf(found);
        this.openClStatus = status;
        this.placementDevices = new Devices(
                devices,
                devices.getFirst(),
                b.healthPolicy,
                b.clock,
                b.backgroundCompilation,
                new FigureSource(b.figures, b.calibrate, b.calibrationDirectory),
                b.explorationShare,
                status,
                b.loadAware ? SpareCores.os() : SpareCores.all());
        if (b.calibrateNow && b.calibrate) {
            placementDevices.calibrateNow();
        }
    }

    /** The devices as placement sees them, shared by every expression compiled here. */
    Devices placementDevices() {
        return placementDevices;
    }

    /** The limits {@code compile} plans with; deep plans evaluate on threads with the stack they name. */
    ExpressionLimits limits() {
        return limits;
    }

    /**
     * The calibrated figures of {@code device} that AUTO placement estimates with: given to the
     * builder, read from the on-disk cache, or measured now (short micro-benchmarks, about a
     * second per device, then cached), in that order. Calibration happens on the
     * first AUTO batch or EXPLAIN otherwise.
     */
    public DeviceFigures figures(Device device) {
        return placementDevices.figures(device);
    }

    /** Measures {@code device} again, replacing its figures in this instance and in the on-disk cache. */
    public DeviceFigures recalibrate(Device device) {
        ensureOpen();
        return placementDevices.recalibrate(device);
    }

    /** The health of {@code device}: healthy, fenced off after failures, or being probed; its failure counts. */
    public DeviceHealth.Snapshot health(Device device) {
        return placementDevices.health(device);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Plans {@code expr} against {@code schema}, once (one query: {@code now()} is fixed here);
     * the result evaluates batches of that schema.
     *
     * @throws dev.quiver.functions.PlanningException for an unknown column or function, a column
     *         name two fields of the schema share (ambiguous, whatever the batches hold), a call
     *         no signature accepts, types that cannot be coerced, a non-literal where a literal
     *         is required, an expression deeper or larger than {@link Builder#maxExpressionDepth}
     *         and {@link Builder#maxExpressionNodes} allow; the message names what and lists what exists
     */
    public CompiledExpression compile(Schema schema, Expr expr) {
        return compile(schema, null, expr);
    }

    /**
     * As {@link #compile(Schema, Expr)} for a schema with dictionary-encoded columns: their
     * value types come from {@code dictionaries} (for example an {@code ArrowReader}), which is
     * consulted again on every batch; the values are decoded where the expression reads them.
     */
    public CompiledExpression compile(Schema schema, DictionaryProvider dictionaries, Expr expr) {
        ensureOpen();
        ExecutionConfig config = queryConfig();
        return new CompiledExpression(
                this, new ExpressionPlanner(functions, config, limits).plan(schema, dictionaries, expr), config);
    }

    /** The configuration of one query planned now ({@code now()} is fixed here). */
    private ExecutionConfig queryConfig() {
        return new ExecutionConfig(
                allocator,
                Instant.now(),
                checkTypes,
                Map.of(
                        ExecutionConfig.ARITHMETIC,
                        arithmetic.name().toLowerCase(Locale.ROOT),
                        ExecutionConfig.MAX_FOLDED_VALUE_BYTES,
                        Long.toString(maxFoldedValueBytes)));
    }

    /**
     * Parses SQL expression text ({@link Expr#parse}) and compiles it.
     *
     * @throws dev.quiver.functions.PlanningException for a syntax error, and as {@link #compile(Schema, Expr)}
     */
    public CompiledExpression compile(Schema schema, String sql) {
        return compile(schema, null, sql);
    }

    /**
     * Parses SQL expression text and compiles it against a schema with dictionary-encoded columns,
     * as {@link #compile(Schema, org.apache.arrow.vector.dictionary.DictionaryProvider, Expr)}:
     * {@code quiver.compile(reader.getVectorSchemaRoot().getSchema(), reader, "upper(city)")} for
     * an {@code ArrowReader}. {@code dictionaries} may be null when no column is dictionary-encoded.
     *
     * @throws dev.quiver.functions.PlanningException for a syntax error, and as {@link #compile(Schema, Expr)}
     */
    public CompiledExpression compile(Schema schema, DictionaryProvider dictionaries, String sql) {
        Objects.requireNonNull(sql, "sql is null");
        return compile(schema, dictionaries, Expr.parse(sql));
    }

    /**
     * Compiles a projection: {@code columns} (SQL expressions; name them with {@code AS}) over the
     * rows where {@code filter} (a Boolean SQL expression, or null for every row) is TRUE.
     *
     * @throws dev.quiver.functions.PlanningException for an expression that does not plan, or a
     *         filter that is not Boolean
     * @throws IllegalArgumentException for no columns, or two columns of one name
     */
    public CompiledProjection compileProjection(Schema schema, String filter, List<String> columns) {
        return compileProjection(schema, null, filter, columns);
    }

    /**
     * Compiles a projection of {@code columns} (SQL expressions; name them with {@code AS}) over
     * every row: {@code quiver.compileProjection(schema, List.of("x + y AS s", "upper(name)"))}.
     * As {@link #compileProjection(Schema, String, List)} without a filter.
     */
    public CompiledProjection compileProjection(Schema schema, List<String> columns) {
        return compileProjection(schema, null, null, columns);
    }

    /**
     * As {@link #compileProjection(Schema, String, List)} for a schema with dictionary-encoded
     * columns (see {@link #compile(Schema, org.apache.arrow.vector.dictionary.DictionaryProvider, Expr)});
     * {@code filter} null for every row, {@code dictionaries} null when no column is encoded.
     */
    public CompiledProjection compileProjection(
            Schema schema, DictionaryProvider dictionaries, String filter, List<String> columns) {
        Objects.requireNonNull(columns, "columns is null");
        return compileProjection(
                schema,
                dictionaries,
                filter == null ? null : Expr.parse(filter),
                columns.stream().map(Expr::parse).toList());
    }

    /** As {@link #compileProjection(Schema, String, List)} for expression trees. */
    public CompiledProjection compileProjection(Schema schema, Expr filter, List<Expr> columns) {
        return compileProjection(schema, null, filter, columns);
    }

    /** As {@link #compileProjection(Schema, Expr, List)} for a schema with dictionary-encoded columns (see {@link #compile(Schema, org.apache.arrow.vector.dictionary.DictionaryProvider, Expr)}). */
    public CompiledProjection compileProjection(
            Schema schema, DictionaryProvider dictionaries, Expr filter, List<Expr> columns) {
        Objects.requireNonNull(schema, "schema is null");
        Objects.requireNonNull(columns, "columns is null");
        ensureOpen();
        // Planned together, as one query: a subtree several expressions read is computed once per batch.
        List<Expr> all = new ArrayList<>();
        if (filter != null) {
            all.add(filter);
        }
        all.addAll(columns);
        ExecutionConfig config = queryConfig();
        ProjectionPlan planned =
                new ExpressionPlanner(functions, config, limits).planTogether(schema, dictionaries, all);
        List<CompiledExpression> compiled = planned.plans().stream()
                .map(p -> new CompiledExpression(this, p, config))
                .toList();
        CompiledExpression f = filter == null ? null : compiled.getFirst();
        if (f != null
                && !(f.outputField().getType() instanceof ArrowType.Bool
                        || f.outputField().getType() instanceof ArrowType.Null)) {
            throw new PlanningException(
                    "the filter " + filter + " is " + f.plan().root().dataType() + ", not Boolean");
        }
        return new CompiledProjection(f, compiled.subList(filter == null ? 0 : 1, compiled.size()), planned.shared());
    }

    /** The functions expressions can call; register your own here before compiling. */
    public FunctionRegistry functions() {
        return functions;
    }

    /** Every device found, the CPU first. */
    public List<Device> devices() {
        return devices;
    }

    /** The CPU device. */
    public Device cpu() {
        return devices.getFirst();
    }

    /** The OpenCL devices found (possibly none). */
    public List<Device> openClDevices() {
        return devices.stream().filter(Device::isOpenCl).toList();
    }

    /**
     * The transfer mode every OpenCL device was opened with, as configured ({@link Builder#transferMode}, else
     * {@code -Dquiver.opencl.transfer}, else {@link TransferMode#AUTO}); each device's resolved mode is
     * {@link Device#transferMode()}.
     */
    public TransferMode transferMode() {
        return transferMode;
    }

    /** How OpenCL discovery went: the devices found, or why there are none. */
    public String openClStatus() {
        return openClStatus;
    }

    public Optional<Device> device(String name) {
        return devices.stream().filter(d -> d.name().equals(name)).findFirst();
    }

    public BufferAllocator allocator() {
        return allocator;
    }

    public Placement defaultPlacement() {
        return placement;
    }

    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("this Quiver instance is closed");
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Resources.closeAll(devices.stream().map(Device::backend).toList());
    }

    public static final class Builder {
        private BufferAllocator allocator;
        private Placement placement = Placement.AUTO;
        private boolean openCl = true;
        private final List<Device> extraDevices = new ArrayList<>();
        private int cpuThreads = Runtime.getRuntime().availableProcessors();
        private FunctionRegistry functions;
        private boolean checkTypes = Boolean.getBoolean("quiver.checkTypes") || assertionsEnabled();
        private ArithmeticMode arithmetic = ArithmeticMode.CHECKED;
        private DeviceHealth.Policy healthPolicy = DeviceHealth.Policy.DEFAULT;
        private LongSupplier clock = System::nanoTime;
        private double explorationShare = 0.01;
        private boolean calibrate = true;
        private boolean loadAware = true;
        private boolean calibrateNow;
        private Path calibrationDirectory;
        private final Map<String, DeviceFigures> figures = new HashMap<>();
        private TransferMode transferMode;
        private boolean kernelCache = true;
        private Path kernelCacheDirectory;
        private boolean backgroundCompilation = true;
        private ExpressionLimits limits = ExpressionLimits.DEFAULT;
        private long maxFoldedValueBytes = ExecutionConfig.DEFAULT_MAX_FOLDED_VALUE_BYTES;

        /**
         * The deepest expression {@code compile} takes, in levels from the root to a leaf (a column is
         * one level, {@code a + b} two); default {@value dev.quiver.planning.ExpressionLimits#DEFAULT_MAX_DEPTH}.
         * A deeper expression is a {@link dev.quiver.functions.PlanningException} naming the limit,
         * never a {@link StackOverflowError}. Planning and code generation, and the evaluation of an
         * expression more than 128 levels deep, run on Quiver's own threads with a stack of 4 KiB a level
         * (at least 16 MiB), so no depth up to the limit depends on the stack of the calling thread;
         * above 4,096 levels each such plan or batch gets a thread of its own. A chain of more than 64
         * ANDs or ORs counts as balanced ({@code a = 1 OR ... OR a = 50000} is 18 levels); a sum
         * {@code x1 + ... + xn} written left-deep is {@code n} levels (write it in parenthesized
         * groups: arithmetic is not reassociated). SQL text has a nesting limit of its own,
         * {@link dev.quiver.sql.SqlParser#MAX_NESTING}. docs/expressions.md#limits
         */
        public Builder maxExpressionDepth(int levels) {
            this.limits = limits.withMaxDepth(levels);
            return this;
        }

        /**
         * The most nodes an expression {@code compile} takes (every column, literal, operator, call and
         * CASE counts one); default {@value dev.quiver.planning.ExpressionLimits#DEFAULT_MAX_NODES}. It bounds
         * the time and memory of planning; more is a {@link dev.quiver.functions.PlanningException}.
         */
        public Builder maxExpressionNodes(int nodes) {
            this.limits = limits.withMaxNodes(nodes);
            return this;
        }

        /**
         * The largest value, in bytes, that planning folds into a constant (and that a call over
         * constants keeps as one Java value); default 16 MiB. A larger result, such as
         * {@code repeat('x', 2000000000)}, is left to run per batch in Arrow memory, where each
         * function's output checks apply (a Utf8 column holds 2 GiB; the allocator has its limit),
         * so it is an error naming the size there, never an exhausted Java heap at planning. 0 folds
         * nothing that has bytes.
         */
        public Builder maxFoldedValueBytes(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("maxFoldedValueBytes must be >= 0, got " + bytes);
            }
            this.maxFoldedValueBytes = bytes;
            return this;
        }

        /**
         * When a failing device is fenced off and for how long ({@link DeviceHealth.Policy#DEFAULT}:
         * 3 failed batches in a row, 10 s at first, doubling up to 5 min).
         */
        public Builder healthPolicy(DeviceHealth.Policy policy) {
            this.healthPolicy = Objects.requireNonNull(policy, "policy is null");
            return this;
        }

        /** The clock fences are timed with, in nanoseconds; default {@link System#nanoTime()} (tests pass their own). */
        public Builder clock(LongSupplier nanoClock) {
            this.clock = Objects.requireNonNull(nanoClock, "nanoClock is null");
            return this;
        }

        /**
         * The share of its measured time AUTO may spend running batches on a device other than the
         * estimated fastest, to keep that device's estimate fresh; default 0.01 (1%), 0 turns
         * exploration off.
         */
        public Builder explorationShare(double share) {
            if (!(share >= 0 && share <= 0.5)) {
                throw new IllegalArgumentException("explorationShare must be in [0, 0.5], got " + share);
            }
            this.explorationShare = share;
            return this;
        }

        /**
         * Whether devices are calibrated (measured once per device identity, then read from the
         * cache) for AUTO placement; default true. Off: rough figures per device kind, corrected
         * online by what batches measure.
         */
        public Builder calibration(boolean on) {
            this.calibrate = on;
            return this;
        }

        /**
         * Where calibrated figures are cached; default {@link CalibrationCache#defaultDirectory()}
         * ({@code -Dquiver.calibration.dir}, {@code $QUIVER_CALIBRATION_DIR},
         * {@code $XDG_CACHE_HOME/quiver/calibration} or {@code ~/.cache/quiver/calibration}).
         */
        public Builder calibrationDirectory(Path dir) {
            this.calibrationDirectory = Objects.requireNonNull(dir, "dir is null");
            return this;
        }

        /**
         * Whether built OpenCL programs are kept on disk, so that a new process loads them
         * instead of compiling their source again; default true. See {@link #kernelCacheDirectory}.
         */
        public Builder kernelCache(boolean on) {
            this.kernelCache = on;
            return this;
        }

        /**
         * Where built OpenCL programs are kept; default {@link ProgramBinaryCache#defaultDirectory()}
         * ({@code -Dquiver.kernel.cache.dir}, {@code $QUIVER_KERNEL_CACHE_DIR},
         * {@code $XDG_CACHE_HOME/quiver/kernels} or {@code ~/.cache/quiver/kernels}). Any file in
         * it may be deleted at any time (docs/placement.md, "The kernel cache").
         */
        public Builder kernelCacheDirectory(Path dir) {
            this.kernelCacheDirectory = Objects.requireNonNull(dir, "dir is null");
            return this;
        }

        /**
         * Whether AUTO placement builds a new expression's OpenCL programs in the background
         * while its batches run on the CPU (default true), rather than in the first batch placed
         * on the device. Placement OPENCL and a requested device always build in the batch that
         * needs the program.
         */
        public Builder backgroundCompilation(boolean on) {
            this.backgroundCompilation = on;
            return this;
        }

        /** Figures for the device named {@code deviceName}, used instead of calibrating it (reproducible placement). */
        public Builder deviceFigures(String deviceName, DeviceFigures f) {
            figures.put(
                    Objects.requireNonNull(deviceName, "deviceName is null"),
                    Objects.requireNonNull(f, "figures is null"));
            return this;
        }

        @SuppressWarnings("AssertWithSideEffects")
        private static boolean assertionsEnabled() {
            boolean on = false;
            assert on = true;
            return on;
        }

        /** The function registry; default a new {@link FunctionRegistry#withDefaults()}. */
        public Builder functions(FunctionRegistry functions) {
            this.functions = Objects.requireNonNull(functions, "functions is null");
            return this;
        }

        /**
         * Whether every function's result type is checked against the planned one on every
         * call (a debugging aid). Default: on when the JVM runs with assertions ({@code -ea},
         * as tests do) or {@code -Dquiver.checkTypes=true}.
         */
        public Builder checkTypes(boolean on) {
            this.checkTypes = on;
            return this;
        }

        private Builder() {}

        /**
         * What the integer {@code + - * / %} operators do on overflow: {@link ArithmeticMode#CHECKED}
         * (the default: an error naming the operation and the row) or {@link ArithmeticMode#WRAPPING}
         * (two's complement, as Java does; integer arithmetic is then fused into the CPU/OpenCL
         * kernels too). Division by zero is an error in both; the {@code try_*} functions give NULL.
         */
        public Builder arithmetic(ArithmeticMode mode) {
            Objects.requireNonNull(mode, "mode is null");
            if (mode == ArithmeticMode.NULL_ON_ERROR) {
                throw new IllegalArgumentException(
                        "the operators are CHECKED or WRAPPING; use the try_* functions for NULL on error");
            }
            this.arithmetic = mode;
            return this;
        }

        /** The allocator results are allocated from unless a call names another. Required. */
        public Builder allocator(BufferAllocator allocator) {
            this.allocator = Objects.requireNonNull(allocator, "allocator is null");
            return this;
        }

        /** The placement {@link CompiledExpression#evaluate(org.apache.arrow.vector.VectorSchemaRoot)} uses; default AUTO. */
        public Builder placement(Placement placement) {
            this.placement = Objects.requireNonNull(placement, "placement is null");
            return this;
        }

        /** Whether to look for OpenCL devices; default true. */
        public Builder openCl(boolean enabled) {
            this.openCl = enabled;
            return this;
        }

        /**
         * The most threads the CPU device splits one large batch between (default: the machine's
         * cores; batches under {@code 2 * CpuBackend.PARALLEL_MIN_ROWS} rows always stay on the
         * calling thread). 1 keeps every batch on the calling thread, for engines that run one
         * task per core themselves. Helpers are the CPU backend's own threads.
         */
        public Builder cpuThreads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("cpuThreads must be >= 1, got " + threads);
            }
            this.cpuThreads = threads;
            return this;
        }

        /**
         * Calibrate every device while {@link #build()} runs (about a second per device not yet
         * measured on this machine; read from the cache otherwise), rather than in the first AUTO
         * batch: an engine pays the cost at startup. A cold measurement (the JIT still compiling,
         * a busy machine) is taken again, up to twice; if every one is cold, AUTO estimates with
         * the device's defaults until a background measurement is warm (docs/placement.md,
         * "Calibration"). Does nothing with {@code calibration(false)}.
         */
        public Builder calibrateNow() {
            this.calibrateNow = true;
            return this;
        }

        /**
         * Whether a batch is split only between cores that other processes leave free (default
         * true): placement reads the operating system's load and this process's every 50 ms and
         * takes off the cores busy elsewhere ({@link SpareCores}). False: every core counts as free
         * (a machine of the engine's own, or tests that want the same decision whatever runs beside).
         * Under AUTO, one thread and several are alternatives measured either way
         * (docs/placement.md, "Threads").
         */
        public Builder loadAware(boolean on) {
            this.loadAware = on;
            return this;
        }

        /**
         * How every OpenCL device opened moves Arrow memory: {@link TransferMode#ZERO_COPY} (the kernel
         * works on the Arrow buffers, {@code CL_MEM_USE_HOST_PTR}), {@link TransferMode#COPY} (one explicit
         * write per input and one read of the output, counted in {@link ExpressionMetrics}) or
         * {@link TransferMode#AUTO}, each device's own choice: zero copy where it shares host memory
         * (PoCL, integrated GPUs), copies elsewhere. Default: {@code -Dquiver.opencl.transfer}
         * ({@code auto}, {@code zero-copy} or {@code copy}) when set, else AUTO; this setting wins over
         * the property. Each mode has its own calibrated figures.
         */
        public Builder transferMode(TransferMode mode) {
            this.transferMode = Objects.requireNonNull(mode, "mode is null");
            return this;
        }

        /**
         * Adds a device with a backend of your own (after the CPU and the OpenCL devices found).
         * Quiver closes its backend when it closes. Placement treats it by its {@link Device#kind()}.
         */
        public Builder addDevice(Device device) {
            extraDevices.add(Objects.requireNonNull(device, "device is null"));
            return this;
        }

        public Quiver build() {
            return new Quiver(this);
        }
    }
}
