package dev.quiver.spark;

import dev.quiver.Quiver;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

import java.util.Objects;

/**
 * The one {@link Quiver} of this JVM (a Spark executor or the driver), created on first use with
 * its own {@link RootAllocator} and closed by a JVM shutdown hook. Tasks allocate from child
 * allocators of that root ({@link #taskAllocator}), so that each task can check it freed what it
 * allocated.
 *
 * <p>The instance evaluates each batch on the calling thread ({@code cpuThreads(1)}): Spark
 * already runs one task per core. {@code -Dquiver.spark.cpuThreads=N} lets a batch use up to
 * {@code N} threads instead.
 */
public final class QuiverRuntime {
    private static final Object LOCK = new Object();
    private static volatile Runtime runtime;

    private record Runtime(RootAllocator root, Quiver quiver) {
    }

    private QuiverRuntime() {
    }

    /** The JVM's Quiver, created on the first call. Do not close it: the shutdown hook does. */
    public static Quiver get() {
        return getOrCreate().quiver();
    }

    /**
     * A new allocator for one task, a child of the runtime's root with no limit of its own; the
     * caller closes it once everything allocated from it is closed.
     */
    public static BufferAllocator taskAllocator(String name) {
        Objects.requireNonNull(name, "name is null");
        return getOrCreate().root().newChildAllocator(name, 0, Long.MAX_VALUE);
    }

    /** The bytes every task allocator of this JVM holds now; 0 before the runtime exists. */
    public static long allocatedBytes() {
        Runtime r = runtime;
        return r == null ? 0 : r.root().getAllocatedMemory();
    }

    private static Runtime getOrCreate() {
        Runtime r = runtime;
        if (r != null) {
            return r;
        }
        synchronized (LOCK) {
            if (runtime == null) {
                RootAllocator root = new RootAllocator();
                Quiver quiver;
                try {
                    quiver = Quiver.builder().allocator(root).cpuThreads(Integer.getInteger("quiver.spark.cpuThreads", 1)).build();
                } catch (RuntimeException | Error e) {
                    root.close();
                    throw e;
                }
                Runtime created = new Runtime(root, quiver);
                java.lang.Runtime.getRuntime().addShutdownHook(new Thread(() -> close(created), "quiver-runtime-shutdown"));
                runtime = created;
            }
            return runtime;
        }
    }

    private static void close(Runtime r) {
        try {
            r.quiver().close();
            r.root().close();
        } catch (RuntimeException e) {
            // A task still running at exit holds its allocator; the process ends anyway.
            System.getLogger(QuiverRuntime.class.getName()).log(System.Logger.Level.WARNING,
                    "closing Quiver at JVM exit: " + e.getMessage());
        }
    }
}
