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
 * <tr><td>length (char_length, character_length): characters as Int64; all-ASCII batches from the offsets</td><td>immutable</td><td>no</td></tr>
 * <tr><td>octet_length, bit_length: bytes, bits as Int64, from the offsets</td><td>immutable</td><td>no</td></tr>
 * <tr><td>upper, lower: simple case mapping per code point (ß → ẞ); ASCII batches 8 bytes per step</td><td>immutable</td><td>no</td></tr>
 * <tr><td>trim, ltrim, rtrim (s[, characters]; spaces by default; SQL TRIM(BOTH|LEADING|TRAILING c FROM s))</td><td>immutable</td><td>no</td></tr>
 * <tr><td>substring (substr; SQL SUBSTRING(s FROM i FOR n)): 1-based characters, DuckDB's rules for start &lt;= 0 and negative length</td><td>immutable</td><td>no</td></tr>
 * <tr><td>left, right (s, n): first/last n characters; negative n drops -n from the other end</td><td>immutable</td><td>no</td></tr>
 * <tr><td>lpad, rpad (s, n[, fill]): pad to n characters (space by default), cut longer strings; empty fill raises where padding is needed</td><td>immutable</td><td>no</td></tr>
 * <tr><td>repeat (s, n): n &lt;= 0 gives ''; a Utf8 result over 2 GiB raises</td><td>immutable</td><td>no</td></tr>
 * <tr><td>reverse: by code point</td><td>immutable</td><td>no</td></tr>
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
        all.addAll(List.of(new Upper(), new Lower(), new Length(), new OctetLength(), new BitLength(),
                new Trim(), new Ltrim(), new Rtrim(), new Substring(), new Left(), new Right(), new Lpad(), new Rpad(),
                new Repeat(), new Reverse(),
                new TryAdd(), new TrySubtract(), new TryMultiply(), new TryDivide(), new TryMod(),
                new Now(), new Random()));
        return List.copyOf(all);
    }
}
