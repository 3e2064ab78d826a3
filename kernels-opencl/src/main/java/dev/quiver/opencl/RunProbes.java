package dev.quiver.opencl;

/**
 * Callbacks into one run, for tests that prove where the kernel reads and writes
 * ({@link OpenClBackend#executeProbed}): {@code afterBind} once every buffer exists and before the
 * kernel is enqueued; {@code afterKernel} once the kernel has finished and before the output is
 * mapped or read back. A probed run goes as one launch ({@link SingleLaunch}); a plain run has none.
 */
record RunProbes(Runnable afterBind, Runnable afterKernel) {}
