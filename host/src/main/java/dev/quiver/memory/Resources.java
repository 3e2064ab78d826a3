package dev.quiver.memory;

import org.apache.arrow.util.AutoCloseables;

/** Releasing several resources at once. */
public final class Resources {
    private Resources() {}

    /**
     * Closes every resource in order, even when some fail; the first failure is rethrown with
     * the later ones attached as suppressed exceptions (Arrow's {@link AutoCloseables#close}).
     * A checked failure is wrapped in an {@link IllegalStateException}.
     */
    public static void closeAll(Iterable<? extends AutoCloseable> resources) {
        try {
            AutoCloseables.close(resources);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("closing resources failed: " + e.getMessage(), e);
        }
    }
}
