package dev.quiver.opencl;

import dev.quiver.memory.Resources;
import dev.quiver.rowfn.ir.KernelProgram;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * The compiled programs of one backend (one device, one context), keyed by
 * {@link KernelProgram#shape()}: programs that differ only in literal values share one build.
 *
 * <p>Thread-safe; each shape is built once, by the first caller, while later callers of that
 * shape wait and callers of other shapes proceed. A failed build is not remembered: the error
 * goes to the caller and the next call tries again. Once a shape is built, {@link #get} takes no
 * lock: a lock-free map lookup and a volatile read (every run of the backend passes here).
 *
 * <p>{@link #prepare} builds a shape on an executor instead, without waiting: a {@link #get} of
 * that shape meanwhile waits for that build rather than starting another. The outcome of a
 * shape's background build is remembered (a failed one too, so that a caller asking again does
 * not start build after build); a failed background build does not stop {@link #get}, which
 * tries again as after any failed build. Owns the programs; {@link #close()} releases them and
 * must not race with {@link #get} or a background build.
 */
final class ProgramCache implements AutoCloseable {
    private final ConcurrentHashMap<Object, Slot> slots = new ConcurrentHashMap<>();
    private final Function<KernelProgram, CompiledProgram> builder;

    ProgramCache(Function<KernelProgram, CompiledProgram> builder) {
        this.builder = Objects.requireNonNull(builder, "builder is null");
    }

    /** The compiled program for {@code program}'s shape, built now if it is the first of its shape. */
    CompiledProgram get(KernelProgram program) {
        return slot(program).get(program, builder);
    }

    private Slot slot(KernelProgram program) {
        Object shape = program.shape();
        // get first: computeIfAbsent may lock the map's bin even when the key is present.
        Slot slot = slots.get(shape);
        return slot != null ? slot : slots.computeIfAbsent(shape, k -> new Slot());
    }

    /** Whether the program of {@code program}'s shape is built (a lookup; builds nothing). */
    boolean isBuilt(KernelProgram program) {
        Slot slot = slots.get(program.shape());
        return slot != null && slot.program != null;
    }

    /**
     * Builds the program of {@code program}'s shape on {@code executor} unless it is built or its
     * background build was started before, and returns that build's outcome: completed at once
     * when the program is built; the future of the build in progress; or, once a background build
     * failed, that failure (the next {@link #get} tries again). Never blocks.
     */
    CompletableFuture<Void> prepare(KernelProgram program, Executor executor) {
        Slot slot = slot(program);
        if (slot.program != null) {
            return BUILT;
        }
        CompletableFuture<Void> started = slot.background.get();
        if (started != null) {
            return started;
        }
        CompletableFuture<Void> build = new CompletableFuture<>();
        if (!slot.background.compareAndSet(null, build)) {
            return slot.background.get();
        }
        try {
            executor.execute(() -> {
                try {
                    slot.get(program, builder);
                    build.complete(null);
                } catch (RuntimeException | Error e) {
                    build.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            build.completeExceptionally(e);
        }
        return build;
    }

    private static final CompletableFuture<Void> BUILT = CompletableFuture.completedFuture(null);

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
        /** The background build ({@link #prepare}), once one was asked for. */
        final AtomicReference<CompletableFuture<Void>> background = new AtomicReference<>();

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
