package dev.quiver.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.expr.Expr;
import dev.quiver.expr.Operator;
import dev.quiver.types.DataType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.types.IntervalUnit;
import org.junit.jupiter.api.Test;

/**
 * Every {@link Expr} prints as SQL text that parses back to an equal {@code Expr}: random trees of every node
 * (columns with awkward names, literals of every type with a literal form, every operator, casts to every type
 * name, both CASE forms, IN, BETWEEN, LIKE with escapes, calls with named arguments, subqueries, an alias at the
 * top). {@code -Dquiver.roundtrip.seed=N} replays a run; the seed is in every failure.
 */
class RoundTripPropertyTest {
    private static final String[] NAMES = {
        "x",
        "y",
        "MyCol",
        "a b",
        "select",
        "end",
        "date",
        "current",
        "interval",
        "trim",
        "position",
        "left",
        "row",
        "map",
        "q\"uote",
        "ñame",
        "time",
        "zone",
        "values",
        "e",
        "x1",
        "_u",
        "Order"
    };
    private static final DataType[] TYPES = {
        DataType.BOOLEAN,
        DataType.INT8,
        DataType.INT16,
        DataType.INT32,
        DataType.INT64,
        DataType.UINT8,
        DataType.UINT16,
        DataType.UINT32,
        DataType.UINT64,
        DataType.FLOAT32,
        DataType.FLOAT64,
        DataType.UTF8,
        DataType.LARGE_UTF8,
        DataType.BINARY,
        DataType.DATE32,
        DataType.NULL,
        new DataType.Decimal(10, 2),
        new DataType.Decimal(38, 0),
        new DataType.Timestamp(DataType.TimeUnit.SECOND, null),
        new DataType.Timestamp(DataType.TimeUnit.MILLISECOND, "UTC"),
        new DataType.Timestamp(DataType.TimeUnit.MICROSECOND, null),
        new DataType.Timestamp(DataType.TimeUnit.MICROSECOND, "UTC"),
        new DataType.Timestamp(DataType.TimeUnit.NANOSECOND, "Europe/Paris"),
        new DataType.ListType(DataType.INT32, true),
        new DataType.ListType(new DataType.ListType(DataType.UTF8, true), true),
        new DataType.Struct(List.of(
                new DataType.StructField("f", DataType.INT64, true),
                new DataType.StructField("a b", DataType.UTF8, true))),
        new DataType.Interval(IntervalUnit.MONTH_DAY_NANO)
    };

    private final Random random;

    RoundTripPropertyTest() {
        long seed = Long.getLong("quiver.roundtrip.seed", System.nanoTime());
        this.random = new Random(seed);
        this.seed = seed;
    }

    private final long seed;

    @Test
    void randomTreesOfEveryFormReadBack() {
        for (int i = 0; i < 3_000; i++) {
            Expr e = expr(4);
            if (random.nextInt(10) == 0) {
                e = e.alias(name());
            }
            String text = e.toString();
            Expr back;
            try {
                back = SqlParser.parse(text);
            } catch (RuntimeException failure) {
                throw new AssertionError("seed " + seed + ", case " + i + ": " + text, failure);
            }
            assertEquals(e, back, "seed " + seed + ", case " + i + ": " + text);
        }
    }

    private String name() {
        return NAMES[random.nextInt(NAMES.length)];
    }

