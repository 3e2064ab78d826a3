package dev.quiver.functions.builtin;

import dev.quiver.functions.ScalarFunction;

import java.util.List;

/**
 * The index of the built-in scalar functions. {@code FunctionRegistry.withDefaults()}
 * registers all of them. The math library ({@link MathFunctions}, docs/math.md) is declared as
 * RowFns; the others have one file each.
 *
 * <table>
 * <tr><th>function</th><th>volatility</th><th>fused into kernels</th></tr>
 * <tr><td>abs, sign, sqrt, cbrt, exp, ln, log2, log10, log, pow (power), sin, cos, tan, asin, acos, atan,
 * atan2, sinh, cosh, tanh, floor, ceil, trunc, round, degrees, radians, hypot, mod, gcd (RowFns)</td>
 * <td>immutable</td><td>yes, for Int32/Int64/Float32/Float64 (not abs and round of decimals)</td></tr>
 * <tr><td>pi (a RowFn of no arguments)</td><td>immutable</td><td>folded at planning</td></tr>
 * <tr><td>least, greatest (any arity, NULLs skipped)</td><td>immutable</td><td>RowFns for numbers (run
 * with their NULL arguments); strings, dates and decimals with the comparison kernels</td></tr>
 * <tr><td>min, max, fma</td><td>immutable</td><td>yes, for Int32/Int64/Float32/Float64</td></tr>
 * <tr><td>upper, lower, length (char_length)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>try_add, try_subtract, try_multiply, try_divide, try_mod (NULL where the operator raises)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>now (current_timestamp)</td><td>stable</td><td>folded at planning</td></tr>
 * <tr><td>random (rand)</td><td>volatile</td><td>no</td></tr>
 * <tr><td>make_array (array, list_value), array_element (list_extract, list_element, array_extract; {@code l[i]}),
 * array_length (list_length), cardinality, array_contains (list_contains, array_has, list_has): lists
 * (docs/expressions.md, "Nested values")</td><td>immutable</td><td>no</td></tr>
 * <tr><td>named_struct, struct, get_field (struct_extract; {@code s['name']}): structs, zero copy</td><td>immutable</td><td>no</td></tr>
 * </table>
 */
public final class BuiltinFunctions {
    private BuiltinFunctions() {
    }

    public static List<ScalarFunction> all() {
        List<ScalarFunction> all = new java.util.ArrayList<>(MathFunctions.all());
        all.addAll(List.of(new Upper(), new Lower(), new Length(),
                new TryAdd(), new TrySubtract(), new TryMultiply(), new TryDivide(), new TryMod(),
                new Now(), new Random(),
                new MakeArray(), new ArrayElement(), new ArrayLength(), new Cardinality(), new ArrayContains(),
                new NamedStruct(), new StructFunction(), new GetField()));
        return List.copyOf(all);
    }
}
