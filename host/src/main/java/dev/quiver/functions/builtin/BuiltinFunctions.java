package dev.quiver.functions.builtin;

import dev.quiver.functions.ScalarFunction;

import java.util.List;

/**
 * The index of the built-in scalar functions, one file each. {@code FunctionRegistry.withDefaults()}
 * registers all of them.
 *
 * <table>
 * <tr><th>function</th><th>volatility</th><th>fused into kernels</th></tr>
 * <tr><td>sqrt, abs, min, max, fma, hypot</td><td>immutable</td><td>yes, for Int32/Int64/Float32/Float64</td></tr>
 * <tr><td>least, greatest (any arity, NULLs skipped)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>power (pow), exp, ln, round</td><td>immutable</td><td>no</td></tr>
 * <tr><td>upper, lower, length (char_length)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>try_add, try_subtract, try_multiply, try_divide, try_mod (NULL where the operator raises)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>now (current_timestamp)</td><td>stable</td><td>folded at planning</td></tr>
 * <tr><td>random (rand)</td><td>volatile</td><td>no</td></tr>
 * </table>
 */
public final class BuiltinFunctions {
    private BuiltinFunctions() {
    }

    public static List<ScalarFunction> all() {
        return List.of(new Sqrt(), new Abs(), new Min(), new Max(), new Extremum.Least(), new Extremum.Greatest(), new Fma(), new Hypot(),
                new Power(), new Exp(), new Ln(), new Round(),
                new Upper(), new Lower(), new Length(),
                new TryAdd(), new TrySubtract(), new TryMultiply(), new TryDivide(), new TryMod(),
                new Now(), new Random());
    }
}
