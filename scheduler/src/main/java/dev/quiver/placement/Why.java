package dev.quiver.placement;

/** Why a device was chosen for a batch of a segment. */
enum Why {
    PLACEMENT_CPU("placement CPU", false),
    PLACEMENT_OPENCL("placement OPENCL", false),
    REQUESTED("device requested", false),
    CPU_ONLY("a function of the segment is cpuOnly", false),
    FASTEST("auto: fastest estimate", true),
    ONLY("auto: the only device that can run it", true),
    EXPLORE("auto: exploring (the estimate was stale)", true),
    BUILDING("auto: the OpenCL kernel is still building in the background", true),
    PROBE("probing a fenced device", false),
    FENCED("every OpenCL device that can run it is fenced off", false),
    NO_MEMORY("not enough device memory: on the cpu", false),
    FALLBACK("recomputed on the cpu after the device failed", false),
    NO_KERNEL("no fused kernel: the plan runs on the calling thread", false);

    final String text;
    /**
     * Whether AUTO chose by its estimates, among devices ready to run: what exploration's
     * first-run cost ({@link DeviceRuntime#firstRunNanos}) is learnt from.
     */
    final boolean estimated;

    Why(String text, boolean estimated) {
        this.text = text;
        this.estimated = estimated;
    }
}
