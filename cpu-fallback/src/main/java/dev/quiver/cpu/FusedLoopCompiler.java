package dev.quiver.cpu;

import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

import dev.quiver.backend.RowMode;
import dev.quiver.cpu.VectorCode.Kind;
import dev.quiver.cpu.VectorCode.Val;
import dev.quiver.cpu.math.LaneMath;
import dev.quiver.expr.ExprThreads;
import dev.quiver.rowfn.ir.BinaryOp;
import dev.quiver.rowfn.ir.CmpOp;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
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
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Compiles a {@link KernelProgram} into one fused Vector API loop: a hidden class whose static
 * method loads each argument once per step, computes the value tree (and the null condition)
 * in registers and stores the result, so memory is touched once per row and no intermediate
 * array exists.
 *
 * <p>Why generate bytecode: the Vector API is only fast when every species and operator is a
 * JIT-time constant in straight-line code; an interpreter over the tree (even tile by tile)
 * passes vectors through calls the JIT cannot specialise and loses 2-14x.
 *
 * <p>The generated method is what a person would write by hand. For the Float64 program
 * {@code check(y == 0, select(x > 0, sqrt(x*x + y*y), x / y), "division by zero", y)} over
 * {@code x, y} and a Boolean {@code b}, with null condition {@code !b}, compiled for
 * {@link RowMode#VALID_ROWS} with 8 lanes, it is equivalent to:
 *
 * <pre>{@code
 * static long run(MemorySegment[] args, MemorySegment out, long[] consts, long start, long end,
 *                 MemorySegment validity, long laneMask) {
 *     MemorySegment a0 = args[0], a1 = args[1], a2 = args[2];
 *     DoubleVector c0 = DoubleVector.broadcast(FLOAT64_512, Double.longBitsToDouble(consts[0]));  // 0.0
 *     DoubleVector zero = DoubleVector.broadcast(FLOAT64_512, 0.0);
 *     long computed = 0;
 *     for (long i = start; i < end; i += 8) {
 *         long valid = LaneBits.load8(validity, i);            // VALID_ROWS only:
 *         if (valid == 0) {                                     // no valid row, skip the step
 *             zero.intoMemorySegment(out, i << 3, LE);
 *             continue;
 *         }
 *         computed += 8;
 *         long fail = 0;
 *         DoubleVector x = DoubleVector.fromMemorySegment(FLOAT64_512, a0, i << 3, LE);
 *         DoubleVector y = DoubleVector.fromMemorySegment(FLOAT64_512, a1, i << 3, LE);
 *         long b = LaneBits.load8(a2, i);                       // a Boolean argument: bits
 *         fail |= y.compare(EQ, c0).toLong();                   // the check's failWhen
 *         VectorMask<Double> m = x.compare(GT, c0);
 *         DoubleVector h = x.lanewise(MUL, x).lanewise(ADD, y.lanewise(MUL, y)).lanewise(SQRT);
 *         DoubleVector r = x.lanewise(DIV, y).blend(h, m);      // select(m, h, x / y)
 *         long isNull = b ^ 0xFF;                               // the null condition, !b
 *         fail &= valid & laneMask;                             // ALL_ROWS: fail &= laneMask
 *         if (fail != 0) {
 *             return -1 - (i + Long.numberOfTrailingZeros(fail));
 *         }
 *         r.intoMemorySegment(out, i << 3, LE);
 *         LaneBits.clear8(validity, i, isNull);                 // null where the condition holds
 *     }
 *     return computed;                                          // ALL_ROWS: end - start
 * }
 * }</pre>
 *
 * <ul>
 * <li>Each step loads the arguments it uses, then computes each distinct subtree once into a
 * local (structural equality: the DAGs that functions build and equal subtrees written twice
 * alike), then stores.
 * <li>Literals come from {@code consts} (their bits, one slot per distinct literal, see
 * {@link KernelProgram#constantSlot}) and are broadcast once before the loop, so one compiled
 * loop serves every program of the same {@linkplain KernelProgram#shape() shape}.
 * <li>Booleans are bits (a {@code long}, lane {@code k} in bit {@code k}) where they come from
 * memory or literals, or meet such bits in logic (a CASE's validity), and
 * {@link jdk.incubator.vector.VectorMask}s where comparisons make them and only masks meet, or a
 * numeric {@code select} consumes them; one becomes the other with
 * {@code VectorMask.fromLong} / {@code toLong}, a mask of one element type another with
 * {@code cast}, each conversion made once per step. Boolean arguments and results are Arrow
 * bitmaps ({@link LaneBits}).
 * <li>A row fails where a check's {@code failWhen} holds or an integer division or remainder has
 * a zero divisor (replaced by one, so the loop never traps); the step's failing lanes are
 * collected in {@code fail} and the loop returns {@code -1 - row} for the first failing row of
 * the first step that has one, masked by {@code laneMask} (the padding of the tail step) and,
 * in {@link RowMode#VALID_ROWS}, by the step's validity. Otherwise it returns the number of
 * rows computed.
 * <li>{@code floor}, {@code ceil}, {@code trunc} and {@code rint} have no vector operator:
 * {@link VectorMath} emits them from lanewise operations, as it emits Int32 division (in
 * doubles, exact for 32-bit integers). Int64 division is the Vector API's, which x86 has no
 * instruction for (the JIT divides lane by lane, some 2 ns per row). Everything else that
 * touches a vector is emitted into the loop itself, never called (see {@link VectorCode}); the
 * only helpers, {@link LaneBits}, move bits.
 * <li>The inexact math functions ({@code sin}, {@code exp}, {@code log2}, {@code pow}, ...) are
 * not the Vector API's operators, whose bits depend on the JIT (C2 runs them with a vector math
 * library, the interpreter and C1 with {@code Math} per lane): the step stores their operands
 * into scratch arrays allocated once per run and calls {@link dev.quiver.cpu.math.LaneMath}'s
 * function, bit for bit the reference's in every tier ({@link VectorCode#mathCall}).
 * <li>A floating-point result is stored with every NaN made the canonical NaN: which operand's
 * payload {@code NaN + NaN} keeps depends on the JIT too.
 * </ul>
 *
 * {@code end - start} must be a multiple of the loop's lane count and so must {@code start}
 * (bitmaps are addressed by step); the caller handles the remainder with a padded block.
 *
 * <p>A limit to know: C2 inlines the Vector API calls of one loop up to a node budget
 * (NodeCountInliningCutoff); a program of more than some 60 vector operations per step (each
 * {@code floor} counts a dozen) passes it, and the calls past it run as the
 * Vector API's boxed Java code, several times slower. Such programs would need splitting into
 * loops over intermediate columns, which this compiler does not do.
 */
final class FusedLoopCompiler {
    private static final ClassDesc CD_SEGMENT = ClassDesc.of(MemorySegment.class.getName());
    private static final ClassDesc CD_BYTE_ORDER = ClassDesc.of("java.nio.ByteOrder");
    private static final ClassDesc CD_LANE_BITS = ClassDesc.of(LaneBits.class.getName());
    private static final ClassDesc CD_VECTOR = VectorCode.CD_VECTOR;
    private static final ClassDesc CD_MASK = VectorCode.CD_MASK;
    private static final ClassDesc CD_SPECIES = VectorCode.CD_SPECIES;
    private static final ClassDesc CD_TABLE = VectorCode.CD_TABLE;
    private static final MethodTypeDesc BITS_LOAD = MethodTypeDesc.of(CD_long, CD_SEGMENT, CD_long);
    private static final MethodTypeDesc BITS_STORE = MethodTypeDesc.of(CD_void, CD_SEGMENT, CD_long, CD_long);

    static final MethodType RUN_TYPE = MethodType.methodType(
            long.class,
            MemorySegment[].class,
            MemorySegment.class,
            long[].class,
            long.class,
            long.class,
            MemorySegment.class,
            long.class);
    private static final MethodTypeDesc RUN_DESC = MethodTypeDesc.of(
            CD_long, CD_SEGMENT.arrayType(), CD_SEGMENT, CD_long.arrayType(), CD_long, CD_long, CD_SEGMENT, CD_long);

    // Parameter slots of run(...): longs take two.
    private static final int ARGS = 0, OUT = 1, CONSTS = 2, START = 3, END = 5, VALIDITY = 7, LANE_MASK = 8;

    private FusedLoopCompiler() {}

    /**
     * A compiled loop, the number of rows it advances per step, the mode it was compiled for and
     * the size of its class file.
     */
    record FusedLoop(MethodHandle run, int lanes, RowMode mode, int classBytes) {}

    /** The program's loop would be larger than a JVM method may be: it runs row by row instead ({@link CpuBackend}). */
    static final class LoopTooLargeException extends RuntimeException {
        LoopTooLargeException(String message) {
            super(message);
        }
    }

    static FusedLoop compile(KernelProgram program, RowMode mode) {
        return compile(program, mode, lanesFor(program), true);
    }

    /**
     * @param lanes          rows per step: a power of two from 2 to 64, at most 16 when the program has
     *                       32-bit values and 8 when it has 64-bit ones (the widest species is 512 bits)
     * @param shareSubtrees  compute equal subtrees once per step (false only to measure what it saves)
     */
    static FusedLoop compile(KernelProgram program, RowMode mode, int lanes, boolean shareSubtrees) {
        if (Integer.bitCount(lanes) != 1 || lanes < 2 || lanes > maxLanes(program)) {
            throw new IllegalArgumentException("cannot run " + program.text() + " with " + lanes + " lanes");
        }
        // The emitter recurses over the program's tree (up to KernelProgram.MAX_DEPTH levels): on a thread with a
        // stack for that, not on the thread of the batch, whose stack may be small.
        byte[] bytes = ExprThreads.call(() -> classBytes(program, mode, lanes, shareSubtrees));
        return define(program, mode, lanes, bytes);
    }

    /** The generated class's bytes; {@link LoopTooLargeException} where its method would pass the JVM's limit. */
    private static byte[] classBytes(KernelProgram program, RowMode mode, int lanes, boolean shareSubtrees) {
        byte[] bytes;
        try {
            bytes = ClassFile.of()
                    .build(
                            ClassDesc.of(FusedLoopCompiler.class.getPackageName() + ".FusedLoop"),
                            cb -> cb.withFlags(ClassFile.ACC_PUBLIC | ClassFile.ACC_FINAL | ClassFile.ACC_SYNTHETIC)
                                    .withMethodBody(
                                            "run",
                                            RUN_DESC,
                                            ClassFile.ACC_PUBLIC | ClassFile.ACC_STATIC,
                                            code -> new Emitter(code, program, lanes, mode, shareSubtrees)
                                                    .emitMethod()));
        } catch (IllegalArgumentException e) {
            // The ClassFile API's words for a method over the JVM's 64 KiB of bytecode (nested gcd calls, a large
            // RowFn).
            if (String.valueOf(e.getMessage()).startsWith("Code length")) {
                throw new LoopTooLargeException(program.text() + ": " + e.getMessage());
            }
            throw e;
        }
        return bytes;
    }

    private static FusedLoop define(KernelProgram program, RowMode mode, int lanes, byte[] bytes) {
        try {
            MethodHandles.Lookup hidden = MethodHandles.lookup().defineHiddenClass(bytes, true);
            return new FusedLoop(hidden.findStatic(hidden.lookupClass(), "run", RUN_TYPE), lanes, mode, bytes.length);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot load the fused loop for " + program.text(), e);
        }
    }

    /**
     * All-32-bit programs use the widest 32-bit vectors; anything with 64-bit values the widest
     * 64-bit ones, so every value of a step has the same lanes (as do programs that divide Int32s,
     * which they do in doubles). Programs over Booleans only compute on bits: 64 rows (one
     * {@code long}) per step.
     */
    static int lanesFor(KernelProgram program) {
        if (!hasNumbers(program)) {
            return 64;
        }
        int lanes = VectorSpeciesTable.preferredLanes(hasWideValues(program) ? 64 : 32);
        return Math.max(lanes, 2); // 32-bit species start at 64 bits
    }

    /** The most lanes the 512-bit species allow for the program's values (and Int32 division in doubles). */
    static int maxLanes(KernelProgram program) {
        return !hasNumbers(program) ? 64 : hasWideValues(program) ? 8 : 16;
    }

    private static boolean hasNumbers(KernelProgram program) {
        return program.argTypes().stream().anyMatch(ElementType::isNumeric)
                || program.anyNode(n -> n.type().isNumeric());
    }

    private static boolean hasWideValues(KernelProgram program) {
        return program.argTypes().stream().anyMatch(t -> t.byteWidth() == 8)
                || program.anyNode(n -> n.type().byteWidth() == 8
                        || n instanceof IrNode.Binary b
                                && b.op().failsOnZeroDivisor()
                                && b.type() == ElementType.INT32);
    }

    private static final class Emitter {
        private final CodeBuilder code;
        private final VectorCode v;
        private final KernelProgram program;
        private final int lanes;
        private final long laneBits;
        private final boolean validRows;
        private final boolean fallible;
        private final boolean share;
        private final Map<Integer, Integer> argSegment = new TreeMap<>();
        private final Map<Integer, Val> constVals = new HashMap<>();
        private final IdentityHashMap<IrNode, Integer> ids = new IdentityHashMap<>();
        private final Map<List<Object>, Integer> structure = new HashMap<>();
        private final Map<Integer, Val> values = new HashMap<>();
        private final Map<List<Object>, Val> converted = new HashMap<>();
        private final IdentityHashMap<IrNode, Boolean> fallibleNodes = new IdentityHashMap<>();
        private int nextId;
        private int iSlot;
        private int failSlot = -1;
        private int validSlot = -1;

        Emitter(CodeBuilder code, KernelProgram program, int lanes, RowMode mode, boolean share) {
            this.code = code;
            this.v = new VectorCode(code, lanes);
            this.program = program;
            this.lanes = lanes;
            this.laneBits = LaneBits.laneMask(lanes);
            this.validRows = mode == RowMode.VALID_ROWS;
            this.fallible = program.isFallible();
            this.share = share;
        }

        void emitMethod() {
            iSlot = code.allocateLocal(TypeKind.LONG);
            for (int k : usedArgs()) {
                int slot = code.allocateLocal(TypeKind.REFERENCE);
                code.aload(ARGS).loadConstant(k).aaload().astore(slot);
                argSegment.put(k, slot);
            }
            emitConstants();
            if (program.anyNode(Emitter::callsMath)) {
                v.allocateScratch();
            }
            ElementType rt = program.resultType();
            Val zero = null;
            int computedSlot = -1;
            if (validRows) {
                if (rt.isNumeric()) {
                    zero = v.broadcast(rt, 0);
                }
                computedSlot = code.allocateLocal(TypeKind.LONG);
                code.lconst_0().lstore(computedSlot);
                validSlot = code.allocateLocal(TypeKind.LONG);
            }
            if (fallible) {
                failSlot = code.allocateLocal(TypeKind.LONG);
            }

            Label loop = code.newLabel();
            Label next = code.newLabel();
            Label exit = code.newLabel();
            code.lload(START).lstore(iSlot);
            code.labelBinding(loop);
            code.lload(iSlot).lload(END).lcmp().ifge(exit);
            if (validRows) {
                Label compute = code.newLabel();
                code.aload(VALIDITY)
                        .lload(iSlot)
                        .invokestatic(CD_LANE_BITS, "load" + lanes, BITS_LOAD)
                        .lstore(validSlot);
                code.lload(validSlot).lconst_0().lcmp().ifne(compute);
                if (rt.isNumeric()) {
                    code.aload(zero.slot());
                    storeVector(rt);
                } else {
                    code.aload(OUT).lload(iSlot).lconst_0().invokestatic(CD_LANE_BITS, "store" + lanes, BITS_STORE);
                }
                code.goto_(next);
                code.labelBinding(compute);
                code.lload(computedSlot).loadConstant((long) lanes).ladd().lstore(computedSlot);
            }
            if (fallible) {
                code.lconst_0().lstore(failSlot);
            }

            for (int k : argSegment.keySet()) { // the step's arguments first, as one would write it
                value(new IrNode.Arg(k, program.argTypes().get(k)));
            }
            Val result = value(program.root());
            if (!rt.isNumeric()) {
                result = asBits(result);
            }
            // A null condition that folded to false (a CASE whose every row has a value) clears nothing.
            Val isNull = program.nullWhen()
                    .filter(w -> !(w instanceof IrNode.Const c && c.value().intValue() == 0))
                    .map(w -> asBits(value(w)))
                    .orElse(null);

            if (fallible) {
                Label ok = code.newLabel();
                code.lload(failSlot);
                if (validRows) {
                    code.lload(validSlot).land();
                }
                code.lload(LANE_MASK).land().lstore(failSlot);
                code.lload(failSlot).lconst_0().lcmp().ifeq(ok);
                code.loadConstant(-1L)
                        .lload(iSlot)
                        .lsub()
                        .lload(failSlot)
                        .invokestatic(
                                ClassDesc.of("java.lang.Long"),
                                "numberOfTrailingZeros",
                                MethodTypeDesc.of(CD_int, CD_long))
                        .i2l()
                        .lsub()
                        .lreturn();
                code.labelBinding(ok);
            }
            if (rt.isFloatingPoint()) {
                // One NaN: which operand's payload NaN + NaN keeps depends on the JIT (the interpreter's the right
                // one's).
                result = v.blend(result, Double.NaN, v.test("IS_NAN", result));
            }
            if (rt.isNumeric()) {
                code.aload(result.slot());
                storeVector(rt);
            } else {
                code.aload(OUT)
                        .lload(iSlot)
                        .lload(result.slot())
                        .invokestatic(CD_LANE_BITS, "store" + lanes, BITS_STORE);
            }
            if (isNull != null) {
                code.aload(VALIDITY)
                        .lload(iSlot)
                        .lload(isNull.slot())
                        .invokestatic(CD_LANE_BITS, "clear" + lanes, BITS_STORE);
            }
            code.labelBinding(next);
            code.lload(iSlot).loadConstant((long) lanes).ladd().lstore(iSlot);
            code.goto_(loop);
            code.labelBinding(exit);
            if (validRows) {
                code.lload(computedSlot);
            } else {
                code.lload(END).lload(START).lsub();
            }
            code.lreturn();
        }

        /** Broadcasts each literal slot once, before the loop: a vector, or bits for a Boolean. */
        private void emitConstants() {
            List<IrNode.Const> consts = program.constants();
            for (int k = 0; k < consts.size(); k++) {
                ElementType t = consts.get(k).type();
                if (t == ElementType.BOOL) {
                    code.aload(CONSTS)
                            .loadConstant(k)
                            .laload()
                            .lneg()
                            .loadConstant(laneBits)
                            .land();
                    constVals.put(k, v.storeBits(-1));
                    continue;
                }
                v.species(t);
                code.aload(CONSTS).loadConstant(k).laload();
                ClassDesc prim = switch (t) {
                    case INT32 -> {
                        code.l2i();
                        yield CD_int;
                    }
                    case INT64 -> CD_long;
                    case FLOAT32 -> {
                        code.l2i()
                                .invokestatic(
                                        ClassDesc.of("java.lang.Float"),
                                        "intBitsToFloat",
                                        MethodTypeDesc.of(ClassDesc.ofDescriptor("F"), CD_int));
                        yield ClassDesc.ofDescriptor("F");
                    }
                    case FLOAT64 -> {
                        code.invokestatic(
                                ClassDesc.of("java.lang.Double"),
                                "longBitsToDouble",
                                MethodTypeDesc.of(ClassDesc.ofDescriptor("D"), CD_long));
                        yield ClassDesc.ofDescriptor("D");
                    }
                    case BOOL -> throw new AssertionError();
                };
                ClassDesc vt = VectorCode.vectorClass(t);
                code.invokestatic(vt, "broadcast", MethodTypeDesc.of(vt, CD_SPECIES, prim));
                constVals.put(k, v.storeVector(t, -1));
            }
        }

        /** The arguments the step reads: those under the value and the null condition, less a check's display-only {@code shown}. */
        private SortedSet<Integer> usedArgs() {
            TreeSet<Integer> used = new TreeSet<>();
            IdentityHashMap<IrNode, Boolean> seen = new IdentityHashMap<>();
            collectArgs(program.root(), used, seen);
            program.nullWhen().ifPresent(w -> collectArgs(w, used, seen));
            return used;
        }

        private void collectArgs(IrNode n, Set<Integer> used, IdentityHashMap<IrNode, Boolean> seen) {
            if (seen.put(n, Boolean.TRUE) != null) {
                return;
            }
            switch (n) {
                case IrNode.Arg a -> used.add(a.index());
                case IrNode.Check c -> {
                    collectArgs(c.failWhen(), used, seen);
                    collectArgs(c.value(), used, seen);
                    if (isFallible(c.shown())) {
                        collectArgs(c.shown(), used, seen);
                    }
                }
                default -> {
                    for (IrNode k : n.children()) { // a loop, not forEach: no lambda frame per level of a deep tree
                        collectArgs(k, used, seen);
                    }
                }
            }
        }

        // ---- values

        /** The subtree's number: equal subtrees share one (when sharing), so they are computed once. */
        private int id(IrNode n) {
            if (!share) {
                return nextId++;
            }
            Integer known = ids.get(n);
            if (known != null) {
                return known;
            }
            List<Object> key = switch (n) {
                case IrNode.Arg a -> List.of("arg", a.index(), a.type());
                case IrNode.Const c -> List.of("const", program.constantSlot(c));
                case IrNode.Unary u -> List.of("unary", u.op(), id(u.input()));
                case IrNode.Binary b -> List.of("binary", b.op(), id(b.left()), id(b.right()));
                case IrNode.Fma f -> List.of("fma", id(f.a()), id(f.b()), id(f.c()));
                case IrNode.Cast c -> List.of("cast", c.type(), id(c.input()));
                case IrNode.Compare c -> List.of("compare", c.op(), id(c.left()), id(c.right()));
                case IrNode.Select s -> List.of("select", id(s.condition()), id(s.ifTrue()), id(s.ifFalse()));
                case IrNode.Check c -> List.of("check", c.message(), id(c.failWhen()), id(c.value()), id(c.shown()));
            };
            int id = structure.computeIfAbsent(key, k -> nextId++);
            ids.put(n, id);
            return id;
        }

        /** Computes {@code n} into a local (once per step and subtree) and returns it. */
        private Val value(IrNode n) {
            int id = id(n);
            Val v = values.get(id);
            if (v == null) {
                v = compute(n, id);
                values.put(id, v);
            }
            return v;
        }

        private Val compute(IrNode n, int id) {
            ElementType t = n.type();
            switch (n) {
                case IrNode.Arg a
                when t == ElementType.BOOL -> {
                    code.aload(argSegment.get(a.index()))
                            .lload(iSlot)
                            .invokestatic(CD_LANE_BITS, "load" + lanes, BITS_LOAD);
                    return v.storeBits(id);
                }
                case IrNode.Arg a -> {
                    ClassDesc vt = VectorCode.vectorClass(t);
                    v.species(t);
                    code.aload(argSegment.get(a.index()));
                    byteOffset(t);
                    code.getstatic(CD_TABLE, "LE", CD_BYTE_ORDER);
                    code.invokestatic(
                            vt,
                            "fromMemorySegment",
                            MethodTypeDesc.of(vt, CD_SPECIES, CD_SEGMENT, CD_long, CD_BYTE_ORDER));
                    return v.storeVector(t, id);
                }
                case IrNode.Const c -> {
                    return named(constVals.get(program.constantSlot(c)), id);
                }
                case IrNode.Unary u
                when t == ElementType.BOOL -> { // not
                    Val in = value(u.input());
                    if (in.kind() == Kind.BITS) {
                        code.lload(in.slot()).loadConstant(laneBits).lxor();
                        return v.storeBits(id);
                    }
                    return named(v.not(in), id);
                }
                case IrNode.Unary u
                when LaneMath.of(u.op()).isPresent() -> {
                    return named(v.mathCall(LaneMath.of(u.op()).get(), value(u.input()), null), id);
                }
                case IrNode.Unary u -> {
                    Val in = value(u.input());
                    return named(
                            switch (u.op()) {
                                case FLOOR, CEIL, TRUNC, RINT -> VectorMath.round(v, u.op().name(), in);
                                default -> v.unary(u.op().name(), in);
                            },
                            id);
                }
                case IrNode.Binary b
                when t == ElementType.BOOL -> {
                    return logic(b.op().name(), b.left(), b.right(), id);
                }
                case IrNode.Binary b
                when t.isInteger() && b.op().failsOnZeroDivisor() -> {
                    Val l = value(b.left()), r = value(b.right());
                    Val zero = v.compare("EQ", r, 0);
                    code.lload(failSlot)
                            .aload(zero.slot())
                            .invokevirtual(CD_MASK, "toLong", MethodTypeDesc.of(CD_long));
                    code.lor().lstore(failSlot);
                    Val d = v.blend(r, 1, zero); // never trap: the failure is reported instead
                    // Int64: the Vector API's division, lane by lane on x86 (no instruction).
                    Val q = t == ElementType.INT32 ? VectorMath.int32Quotient(v, l, d) : v.binary("DIV", l, d);
                    return named(b.op() == BinaryOp.DIV ? q : v.binary("SUB", l, v.binary("MUL", q, d)), id);
                }
                case IrNode.Binary b
                when LaneMath.of(b.op()).isPresent() -> {
                    Val l = value(b.left()), r = value(b.right());
                    return named(v.mathCall(LaneMath.of(b.op()).get(), l, r), id);
                }
                case IrNode.Binary b -> {
                    Val l = value(b.left()), r = value(b.right());
                    return named(
                            v.binary(
                                    switch (b.op()) {
                                        case SHL -> "LSHL";
                                        case SHR -> "ASHR";
                                        case USHR -> "LSHR";
                                        default -> b.op().name();
                                    },
                                    l,
                                    r),
                            id);
                }
                case IrNode.Fma f
                when t.isFloatingPoint() -> {
                    Val a = value(f.a()), b = value(f.b()), c = value(f.c());
                    ClassDesc vt = VectorCode.vectorClass(t);
                    code.aload(a.slot());
                    v.operator("FMA");
                    code.aload(b.slot()).aload(c.slot());
                    code.invokevirtual(
                            vt, "lanewise", MethodTypeDesc.of(vt, VectorCode.CD_TERNARY, CD_VECTOR, CD_VECTOR));
                    return v.storeVector(t, id);
                }
                case IrNode.Fma f -> { // integers: wrapping multiply, then add
                    Val a = value(f.a()), b = value(f.b()), c = value(f.c());
                    return named(v.binary("ADD", v.binary("MUL", a, b), c), id);
                }
                case IrNode.Cast c -> {
                    return named(v.convert(value(c.input()), t), id);
                }
                case IrNode.Compare c
                when c.left().type() == ElementType.BOOL -> {
                    return logic(c.op() == CmpOp.EQ ? "EQ" : "XOR", c.left(), c.right(), id);
                }
                case IrNode.Compare c -> {
                    return named(v.compare(c.op().name(), value(c.left()), value(c.right())), id);
                }
                case IrNode.Select s
                when t == ElementType.BOOL -> {
                    Val c = value(s.condition()), yes = value(s.ifTrue()), no = value(s.ifFalse());
                    // On bits when any part is bits (as logic above), on masks when all are masks.
                    if (c.kind() == Kind.BITS || yes.kind() == Kind.BITS || no.kind() == Kind.BITS) {
                        c = asBits(c);
                        yes = asBits(yes);
                        no = asBits(no);
                        code.lload(yes.slot()).lload(c.slot()).land();
                        code.lload(no.slot())
                                .lload(c.slot())
                                .loadConstant(-1L)
                                .lxor()
                                .land();
                        code.lor();
                        return v.storeBits(id);
                    }
                    ElementType sp =
                            yes.kind() == Kind.MASK ? yes.type() : no.kind() == Kind.MASK ? no.type() : c.type();
                    Val cm = asMask(c, sp), ym = asMask(yes, sp), nm = asMask(no, sp);
                    return named(v.mask("or", v.mask("and", ym, cm), v.mask("andNot", nm, cm)), id);
                }
                case IrNode.Select s -> {
                    Val c = value(s.condition()), yes = value(s.ifTrue()), no = value(s.ifFalse());
                    return named(v.blend(no, yes, asMask(c, t)), id);
                }
                case IrNode.Check k -> {
                    Val fails = asBits(value(k.failWhen()));
                    code.lload(failSlot).lload(fails.slot()).lor().lstore(failSlot);
                    if (isFallible(k.shown())) {
                        value(k.shown()); // its failures count, as in the reference; its value is only for messages
                    }
                    return value(k.value());
                }
            }
        }

        /** True for the nodes {@link LaneMath} computes: the loop calls it, with its lanes in scratch arrays. */
        private static boolean callsMath(IrNode n) {
            return n instanceof IrNode.Unary u && LaneMath.of(u.op()).isPresent()
                    || n instanceof IrNode.Binary b && LaneMath.of(b.op()).isPresent();
        }

        private static Val named(Val v, int id) {
            return new Val(v.kind(), v.type(), v.slot(), id);
        }

        /**
         * AND, OR, XOR or EQ of two Booleans: on masks when both are masks, else on bits (a mask turned into bits
         * once): a Boolean argument (a validity, in a CASE) meets comparisons there, and one {@code toLong} and
         * {@code long} logic cost less than a mask made from each argument's bits and mask logic.
         */
        private Val logic(String op, IrNode left, IrNode right, int id) {
            Val l = value(left), r = value(right);
            if (l.kind() == Kind.BITS || r.kind() == Kind.BITS) {
                l = asBits(l);
                r = asBits(r);
                code.lload(l.slot()).lload(r.slot());
                switch (op) {
                    case "AND" -> code.land();
                    case "OR" -> code.lor();
                    case "XOR" -> code.lxor();
                    case "EQ" -> code.lxor().loadConstant(laneBits).lxor();
                    default -> throw new IllegalStateException(op + " on Booleans");
                }
                return v.storeBits(id);
            }
            ElementType sp = l.kind() == Kind.MASK ? l.type() : r.type();
            return named(v.mask(op.toLowerCase(Locale.ROOT), asMask(l, sp), asMask(r, sp)), id);
        }

        /** {@code b}, a Boolean, as a mask of {@code species}'s species (converted once per step). */
        private Val asMask(Val b, ElementType species) {
            if (b.kind() == Kind.MASK && b.type() == species) {
                return b;
            }
            List<Object> key = List.of(b.id(), b.slot(), species);
            Val done = converted.get(key);
            if (done != null) {
                return done;
            }
            if (b.kind() == Kind.MASK) {
                code.aload(b.slot());
                v.species(species);
                code.invokevirtual(CD_MASK, "cast", MethodTypeDesc.of(CD_MASK, CD_SPECIES));
            } else {
                v.species(species);
                code.lload(b.slot());
                code.invokestatic(CD_MASK, "fromLong", MethodTypeDesc.of(CD_MASK, CD_SPECIES, CD_long));
            }
            Val m = v.storeMask(species, b.id());
            converted.put(key, m);
            return m;
        }

        /** {@code b}, a Boolean, as bits (converted once per step). */
        private Val asBits(Val b) {
            if (b.kind() == Kind.BITS) {
                return b;
            }
            List<Object> key = List.of(b.id(), b.slot(), "bits");
            Val done = converted.get(key);
            if (done != null) {
                return done;
            }
            code.aload(b.slot()).invokevirtual(CD_MASK, "toLong", MethodTypeDesc.of(CD_long));
            Val bits = v.storeBits(b.id());
            converted.put(key, bits);
            return bits;
        }

        private boolean isFallible(IrNode n) {
            Boolean known = fallibleNodes.get(n);
            if (known != null) {
                return known;
            }
            boolean f = n instanceof IrNode.Check
                    || n instanceof IrNode.Binary b
                            && b.op().failsOnZeroDivisor()
                            && b.type().isInteger();
            for (IrNode c : n.children()) {
                f |= isFallible(c);
            }
            fallibleNodes.put(n, f);
            return f;
        }

        /** With the vector on the stack: stores it at row i of {@code out}. */
        private void storeVector(ElementType t) {
            code.aload(OUT);
            byteOffset(t);
            code.getstatic(CD_TABLE, "LE", CD_BYTE_ORDER);
            ClassDesc vt = VectorCode.vectorClass(t);
            code.invokevirtual(vt, "intoMemorySegment", MethodTypeDesc.of(CD_void, CD_SEGMENT, CD_long, CD_BYTE_ORDER));
        }

        /** Pushes {@code i << log2(width)}. */
        private void byteOffset(ElementType t) {
            code.lload(iSlot)
                    .loadConstant(Integer.numberOfTrailingZeros(t.byteWidth()))
                    .lshl();
        }
    }
}
