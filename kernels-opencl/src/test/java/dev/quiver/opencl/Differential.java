package dev.quiver.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.KernelRun;
import dev.quiver.backend.RowMode;
import dev.quiver.errors.KernelArithmeticException;
import dev.quiver.memory.ValidityBitmaps;
import dev.quiver.memory.VectorView;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowFailure;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.types.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntFunction;

/**
 * A program run on OpenCL and on the reference ({@link RowInterpreter}) over the same native
 * memory, compared: values bit for bit (any NaN equal to any NaN) or within an ulp bound, the
 * validity after the null condition, the first failing row and its message, the computed rows,
 * and the bits past the last row of every bitmap, which must stay as they were.
 *
 * <p>Memory starts dirty on purpose: outputs are filled with a byte pattern, and the bits past
 * the last row of the validity, of Boolean arguments and of a Boolean output are set.
 */
final class Differential {
    /** Row counts with partial bytes of a bitmap and partial work groups. */
    static final int[] ROW_COUNTS = {1, 7, 9, 63, 1000};

    private static final byte DIRT = (byte) 0xA5;

    private Differential() {}

    /** The arguments and the validity of one batch, in native memory of {@code arena}. */
    record Inputs(List<MemorySegment> args, MemorySegment validity, int rows) {}

    /** What one run did: the output and validity it left, or the failure it raised. */
    record Outcome(MemorySegment out, MemorySegment validity, long rowsComputed, KernelArithmeticException failure) {}

    /** A column of {@code type} holding {@code value(r)} in row r; a Boolean column is a bitmap, dirty past the end. */
    static MemorySegment column(Arena arena, ElementType type, int rows, IntFunction<Number> value) {
        MemorySegment data = arena.allocate(Math.max(1, BufferSizes.dataBytes(type, rows)), 8);
        if (type.isBitPacked()) {
            data.fill((byte) 0xFF);
        }
        for (int r = 0; r < rows; r++) {
            RowInterpreter.write(data, type, r, value.apply(r));
        }
        return data.asSlice(0, BufferSizes.dataBytes(type, rows));
    }

    /**
     * A validity bitmap with about {@code nullRate} of the rows null, some bytes all null (so a
     * work item of 8 rows is skipped whole), and the bits past the last row set.
     */
    static MemorySegment validity(Arena arena, int rows, SplittableRandom random, double nullRate) {
        MemorySegment bitmap = arena.allocate(Math.max(1, VectorView.validityBytes(rows)));
        bitmap.fill((byte) 0xFF);
        for (int r = 0; r < rows; r++) {
            boolean allNullByte = nullRate > 0 && ((r >> 3) % 5 == 3);
            if (allNullByte || random.nextDouble() < nullRate) {
                ValidityBitmaps.clear(bitmap, r);
            }
        }
        return bitmap.asSlice(0, VectorView.validityBytes(rows));
    }

    /** Runs {@code program} on {@code backend} over a copy of the validity and a dirty output. */
    static Outcome onDevice(OpenClBackend backend, KernelProgram program, Inputs in, RowMode mode, Arena arena) {
        MemorySegment validity = copy(arena, in.validity());
        MemorySegment out = dirtyOutput(arena, program.resultType(), in.rows());
        try {
            KernelRun run = backend.execute(program, new KernelInvocation(in.args(), validity, out, in.rows(), mode));
            assertEquals(backend.name(), run.backend());
            return new Outcome(out, validity, run.rowsComputed(), null);
        } catch (KernelArithmeticException e) {
            return new Outcome(out, validity, -1, e);
        }
    }

