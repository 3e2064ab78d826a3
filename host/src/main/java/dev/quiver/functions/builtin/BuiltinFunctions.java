package dev.quiver.functions.builtin;

import dev.quiver.functions.BuiltinLibrary;
import dev.quiver.functions.ScalarFunction;
import java.util.ArrayList;
import java.util.List;

/**
 * The index of the built-in scalar functions. {@code FunctionRegistry.withDefaults()}
 * registers all of them, through this class's {@link BuiltinLibrary} service
 * ({@code META-INF/services/dev.quiver.functions.BuiltinLibrary}). The math library ({@link MathFunctions}, docs/math.md) is declared as
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
 * <tr><td>length (char_length, character_length): characters (code points) as Int64; an ASCII batch from the offsets alone (docs/strings.md)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>octet_length: UTF-8 bytes as Int64, from the offsets (docs/strings.md)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>bit_length: 8 × octet_length (docs/strings.md)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>upper: simple case mapping per code point, ß → ẞ (as DuckDB); an ASCII batch 8 bytes per step (docs/strings.md)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>lower: simple case mapping per code point; an ASCII batch 8 bytes per step (docs/strings.md)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>trim(s[, characters]): both ends; spaces by default; SQL TRIM([BOTH] c FROM s) (docs/strings.md)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>ltrim(s[, characters]): the start; SQL TRIM(LEADING c FROM s) (docs/strings.md)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>rtrim(s[, characters]): the end; SQL TRIM(TRAILING c FROM s) (docs/strings.md)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>substring(s, start[, length]) (substr; SQL SUBSTRING(s FROM i FOR n)): 1-based characters, SQL's window for start &lt;= 0 and negative length (docs/strings.md)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>left(s, n): the first n characters; negative n drops the last -n (docs/strings.md)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>right(s, n): the last n characters; negative n drops the first -n (docs/strings.md)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>lpad(s, n[, fill]): pad on the left to n characters (space by default), cut a longer s; an empty fill raises where padding is needed (docs/strings.md)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>rpad(s, n[, fill]): as lpad, on the right (docs/strings.md)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>repeat(s, n): n &lt;= 0 gives ''; a Utf8 result over 2 GiB raises (docs/strings.md)</td><td>immutable</td><td>no</td></tr>
 * <tr><td>reverse: by code point (docs/strings.md)</td><td>immutable</td><td>no</td></tr>
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
 * <tr><td>make_array (array, list_value), array_element (list_extract, list_element, array_extract; {@code l[i]}),
 * array_length (list_length), cardinality, array_contains (list_contains, array_has, list_has): lists
 * (docs/expressions.md, "Nested values")</td><td>immutable</td><td>no</td></tr>
 * <tr><td>named_struct, struct, get_field (struct_extract; {@code s['name']}): structs, zero copy</td><td>immutable</td><td>no</td></tr>
 * </table>
 */
public final class BuiltinFunctions implements BuiltinLibrary {
    /** For {@code ServiceLoader}; {@link #all()} needs no instance. */
    public BuiltinFunctions() {}

    @Override
    public List<ScalarFunction> functions() {
        return all();
    }

    public static List<ScalarFunction> all() {
        List<ScalarFunction> all = new ArrayList<>(MathFunctions.all());
        all.addAll(List.of(
                new Upper(),
                new Lower(),
                new Length(),
                new OctetLength(),
                new BitLength(),
                new Trim(),
                new Ltrim(),
                new Rtrim(),
                new Substring(),
                new Left(),
                new Right(),
                new Lpad(),
                new Rpad(),
                new Repeat(),
                new Reverse(),
                new Concat(),
                new StrictConcat(),
                new ConcatWs(),
                new Replace(),
                new Contains(),
                new StartsWith(),
                new EndsWith(),
                new Strpos(),
                new SplitPart(),
                new RegexpMatches(),
                new RegexpReplace(),
                new TryAdd(),
                new TrySubtract(),
                new TryMultiply(),
                new TryDivide(),
                new TryMod(),
                new Now(),
                new Random(),
                new MakeArray(),
                new ArrayElement(),
                new ArrayLength(),
                new Cardinality(),
                new ArrayContains(),
                new NamedStruct(),
                new StructFunction(),
                new GetField()));
        return List.copyOf(all);
    }
}
