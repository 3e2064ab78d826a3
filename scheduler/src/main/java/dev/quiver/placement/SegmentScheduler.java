package dev.quiver.placement;

import dev.quiver.errors.DeviceException;
import dev.quiver.rowfn.ir.KernelProgram;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Places the batches of one kernel segment of one expression and learns from every run.
 *
 * <p>AUTO: each device that can run the program, is not fenced off and has the memory gets an
 * estimate ({@link CostModel} with the device's calibrated figures) times a correction learnt
 * from the measured runs of this segment on that device: an exponentially weighted mean of
 * log(measured / estimated), kept per batch-size bucket (powers of two of rows) and over all
 * buckets (used where a bucket has no run yet). The cheapest device wins. The first run of a
 * segment on a device (program build, JIT) is recorded but not learnt from.
 *
 * <p>Background builds: an OpenCL device whose program for the batch is not built yet
 * ({@link dev.quiver.backend.KernelBackend#isReady}) is passed over; when it would have won,
 * its build is started on the backend's build thread
 * ({@link dev.quiver.backend.KernelBackend#prepareAsync}) and the batch goes to the best device
 * that is ready (the CPU at least), with reason {@link Why#BUILDING}. Once built, the device
 * competes as any other. A background build that failed is not started again: the device
 * competes again, and a batch placed on it builds synchronously, so a failure is counted
 * against its health like any other device failure.
 *
 * <p>Exploration: every run earns a credit of {@code explorationShare} of its measured time;
 * a device that was not measured in this bucket for {@link #EXPLORE_GAP} batches is tried
 * instead of the winner when the credit covers its expected extra time. So exploring costs at
 * most that share of the total, by the model's own reckoning, and a stale estimate cannot
 * persist. Decisions are deterministic (no random draws).
 *
 * <p>Threads: a device that splits a batch between threads of this JVM (the CPU device with
 * more than one thread) is two alternatives, each estimated, learnt and explored like a device:
 * the device on as many threads as the batch can be split between ({@code maxThreadsFor}, at
 * most the cores other processes leave spare, {@link SpareCores}) and the device on one thread.
 * Where the batch is too small to split, or no core is spare, only the first stands. So a
 * memory-bound loop that a second thread does not speed up, or a machine busy with other work,
 * is measured and the batch stays on one thread; a compute-bound loop on an idle machine is
 * split. A fixed placement (CPU) takes the backend's own thread count, never more than the
 * spare cores.
 *
 * <p>Lock-free: the per-batch path reads volatile fields and updates atomics only.
 */
final class SegmentScheduler {
    static final int BUCKETS = 33;
    /** Batches between two explorations of one device in one bucket, at the least. */
    static final long EXPLORE_GAP = 32;
    /** Weight of a new run in a bucket's correction, and in the segment-wide one. */
    private static final double ALPHA_BUCKET = 0.25, ALPHA_GLOBAL = 0.1;
    /** Rows and batches of a segment the CPU runs before its measured times count when slower than estimated. */
    static final long JIT_WARM_ROWS = 1 << 20, JIT_WARM_BATCHES = 16;
    /** The most exploration credit kept, nanoseconds. */
    private static final long MAX_CREDIT = 100_000_000;

    final String text;
    final KernelProgram program;
    final SegmentProfile profile;
    /** Names of the cpuOnly functions the segment calls, or null. */
    final String cpuOnly;

    /**
     * The alternatives, by candidate index: first every device, at index = its device index (on
     * as many threads as pay, for one that splits batches), then each device that splits
     * batches on one thread.
     */
    private final DeviceRuntime[] devices;
    /** Per candidate: whether it is a device on one thread (a second alternative of a device that splits batches). */
    private final boolean[] single;
    /** Per device index that splits batches: its one-thread candidate; else -1. */
    private final int[] singleOf;
    /** The index of the fallback device in {@link #devices}: it always qualifies, and has no health, queue or budget. */
    private final int fallback;

    private final SpareCores spareCores;

    private final Slot[] slots;
    private final ProgramSupport support;
    /** How OpenCL discovery went: what placement OPENCL says when no device can run the segment. */
    private final String openClStatus;

    private final double explorationShare;
    private final AtomicLong batches = new AtomicLong();
    private final AtomicLong credit = new AtomicLong();

    SegmentScheduler(ProgramSupport support, String text, KernelProgram program, String cpuOnly, Devices devices) {
        this.support = support;
        this.text = text;
        this.program = program;
        this.profile = SegmentProfile.of(program);
        this.cpuOnly = cpuOnly;
        DeviceRuntime[] all = devices.all();
        List<DeviceRuntime> candidates = new ArrayList<>(List.of(all));
        this.singleOf = new int[all.length];
        for (DeviceRuntime d : all) {
            singleOf[d.index] = -1;
            if (d.splits) {
                singleOf[d.index] = candidates.size();
                candidates.add(d);
            }
        }
        this.devices = candidates.toArray(DeviceRuntime[]::new);
        this.single = new boolean[this.devices.length];
        for (int c = all.length; c < single.length; c++) {
            single[c] = true;
        }
        this.spareCores = devices.spareCores();
        this.fallback = devices.fallback().index;
        this.openClStatus = devices.openClStatus();
        this.explorationShare = devices.explorationShare();
        this.slots = new Slot[this.devices.length];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new Slot();
        }
    }

    /** What the segment has learnt and run on one device. */
    private static final class Slot {
        /**
         * The learnt factor measured / estimated per bucket, and over all buckets at index
         * {@link #BUCKETS}, as double bits; NaN: no run yet. Written with release semantics, read
         * plainly: a decision may see a value one batch old.
         */
        final AtomicLongArray factor = new AtomicLongArray(BUCKETS + 1);
        /** The segment's batch counter when the device last ran a batch of the bucket (0: never). */
        final AtomicLongArray lastRun = new AtomicLongArray(BUCKETS);

        volatile boolean warmed;
        /** Whether the device's JIT has had time to compile the segment's loop (see {@link #record}). */
        volatile boolean jitWarm;
        /** Whether the device can run the segment's own program: 0 unknown, 1 yes, 2 no. */
        volatile int supportsBase;
        /** Whether the device's program for the segment's own program is built (it stays built). */
        volatile boolean readyBase;
        /**
         * The background builds asked of the device and not yet seen built, by program shape (literals excluded,
         * as the backend keys its programs: the segment's own program and those with a batch's constants share one).
         */
        final ConcurrentHashMap<Object, CompletableFuture<Void>> preparing = new ConcurrentHashMap<>();
        /** The last batch size asked of {@code maxThreadsFor}, packed with its answer: rows << 16 | threads. */
        volatile long lastThreads = -1;

        final LongAdder batches = new LongAdder(),
                rows = new LongAdder(),
                estimated = new LongAdder(),
                measured = new LongAdder(),
                explorations = new LongAdder(),
                fallbacks = new LongAdder(),
                probes = new LongAdder();

        Slot() {
            long nan = Double.doubleToRawLongBits(Double.NaN);
            for (int b = 0; b <= BUCKETS; b++) {
                factor.set(b, nan);
            }
        }

        double learnt(int bucket) {
            return Double.longBitsToDouble(factor.getPlain(bucket));
        }

        /** The bucket's factor, else the factor over all buckets, else 1. */
        double factor(int bucket) {
            double f = learnt(bucket);
            if (f == f) {
                return f;
            }
            double g = learnt(BUCKETS);
            return g == g ? g : 1;
        }
    }

    static int bucket(long rows) {
        return Math.min(BUCKETS - 1, 64 - Long.numberOfLeadingZeros(Math.max(0, rows)));
    }

    /**
     * The candidates' estimates for a batch of {@code rows} rows, in candidate order (null where
     * the device cannot run it, or where a one-thread candidate is no alternative at this size).
     */
    CostModel.Estimate[] estimates(long rows) {
        CostModel.Estimate[] out = new CostModel.Estimate[devices.length];
        for (int i = 0; i < devices.length; i++) {
            if (supports(i, program) && stands(i, rows)) {
                out[i] = CostModel.estimate(
                        devices[i].figures(), profile, rows, threads(i, rows), devices[i].queued(), devices[i].path(0));
            }
        }
        return out;
    }

    /** The learnt correction factor for candidate {@code c} at {@code rows}. */
    double correction(int c, long rows) {
        return slots[c].factor(bucket(rows));
    }

    /** How many candidates there are: the devices, then the one-thread alternatives. */
    int candidates() {
        return devices.length;
    }

    /** The device of candidate {@code c}. */
    DeviceRuntime deviceOf(int c) {
        return devices[c];
    }

    /** What EXPLAIN and the statistics call candidate {@code c} for a batch of {@code rows}: the device's name, with its threads where the device splits batches. */
    String name(int c, long rows) {
        return where(c, devices[c].splits ? threads(c, rows) : 0);
    }

    /** Candidate {@code c} on {@code threads} threads, named: the device, with the threads of a device that splits batches. */
    private String where(int c, int threads) {
        String name = devices[c].device.name();
        return !devices[c].splits || threads < 1 || threads == 1 && !single[c]
                ? name
                : name + ", " + threads + (threads == 1 ? " thread" : " threads");
    }

    /**
     * Whether candidate {@code c} is an alternative for a batch of {@code rows} rows: a
     * one-thread candidate only where its device's other candidate would split the batch.
     */
    boolean stands(int c, long rows) {
        return !single[c] || threads(devices[c].index, rows) > 1;
    }

    boolean supports(int i, KernelProgram p) {
        if (devices[i].fallback) {
            return true;
        }
        if (p == program) {
            int s = slots[i].supportsBase;
            if (s == 0) {
                slots[i].supportsBase =
                        s = support.unsupportedOn(devices[i].device, p).isEmpty() ? 1 : 2;
            }
            return s == 1;
        }
        return support.unsupportedOn(devices[i].device, p).isEmpty();
    }

    /** The threads candidate {@code i} runs a batch of {@code rows} rows on. */
    private int threads(int i, long rows) {
        DeviceRuntime d = devices[i];
        if (!d.splits) {
            return d.threadsFor(program, rows);
        }
        if (single[i]) {
            return 1;
        }
        Slot s = slots[i];
        long packed = s.lastThreads;
        int t;
        if (packed >>> 16 == rows) {
            t = (int) (packed & 0xFFFF);
        } else {
            t = d.maxThreadsFor(program, rows);
            s.lastThreads = rows << 16 | Math.min(t, 0xFFFF);
        }
        return t <= 1 ? t : Math.min(t, spareCores.now());
    }

    /** The threads a fixed placement runs a batch on: the backend's own choice, at most the spare cores. */
    private int fixedThreads(DeviceRuntime d, long rows) {
        int t = d.threadsFor(program, rows);
        return t <= 1 ? t : Math.min(t, spareCores.now());
    }

    /**
     * The decision of AUTO for a batch. {@code peek}: no side effects (no counter, no exploration,
     * no probe claimed), for EXPLAIN and {@link KernelDispatcher#choose}.
     */
    Choice auto(KernelProgram p, int rows, boolean peek) {
        return auto(p, rows, peek, null);
    }

    /**
     * As {@link #auto(KernelProgram, int, boolean)}, with the bytes of the batch's arguments already
     * on each device ({@code resident[i]} for device {@code i}; null: none anywhere).
     */
    Choice auto(KernelProgram p, int rows, boolean peek, long[] resident) {
        long n = peek ? batches.get() : batches.incrementAndGet();
        int b = bucket(rows);
        int best = -1, second = -1, building = -1;
        double bestEst = Double.POSITIVE_INFINITY,
                bestRaw = 0,
                secondEst = Double.POSITIVE_INFINITY,
                secondRaw = 0,
                buildingEst = Double.POSITIVE_INFINITY;
        boolean bestProbe = false, secondProbe = false;
        boolean anyMemoryShort = false, anyFenced = false, otherDevice = false;
        for (int i = 0; i < devices.length; i++) {
            DeviceRuntime d = devices[i];
            boolean probe = false;
            if (!stands(i, rows)) {
                continue;
            }
            if (!d.fallback) {
                if (!supports(i, p)) {
                    continue;
                }
                if (!d.health.isHealthy()) {
                    if (d.health.state() != DeviceHealth.State.PROBE_DUE) {
                        anyFenced = true;
                        continue;
                    }
                    probe = true;
                }
                if (!fits(i, rows)) {
                    anyMemoryShort = true;
                    continue;
                }
            }
            double raw = rawOf(i, rows, resident);
            // The correction scales the device's own work; work already queued on it is added as it is.
            double est = raw * slots[i].factor(b) + d.queued();
            if (!d.fallback && !ready(i, p)) {
                if (est < buildingEst) {
                    building = i;
                    buildingEst = est;
                }
                continue;
            }
            otherDevice |= !d.fallback;
            if (est < bestEst) {
                second = best;
                secondEst = bestEst;
                secondRaw = bestRaw;
                secondProbe = bestProbe;
                best = i;
                bestEst = est;
                bestRaw = raw;
                bestProbe = probe;
            } else if (est < secondEst) {
                second = i;
                secondEst = est;
                secondRaw = raw;
                secondProbe = probe;
            }
        }
        if (best < 0) {
            best = fallback; // unreachable: the fallback always qualifies
        }
        // A device that would have won had its program been built: built now, in the background, for later batches.
        boolean buildingWins = building >= 0 && buildingEst < bestEst;
        if (buildingWins && !peek) {
            prepare(building, p);
        }
        if (!peek && bestProbe && !devices[best].health.tryProbe()) {
            // Another thread is probing that device: the next best takes this batch (never a second probe).
            return second >= 0 && !secondProbe
                    ? choice(second, secondRaw, p, rows, Why.FASTEST, false, false)
                    : choice(fallback, rawOf(fallback, rows), p, rows, Why.FENCED, false, false);
        }
        if (!peek && (second >= 0 || building >= 0) && !bestProbe && explorationShare > 0) {
            // Exploration: a device not measured in this bucket for a while, when the credit pays for it.
            for (int i = 0; i < devices.length; i++) {
                if (i == best
                        || !stands(i, rows)
                        || !supports(i, p)
                        || !devices[i].health.isHealthy()
                        || !fits(i, rows)) {
                    continue;
                }
                Slot s = slots[i];
                if (n - s.lastRun.get(b) < EXPLORE_GAP) {
                    continue;
                }
                double raw = rawOf(i, rows, resident);
                // A device that never ran the segment pays for its first run (a JIT, or a build when it builds in the
                // batch).
                double extra =
                        raw * s.factor(b) + devices[i].queued() - bestEst + (s.warmed ? 0 : devices[i].firstRunNanos);
                long c = credit.get();
                if (extra < 0 || extra > c) {
                    continue;
                }
                if (!ready(i, p)) {
                    prepare(i, p); // explored once its program is built, in the background: no credit spent now
                    continue;
                }
                if (credit.compareAndSet(c, c - (long) extra)) {
                    s.lastRun.set(b, n);
                    return choice(i, raw, p, rows, Why.EXPLORE, true, false);
                }
            }
        }
        Why why = bestProbe
                ? Why.PROBE
                : buildingWins
                        ? Why.BUILDING
                        : devices[best].fallback && !otherDevice && anyFenced
                                ? Why.FENCED
                                : devices[best].fallback && !otherDevice && anyMemoryShort
                                        ? Why.NO_MEMORY
                                        : second < 0 && building < 0 ? Why.ONLY : Why.FASTEST;
        return choice(best, bestRaw, p, rows, why, false, bestProbe);
    }

    /** Placement OPENCL: the first healthy OpenCL device that can run it and has the memory, else why not. */
    Choice openCl(KernelProgram program, int rows, boolean peek) {
        List<String> why = new ArrayList<>();
        boolean fenced = false, noMemory = false;
        for (DeviceRuntime d : devices) {
            if (d.fallback || !d.device.isOpenCl()) {
                continue;
            }
            Optional<String> reason = support.unsupportedOn(d.device, program);
            if (reason.isPresent()) {
                why.add(d.device.name() + ": " + reason.get());
                continue;
            }
            if (!fits(d.index, rows)) {
                noMemory = true;
                continue;
            }
            if (d.health.isHealthy()) {
                return fixed(d.index, rows, Why.PLACEMENT_OPENCL, false);
            }
            if (!peek && d.health.tryProbe()) {
                return fixed(d.index, rows, Why.PROBE, true);
            }
            fenced = true;
        }
        if (fenced || noMemory) {
            return fallback(rows, fenced ? Why.FENCED : Why.NO_MEMORY);
        }
        throw new DeviceException("placement OPENCL, but no OpenCL device can run " + program.text() + ": "
                + (why.isEmpty() ? openClStatus : String.join("; ", why)));
    }
    /**
     * Whether device {@code i} runs {@code p} without a build inside the batch: always when the
     * Quiver builds in the batch (background compilation off); else once the backend has the
     * program, or once its background build failed (the run then builds, and reports the error).
     * No side effect but forgetting a background build once its program is built.
     */
    private boolean ready(int i, KernelProgram p) {
        DeviceRuntime d = devices[i];
        if (!d.buildsInBackground) {
            return true;
        }
        Slot s = slots[i];
        if (p == program && s.readyBase) {
            return true;
        }
        if (d.backend.isReady(p)) {
            if (p == program) {
                s.readyBase = true;
            }
            if (!s.preparing.isEmpty()) {
                s.preparing.remove(p.shape()); // built: nothing to remember
            }
            return true;
        }
        CompletableFuture<Void> started = s.preparing.get(p.shape());
        return started != null && started.isCompletedExceptionally();
    }

    /** Starts the background build of {@code p} on device {@code i}, once. */
    private void prepare(int i, KernelProgram p) {
        Slot s = slots[i];
        Object shape = p.shape();
        if (!s.preparing.containsKey(shape)) {
            s.preparing.computeIfAbsent(shape, q -> devices[i].backend.prepareAsync(p));
        }
    }

    /** Whether device {@code i} has the memory and buffer size for a batch of {@code rows} rows now. */
    boolean fits(int i, long rows) {
        return devices[i].fits((long) (rows * profile.bytesPerRow()), rows * 8);
    }

    /** The device's own estimated time for the batch, without correction or queue. */
    private double rawOf(int i, long rows) {
        return rawOf(i, rows, null);
    }

    private double rawOf(int i, long rows, long[] resident) {
        return CostModel.totalNanos(
                devices[i].figures(),
                profile,
                rows,
                threads(i, rows),
                0,
                devices[i].path(resident == null ? 0 : resident[devices[i].index]));
    }

    Choice choice(int c, double rawEstimate, KernelProgram p, long rows, Why why, boolean explore, boolean probe) {
        return choice(c, devices[c].splits ? threads(c, rows) : 0, rawEstimate, rows, why, explore, probe);
    }

    private Choice choice(int c, int threads, double rawEstimate, long rows, Why why, boolean explore, boolean probe) {
        double own = rawEstimate * slots[c].factor(bucket(rows));
        return new Choice(
                devices[c],
                c,
                threads,
                where(c, threads),
                why,
                rawEstimate,
                own,
                own + devices[c].queued(),
                explore,
                probe,
                this);
    }

    /** The fallback device, fixed (placement CPU, a cpuOnly function, a fallback). */
    Choice fallback(long rows, Why why) {
        return fixed(fallback, rows, why, false);
    }

    /** A fixed choice (placement CPU/OPENCL, a requested device), with its estimate when figures are known. */
    Choice fixed(int device, long rows, Why why, boolean probe) {
        DeviceRuntime d = devices[device];
        int threads = d.splits ? fixedThreads(d, rows) : 0;
        // A batch on one thread of a device that splits batches is learnt as that device's one-thread alternative.
        int c = threads == 1 && singleOf[device] >= 0 && stands(singleOf[device], rows) ? singleOf[device] : device;
        // A fixed placement never calibrates: without figures there is no estimate (and nothing learnt).
        DeviceFigures f = d.knownFigures();
        double raw = f == null
                ? 0
                : CostModel.totalNanos(
                        f, profile, rows, d.splits ? threads : d.threadsFor(program, rows), 0, d.path(0));
        return choice(c, threads, raw, rows, why, false, probe);
    }

    /** Records a run: the measured time, learnt from unless it was the device's first run of this segment. */
    void record(Choice c, int rows, long measuredNanos) {
        Slot s = slots[c.candidate()];
        s.batches.increment();
        s.rows.add(rows);
        s.estimated.add((long) c.ownNanos());
        s.measured.add(measuredNanos);
        if (c.exploration()) {
            s.explorations.increment();
        }
        if (c.probe()) {
            s.probes.increment();
        }
        int b = bucket(rows);
        s.lastRun.setRelease(b, Math.max(1, batches.get()));
        long earned = (long) (measuredNanos * explorationShare);
        if (earned > 0 && credit.get() < MAX_CREDIT) {
            credit.addAndGet(earned);
        }
        if (!s.warmed) {
            s.warmed = true;
            // What a first run costs beyond its estimate (a JIT, a build unless it ran in the background), remembered
            // per device for exploration; learnt from AUTO's own choices only, which are what exploration makes (a
            // fixed placement's first run may include a build that AUTO would have waited for in the background).
            if (c.rawEstimateNanos() > 0 && c.why().estimated) {
                DeviceRuntime d = c.runtime();
                double over = Math.max(0, measuredNanos - c.ownNanos());
                d.firstRunNanos = d.firstRunNanos + 0.5 * (over - d.firstRunNanos);
            }
            return;
        }
        if (c.rawEstimateNanos() <= 0 || measuredNanos <= 0) {
            return;
        }
        // The device's own time: the wait behind work queued before it is the queue term's, not the device's.
        double queued = c.estimatedNanos() - c.ownNanos();
        double r = Math.max(measuredNanos - queued, measuredNanos * 0.1) / c.rawEstimateNanos();
        double old = s.learnt(b);
        if (!s.jitWarm && c.runtime().jitWarmsUp()) {
            // A new CPU loop runs interpreted, then C1-compiled, for its first few hundred thousand rows: such a
            // run says nothing about the loop's speed once compiled, which the figures estimate. Until then only
            // runs faster than the estimate teach anything.
            if (s.rows.sum() >= JIT_WARM_ROWS && s.batches.sum() >= JIT_WARM_BATCHES) {
                s.jitWarm = true;
            } else if (r > (old == old ? old : 1)) {
                return;
            }
        }
        double next = old == old ? learn(old, r, ALPHA_BUCKET) : Math.max(MIN_FACTOR, Math.min(MAX_FACTOR, r));
        s.factor.setRelease(b, Double.doubleToRawLongBits(next));
        double g = s.learnt(BUCKETS);
        s.factor.setRelease(BUCKETS, Double.doubleToRawLongBits(g == g ? learn(g, r, ALPHA_GLOBAL) : next));
    }

    /** The range of a learnt factor. */
    private static final double MIN_FACTOR = 1.0 / 400, MAX_FACTOR = 400;

    /**
     * One step of the factor towards the ratio {@code r} (measured / estimated): an exponentially
     * weighted mean, asymmetric. A device cannot run faster than it is, while a run can be slowed
     * by things that pass (a pause, page faults, a neighbour busy on the same cores), so a faster
     * run moves the factor twice as far as a slower one, and one slower run counts as at most e
     * times the factor (one odd run moves it by a factor 1 + alpha * (e - 1) at most).
     */
    private static double learn(double old, double r, double alpha) {
        double next = r < old ? old + 2 * alpha * (r - old) : old + alpha * (Math.min(r, old * Math.E) - old);
        return Math.max(MIN_FACTOR, Math.min(MAX_FACTOR, next));
    }

    void recordFallback(Choice failed) {
        slots[failed.candidate()].fallbacks.increment();
    }

    /**
     * The smallest batch from which device {@code i} is estimated faster than the CPU (learnt
     * corrections included), searched over powers of two then bisected; empty when it never is
     * below 2^31 rows.
     */
    Optional<Long> crossover(int i) {
        if (devices[i].fallback || !supports(i, program)) {
            return Optional.empty();
        }
        long lo = 0;
        for (long r = 1; r <= 1L << 31; r <<= 1) {
            if (faster(i, r)) {
                if (r == 1) {
                    return Optional.of(1L);
                }
                long a = lo, z = r; // faster at z, not at a
                while (z - a > Math.max(1, a / 64)) {
                    long m = (a + z) >>> 1;
                    if (faster(i, m)) {
                        z = m;
                    } else {
                        a = m;
                    }
                }
                return Optional.of(z);
            }
            lo = r;
        }
        return Optional.empty();
    }

    private boolean faster(int i, long rows) {
        double dev = CostModel.totalNanos(devices[i].figures(), profile, rows, 1, 0, devices[i].path(0))
                * correction(i, rows);
        // Against the fallback's best alternative at this size.
        DeviceRuntime f = devices[fallback];
        double cpu = CostModel.totalNanos(f.figures(), profile, rows, threads(fallback, rows), 0)
                * correction(fallback, rows);
        int one = singleOf[fallback];
        if (one >= 0 && stands(one, rows)) {
            cpu = Math.min(cpu, CostModel.totalNanos(f.figures(), profile, rows, 1, 0) * correction(one, rows));
        }
        return dev < cpu;
    }

    /** Per device: what ran, estimated against measured. */
    SegmentStats stats() {
        List<SegmentStats.OnDevice> on = new ArrayList<>();
        for (int i = 0; i < devices.length; i++) {
            Slot s = slots[i];
            on.add(new SegmentStats.OnDevice(
                    single[i] ? devices[i].device.name() + ", 1 thread" : devices[i].device.name(),
                    s.batches.sum(),
                    s.rows.sum(),
                    s.estimated.sum(),
                    s.measured.sum(),
                    s.explorations.sum(),
                    s.fallbacks.sum(),
                    s.probes.sum(),
                    s.factor(BUCKETS)));
        }
        return new SegmentStats(text, profile, batches.get(), List.copyOf(on));
    }
}
