package dev.quiver.kernels;

import static java.lang.constant.ConstantDescs.CD_Object;
import static java.lang.constant.ConstantDescs.CD_double;
import static java.lang.constant.ConstantDescs.CD_float;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteOrder;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Generates the {@link VectorComparisons.WordCompare} loops: one hidden class per element type
 * and operand shape, whose method is what a person would write by hand for that pair. For Float64
 * against a column, with 8 lanes:
 *
 * <pre>{@code
 * public void words(MemorySegment a, MemorySegment b, long s, int from, int n, long[] lt, long[] eq) {
 *     for (int k = 0; k < n >>> 6; k++) {
 *         long base = (long) (from + (k << 6)) << 3;
 *         long l = 0, e = 0;
 *         // unrolled: j = 0, 8, ..., 56
 *         DoubleVector x = DoubleVector.fromMemorySegment(SPECIES_PREFERRED, a, base + (j << 3), LITTLE_ENDIAN);
 *         DoubleVector y = DoubleVector.fromMemorySegment(SPECIES_PREFERRED, b, base + (j << 3), LITTLE_ENDIAN);
 *         long xNan = x.test(IS_NAN).toLong(), yNan = y.test(IS_NAN).toLong();
 *         l |= (x.compare(LT, y).toLong() | (yNan & ~xNan)) << j;   // NaN sorts above everything
 *         e |= (x.compare(EQ, y).toLong() | (xNan & yNan)) << j;    // and equals NaN
 *         lt[k] = l;
 *         eq[k] = e;
 *     }
 * }
 * }</pre>
 *
 * Against a scalar the loop compares with {@code broadcast(SPECIES_PREFERRED, s)}, made once
 * before the loop ({@code s} holds the scalar's bits: a double's or float's raw bits, an
 * integer's value); against a NaN scalar it only tests {@code IS_NAN} (NaN rows are equal, all
 * others less). Integers have no NaN lanes to add.
 *
 * <p>Why generate rather than write one generic loop: the Vector API is only fast when the
 * species and the vector class are JIT-time constants in straight-line code. A loop generic in
 * its species (one method for all types) chose at run time and lost about 20%; a scalar read as
 * a broadcast column lost 40–80% on column-against-scalar. Generated, every pair gets its own
 * constants and the text of the loop is written once, here.
 */
final class WordCompareCompiler {
    /** The element type of a loop: its vector class, the scalar it broadcasts, its byte width as a shift. */
    enum Lanes {
        FLOAT64(DoubleVector.class, CD_double, 3, true, DoubleVector.SPECIES_PREFERRED),
        FLOAT32(FloatVector.class, CD_float, 2, true, FloatVector.SPECIES_PREFERRED),
        INT32(IntVector.class, CD_int, 2, false, IntVector.SPECIES_PREFERRED),
        INT64(LongVector.class, CD_long, 3, false, LongVector.SPECIES_PREFERRED);

        final ClassDesc vector;
        final ClassDesc scalar;
        final int shift;
        final boolean floating;
        final int lanes;

        Lanes(Class<?> vector, ClassDesc scalar, int shift, boolean floating, VectorSpecies<?> species) {
            this.vector = ClassDesc.of(vector.getName());
            this.scalar = scalar;
            this.shift = shift;
            this.floating = floating;
            this.lanes = species.length();
        }
    }

    /** What the right operand is: a column, a scalar, or (floats only) a NaN scalar. */
    enum Shape {
        COLUMN,
        SCALAR,
        NAN_SCALAR
    }

    private static final ClassDesc CD_SEGMENT = ClassDesc.of(MemorySegment.class.getName());
    private static final ClassDesc CD_BYTE_ORDER = ClassDesc.of(ByteOrder.class.getName());
    private static final ClassDesc CD_SPECIES = ClassDesc.of(VectorSpecies.class.getName());
    private static final ClassDesc CD_VECTOR = ClassDesc.of("jdk.incubator.vector.Vector");
    private static final ClassDesc CD_MASK = ClassDesc.of("jdk.incubator.vector.VectorMask");
    private static final ClassDesc CD_OPERATORS = ClassDesc.of(VectorOperators.class.getName());
    private static final ClassDesc CD_COMPARISON = ClassDesc.of(VectorOperators.Comparison.class.getName());
    private static final ClassDesc CD_TEST = ClassDesc.of(VectorOperators.Test.class.getName());
    private static final ClassDesc CD_LONG_ARRAY = CD_long.arrayType();
    private static final ClassDesc CD_WORD_COMPARE = ClassDesc.of(VectorComparisons.WordCompare.class.getName());
    private static final MethodTypeDesc WORDS =
            MethodTypeDesc.of(CD_void, CD_SEGMENT, CD_SEGMENT, CD_long, CD_int, CD_int, CD_LONG_ARRAY, CD_LONG_ARRAY);

