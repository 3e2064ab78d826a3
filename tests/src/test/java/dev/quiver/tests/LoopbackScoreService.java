package dev.quiver.tests;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * A real HTTP score service on the loopback interface, for the tests: {@code POST /score} takes a
 * JSON array of strings (nulls allowed) and answers a JSON array of as many numbers, each the
 * string's length in code points ({@link #score}), null for a null string. Each request is
 * handled on its own virtual thread, so held requests hold up nothing else.
 *
 * <p>It counts requests and strings received and records the most requests being handled at
 * once (a request counts from its arrival until just before its answer is written, so the
 * client can never have seen the answer while the server still counts it). It can delay each
 * answer, hold every answer until {@link #release()}, and answer chosen requests (numbered from
 * 1 in order of arrival) with a given status and body. {@link #close()} releases held requests
 * and stops the server.
 */
final class LoopbackScoreService implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private record Answer(int status, String body) {}

    private final HttpServer server;
    private final ExecutorService handlers = Executors.newVirtualThreadPerTaskExecutor();
    private final Map<Integer, Answer> answers = new ConcurrentHashMap<>();
    private int requests;
    private long strings;
    private int active;
    private int peakActive;
    private volatile long delayMs;
    private volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);

    LoopbackScoreService() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/score", this::handle);
        server.setExecutor(handlers);
        server.start();
    }

    /** The score the service gives {@code text}: its length in code points (null for null). */
    static Double score(String text) {
        return text == null ? null : (double) text.codePointCount(0, text.length());
    }

    /** {@code http://127.0.0.1:<port>/score}. */
    URI endpoint() {
        InetSocketAddress a = server.getAddress();
        String host = a.getAddress() instanceof Inet6Address
                ? "[" + a.getAddress().getHostAddress() + "]"
                : a.getAddress().getHostAddress();
        return URI.create("http://" + host + ":" + a.getPort() + "/score");
    }

    /** Delays every answer by {@code ms} (after any hold). */
    LoopbackScoreService delay(long ms) {
        delayMs = ms;
        return this;
    }

    /** Holds every answer, of requests in hand and to come, until {@link #release()}. */
    LoopbackScoreService hold() {
        synchronized (this) {
            if (gate.isDone()) {
                gate = new CompletableFuture<>();
            }
        }
        return this;
    }

    /** Lets the held answers (and all later ones) go. */
    void release() {
        gate.complete(null);
    }

    /** Answers request {@code n} (from 1, in order of arrival) with {@code status} and {@code body} instead of the scores. */
    LoopbackScoreService answer(int n, int status, String body) {
        answers.put(n, new Answer(status, body));
        return this;
    }

    /** Answers request {@code n} with HTTP 500. */
    LoopbackScoreService fail(int n) {
        return answer(n, 500, "injected failure of request " + n);
    }

    synchronized int requests() {
        return requests;
    }

    synchronized long strings() {
        return strings;
    }

    /** Requests being handled now (held ones included). */
    synchronized int active() {
        return active;
    }

    /** The most requests handled at one time. */
    synchronized int peakActive() {
        return peakActive;
    }

    /** Waits until at least {@code n} requests have arrived; false on timeout. */
    boolean awaitRequests(int n, Duration timeout) throws InterruptedException {
        return await(() -> requests >= n, timeout);
    }

    /** Waits until at least {@code n} requests are being handled at once; false on timeout. */
    boolean awaitActive(int n, Duration timeout) throws InterruptedException {
        return await(() -> active >= n, timeout);
    }

    private synchronized boolean await(BooleanSupplier done, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean()) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }

    private void handle(HttpExchange exchange) throws IOException {
        int n;
        synchronized (this) {
            n = ++requests;
            peakActive = Math.max(peakActive, ++active);
            notifyAll();
        }
        boolean counted = true;
        try (exchange) {
            int status;
            byte[] body;
            if (!"POST".equals(exchange.getRequestMethod())) {
                status = 405;
                body = "POST only".getBytes(StandardCharsets.UTF_8);
            } else {
                String[] texts = JSON.readValue(exchange.getRequestBody(), String[].class);
                synchronized (this) {
                    strings += texts.length;
                }
                gate.join();
                if (delayMs > 0) {
                    Thread.sleep(delayMs);
                }
                Answer a = answers.get(n);
                if (a != null) {
                    status = a.status();
                    body = a.body().getBytes(StandardCharsets.UTF_8);
                } else {
                    Double[] scores = new Double[texts.length];
                    for (int i = 0; i < texts.length; i++) {
                        scores[i] = score(texts[i]);
                    }
                    status = 200;
                    body = JSON.writeValueAsBytes(scores);
                }
            }
            leave();
            counted = false;
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (counted) {
                leave();
            }
        }
    }

    private synchronized void leave() {
        active--;
        notifyAll();
    }

    @Override
    public void close() {
        release();
        server.stop(0);
        handlers.shutdownNow();
    }
}
