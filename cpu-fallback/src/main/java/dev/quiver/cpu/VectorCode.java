package dev.quiver.cpu;

import static java.lang.constant.ConstantDescs.CD_double;
import static java.lang.constant.ConstantDescs.CD_float;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;

import dev.quiver.cpu.math.LaneMath;
import dev.quiver.types.ElementType;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import jdk.incubator.vector.VectorOperators;

/**
 * Bytecode for Vector API operations on the locals of a fused loop, one call per operation,
 * each result stored into a fresh local. Species are {@code getstatic}s of
 * {@link VectorSpeciesTable} and operators of {@link VectorOperators}, so the JIT sees every
 * one as a constant where the call is (a helper method taking a vector would not do: once the
 * JIT has compiled it on its own, it may refuse to inline it into a loop, and a vector passed
 * through a call is a heap object).
 */
final class VectorCode {
    static final ClassDesc CD_VECTOR = ClassDesc.of("jdk.incubator.vector.Vector");
    static final ClassDesc CD_MASK = ClassDesc.of("jdk.incubator.vector.VectorMask");
    static final ClassDesc CD_SPECIES = ClassDesc.of("jdk.incubator.vector.VectorSpecies");
    private static final ClassDesc CD_OPERATORS = ClassDesc.of(VectorOperators.class.getName());
    static final ClassDesc CD_UNARY = ClassDesc.of(VectorOperators.Unary.class.getName());
    static final ClassDesc CD_BINARY = ClassDesc.of(VectorOperators.Binary.class.getName());
    static final ClassDesc CD_TERNARY = ClassDesc.of(VectorOperators.Ternary.class.getName());
    static final ClassDesc CD_COMPARISON = ClassDesc.of(VectorOperators.Comparison.class.getName());
    private static final ClassDesc CD_TEST = ClassDesc.of(VectorOperators.Test.class.getName());
    static final ClassDesc CD_CONVERSION = ClassDesc.of(VectorOperators.Conversion.class.getName());
    static final ClassDesc CD_TABLE = ClassDesc.of(VectorSpeciesTable.class.getName());
    private static final ClassDesc CD_LANE_MATH = ClassDesc.of(LaneMath.class.getName());
    private static final MethodTypeDesc MASK_MASK = MethodTypeDesc.of(CD_MASK, CD_MASK);

    /** What a local holds: a vector, a mask, or the bits of a mask in a {@code long}. */
    enum Kind {
        VECTOR,
        MASK,
        BITS
    }

    /**
     * A value computed in the step: a vector of {@code type}, a mask of {@code type}'s species,
     * or bits (a long). {@code id} names the subtree it is the value of (-1 for intermediates).
     */
    record Val(Kind kind, ElementType type, int slot, int id) {}

    final CodeBuilder code;
    final int lanes;
    /** Slots of the scratch arrays math functions run in: two {@code double[]}, two {@code float[]} (see {@link #allocateScratch}). */
    private int[] scratch;

    VectorCode(CodeBuilder code, int lanes) {
        this.code = code;
        this.lanes = lanes;
    }

    // ---- plumbing

    void species(ElementType t) {
        code.getstatic(CD_TABLE, t.name() + "_" + (lanes * t.byteWidth() * 8), CD_SPECIES);
    }

    void operator(String name) {
        try {
            Class<?> type = VectorOperators.class.getField(name).getType();
            code.getstatic(CD_OPERATORS, name, ClassDesc.of(type.getName()));
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException("no vector operator " + name, e);
        }
    }

    Val storeVector(ElementType t, int id) {
        int slot = code.allocateLocal(TypeKind.REFERENCE);
        code.astore(slot);
        return new Val(Kind.VECTOR, t, slot, id);
    }

    Val storeMask(ElementType species, int id) {
        int slot = code.allocateLocal(TypeKind.REFERENCE);
        code.astore(slot);
        return new Val(Kind.MASK, species, slot, id);
    }

    Val storeBits(int id) {
        int slot = code.allocateLocal(TypeKind.LONG);
        code.lstore(slot);
        return new Val(Kind.BITS, ElementType.BOOL, slot, id);
    }

