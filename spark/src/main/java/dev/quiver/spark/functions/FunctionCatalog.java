package dev.quiver.spark.functions;

import dev.quiver.rowfn.RowFn;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The RowFns of each {@link QuiverFunctions} class, built once per JVM (driver or executor) by
 * class name, so that plans and expressions carry only names across the cluster.
 */
public final class FunctionCatalog {
    private static final Map<String, List<RowFn>> BY_PROVIDER = new ConcurrentHashMap<>();

    private FunctionCatalog() {}

    /** The functions of the provider class {@code className}, instantiated on first use in this JVM. */
    public static List<RowFn> functions(String className) {
        Objects.requireNonNull(className, "className is null");
        return BY_PROVIDER.computeIfAbsent(className, FunctionCatalog::load);
    }

    /** The function {@code name} of provider {@code className}. */
    public static RowFn function(String className, String name) {
        for (RowFn f : functions(className)) {
            if (f.name().equalsIgnoreCase(name) || f.aliases().stream().anyMatch(a -> a.equalsIgnoreCase(name))) {
                return f;
            }
        }
        throw new IllegalArgumentException(
                "Quiver function provider " + className + " declares no function '" + name + "'");
    }

    private static List<RowFn> load(String className) {
        try {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            Class<?> c =
                    Class.forName(className, true, loader != null ? loader : FunctionCatalog.class.getClassLoader());
            if (!QuiverFunctions.class.isAssignableFrom(c)) {
                throw new IllegalArgumentException(
                        className + " does not implement " + QuiverFunctions.class.getName());
            }
            List<RowFn> functions = ((QuiverFunctions) c.getConstructor().newInstance()).functions();
            return List.copyOf(functions);
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException(
                    "cannot load Quiver function provider " + className
                            + " (a public class with a public no-argument constructor, on the driver's and the executors' classpath): "
                            + e,
                    e);
        }
    }
}
