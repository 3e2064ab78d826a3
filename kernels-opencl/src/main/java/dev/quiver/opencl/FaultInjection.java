package dev.quiver.opencl;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.jocl.CL;

/**
 * Makes chosen OpenCL calls of one {@link OpenClBackend} fail, as a driver or a device would, so
 * that tests can prove what Quiver does then: every batch still correct (recomputed on the CPU),
 * the failure counted, the device fenced and probed, no OpenCL object or Arrow buffer left behind.
 *
 * <p>Off unless a test turns it on, and then only for the backend it names: with no plan, a run
 * reads one field and tests it for null. An injected failure is thrown where the real one would
 * be, as the same {@link OpenClException} (the real call's name and a real error code) after the
 * objects the run created so far are owned by it, so the release paths that run are the real ones.
 * The injected call is not made (nothing is created or enqueued by it). The exception's message
 * ends with {@code (injected fault)}.
 *
 * <pre>{@code
 * OpenClBackend gpu = quiver.openClDevices().getFirst().backend().unwrap(OpenClBackend.class).orElseThrow();
 * try (FaultInjection.Plan plan = FaultInjection.inject(gpu,
 *         FaultInjection.Fault.of(FaultInjection.Call.ENQUEUE_KERNEL).withError(CL.CL_OUT_OF_RESOURCES).times(3))) {
 *     ... evaluate batches: the first 3 kernel launches fail ...
 *     assertEquals(3, plan.fired());
 * }
 * }</pre>
 */
public final class FaultInjection {
    private FaultInjection() {}

    /** The OpenCL calls a fault can target, with the error code each fails with unless told otherwise. */
    public enum Call {
        /**
         * {@code clBuildProgram}, after {@code clCreateProgramWithSource}: the program object is
         * released. Counted once per program build; when it fires, the program is built from source
         * (and fails) even if the {@link ProgramBinaryCache} holds its binary.
         */
        BUILD_PROGRAM("clBuildProgram", CL.CL_BUILD_PROGRAM_FAILURE),
        /**
         * {@code clCreateBuffer}, every buffer of a run (arguments, output, validity, status): a
         * memory error by default, which the scheduler does not count against the device.
         */
        CREATE_BUFFER("clCreateBuffer", CL.CL_MEM_OBJECT_ALLOCATION_FAILURE),
        /** {@code clEnqueueNDRangeKernel}: the launch of a run's kernel. */
        ENQUEUE_KERNEL("clEnqueueNDRangeKernel", CL.CL_INVALID_COMMAND_QUEUE),
        /**
         * Reading results back after the kernel: {@code clEnqueueReadBuffer} (explicit transfers,
         * the status word of a fallible program) and {@code clEnqueueMapBuffer} (zero copy). By
         * default with the code a blocking read returns when a command before it failed.
         */
        READ_BACK("clEnqueueReadBuffer/clEnqueueMapBuffer", CL.CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
        /**
         * The device is lost during a run. Counts every command a run puts on the queue
         * ({@code clEnqueueWriteBuffer}, {@code clEnqueueNDRangeKernel}, {@code clEnqueueReadBuffer},
         * {@code clEnqueueMapBuffer}, {@code clEnqueueUnmapMemObject}, {@code clFinish}); when it
         * fires, that command and every later one of the same run fail (the {@code clFinish} of the
         * run's close included), while the objects are still released. {@code after(1)} on a
         * zero-copy run loses the device just after its kernel was enqueued.
         */
        DEVICE_LOST("a queue command", CL.CL_DEVICE_NOT_AVAILABLE);

        private final String calls;
        private final int defaultError;

        Call(String calls, int defaultError) {
            this.calls = calls;
            this.defaultError = defaultError;
        }

        /** The OpenCL function(s) this targets. */
        public String calls() {
            return calls;
        }

        /** The error code a fault on this call returns unless {@link Fault#withError} says otherwise. */
        public int defaultError() {
            return defaultError;
        }
    }

    /**
     * One fault: which call, with which error code, on which occurrences and how many times.
     * Occurrences of the call are counted from the plan's installation, across every thread:
     * the first {@code skip} pass; after them each one fails (with {@code probability}, drawn
     * deterministically from {@code seed} and the occurrence's number) until the fault has fired
     * {@code times} times. Immutable; build with {@link #of} and the {@code with}-methods.
     *
     * @param call        the targeted call
     * @param errorCode   the OpenCL error code it returns (negative)
     * @param skip        occurrences that pass before the first that may fail
     * @param times       how many times the fault fires at most ({@link Long#MAX_VALUE}: every time)
     * @param probability chance that an occurrence past {@code skip} fails, in (0, 1]
     * @param seed        seed of the draws when {@code probability < 1}
     */
    public record Fault(Call call, int errorCode, long skip, long times, double probability, long seed) {
        public Fault {
            Objects.requireNonNull(call, "call is null");
            if (errorCode >= 0) {
                throw new IllegalArgumentException("an OpenCL error code is negative, got " + errorCode);
            }
            if (skip < 0 || times < 1) {
                throw new IllegalArgumentException("need skip >= 0 and times >= 1, got " + skip + ", " + times);
            }
            if (!(probability > 0 && probability <= 1)) {
                throw new IllegalArgumentException("probability must be in (0, 1], got " + probability);
            }
        }

