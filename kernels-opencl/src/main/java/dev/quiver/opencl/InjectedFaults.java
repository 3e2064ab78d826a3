package dev.quiver.opencl;

/**
 * Where one backend keeps the {@link FaultInjection.Plan} a test installed on it: the only
 * fault-injection state of the production path. Null outside tests; a run reads it once, as it
 * starts, and hands it to the few points a plan can target ({@link KernelLaunch}'s OpenCL calls,
 * the uploads of {@link ResidentBuffers}, the slots of {@link StagingPool}, the program builds of
 * {@link ProgramBuilds}), each of which then tests it for null.
 */
final class InjectedFaults {
    private volatile FaultInjection.Plan plan;

    /** The plan installed now, or null: always, outside tests. */
    FaultInjection.Plan current() {
        return plan;
    }

    /** Installs {@code plan} in place of any other ({@link FaultInjection#inject}). */
    synchronized void install(FaultInjection.Plan plan) {
        this.plan = plan;
    }

    /** Removes {@code plan} if it is still the one installed. */
    synchronized void clear(FaultInjection.Plan plan) {
        if (this.plan == plan) {
            this.plan = null;
        }
    }
}