    static ClassDesc vectorClass(ElementType t) {
        return ClassDesc.of("jdk.incubator.vector."
                + switch (t) {
                    case INT32 -> "IntVector";
                    case INT64 -> "LongVector";
                    case FLOAT32 -> "FloatVector";
                    case FLOAT64 -> "DoubleVector";
                    case BOOL -> throw new IllegalArgumentException("Booleans are masks or bits, not vectors");
                });
    }

    /** The integer type with the lanes of {@code t}'s width (for bit views of floats). */
    static ElementType integral(ElementType t) {
        return t.byteWidth() == 8 ? ElementType.INT64 : ElementType.INT32;
    }

    static ElementType floating(ElementType t) {
        return t.byteWidth() == 8 ? ElementType.FLOAT64 : ElementType.FLOAT32;
    }

    private static ClassDesc scalar(ElementType t) {
        return switch (t) {
            case INT32 -> CD_int;
            case INT64 -> CD_long;
            case FLOAT32 -> CD_float;
            case FLOAT64 -> CD_double;
            case BOOL -> throw new IllegalArgumentException("no Boolean scalars");
        };
    }

    /** Pushes {@code value} as a scalar of {@code t}. */
    private void push(ElementType t, double value) {
        switch (t) {
            case INT32 -> code.loadConstant((int) value);
            case INT64 -> code.loadConstant((long) value);
            case FLOAT32 -> code.loadConstant((float) value);
            case FLOAT64 -> code.loadConstant(value);
            case BOOL -> throw new IllegalArgumentException("no Boolean scalars");
        }
    }

    private void pushBits(ElementType t, long bits) {
        if (t == ElementType.INT32) {
            code.loadConstant((int) bits);
        } else {
            code.loadConstant(bits);
        }
    }

    /**
     * Allocates the scratch arrays {@link #mathCall} stores lanes into, once per run of the
     * loop (each thread that runs it has its own): two {@code double[]} and two {@code float[]},
     * {@link LaneMath#scratchLength} of the loop's lanes each.
     */
    void allocateScratch() {
        int length = LaneMath.scratchLength(lanes);
        scratch = new int[4];
        for (int k = 0; k < 4; k++) {
            scratch[k] = code.allocateLocal(TypeKind.REFERENCE);
            code.loadConstant(length)
                    .newarray(k < 2 ? TypeKind.DOUBLE : TypeKind.FLOAT)
                    .astore(scratch[k]);
        }
    }

    /**
     * {@code function} ({@link LaneMath}) of the lanes of {@code a}, or of {@code a} and {@code b}:
     * each vector stored into a scratch array ({@code intoArray}), a Float32 one widened to
     * Float64, {@code function.apply(...)} called, the result rounded back to Float32 if it is one
     * and loaded ({@code fromArray}).
     */
    Val mathCall(Class<?> function, Val a, Val b) {
        if (scratch == null) {
            throw new IllegalStateException("no scratch arrays: allocateScratch() first");
        }
        ElementType t = a.type();
        boolean f32 = t == ElementType.FLOAT32;
        ClassDesc vt = vectorClass(t);
        ClassDesc array = f32 ? CD_float.arrayType() : CD_double.arrayType();
        ClassDesc doubles = CD_double.arrayType();
        Val[] operands = b == null ? new Val[] {a} : new Val[] {a, b};
        for (int k = 0; k < operands.length; k++) {
            code.aload(operands[k].slot()).aload(scratch[f32 ? 2 + k : k]).iconst_0();
            code.invokevirtual(vt, "intoArray", MethodTypeDesc.of(ConstantDescs.CD_void, array, CD_int));
            if (f32) {
                code.aload(scratch[2 + k]).aload(scratch[k]).loadConstant(lanes);
                code.invokestatic(
                        CD_LANE_MATH, "widen", MethodTypeDesc.of(ConstantDescs.CD_void, array, doubles, CD_int));
            }
        }
        code.aload(scratch[0]);
        if (b != null) {
            code.aload(scratch[1]);
        }
        code.loadConstant(lanes);
        code.invokestatic(
                ClassDesc.of(function.getName()),
                "apply",
                b == null
                        ? MethodTypeDesc.of(ConstantDescs.CD_void, doubles, CD_int)
                        : MethodTypeDesc.of(ConstantDescs.CD_void, doubles, doubles, CD_int));
        if (f32) {
            code.aload(scratch[0]).aload(scratch[2]).loadConstant(lanes);
            code.invokestatic(CD_LANE_MATH, "narrow", MethodTypeDesc.of(ConstantDescs.CD_void, doubles, array, CD_int));
        }
        species(t);
        code.aload(scratch[f32 ? 2 : 0]).iconst_0();
        code.invokestatic(vt, "fromArray", MethodTypeDesc.of(vt, CD_SPECIES, array, CD_int));
        return storeVector(t, -1);
    }

