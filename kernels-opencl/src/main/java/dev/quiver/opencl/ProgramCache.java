package dev.quiver.opencl;

import dev.quiver.memory.Resources;
import dev.quiver.rowfn.ir.KernelProgram;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The compiled programs of one backend (one device, one context), keyed by
 * {@link KernelProgram#shape()}: programs that differ only in literal values share one build.
 *
 * <p>Thread-safe; each shape is built once, by the first caller, while later callers of that
 * shape wait and callers of other shapes proceed. A failed build is not remembered: the error
 * goes to the caller and the next call tries again. Once a shape is built, {@link #get} takes no
 * lock: a lock-free map lookup and a volatile read (every run of the backend passes here). Owns
 * the programs; {@link #close()} releases them and must not race with {@link #get}.
 */
final class ProgramCache implements AutoCloseable {
    private final ConcurrentHashMap<Object, Slot> slots = new ConcurrentHashMap<>();
    private final Function<KernelProgram, CompiledProgram> builder;

    ProgramCache(Function<KernelProgram, CompiledProgram> builder) {
        this.builder = Objects.requireNonNull(builder, "builder is null");
    }

    /** The compiled program for {@code program}'s shape, built now if it is the first of its shape. */
    CompiledProgram get(KernelProgram program) {
        Object shape = program.shape();
        // get first: computeIfAbsent may lock the map's bin even when the key is present.
        Slot slot = slots.get(shape);
        if (slot == null) {
            slot = slots.computeIfAbsent(shape, k -> new Slot());
        }
        return slot.get(program, builder);
    }

    /** How many programs are built. */
    int size() {
        int built = 0;
        for (Slot slot : slots.values()) {
            if (slot.built() != null) {
                built++;
            }
        }
        return built;
    }

    @Override
    public void close() {
        List<CompiledProgram> built = new ArrayList<>();
        for (Slot slot : slots.values()) {
            CompiledProgram p = slot.built();
            if (p != null) {
                built.add(p);
            }
        }
        slots.clear();
        Resources.closeAll(built);
    }

    /**
     * One shape's program. Read lock-free once built (double-checked on a volatile field); built
     * under the slot's own lock, so a slow build blocks only callers of its own shape, and a
     * failed build leaves the field null for the next caller to try again.
     */
    private static final class Slot {
        private volatile CompiledProgram program;

        CompiledProgram get(KernelProgram source, Function<KernelProgram, CompiledProgram> builder) {
            CompiledProgram p = program;
            if (p != null) {
                return p;
            }
            synchronized (this) {
                p = program;
                if (p == null) {
                    p = Objects.requireNonNull(builder.apply(source), "the builder returned no program");
                    program = p;
                }
                return p;
            }
        }

        CompiledProgram built() {
            return program;
        }
    }
}
