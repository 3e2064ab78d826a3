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
 * <tr><td>concat (any arity, NULLs skipped; docs/strings.md)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>strict_concat (what {@code a || b} means: NULL when any argument is NULL)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>concat_ws (NULL separator gives NULL, NULL arguments skipped)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>replace (every occurrence, left to right; empty {@code from} changes nothing)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>contains, starts_with, ends_with (suffix) (empty needle: true; a constant needle searched over 64 rows' bytes at once)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>strpos (instr, position; {@code POSITION(needle IN s)}: 1-based in characters, 0 when absent)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>split_part (1-based, negative from the end, '' beyond the parts; empty delimiter splits characters)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>regexp_matches (regexp_like; a search, options as DuckDB; literal pattern compiled once per query)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>regexp_replace (first match, every one with 'g'; DuckDB's \1 replacement syntax)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>try_add, try_subtract, try_multiply, try_divide, try_mod (NULL where the operator raises)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>now (current_timestamp)</td><td>stable</td><td>folded at planning</td></tr>
 * <tr><td>random (rand)</td><td>volatile</td><td>no</td></tr>
 * </table>
 */
public final class BuiltinFunctions {
    private BuiltinFunctions() {
    }

    public static List<ScalarFunction> all() {
        List<ScalarFunction> all = new java.util.ArrayList<>(MathFunctions.all());
        all.addAll(List.of(new Upper(), new Lower(), new Length(),
                new Concat(), new StrictConcat(), new ConcatWs(), new Replace(), new Contains(), new StartsWith(), new EndsWith(),
                new Strpos(), new SplitPart(), new RegexpMatches(), new RegexpReplace(),
                new TryAdd(), new TrySubtract(), new TryMultiply(), new TryDivide(), new TryMod(),
                new Now(), new Random()));
        return List.copyOf(all);
    }
}