    // ---- operations; each returns its result in a new local

    /** {@code t.broadcast(species, value)}. */
    Val broadcast(ElementType t, double value) {
        species(t);
        push(t, value);
        code.invokestatic(vectorClass(t), "broadcast", MethodTypeDesc.of(vectorClass(t), CD_SPECIES, scalar(t)));
        return storeVector(t, -1);
    }

    /** {@code a.lanewise(op)}. */
    Val unary(String op, Val a) {
        ClassDesc vt = vectorClass(a.type());
        code.aload(a.slot());
        operator(op);
        code.invokevirtual(vt, "lanewise", MethodTypeDesc.of(vt, CD_UNARY));
        return storeVector(a.type(), -1);
    }

    /** {@code a.lanewise(op, m)}: {@code op} where {@code m} is set, {@code a} elsewhere. */
    Val unary(String op, Val a, Val m) {
        ClassDesc vt = vectorClass(a.type());
        code.aload(a.slot());
        operator(op);
        code.aload(m.slot());
        code.invokevirtual(vt, "lanewise", MethodTypeDesc.of(vt, CD_UNARY, CD_MASK));
        return storeVector(a.type(), -1);
    }

    /** {@code a.lanewise(op, b)}. */
    Val binary(String op, Val a, Val b) {
        ClassDesc vt = vectorClass(a.type());
        code.aload(a.slot());
        operator(op);
        code.aload(b.slot());
        code.invokevirtual(vt, "lanewise", MethodTypeDesc.of(vt, CD_BINARY, CD_VECTOR));
        return storeVector(a.type(), -1);
    }

    /** {@code a.lanewise(op, s)} with a scalar of {@code a}'s type. */
    Val binary(String op, Val a, double s) {
        ClassDesc vt = vectorClass(a.type());
        code.aload(a.slot());
        operator(op);
        push(a.type(), s);
        code.invokevirtual(vt, "lanewise", MethodTypeDesc.of(vt, CD_BINARY, scalar(a.type())));
        return storeVector(a.type(), -1);
    }

    /** {@code a.lanewise(op, bits)} for integer vectors, the scalar given by its bits (masks, shifts). */
    Val binaryBits(String op, Val a, long bits) {
        ClassDesc vt = vectorClass(a.type());
        code.aload(a.slot());
        operator(op);
        pushBits(a.type(), bits);
        code.invokevirtual(vt, "lanewise", MethodTypeDesc.of(vt, CD_BINARY, scalar(a.type())));
        return storeVector(a.type(), -1);
    }

    /** {@code a.lanewise(op, s, m)}: {@code op} where {@code m} is set, {@code a} elsewhere. */
    Val binary(String op, Val a, double s, Val m) {
        ClassDesc vt = vectorClass(a.type());
        code.aload(a.slot());
        operator(op);
        push(a.type(), s);
        code.aload(m.slot());
        code.invokevirtual(vt, "lanewise", MethodTypeDesc.of(vt, CD_BINARY, scalar(a.type()), CD_MASK));
        return storeVector(a.type(), -1);
    }

    /** {@code a.compare(op, b)}. */
    Val compare(String op, Val a, Val b) {
        code.aload(a.slot());
        operator(op);
        code.aload(b.slot());
        code.invokevirtual(vectorClass(a.type()), "compare", MethodTypeDesc.of(CD_MASK, CD_COMPARISON, CD_VECTOR));
        return storeMask(a.type(), -1);
    }