    /**
     * What the reference does in {@code mode}: VALID_ROWS is {@link RowInterpreter#run}; ALL_ROWS
     * fails at the first row that fails, null or not, and otherwise computes as VALID_ROWS (the
     * values of null rows are then unspecified).
     */
    static Outcome reference(KernelProgram program, Inputs in, RowMode mode, Arena arena) {
        MemorySegment validity = copy(arena, in.validity());
        MemorySegment out = dirtyOutput(arena, program.resultType(), in.rows());
        long computed = mode == RowMode.ALL_ROWS ? in.rows() : ValidityBitmaps.count(in.validity(), in.rows());
        if (mode == RowMode.ALL_ROWS) {
            long failing = firstFailingRowOfAll(program, in);
            if (failing >= 0) {
                return new Outcome(
                        out, validity, -1, RowInterpreter.failureAt(program, in.args(), failing, "reference"));
            }
        }
        try {
            RowInterpreter.run(program, in.args(), validity, out, in.rows(), "reference");
            return new Outcome(out, validity, computed, null);
        } catch (KernelArithmeticException e) {
            return new Outcome(out, validity, -1, e);
        }
    }

    private static long firstFailingRowOfAll(KernelProgram program, Inputs in) {
        Number[] row = new Number[program.arity()];
        for (int r = 0; r < in.rows(); r++) {
            for (int k = 0; k < row.length; k++) {
                row[k] =
                        RowInterpreter.read(in.args().get(k), program.argTypes().get(k), r);
            }
            try {
                RowInterpreter.evaluate(program.root(), row);
                RowInterpreter.isNullResult(program, row);
            } catch (RowFailure e) {
                return r;
            }
        }
        return -1;
    }

    /**
     * Runs both and compares; returns the largest ulp distance seen in a value (0 when exact).
     *
     * @param ulpBound -1 for bit-for-bit values, else the ulp distance allowed (NaN must still be NaN)
     */
    static long check(
            OpenClBackend backend,
            KernelProgram program,
            Inputs in,
            RowMode mode,
            long ulpBound,
            Arena arena,
            String context) {
        String where = context + ": " + program + " over " + in.rows() + " rows, " + mode + ", on " + backend;
        Outcome want = reference(program, in, mode, arena);
        Outcome got = onDevice(backend, program, in, mode, arena);
        if (want.failure() != null || got.failure() != null) {
            if (want.failure() == null) {
                throw new AssertionError(where + ": the device failed, the reference did not", got.failure());
            }
            if (got.failure() == null) {
                fail(where + ": the reference failed (" + want.failure().getMessage() + "), the device did not");
            }
            assertEquals(want.failure().row(), got.failure().row(), where + ": the first failing row");
            assertEquals(want.failure().what(), got.failure().what(), where + ": the failure");
            assertEquals(want.failure().detail(), got.failure().detail(), where);
            assertEquals(backend.name(), got.failure().device(), where + ": the device the failure names");
            return 0;
        }
        assertEquals(want.rowsComputed(), got.rowsComputed(), where + ": rows computed");
        assertBytesEqual(want.validity(), got.validity(), where + ": the validity (bits past the end included)");
        long worst = 0;
        ElementType t = program.resultType();
        for (int r = 0; r < in.rows(); r++) {
            if (mode == RowMode.ALL_ROWS && !ValidityBitmaps.isValid(in.validity(), r)) {
                continue; // computed, but the value of a null row is unspecified
            }
            Number w = RowInterpreter.read(want.out(), t, r);
            Number g = RowInterpreter.read(got.out(), t, r);
            long d = distance(t, w, g);
            if (d != 0 && (ulpBound < 0 || d > ulpBound)) {
                fail(where + ", row " + r + rowText(program, in, r) + ": want " + show(t, w) + ", got " + show(t, g)
                        + (ulpBound < 0 ? "" : " (" + d + " ulp, bound " + ulpBound + ")"));
            }
            worst = Math.max(worst, d);
        }
        if (t.isBitPacked() && in.rows() % 8 != 0) {
            long last = VectorView.validityBytes(in.rows()) - 1;
            int keep = 0xFF << (in.rows() % 8) & 0xFF;
            assertEquals(
                    DIRT & keep,
                    got.out().get(ValueLayout.JAVA_BYTE, last) & keep,
                    where + ": the result bits past the last row must be left as they were");
        }
        return worst;
    }

