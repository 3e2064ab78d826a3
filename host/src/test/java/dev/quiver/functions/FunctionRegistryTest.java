package dev.quiver.functions;

import static dev.quiver.expr.Expr.call;
import static dev.quiver.expr.Expr.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.expr.Expr;
import dev.quiver.physical.EvalContext;
import dev.quiver.planning.ExpressionPlanner;
import dev.quiver.planning.PhysicalPlan;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.Values;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FunctionRegistryTest {
    private static final Schema SCHEMA = new Schema(List.of(DataType.INT32.toField("x", true)));
    private static final List<String> DEFAULT_NAMES = List.of(
            "abs",
            "acos",
            "array",
            "array_contains",
            "array_element",
            "array_extract",
            "array_has",
            "array_length",
            "asin",
            "atan",
            "atan2",
            "bit_length",
            "cardinality",
            "cbrt",
            "ceil",
            "char_length",
            "character_length",
            "concat",
            "concat_ws",
            "contains",
            "cos",
            "cosh",
            "current_timestamp",
            "degrees",
            "ends_with",
            "exp",
            "floor",
            "fma",
            "gcd",
            "get_field",
            "greatest",
            "hypot",
            "instr",
            "least",
            "left",
            "length",
            "list_contains",
            "list_element",
            "list_extract",
            "list_has",
            "list_length",
            "list_value",
            "ln",
            "log",
            "log10",
            "log2",
            "lower",
            "lpad",
            "ltrim",
            "make_array",
            "max",
            "min",
            "mod",
            "named_struct",
            "now",
            "octet_length",
            "pi",
            "position",
            "pow",
            "power",
            "radians",
            "rand",
            "random",
            "regexp_like",
            "regexp_matches",
            "regexp_replace",
            "repeat",
            "replace",
            "reverse",
            "right",
            "round",
            "rpad",
            "rtrim",
            "sign",
            "sin",
            "sinh",
            "split_part",
            "sqrt",
            "starts_with",
            "strict_concat",
            "strpos",
            "struct",
            "struct_extract",
            "substr",
            "substring",
            "suffix",
            "tan",
            "tanh",
            "trim",
            "trunc",
            "try_add",
            "try_divide",
            "try_mod",
            "try_multiply",
            "try_subtract",
            "upper");

    private RootAllocator root;
    private BufferAllocator allocator;
    private ExecutionConfig config;

    @BeforeEach
    void open() {
        root = new RootAllocator();
        allocator = root.newChildAllocator("test", 0, Long.MAX_VALUE);
        config = new ExecutionConfig(allocator, Instant.EPOCH, true, Map.of());
    }

    @AfterEach
    void close() {
        assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked");
        allocator.close();
        root.close();
    }

    /** {@code name(x)}: x + {@code add} for an Int32 column, as an array function. */
    static ScalarFunction adder(String name, int add, String... aliases) {
        ScalarFunction body = ArrayFunctions.adapt(
                name,
                Signature.exact(List.of(DataType.INT32), Volatility.IMMUTABLE),
                types -> DataType.INT32,
                (arrays, call) -> {
                    IntVector in = (IntVector) arrays.getFirst();
                    IntVector out = new IntVector("out", call.config().allocator());
                    out.allocateNew(in.getValueCount());
                    for (int i = 0; i < in.getValueCount(); i++) {
                        if (in.isNull(i)) {
                            out.setNull(i);
                        } else {
                            out.set(i, in.get(i) + add);
                        }
                    }
                    out.setValueCount(in.getValueCount());
                    return out;
                });
        return new ScalarFunction() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public List<String> aliases() {
                return List.of(aliases);
            }

            @Override
            public Signature signature() {
                return body.signature();
            }

            @Override
            public DataType returnType(List<DataType> argTypes) {
                return body.returnType(argTypes);
            }

            @Override
            public ColumnarValue invoke(ScalarFunctionArgs args) {
                return body.invoke(args);
            }
        };
    }

    private List<Object> evaluate(PhysicalPlan plan, Integer... xs) {
        try (FieldVector x = Values.of(DataType.INT32, "x", Arrays.asList(xs), allocator);
                ColumnarValue v = plan.root()
                        .evaluate(new EvalContext(List.of(x), xs.length, config, (p, a, r, al, m) -> {
                            throw new AssertionError("no fused kernel expected in " + plan.explain());
                        }))) {
            List<Object> out = new ArrayList<>();
            for (int i = 0; i < xs.length; i++) {
                out.add(
                        v instanceof ColumnarValue.Array a
                                ? Values.get(a.vector(), i).value()
                                : ((ColumnarValue.Scalar) v).value().value());
            }
            return out;
        }
    }

    private PhysicalPlan plan(FunctionRegistry r, Expr e) {
        return new ExpressionPlanner(r, config).plan(SCHEMA, e);
    }

    @Test
    void defaultsHoldEveryBuiltinAndItsAliases() {
        FunctionRegistry r = FunctionRegistry.withDefaults();
        assertEquals(DEFAULT_NAMES, r.names());
        assertEquals(76, r.functions().size());
        String[][] aliases = {
            {"power", "pow"},
            {"rand", "random"},
            {"current_timestamp", "now"},
            {"char_length", "length"},
            {"character_length", "length"},
            {"substr", "substring"},
            {"list_extract", "array_element"},
            {"list_contains", "array_contains"},
            {"struct_extract", "get_field"},
            {"list_value", "make_array"},
            {"suffix", "ends_with"},
            {"instr", "strpos"},
            {"position", "strpos"},
            {"regexp_like", "regexp_matches"}
        };
        for (String[] a : aliases) {
            assertSame(r.lookup(a[1]), r.lookup(a[0]), a[0]);
            assertEquals(a[1], r.lookup(a[0]).name());
        }
        assertTrue(FunctionRegistry.empty().names().isEmpty());
        assertEquals(Optional.empty(), FunctionRegistry.empty().find("sqrt"));
    }

    @Test
    void lookupIgnoresCase() {
        FunctionRegistry r = FunctionRegistry.withDefaults();
        for (String n : List.of("SQRT", "Sqrt", "sQrT", "CURRENT_TIMESTAMP", "Rand")) {
            assertEquals(r.lookup(n.toLowerCase(Locale.ROOT)), r.lookup(n), n);
            assertTrue(r.find(n).isPresent(), n);
        }
        r.register(adder("PlusOne", 1));
        assertEquals("PlusOne", r.lookup("plusone").name());
        assertTrue(r.names().contains("plusone"));
        // and through the planner
        assertEquals(List.of(2, 3), evaluate(plan(r, call("PLUSONE", col("x"))), 1, 2));
    }

    @Test
    void aRegisteredFunctionPlansAndEvaluates() {
        FunctionRegistry r = FunctionRegistry.withDefaults();
        assertEquals(Optional.empty(), r.register(adder("plus_ten", 10, "p10")));
        PhysicalPlan p = plan(r, Expr.parse("p10(x)"));
        assertEquals(
                "call plus_ten (immutable) -> Int32\n  #0 x -> Int32\n",
                p.root().explainTree());
        assertEquals(Arrays.asList(11, null, 9), evaluate(p, 1, null, -1));
        // all-literal: folded
        assertEquals(
                "literal 15 -> Int32\n",
                plan(r, Expr.parse("plus_ten(5)")).root().explainTree());
    }

    @Test
    void replacingReturnsTheOldFunctionAndOldPlansKeepIt() {
        FunctionRegistry r = FunctionRegistry.withDefaults();
        ScalarFunction one = adder("bump", 1);
        ScalarFunction hundred = adder("bump", 100);
        assertEquals(Optional.empty(), r.register(one));
        PhysicalPlan before = plan(r, call("bump", col("x")));
        assertEquals(Optional.of(one), r.register(hundred));
        assertSame(hundred, r.lookup("bump"));
        PhysicalPlan after = plan(r, call("bump", col("x")));
        assertEquals(List.of(6), evaluate(before, 5));
        assertEquals(List.of(105), evaluate(after, 5));
        // Registering the same function again is no replacement worth a warning, but still returns it.
        assertEquals(Optional.of(hundred), r.register(hundred));
        // Replacing a built-in.
        ScalarFunction oldSqrt = r.lookup("sqrt");
        assertEquals(Optional.of(oldSqrt), r.register(adder("sqrt", 7)));
        assertEquals(List.of(8), evaluate(plan(r, call("sqrt", col("x"))), 1));
    }

    @Test
    void unknownNamesSuggestTheClosest() {
        FunctionRegistry r = FunctionRegistry.withDefaults();
        String[][] table = {
            {
                "sqr",
                "unknown function 'sqr'; did you mean 'sqrt' or 'sin'? ("
                        + r.names().size() + " functions are registered)"
            },
            {
                "uppper",
                "unknown function 'uppper'; did you mean 'upper'? (" + r.names().size() + " functions are registered)"
            },
            {
                "lenght",
                "unknown function 'lenght'; did you mean 'length'? ("
                        + r.names().size() + " functions are registered)"
            },
            {
                "mx",
                "unknown function 'mx'; did you mean 'max' or 'exp' or 'fma'? ("
                        + r.names().size() + " functions are registered)"
            },
            {"frobnicate", "unknown function 'frobnicate' (" + r.names().size() + " functions are registered)"},
        };
        for (String[] row : table) {
            PlanningException e = assertThrows(PlanningException.class, () -> r.lookup(row[0]));
            assertEquals(row[1], e.getMessage(), row[0]);
        }
        PlanningException e = assertThrows(
                PlanningException.class, () -> FunctionRegistry.empty().lookup("sqrt"));
        assertEquals("unknown function 'sqrt' (0 functions are registered)", e.getMessage());
    }

    @Test
    void aCopyIsIndependent() {
        FunctionRegistry original = FunctionRegistry.withDefaults();
        FunctionRegistry copy = original.copy();
        assertEquals(original.names(), copy.names());
        copy.register(adder("only_in_copy", 1));
        assertTrue(copy.find("only_in_copy").isPresent());
        assertFalse(original.find("only_in_copy").isPresent());
        original.register(adder("only_in_original", 1));
        assertFalse(copy.find("only_in_original").isPresent());
        ScalarFunction sqrt = original.lookup("sqrt");
        copy.register(adder("sqrt", 1));
        assertSame(sqrt, original.lookup("sqrt"));
        PlanningException e =
                assertThrows(PlanningException.class, () -> plan(original, call("only_in_copy", col("x"))));
        assertTrue(e.getMessage().startsWith("unknown function 'only_in_copy'"), e.getMessage());
    }
}
