package dev.quiver.functions;

import dev.quiver.kernels.ArithmeticMode;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;

/**
 * What a function sees of the query it runs in.
 *
 * @param allocator   where results are allocated from
 * @param queryStart  the query's start time: {@link Volatility#STABLE} functions such as
 *                    {@code now()} return it, one value for the whole query
 * @param checkTypes  whether the planner checks every function's returned type against the
 *                    planned one (on in tests and debug runs)
 * @param options     free-form settings, by name
 */
public record ExecutionConfig(
        BufferAllocator allocator, Instant queryStart, boolean checkTypes, Map<String, String> options) {
    public ExecutionConfig {
        Objects.requireNonNull(allocator, "allocator is null");
        Objects.requireNonNull(queryStart, "queryStart is null");
        options = Map.copyOf(options);
    }

    /** The option that chooses {@link #arithmeticMode()}: {@code checked} (the default) or {@code wrapping}. */
    public static final String ARITHMETIC = "arithmetic";

    /**
     * How the {@code + - * / %} operators treat integer overflow: {@link ArithmeticMode#CHECKED}
     * (an error, the default) unless option {@value #ARITHMETIC} says {@code wrapping}.
     *
     * @throws IllegalArgumentException for another value of the option
     */
    public ArithmeticMode arithmeticMode() {
        String v = options.getOrDefault(ARITHMETIC, "checked");
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "checked" -> ArithmeticMode.CHECKED;
            case "wrapping" -> ArithmeticMode.WRAPPING;
            default ->
                throw new IllegalArgumentException(
                        "option " + ARITHMETIC + " is 'checked' or 'wrapping', not '" + v + "'");
        };
    }

    /** The option that sets {@link #maxFoldedValueBytes()}: a number of bytes, at least 0. */
    public static final String MAX_FOLDED_VALUE_BYTES = "max_folded_value_bytes";

    /** The default of {@link #maxFoldedValueBytes()}: 16 MiB. */
    public static final long DEFAULT_MAX_FOLDED_VALUE_BYTES = 16L << 20;

    /**
     * The largest value, in bytes, the planner folds into a constant and a call over constants
     * keeps as one Java value (default {@value #DEFAULT_MAX_FOLDED_VALUE_BYTES}, option
     * {@value #MAX_FOLDED_VALUE_BYTES}). A larger one stays a computation over Arrow memory, run
     * per batch, where the output checks of each function apply: {@code repeat('x', 2000000000)} is
     * not made at planning, and over a batch is an error naming the 2 GiB that a Utf8 column holds
     * (or the allocator's limit), not an exhausted Java heap.
     *
     * @throws IllegalArgumentException for an option that is not a number of bytes
     */
    public long maxFoldedValueBytes() {
        String v = options.get(MAX_FOLDED_VALUE_BYTES);
        if (v == null) {
            return DEFAULT_MAX_FOLDED_VALUE_BYTES;
        }
        try {
            long bytes = Long.parseLong(v.trim());
            if (bytes >= 0) {
                return bytes;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(
                "option " + MAX_FOLDED_VALUE_BYTES + " is a number of bytes, at least 0, not '" + v + "'");
    }

    /** The option that sets {@link #dictionaryMapping()}: {@code on} or {@code off}. */
    public static final String DICTIONARY_MAPPING = "dictionary_mapping";

    /** The system property that sets {@link #dictionaryMapping()} where the option is not given. */
    public static final String DICTIONARY_MAPPING_PROPERTY = "quiver.dictionaryMapping";

    /**
     * Whether the planner computes deterministic subtrees over one dictionary-encoded column once
     * per distinct dictionary and gathers them by the indices (on by default). Option
     * {@value #DICTIONARY_MAPPING}, else the system property {@value #DICTIONARY_MAPPING_PROPERTY}
     * ({@code -Dquiver.dictionaryMapping=off}), read when an expression is planned: a switch for
     * comparing the two plans, since both give the same results.
     *
     * @throws IllegalArgumentException for a value other than on/off (or true/false)
     */
    public boolean dictionaryMapping() {
        String v = options.get(DICTIONARY_MAPPING);
        if (v == null) {
            v = System.getProperty(DICTIONARY_MAPPING_PROPERTY, "on");
        }
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "on", "true" -> true;
            case "off", "false" -> false;
            default ->
                throw new IllegalArgumentException(
                        "option " + DICTIONARY_MAPPING + " is 'on' or 'off', not '" + v + "'");
        };
    }

    /** The same configuration allocating from {@code other}. */
    public ExecutionConfig withAllocator(BufferAllocator other) {
        return other == allocator ? this : new ExecutionConfig(other, queryStart, checkTypes, options);
    }
}
