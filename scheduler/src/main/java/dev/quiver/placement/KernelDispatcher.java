package dev.quiver.placement;

import dev.quiver.Device;
import dev.quiver.Placement;
import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.backend.ResidencyScope;
import dev.quiver.backend.ResidentKey;
import dev.quiver.backend.RowMode;
import dev.quiver.cancel.Cancellation;
import dev.quiver.errors.CancelledException;
import dev.quiver.errors.DeviceException;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.errors.ResourceException;
import dev.quiver.memory.OutputVectors;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.memory.VectorView;
import dev.quiver.physical.DictionaryDecodeExpr;
import dev.quiver.physical.FusedKernelExpr;
import dev.quiver.physical.KernelExecutor;
import dev.quiver.physical.PhysicalExpr;
import dev.quiver.planning.PhysicalPlan;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.KernelProgram;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * The per-batch placement of one compiled expression's fused kernels, end to end: for each kernel
 * an evaluation runs, it allocates the output, views the Arrow buffers, computes the validity of
 * strict programs, keys resident arguments, decides the device (the placement, a requested
 * device, a cpuOnly function, or AUTO's {@link SegmentScheduler}), runs it there with the
 * device's queue and memory accounted, and on a device failure recomputes the batch on the
 * fallback device and tells the device's health; then it records the run (learning, metrics).
 *
 * <p>{@link #choose} and EXPLAIN's placement section ({@link PlacementExplain}) ask the same
 * decision in its side-effect-free mode, so what they show is what the next batch does.
 *
 * <p>Thread-safe: evaluations on many threads share it; each has its own {@link Evaluation}.
 */
public final class KernelDispatcher {
    private final Devices devices;
    private final PhysicalPlan plan;
    private final Field outputField;
    private final KernelProgram rootProgram;
    private final RunRecorder recorder;
    private final ProgramSupport support = new ProgramSupport();
    /** One scheduler per kernel segment of the plan, in plan order (outermost first). */
    private final Map<FusedKernelExpr, SegmentScheduler> segments = new IdentityHashMap<>();

    private final List<SegmentScheduler> segmentList = new ArrayList<>();
    /** Schedulers for programs run without their segment (an executor called directly). */
    private final Map<KernelProgram, SegmentScheduler> loose = new ConcurrentHashMap<>();
    /** The dictionary decodes of the plan: their dictionaries' values are constant inputs (resident keys by contents). */
    private final List<DictionaryDecodeExpr> decodes = new ArrayList<>();

    /**
     * @param outputField the field of the expression's result: the outermost kernel of a fully fused
     *                    plan writes the result vector itself
     */
    public KernelDispatcher(Devices devices, PhysicalPlan plan, Field outputField, RunRecorder recorder) {
        this.devices = devices;
        this.plan = plan;
        this.outputField = outputField;
        this.recorder = recorder;
        this.rootProgram = plan.root() instanceof FusedKernelExpr f ? f.program() : null;
        for (PhysicalExpr e : PhysicalPlan.preOrder(plan.root())) {
            collect(e);
        }
    }

    private void collect(PhysicalExpr e) {
        if (e instanceof DictionaryDecodeExpr d && !decodes.contains(d)) {
            decodes.add(d);
        }
        if (e instanceof FusedKernelExpr f && !segments.containsKey(f)) {
            List<String> cpuOnly = new ArrayList<>();
            for (RowFn r : f.rowFns()) {
                if (r.isCpuOnly()) {
                    cpuOnly.add(r.name());
                }
            }
            SegmentScheduler s = new SegmentScheduler(
                    support,
                    f.program().text(),
                    f.program(),
                    cpuOnly.isEmpty() ? null : String.join(", ", cpuOnly),
                    devices);
            segments.put(f, s);
            segmentList.add(s);
        }
    }

    Devices devices() {
        return devices;
    }

    /** The plan's dictionary decodes, in plan order. */
    public List<DictionaryDecodeExpr> decodes() {
        return decodes;
    }

    List<SegmentScheduler> segments() {
        return segmentList;
    }

    /**
     * An evaluation whose kernels go where {@code placement} says; {@code shared}: the caller's
     * residency scope for the batch, or null for one of this evaluation alone.
     */
    public Evaluation evaluation(Placement placement, ResidencyScope shared) {
        return new Evaluation(this, placement, null, shared);
    }

    /**
     * An evaluation whose every kernel runs on {@code device}, with no fallback (a cpuOnly segment
     * still runs on the fallback device).
     *
     * @throws DeviceException when the device cannot run one of the plan's programs
     */
    public Evaluation evaluationOn(Device device) {
        for (KernelProgram p : plan.programs()) {
            unsupportedOn(device, p).ifPresent(r -> {
                throw new DeviceException(device.name() + " cannot run " + p.text() + ": " + r);
            });
        }
        return new Evaluation(this, null, devices.runtime(device), null);
    }

    /** Why {@code device} cannot run {@code program}, or empty. */
    public Optional<String> unsupportedOn(Device device, KernelProgram program) {
        return support.unsupportedOn(device, program);
    }

    private SegmentScheduler scheduler(FusedKernelExpr segment, KernelProgram program) {
        SegmentScheduler s = segment == null ? null : segments.get(segment);
        if (s != null) {
            return s;
        }
        return loose.computeIfAbsent(program, p -> new SegmentScheduler(support, p.text(), p, null, devices));
    }

    /**
     * The device {@code placement} picks for a batch of {@code rows} rows, for the outermost
     * kernel, and why, as the next batch would see it (without exploring or probing).
     */
    public Choice choose(Placement placement, int rows) {
        if (segmentList.isEmpty()) {
            SegmentScheduler none =
                    new SegmentScheduler(support, "(none)", new KernelProgram(List.of(), Ir.lit(0.0)), null, devices);
            return none.fallback(rows, Why.NO_KERNEL);
        }
        SegmentScheduler s = segmentList.getFirst();
        return decide(s, placement, null, s.program, rows, true, null);
    }

    /** Per kernel segment, in plan order: what ran where, estimated against measured. */
    public List<SegmentStats> stats() {
        return segmentList.stream().map(SegmentScheduler::stats).toList();
    }

    KernelExecutor.Result runKernel(
            FusedKernelExpr fused,
            Evaluation evaluation,
            KernelProgram program,
            List<FieldVector> inputs,
            int rows,
            BufferAllocator allocator,
            RowMode mode) {
        SegmentScheduler segment = scheduler(fused, program);
        Placement placement = evaluation.placement;
        DeviceRuntime requested = evaluation.requested;
        Cancellation.check(); // before each kernel of the tree (a segment may run its body more than once)
        if (placement == Placement.AUTO && requested == null) {
            devices.ensureCalibrated(); // once: calibrating is not the scheduler's time per batch
        }
        Field field = program == rootProgram
                ? outputField
                : new Field("result", FieldType.nullable(program.resultType().arrowType()), null);
        FieldVector out;
        try {
            out = allocate(field, rows, allocator);
        } catch (RuntimeException e) {
            evaluation.kernelDevice = deviceFor(segment, placement, requested, program, rows);
            evaluation.failedDevice = null;
            throw e;
        }
        List<VectorView> views = new ArrayList<>(inputs.size() + 1);
        Choice choice = null;
        boolean verdict = false;
        try {
            List<MemorySegment> args = new ArrayList<>(inputs.size());
            List<MemorySegment> validities = new ArrayList<>();
            for (FieldVector in : inputs) {
                VectorView view = VectorView.of(in);
                views.add(view);
                args.add(view.data());
                if (in.getNullCount() > 0) {
                    validities.add(view.validity());
                }
            }
            VectorView outView = VectorView.of(out);
            views.add(outView);
            // A non-strict program decides every row's validity itself (its null condition).
            List<MemorySegment> strictInputs = program.isStrict() ? validities : List.of();
            ValidityBitmaps.and(outView.validity(), strictInputs, rows);
            List<ResidentKey> keys = evaluation.residentKeys(program, inputs, views, rows);
            KernelInvocation invocation =
                    new KernelInvocation(args, outView.validity(), outView.data(), rows, mode, keys);
            // Everything that can fail before the device runs has run: a probe claimed now always gets a verdict.
            // The scheduler times itself on a sample of runs: two clock reads cost a tenth of a decision.
            boolean timed = ThreadLocalRandom.current().nextInt(RunRecorder.SAMPLE) == 0;
            long t0 = timed ? System.nanoTime() : 0;
            choice = decide(segment, placement, requested, program, rows, false, resident(invocation));
            evaluation.kernelDevice = choice.device();
            evaluation.failedDevice = null;
            long t1 = timed ? System.nanoTime() : 0;
            DeviceRuntime device = choice.runtime();
            long t2 = System.nanoTime();
            KernelRun run;
            try {
                run = execute(device, choice, program, invocation, rows);
                verdict = true;
            } catch (CancelledException e) {
                throw e; // between the chunks of a run: no fault of the device, and nothing to recompute
            } catch (KernelArithmeticException e) {
                // A row of the data failed (the same on every device): the device itself worked.
                device.health.success(choice.probe());
                verdict = true;
                throw e;
            } catch (RuntimeException e) {
                if (device.fallback || requested != null) {
                    throw e;
                }
                // The device could not run the batch: it is recomputed on the fallback, with the same result.
                String what = device.device.name() + ": " + e.getMessage();
                boolean memory = device.backend.isOutOfDeviceMemory(e);
                if (memory) {
                    // Out of device memory: the batch goes to the CPU, later batches get less of the device.
                    device.health.memoryFallback(what);
                    device.shrinkMemoryBudget((long) (rows * segment.profile.bytesPerRow()));
                } else if (e instanceof IllegalArgumentException || e instanceof UnsupportedOperationException) {
                    // This batch does not fit the device (a buffer over its limit): no fault of the device.
                    device.health.releaseProbe();
                } else {
                    device.health.failure(what, choice.probe());
                }
                verdict = true;
                segment.recordFallback(choice);
                recorder.fellBack(device.device, memory);
                ValidityBitmaps.and(outView.validity(), strictInputs, rows);
                choice = segment.fallback(rows, Why.FALLBACK);
                evaluation.kernelDevice = choice.device();
                evaluation.failedDevice = device.device;
                t2 = System.nanoTime();
                run = execute(choice.runtime(), choice, program, invocation, rows);
            }
            long t3 = System.nanoTime();
            segment.record(choice, rows, t3 - t2);
            recorder.ran(choice.device(), rows, run, choice);
            evaluation.ran(choice.device(), run);
            if (timed) {
                recorder.scheduled(t1 - t0 + System.nanoTime() - t3);
            }
            evaluation.kernelDevice = null;
            evaluation.failedDevice = null;
            return new KernelExecutor.Result(
                    out, run.rowsComputed(), choice.device().name());
        } catch (RuntimeException | Error e) {
            if (choice != null && choice.probe() && !verdict) {
                choice.runtime().health.releaseProbe();
            }
            out.close();
            throw e;
        } finally {
            for (VectorView v : views) {
                v.close();
            }
        }
    }

    private FieldVector allocate(Field field, int rows, BufferAllocator allocator) {
        try {
            return OutputVectors.uninitialized(field, rows, allocator);
        } catch (RuntimeException e) {
            throw new ResourceException(
                    "cannot allocate the " + rows + "-row result of " + outputField.getName() + " from allocator '"
                            + allocator.getName() + "': " + e.getMessage(),
                    e);
        }
    }

    /** The device a kernel whose output could not be allocated would have run on, as the next batch would see it. */
    private Device deviceFor(
            SegmentScheduler segment, Placement placement, DeviceRuntime requested, KernelProgram program, int rows) {
        try {
            return decide(segment, placement, requested, program, rows, true, null)
                    .device();
        } catch (RuntimeException e) {
            return devices.fallback().device; // OPENCL with no device that can run it: that error comes later anyway
        }
    }

    /** Runs the batch on {@code device}, with its queue, memory in flight and health accounted (none for the fallback). */
    private static KernelRun execute(
            DeviceRuntime device, Choice choice, KernelProgram program, KernelInvocation invocation, int rows) {
        invocation = invocation.withThreads(choice.threads());
        if (device.fallback) {
            return device.backend.execute(program, invocation);
        }
        long queued = (long) choice.ownNanos();
        long bytes = device.copies ? (long) (rows * choice.segment().profile.bytesPerRow()) : 0;
        device.queuedNanos.addAndGet(queued);
        if (bytes > 0) {
            device.bytesInFlight.addAndGet(bytes);
        }
        try {
            KernelRun run = device.backend.execute(program, invocation);
            device.health.success(choice.probe());
            if (bytes > 0) {
                device.growMemoryBudget();
            }
            return run;
        } finally {
            device.queuedNanos.addAndGet(-queued);
            if (bytes > 0) {
                device.bytesInFlight.addAndGet(-bytes);
            }
        }
    }

    /** Per device, the bytes of the invocation's arguments on it already; null when no argument has a resident key. */
    private long[] resident(KernelInvocation invocation) {
        if (invocation.resident().isEmpty()) {
            return null;
        }
        DeviceRuntime[] all = devices.all();
        long[] bytes = new long[all.length];
        for (int i = 0; i < all.length; i++) {
            bytes[i] = all[i].residentBytes(invocation);
        }
        return bytes;
    }

    /**
     * The decision for a batch of {@code rows} rows of {@code program} in {@code segment}.
     * {@code peek}: no side effects (nothing counted, explored, probed or built), for EXPLAIN and
     * {@link #choose}; {@code resident}: bytes of the batch already on each device, or null.
     */
    Choice decide(
            SegmentScheduler s,
            Placement placement,
            DeviceRuntime requested,
            KernelProgram program,
            int rows,
            boolean peek,
            long[] resident) {
        if (s.cpuOnly != null) {
            // Even on a requested device: the function's author said it must never leave the CPU.
            return s.fallback(rows, Why.CPU_ONLY);
        }
        if (requested != null) {
            return s.fixed(requested.index, rows, Why.REQUESTED, false);
        }
        return switch (placement) {
            case CPU -> s.fallback(rows, Why.PLACEMENT_CPU);
            case AUTO -> s.auto(program, rows, peek, resident);
            case OPENCL -> s.openCl(program, rows, peek);
        };
    }
}
