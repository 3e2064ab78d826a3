package dev.quiver.cpu;

import dev.quiver.rowfn.ir.BinaryOp;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import jdk.incubator.vector.VectorOperators;

import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

/**
 * Compiles a {@link KernelProgram} into one fused Vector API loop: a hidden class whose static
 * method loads each argument vector once per step, computes the whole tree in registers and
 * stores the result, so memory is touched once per row and no intermediate array exists.
 *
 * <p>Why generate bytecode: the Vector API is only fast when every species and operator is a
 * JIT-time constant in straight-line code; an interpreter over the tree (even tile by tile)
 * passes vectors through calls the JIT cannot specialise and loses 2-14x. The generated method
 * is equivalent to this hand-written Java, for {@code sqrt(x*x + y*y)} on Float64:
 *
 * <pre>{@code
 * static long run(MemorySegment[] args, MemorySegment out, long[] consts, long start, long end,
 *                 MemorySegment validity, long rowBase, long rowLimit) {
 *     long bad = -1;
 *     MemorySegment a0 = args[0], a1 = args[1];
 *     for (long i = start; i < end; i += LANES) {
 *         DoubleVector x = DoubleVector.fromMemorySegment(FLOAT64_512, a0, i << 3, LE);
 *         DoubleVector y = DoubleVector.fromMemorySegment(FLOAT64_512, a1, i << 3, LE);
 *         x.lanewise(MUL, x).lanewise(ADD, y.lanewise(MUL, y)).lanewise(SQRT).intoMemorySegment(out, i << 3, LE);
 *     }
 *     return bad;
 * }
 * }</pre>
 *
 * Literals are loaded from {@code consts} (their bits, in {@link KernelProgram#constants()}
 * order) and broadcast once before the loop, so one compiled loop serves every program of the
 * same {@linkplain KernelProgram#shape() shape}. {@code end - start} must be a multiple of the
 * loop's lane count; the caller handles the remainder. Integer division records the first
 * non-null row with a zero divisor (rows are {@code rowBase + i}, rows at or past
 * {@code rowLimit} are padding) and returns it, or -1.
 */
final class FusedLoopCompiler {
    private static final ClassDesc CD_SEGMENT = ClassDesc.of(MemorySegment.class.getName());
    private static final ClassDesc CD_BYTE_ORDER = ClassDesc.of("java.nio.ByteOrder");
    private static final ClassDesc CD_VECTOR = ClassDesc.of("jdk.incubator.vector.Vector");
    private static final ClassDesc CD_SPECIES = ClassDesc.of("jdk.incubator.vector.VectorSpecies");
    private static final ClassDesc CD_OPERATORS = ClassDesc.of(VectorOperators.class.getName());
    private static final ClassDesc CD_UNARY = ClassDesc.of(VectorOperators.Unary.class.getName());
    private static final ClassDesc CD_BINARY = ClassDesc.of(VectorOperators.Binary.class.getName());
    private static final ClassDesc CD_TERNARY = ClassDesc.of(VectorOperators.Ternary.class.getName());
    private static final ClassDesc CD_CONVERSION = ClassDesc.of(VectorOperators.Conversion.class.getName());
    private static final ClassDesc CD_TABLE = ClassDesc.of(VectorSpeciesTable.class.getName());
    private static final ClassDesc CD_DIVISION = ClassDesc.of(DivisionChecks.class.getName());
    static final MethodType RUN_TYPE = MethodType.methodType(long.class, MemorySegment[].class, MemorySegment.class,
            long[].class, long.class, long.class, MemorySegment.class, long.class, long.class);
    private static final MethodTypeDesc RUN_DESC = MethodTypeDesc.of(CD_long, CD_SEGMENT.arrayType(), CD_SEGMENT,
            CD_long.arrayType(), CD_long, CD_long, CD_SEGMENT, CD_long, CD_long);

    // Parameter slots of run(...): longs take two.
    private static final int ARGS = 0, OUT = 1, CONSTS = 2, START = 3, END = 5, VALIDITY = 7, ROW_BASE = 8, ROW_LIMIT = 10;

    private FusedLoopCompiler() {
    }

    /** A compiled loop and the number of rows it advances per step. */
    record FusedLoop(MethodHandle run, int lanes) {
    }

