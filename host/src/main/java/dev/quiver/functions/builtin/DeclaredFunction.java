package dev.quiver.functions.builtin;

import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.Signature;
import java.util.List;

/**
 * A built-in function whose name, aliases, signature and description are given when it is made: what the
 * families of functions that differ only in those and their kernel ({@link StringLength}, {@link StringSearch},
 * {@link StringTrim}) share.
 */
abstract class DeclaredFunction implements ScalarFunction {
    private final String name;
    private final List<String> aliases;
    private final Signature signature;
    private final String description;

    DeclaredFunction(String name, List<String> aliases, Signature signature, String description) {
        this.name = name;
        this.aliases = List.copyOf(aliases);
        this.signature = signature;
        this.description = description;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final List<String> aliases() {
        return aliases;
    }

    @Override
    public final Signature signature() {
        return signature;
    }

    @Override
    public final String description() {
        return description;
    }
}
