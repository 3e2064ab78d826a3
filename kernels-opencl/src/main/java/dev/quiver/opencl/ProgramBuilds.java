package dev.quiver.opencl;

import dev.quiver.expr.ExprThreads;
import dev.quiver.rowfn.ir.KernelProgram;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.jocl.cl_command_queue;
import org.jocl.cl_context;

/**
 * The programs of one backend: each shape built once, on demand by the first run that needs it
 * ({@link #get}, through the in-memory {@link ProgramCache}) or ahead of it on the backend's
 * build thread ({@link #prepare}, {@link #isReady}); loaded from the backend's
 * {@link ProgramBinaryCache} when it holds the binary, else built from source and the binary
 * stored there (by the build thread, after the build); counted ({@link #stats()}). Owns the
 * compiled programs and the build thread (one daemon thread, started on first use):
 * {@link #stopBuilds()} ends the thread, {@link #close()} releases the programs.
 */
final class ProgramBuilds implements AutoCloseable {
    private static final String CORRECTLY_ROUNDED_FP32 = "-cl-fp32-correctly-rounded-divide-sqrt";
    private static final System.Logger LOG = System.getLogger(ProgramBuilds.class.getName());

    private final OpenClDevice device;
    private final String name;
    private final ClObject<cl_context> context;
    private final ClObject<cl_command_queue> queue;
    private final ClObjectCounts counts;
    private final ProgramBinaryCache binaries;
    private final InjectedFaults faults;
    private final ProgramCache programs;
    /** Programs built from source, loaded from {@link #binaries}, binaries rejected, binaries stored. */
    private final LongAdder built = new LongAdder(),
            loaded = new LongAdder(),
            rejected = new LongAdder(),
            stored = new LongAdder();
    /** The build thread, started by the first background task; guarded by {@link #buildsLock}. */
    private ExecutorService builds;
    /** The thread of {@link #builds}, once started. */
    private volatile Thread buildThread;
    /** Set by {@link #stopBuilds()}: builds, background or not, then fail. Guarded by {@link #buildsLock}. */
    private boolean buildsClosed;

    private final Object buildsLock = new Object();

    /** The programs of the backend {@code name} on {@code device}, built in its context and checked on its queue. */
    ProgramBuilds(
            OpenClDevice device,
            String name,
            ClObject<cl_context> context,
            ClObject<cl_command_queue> queue,
            ClObjectCounts counts,
            ProgramBinaryCache binaries,
            InjectedFaults faults) {
        this.device = device;
        this.name = name;
        this.context = context;
        this.queue = queue;
        this.counts = counts;
        this.binaries = binaries;
        this.faults = faults;
        // The source generator recurses over the program's tree: on a thread with a stack for that.
        this.programs = new ProgramCache(p -> compile(ExprThreads.call(() -> KernelSource.of(p))));
    }

    /** The compiled program of {@code program}'s shape, built now if it is the first of its shape. */
    CompiledProgram get(KernelProgram program) {
        return programs.get(program);
    }

    /**
     * Builds {@code source} for this device, bypassing the in-memory {@link ProgramCache}; the
     * caller closes the result. Loads the binary from the {@link ProgramBinaryCache} when it has
     * one (a binary it rejects, or the driver does, is deleted and the source built instead);
     * otherwise builds the source and stores the binary, later, from the build thread. Build
     * options never relax IEEE semantics (no fast math); correctly rounded Float32 division and
     * square root are asked for where the device has them. An injected {@code BUILD_PROGRAM}
     * fault fails the build from source, as before there was a cache.
     */
    CompiledProgram compile(KernelSource source) {
        synchronized (buildsLock) {
            if (buildsClosed) {
                throw new IllegalStateException("backend " + name + " is closed");
            }
        }
        String options = buildOptions();
        FaultInjection.Plan plan = faults.current();
        int injected = plan == null ? 0 : plan.occurrence(FaultInjection.Call.BUILD_PROGRAM);
        String key = injected == 0 && binaries.enabled() ? programKey(source) : null;
        if (key != null) {
            switch (binaries.load(key)) {
                case ProgramBinaryCache.Lookup.Found found -> {
                    try {
                        CompiledProgram p = CompiledProgram.load(
                                context.handle(), queue.handle(), device.id(), source, options, found.binary(), counts);
                        loaded.increment();
                        return p;
                    } catch (OpenClException e) {
                        rejected.increment();
                        binaries.discard(key, e.getMessage());
                    }
                }
                case ProgramBinaryCache.Lookup.Rejected _ -> rejected.increment();
                case ProgramBinaryCache.Lookup.Absent _ -> {}
            }
        }
        CompiledProgram p =
                CompiledProgram.build(context.handle(), queue.handle(), device.id(), source, options, counts, injected);
        built.increment();
        if (key != null && binaries.writable()) {
            if (Thread.currentThread() == buildThread) {
                store(p, key); // a background build: no batch runs this program yet, nor waits for it
            } else {
                storeLater(p, key);
            }
        }
        return p;
    }

