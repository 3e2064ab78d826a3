package dev.quiver.stream;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Regroups a stream of record batches of one schema into batches of exactly
 * {@code targetRows} rows (the last one may be shorter), keeping the row order.
 *
 * <pre>{@code
 * try (BatchCoalescer c = new BatchCoalescer(schema, 8192, allocator)) {
 *     for (VectorSchemaRoot in : input) {
 *         c.push(in);                                  // c owns `in` now
 *         for (VectorSchemaRoot out; (out = c.pollFull()) != null; ) {
 *             try (out) { consume(out); }              // the caller owns `out`
 *         }
 *     }
 *     for (VectorSchemaRoot out; (out = c.poll(8192)) != null; ) {
 *         try (out) { consume(out); }                  // the rest: at most one short batch
 *     }
 * }
 * }</pre>
 *
 * <h2>Ownership</h2>
 * {@link #push} takes over the pushed batch; the coalescer closes it once all its rows have
 * been handed out (or on {@link #close()}). Every batch {@link #poll} returns is the caller's to
 * close, independently of the coalescer and of the other batches: it may be closed before or
 * after the coalescer is.
 *
 * <h2>Memory</h2>
 * The coalescer holds only the pushed batches that still have rows to hand out, and never
 * copies a row twice: a polled batch is either a pushed batch itself (when it has exactly the
 * rows asked for), a zero-copy {@link Batches#slice slice} of one (sharing its buffers; only
 * bit-packed validity/{@code Bit} data at an offset that is not a multiple of 8, and rebased
 * variable-width and list offsets, are re-packed), or, when the rows span several pushed batches, a
 * {@link Batches#concat(List, org.apache.arrow.memory.BufferAllocator) concatenation} that
 * copies each row once, straight from the pushed batches (through temporary zero-copy slices
 * that are closed before {@code poll} returns). So the memory in use is bounded by what was
 * pushed plus what was polled and not yet closed. A slice keeps its pushed batch's buffers
 * alive until the slice is closed, so close polled batches promptly.
 *
 * <p>Not thread-safe: one coalescer per stream, used by one thread at a time.
 */
public final class BatchCoalescer implements AutoCloseable {
    private final Schema schema;
    private final int targetRows;
    private final BufferAllocator allocator;
    /** Pushed batches with rows still to hand out, oldest first. */
    private final ArrayDeque<VectorSchemaRoot> pending = new ArrayDeque<>();
    /** Rows of the head of {@link #pending} already handed out. */
    private int headOffset;

    private int bufferedRows;
    private boolean closed;

    /**
     * A coalescer for batches of {@code schema}.
     *
     * @param schema     the schema every pushed batch must have (and every polled batch has)
     * @param targetRows the rows of a full output batch, {@code >= 1}
     * @param allocator  the allocator of the slices and concatenations this coalescer makes;
     *                   it must share a root allocator with the pushed batches' allocators.
     *                   Borrowed: the caller closes it, after the coalescer and its outputs
     * @throws IllegalArgumentException when {@code targetRows < 1}
     */
    public BatchCoalescer(Schema schema, int targetRows, BufferAllocator allocator) {
        this.schema = Objects.requireNonNull(schema, "schema is null");
        this.allocator = Objects.requireNonNull(allocator, "allocator is null");
        if (targetRows < 1) {
            throw new IllegalArgumentException("targetRows must be >= 1, got " + targetRows);
        }
        this.targetRows = targetRows;
    }

    /**
     * The schema of the stream.
     *
     * @return the schema every pushed and every polled batch has
     */
    public Schema schema() {
        return schema;
    }

    /**
     * The size of a full output batch.
     *
     * @return the rows of a full output batch
     */
    public int targetRows() {
        return targetRows;
    }

    /**
     * Appends a batch's rows to the buffered rows.
     *
     * <p>Takes ownership of {@code batch} in every case: the coalescer closes it once its rows
     * have all been handed out or on {@link #close()}; a batch of zero rows is closed at once
     * and ignored; and when this method throws, {@code batch} has been closed too. The caller
     * must not use or close {@code batch} after this call (except a batch that {@code poll}
     * later returns as is, which the caller then owns again).
     *
     * @param batch consumed; its schema must equal {@link #schema()}
     * @throws IllegalArgumentException when the batch's schema differs, or a vector's value count
     *                                  differs from its row count (the batch is closed)
     * @throws IllegalStateException    when the coalescer is closed, or the buffered rows would
     *                                  exceed {@link Integer#MAX_VALUE} (the batch is closed)
     */
    public void push(VectorSchemaRoot batch) {
        Objects.requireNonNull(batch, "batch is null");
        try {
            if (closed) {
                throw new IllegalStateException("the coalescer is closed");
            }
            if (!schema.getFields().equals(batch.getSchema().getFields())) { // metadata aside
                throw new IllegalArgumentException(
                        "batch schema " + batch.getSchema() + " differs from the coalescer's " + schema);
            }
            int rows = batch.getRowCount();
            for (FieldVector v : batch.getFieldVectors()) {
                if (v.getValueCount() != rows) {
                    throw new IllegalArgumentException("the batch has " + rows + " rows but its column " + v.getName()
                            + " has " + v.getValueCount() + " values");
                }
            }
            if ((long) bufferedRows + rows > Integer.MAX_VALUE) {
                throw new IllegalStateException("buffering " + rows + " more rows would exceed " + Integer.MAX_VALUE
                        + " (" + bufferedRows + " buffered): poll first");
            }
            if (rows == 0) {
                batch.close();
                return;
            }
            pending.addLast(batch);
            bufferedRows += rows;
        } catch (RuntimeException | Error e) {
            Batches.closeOnFailure(e, List.of(batch));
            throw e;
        }
    }

    /**
     * The rows pushed and not yet handed out.
     *
     * @return the buffered rows (0 once closed)
     */
    public int bufferedRows() {
        return bufferedRows;
    }

    /**
     * Whether a full batch can be polled.
     *
     * @return {@code bufferedRows() >= targetRows()}
     */
    public boolean hasFull() {
        return bufferedRows >= targetRows;
    }

    /**
     * Removes the first {@code min(maxRows, bufferedRows())} buffered rows and returns them as
     * one batch, or {@code null} when no rows are buffered.
     *
     * <p>When the oldest pushed batch holds exactly those rows (none of it handed out yet) it is
     * returned itself (zero copy); when it holds at least that many, a slice of it is returned
     * and the rest stays buffered; otherwise the rows of several pushed batches are
     * concatenated. The result has schema {@link #schema()}; a pushed batch returned itself
     * keeps its own allocator, slices and concatenations are made in the coalescer's.
     *
     * <p>On failure (say {@link org.apache.arrow.memory.OutOfMemoryException}) nothing is
     * removed, nothing allocated by this call is left allocated, and the call may be retried.
     *
     * @param maxRows the most rows to return, {@code >= 1}
     * @return a batch of {@code 1..maxRows} rows owned by the caller, who closes it; or null
     * @throws IllegalArgumentException when {@code maxRows < 1}
     * @throws IllegalStateException    when the coalescer is closed
     */
    public VectorSchemaRoot poll(int maxRows) {
        if (maxRows < 1) {
            throw new IllegalArgumentException("maxRows must be >= 1, got " + maxRows);
        }
        if (closed) {
            throw new IllegalStateException("the coalescer is closed");
        }
        int rows = Math.min(maxRows, bufferedRows);
        if (rows == 0) {
            return null;
        }
        VectorSchemaRoot head = pending.getFirst();
        int headRows = head.getRowCount() - headOffset;
        if (headOffset == 0 && headRows == rows) {
            pending.removeFirst();
            bufferedRows -= rows;
            return head;
        }
        if (headRows >= rows) {
            VectorSchemaRoot out = Batches.slice(head, headOffset, rows, allocator);
            consumed(rows);
            return out;
        }
        List<VectorSchemaRoot> parts = new ArrayList<>();
        List<VectorSchemaRoot> slices = new ArrayList<>();
        VectorSchemaRoot out;
        try {
            int left = rows;
            int offset = headOffset;
            for (Iterator<VectorSchemaRoot> it = pending.iterator(); left > 0; offset = 0) {
                VectorSchemaRoot b = it.next();
                int take = Math.min(b.getRowCount() - offset, left);
                if (offset == 0 && take == b.getRowCount()) {
                    parts.add(b); // borrowed whole, no slice needed
                } else {
                    VectorSchemaRoot s = Batches.slice(b, offset, take, allocator);
                    slices.add(s);
                    parts.add(s);
                }
                left -= take;
            }
            out = Batches.concat(parts, allocator);
        } catch (RuntimeException | Error e) {
            Batches.closeOnFailure(e, slices);
            throw e;
        }
        for (VectorSchemaRoot s : slices) {
            s.close();
        }
        consumed(rows);
        return out;
    }

    /**
     * A full batch: {@link #poll(int) poll(targetRows())} when {@link #hasFull()}, else null.
     *
     * @return a batch of exactly {@link #targetRows()} rows owned by the caller, or null
     * @throws IllegalStateException when the coalescer is closed
     */
    public VectorSchemaRoot pollFull() {
        if (closed) {
            throw new IllegalStateException("the coalescer is closed");
        }
        return hasFull() ? poll(targetRows) : null;
    }

    /**
     * Closes every buffered batch (their rows are dropped). Batches already polled stay valid
     * and remain the caller's to close. Idempotent; after it, {@code push} and {@code poll}
     * throw {@link IllegalStateException}.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<VectorSchemaRoot> all = new ArrayList<>(pending);
        pending.clear();
        bufferedRows = 0;
        headOffset = 0;
        RuntimeException failure = null;
        for (VectorSchemaRoot b : all) {
            try {
                b.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Drops the first {@code rows} buffered rows (already handed out), closing the batches they empty. */
    private void consumed(int rows) {
        bufferedRows -= rows;
        int left = rows;
        while (left > 0) {
            VectorSchemaRoot head = pending.getFirst();
            int headRows = head.getRowCount() - headOffset;
            if (left < headRows) {
                headOffset += left;
                return;
            }
            left -= headRows;
            pending.removeFirst();
            headOffset = 0;
            head.close();
        }
    }
}
