package dev.quiver.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.quiver.functions.AsyncScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;

/**
 * {@code score(text VARCHAR) -> DOUBLE} over HTTP, as in the README's async example: each call
 * POSTs its chunk's strings as one JSON array and reads back a JSON array of as many numbers.
 * No thread waits while a request is pending: {@link HttpClient#sendAsync} returns a future, and
 * the answer is parsed on the client's thread when it arrives.
 *
 * <p>It is the README's async example (its arguments checked, and the start of an error answer
 * in the message); the tests module runs it against a loopback service, so it is public.
 */
public final class HttpScoreFunction implements AsyncScalarFunction {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http;
    private final URI endpoint;
    private final int idealBatchSize;
    private final int maxConcurrentCalls;

    /**
     * @param idealBatchSize     rows per call; 0: the whole batch
     * @param maxConcurrentCalls calls in flight at most
     */
    public HttpScoreFunction(HttpClient http, URI endpoint, int idealBatchSize, int maxConcurrentCalls) {
        this.http = Objects.requireNonNull(http, "http is null");
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint is null");
        if (idealBatchSize < 0 || maxConcurrentCalls < 1) {
            throw new IllegalArgumentException("idealBatchSize must be >= 0 and maxConcurrentCalls >= 1, got "
                    + idealBatchSize + " and " + maxConcurrentCalls);
        }
        this.idealBatchSize = idealBatchSize;
        this.maxConcurrentCalls = maxConcurrentCalls;
    }

    @Override
    public String name() {
        return "score";
    }

    @Override
    public Signature signature() {
        return Signature.exact(List.of(DataType.UTF8), Volatility.STABLE);
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return DataType.FLOAT64;
    }

    @Override
    public OptionalInt idealBatchSize() {
        return idealBatchSize == 0 ? OptionalInt.empty() : OptionalInt.of(idealBatchSize);
    }

    @Override
    public int maxConcurrentCalls() {
        return maxConcurrentCalls;
    }

    @Override
    public String description() {
        return "the length of text, computed by an HTTP service (quiver bench --async)";
    }

    @Override
    public CompletableFuture<ColumnarValue> invokeAsync(ScalarFunctionArgs args) {
        HttpRequest request = HttpRequest.newBuilder(endpoint)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(requestBody(args))) // the arguments are read here, not later
                .build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).thenApply(response -> {
            try {
                return scores(args, response.statusCode(), response.body());
            } catch (IOException e) {
                throw new CompletionException(e);
            }
        });
    }

    /** The chunk's strings as a JSON array; a scalar argument stands for every row. */
    public static String requestBody(ScalarFunctionArgs args) {
        ArrayNode texts = JSON.createArrayNode();
        for (int i = 0; i < args.numberRows(); i++) {
            texts.add(
                    switch (args.arg(0)) {
                        case ColumnarValue.Array a ->
                            a.vector().isNull(i)
                                    ? null
                                    : new String(((VarCharVector) a.vector()).get(i), StandardCharsets.UTF_8);
                        case ColumnarValue.Scalar s -> (String) s.value().value();
                    });
        }
        return texts.toString();
    }

    /** The service's answer as a new vector of {@code args.numberRows()} scores; nothing is allocated when it is wrong. */
    public static ColumnarValue scores(ScalarFunctionArgs args, int status, byte[] body) throws IOException {
        if (status != 200) {
            throw new IOException("score service answered HTTP " + status + ": "
                    + new String(body, 0, Math.min(body.length, 200), StandardCharsets.UTF_8));
        }
        Double[] scores = JSON.readValue(body, Double[].class);
        if (scores == null || scores.length != args.numberRows()) {
            throw new IllegalStateException("score service answered " + (scores == null ? 0 : scores.length)
                    + " scores for " + args.numberRows() + " texts");
        }
        Float8Vector out = new Float8Vector(args.returnField(), args.config().allocator()); // the caller owns it
        out.allocateNew(scores.length); // only once the answer is known good: nothing below can fail
        for (int i = 0; i < scores.length; i++) {
            if (scores[i] == null) {
                out.setNull(i);
            } else {
                out.set(i, scores[i]);
            }
        }
        out.setValueCount(scores.length);
        return new ColumnarValue.Array(out);
    }
}
