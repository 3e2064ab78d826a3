package dev.quiver.opencl;

import dev.quiver.backend.ResidencyScope;
import dev.quiver.backend.ResidentKey;
import dev.quiver.memory.Resources;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import org.jocl.CL;
import org.jocl.Pointer;
import org.jocl.cl_context;
import org.jocl.cl_mem;

/**
 * The arguments one backend keeps in its device's memory beyond a run (see {@link ResidentKey}):
 * uploaded once, reused by every run that names the same key, within a byte budget. When a new
 * argument does not fit, the least recently used ones that no run is using are released; an
 * argument larger than the whole budget is not kept (the run uploads it as usual). Scoped
 * entries go when their {@link ResidencyScope} closes; the rest when evicted or on
 * {@link #close()}.
 *
 * <p>Thread-safe: one lock around the map (held for lookups and bookkeeping, never during an
 * upload). A run pins what it uses ({@link #acquire}) and unpins it once its commands have
 * finished ({@link Lease#close()}), so no buffer is released under a running kernel. Two runs
 * asking for the same new key upload it once: the second waits for the first's upload.
 */
final class ResidentBuffers implements AutoCloseable {
    private final cl_context context;
    private final ClObjectCounts counts;
    private final HashMap<ResidentKey, Entry> entries = new HashMap<>();
    /** Ticks of use: an entry's {@link Entry#lastUse} orders eviction (least recently used first). */
    private long clock;

    private final Consumer<ResidencyScope> dropScope = this::drop;
    private volatile long budget;
    private long bytes;
    private boolean closed;
    private long uploads, uploadedBytes, hits, evictions;

    ResidentBuffers(cl_context context, ClObjectCounts counts, long budget) {
        this.context = context;
        this.counts = counts;
        budget(budget);
    }

    /**
     * Device memory kept for resident arguments unless configured: {@code -Dquiver.opencl.residentBytes},
     * default a fifth of {@code device}'s global memory.
     */
    static long defaultBudget(OpenClDevice device) {
        String given = System.getProperty("quiver.opencl.residentBytes");
        if (given != null) {
            try {
                return Long.parseLong(given.strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "-Dquiver.opencl.residentBytes must be a number of bytes, got '" + given + "'");
            }
        }
        return device.globalMemoryBytes() / 5;
    }