    // The method's parameter slots (slot 0 is this; the long s takes two).
    private static final int A = 1;
    private static final int B = 2;
    private static final int S = 3;
    private static final int FROM = 5;
    private static final int N = 6;
    private static final int LT = 7;
    private static final int EQ = 8;

    private WordCompareCompiler() {}

    /** A new loop comparing {@code lanes} elements against {@code shape}. */
    static VectorComparisons.WordCompare compile(Lanes lanes, Shape shape) {
        if (shape == Shape.NAN_SCALAR && !lanes.floating) {
            throw new IllegalArgumentException("integers have no NaN");
        }
        byte[] bytes = ClassFile.of()
                .build(
                        ClassDesc.of(
                                WordCompareCompiler.class.getPackageName() + ".WordCompare_" + lanes + "_" + shape),
                        cb -> cb.withFlags(ClassFile.ACC_PUBLIC | ClassFile.ACC_FINAL | ClassFile.ACC_SYNTHETIC)
                                .withInterfaceSymbols(CD_WORD_COMPARE)
                                .withMethodBody(
                                        "<init>",
                                        MethodTypeDesc.of(CD_void),
                                        ClassFile.ACC_PUBLIC,
                                        code -> code.aload(0)
                                                .invokespecial(CD_Object, "<init>", MethodTypeDesc.of(CD_void))
                                                .return_())
                                .withMethodBody(
                                        "words",
                                        WORDS,
                                        ClassFile.ACC_PUBLIC | ClassFile.ACC_FINAL,
                                        code -> new Emitter(code, lanes, shape).method()));
        try {
            MethodHandles.Lookup hidden = MethodHandles.lookup().defineHiddenClass(bytes, true);
            return (VectorComparisons.WordCompare)
                    hidden.findConstructor(hidden.lookupClass(), MethodType.methodType(void.class))
                            .invoke();
        } catch (Throwable e) {
            throw new IllegalStateException("cannot load the comparison loop for " + lanes + " against " + shape, e);
        }
    }

    /** Emits one {@code words} method. */
    private static final class Emitter {
        private final CodeBuilder code;
        private final Lanes lanes;
        private final Shape shape;
        private int broadcast;
        private int base;
        private int l;
        private int e;

        Emitter(CodeBuilder code, Lanes lanes, Shape shape) {
            this.code = code;
            this.lanes = lanes;
            this.shape = shape;
        }

        void method() {
            if (shape == Shape.SCALAR) {
                species();
                scalarFromBits();
                code.invokestatic(lanes.vector, "broadcast", MethodTypeDesc.of(lanes.vector, CD_SPECIES, lanes.scalar));
                broadcast = code.allocateLocal(TypeKind.REFERENCE);
                code.astore(broadcast);
            }
            int k = code.allocateLocal(TypeKind.INT);
            base = code.allocateLocal(TypeKind.LONG);
            l = code.allocateLocal(TypeKind.LONG);
            e = code.allocateLocal(TypeKind.LONG);
            Label loop = code.newLabel();
            Label exit = code.newLabel();
            code.iconst_0().istore(k);
            code.labelBinding(loop);
            code.iload(k).iload(N).bipush(6).iushr().if_icmpge(exit);
            // base = (long) (from + (k << 6)) << shift
            code.iload(FROM).iload(k).bipush(6).ishl().iadd().i2l();
            code.ldc(lanes.shift).lshl().lstore(base);
            code.lconst_0().lstore(l);
            code.lconst_0().lstore(e);
            for (int j = 0; j < 64; j += lanes.lanes) {
                step(j);
            }
            // lt[k] = l (against a NaN scalar: every row but the NaN ones), eq[k] = e
            code.aload(LT).iload(k).lload(shape == Shape.NAN_SCALAR ? e : l);
            if (shape == Shape.NAN_SCALAR) {
                code.ldc(-1L).lxor();
            }
            code.lastore();
            code.aload(EQ).iload(k).lload(e).lastore();
            code.iinc(k, 1);
            code.goto_(loop);
            code.labelBinding(exit);
            code.return_();
        }

