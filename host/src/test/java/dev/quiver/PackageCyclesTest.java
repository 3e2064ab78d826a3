package dev.quiver;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.expr.Expr;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.constantpool.ClassEntry;
import java.lang.classfile.constantpool.PoolEntry;
import java.lang.classfile.constantpool.Utf8Entry;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The packages of host's main classes depend on each other without a cycle: each package can be read, tested and
 * changed with only the packages below it. The graph is read from the compiled classes, as {@code jdeps} reads it:
 * every class a class file names in its constant pool (the classes it uses, and the types of the descriptors and
 * generic signatures of its fields and methods). A failure prints a cycle and, per edge, the classes that make it.
 */
class PackageCyclesTest {
    private static final String ROOT = "dev/quiver/";
    /** A class named inside a descriptor or signature: {@code Ldev/quiver/types/DataType;} or {@code ...<}. */
    private static final Pattern NAMED = Pattern.compile("L(" + ROOT + "[\\w/$]+)[;<]");

    @Test
    void hostPackagesHaveNoCycle() {
        SortedMap<String, SortedMap<String, SortedSet<String>>> graph = packageGraph(hostClasses());
        assertTrue(
                graph.size() >= 10 && graph.get("dev.quiver.expr").containsKey("dev.quiver.types"),
                "the class files were not all read: " + graph.keySet());
        List<String> cycle = firstCycle(graph);
        if (!cycle.isEmpty()) {
            StringBuilder why = new StringBuilder("host's packages depend on each other in a cycle: ")
                    .append(String.join(" -> ", cycle));
            for (int i = 0; i + 1 < cycle.size(); i++) {
                SortedSet<String> uses = graph.get(cycle.get(i)).get(cycle.get(i + 1));
                why.append("\n  ")
                        .append(cycle.get(i))
                        .append(" -> ")
                        .append(cycle.get(i + 1))
                        .append(": ")
                        .append(String.join(", ", uses.stream().limit(8).toList()))
                        .append(uses.size() > 8 ? ", ... (" + uses.size() + " in all)" : "");
            }
            fail(why.append("\nMove the class that makes the edge back to the package it belongs to, or give the lower"
                            + " package an interface the upper one implements.")
                    .toString());
        }
    }

    /** The directory (or jar) host's main classes were loaded from. */
    private static Path hostClasses() {
        try {
            return Path.of(Expr.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Package to package it uses to the uses ({@code Class -> Class}) that make that edge; only dev.quiver's own. */
    static SortedMap<String, SortedMap<String, SortedSet<String>>> packageGraph(Path classes) {
        SortedMap<String, SortedMap<String, SortedSet<String>>> graph = new TreeMap<>();
        try (FileSystem jar = Files.isDirectory(classes) ? null : FileSystems.newFileSystem(classes)) {
            Path root = jar == null ? classes : jar.getPath("/");
            try (Stream<Path> files = Files.walk(root)) {
                for (Path file :
                        files.filter(f -> f.toString().endsWith(".class")).toList()) {
                    ClassModel model = ClassFile.of().parse(Files.readAllBytes(file));
                    String self = model.thisClass().asInternalName();
                    if (!self.startsWith(ROOT)) {
                        continue;
                    }
                    String from = packageOf(self);
                    graph.computeIfAbsent(from, p -> new TreeMap<>());
                    for (String used : namedClasses(model)) {
                        String to = packageOf(used);
                        if (!to.equals(from)) {
                            graph.get(from)
                                    .computeIfAbsent(to, p -> new TreeSet<>())
                                    .add(simpleName(self) + " -> " + simpleName(used));
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return graph;
    }

    /** The dev.quiver classes {@code model}'s constant pool names (internal names). */
    private static Set<String> namedClasses(ClassModel model) {
        Set<String> out = new TreeSet<>();
        for (PoolEntry entry : model.constantPool()) {
            switch (entry) {
                case ClassEntry c -> {
                    String name = c.asInternalName();
                    if (name.startsWith(ROOT)) {
                        out.add(name);
                    } else {
                        addNamed(name, out); // an array class: [Ldev/quiver/...;
                    }
                }
                case Utf8Entry u -> addNamed(u.stringValue(), out);
                default -> {}
            }
        }
        return out;
    }

    private static void addNamed(String text, Set<String> out) {
        if (text.contains(ROOT)) {
            Matcher m = NAMED.matcher(text);
            while (m.find()) {
                out.add(m.group(1));
            }
        }
    }

    private static String packageOf(String internalName) {
        return internalName.substring(0, internalName.lastIndexOf('/')).replace('/', '.');
    }

    private static String simpleName(String internalName) {
        return internalName.substring(internalName.lastIndexOf('/') + 1);
    }

    /** A cycle of the graph as its packages, the first repeated at the end; empty when there is none. */
    static List<String> firstCycle(SortedMap<String, SortedMap<String, SortedSet<String>>> graph) {
        // Depth first, without recursion: a package still on the path that is reached again closes a cycle.
        Map<String, Integer> state = new HashMap<>(); // absent: unvisited, 1: on the path, 2: done
        for (String start : graph.keySet()) {
            if (state.containsKey(start)) {
                continue;
            }
            Deque<String> path = new ArrayDeque<>();
            Deque<List<String>> pending = new ArrayDeque<>();
            path.push(start);
            pending.push(new ArrayList<>(edges(graph, start)));
            state.put(start, 1);
            while (!path.isEmpty()) {
                List<String> next = pending.peek();
                if (next.isEmpty()) {
                    state.put(path.pop(), 2);
                    pending.pop();
                    continue;
                }
                String to = next.removeFirst();
                Integer s = state.get(to);
                if (s == null) {
                    path.push(to);
                    pending.push(new ArrayList<>(edges(graph, to)));
                    state.put(to, 1);
                } else if (s == 1) {
                    List<String> cycle = new ArrayList<>();
                    for (String p : path.reversed()) {
                        if (p.equals(to) || !cycle.isEmpty()) {
                            cycle.add(p);
                        }
                    }
                    cycle.add(to);
                    return cycle;
                }
            }
        }
        return List.of();
    }

    private static Set<String> edges(SortedMap<String, SortedMap<String, SortedSet<String>>> graph, String from) {
        return graph.getOrDefault(from, new TreeMap<>()).keySet();
    }
}
