package dev.quiver.opencl;

import static dev.quiver.types.ElementType.BOOL;
import static dev.quiver.types.ElementType.FLOAT32;
import static dev.quiver.types.ElementType.FLOAT64;
import static dev.quiver.types.ElementType.INT32;
import static dev.quiver.types.ElementType.INT64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.backend.RowMode;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.memory.VectorView;
import dev.quiver.rowfn.ir.BinaryOp;
import dev.quiver.rowfn.ir.CmpOp;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowInterpreter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntFunction;

/**
 * What a run does besides computing values: failing rows (checks, integer division and
 * remainder) and their messages, null conditions, non-strict programs, the two row modes and the
 * rows they compute, Boolean bitmaps in and out, and programs that share subtrees.
 */
class RowSemanticsTest extends DeviceTestBase {
    private static final long SEED = Long.getLong("quiver.seed", 4_242L);
    private static final IrNode X = Ir.arg(0, FLOAT64);
    private static final IrNode Y = Ir.arg(1, FLOAT64);
    /** sqrt($0), failing where $0 < 0 and showing $0. */
    private static final KernelProgram CHECKED_SQRT = new KernelProgram(
            List.of(FLOAT64),
            Ir.check(Ir.compare(CmpOp.LT, X, Ir.lit(0.0)), Ir.sqrt(X), "sqrt: negative argument", X),
            null,
            true,
            "checked_sqrt($0)");

    /** Inputs of one Float64 column and a validity with the given null rows. */
    private static Differential.Inputs doubles(Arena arena, double[] values, int... nullRows) {
        MemorySegment validity = Differential.validity(arena, values.length, new SplittableRandom(0), 0);
        for (int r : nullRows) {
            ValidityBitmaps.clear(validity, r);
        }
        return new Differential.Inputs(
                List.of(Differential.column(arena, FLOAT64, values.length, r -> values[r])), validity, values.length);
    }

    @OnEveryDevice
    void aCheckReportsTheFirstComputedFailingRowWithTheReferenceMessage(OpenClBackend backend) {
        double[] x = new double[1000];
        for (int i = 0; i < x.length; i++) {
            x[i] = i * 0.5;
        }
        x[5] = -1; // null below
        x[17] = -2; // the first valid failing row
        x[400] = -3;
        try (Arena arena = Arena.ofConfined()) {
            Differential.Inputs in = doubles(arena, x, 5);
            KernelArithmeticException valid = Differential.onDevice(
                            backend, CHECKED_SQRT, in, RowMode.VALID_ROWS, arena)
                    .failure();
            assertEquals(17, valid.row());
            assertEquals(
                    "sqrt: negative argument (value -2.0) in checked_sqrt($0) at row 17 (on " + backend.name() + ")",
                    valid.getMessage());
            // ALL_ROWS computes the null row too, and reports it: the caller decides what that means.
            KernelArithmeticException all = Differential.onDevice(backend, CHECKED_SQRT, in, RowMode.ALL_ROWS, arena)
                    .failure();
            assertEquals(5, all.row());
            assertEquals(
                    "sqrt: negative argument (value -1.0) in checked_sqrt($0) at row 5 (on " + backend.name() + ")",
                    all.getMessage());
        }
        // Masked: the only negative rows are null.
        double[] masked = {4, -1, 9, -4, 16, 25, 36, 49, -0.0, 81};
        try (Arena arena = Arena.ofConfined()) {
            Differential.Inputs in = doubles(arena, masked, 1, 3);
            Differential.Outcome out = Differential.onDevice(backend, CHECKED_SQRT, in, RowMode.VALID_ROWS, arena);
            assertEquals(null, out.failure());
            assertEquals(8, out.rowsComputed());
            assertEquals(-0.0, RowInterpreter.read(out.out(), FLOAT64, 8));
            assertEquals(9.0, RowInterpreter.read(out.out(), FLOAT64, 9));
            assertEquals(0.0, RowInterpreter.read(out.out(), FLOAT64, 1), "a null row is written as 0 in VALID_ROWS");
            for (RowMode mode : RowMode.values()) {
                Differential.check(backend, CHECKED_SQRT, in, mode, -1, arena, "masked check");
            }
        }
    }