        /** The lanes starting at row {@code j} of the word. */
        private void step(int j) {
            int x = load(A, j);
            switch (shape) {
                case NAN_SCALAR -> {
                    code.lload(e);
                    isNan(x);
                    shiftedOr(j, e);
                }
                case SCALAR -> {
                    code.lload(l);
                    compare(x, "LT", broadcast);
                    shiftedOr(j, l);
                    code.lload(e);
                    compare(x, "EQ", broadcast);
                    shiftedOr(j, e);
                }
                case COLUMN -> {
                    int y = load(B, j);
                    if (!lanes.floating) {
                        code.lload(l);
                        compare(x, "LT", y);
                        shiftedOr(j, l);
                        code.lload(e);
                        compare(x, "EQ", y);
                        shiftedOr(j, e);
                        return;
                    }
                    int xNan = code.allocateLocal(TypeKind.LONG);
                    int yNan = code.allocateLocal(TypeKind.LONG);
                    isNan(x);
                    code.lstore(xNan);
                    isNan(y);
                    code.lstore(yNan);
                    // l |= (x < y | (yNan & ~xNan)) << j: NaN is above every number
                    code.lload(l);
                    compare(x, "LT", y);
                    code.lload(yNan).lload(xNan).ldc(-1L).lxor().land().lor();
                    shiftedOr(j, l);
                    // e |= (x == y | (xNan & yNan)) << j: and equal to NaN
                    code.lload(e);
                    compare(x, "EQ", y);
                    code.lload(xNan).lload(yNan).land().lor();
                    shiftedOr(j, e);
                }
            }
        }

        /** Loads the vector of {@code segment} at row {@code j} of the word into a new local. */
        private int load(int segment, int j) {
            species();
            code.aload(segment);
            code.lload(base);
            if (j != 0) {
                code.ldc((long) j << lanes.shift).ladd();
            }
            code.getstatic(CD_BYTE_ORDER, "LITTLE_ENDIAN", CD_BYTE_ORDER);
            code.invokestatic(
                    lanes.vector,
                    "fromMemorySegment",
                    MethodTypeDesc.of(lanes.vector, CD_SPECIES, CD_SEGMENT, CD_long, CD_BYTE_ORDER));
            int slot = code.allocateLocal(TypeKind.REFERENCE);
            code.astore(slot);
            return slot;
        }

        /** Pushes {@code x.compare(op, y).toLong()}. */
        private void compare(int x, String op, int y) {
            code.aload(x);
            code.getstatic(CD_OPERATORS, op, CD_COMPARISON);
            code.aload(y);
            code.invokevirtual(lanes.vector, "compare", MethodTypeDesc.of(CD_MASK, CD_COMPARISON, CD_VECTOR));
            code.invokevirtual(CD_MASK, "toLong", MethodTypeDesc.of(CD_long));
        }

        /** Pushes {@code x.test(IS_NAN).toLong()}. */
        private void isNan(int x) {
            code.aload(x);
            code.getstatic(CD_OPERATORS, "IS_NAN", CD_TEST);
            code.invokevirtual(lanes.vector, "test", MethodTypeDesc.of(CD_MASK, CD_TEST));
            code.invokevirtual(CD_MASK, "toLong", MethodTypeDesc.of(CD_long));
        }

        /** With the accumulator and the lanes' bits on the stack: {@code acc = acc | bits << j}. */
        private void shiftedOr(int j, int acc) {
            if (j != 0) {
                code.ldc(j).lshl();
            }
            code.lor().lstore(acc);
        }

        private void species() {
            code.getstatic(lanes.vector, "SPECIES_PREFERRED", CD_SPECIES);
        }

        /** Pushes the scalar of {@code s}'s bits as the lanes' type. */
        private void scalarFromBits() {
            code.lload(S);
            switch (lanes) {
                case FLOAT64 ->
                    code.invokestatic(
                            ClassDesc.of(Double.class.getName()),
                            "longBitsToDouble",
                            MethodTypeDesc.of(CD_double, CD_long));
                case FLOAT32 ->
                    code.l2i()
                            .invokestatic(
                                    ClassDesc.of(Float.class.getName()),
                                    "intBitsToFloat",
                                    MethodTypeDesc.of(CD_float, CD_int));
                case INT32 -> code.l2i();
                case INT64 -> {}
            }
        }
    }
}
