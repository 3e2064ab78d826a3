package dev.quiver.functions;

import java.util.List;

/**
 * The built-in functions, as {@link FunctionRegistry#withDefaults()} registers them. The package
 * {@code dev.quiver.functions.builtin} provides them ({@code BuiltinFunctions}), as the service of this interface in
 * the host jar ({@code META-INF/services}): the built-in functions implement {@link ScalarFunction}, so this package
 * reaches them only through this interface and does not depend on them.
 */
public interface BuiltinLibrary {

    /** New instances of every built-in function. */
    List<ScalarFunction> functions();
}