    /** {@code a.compare(op, s)}. */
    Val compare(String op, Val a, double s) {
        code.aload(a.slot());
        operator(op);
        push(a.type(), s);
        code.invokevirtual(
                vectorClass(a.type()), "compare", MethodTypeDesc.of(CD_MASK, CD_COMPARISON, scalar(a.type())));
        return storeMask(a.type(), -1);
    }

    /** {@code a.test(op)}: IS_NEGATIVE (the sign bit), IS_NAN, IS_FINITE, IS_INFINITE. */
    Val test(String op, Val a) {
        code.aload(a.slot());
        operator(op);
        code.invokevirtual(vectorClass(a.type()), "test", MethodTypeDesc.of(CD_MASK, CD_TEST));
        return storeMask(a.type(), -1);
    }

    /** {@code a.blend(b, m)}: {@code b} where {@code m} is set, {@code a} elsewhere. */
    Val blend(Val a, Val b, Val m) {
        ClassDesc vt = vectorClass(a.type());
        code.aload(a.slot()).aload(b.slot()).aload(m.slot());
        code.invokevirtual(vt, "blend", MethodTypeDesc.of(vt, CD_VECTOR, CD_MASK));
        return storeVector(a.type(), -1);
    }

    /** {@code a.blend(s, m)}. */
    Val blend(Val a, double s, Val m) {
        ClassDesc vt = vectorClass(a.type());
        code.aload(a.slot());
        push(a.type(), s);
        code.aload(m.slot());
        code.invokevirtual(vt, "blend", MethodTypeDesc.of(vt, scalar(a.type()), CD_MASK));
        return storeVector(a.type(), -1);
    }

    /** {@code m1.op(m2)} for and, or, xor, andNot, eq (masks of one species). */
    Val mask(String op, Val m1, Val m2) {
        code.aload(m1.slot()).aload(m2.slot());
        code.invokevirtual(CD_MASK, op, MASK_MASK);
        return storeMask(m1.type(), -1);
    }

    Val not(Val m) {
        code.aload(m.slot()).invokevirtual(CD_MASK, "not", MethodTypeDesc.of(CD_MASK));
        return storeMask(m.type(), -1);
    }

    /** The bits of a float vector's lanes as integers ({@code viewAsIntegralLanes}). */
    Val integralView(Val a) {
        ElementType it = integral(a.type());
        code.aload(a.slot())
                .invokevirtual(vectorClass(a.type()), "viewAsIntegralLanes", MethodTypeDesc.of(vectorClass(it)));
        return storeVector(it, -1);
    }

    /** Integer lanes' bits as floats ({@code viewAsFloatingLanes}). */
    Val floatingView(Val a) {
        ElementType ft = floating(a.type());
        code.aload(a.slot())
                .invokevirtual(vectorClass(a.type()), "viewAsFloatingLanes", MethodTypeDesc.of(vectorClass(ft)));
        return storeVector(ft, -1);
    }

    /** {@code (to) a.convertShape(conversion, to's species, part)}. */
    Val convert(Val a, ElementType to, String speciesField, int part) {
        code.aload(a.slot());
        operator(letter(a.type()) + "2" + letter(to));
        code.getstatic(CD_TABLE, speciesField, CD_SPECIES);
        code.loadConstant(part);
        code.invokevirtual(CD_VECTOR, "convertShape", MethodTypeDesc.of(CD_VECTOR, CD_CONVERSION, CD_SPECIES, CD_int));
        code.checkcast(vectorClass(to));
        return storeVector(to, -1);
    }

    /** {@code a} converted to {@code to} as Java's cast, with the loop's lanes. */
    Val convert(Val a, ElementType to) {
        return convert(a, to, to.name() + "_" + (lanes * to.byteWidth() * 8), 0);
    }

    private static String letter(ElementType t) {
        return switch (t) {
            case INT32 -> "I";
            case INT64 -> "L";
            case FLOAT32 -> "F";
            case FLOAT64 -> "D";
            case BOOL -> throw new IllegalArgumentException("Booleans are not converted");
        };
    }
}