    /** Sets the budget; unpinned entries over a lowered one go now, least recently used first. */
    void budget(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("the resident budget must be >= 0 bytes, got " + bytes);
        }
        synchronized (this) {
            this.budget = bytes;
            makeRoom(0);
        }
    }

    long budget() {
        return budget;
    }

    /** One argument on the device for one run; close it once the run's commands have finished. */
    final class Lease implements AutoCloseable {
        final Entry entry;
        /** The bytes this run uploaded for it: its size for the run that uploaded it, else 0. */
        final long uploaded;

        private boolean closed;

        Lease(Entry entry, long uploaded) {
            this.entry = entry;
            this.uploaded = uploaded;
        }

        cl_mem mem() {
            return entry.mem.handle();
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                unpin(entry);
            }
        }
    }

    static final class Entry {
        final ResidentKey key;
        final CompletableFuture<Void> ready = new CompletableFuture<>();
        ClObject<cl_mem> mem;
        int pins;
        long lastUse;
        /** Removed from the map while pinned: released when the last pin goes. */
        boolean removed;

        Entry(ResidentKey key) {
            this.key = key;
        }
    }

    /**
     * The device copy of {@code data} under {@code key}, pinned for the caller: uploaded now when
     * absent. Null when it cannot be kept (larger than the budget, everything else pinned, its
     * scope already closed, or the upload by another run failed): then the caller uploads it for
     * its run alone. Throws when this run's own upload fails.
     */
    Lease acquire(ResidentKey key, MemorySegment data, FaultInjection.Plan faults) {
        Entry e;
        boolean load = false;
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("the resident buffers are closed");
            }
            e = entries.get(key);
            if (e != null) {
                e.pins++;
                e.lastUse = ++clock;
            } else {
                if (key.bytes() > budget
                        || key.bytes() == 0
                        || key.scope() != null && key.scope().isClosed()
                        || !makeRoom(key.bytes())) {
                    return null;
                }
                if (key.scope() != null && !key.scope().onClose(dropScope)) {
                    return null;
                }
                e = new Entry(key);
                e.pins = 1;
                e.lastUse = ++clock;
                entries.put(key, e);
                bytes += key.bytes();
                load = true;
            }
        }
        if (load) {
            try {
                e.mem = upload(data, key.bytes(), faults);
            } catch (RuntimeException | Error failure) {
                synchronized (this) {
                    if (!e.removed && entries.get(key) == e) {
                        entries.remove(key);
                        bytes -= key.bytes();
                    }
                    e.removed = true;
                    e.pins = 0;
                }
                e.ready.completeExceptionally(failure);
                throw failure;
            }
            synchronized (this) {
                uploads++;
                uploadedBytes += key.bytes();
            }
            e.ready.complete(null);
            return new Lease(e, key.bytes());
        }
        try {
            e.ready.join();
        } catch (CompletionException failed) {
            return null; // that upload failed and took its entry with it
        }
        synchronized (this) {
            hits++;
        }
        return new Lease(e, 0);
    }

    /** A read-only device buffer holding a copy of {@code bytes} of {@code data}, made by the create call itself. */
    private ClObject<cl_mem> upload(MemorySegment data, long bytes, FaultInjection.Plan faults) {
        FaultInjection.check(faults, FaultInjection.Call.CREATE_BUFFER, "clCreateBuffer");
        int[] err = new int[1];
        cl_mem mem = CL.clCreateBuffer(
                context,
                CL.CL_MEM_READ_ONLY | CL.CL_MEM_COPY_HOST_PTR,
                bytes,
                Pointer.to(data.asSlice(0, bytes).asByteBuffer()),
                err);
        return ClObject.created(
                mem,
                err,
                "clCreateBuffer",
                CL::clReleaseMemObject,
                "clReleaseMemObject",
                counts,
                ClObjectCounts.Kind.HELD);
    }

    /**
     * Evicts unpinned entries, least recently used first, until {@code more} bytes fit; returns
     * false when they would not fit even with every unpinned entry gone (then only what exceeds the
     * budget already is evicted).
     */
    private boolean makeRoom(long more) {
        if (bytes + more <= budget) {
            return true;
        }
        List<Entry> unpinned = new ArrayList<>();
        long pinned = bytes;
        for (Entry e : entries.values()) {
            if (e.pins == 0) {
                pinned -= e.key.bytes();
                unpinned.add(e);
            }
        }
        boolean fits = pinned + more <= budget;
        long need = fits ? more : 0; // when it cannot fit, evict only what a lowered budget no longer holds
        unpinned.sort(Comparator.comparingLong(e -> e.lastUse));
        for (Entry e : unpinned) {
            if (bytes + need <= budget) {
                break;
            }
            entries.remove(e.key);
            e.removed = true;
            bytes -= e.key.bytes();
            evictions++;
            release(e);
        }
        return fits;
    }

    private synchronized void unpin(Entry e) {
        if (--e.pins == 0 && e.removed) {
            release(e);
        }
    }

    /** Drops every entry of {@code scope} (it closed): released now, or by the last run still using it. */
    synchronized void drop(ResidencyScope scope) {
        for (Iterator<Entry> it = entries.values().iterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (e.key.scope() == scope) {
                it.remove();
                e.removed = true;
                bytes -= e.key.bytes();
                if (e.pins == 0) {
                    release(e);
                }
            }
        }
    }

    /**
     * Releases an entry's buffer. A failing release is logged, not thrown: it happens when a scope
     * closes, a budget evicts or another run unpins, none of which should fail for it.
     */
    private static void release(Entry e) {
        if (e.mem != null) {
            try {
                e.mem.close();
            } catch (RuntimeException failure) {
                System.getLogger(ResidentBuffers.class.getName())
                        .log(
                                System.Logger.Level.WARNING,
                                "releasing a resident buffer failed: " + failure.getMessage(),
                                failure);
            }
        }
    }

    /** The bytes of {@code keys} (nulls skipped) on the device now. */
    synchronized long residentBytes(List<ResidentKey> keys) {
        long sum = 0;
        for (ResidentKey k : keys) {
            Entry e = k == null ? null : entries.get(k);
            if (e != null && e.ready.isDone() && !e.ready.isCompletedExceptionally()) {
                sum += k.bytes();
            }
        }
        return sum;
    }

    synchronized ResidentStats stats() {
        return new ResidentStats(entries.size(), bytes, budget, uploads, uploadedBytes, hits, evictions);
    }

    /** Releases every entry; runs must have ended. */
    @Override
    public void close() {
        List<Entry> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(entries.values());
            entries.clear();
            bytes = 0;
        }
        Resources.closeAll(
                all.stream().<AutoCloseable>map(e -> () -> release(e)).toList());
    }
}
