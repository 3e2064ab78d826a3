package dev.quiver.opencl;

import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The OpenCL C translation of a {@link KernelProgram}: one kernel, {@value #KERNEL_NAME}, that
 * computes the program with Java's semantics ({@link dev.quiver.rowfn.ir.RowInterpreter}): bit
 * for bit, except the ulp error of the transcendental functions' finite results.
 *
 * <p>Kernel parameters, in order: {@code const int rows}, {@code const int all_rows} (1 for
 * {@link dev.quiver.backend.RowMode#ALL_ROWS}), one {@code __global const T* aN} per program
 * argument ({@code uchar} bitmaps for Booleans), {@code __global R* out} (a bitmap for a Boolean
 * result), {@code __global uchar* valid} (the output validity; {@code const} unless the program
 * has a null condition; may be NULL in ALL_ROWS mode when the program has none),
 * {@code __global int* status} when the program can fail ({@link KernelProgram#isFallible()}),
 * then one {@code const T cN} per literal slot ({@link KernelProgram#constantSlot}; Booleans as
 * {@code int}). Literals are parameters so that programs of one {@link KernelProgram#shape() shape}
 * share one compiled program.
 *
 * <p>Rows: one row per work item; or, for a program with a Boolean result or a null condition,
 * eight consecutive rows per work item ({@link #rowsPerItem()}), so that every byte of the
 * result bitmap and of the validity is written by one work item (whole bytes; the bits past the
 * last row are kept). In VALID_ROWS mode a null row is not computed (its value is 0, and it
 * cannot fail); in ALL_ROWS mode every row is computed and can fail. Where the null condition
 * holds in a computed row, its validity bit is cleared. The IR is a DAG: each distinct node
 * (structural equality) is computed once per row, as one temporary.
 *
 * <p>Where OpenCL C and Java differ, the source does what Java does:
 * <ul>
 *   <li>{@code FP_CONTRACT OFF}: OpenCL C may fuse {@code a * b + c} into one rounding; Java never does.</li>
 *   <li>Integer {@code + - * <<} and negation wrap: computed in the unsigned type, since signed
 *       overflow is undefined in C; {@code >>} of a negative value is spelled with complements;
 *       shift counts are masked as Java's ({@code & 31}, {@code & 63}).</li>
 *   <li>Integer division and remainder: {@code MIN / -1} is {@code MIN} and {@code MIN % -1} is 0
 *       (x86 would trap), and a zero divisor is never executed: it divides by 1 and fails the row.
 *       A failing row (a zero divisor or a {@link IrNode.Check} that fires) is kept, the smallest
 *       one, in {@code status[0]} ({@code atomic_min}; the host starts it at {@code INT_MAX}).</li>
 *   <li>Floating-point min/max as {@link Math#min}/{@link Math#max} (NaN wins, -0.0 &lt; +0.0),
 *       which OpenCL's {@code fmin}/{@code fmax} are not.</li>
 *   <li>{@code pow} as {@link StrictMath#pow}: NaN for a NaN exponent (C: {@code pow(1, NaN) = 1})
 *       and for {@code pow(±1, ±Infinity)} (C: 1); {@code pow(x, 1) = x}. {@code log10(10^n) = n}
 *       and {@code log2(2^n) = n} exactly, which the builtins' ulp bounds do not promise. The other
 *       functions' special cases (OpenCL C "Edge Case Behavior", C99 Annex F) are StrictMath's.</li>
 *   <li>Conversions: integer to float round to nearest even; float to integer truncates,
 *       saturates and gives 0 for NaN ({@code convert_T_sat_rtz}, NaN fixed; a plain C
 *       conversion is undefined out of range); Int64 to Int32 keeps the low 32 bits; Float64 to
 *       Float32 rounds to nearest even.</li>
 * </ul>
 *
 * @param text        the OpenCL C source
 * @param hasStatus   whether the kernel takes the {@code status} parameter (the program can fail)
 * @param rowsPerItem rows one work item computes: 1, or 8 for bitmap outputs
 * @param literalBytes the size in bytes of each literal parameter ({@code c0, c1, ...}), in order:
 *                    what a launch that computes no row must still pass (see
 *                    {@link CompiledProgram})
 */
record KernelSource(String text, boolean hasStatus, int rowsPerItem, List<Integer> literalBytes) {
    static final String KERNEL_NAME = "quiver_kernel";
    /** Rows per work item of a kernel that writes bitmaps: one byte. */
    static final int BITMAP_ROWS_PER_ITEM = 8;

    KernelSource {
        Objects.requireNonNull(text, "text is null");
        if (rowsPerItem != 1 && rowsPerItem != BITMAP_ROWS_PER_ITEM) {
            throw new IllegalArgumentException("rowsPerItem must be 1 or 8, got " + rowsPerItem);
        }
        literalBytes = List.copyOf(literalBytes);
    }

    /** A one-row-per-work-item source without literals (tests of the build path). */
    KernelSource(String text, boolean hasStatus) {
        this(text, hasStatus, 1, List.of());
    }

    /** Translates {@code program}. Literal values do not appear in the source. */
    static KernelSource of(KernelProgram program) {
        Objects.requireNonNull(program, "program is null");
        return new Generator(program).generate();
    }

    /** Whether a run of {@code program} writes bitmaps, and so computes 8 rows per work item. */
    static boolean writesBitmaps(KernelProgram program) {
        return program.hasBooleanResult() || program.nullWhen().isPresent();
    }

    /** The OpenCL C type of a kernel buffer of {@code type}: a byte bitmap for Booleans. */
    static String bufferType(ElementType type) {
        return type == ElementType.BOOL ? "uchar" : type.openClName();
    }

    private static final class Generator {
        private final KernelProgram program;
        /** Helper functions by name, in first-use order; a helper never depends on a later one. */
        private final Map<String, String> helpers = new LinkedHashMap<>();
        /** The statements of one row, in dependency order. */
        private final List<String> body = new ArrayList<>();
        /** Emitted nodes: structurally equal nodes share one temporary. */
        private final Map<IrNode, String> emitted = new HashMap<>();
        /** The same, by identity: a shared subtree is looked up without hashing it again. */
        private final Map<IrNode, String> emittedIdentity = new IdentityHashMap<>();

        private final boolean[] argUsed;
        private int nextTemp;

        Generator(KernelProgram program) {
            this.program = program;
            this.argUsed = new boolean[program.arity()];
        }

        KernelSource generate() {
            String result = emit(program.root());
            String nullWhen = program.nullWhen().map(this::emit).orElse(null);
            boolean fallible = program.isFallible();
            boolean bitmaps = writesBitmaps(program);
            boolean booleanResult = program.hasBooleanResult();
            boolean doubles = program.argTypes().contains(ElementType.FLOAT64)
                    || program.anyNode(n -> n.type() == ElementType.FLOAT64);

            StringBuilder src = new StringBuilder();
            src.append("#pragma OPENCL FP_CONTRACT OFF\n");
            // No program text here: it holds literal values, and one source serves every program of the shape.
            src.append("// Generated by Quiver: ")
                    .append(bitmaps ? "8 rows (one bitmap byte)" : "one row")
                    .append(" per work item, literals passed as parameters c0, c1, ...\n");
            if (doubles) {
                src.append("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
            }
            src.append('\n');
            for (String helper : helpers.values()) {
                src.append(helper).append('\n');
            }

            List<String> params = new ArrayList<>();
            params.add("const int rows");
            params.add("const int all_rows");
            for (int i = 0; i < program.arity(); i++) {
                params.add("__global const " + bufferType(program.argTypes().get(i)) + "* a" + i);
            }
            params.add("__global " + bufferType(program.resultType()) + "* out");
            params.add("__global " + (nullWhen == null ? "const " : "") + "uchar* valid");
            if (fallible) {
                params.add("__global int* status");
            }
            List<IrNode.Const> constants = program.constants();
            List<Integer> literalBytes = new ArrayList<>();
            for (int i = 0; i < constants.size(); i++) {
                ElementType t = constants.get(i).type();
                params.add("const " + t.openClName() + " c" + i);
                literalBytes.add(t == ElementType.BOOL ? Integer.BYTES : t.byteWidth()); // a Boolean literal is an int
            }
            src.append("__kernel void ")
                    .append(KERNEL_NAME)
                    .append("(\n        ")
                    .append(String.join(",\n        ", params))
                    .append(") {\n");

            // The statements of one row, its index in i, indented by `indent`.
            List<String> row = new ArrayList<>();
            if (fallible) {
                row.add("int failed = 0;");
            }
            for (int i = 0; i < argUsed.length; i++) {
                if (!argUsed[i]) {
                    continue;
                }
                ElementType t = program.argTypes().get(i);
                row.add(
                        t == ElementType.BOOL
                                ? "const int x" + i + " = (a" + i + "[i >> 3] >> (i & 7)) & 1;"
                                : "const " + t.openClName() + " x" + i + " = a" + i + "[i];");
            }
            row.addAll(body);
            if (fallible) {
                row.add("if (failed) {");
                row.add("    atomic_min(status, i);");
                row.add("}");
            }

            if (!bitmaps) {
                src.append("    const size_t gid = get_global_id(0);\n");
                // The launch rounds the work size up to whole work groups.
                src.append("    if (gid >= (size_t) rows) {\n        return;\n    }\n");
                src.append("    const int i = (int) gid;\n");
                src.append("    if (!all_rows && !((valid[i >> 3] >> (i & 7)) & 1)) {\n");
                src.append("        out[i] = 0;\n        return;\n    }\n");
                for (String line : row) {
                    src.append("    ").append(line).append('\n');
                }
                src.append("    out[i] = ").append(result).append(";\n}\n");
            } else {
                src.append("    const size_t g = get_global_id(0);\n");
                src.append("    if (g >= ((size_t) rows + 7) >> 3) {\n        return;\n    }\n");
                src.append("    const int base = (int) (g << 3);\n");
                src.append("    const int n = min(rows - base, 8);\n");
                src.append("    // The rows of this byte; bits past the last row are not ours.\n");
                src.append("    const uint live = (1u << n) - 1u;\n");
                if (nullWhen != null) {
                    src.append("    const uint v = valid[g];\n");
                    src.append("    const uint compute = all_rows ? live : (v & live);\n");
                } else {
                    src.append("    const uint compute = all_rows ? live : (valid[g] & live);\n");
                }
                if (booleanResult) {
                    src.append("    uint bits = 0u;\n");
                }
                if (nullWhen != null) {
                    src.append("    uint nulls = 0u;\n");
                }
                src.append("    for (int k = 0; k < n; k++) {\n");
                src.append("        const int i = base + k;\n");
                src.append("        if (!((compute >> k) & 1u)) {\n");
                if (!booleanResult) {
                    src.append("            out[i] = 0;\n");
                }
                src.append("            continue;\n        }\n");
                for (String line : row) {
                    src.append("        ").append(line).append('\n');
                }
                if (booleanResult) {
                    src.append("        bits |= ((uint) ").append(result).append(" & 1u) << k;\n");
                } else {
                    src.append("        out[i] = ").append(result).append(";\n");
                }
                if (nullWhen != null) {
                    src.append("        nulls |= ((uint) ").append(nullWhen).append(" & 1u) << k;\n");
                }
                src.append("    }\n");
                if (booleanResult) {
                    src.append("    out[g] = (uchar) ((out[g] & ~live) | bits);\n");
                }
                if (nullWhen != null) {
                    src.append("    if (nulls) {\n        valid[g] = (uchar) (v & ~nulls);\n    }\n");
                }
                src.append("}\n");
            }
            return new KernelSource(src.toString(), fallible, bitmaps ? BITMAP_ROWS_PER_ITEM : 1, literalBytes);
        }

        /** Emits {@code node} (once per distinct node) and returns the name holding its value. */
        private String emit(IrNode node) {
            String done = emittedIdentity.get(node);
            if (done != null) {
                return done;
            }
            done = emitted.get(node);
            if (done == null) {
                done = emitNew(node);
                emitted.put(node, done);
            }
            emittedIdentity.put(node, done);
            return done;
        }

        private String emitNew(IrNode node) {
            return switch (node) {
                case IrNode.Arg a -> {
                    argUsed[a.index()] = true;
                    yield "x" + a.index();
                }
                case IrNode.Const c -> "c" + program.constantSlot(c);
                case IrNode.Unary u -> temp(u.type(), unary(u, emit(u.input())));
                case IrNode.Binary b -> {
                    String left = emit(b.left());
                    String right = emit(b.right());
                    yield temp(b.type(), binary(b, left, right));
                }
                case IrNode.Fma f -> {
                    String a = emit(f.a());
                    String b = emit(f.b());
                    String c = emit(f.c());
                    yield temp(
                            f.type(),
                            f.type().isFloatingPoint()
                                    ? "fma(" + a + ", " + b + ", " + c + ")"
                                    : integerHelper("fma", f.type()) + "(" + a + ", " + b + ", " + c + ")");
                }
                case IrNode.Cast c -> temp(c.type(), cast(c, emit(c.input())));
                // Scalar relational operators give int 0 or 1, false with NaN except !=: Java's.
                case IrNode.Compare c -> {
                    String left = emit(c.left());
                    String right = emit(c.right());
                    yield temp(ElementType.BOOL, left + " " + c.op().symbol() + " " + right);
                }
                // Both sides are computed (they are temporaries already): only the value is picked.
                case IrNode.Select s -> {
                    String condition = emit(s.condition());
                    String ifTrue = emit(s.ifTrue());
                    String ifFalse = emit(s.ifFalse());
                    yield temp(s.type(), condition + " ? " + ifTrue + " : " + ifFalse);
                }
                case IrNode.Check c -> {
                    String failWhen = emit(c.failWhen());
                    String value = emit(c.value());
                    emit(c.shown()); // the reference computes it too, and it may fail itself
                    body.add("failed |= " + failWhen + ";");
                    yield value;
                }
            };
        }

        private String temp(ElementType type, String expression) {
            String name = "t" + nextTemp++;
            body.add("const " + type.openClName() + " " + name + " = " + expression + ";");
            return name;
        }

        private String unary(IrNode.Unary u, String x) {
            ElementType t = u.type();
            if (t == ElementType.BOOL) {
                return switch (u.op()) {
                    case NOT -> x + " ^ 1";
                    default -> throw new IllegalStateException(u.op() + " on a Boolean");
                };
            }
            if (t.isInteger()) {
                return switch (u.op()) {
                    case NEG -> integerHelper("neg", t) + "(" + x + ")";
                    case ABS -> integerHelper("abs", t) + "(" + x + ")";
                    case NOT -> "~" + x;
                    default -> throw new IllegalStateException(u.op() + " on " + t);
                };
            }
            return switch (u.op()) {
                // Floating-point negation flips the sign bit, NaN and zeros included, as in Java.
                case NEG -> "-" + x;
                case ABS -> "fabs(" + x + ")";
                case NOT -> throw new IllegalStateException("not on " + t);
                // Correctly rounded for double always, for float with -cl-fp32-correctly-rounded-divide-sqrt.
                case SQRT -> "sqrt(" + x + ")";
                // The special cases of these builtins (OpenCL C, "Edge Case Behavior") are StrictMath's.
                case CBRT -> "cbrt(" + x + ")";
                case EXP -> "exp(" + x + ")";
                case EXPM1 -> "expm1(" + x + ")";
                case LOG -> "log(" + x + ")";
                case LOG1P -> "log1p(" + x + ")";
                // Exact for powers of two and of ten, as the reference: a builtin within its ulp bound need not be.
                case LOG2 -> floatHelper("log2", t) + "(" + x + ")";
                case LOG10 -> floatHelper("log10", t) + "(" + x + ")";
                case SIN -> "sin(" + x + ")";
                case COS -> "cos(" + x + ")";
                case TAN -> "tan(" + x + ")";
                case ASIN -> "asin(" + x + ")";
                case ACOS -> "acos(" + x + ")";
                case ATAN -> "atan(" + x + ")";
                case SINH -> "sinh(" + x + ")";
                case COSH -> "cosh(" + x + ")";
                case TANH -> "tanh(" + x + ")";
                // Exact, -0.0 kept (ceil(-0.5) is -0.0 in both), ties to even for rint.
                case FLOOR -> "floor(" + x + ")";
                case CEIL -> "ceil(" + x + ")";
                case TRUNC -> "trunc(" + x + ")";
                case RINT -> "rint(" + x + ")";
            };
        }

        private String binary(IrNode.Binary b, String l, String r) {
            ElementType t = b.type();
            if (t == ElementType.BOOL) {
                return switch (b.op()) {
                    case AND -> l + " & " + r;
                    case OR -> l + " | " + r;
                    case XOR -> l + " ^ " + r;
                    default -> throw new IllegalStateException(b.op() + " on a Boolean");
                };
            }
            if (t.isFloatingPoint()) {
                return switch (b.op()) {
                    case ADD -> l + " + " + r;
                    case SUB -> l + " - " + r;
                    case MUL -> l + " * " + r;
                    case DIV -> l + " / " + r;
                    case MIN -> floatHelper("min", t) + "(" + l + ", " + r + ")";
                    case MAX -> floatHelper("max", t) + "(" + l + ", " + r + ")";
                    case POW -> floatHelper("pow", t) + "(" + l + ", " + r + ")";
                    // StrictMath.atan2(y, x), left operand y: the argument order of C's atan2.
                    case ATAN2 -> "atan2(" + l + ", " + r + ")";
                    case HYPOT -> "hypot(" + l + ", " + r + ")";
                    case REM, AND, OR, XOR, SHL, SHR, USHR -> throw new IllegalStateException(b.op() + " on " + t);
                };
            }
            String u = "u" + t.openClName();
            String mask = t == ElementType.INT32 ? "31" : "63";
            return switch (b.op()) {
                case ADD -> integerHelper("add", t) + "(" + l + ", " + r + ")";
                case SUB -> integerHelper("sub", t) + "(" + l + ", " + r + ")";
                case MUL -> integerHelper("mul", t) + "(" + l + ", " + r + ")";
                case DIV -> integerHelper("div", t) + "(" + l + ", " + r + ", &failed)";
                case REM -> integerHelper("rem", t) + "(" + l + ", " + r + ", &failed)";
                // Plain comparisons are exactly Java's integer min/max.
                case MIN -> "(" + l + " < " + r + " ? " + l + " : " + r + ")";
                case MAX -> "(" + l + " > " + r + " ? " + l + " : " + r + ")";
                case AND -> l + " & " + r;
                case OR -> l + " | " + r;
                case XOR -> l + " ^ " + r;
                // In the unsigned type: shifting a negative signed value left is undefined in C.
                case SHL -> "(" + t.openClName() + ") ((" + u + ") " + l + " << (" + r + " & " + mask + "))";
                case SHR -> integerHelper("shr", t) + "(" + l + ", " + r + ")";
                case USHR -> "(" + t.openClName() + ") ((" + u + ") " + l + " >> (" + r + " & " + mask + "))";
                case POW, ATAN2, HYPOT -> throw new IllegalStateException(b.op() + " on " + t);
            };
        }

        private String cast(IrNode.Cast c, String x) {
            ElementType from = c.input().type();
            return switch (c.type()) {
                case INT32 ->
                    switch (from) {
                        // The low 32 bits, as Java: conversions between unsigned types are modular in C.
                        case INT64 -> "as_int((uint) (ulong) " + x + ")";
                        case FLOAT32, FLOAT64 -> floatToInteger(ElementType.INT32, from) + "(" + x + ")";
                        default -> throw new IllegalStateException("no cast from " + from + " to Int32");
                    };
                case INT64 ->
                    switch (from) {
                        case INT32 -> "(long) " + x;
                        case FLOAT32, FLOAT64 -> floatToInteger(ElementType.INT64, from) + "(" + x + ")";
                        default -> throw new IllegalStateException("no cast from " + from + " to Int64");
                    };
                // Java rounds integer-to-float and double-to-float conversions to nearest even; say so
                // rather than rely on the default.
                case FLOAT32 -> "convert_float_rte(" + x + ")";
                case FLOAT64 -> from == ElementType.FLOAT32 ? "(double) " + x : "convert_double_rte(" + x + ")";
                case BOOL -> throw new IllegalStateException("no cast to Boolean");
            };
        }

        /** Java's float-to-integer cast: truncate, saturate, NaN to 0. */
        private String floatToInteger(ElementType to, ElementType from) {
            String t = to.openClName();
            String f = from.openClName();
            String name = "q_" + f + "_to_" + t;
            helpers.putIfAbsent(
                    name,
                    "static inline " + t + " " + name + "(" + f + " x) {\n"
                            + "    // A plain C conversion is undefined out of range; the saturating one is Java's but for NaN.\n"
                            + "    return isnan(x) ? (" + t + ") 0 : convert_" + t + "_sat_rtz(x);\n}\n");
            return name;
        }

        /** Wrapping integer arithmetic, computed in the unsigned type where C would overflow. */
        private String integerHelper(String op, ElementType type) {
            String t = type.openClName();
            String u = "u" + t;
            String name = "q_" + op + "_" + t;
            String definition = switch (op) {
                case "add" ->
                    "static inline " + t + " " + name + "(" + t + " a, " + t + " b) {\n" + "    return (" + t + ") (("
                            + u + ") a + (" + u + ") b);\n}\n";
                case "sub" ->
                    "static inline " + t + " " + name + "(" + t + " a, " + t + " b) {\n" + "    return (" + t + ") (("
                            + u + ") a - (" + u + ") b);\n}\n";
                case "mul" ->
                    "static inline " + t + " " + name + "(" + t + " a, " + t + " b) {\n" + "    return (" + t + ") (("
                            + u + ") a * (" + u + ") b);\n}\n";
                case "fma" ->
                    "static inline " + t + " " + name + "(" + t + " a, " + t + " b, " + t + " c) {\n" + "    return ("
                            + t + ") ((" + u + ") a * (" + u + ") b + (" + u + ") c);\n}\n";
                case "neg" ->
                    "static inline " + t + " " + name + "(" + t + " a) {\n" + "    return (" + t + ") ((" + u
                            + ") 0 - (" + u + ") a);\n}\n";
                // abs(MIN_VALUE) is MIN_VALUE, as in Java: the negation wraps.
                case "abs" ->
                    "static inline " + t + " " + name + "(" + t + " a) {\n" + "    return a < 0 ? (" + t + ") ((" + u
                            + ") 0 - (" + u + ") a) : a;\n}\n";
                // Java's >>: sign-extending, count masked. ~a of a negative a is non-negative, so every
                // shift here is of a non-negative value (C leaves >> of a negative one to the implementation).
                case "shr" ->
                    "static inline " + t + " " + name + "(" + t + " a, " + t + " b) {\n"
                            + "    const int n = (int) (b & " + (type == ElementType.INT32 ? "31" : "63") + ");\n"
                            + "    return a < 0 ? ~(~a >> n) : a >> n;\n}\n";
                case "div" ->
                    "static inline " + t + " " + name + "(" + t + " a, " + t + " b, int* failed) {\n"
                            + "    if (b == 0) {\n"
                            + "        // Never execute a zero divisor (x86 traps): the row fails instead.\n"
                            + "        *failed = 1;\n"
                            + "        b = 1;\n"
                            + "    }\n"
                            + "    if (b == -1) {\n"
                            + "        // MIN / -1 overflows (and traps on x86); Java wraps it to MIN.\n"
                            + "        return (" + t + ") ((" + u + ") 0 - (" + u + ") a);\n"
                            + "    }\n"
                            + "    return a / b;\n}\n";
                case "rem" ->
                    "static inline " + t + " " + name + "(" + t + " a, " + t + " b, int* failed) {\n"
                            + "    if (b == 0) {\n"
                            + "        *failed = 1;\n"
                            + "        return 0;\n"
                            + "    }\n"
                            + "    if (b == -1) {\n"
                            + "        // MIN % -1 overflows in C (and traps on x86); in Java every x % -1 is 0.\n"
                            + "        return 0;\n"
                            + "    }\n"
                            + "    // C99 truncates, so the remainder has the dividend's sign, as in Java.\n"
                            + "    return a % b;\n}\n";
                default -> throw new IllegalArgumentException("no integer helper " + op);
            };
            helpers.putIfAbsent(name, definition);
            return name;
        }

        /**
         * Math.min/Math.max: NaN if either operand is NaN, and on equal operands the bitwise OR
         * (min: -0.0 wins) or AND (max: +0.0 wins) of the two, which only differ for zeros.
         * StrictMath.pow: C's pow but for the special cases where Java differs. log2 and log10: the
         * builtin, exact for powers of two and of ten.
         */
        private String floatHelper(String op, ElementType type) {
            String t = type.openClName();
            String name = "q_" + op + "_" + t;
            String definition;
            if (op.equals("log2")) {
                definition = "static inline " + t + " " + name + "(" + t + " x) {\n"
                        + "    // The IR's log2 is exact for powers of two (subnormal ones included): x = 0.5 * 2^e.\n"
                        + "    int e;\n"
                        + "    if (frexp(x, &e) == (" + t + ") 0.5) {\n        return (" + t + ") (e - 1);\n    }\n"
                        + "    return log2(x);\n}\n";
            } else if (op.equals("log10")) {
                boolean f = type == ElementType.FLOAT32;
                int top = f ? 10 : 22; // the powers of ten the type holds exactly
                StringBuilder table = new StringBuilder();
                for (int n = 0; n <= top; n++) {
                    table.append(n == 0 ? "" : ", ").append("1e").append(n).append(f ? "f" : "");
                }
                helpers.putIfAbsent(
                        "q_p10_" + t, "__constant " + t + " q_p10_" + t + "[" + (top + 1) + "] = {" + table + "};\n");
                definition = "static inline " + t + " " + name + "(" + t + " x) {\n"
                        + "    // StrictMath: log10(10^n) is n exactly.\n"
                        + "    const " + t + " r = log10(x);\n"
                        + "    const " + t + " n = rint(r);\n"
                        + "    if (n >= 0 && n <= " + top + " && x == q_p10_" + t
                        + "[(int) n]) {\n        return n;\n    }\n"
                        + "    return r;\n}\n";
            } else if (op.equals("pow")) {
                definition = "static inline " + t + " " + name + "(" + t + " x, " + t + " y) {\n"
                        + "    // Java: NaN for any NaN exponent; C: pow(1, NaN) = 1.\n"
                        + "    if (isnan(y)) {\n        return y;\n    }\n"
                        + "    // Java: NaN for (+-1) ^ (+-Infinity); C: 1.\n"
                        + "    if (isinf(y) && fabs(x) == (" + t + ") 1) {\n        return (" + t + ") NAN;\n    }\n"
                        + "    // Java: x ^ 1 is x, exactly (NaN included).\n"
                        + "    if (y == (" + t + ") 1) {\n        return x;\n    }\n"
                        + "    return pow(x, y);\n}\n";
            } else {
                String bits = type == ElementType.FLOAT32 ? "int" : "long";
                String combine = op.equals("min") ? "|" : "&";
                String pick = op.equals("min") ? "a < b ? a : b" : "a > b ? a : b";
                definition = "static inline " + t + " " + name + "(" + t + " a, " + t + " b) {\n"
                        + "    if (isnan(a)) {\n        return a;\n    }\n"
                        + "    if (isnan(b)) {\n        return b;\n    }\n"
                        + "    if (a == b) {\n"
                        + "        return as_" + t + "(as_" + bits + "(a) " + combine + " as_" + bits + "(b));\n    }\n"
                        + "    return " + pick + ";\n}\n";
            }
            helpers.putIfAbsent(name, definition);
            return name;
        }
    }
}