    private String buildOptions() {
        return device.fp32CorrectlyRoundedDivideSqrt() ? CORRECTLY_ROUNDED_FP32 : "";
    }

    /** The key of {@code source}'s program on this device in the {@link ProgramBinaryCache}. */
    String programKey(KernelSource source) {
        return ProgramBinaryCache.key(device, source.text(), buildOptions());
    }

    /**
     * Stores {@code program}'s binary as {@code key} from the build thread, so that the batch
     * that built it does not wait: reading a binary back may compile (PoCL: tens to hundreds of
     * milliseconds). Binaries not stored by the time the backend closes are stored by close.
     */
    private void storeLater(CompiledProgram program, String key) {
        if (!program.hold()) {
            return;
        }
        try {
            inBackground(() -> {
                try {
                    store(program, key);
                } finally {
                    program.releaseHold();
                }
            });
        } catch (RejectedExecutionException e) {
            program.releaseHold(); // closing: the program is not stored
        }
    }

    private void store(CompiledProgram program, String key) {
        try {
            if (binaries.store(key, program.binary())) {
                stored.increment();
            }
        } catch (RuntimeException e) {
            LOG.log(
                    System.Logger.Level.DEBUG,
                    () -> "the binary of a program built on " + name + " could not be read back, so it is not cached: "
                            + e.getMessage());
        }
    }

    /** Runs {@code task} on the build thread (started now if it is the first); throws {@link RejectedExecutionException} once closing. */
    private void inBackground(Runnable task) {
        ExecutorService executor;
        synchronized (buildsLock) {
            if (buildsClosed) {
                throw new RejectedExecutionException("backend " + name + " is closed");
            }
            if (builds == null) {
                ThreadFactory named = Thread.ofPlatform()
                        .daemon()
                        .name("quiver-opencl-build " + device.name())
                        .factory();
                builds = Executors.newSingleThreadExecutor(r -> {
                    Thread t = named.newThread(r);
                    buildThread = t;
                    return t;
                });
            }
            executor = builds;
        }
        executor.execute(task);
    }

    /** Whether the program of {@code program}'s shape is built: its runs start without a build. */
    boolean isReady(KernelProgram program) {
        return programs.isBuilt(program);
    }

    /**
     * Builds the program of {@code program}'s shape on the build thread unless it is built or was
     * asked for before; never waits. Fails at once when {@code program} is unsupported on the
     * device. See {@link OpenClBackend#prepareAsync}.
     */
    CompletableFuture<Void> prepare(KernelProgram program) {
        Objects.requireNonNull(program, "program is null");
        if (programs.isBuilt(program)) {
            return CompletableFuture.completedFuture(null);
        }
        Optional<String> unsupported = DeviceSupport.unsupportedReason(device, program);
        if (unsupported.isPresent()) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException(unsupported.get()));
        }
        return programs.prepare(program, this::inBackground);
    }

    /** What this backend did to get its programs. */
    OpenClBackend.ProgramStats stats() {
        return new OpenClBackend.ProgramStats(built.sum(), loaded.sum(), rejected.sum(), stored.sum());
    }

    /** Where this backend keeps built programs. */
    ProgramBinaryCache cache() {
        return binaries;
    }

    /** How many programs are built. */
    int size() {
        return programs.size();
    }

    /**
     * Stops the build thread after the tasks it was given (builds not started yet fail; binaries
     * waiting to be stored are stored), and waits for it. Builds asked for afterwards fail at once.
     */
    void stopBuilds() {
        ExecutorService executor;
        synchronized (buildsLock) {
            buildsClosed = true;
            executor = builds;
        }
        if (executor == null) {
            return;
        }
        executor.shutdown();
        boolean interrupted = false;
        while (true) {
            try {
                if (executor.awaitTermination(1, TimeUnit.MINUTES)) {
                    break;
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Releases the compiled programs; after {@link #stopBuilds()}, and once no run is in progress. */
    @Override
    public void close() {
        programs.close();
    }
}
