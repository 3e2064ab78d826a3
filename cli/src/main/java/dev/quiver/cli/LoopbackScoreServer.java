package dev.quiver.cli;

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
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * The score service {@code quiver bench --async} calls: a JDK {@link HttpServer} on the loopback
 * interface. {@code POST /score} takes a JSON array of strings and answers a JSON array of as
 * many numbers, each string's length in code points (null for a null string), after a fixed
 * latency per request. Each request is handled on its own virtual thread, which sleeps through
 * the latency, so a waiting request holds no platform thread and any number of them can wait at
 * once. It counts the requests and strings it received. Its connections send without delay
 * (TCP_NODELAY, {@value #NODELAY}), as a real service's would.
 */
final class LoopbackScoreServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The JDK server's switch for TCP_NODELAY on its connections, read once, when the JVM's first server starts. */
    static final String NODELAY = "sun.net.httpserver.nodelay";

    static {
        // Off by default: then, measured on Linux, every request of over 64 KB (a whole 8192-row batch of strings)
        // waits about 44 ms for its answer, whatever the latency asked for (Nagle's algorithm meets delayed ACKs),
        // and a one-row request takes 0.45 ms instead of 0.3 ms. A -D on the command line wins.
        if (System.getProperty(NODELAY) == null) {
            System.setProperty(NODELAY, "true");
        }
    }

    private final HttpServer server;
    private final ExecutorService handlers = Executors.newVirtualThreadPerTaskExecutor();
    private final Duration latency;
    private final Function<String, Integer> score;
    private long requests;
    private long strings;

    /** A server on an ephemeral loopback port that delays every answer by {@code latencyNanos}. */
    LoopbackScoreServer(long latencyNanos) throws IOException {
        this(latencyNanos, LoopbackScoreServer::score);
    }

    /** As {@link #LoopbackScoreServer(long)}, scoring with {@code score} (the tests give it a wrong one). */
    LoopbackScoreServer(long latencyNanos, Function<String, Integer> score) throws IOException {
        this.score = Objects.requireNonNull(score, "score is null");
        if (latencyNanos < 0) {
            throw new IllegalArgumentException("latency must be >= 0, got " + latencyNanos + " ns");
        }
        this.latency = Duration.ofNanos(latencyNanos);
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/score", this::handle);
        server.setExecutor(handlers);
        server.start();
    }

    /** The score the service gives {@code text}: its length in code points (null for null). */
    static Integer score(String text) {
        return text == null ? null : text.codePointCount(0, text.length());
    }

    /** {@code http://127.0.0.1:<port>/score}. */
    URI endpoint() {
        InetSocketAddress a = server.getAddress();
        String host = a.getAddress() instanceof Inet6Address
                ? "[" + a.getAddress().getHostAddress() + "]"
                : a.getAddress().getHostAddress();
        return URI.create("http://" + host + ":" + a.getPort() + "/score");
    }

    /** Requests received so far. */
    synchronized long requests() {
        return requests;
    }

    /** Strings received so far, over all requests. */
    synchronized long strings() {
        return strings;
    }

    private void handle(HttpExchange exchange) throws IOException {
        synchronized (this) {
            requests++;
        }
        try (exchange) {
            int status;
            byte[] body;
            if (!"POST".equals(exchange.getRequestMethod())) {
                status = 405;
                body = "POST only".getBytes(StandardCharsets.UTF_8);
            } else {
                String[] texts = JSON.readValue(exchange.getRequestBody(), String[].class);
                Integer[] scores = new Integer[texts.length];
                for (int i = 0; i < texts.length; i++) {
                    scores[i] = score.apply(texts[i]);
                }
                synchronized (this) {
                    strings += texts.length;
                }
                if (latency.isPositive()) {
                    Thread.sleep(latency); // a virtual thread: its carrier is free meanwhile
                }
                status = 200;
                body = JSON.writeValueAsBytes(scores);
            }
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        server.stop(0);
        handlers.shutdownNow();
    }
}