        /** The first occurrence of {@code call} fails, once, with the call's default error code. */
        public static Fault of(Call call) {
            return new Fault(call, call.defaultError(), 0, 1, 1.0, 0);
        }

        public Fault withError(int code) {
            return new Fault(call, code, skip, times, probability, seed);
        }

        /** The first {@code occurrences} occurrences pass; the next may fail. */
        public Fault after(long occurrences) {
            return new Fault(call, errorCode, occurrences, times, probability, seed);
        }

        /** Fires at most {@code n} times. */
        public Fault times(long n) {
            return new Fault(call, errorCode, skip, n, probability, seed);
        }

        /** Fires on every occurrence (past {@code skip}) until the plan is closed. */
        public Fault always() {
            return times(Long.MAX_VALUE);
        }

        /** Each occurrence fails with probability {@code p}, drawn from {@code seed} (replayable). */
        public Fault withProbability(double p, long seed) {
            return new Fault(call, errorCode, skip, times, p, seed);
        }
    }

    /**
     * Injects {@code faults} into the runs of {@code backend} from now until the returned plan is
     * closed (or another plan replaces it). Runs already in progress keep the plan they started with.
     */
    public static Plan inject(OpenClBackend backend, Fault... faults) {
        Objects.requireNonNull(backend, "backend is null");
        Plan plan = new Plan(backend.injectedFaults(), List.of(faults));
        backend.injectedFaults().install(plan);
        return plan;
    }

    /** Faults installed on one backend, with how often each occurrence was seen and each fault fired. */
    public static final class Plan implements AutoCloseable {
        private final InjectedFaults installedOn;
        private final List<Fault> faults;
        private final AtomicLong[] seen;
        private final AtomicLong[] fired;

        private Plan(InjectedFaults installedOn, List<Fault> faults) {
            this.installedOn = installedOn;
            this.faults = faults;
            this.seen = new AtomicLong[faults.size()];
            this.fired = new AtomicLong[faults.size()];
            for (int i = 0; i < seen.length; i++) {
                seen[i] = new AtomicLong();
                fired[i] = new AtomicLong();
            }
        }

        public List<Fault> faults() {
            return faults;
        }

        /** How many times the fault at {@code index} fired. */
        public long fired(int index) {
            return fired[index].get();
        }

        /** How many times the faults fired, all together. */
        public long fired() {
            long n = 0;
            for (AtomicLong f : fired) {
                n += f.get();
            }
            return n;
        }

        /** How many occurrences of the call of the fault at {@code index} were seen. */
        public long seen(int index) {
            return seen[index].get();
        }

        /**
         * An occurrence of {@code call}: the error code it must fail with, or 0 to let it run. The
         * first fault of the plan on that call that fires decides.
         */
        int occurrence(Call call) {
            int code = 0;
            for (int i = 0; i < faults.size(); i++) {
                Fault f = faults.get(i);
                if (f.call() != call) {
                    continue;
                }
                long n = seen[i].getAndIncrement();
                if (code != 0 || n < f.skip() || f.probability() < 1 && draw(f.seed(), n) >= f.probability()) {
                    continue;
                }
                if (fired[i].getAndUpdate(k -> k < f.times() ? k + 1 : k) < f.times()) {
                    code = f.errorCode();
                }
            }
            return code;
        }

        /** Throws the injected failure of {@code call} (named {@code name}), if one fires now. */
        void check(Call call, String name) {
            int code = occurrence(call);
            if (code != 0) {
                throw injected(name, code);
            }
        }

        /** Uninstalls the plan, if it is still the backend's. */
        @Override
        public void close() {
            installedOn.clear(this);
        }

        @Override
        public String toString() {
            List<String> parts = new ArrayList<>();
            for (int i = 0; i < faults.size(); i++) {
                parts.add(faults.get(i) + " seen " + seen[i].get() + ", fired " + fired[i].get());
            }
            return "FaultInjection.Plan" + parts;
        }
    }

    /** Throws the injected failure of {@code call} (named {@code name}) if {@code plan} is not null and one fires now. */
    static void check(Plan plan, Call call, String name) {
        if (plan != null) {
            plan.check(call, name);
        }
    }

    /** The exception a failed {@code call} throws, marked as injected. */
    static OpenClException injected(String call, int code) {
        return new OpenClException(call, code, "(injected fault)");
    }

    /** A uniform draw in [0, 1) from the seed and the occurrence number (SplitMix64's finalizer). */
    private static double draw(long seed, long n) {
        long z = seed + (n + 1) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return (z >>> 11) * 0x1.0p-53;
    }
}
