package dev.quiver.functions;

/**
 * The promise a function makes about time. Declare the strictest one that is true: a
 * function declared {@link #IMMUTABLE} that is not is folded to one value for every row;
 * one declared {@link #VOLATILE} that need not be is never folded and runs on every batch.
 */
public enum Volatility {
    /** Same inputs, same output, always ({@code abs}, {@code sqrt}): folded at planning when its inputs are literals. */
    IMMUTABLE,
    /** Same inputs, same output within one query ({@code now()}): evaluated once per query. */
    STABLE,
    /** No promise ({@code random()}): never folded, duplicated or moved; called on every batch. */
    VOLATILE
}