    @OnEveryDevice
    void integerRemainderAndDivisionFailOnAZeroDivisor(OpenClBackend backend) {
        IrNode a = Ir.arg(0, INT64), b = Ir.arg(1, INT64);
        KernelProgram rem = new KernelProgram(List.of(INT64, INT64), new IrNode.Binary(BinaryOp.REM, a, b));
        long[] xs = {7, -7, Long.MIN_VALUE, 9, 10, 11};
        long[] ys = {2, 2, -1, 0, 0, 3};
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment validity = Differential.validity(arena, xs.length, new SplittableRandom(0), 0);
            ValidityBitmaps.clear(validity, 3);
            Differential.Inputs in = new Differential.Inputs(
                    List.of(
                            Differential.column(arena, INT64, xs.length, r -> xs[r]),
                            Differential.column(arena, INT64, xs.length, r -> ys[r])),
                    validity,
                    xs.length);
            KernelArithmeticException e = Differential.onDevice(backend, rem, in, RowMode.VALID_ROWS, arena)
                    .failure();
            assertEquals("integer division by zero in ($0 % $1) at row 4 (on " + backend.name() + ")", e.getMessage());
            assertEquals(
                    3,
                    Differential.onDevice(backend, rem, in, RowMode.ALL_ROWS, arena)
                            .failure()
                            .row());
        }
    }

    @OnEveryDevice
    void bothSidesOfASelectAreComputedAndCanFail(OpenClBackend backend) {
        // select($1 != 0, $0 / $1, 0): the division still runs where $1 == 0, as in the reference.
        IrNode a = Ir.arg(0, INT32), b = Ir.arg(1, INT32);
        KernelProgram program = new KernelProgram(
                List.of(INT32, INT32), Ir.select(Ir.compare(CmpOp.NE, b, Ir.lit(0)), Ir.div(a, b), Ir.lit(0)));
        try (Arena arena = Arena.ofConfined()) {
            Differential.Inputs in = new Differential.Inputs(
                    List.of(
                            Differential.column(arena, INT32, 4, r -> 10 + r),
                            Differential.column(arena, INT32, 4, r -> r == 2 ? 0 : r + 1)),
                    Differential.validity(arena, 4, new SplittableRandom(0), 0),
                    4);
            assertEquals(
                    2,
                    Differential.onDevice(backend, program, in, RowMode.VALID_ROWS, arena)
                            .failure()
                            .row());
            Differential.check(backend, program, in, RowMode.VALID_ROWS, -1, arena, "select");
        }
    }

    /** Random failing programs against the reference: the first failing row in each mode, at every row count. */
    @OnEveryDevice
    void failingRowsMatchTheReference(OpenClBackend backend) {
        IrNode i = Ir.arg(0, INT32), j = Ir.arg(1, INT32), f = Ir.arg(2, FLOAT32);
        List<KernelProgram> programs = List.of(
                // A check in the value, a remainder, and a check inside the null condition.
                new KernelProgram(
                        List.of(INT32, INT32, FLOAT32),
                        Ir.check(
                                Ir.compare(CmpOp.GT, j, Ir.lit(60)),
                                new IrNode.Binary(BinaryOp.REM, i, j),
                                "j too big",
                                j),
                        Ir.compare(
                                CmpOp.LT,
                                Ir.check(Ir.compare(CmpOp.EQ, f, Ir.lit(2.5f)), f, "f is 2.5", f),
                                Ir.lit(0f)),
                        true,
                        "p1"),
                // A Boolean result with a fallible division.
                new KernelProgram(
                        List.of(INT32, INT32, FLOAT32),
                        Ir.compare(CmpOp.GT, Ir.div(i, j), Ir.lit(3)),
                        null,
                        true,
                        "p2"));
        for (KernelProgram program : programs) {
            for (int rows : Differential.ROW_COUNTS) {
                for (double failRate : new double[] {0, 0.002, 0.05}) {
                    SplittableRandom random = new SplittableRandom(SEED + rows * 31L + (long) (failRate * 1000));
                    try (Arena arena = Arena.ofConfined()) {
                        Differential.Inputs in = new Differential.Inputs(
                                List.of(
                                        Differential.column(arena, INT32, rows, r -> random.nextInt(-1000, 1000)),
                                        Differential.column(
                                                arena,
                                                INT32,
                                                rows,
                                                r -> random.nextDouble() < failRate
                                                        ? (random.nextBoolean() ? 0 : 61)
                                                        : random.nextInt(1, 60)),
                                        Differential.column(
                                                arena,
                                                FLOAT32,
                                                rows,
                                                r -> random.nextDouble() < failRate
                                                        ? 2.5f
                                                        : (float) random.nextGaussian())),
                                Differential.validity(arena, rows, random, 0.3),
                                rows);
                        for (RowMode mode : RowMode.values()) {
                            Differential.check(backend, program, in, mode, -1, arena, "failing rows");
                        }
                    }
                }
            }
        }
    }

    @OnEveryDevice
    void aNullConditionClearsValidityOfComputedRows(OpenClBackend backend) {
        // $0 / $1, null where $1 == 0 (an optional result): numeric and Boolean results, both modes, every row count.
        KernelProgram divide = new KernelProgram(
                List.of(FLOAT64, FLOAT64),
                Ir.div(X, Y),
                Ir.compare(CmpOp.EQ, Y, Ir.lit(0.0)),
                true,
                "safe_divide($0, $1)");
        KernelProgram positive = new KernelProgram(
                List.of(FLOAT64, FLOAT64),
                Ir.compare(CmpOp.GT, Ir.div(X, Y), Ir.lit(0.0)),
                Ir.or(Ir.compare(CmpOp.EQ, Y, Ir.lit(0.0)), Ir.compare(CmpOp.NE, X, X)),
                true,
                "positive_ratio($0, $1)");
        for (KernelProgram program : List.of(divide, positive)) {
            for (int rows : Differential.ROW_COUNTS) {
                SplittableRandom random = new SplittableRandom(SEED ^ rows);
                try (Arena arena = Arena.ofConfined()) {
                    Differential.Inputs in = new Differential.Inputs(
                            List.of(
                                    Differential.column(arena, FLOAT64, rows, r -> TestData.any(FLOAT64, random)),
                                    Differential.column(
                                            arena,
                                            FLOAT64,
                                            rows,
                                            r -> random.nextInt(4) == 0 ? 0.0 : TestData.any(FLOAT64, random))),
                            Differential.validity(arena, rows, random, 0.2),
                            rows);
                    for (RowMode mode : RowMode.values()) {
                        Differential.check(backend, program, in, mode, -1, arena, "null condition");
                    }
                }
            }
        }
        // Spelled out: rows 1 and 3 divide by zero, row 3 is null already, row 2 is null.
        try (Arena arena = Arena.ofConfined()) {
            double[] ys = {2, 0, 0, 0, 4, 5, 6, 7, 8, 0};
            MemorySegment validity = Differential.validity(arena, ys.length, new SplittableRandom(0), 0);
            ValidityBitmaps.clear(validity, 2);
            ValidityBitmaps.clear(validity, 3);
            Differential.Inputs in = new Differential.Inputs(
                    List.of(
                            Differential.column(arena, FLOAT64, ys.length, r -> 1.0),
                            Differential.column(arena, FLOAT64, ys.length, r -> ys[r])),
                    validity,
                    ys.length);
            Differential.Outcome out = Differential.onDevice(backend, divide, in, RowMode.VALID_ROWS, arena);
            assertEquals(0b1111_0001, out.validity().get(ValueLayout.JAVA_BYTE, 0) & 0xFF);
            assertEquals(0b1111_1101, out.validity().get(ValueLayout.JAVA_BYTE, 1) & 0xFF, "bits past row 10 are kept");
            assertEquals(8, out.rowsComputed());
        }
    }

    @OnEveryDevice
    void aNonStrictProgramDecidesEveryRowsValidity(OpenClBackend backend) {
        // coalesce($0, $2): $1 and $3 are the validity of $0 and $2; null when both are null.
        IrNode a = Ir.arg(0, INT64), aValid = Ir.arg(1, BOOL), b = Ir.arg(2, INT64), bValid = Ir.arg(3, BOOL);
        KernelProgram coalesce = new KernelProgram(
                List.of(INT64, BOOL, INT64, BOOL),
                Ir.select(aValid, a, b),
                Ir.and(Ir.not(aValid), Ir.not(bValid)),
                false,
                "coalesce($0, $2)");
        for (int rows : Differential.ROW_COUNTS) {
            SplittableRandom random = new SplittableRandom(SEED + rows);
            try (Arena arena = Arena.ofConfined()) {
                Differential.Inputs in = new Differential.Inputs(
                        List.of(
                                Differential.column(arena, INT64, rows, r -> TestData.any(INT64, random)),
                                Differential.column(arena, BOOL, rows, r -> random.nextInt(3) == 0 ? 0 : 1),
                                Differential.column(arena, INT64, rows, r -> TestData.any(INT64, random)),
                                Differential.column(arena, BOOL, rows, r -> random.nextInt(3) == 0 ? 0 : 1)),
                        Differential.validity(arena, rows, random, 0),
                        rows); // non-strict: all set
                for (RowMode mode : RowMode.values()) {
                    Differential.check(backend, coalesce, in, mode, -1, arena, "non-strict");
                }
            }
        }
    }

    @OnEveryDevice
    void validRowsComputesOnlyValidRowsAndCountsThem(OpenClBackend backend) {
        // A program that fails in every row: in VALID_ROWS only the valid ones can fail, so with none valid it
        // succeeds, computes nothing and writes zeros; one per work item, and 8 rows per work item (Boolean result).
        IrNode fails = Ir.check(Ir.lit(true), X, "always", X);
        List<KernelProgram> programs = List.of(
                new KernelProgram(List.of(FLOAT64), fails, null, true, "fails($0)"),
                new KernelProgram(
                        List.of(FLOAT64), Ir.compare(CmpOp.GT, fails, Ir.lit(1.0)), null, true, "fails($0) > 1"));
        for (KernelProgram program : programs) {
            for (int rows : Differential.ROW_COUNTS) {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment noneValid = arena.allocate(VectorView.validityBytes(rows));
                    Differential.Inputs in = new Differential.Inputs(
                            List.of(Differential.column(arena, FLOAT64, rows, r -> 1.5 + r)), noneValid, rows);
                    Differential.Outcome out = Differential.onDevice(backend, program, in, RowMode.VALID_ROWS, arena);
                    assertEquals(null, out.failure(), program + " over " + rows);
                    assertEquals(0, out.rowsComputed());
                    for (int r = 0; r < rows; r++) {
                        assertEquals(
                                0,
                                RowInterpreter.read(out.out(), program.resultType(), r)
                                        .doubleValue(),
                                "row " + r);
                    }
                    assertEquals(
                            0,
                            Differential.onDevice(backend, program, in, RowMode.ALL_ROWS, arena)
                                    .failure()
                                    .row());
                }
            }
        }
        // rowsComputed is the valid rows in VALID_ROWS, all rows in ALL_ROWS.
        KernelProgram twice = new KernelProgram(List.of(FLOAT64), Ir.add(X, X));
        try (Arena arena = Arena.ofConfined()) {
            int rows = 1000;
            Differential.Inputs in = new Differential.Inputs(
                    List.of(Differential.column(arena, FLOAT64, rows, r -> r)),
                    Differential.validity(arena, rows, new SplittableRandom(SEED), 0.4),
                    rows);
            long valid = ValidityBitmaps.count(in.validity(), rows);
            assertEquals(
                    valid, run(backend, twice, in, RowMode.VALID_ROWS, arena).rowsComputed());
            assertEquals(rows, run(backend, twice, in, RowMode.ALL_ROWS, arena).rowsComputed());
        }
    }

    private static KernelRun run(
            OpenClBackend backend, KernelProgram program, Differential.Inputs in, RowMode mode, Arena arena) {
        MemorySegment out = arena.allocate(BufferSizes.dataBytes(program.resultType(), in.rows()));
        return backend.execute(program, new KernelInvocation(in.args(), in.validity(), out, in.rows(), mode));
    }

    @OnEveryDevice
    void booleanArgumentsAndResultsAreBitmaps(OpenClBackend backend) {
        // ($0 xor $1) and ($2 < $3): 13 rows, so the last byte is partial.
        IrNode p = Ir.arg(0, BOOL), q = Ir.arg(1, BOOL), f = Ir.arg(2, FLOAT32), g = Ir.arg(3, FLOAT32);
        KernelProgram program = new KernelProgram(
                List.of(BOOL, BOOL, FLOAT32, FLOAT32),
                Ir.and(new IrNode.Binary(BinaryOp.XOR, p, q), Ir.compare(CmpOp.LT, f, g)));
        int[] ps = {1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 1};
        int[] qs = {0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0};
        float[] fs = {1, 1, 1, Float.NaN, 1, 1, -0.0f, 1, 1, 2, 1, 1, Float.NEGATIVE_INFINITY};
        float[] gs = {2, 2, 2, 2, 2, 2, 0.0f, 2, Float.NaN, 2, 2, 2, -Float.MAX_VALUE};
        // xor:        1  0  0  1  1  0  1  1  1  1  1  1  1
        // f < g:      1  1  1  0  1  1  0  1  0  0  1  1  1
        int[] want = {1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 1, 1};
        try (Arena arena = Arena.ofConfined()) {
            Differential.Inputs in = new Differential.Inputs(
                    List.of(
                            Differential.column(arena, BOOL, 13, r -> ps[r]),
                                    Differential.column(arena, BOOL, 13, r -> qs[r]),
                            Differential.column(arena, FLOAT32, 13, r -> fs[r]),
                                    Differential.column(arena, FLOAT32, 13, r -> gs[r])),
                    Differential.validity(arena, 13, new SplittableRandom(0), 0),
                    13);
            Differential.Outcome out = Differential.onDevice(backend, program, in, RowMode.ALL_ROWS, arena);
            int bits = (out.out().get(ValueLayout.JAVA_BYTE, 0) & 0xFF)
                    | (out.out().get(ValueLayout.JAVA_BYTE, 1) & 0xFF) << 8;
            int wantBits = 0;
            for (int r = 0; r < 13; r++) {
                wantBits |= want[r] << r;
            }
            wantBits |= (0xA5 & 0xE0) << 8; // bits 13-15 (of the dirty output) are not ours: kept
            assertEquals(Integer.toBinaryString(wantBits), Integer.toBinaryString(bits));
            for (RowMode mode : RowMode.values()) {
                Differential.check(backend, program, in, mode, -1, arena, "Booleans");
            }
        }
        // Many work groups of 8-row items.
        try (Arena arena = Arena.ofConfined()) {
            int rows = 100_003;
            SplittableRandom random = new SplittableRandom(SEED);
            Differential.Inputs in = new Differential.Inputs(
                    List.of(
                            Differential.column(arena, BOOL, rows, r -> random.nextInt(2)),
                            Differential.column(arena, BOOL, rows, r -> random.nextInt(2)),
                            Differential.column(arena, FLOAT32, rows, r -> TestData.any(FLOAT32, random)),
                            Differential.column(arena, FLOAT32, rows, r -> TestData.any(FLOAT32, random))),
                    Differential.validity(arena, rows, random, 0.1),
                    rows);
            for (RowMode mode : RowMode.values()) {
                Differential.check(backend, program, in, mode, -1, arena, "Booleans, many rows");
            }
        }
    }

    @OnEveryDevice
    void sharedSubtreesAreComputedOnceAndRight(OpenClBackend backend) {
        // t = $0 * $1 + $2, built twice (equal, not the same objects); a check shared by both sides of a select.
        IrNode z = Ir.arg(2, FLOAT64);
        IntFunction<IrNode> t = k -> Ir.add(Ir.mul(X, Y), z);
        IrNode checked = Ir.check(Ir.compare(CmpOp.NE, t.apply(0), t.apply(1)), t.apply(2), "t is NaN", t.apply(3));
        IrNode root = Ir.select(
                Ir.compare(CmpOp.GT, t.apply(4), Ir.lit(0.0)),
                Ir.mul(checked, t.apply(5)),
                Ir.sub(checked, Ir.fma(t.apply(6), X, Y)));
        KernelProgram program = new KernelProgram(List.of(FLOAT64, FLOAT64, FLOAT64), root);
        String source = KernelSource.of(program).text();
        assertEquals(1, count(source, "x0 * x1"), source);
        assertEquals(1, count(source, "failed |="), source);
        for (int rows : Differential.ROW_COUNTS) {
            SplittableRandom random = new SplittableRandom(SEED * rows);
            try (Arena arena = Arena.ofConfined()) {
                List<MemorySegment> args = new ArrayList<>();
                for (int k = 0; k < 3; k++) {
                    args.add(Differential.column(arena, FLOAT64, rows, r -> TestData.any(FLOAT64, random)));
                }
                Differential.Inputs in =
                        new Differential.Inputs(args, Differential.validity(arena, rows, random, 0.2), rows);
                for (RowMode mode : RowMode.values()) {
                    Differential.check(backend, program, in, mode, -1, arena, "DAG");
                }
            }
        }
        // A deep DAG: each level uses the one below twice, 2^12 paths, 12 divisions.
        IrNode deep = X;
        for (int level = 0; level < 12; level++) {
            deep = Ir.sub(Ir.mul(deep, Ir.lit(0.5)), Ir.div(deep, Y));
        }
        KernelProgram deepProgram = new KernelProgram(List.of(FLOAT64, FLOAT64), deep);
        assertEquals(12, count(KernelSource.of(deepProgram).text(), " / x1"));
        try (Arena arena = Arena.ofConfined()) {
            SplittableRandom random = new SplittableRandom(SEED);
            Differential.Inputs in = new Differential.Inputs(
                    List.of(
                            Differential.column(arena, FLOAT64, 1000, r -> TestData.any(FLOAT64, random)),
                            Differential.column(arena, FLOAT64, 1000, r -> TestData.any(FLOAT64, random))),
                    Differential.validity(arena, 1000, random, 0.1),
                    1000);
            Differential.check(backend, deepProgram, in, RowMode.VALID_ROWS, -1, arena, "deep DAG");
        }
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            n++;
        }
        return n;
    }

    @OnEveryDevice
    void castsOfEveryPairWithNulls(OpenClBackend backend) {
        // Spelled out, against Java's casts directly (not only the reference): saturation, NaN to 0, low 32 bits.
        double[] ds = {Double.NaN, 1e300, -1e300, 2147483647.9, -2147483648.9, -0.5, 0x1p63, -0x1p63, 9.3e18};
        try (Arena arena = Arena.ofConfined()) {
            Differential.Inputs in = doubles(arena, ds);
            Differential.Outcome toInt = Differential.onDevice(
                    backend, new KernelProgram(List.of(FLOAT64), Ir.cast(X, INT32)), in, RowMode.ALL_ROWS, arena);
            Differential.Outcome toLong = Differential.onDevice(
                    backend, new KernelProgram(List.of(FLOAT64), Ir.cast(X, INT64)), in, RowMode.ALL_ROWS, arena);
            for (int r = 0; r < ds.length; r++) {
                assertEquals((int) ds[r], RowInterpreter.read(toInt.out(), INT32, r), "(int) " + ds[r]);
                assertEquals((long) ds[r], RowInterpreter.read(toLong.out(), INT64, r), "(long) " + ds[r]);
            }
        }
        long[] ls = {Long.MIN_VALUE, Long.MAX_VALUE, 0x1_2345_6789L, -1, (1L << 53) + 1};
        try (Arena arena = Arena.ofConfined()) {
            Differential.Inputs in = new Differential.Inputs(
                    List.of(Differential.column(arena, INT64, ls.length, r -> ls[r])),
                    Differential.validity(arena, ls.length, new SplittableRandom(0), 0),
                    ls.length);
            Differential.Outcome low = Differential.onDevice(
                    backend,
                    new KernelProgram(List.of(INT64), Ir.cast(Ir.arg(0, INT64), INT32)),
                    in,
                    RowMode.ALL_ROWS,
                    arena);
            Differential.Outcome toFloat = Differential.onDevice(
                    backend,
                    new KernelProgram(List.of(INT64), Ir.cast(Ir.arg(0, INT64), FLOAT32)),
                    in,
                    RowMode.ALL_ROWS,
                    arena);
            for (int r = 0; r < ls.length; r++) {
                assertEquals((int) ls[r], RowInterpreter.read(low.out(), INT32, r), "(int) " + ls[r]);
                assertEquals((float) ls[r], RowInterpreter.read(toFloat.out(), FLOAT32, r), "(float) " + ls[r]);
            }
        }
        // Float64 to Float32 rounds to nearest even, overflows to infinity, keeps subnormals.
        double[] narrow = {
            1 + 0x1p-24,
            1 + 0x1p-24 + 0x1p-50,
            1 + 3 * 0x1p-24,
            3.5e38,
            Float.MIN_VALUE / 2.0,
            Float.MIN_VALUE * 0.75,
            -0.0,
            Double.NaN
        };
        try (Arena arena = Arena.ofConfined()) {
            Differential.Outcome out = Differential.onDevice(
                    backend,
                    new KernelProgram(List.of(FLOAT64), Ir.cast(X, FLOAT32)),
                    doubles(arena, narrow),
                    RowMode.ALL_ROWS,
                    arena);
            for (int r = 0; r < narrow.length; r++) {
                assertEquals(
                        Float.floatToIntBits((float) narrow[r]),
                        Float.floatToIntBits(
                                RowInterpreter.read(out.out(), FLOAT32, r).floatValue()),
                        "(float) " + narrow[r]);
            }
        }
    }

    @OnEveryDevice
    void aProgramThatDoesNotFitIsRejectedBeforeRunning(OpenClBackend backend) {
        KernelProgram bool = new KernelProgram(List.of(BOOL), Ir.not(Ir.arg(0, BOOL)));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment arg = arena.allocate(1);
            MemorySegment out = arena.allocate(1);
            MemorySegment validity = arena.allocate(2);
            // 9 rows need 2 bytes of bitmap.
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> backend.execute(
                            bool, new KernelInvocation(List.of(arg), validity, out, 9, RowMode.ALL_ROWS)));
            assertEquals("argument 0 holds 1 bytes, fewer than the 2 its rows need", e.getMessage());
        }
    }
}