    static FusedLoop compile(KernelProgram program) {
        int lanes = lanesFor(program);
        byte[] bytes = ClassFile.of().build(ClassDesc.of(FusedLoopCompiler.class.getPackageName() + ".FusedLoop"),
                cb -> cb.withFlags(ClassFile.ACC_PUBLIC | ClassFile.ACC_FINAL | ClassFile.ACC_SYNTHETIC)
                        .withMethodBody("run", RUN_DESC, ClassFile.ACC_PUBLIC | ClassFile.ACC_STATIC,
                                code -> new Emitter(code, program, lanes).emitMethod()));
        try {
            MethodHandles.Lookup hidden = MethodHandles.lookup().defineHiddenClass(bytes, true);
            return new FusedLoop(hidden.findStatic(hidden.lookupClass(), "run", RUN_TYPE), lanes);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot load the fused loop for " + program.text(), e);
        }
    }

    /** All-32-bit programs use the widest 32-bit vectors; anything with 64-bit values the widest 64-bit ones. */
    static int lanesFor(KernelProgram program) {
        boolean wide = program.argTypes().stream().anyMatch(t -> t.byteWidth() == 8)
                || program.anyNode(n -> n.type().byteWidth() == 8);
        int lanes = VectorSpeciesTable.preferredLanes(wide ? 64 : 32);
        return Math.max(lanes, 2); // 32-bit species start at 64 bits
    }

    private static final class Emitter {
        private final CodeBuilder code;
        private final KernelProgram program;
        private final int lanes;
        private final Map<Integer, Integer> argSegment = new HashMap<>();
        private final Map<Integer, Integer> argVector = new HashMap<>();
        private final Deque<Integer> constLocals = new ArrayDeque<>();
        private int iSlot;
        private int badSlot;

        Emitter(CodeBuilder code, KernelProgram program, int lanes) {
            this.code = code;
            this.program = program;
            this.lanes = lanes;
        }

        void emitMethod() {
            iSlot = code.allocateLocal(TypeKind.LONG);
            badSlot = code.allocateLocal(TypeKind.LONG);
            code.loadConstant(-1L).lstore(badSlot);

            TreeSet<Integer> used = new TreeSet<>();
            collectArgs(program.root(), used);
            for (int k : used) {
                int slot = code.allocateLocal(TypeKind.REFERENCE);
                code.aload(ARGS).loadConstant(k).aaload().astore(slot);
                argSegment.put(k, slot);
                argVector.put(k, code.allocateLocal(TypeKind.REFERENCE));
            }
            List<IrNode.Const> consts = program.constants();
            List<Integer> slots = new ArrayList<>();
            for (int c = 0; c < consts.size(); c++) {
                ElementType t = consts.get(c).type();
                species(t);
                code.aload(CONSTS).loadConstant(c).laload();
                ClassDesc prim = switch (t) {
                    case INT32 -> {
                        code.l2i();
                        yield CD_int;
                    }
                    case INT64 -> CD_long;
                    case FLOAT32 -> {
                        code.l2i().invokestatic(ClassDesc.of("java.lang.Float"), "intBitsToFloat",
                                MethodTypeDesc.of(ClassDesc.ofDescriptor("F"), CD_int));
                        yield ClassDesc.ofDescriptor("F");
                    }
                    case FLOAT64 -> {
                        code.invokestatic(ClassDesc.of("java.lang.Double"), "longBitsToDouble",
                                MethodTypeDesc.of(ClassDesc.ofDescriptor("D"), CD_long));
                        yield ClassDesc.ofDescriptor("D");
                    }
                };
                code.invokestatic(vectorClass(t), "broadcast", MethodTypeDesc.of(vectorClass(t), CD_SPECIES, prim));
                int slot = code.allocateLocal(TypeKind.REFERENCE);
                code.astore(slot);
                slots.add(slot);
            }

            Label loop = code.newLabel();
            Label exit = code.newLabel();
            code.lload(START).lstore(iSlot);
            code.labelBinding(loop);
            code.lload(iSlot).lload(END).lcmp().ifge(exit);
            for (int k : used) {
                ElementType t = program.argTypes().get(k);
                species(t);
                code.aload(argSegment.get(k));
                byteOffset(t);
                code.getstatic(CD_TABLE, "LE", CD_BYTE_ORDER);
                code.invokestatic(vectorClass(t), "fromMemorySegment",
                        MethodTypeDesc.of(vectorClass(t), CD_SPECIES, CD_SEGMENT, CD_long, CD_BYTE_ORDER));
                code.astore(argVector.get(k));
            }
            constLocals.clear();
            constLocals.addAll(slots);
            emit(program.root());
            ElementType rt = program.resultType();
            code.aload(OUT);
            byteOffset(rt);
            code.getstatic(CD_TABLE, "LE", CD_BYTE_ORDER);
            code.invokevirtual(vectorClass(rt), "intoMemorySegment",
                    MethodTypeDesc.of(CD_void, CD_SEGMENT, CD_long, CD_BYTE_ORDER));
            code.lload(iSlot).loadConstant((long) lanes).ladd().lstore(iSlot);
            code.goto_(loop);
            code.labelBinding(exit);
            code.lload(badSlot).lreturn();
        }

