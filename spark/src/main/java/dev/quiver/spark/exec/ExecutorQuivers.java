package dev.quiver.spark.exec;

import dev.quiver.CompiledProjection;
import dev.quiver.Quiver;
import dev.quiver.kernels.ArithmeticMode;
import dev.quiver.rowfn.RowFn;
import dev.quiver.spark.functions.FunctionCatalog;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The Quivers of one JVM (an executor, or the driver in local mode): one per arithmetic mode,
 * built on first use with one root allocator, closed at JVM exit. Each runs a batch on the
 * calling task's thread ({@code cpuThreads(1)}: Spark already runs a task per core);
 * {@code -Dquiver.spark.cpuThreads=N} lets a batch use up to N threads. Tasks borrow compiled
 * projections from a pool keyed by what they compute, so a compiled projection (with what its
 * placement learnt) serves many tasks but only one at a time, and its last-batch report is the
 * borrowing task's own.
 */
public final class ExecutorQuivers {
    private static final Object LOCK = new Object();
    private static RootAllocator root;
    private static final Map<ArithmeticMode, Quiver> QUIVERS = new EnumMap<>(ArithmeticMode.class);
    private static final Map<ArithmeticMode, Set<String>> REGISTERED = new EnumMap<>(ArithmeticMode.class);
    private static final Map<ProjectionKey, Deque<CompiledProjection>> POOL = new ConcurrentHashMap<>();
    private static final Map<ArithmeticMode, Quiver> VALIDATORS = new EnumMap<>(ArithmeticMode.class);
    private static final Map<ArithmeticMode, Set<String>> VALIDATOR_FUNCTIONS = new EnumMap<>(ArithmeticMode.class);

    private ExecutorQuivers() {}

    /** What a compiled projection computes. */
    public record ProjectionKey(
            Schema schema, String filter, List<String> columns, ArithmeticMode mode, List<String> providers) {}

    /** The root allocator every task allocator of this JVM descends from. */
    public static BufferAllocator root() {
        synchronized (LOCK) {
            if (root == null) {
                root = new RootAllocator();
                Runtime.getRuntime().addShutdownHook(new Thread(ExecutorQuivers::closeAll, "quiver-spark-shutdown"));
            }
            return root;
        }
    }

    /** A new allocator for one task: a child of {@link #root()}; the caller closes it, and it must then be at zero. */
    public static BufferAllocator taskAllocator(String name) {
        return root().newChildAllocator(name, 0, Long.MAX_VALUE);
    }

    /** This JVM's Quiver for {@code mode}, with the functions of {@code providers} registered. */
    public static Quiver quiver(ArithmeticMode mode, List<String> providers) {
        synchronized (LOCK) {
            Quiver q = QUIVERS.get(mode);
            if (q == null) {
                // Spark runs one task per core already: each batch on its task's thread, unless told otherwise.
                q = Quiver.builder()
                        .allocator(root())
                        .arithmetic(mode)
                        .cpuThreads(Integer.getInteger("quiver.spark.cpuThreads", 1))
                        .build();
                QUIVERS.put(mode, q);
                REGISTERED.put(mode, new HashSet<>());
            }
            return withFunctions(q, REGISTERED.get(mode), providers);
        }
    }

    /**
     * The driver's Quiver for checking plans: it only compiles (no OpenCL, no calibration), so
     * planning on a driver without devices costs nothing but the compile.
     */
    public static Quiver validator(ArithmeticMode mode, List<String> providers) {
        synchronized (LOCK) {
            Quiver q = VALIDATORS.get(mode);
            if (q == null) {
                q = Quiver.builder()
                        .allocator(root())
                        .arithmetic(mode)
                        .openCl(false)
                        .calibration(false)
                        .build();
                VALIDATORS.put(mode, q);
                VALIDATOR_FUNCTIONS.put(mode, new HashSet<>());
            }
            return withFunctions(q, VALIDATOR_FUNCTIONS.get(mode), providers);
        }
    }

    /** Which provider registered each function name, per Quiver. */
    private static final Map<Quiver, Map<String, String>> OWNERS = new IdentityHashMap<>();

    private static Quiver withFunctions(Quiver q, Set<String> done, List<String> providers) {
        Map<String, String> owners = OWNERS.computeIfAbsent(q, k -> new HashMap<>());
        for (String p : providers) {
            if (done.contains(p)) {
                continue;
            }
            List<RowFn> functions = FunctionCatalog.functions(p);
            for (RowFn f : functions) {
                for (String name : names(f)) {
                    String owner = owners.get(name);
                    if (owner != null && !owner.equals(p)) {
                        throw new IllegalStateException(
                                "function '" + name + "' is declared by both " + owner + " and " + p);
                    }
                    if (owner == null && q.functions().find(name).isPresent()) {
                        throw new IllegalStateException("function '" + name + "' of " + p
                                + " would replace Quiver's own '" + name + "': give it another name");
                    }
                }
            }
            for (RowFn f : functions) {
                for (String name : names(f)) {
                    owners.put(name, p);
                }
                q.functions().register(f);
            }
            done.add(p);
        }
        return q;
    }

    private static List<String> names(RowFn f) {
        List<String> names = new ArrayList<>();
        names.add(f.name().toLowerCase(Locale.ROOT));
        f.aliases().forEach(a -> names.add(a.toLowerCase(Locale.ROOT)));
        return names;
    }

    /** Checks that {@code provider}'s functions can be registered: no clash with Quiver's own or another provider's. */
    public static void checkFunctions(String provider) {
        validator(ArithmeticMode.CHECKED, List.of(provider));
    }

    /** A compiled projection for {@code key}, from the pool or compiled now; give it back with {@link #release}. */
    public static CompiledProjection borrow(ProjectionKey key) {
        Deque<CompiledProjection> free = POOL.computeIfAbsent(key, k -> new ArrayDeque<>());
        synchronized (free) {
            CompiledProjection p = free.pollFirst();
            if (p != null) {
                return p;
            }
        }
        Quiver q = quiver(key.mode(), key.providers());
        return q.compileProjection(key.schema(), key.filter(), key.columns());
    }

    /** Projections kept per key: one per concurrently running task, at most. */
    private static final int KEPT_PER_KEY = Math.max(2, Runtime.getRuntime().availableProcessors());
    /** Keys kept: a long-running application (a Thrift server, a stream) sees new queries forever. */
    private static final int KEPT_KEYS = 256;

    /** Gives a borrowed projection back for other tasks (or drops it when enough are kept). */
    public static void release(ProjectionKey key, CompiledProjection p) {
        Deque<CompiledProjection> free = POOL.computeIfAbsent(key, k -> new ArrayDeque<>());
        synchronized (free) {
            if (free.size() < KEPT_PER_KEY) {
                free.addFirst(p);
            }
        }
        if (POOL.size() > KEPT_KEYS) {
            // Forget some other key's idle projections: compiled again if that query comes back.
            for (ProjectionKey k : POOL.keySet()) {
                if (!k.equals(key)) {
                    POOL.remove(k);
                    if (POOL.size() <= KEPT_KEYS) {
                        break;
                    }
                }
            }
        }
    }

    /** Bytes held by all task allocators of this JVM now (0 when no task is running). */
    public static long allocatedBytes() {
        synchronized (LOCK) {
            return root == null ? 0 : root.getAllocatedMemory();
        }
    }

    private static void closeAll() {
        synchronized (LOCK) {
            POOL.clear();
            QUIVERS.values().forEach(Quiver::close);
            QUIVERS.clear();
            VALIDATORS.values().forEach(Quiver::close);
            VALIDATORS.clear();
        }
    }
}