    private Expr expr(int depth) {
        if (depth == 0 || random.nextInt(5) == 0) {
            return random.nextBoolean() ? column() : literal();
        }
        int d = depth - 1;
        return switch (random.nextInt(13)) {
            case 0 -> new Expr.Binary(expr(d), Operator.values()[random.nextInt(Operator.values().length)], expr(d));
            case 1 -> new Expr.Not(expr(d));
            case 2 -> new Expr.IsNull(expr(d), random.nextBoolean());
            case 3 -> new Expr.Negative(expr(d));
            case 4 -> random.nextBoolean() ? new Expr.Cast(expr(d), type()) : new Expr.TryCast(expr(d), type());
            case 5 -> {
                List<Expr.WhenThen> branches = new ArrayList<>();
                for (int k = 0; k <= random.nextInt(3); k++) {
                    branches.add(new Expr.WhenThen(expr(d), expr(d)));
                }
                yield new Expr.Case(
                        random.nextBoolean() ? expr(d) : null, branches, random.nextBoolean() ? expr(d) : null);
            }
            case 6 -> new Expr.InList(expr(d), list(d, 1), random.nextBoolean());
            case 7 -> new Expr.Between(expr(d), expr(d), expr(d), random.nextBoolean());
            case 8 ->
                new Expr.Like(
                        expr(d),
                        expr(d),
                        random.nextBoolean() ? null : "!'%_\\".charAt(random.nextInt(5)),
                        random.nextBoolean(),
                        random.nextBoolean());
            case 9 -> {
                List<Expr> args = list(d, 0);
                List<String> names = new ArrayList<>();
                int positional = random.nextInt(args.size() + 1);
                for (int k = 0; k < args.size(); k++) {
                    names.add(k < positional ? null : name());
                }
                yield new Expr.Call(random.nextBoolean() ? name() : "strict_concat", args, names);
            }
            case 10 ->
                new Expr.ScalarSubquery(
                        expr(d),
                        random.nextBoolean() ? name() : "s." + name(),
                        random.nextBoolean() ? expr(d) : null,
                        random.nextBoolean() ? null : (long) random.nextInt(1_000));
            case 11 -> new Expr.Call("make_array", list(d, 0));
            default -> new Expr.Call("get_field", List.of(expr(d), Expr.lit(name())));
        };
    }

    private List<Expr> list(int depth, int atLeast) {
        List<Expr> out = new ArrayList<>();
        int n = atLeast + random.nextInt(3);
        for (int k = 0; k < n; k++) {
            out.add(expr(depth));
        }
        return out;
    }

    private Expr column() {
        return random.nextInt(4) == 0 ? Expr.col(name(), name()) : Expr.col(name());
    }

    private DataType type() {
        return TYPES[random.nextInt(TYPES.length)];
    }

    /** A literal of a type with a literal form, or a typed null of any type. */
    private Expr literal() {
        return switch (random.nextInt(16)) {
            case 0 -> Expr.lit(random.nextInt());
            case 1 -> Expr.lit(random.nextLong());
            case 2 ->
                Expr.lit(
                        random.nextBoolean()
                                ? random.nextGaussian() * 1e6
                                : new double[] {
                                            Double.NaN,
                                            Double.NEGATIVE_INFINITY,
                                            -0.0,
                                            Double.MIN_VALUE,
                                            Double.MAX_VALUE
                                        }
                                        [random.nextInt(5)]);
            case 3 -> Expr.lit(random.nextFloat());
            case 4 -> Expr.lit(new String[] {"", "it's", "a\\b", "línea ñ", "two\nlines", "\"q\""}[random.nextInt(6)]);
            case 5 -> Expr.lit(random.nextBoolean());
            case 6 -> Expr.nullLit();
            case 7 -> Expr.nullLit(type());
            case 8 -> Expr.lit((byte) random.nextInt(), DataType.INT8);
            case 9 -> Expr.lit(new BigInteger(64, random), DataType.UINT64);
            case 10 -> Expr.lit(BigDecimal.valueOf(random.nextInt(), 2), new DataType.Decimal(12, 2));
            case 11 -> Expr.lit(new BigDecimal(new BigInteger(100, random)), new DataType.Decimal(38, 0));
            case 12 -> Expr.lit(random.nextInt(100_000) - 50_000, DataType.DATE32);
            case 13 -> Expr.lit(random.nextLong() / 4, new DataType.Timestamp(DataType.TimeUnit.MICROSECOND, null));
            case 14 -> Expr.lit(random.nextLong(), new DataType.Timestamp(DataType.TimeUnit.NANOSECOND, null));
            default -> {
                byte[] b = new byte[random.nextInt(4)];
                random.nextBytes(b);
                yield Expr.lit(b);
            }
        };
    }

    @Test
    void theTypesAreEveryKindWithASqlName() {
        assertEquals(27, Arrays.asList(TYPES).size());
    }
}