        private void emit(IrNode node) {
            ElementType t = node.type();
            ClassDesc vt = vectorClass(t);
            switch (node) {
                case IrNode.Arg a -> code.aload(argVector.get(a.index()));
                case IrNode.Const c -> code.aload(constLocals.removeFirst());
                case IrNode.Unary u -> {
                    emit(u.input());
                    operator(u.op().name());
                    code.invokevirtual(vt, "lanewise", MethodTypeDesc.of(vt, CD_UNARY));
                }
                case IrNode.Binary b when b.op() == BinaryOp.DIV && !t.isFloatingPoint() -> {
                    int left = code.allocateLocal(TypeKind.REFERENCE);
                    int right = code.allocateLocal(TypeKind.REFERENCE);
                    emit(b.left());
                    code.astore(left);
                    emit(b.right());
                    code.astore(right);
                    code.aload(right).aload(VALIDITY).lload(iSlot).lload(ROW_BASE).lload(ROW_LIMIT).lload(badSlot);
                    code.invokestatic(CD_DIVISION, "firstZeroDivisor",
                            MethodTypeDesc.of(CD_long, vt, CD_SEGMENT, CD_long, CD_long, CD_long, CD_long));
                    code.lstore(badSlot);
                    code.aload(left).aload(right);
                    code.invokestatic(CD_DIVISION, "divide", MethodTypeDesc.of(vt, vt, vt));
                }
                case IrNode.Binary b -> {
                    emit(b.left());
                    operator(b.op().name());
                    emit(b.right());
                    code.invokevirtual(vt, "lanewise", MethodTypeDesc.of(vt, CD_BINARY, CD_VECTOR));
                }
                case IrNode.Fma f when t.isFloatingPoint() -> {
                    emit(f.a());
                    operator("FMA");
                    emit(f.b());
                    emit(f.c());
                    code.invokevirtual(vt, "lanewise", MethodTypeDesc.of(vt, CD_TERNARY, CD_VECTOR, CD_VECTOR));
                }
                case IrNode.Fma f -> { // integers: wrapping multiply, then add
                    emit(f.a());
                    operator("MUL");
                    emit(f.b());
                    code.invokevirtual(vt, "lanewise", MethodTypeDesc.of(vt, CD_BINARY, CD_VECTOR));
                    operator("ADD");
                    emit(f.c());
                    code.invokevirtual(vt, "lanewise", MethodTypeDesc.of(vt, CD_BINARY, CD_VECTOR));
                }
                case IrNode.Cast c -> {
                    emit(c.input());
                    operator(conversionName(c.input().type(), t));
                    species(t);
                    code.loadConstant(0);
                    code.invokevirtual(CD_VECTOR, "convertShape", MethodTypeDesc.of(CD_VECTOR, CD_CONVERSION, CD_SPECIES, CD_int));
                    code.checkcast(vt);
                }
            }
        }

        private void collectArgs(IrNode n, TreeSet<Integer> used) {
            if (n instanceof IrNode.Arg a) {
                used.add(a.index());
            }
            n.children().forEach(c -> collectArgs(c, used));
        }

        /** Pushes {@code i << log2(width)}. */
        private void byteOffset(ElementType t) {
            code.lload(iSlot).loadConstant(Integer.numberOfTrailingZeros(t.byteWidth())).lshl();
        }

        private void species(ElementType t) {
            code.getstatic(CD_TABLE, t.name() + "_" + (lanes * t.byteWidth() * 8), CD_SPECIES);
        }

        private void operator(String name) {
            try {
                Class<?> type = VectorOperators.class.getField(name).getType();
                code.getstatic(CD_OPERATORS, name, ClassDesc.of(type.getName()));
            } catch (NoSuchFieldException e) {
                throw new IllegalStateException("no vector operator " + name, e);
            }
        }
    }

    private static String conversionName(ElementType from, ElementType to) {
        return letter(from) + "2" + letter(to);
    }

    private static String letter(ElementType t) {
        return switch (t) {
            case INT32 -> "I";
            case INT64 -> "L";
            case FLOAT32 -> "F";
            case FLOAT64 -> "D";
        };
    }

    private static ClassDesc vectorClass(ElementType t) {
        return ClassDesc.of("jdk.incubator.vector." + switch (t) {
            case INT32 -> "IntVector";
            case INT64 -> "LongVector";
            case FLOAT32 -> "FloatVector";
            case FLOAT64 -> "DoubleVector";
        });
    }
}