    /** The arguments of row {@code r}, for messages. */
    static String rowText(KernelProgram program, Inputs in, int r) {
        List<String> values = new ArrayList<>();
        for (int k = 0; k < program.arity(); k++) {
            ElementType t = program.argTypes().get(k);
            values.add(show(t, RowInterpreter.read(in.args().get(k), t, r)));
        }
        return " " + values;
    }

    /**
     * 0 for equal values (bitwise; any NaN equals any NaN), else the distance in ulps: how many
     * values of the type lie between them, +1 (infinity is one ulp past the largest finite value).
     * {@link Long#MAX_VALUE} for NaN against a number and for zeros of opposite signs.
     */
    static long distance(ElementType t, Number want, Number got) {
        return switch (t) {
            case FLOAT64 -> {
                double w = want.doubleValue(), g = got.doubleValue();
                if (Double.isNaN(w) || Double.isNaN(g)) {
                    yield Double.isNaN(w) && Double.isNaN(g) ? 0 : Long.MAX_VALUE;
                }
                yield Double.doubleToRawLongBits(w) == Double.doubleToRawLongBits(g)
                        ? 0
                        : apart(ordinal(w), ordinal(g));
            }
            case FLOAT32 -> {
                float w = want.floatValue(), g = got.floatValue();
                if (Float.isNaN(w) || Float.isNaN(g)) {
                    yield Float.isNaN(w) && Float.isNaN(g) ? 0 : Long.MAX_VALUE;
                }
                yield Float.floatToRawIntBits(w) == Float.floatToRawIntBits(g) ? 0 : apart(ordinal(w), ordinal(g));
            }
            case INT32, INT64, BOOL -> want.longValue() == got.longValue() ? 0 : Long.MAX_VALUE;
        };
    }

    /** The distance of two different values' ordinals; 0 apart means +0.0 against -0.0, never an ulp error. */
    private static long apart(long a, long b) {
        try {
            long d = Math.abs(Math.subtractExact(a, b));
            return d == 0 ? Long.MAX_VALUE : d;
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /** Doubles in order as longs: adjacent doubles are adjacent longs, and -0.0 and +0.0 are both 0. */
    static long ordinal(double d) {
        long bits = Double.doubleToRawLongBits(d);
        return bits < 0 ? Long.MIN_VALUE - bits : bits;
    }

    static long ordinal(float f) {
        int bits = Float.floatToRawIntBits(f);
        return bits < 0 ? (long) Integer.MIN_VALUE - bits : bits;
    }

    static String show(ElementType t, Number v) {
        return switch (t) {
            case FLOAT64 -> v + " (0x" + Long.toHexString(Double.doubleToRawLongBits(v.doubleValue())) + ")";
            case FLOAT32 -> v + "f (0x" + Integer.toHexString(Float.floatToRawIntBits(v.floatValue())) + ")";
            case INT64 -> v + "L";
            case INT32 -> v.toString();
            case BOOL -> v.intValue() != 0 ? "true" : "false";
        };
    }

    private static MemorySegment dirtyOutput(Arena arena, ElementType type, int rows) {
        MemorySegment out = arena.allocate(Math.max(1, BufferSizes.dataBytes(type, rows)), 8);
        out.fill(DIRT);
        return out.asSlice(0, BufferSizes.dataBytes(type, rows));
    }

    private static MemorySegment copy(Arena arena, MemorySegment from) {
        MemorySegment to = arena.allocate(Math.max(1, from.byteSize()));
        to.copyFrom(from);
        return to.asSlice(0, from.byteSize());
    }

    private static void assertBytesEqual(MemorySegment want, MemorySegment got, String what) {
        assertEquals(want.byteSize(), got.byteSize(), what);
        long mismatch = want.mismatch(got);
        assertTrue(
                mismatch < 0,
                () -> what + ": byte " + mismatch + " is "
                        + Integer.toBinaryString(got.get(ValueLayout.JAVA_BYTE, mismatch) & 0xFF) + ", want "
                        + Integer.toBinaryString(want.get(ValueLayout.JAVA_BYTE, mismatch) & 0xFF));
    }
}
