package dev.quiver.functions;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.commons.text.similarity.LevenshteinDistance;

/**
 * The scalar functions calls can name, by name and alias (case-insensitive). Thread-safe.
 * {@link #withDefaults()} holds the built-in functions ({@link BuiltinLibrary}); register
 * your own with {@link #register}. Registering a name that exists replaces it and logs a
 * warning (plans made before keep the function they resolved).
 */
public final class FunctionRegistry {
    private static final System.Logger LOG = System.getLogger(FunctionRegistry.class.getName());

    private final Map<String, ScalarFunction> byName = new ConcurrentHashMap<>();

    private FunctionRegistry() {}

    public static FunctionRegistry empty() {
        return new FunctionRegistry();
    }

    /** A new registry with every built-in function. */
    public static FunctionRegistry withDefaults() {
        FunctionRegistry r = new FunctionRegistry();
        for (ScalarFunction f : Builtins.LIBRARY.functions()) {
            r.register(f);
        }
        return r;
    }

    /** The built-in library, looked up once, when the first registry with defaults is made. */
    private static final class Builtins {
        static final BuiltinLibrary LIBRARY = ServiceLoader.load(
                        BuiltinLibrary.class, BuiltinLibrary.class.getClassLoader())
                .findFirst()
                .orElseThrow(
                        () -> new IllegalStateException(
                                "no " + BuiltinLibrary.class.getName() + " service:"
                                        + " Quiver's host jar provides one in META-INF/services (is its resource directory missing from the class path?)"));
    }

    /** A copy that can change without changing this one. */
    public FunctionRegistry copy() {
        FunctionRegistry r = new FunctionRegistry();
        r.byName.putAll(byName);
        return r;
    }

    /**
     * Registers {@code function} under its name and aliases.
     *
     * @return the function the name referred to before, if any
     */
    public Optional<ScalarFunction> register(ScalarFunction function) {
        Objects.requireNonNull(function, "function is null");
        String name = key(function.name());
        ScalarFunction old = byName.put(name, function);
        if (old != null && old != function) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "function ''{0}'' replaced: {1} -> {2}",
                    name,
                    old.getClass().getName(),
                    function.getClass().getName());
        }
        for (String alias : function.aliases()) {
            ScalarFunction oldAlias = byName.put(key(alias), function);
            if (oldAlias != null && oldAlias != function) {
                LOG.log(System.Logger.Level.WARNING, "function alias ''{0}'' replaced", key(alias));
            }
        }
        return Optional.ofNullable(old);
    }

    public Optional<ScalarFunction> find(String name) {
        return Optional.ofNullable(byName.get(key(name)));
    }

    /**
     * The function called {@code name}.
     *
     * @throws PlanningException when there is none, with the closest names as a hint
     */
    public ScalarFunction lookup(String name) {
        ScalarFunction f = byName.get(key(name));
        if (f == null) {
            List<String> close = suggestions(name);
            throw new PlanningException("unknown function '" + name + "'"
                    + (close.isEmpty()
                            ? ""
                            : "; did you mean "
                                    + String.join(
                                            " or ",
                                            close.stream()
                                                    .map(s -> "'" + s + "'")
                                                    .toList()) + "?")
                    + " (" + byName.size() + " functions are registered)");
        }
        return f;
    }

    /** Registered names and aliases, sorted. */
    public List<String> names() {
        return byName.keySet().stream().sorted().toList();
    }

    /** The distinct registered functions. */
    public Collection<ScalarFunction> functions() {
        return new LinkedHashSet<>(byName.values());
    }

    /** Up to three registered names closest to {@code name} (edit distance at most 2, or a prefix match). */
    List<String> suggestions(String name) {
        String k = key(name);
        LevenshteinDistance d = new LevenshteinDistance(2);
        List<String> out = new ArrayList<>();
        byName.keySet().stream()
                .map(n -> Map.entry(n, d.apply(k, n)))
                .filter(e -> e.getValue() >= 0 || (k.length() >= 3 && e.getKey().startsWith(k)))
                .sorted(Comparator.comparing((Map.Entry<String, Integer> e) -> e.getValue() < 0 ? 3 : e.getValue())
                        .thenComparing(Map.Entry::getKey))
                .limit(3)
                .forEach(e -> out.add(e.getKey()));
        return out;
    }

    private static String key(String name) {
        return name.toLowerCase(Locale.ROOT);
    }
}
