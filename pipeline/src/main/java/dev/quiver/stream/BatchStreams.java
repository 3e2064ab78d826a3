package dev.quiver.stream;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/** Sources of batches, and ways to consume a stream. */
public final class BatchStreams {
    private BatchStreams() {}

    /**
     * A stream of the batches {@code batches} yields, which it hands over: each batch belongs to
     * the stream, then to its consumer. {@code iterator.next()} runs on {@code executor} when the
     * consumer asks, never ahead of it. Closing the stream closes an {@link AutoCloseable}
     * iterator.
     */
    public static BatchStream fromIterator(Schema schema, Iterator<VectorSchemaRoot> batches, Executor executor) {
        return new IteratorStream(schema, batches, executor);
    }

    /** A stream of {@code count} batches made by {@code make} (batch index in, a new batch out), on demand. */
    public static BatchStream generate(
            Schema schema, int count, IntFunction<VectorSchemaRoot> make, Executor executor) {
        Objects.requireNonNull(make, "make is null");
        return fromIterator(
                schema,
                new Iterator<>() {
                    int i;

                    @Override
                    public boolean hasNext() {
                        return i < count;
                    }

                    @Override
                    public VectorSchemaRoot next() {
                        return make.apply(i++);
                    }
                },
                executor);
    }

    /**
     * A stream of an Arrow IPC reader's batches: each loaded batch is transferred into a new
     * root from {@code allocator}'s side of the reader (no copy). Closing the stream closes the
     * reader.
     */
    public static BatchStream fromReader(ArrowReader reader, Executor executor) {
        Schema schema;
        try {
            schema = reader.getVectorSchemaRoot().getSchema();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Iterator<VectorSchemaRoot> it = new ReaderIterator(reader);
        return fromIterator(schema, it, executor);
    }

    /**
     * Consumes {@code stream} to its end without blocking a thread: {@code consumer} sees each
     * batch (which is closed after it returns); the future gives the rows seen. On failure the
     * stream is closed and the future fails with the cause.
     */
    public static CompletableFuture<Long> forEach(BatchStream stream, Consumer<VectorSchemaRoot> consumer) {
        CompletableFuture<Long> done = new CompletableFuture<>();
        pull(stream, consumer, 0, done);
        return done;
    }

    /**
     * Handles batches in a loop while the stream answers at once, and from the completion of
     * the first answer that is not there yet: the stack does not grow with the stream.
     */
    private static void pull(
            BatchStream stream, Consumer<VectorSchemaRoot> consumer, long rows, CompletableFuture<Long> done) {
        long n = rows;
        while (true) {
            CompletableFuture<VectorSchemaRoot> next;
            try {
                next = stream.next();
            } catch (RuntimeException | Error e) {
                finish(stream, done, 0, e);
                return;
            }
            if (!next.isDone()) {
                long seen = n;
                next.whenComplete((batch, failure) -> {
                    long after = handle(stream, consumer, seen, done, batch, failure);
                    if (after >= 0) {
                        pull(stream, consumer, after, done);
                    }
                });
                return;
            }
            VectorSchemaRoot batch = null;
            Throwable failure = null;
            try {
                batch = next.join();
            } catch (CompletionException | CancellationException e) {
                failure = e;
            }
            n = handle(stream, consumer, n, done, batch, failure);
            if (n < 0) {
                return;
            }
        }
    }

    /** One answer of the stream: the rows seen so far, or -1 when {@code done} has been completed. */
    private static long handle(
            BatchStream stream,
            Consumer<VectorSchemaRoot> consumer,
            long rows,
            CompletableFuture<Long> done,
            VectorSchemaRoot batch,
            Throwable failure) {
        if (failure != null) {
            finish(stream, done, rows, Operator.unwrap(failure));
            return -1;
        }
        if (batch == null) {
            finish(stream, done, rows, null);
            return -1;
        }
        long n = rows + batch.getRowCount();
        try (batch) {
            consumer.accept(batch);
        } catch (RuntimeException | Error e) {
            finish(stream, done, rows, e);
            return -1;
        }
        if (done.isDone()) { // cancelled by the caller
            Operator.closeQuietly(stream);
            return -1;
        }
        return n;
    }

    /** Closes the stream, then completes {@code done}, whatever closing does. */
    private static void finish(BatchStream stream, CompletableFuture<Long> done, long rows, Throwable failure) {
        try {
            stream.close();
        } catch (RuntimeException e) {
            if (failure != null) {
                failure.addSuppressed(e);
            } else {
                failure = e;
            }
        }
        if (failure != null) {
            done.completeExceptionally(failure);
        } else {
            done.complete(rows);
        }
    }

    /**
     * Blocks the calling thread (not a worker) until {@code stream} ends, handing each batch to
     * {@code consumer}; returns the rows seen. Use {@link #forEach} from asynchronous code.
     */
    public static long drain(BatchStream stream, Consumer<VectorSchemaRoot> consumer) {
        try {
            return forEach(stream, consumer).join();
        } catch (CompletionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException r) {
                throw r;
            }
            if (c instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    private static final class IteratorStream extends Operator {
        private final Iterator<VectorSchemaRoot> batches;

        IteratorStream(Schema schema, Iterator<VectorSchemaRoot> batches, Executor executor) {
            super(
                    Objects.requireNonNull(schema, "schema is null"),
                    Objects.requireNonNull(executor, "executor is null"),
                    new OperatorMetrics());
            this.batches = Objects.requireNonNull(batches, "batches is null");
        }

        @Override
        protected CompletableFuture<VectorSchemaRoot> produce() {
            return CompletableFuture.supplyAsync(
                    () -> {
                        synchronized (batches) {
                            if (closed) {
                                throw new CancellationException("the stream was closed");
                            }
                            if (!batches.hasNext()) {
                                return null;
                            }
                            VectorSchemaRoot b =
                                    Objects.requireNonNull(batches.next(), "the source yielded a null batch");
                            if (!Operator.sameFields(b.getSchema(), schema)) {
                                Schema got = b.getSchema();
                                b.close();
                                throw new IllegalStateException(
                                        "the source yielded a batch of schema " + got + ", not " + schema);
                            }
                            return b;
                        }
                    },
                    executor);
        }

        @Override
        protected void release() {
            if (batches instanceof AutoCloseable c) {
                synchronized (batches) {
                    try {
                        c.close();
                    } catch (Exception e) {
                        throw new IllegalStateException("closing the source failed: " + e.getMessage(), e);
                    }
                }
            }
        }
    }

    private static final class ReaderIterator implements Iterator<VectorSchemaRoot>, AutoCloseable {
        private final ArrowReader reader;
        private Boolean loaded;

        ReaderIterator(ArrowReader reader) {
            this.reader = reader;
        }

        @Override
        public boolean hasNext() {
            if (loaded == null) {
                try {
                    loaded = reader.loadNextBatch();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return loaded;
        }

        @Override
        public VectorSchemaRoot next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            loaded = null;
            try {
                VectorSchemaRoot root = reader.getVectorSchemaRoot();
                List<FieldVector> out = new ArrayList<>();
                for (FieldVector v : root.getFieldVectors()) {
                    var tp = v.getTransferPair(v.getAllocator());
                    tp.transfer();
                    out.add((FieldVector) tp.getTo());
                }
                VectorSchemaRoot b =
                        new VectorSchemaRoot(root.getSchema(), out, root.getRowCount()); // keeps the metadata
                return b;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void close() throws IOException {
            reader.close();
        }
    }
}
