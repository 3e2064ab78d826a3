package dev.quiver.placement;

import dev.quiver.Device;
import dev.quiver.backend.KernelBackend;
import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.backend.RowMode;
import dev.quiver.rowfn.ir.BinaryOp;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.UnaryOp;
import dev.quiver.types.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Measures a device's {@link DeviceFigures} with short micro-benchmarks run through the device's
 * own backend.
 *
 * <p>Every benchmark is one {@link KernelProgram} over Float64 columns in off-heap memory, run
 * again and again until the median of its last runs is stable (three consecutive medians within
 * {@value Session#STABLE_PERCENT}%) or its time slice is spent; its figure is the median of the
 * last runs, never counting the first (which compiles the program). Measuring takes some 300 ms
 * per device once the JVM is warm and is cut short after {@link #HARD_LIMIT_NANOS} whatever the
 * state of the benchmarks.
 *
 * <ul>
 * <li><b>launch</b>: a run of {@code x + y} over {@value #LAUNCH_ROWS} rows on the device's backend.
 * <li><b>memory</b>: {@code x + y} over {@value #STREAM_ROWS} rows (48 MB, out of cache; 24
 * bytes per row), less launch, per byte. On the CPU on one thread ({@code new CpuBackend(1)}),
 * and with the device's backend (all its threads) for {@code parallelNanosPerByte}.
 * <li><b>transfer</b>: 0 when that run copies nothing (zero copy); otherwise the time of the run
 * less launch and less the kernel's own memory traffic, per byte copied.
 * <li><b>arithmetic, divide, transcendental</b>: {@code chain(x) + y}, where the chain is K
 * operations of the class through the argument (so that {@link Ir#fold}, which folds literal
 * subtrees only, keeps them): 16 steps of {@code v * 0.5 + 1} (K = 32), 16 divisions
 * {@code 1.5 / v}, and 8 of sin, exp, ln, cos, atan, pow. The baseline is {@code x + y} over
 * the same rows: the same launch, loop and memory traffic (24 bytes a row), so the difference
 * is the K operations, divided by rows × K. On the CPU over {@value #CPU_COMPUTE_ROWS} rows
 * (in cache; below the {@code 2 * CpuBackend.PARALLEL_MIN_ROWS} from which a batch is split,
 * so one thread); on OpenCL over as many rows as make the transcendental program take about a
 * millisecond, from {@value #OPENCL_MIN_COMPUTE_ROWS} up to {@value #OPENCL_MAX_COMPUTE_ROWS}
 * (enough to fill a GPU).
 * <li><b>threads, parallel efficiency</b>: the CPU backend's threads; the transcendental program
 * over {@value #PARALLEL_ROWS} rows, which the device's backend splits between its threads,
 * against the same program on one thread (the {@value #CPU_COMPUTE_ROWS}-row run, scaled): the
 * speedup divided by the threads, clamped to [0.05, 1]. 1 on OpenCL and for one thread.
 * </ul>
 *
 * <p>JIT warm-up: the CPU backend runs each program as a generated Vector API loop that is only
 * fast once C2 has compiled it, and slower than a row loop before (interpreted, a transcendental
 * function costs tens of microseconds a vector). So the CPU's programs are first run round-robin
 * over few rows, growing as they get faster, until each runs its full row count quickly or the
 * warm-up time is spent; only then are the large runs timed. In a freshly started JVM that
 * warm-up takes most of the hard limit (several hundred milliseconds on a 2-core machine, for
 * the transcendental functions mostly), in a warm one a few milliseconds.
 *
 * <p>Memory is allocated in one confined arena, freed when measuring ends or fails.
 */
public final class Calibrator {
    /** Rows of the streaming benchmark: 3 × 16 MB, out of most caches. */
    static final int STREAM_ROWS = 1 << 21;
    /** Rows of the compute benchmarks on the CPU: 3 × 128 KB, in L2, and on one thread. */
    static final int CPU_COMPUTE_ROWS = 1 << 14;
    /** Rows of the parallel-efficiency benchmark on the CPU: split between threads. */
    static final int PARALLEL_ROWS = 1 << 18;
    /** Rows of the compute benchmarks on OpenCL: from, to. */
    static final int OPENCL_MIN_COMPUTE_ROWS = 1 << 14;

    static final int OPENCL_MAX_COMPUTE_ROWS = 1 << 20;
    static final int LAUNCH_ROWS = 64;

    static final int ARITHMETIC_OPS = 32;
    static final int DIVIDE_OPS = 16;
    static final int TRANSCENDENTAL_OPS = 8;

    /** Measuring stops after the run in progress once this much time has passed. */
    static final long HARD_LIMIT_NANOS = 2_500_000_000L;
    /** The CPU's warm-up stops once this much time has passed, warm or not. */
    static final long WARM_UP_LIMIT_NANOS = 1_500_000_000L;
    /** The most time spent warming the loop split batches run their ranges with. */
    static final long RANGE_WARM_NANOS = 500_000_000L;
    /** The JIT counts as done with the warm-up programs once it has compiled nothing for this long. */
    static final long JIT_QUIET_NANOS = 40_000_000L;
    /** Per-operation figures are at least this (ns): a chain never costs nothing. */
    static final double MIN_OP_NANOS = 0.001;
    /** Memory figures are at least this (ns per byte, 10 TB/s). */
    static final double MIN_BYTE_NANOS = 1e-4;

    private Calibrator() {}

    /** Measures {@code device}; the figures carry {@code identity} and source MEASURED. */
    public static DeviceFigures measure(Device device, String identity) {
        return measure(device, identity, null);
    }

    /**
     * As {@link #measure(Device, String)}, reporting each benchmark's runs to {@code trace}
     * (when not null), for tuning and tests.
     */
    static DeviceFigures measure(Device device, String identity, Consumer<String> trace) {
        Objects.requireNonNull(device, "device is null");
        Objects.requireNonNull(identity, "identity is null");
        long startMillis = System.currentTimeMillis();
        long start = System.nanoTime();
        KernelBackend own = device.backend();
        Session s = new Session(device.name(), start, trace);
        Figures f;
        if (own.traits().runsOnCaller()) {
            KernelBackend single = own.openSingleThreaded().orElse(null);
            try {
                f = measureCpu(s, own, single != null ? single : own);
            } finally {
                if (single != null) {
                    single.close();
                }
            }
        } else {
            f = measureDevice(s, own);
        }
        long millis = Math.max(1, (System.nanoTime() - start) / 1_000_000);
        s.trace("%s: calibrated in %d ms", device.name(), millis);
        return new DeviceFigures(
                identity,
                f.launch,
                f.perByte,
                f.parallelPerByte,
                f.transfer,
                f.ops.arithmetic,
                f.ops.divide,
                f.ops.transcendental,
                f.threads,
                f.efficiency,
                startMillis,
                millis,
                s.cold ? DeviceFigures.Source.MEASURED_COLD : DeviceFigures.Source.MEASURED);
    }

    private record Figures(
            double launch,
            double perByte,
            double parallelPerByte,
            double transfer,
            Ops ops,
            int threads,
            double efficiency) {}

    private record Ops(double arithmetic, double divide, double transcendental) {}

    /** A device whose kernels run on the caller's threads (the JVM's CPU device): {@code one} is it on one thread. */
    private static Figures measureCpu(Session s, KernelBackend own, KernelBackend one) {
        int threads = own.threads();
        try (Buffers b = s.allocate(STREAM_ROWS, threads > 1 ? PARALLEL_ROWS : CPU_COMPUTE_ROWS)) {
            List<Warm> warm = new ArrayList<>(List.of(
                    new Warm(own, Programs.ADD, 1, CPU_COMPUTE_ROWS),
                    new Warm(own, Programs.ARITHMETIC, ARITHMETIC_OPS + 1, CPU_COMPUTE_ROWS),
                    new Warm(own, Programs.DIVIDE, DIVIDE_OPS + 1, CPU_COMPUTE_ROWS),
                    new Warm(own, Programs.TRANSCENDENTAL, TRANSCENDENTAL_OPS + 1, CPU_COMPUTE_ROWS)));
            if (one != own) {
                warm.add(new Warm(one, Programs.ADD, 1, CPU_COMPUTE_ROWS));
            }
            s.warmUp(warm);
            double launch = s.time("launch", own, Programs.ADD, b.args(LAUNCH_ROWS), 25).median;
            Compute ops = compute(s, own, b, CPU_COMPUTE_ROWS, launch);
            double bytes = 24.0 * STREAM_ROWS;
            Sample stream = s.time("memory (one thread)", one, Programs.ADD, b.args(STREAM_ROWS), 50);
            double perByte = Math.max(MIN_BYTE_NANOS, (stream.median - launch) / bytes);
            double parallelPerByte = perByte;
            double efficiency = 1;
            if (threads > 1) {
                Sample par = s.time("memory (all threads)", own, Programs.ADD, b.args(STREAM_ROWS), 30);
                parallelPerByte = Math.max(MIN_BYTE_NANOS, (par.median - launch) / bytes);
                // A split batch runs its ranges through a second compiled copy of the loop (see CpuBackend), which
                // the warm-up above did not reach: warm it until its runs stop getting faster.
                long until = System.nanoTime() + RANGE_WARM_NANOS;
                double fastest = Double.POSITIVE_INFINITY;
                for (int quiet = 0; quiet < 5 && System.nanoTime() < until; ) {
                    long t = s.run(
                            "warm-up (all threads)", own, Programs.TRANSCENDENTAL, b.invocation(b.args(PARALLEL_ROWS)));
                    if (t < fastest * 0.95) {
                        fastest = t;
                        quiet = 0;
                    } else {
                        quiet++;
                    }
                }
                double tn = s.time(
                                "transcendental (all threads)", own, Programs.TRANSCENDENTAL, b.args(PARALLEL_ROWS), 40)
                        .median;
                double t1 = (ops.oneThreadTranscendental - launch) * ((double) PARALLEL_ROWS / CPU_COMPUTE_ROWS);
                efficiency = Math.clamp(t1 / Math.max(1, tn - launch) / threads, 0.05, 1.0);
                if (efficiency < 0.3) {
                    // Two threads slower than one and a half: the split path was not compiled yet, or the machine
                    // is busy. Use the figures, but measure again in the next process.
                    s.cold = true;
                }
            }
            double transfer = transferPerByte(stream, launch, perByte * bytes);
            return new Figures(launch, perByte, parallelPerByte, transfer, ops.ops, threads, efficiency);
        }
    }

    /** An OpenCL device (or any backend but the CPU's): everything on its own backend. */
    private static Figures measureDevice(Session s, KernelBackend own) {
        try (Buffers b = s.allocate(STREAM_ROWS, OPENCL_MAX_COMPUTE_ROWS)) {
            double launch = s.time("launch", own, Programs.ADD, b.args(LAUNCH_ROWS), 25).median;
            // The compute programs' rows: about a millisecond of the transcendental program.
            int rows = OPENCL_MIN_COMPUTE_ROWS;
            double probe = s.time("sizing", own, Programs.TRANSCENDENTAL, b.args(rows), 25, 2, 2).median;
            while (rows < OPENCL_MAX_COMPUTE_ROWS && probe - launch < 1e6) {
                rows <<= 1;
                probe = 2 * probe - launch; // launch stays, the rest doubles with the rows
            }
            Ops ops = compute(s, own, b, rows, launch).ops;
            Sample stream = s.time("memory", own, Programs.ADD, b.args(STREAM_ROWS), 40);
            double bytes = 24.0 * STREAM_ROWS;
            double perByte;
            double transfer;
            long copied = stream.run.bytesCopied();
            if (copied == 0) {
                perByte = Math.max(MIN_BYTE_NANOS, (stream.median - launch) / bytes);
                transfer = 0;
            } else {
                // The backend SPI cannot tell the copies from the kernel's own traffic (every byte the kernel reads
                // was copied first): device memory is taken as ten times as fast as the copies.
                double total = Math.max(MIN_BYTE_NANOS, (stream.median - launch) / copied);
                transfer = total / (1 + 0.1 * bytes / copied);
                perByte = Math.max(MIN_BYTE_NANOS, transfer * 0.1);
            }
            return new Figures(launch, perByte, perByte, transfer, ops, 1, 1);
        }
    }

    /** 0 for a zero-copy run; else the run less launch and the kernel's memory, per byte copied. */
    private static double transferPerByte(Sample stream, double launch, double memoryNanos) {
        long copied = stream.run.bytesCopied();
        if (copied == 0) {
            return 0;
        }
        return Math.max(MIN_BYTE_NANOS, (stream.median - launch - memoryNanos) / copied);
    }

    private record Compute(Ops ops, double oneThreadTranscendental) {}

    /** The three per-operation figures: each chain against the {@code x + y} baseline over the same rows. */
    private static Compute compute(Session s, KernelBackend backend, Buffers b, int rows, double launch) {
        List<MemorySegment> args = b.args(rows);
        double base = s.time("baseline", backend, Programs.ADD, args, 20).median;
        double arith = s.time("arithmetic", backend, Programs.ARITHMETIC, args, 25).median;
        double div = s.time("divide", backend, Programs.DIVIDE, args, 25).median;
        double tr = s.time("transcendental", backend, Programs.TRANSCENDENTAL, args, 30).median;
        double a = Math.max(MIN_OP_NANOS, (arith - base) / ((double) rows * ARITHMETIC_OPS));
        double d = Math.max(MIN_OP_NANOS, (div - base) / ((double) rows * DIVIDE_OPS));
        double t = Math.max(MIN_OP_NANOS, (tr - base) / ((double) rows * TRANSCENDENTAL_OPS));
        return new Compute(new Ops(a, d, t), Math.max(tr, launch + 1));
    }

    /** The benchmark programs, built once: every one reads x and y and writes one Float64 a row. */
    static final class Programs {
        private static final ElementType F64 = ElementType.FLOAT64;
        private static final IrNode X = Ir.arg(0, F64);
        private static final IrNode Y = Ir.arg(1, F64);
        static final KernelProgram ADD = new KernelProgram(List.of(F64, F64), Ir.add(X, Y), "calibration: x + y");
        static final KernelProgram ARITHMETIC = arithmetic();
        static final KernelProgram DIVIDE = divide();
        static final KernelProgram TRANSCENDENTAL = transcendental();

        private Programs() {}

        private static IrNode lit(double v) {
            return Ir.lit(F64, v);
        }

        private static KernelProgram plusY(IrNode chain, String text) {
            return new KernelProgram(List.of(F64, F64), Ir.add(chain, Y), "calibration: " + text);
        }

        /** 16 × (v * 0.5 + 1): 32 operations; the value stays in [1, 2]. */
        private static KernelProgram arithmetic() {
            IrNode v = X;
            for (int i = 0; i < ARITHMETIC_OPS / 2; i++) {
                v = Ir.add(Ir.mul(v, lit(0.5)), lit(1.0));
            }
            return plusY(v, ARITHMETIC_OPS + " adds and multiplies");
        }

        /** 16 × (1.5 / v): the value alternates between x and 1.5 / x, never subnormal. */
        private static KernelProgram divide() {
            IrNode v = X;
            for (int i = 0; i < DIVIDE_OPS; i++) {
                v = Ir.div(lit(1.5), v);
            }
            return plusY(v, DIVIDE_OPS + " divisions");
        }

        /** sin, exp, ln, cos, atan, pow, exp, ln over x in [0.5, 1.5): every value stays in [0.3, 3]. */
        private static KernelProgram transcendental() {
            IrNode v = Ir.unary(UnaryOp.SIN, X);
            v = Ir.unary(UnaryOp.EXP, v);
            v = Ir.unary(UnaryOp.LOG, v);
            v = Ir.unary(UnaryOp.COS, v);
            v = Ir.unary(UnaryOp.ATAN, v);
            v = Ir.binary(BinaryOp.POW, v, lit(1.5));
            v = Ir.unary(UnaryOp.EXP, v);
            v = Ir.unary(UnaryOp.LOG, v);
            return plusY(v, TRANSCENDENTAL_OPS + " transcendental functions");
        }
    }

    /** The off-heap columns of all benchmarks, x and y in, one out; {@link #close()} frees them. */
    private static final class Buffers implements AutoCloseable {
        private final Arena arena;
        private final MemorySegment x;
        private final MemorySegment y;
        private final MemorySegment out;
        private final MemorySegment validity;

        /** {@code rows} of each column; x in [0.5, 1.5) and y 0 for the first {@code valuedRows} (the rest 0). */
        Buffers(int rows, int valuedRows) {
            arena = Arena.ofConfined();
            try {
                long bytes = (long) rows * Double.BYTES;
                x = arena.allocate(bytes, 64);
                y = arena.allocate(bytes, 64);
                out = arena.allocate(bytes, 64);
                validity = arena.allocate((rows + 7) / 8, 64);
                validity.fill((byte) 0xFF);
                int block = Math.min(4096, valuedRows);
                for (int i = 0; i < block; i++) {
                    x.setAtIndex(ValueLayout.JAVA_DOUBLE, i, 0.5 + (i * 0.618033988749895) % 1.0);
                }
                for (long i = block; i < valuedRows; i += block) {
                    MemorySegment.copy(x, 0, x, i * Double.BYTES, Math.min(block, valuedRows - i) * Double.BYTES);
                }
            } catch (RuntimeException | Error e) {
                arena.close();
                throw e;
            }
        }

        /** x and y over {@code rows}. */
        List<MemorySegment> args(int rows) {
            return List.of(x.asSlice(0, (long) rows * Double.BYTES), y.asSlice(0, (long) rows * Double.BYTES));
        }

        KernelInvocation invocation(List<MemorySegment> args) {
            int rows = (int) (args.getFirst().byteSize() / Double.BYTES);
            return new KernelInvocation(
                    args,
                    validity.asSlice(0, (rows + 7) / 8),
                    out.asSlice(0, (long) rows * Double.BYTES),
                    rows,
                    RowMode.ALL_ROWS);
        }

        @Override
        public void close() {
            arena.close();
        }
    }

    /** A program of {@code ops} operations to warm up on a backend, up to {@code rows} rows a run. */
    private record Warm(KernelBackend backend, KernelProgram program, int ops, int rows) {}

    /** The median of a benchmark's last runs, and its last run. */
    private record Sample(double median, KernelRun run, int runs) {}

    /** One device's calibration: its deadline, its buffers, its trace. */
    private static final class Session {
        /** Runs whose median is taken; more for runs of a few microseconds, which jitter. */
        private static final int WINDOW = 5;

        private static final int SHORT_WINDOW = 21;
        private static final long SHORT_RUN_NANOS = 50_000;
        /** Consecutive medians within this of one another are stable. */
        static final int STABLE_PERCENT = 3;
        /** A warm-up run takes about this long once the rows grow: few rows while the code is slow, more as it gets fast. */
        private static final long WARM_RUN_NANOS = 100_000;
        /**
         * Warm-up runs of one loop step each before the rows grow: the JIT compiles a method with C2 after some
         * 5,000 calls (HotSpot's Tier4InvocationThreshold) or 15,000 calls and loop steps together, so one step
         * a call gets there with the fewest steps run as slow code (interpreted, a Vector API transcendental
         * function costs tens of microseconds a step).
         */
        private static final int ONE_STEP_RUNS = 5_200;
        /** A program that runs this many rows in {@link #WARM_RUN_NANOS}, three times in a row, is warm. */
        private static final int WARM_ROWS = 4096;
        /** ... and takes less than this per row and operation (reads and writes counting as one). */
        private static final double WARM_OP_NANOS = 3;

        private final String device;
        private final long start;
        private final long deadline;
        private final Consumer<String> trace;
        /** Whether a warm-up program was still not fast when the warm-up ended (the figures may be the JIT's, not the loop's). */
        boolean cold;

        private Buffers buffers;

        Session(String device, long start, Consumer<String> trace) {
            this.device = device;
            this.start = start;
            this.deadline = start + HARD_LIMIT_NANOS;
            this.trace = trace;
        }

        void trace(String format, Object... args) {
            if (trace != null) {
                trace.accept(String.format(Locale.ROOT, format, args));
            }
        }

        Buffers allocate(int rows, int valuedRows) {
            try {
                buffers = new Buffers(rows, valuedRows);
                return buffers;
            } catch (RuntimeException | OutOfMemoryError e) {
                throw new IllegalStateException(
                        "calibrating device " + device + ": allocating the benchmark columns ("
                                + 3L * rows * Double.BYTES + " bytes) failed: " + e,
                        e);
            }
        }

        /**
         * Runs the programs round-robin, first {@link #ONE_STEP_RUNS} times over one loop step (the backend's
         * lanes), then over as many rows as take about {@link #WARM_RUN_NANOS} (up to its {@code rows}), until
         * each runs {@link #WARM_ROWS} rows (or all its rows) in less than that three times in a row, or
         * {@link #WARM_UP_LIMIT_NANOS} have passed.
         */
        void warmUp(List<Warm> programs) {
            int n = programs.size();
            int[] rows = new int[n];
            int[] fast = new int[n];
            int[] runs = new int[n];
            for (int i = 0; i < n; i++) {
                Warm w = programs.get(i);
                rows[i] = w.backend().rowsPerStep(w.program());
            }
            long end = start + WARM_UP_LIMIT_NANOS;
            // "Fast" can be C1's code: the C2 compilation of a large Vector API loop takes a while on a busy machine,
            // so the warm-up also waits until the JIT has been idle for a moment (where the JVM reports its time).
            CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
            boolean jitTimed = jit != null && jit.isCompilationTimeMonitoringSupported();
            long jitTotal = jitTimed ? jit.getTotalCompilationTime() : 0;
            long jitChanged = System.nanoTime();
            int done = 0;
            while (System.nanoTime() < end) {
                long now = System.nanoTime();
                if (jitTimed) {
                    long t = jit.getTotalCompilationTime();
                    if (t != jitTotal) {
                        jitTotal = t;
                        jitChanged = now;
                    }
                }
                boolean jitQuiet = !jitTimed || now - jitChanged >= JIT_QUIET_NANOS;
                if (done == n && jitQuiet) {
                    break;
                }
                boolean allFast = done == n;
                done = 0;
                for (int i = 0; i < n; i++) {
                    Warm w = programs.get(i);
                    if (fast[i] >= 3 && !allFast) {
                        done++;
                        continue;
                    }
                    if (allFast) {
                        // Waiting for the JIT: keep every program's code hot, at its full warm-up size.
                        run("warm-up", w.backend(), w.program(), buffers.invocation(buffers.args(rows[i])));
                        done++;
                        continue;
                    }
                    long t = run("warm-up", w.backend(), w.program(), buffers.invocation(buffers.args(rows[i])));
                    runs[i]++;
                    if (rows[i] >= Math.min(w.rows(), WARM_ROWS)) {
                        // Thousands of rows at a few ns an operation: compiled code (the interpreter and C1 take tens).
                        boolean quick = t < WARM_RUN_NANOS && t < WARM_OP_NANOS * rows[i] * (w.ops() + 1);
                        fast[i] = quick ? fast[i] + 1 : 0;
                    }
                    if (runs[i] >= ONE_STEP_RUNS && t < WARM_RUN_NANOS / 2 && rows[i] < w.rows()) {
                        rows[i] = Math.min(w.rows(), rows[i] * 2);
                    }
                }
            }
            for (int i = 0; i < n; i++) {
                cold |= fast[i] < 3;
            }
            if (trace != null) {
                StringBuilder sb = new StringBuilder();
                for (int i = 0; i < n; i++) {
                    Warm w = programs.get(i);
                    sb.append(String.format(
                            Locale.ROOT,
                            "%n    %s on %s: %d runs, up to %d rows%s",
                            w.program().text(),
                            w.backend().traits().runsOnCaller()
                                    ? w.backend().threads() + " thread(s)"
                                    : w.backend().name(),
                            runs[i],
                            rows[i],
                            fast[i] >= 3 ? "" : " (not warm)"));
                }
                trace("%s: warm-up %.1f ms%s", device, (System.nanoTime() - start) / 1e6, sb);
            }
        }

        /**
         * One run; an OpenCL backend runs it with one transfer each way, so the figures are the plain
         * transfer rate and the kernel's own cost (the cost model adds the overlap of chunked batches).
         */
        private static KernelRun execute(KernelBackend backend, KernelProgram program, KernelInvocation invocation) {
            return backend.executeWithoutOverlap(program, invocation);
        }

        private long run(String name, KernelBackend backend, KernelProgram program, KernelInvocation invocation) {
            try {
                long t0 = System.nanoTime();
                execute(backend, program, invocation);
                return System.nanoTime() - t0;
            } catch (RuntimeException e) {
                throw failed(name, program, invocation, e);
            }
        }

        private IllegalStateException failed(
                String name, KernelProgram program, KernelInvocation invocation, RuntimeException e) {
            return new IllegalStateException(
                    "calibrating device " + device + ": benchmark " + name + " (" + program.text() + ", "
                            + invocation.rows() + " rows) failed: " + e,
                    e);
        }

        Sample time(
                String name, KernelBackend backend, KernelProgram program, List<MemorySegment> args, long sliceMillis) {
            return time(name, backend, program, args, sliceMillis, 3, Integer.MAX_VALUE);
        }

        /**
         * Runs {@code program} until the median of the last runs is stable, its slice (counted from the end of
         * the first run) is spent after at least {@code minRuns}, {@code maxRuns} are done, or the session's
         * deadline has passed (after at least two runs).
         */
        Sample time(
                String name,
                KernelBackend backend,
                KernelProgram program,
                List<MemorySegment> args,
                long sliceMillis,
                int minRuns,
                int maxRuns) {
            KernelInvocation invocation = buffers.invocation(args);
            List<Long> times = new ArrayList<>();
            List<Double> medians = new ArrayList<>();
            KernelRun last = null;
            long sliceEnd = Long.MAX_VALUE;
            try {
                while (true) {
                    long t0 = System.nanoTime();
                    last = execute(backend, program, invocation);
                    long t1 = System.nanoTime();
                    times.add(t1 - t0);
                    if (times.size() == 1) {
                        sliceEnd = t1 + sliceMillis * 1_000_000;
                        continue; // the first run compiles: it never counts
                    }
                    int window = window(times);
                    if (times.size() > window) {
                        medians.add(median(times, window));
                        if (stable(medians)) {
                            break;
                        }
                    }
                    if (times.size() >= maxRuns || t1 >= deadline || t1 >= sliceEnd && times.size() > minRuns) {
                        break;
                    }
                }
            } catch (RuntimeException e) {
                throw failed(name, program, invocation, e);
            }
            List<Long> counted = times.size() > 1 ? times.subList(1, times.size()) : times;
            double m = median(counted, window(counted));
            trace(
                    "%s: %s, %d rows: %d runs, median %.1f us, first %.1f us%s",
                    device,
                    name,
                    invocation.rows(),
                    times.size(),
                    m / 1e3,
                    times.getFirst() / 1e3,
                    stable(medians) ? "" : " (not stable)");
            return new Sample(m, last, times.size());
        }

        private static int window(List<Long> times) {
            return median(times, 3) < SHORT_RUN_NANOS ? SHORT_WINDOW : WINDOW;
        }

        private static boolean stable(List<Double> medians) {
            int n = medians.size();
            if (n < 3) {
                return false;
            }
            double lo = Math.min(medians.get(n - 1), Math.min(medians.get(n - 2), medians.get(n - 3)));
            double hi = Math.max(medians.get(n - 1), Math.max(medians.get(n - 2), medians.get(n - 3)));
            return hi <= lo * (1 + STABLE_PERCENT / 100.0);
        }

        /** The median of the last {@code window} values (all of them when there are fewer). */
        private static double median(List<Long> times, int window) {
            int n = times.size();
            int k = Math.min(window, n);
            long[] last = new long[k];
            for (int i = 0; i < k; i++) {
                last[i] = times.get(n - k + i);
            }
            Arrays.sort(last);
            return k % 2 == 1 ? last[k / 2] : (last[k / 2 - 1] + last[k / 2]) / 2.0;
        }
    }

    /** Rough figures for the device's kind, source DEFAULT: used when calibration is off or fails. */
    public static DeviceFigures defaults(Device device, String identity) {
        int threads = device.backend().threads();
        long now = System.currentTimeMillis();
        Device.Kind kind = device.kind() != Device.Kind.CUSTOM
                ? device.kind()
                : switch (device.backend().traits().kind()) {
                    // A device of the user's own, by what its backend says it is.
                    case GPU, ACCELERATOR -> Device.Kind.OPENCL_GPU;
                    case CPU -> device.backend().traits().runsOnCaller() ? Device.Kind.CPU : Device.Kind.OPENCL_CPU;
                    case OTHER -> Device.Kind.OPENCL_OTHER;
                };
        return switch (kind) {
            // One core: ~3 us to dispatch a fused loop, ~10 GB/s streaming (about 20 GB/s shared by all cores),
            // per row a vectorized add or multiply ~0.1 ns, a division ~0.5 ns, an exp or sin ~2 ns.
            case CPU ->
                new DeviceFigures(
                        identity,
                        3_000,
                        0.1,
                        threads == 1 ? 0.1 : 0.05,
                        0,
                        0.1,
                        0.5,
                        2,
                        threads,
                        threads == 1 ? 1 : 0.8,
                        now,
                        0,
                        DeviceFigures.Source.DEFAULT);
            // A discrete GPU: ~30 us a launch and round trip, ~500 GB/s device memory, ~10 GB/s over PCIe.
            case OPENCL_GPU ->
                new DeviceFigures(
                        identity,
                        30_000,
                        0.002,
                        0.002,
                        0.1,
                        0.005,
                        0.02,
                        0.05,
                        1,
                        1,
                        now,
                        0,
                        DeviceFigures.Source.DEFAULT);
            // PoCL and the like: the host's cores behind an OpenCL queue (~100 us a launch), zero copy.
            case OPENCL_CPU, OPENCL_OTHER, CUSTOM ->
                new DeviceFigures(
                        identity, 100_000, 0.05, 0.05, 0, 0.1, 0.5, 5, 1, 1, now, 0, DeviceFigures.Source.DEFAULT);
        };
    }
}
