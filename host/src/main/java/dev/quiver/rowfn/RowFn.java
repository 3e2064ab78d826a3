package dev.quiver.rowfn;

import dev.quiver.expr.ExprThreads;
import dev.quiver.functions.PlanningException;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.TypeSignature;
import dev.quiver.functions.Volatility;
import dev.quiver.memory.Resources;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.RowFailure;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.types.DataType;
import dev.quiver.types.ElementType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.vector.FieldVector;

/**
 * A scalar function declared once, row-wise: its arguments and their types, its result type,
 * whether it can fail, whether it may return null from valid input, its volatility, and a body
 * written in plain Java over symbolic row values ({@link Val}). The body runs once, when the
 * function is declared (per type, for a generic body), and is captured as kernel IR; Quiver
 * then owns everything around it: type checks and coercion at planning, null and constant
 * arguments, per-batch constants, output allocation, validity, the choice of strategy, fusion
 * with neighbouring arithmetic and RowFns, and the device (a Vector API loop or an OpenCL kernel).
 *
 * <pre>{@code
 * RowFn hypot = RowFn.declare("my_hypot")
 *         .arg("x", RowType.FLOAT64)
 *         .arg("y", RowType.FLOAT64)
 *         .returns(RowType.FLOAT64)
 *         .body((x, y) -> x.mul(x).add(y.mul(y)).sqrt());
 * quiver.functions().register(hypot);
 * }</pre>
 *
 * A RowFn is an ordinary {@link ScalarFunction}: it has a {@link Signature} (one alternative per
 * type its type variable stands for), calls are coerced to it, and it registers like any other.
 * See {@code docs/rowfn.md}.
 */
public final class RowFn implements RowFnSource {

    /** A body of no arguments. */
    @FunctionalInterface
    public interface Body0 {
        Val apply();
    }

    @FunctionalInterface
    public interface Body1 {
        Val apply(Val a);
    }

    @FunctionalInterface
    public interface Body2 {
        Val apply(Val a, Val b);
    }

    @FunctionalInterface
    public interface Body3 {
        Val apply(Val a, Val b, Val c);
    }

    @FunctionalInterface
    public interface Body4 {
        Val apply(Val a, Val b, Val c, Val d);
    }

    /** A body over any number of arguments (variadic functions). */
    @FunctionalInterface
    public interface BodyN {
        Val apply(List<Val> args);
    }

    /** A body that sees null arguments (a non-strict function): {@link Row#isValid} says which. */
    @FunctionalInterface
    public interface RowBody {
        Val apply(Row row);
    }

    /** The arguments of one row for a non-strict body: their values (unspecified when null) and validity. */
    public interface Row {
        int size();

        Val arg(int i);

        /** A Boolean: true where argument {@code i} is not null. */
        Val isValid(int i);
    }

    /** A declared argument. */
    public record Param(String name, RowType type, boolean constant) {}

    /**
     * The body captured for one list of argument types.
     *
     * @param argTypes the argument types; for a non-strict function the IR also takes one
     *                 Boolean argument per argument after them: its validity
     * @param value    the row's value, over {@link IrNode.Arg}s
     * @param nullWhen where a valid row's result is null, or null
     */
    public record Instance(List<ElementType> argTypes, IrNode value, IrNode nullWhen, boolean strict) {
        public ElementType resultType() {
            return value.type();
        }

        /** The types of the IR's arguments: the arguments, then (non-strict) their validity. */
        public List<ElementType> irArgTypes() {
            if (strict) {
                return argTypes;
            }
            List<ElementType> all = new ArrayList<>(argTypes);
            all.addAll(Collections.nCopies(argTypes.size(), ElementType.BOOL));
            return all;
        }
    }

    private final String name;
    private final List<String> aliases;
    private final List<Param> params;
    private final boolean variadic;
    private final int minArity;
    private final RowType returns;
    private final boolean fallible;
    private final boolean optionalOutput;
    private final boolean cpuOnly;
    private final boolean strict;
    private final Volatility volatility;
    private final String description;
    private final BodyN body;
    private final RowBody rowBody;
    private final Signature signature;
    private final Map<List<ElementType>, Instance> instances = new ConcurrentHashMap<>();
    private final RowFnStats stats = new RowFnStats();

    private RowFn(Builder b, BodyN body, RowBody rowBody) {
        if (b.returns == RowType.UTF8 || b.params.stream().anyMatch(p -> p.type() == RowType.UTF8)) {
            throw new IllegalArgumentException(
                    b.name + ": kernel IR has no strings; a RowFn with UTF8 arguments or result "
                            + "declares a per-row body: perRow((row, out) -> ...)");
        }
        this.name = b.name;
        this.aliases = List.copyOf(b.aliases);
        this.params = List.copyOf(b.params);
        this.variadic = b.variadic;
        this.minArity = b.minArity;
        this.returns = b.returns;
        this.fallible = b.fallible;
        this.optionalOutput = b.optionalOutput;
        this.cpuOnly = b.cpuOnly;
        this.strict = rowBody == null;
        this.volatility = b.volatility;
        this.description = b.description;
        this.body = body;
        this.rowBody = rowBody;
        this.signature = buildSignature();
        if (!variadic) {
            // Capture now: a body that misuses a type fails at declaration, not at a query.
            for (List<ElementType> types : instantiations()) {
                instance(types);
            }
        }
    }

    /** Starts the declaration of a RowFn called {@code name}. */
    public static Builder declare(String name) {
        return new Builder(name);
    }

    /** Declares a RowFn: arguments, result, properties, then the body. */
    public static final class Builder {
        private final String name;
        private final List<String> aliases = new ArrayList<>();
        private final List<Param> params = new ArrayList<>();
        private boolean variadic;
        private int minArity;
        private RowType returns;
        private boolean fallible;
        private boolean optionalOutput;
        private boolean cpuOnly;
        private Volatility volatility = Volatility.IMMUTABLE;
        private String description = "";

        private Builder(String name) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("a RowFn needs a name");
            }
            this.name = name;
        }

        /** An argument of {@code type} (a type variable makes the body generic). */
        public Builder arg(String name, RowType type) {
            return param(new Param(
                    Objects.requireNonNull(name, "name is null"), Objects.requireNonNull(type, "type is null"), false));
        }

        /** An argument that every call must pass as a literal (after folding), such as a number of digits. */
        public Builder constantArg(String name, RowType type) {
            return param(new Param(
                    Objects.requireNonNull(name, "name is null"), Objects.requireNonNull(type, "type is null"), true));
        }

        /** Any number (at least {@code min}) of arguments of {@code type}: the body is a {@link BodyN}. */
        public Builder variadic(String name, RowType type, int min) {
            if (!params.isEmpty()) {
                throw new IllegalArgumentException(this.name + ": a variadic RowFn has only the variadic argument");
            }
            if (min < 1) {
                throw new IllegalArgumentException(
                        this.name + ": a variadic RowFn takes at least one argument, not " + min);
            }
            param(new Param(name, type, false));
            variadic = true;
            minArity = min;
            return this;
        }

        private Builder param(Param p) {
            if (variadic) {
                throw new IllegalArgumentException(name + ": no argument may follow the variadic one");
            }
            if (p.type() == RowType.SAME_AS_ARGS) {
                throw new IllegalArgumentException(name + ": SAME_AS_ARGS is a result type, not an argument type");
            }
            for (Param q : params) {
                if (q.name().equalsIgnoreCase(p.name())) {
                    throw new IllegalArgumentException(name + ": two arguments are called '" + p.name() + "'");
                }
                if (q.type().isVariable() && p.type().isVariable() && q.type() != p.type()) {
                    throw new IllegalArgumentException(name + ": arguments '" + q.name() + "' (" + q.type() + ") and '"
                            + p.name() + "' (" + p.type() + ") use two different type variables; a RowFn has one");
                }
            }
            params.add(p);
            return this;
        }

        /** The result type; {@link RowType#SAME_AS_ARGS} for the arguments' type variable. When omitted, the body's. */
        public Builder returns(RowType type) {
            this.returns = Objects.requireNonNull(type, "type is null");
            return this;
        }

        /**
         * The body may fail a row ({@link Val#failIf}, integer division or remainder). Without this
         * the function is declared infallible, and a body that can fail is rejected.
         */
        public Builder fallible() {
            this.fallible = true;
            return this;
        }

        /** The result may be null for valid arguments ({@link Val#nullIf}). */
        public Builder optionalOutput() {
            this.optionalOutput = true;
            return this;
        }

        /**
         * The function never leaves the CPU: a kernel segment that calls it runs on the CPU under
         * every placement (AUTO, and OPENCL too, which then says so in EXPLAIN and the metrics).
         * For bodies whose results must be bit-identical to Java's on every row (OpenCL math
         * builtins may differ from StrictMath by a few ulp), or that a site keeps off shared GPUs.
         */
        public Builder cpuOnly() {
            this.cpuOnly = true;
            return this;
        }

        /** IMMUTABLE (the default), STABLE or VOLATILE. */
        public Builder volatility(Volatility v) {
            this.volatility = Objects.requireNonNull(v, "volatility is null");
            return this;
        }

        public Builder description(String text) {
            this.description = Objects.requireNonNull(text, "text is null");
            return this;
        }

        public Builder aliases(String... names) {
            aliases.addAll(List.of(names));
            return this;
        }

        public RowFn body(Body0 f) {
            requireArity(0);
            return new RowFn(this, args -> f.apply(), null);
        }

        public RowFn body(Body1 f) {
            requireArity(1);
            return new RowFn(this, args -> f.apply(args.get(0)), null);
        }

        public RowFn body(Body2 f) {
            requireArity(2);
            return new RowFn(this, args -> f.apply(args.get(0), args.get(1)), null);
        }

        public RowFn body(Body3 f) {
            requireArity(3);
            return new RowFn(this, args -> f.apply(args.get(0), args.get(1), args.get(2)), null);
        }

        public RowFn body(Body4 f) {
            requireArity(4);
            return new RowFn(this, args -> f.apply(args.get(0), args.get(1), args.get(2), args.get(3)), null);
        }

        /** A body over the argument list: for variadic functions, or more than four arguments. */
        public RowFn bodyN(BodyN f) {
            return new RowFn(this, Objects.requireNonNull(f, "body is null"), null);
        }

        /**
         * A non-strict body: it sees every row, null arguments included ({@link Row#isValid}), and
         * says where the result is null with {@link Val#nullIf} (implies {@link #optionalOutput()}).
         */
        public RowFn rowBody(RowBody f) {
            optionalOutput = true;
            return new RowFn(this, null, Objects.requireNonNull(f, "body is null"));
        }

        /**
         * A per-row body, for functions with {@link RowType#UTF8} arguments or result: plain Java
         * called once per row on the CPU, strings in as {@link dev.quiver.strings.Utf8View}s of
         * the Arrow bytes, a string out through {@link StringRowFn.Out}. Types are concrete (no
         * type variables) and the result type is required. See {@link StringRowFn}.
         */
        public StringRowFn perRow(StringRowFn.Body f) {
            return new StringRowFn(
                    name,
                    aliases,
                    params,
                    variadic,
                    minArity,
                    returns,
                    fallible,
                    optionalOutput,
                    volatility,
                    description,
                    Objects.requireNonNull(f, "body is null"));
        }

        private void requireArity(int n) {
            if (variadic) {
                throw new IllegalArgumentException(name + " is variadic: give its body with bodyN");
            }
            if (params.size() != n) {
                throw new IllegalArgumentException(
                        name + " declares " + params.size() + " argument(s) but its body takes " + n);
            }
        }
    }

    // ---- capture ------------------------------------------------------------------------

    /** Every list of argument types the declaration stands for, in preference order (fixed arity). */
    List<List<ElementType>> instantiations() {
        return instantiations(params.size());
    }

    private List<List<ElementType>> instantiations(int arity) {
        RowType variable = params.stream()
                .map(Param::type)
                .filter(RowType::isVariable)
                .findFirst()
                .orElse(null);
        List<ElementType> choices = variable == null ? List.of(ElementType.FLOAT64) : variable.types();
        List<List<ElementType>> out = new ArrayList<>();
        for (ElementType t : choices) {
            List<ElementType> types = new ArrayList<>();
            for (int i = 0; i < arity; i++) {
                RowType p = param(i).type();
                types.add(p.isVariable() ? t : p.types().getFirst());
            }
            out.add(List.copyOf(types));
        }
        return out;
    }

    private Param param(int i) {
        return variadic ? params.getFirst() : params.get(i);
    }

    /**
     * The body captured for {@code argTypes} (exactly the types of one instantiation). Throws
     * {@link IllegalArgumentException} naming the function and the types when the body misuses one.
     */
    public Instance instance(List<ElementType> argTypes) {
        Instance found = instances.get(argTypes);
        if (found != null) {
            return found;
        }
        Instance made = capture(List.copyOf(argTypes));
        Instance raced = instances.putIfAbsent(made.argTypes(), made);
        return raced == null ? made : raced;
    }

    private Instance capture(List<ElementType> argTypes) {
        int n = argTypes.size();
        if (variadic ? n < minArity : n != params.size()) {
            throw new IllegalArgumentException(
                    name + " takes " + (variadic ? "at least " + minArity : params.size()) + " argument(s), not " + n);
        }
        String where = name + "(" + String.join(", ", describeArgs(argTypes)) + ")";
        List<Val> vals = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            vals.add(new Val(Ir.arg(i, argTypes.get(i))));
        }
        Val result;
        try {
            if (strict) {
                result = body.apply(Collections.unmodifiableList(vals));
            } else {
                List<Val> valid = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    valid.add(new Val(Ir.arg(n + i, ElementType.BOOL)));
                }
                result = rowBody.apply(new Row() {
                    @Override
                    public int size() {
                        return n;
                    }

                    @Override
                    public Val arg(int i) {
                        return vals.get(i);
                    }

                    @Override
                    public Val isValid(int i) {
                        return valid.get(i);
                    }
                });
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("RowFn " + where + ": the body " + e.getMessage(), e);
        }
        if (result == null) {
            throw new IllegalArgumentException("RowFn " + where + ": the body returned null instead of a value");
        }
        ElementType expected = expectedResult(argTypes);
        if (expected != null && result.type() != expected) {
            throw new IllegalArgumentException("RowFn " + where + " is declared to return " + expected
                    + " but its body gives " + result.type() + " (" + result + ")");
        }
        if (result.nullWhen() != null && !optionalOutput) {
            throw new IllegalArgumentException("RowFn " + where
                    + ": the body may return null (nullIf) but the function does not" + " declare optionalOutput()");
        }
        if (!strict && result.nullWhen() == null) {
            throw new IllegalArgumentException(
                    "RowFn " + where + ": a rowBody must say where the result is null (nullIf)");
        }
        // Before the walks below, which recurse: a body built in a loop may be very deep (a deep one is walked on a
        // thread with a stack for it).
        int depth = Math.max(
                KernelProgram.checkDepth(result.node(), "RowFn " + where + ": the body"),
                result.nullWhen() == null
                        ? 0
                        : KernelProgram.checkDepth(
                                result.nullWhen(), "RowFn " + where + ": the body's null condition"));
        Val body = result;
        IrNode[] prefixed = depth > 256 ? ExprThreads.call(() -> prefixBoth(body)) : prefixBoth(body);
        IrNode value = prefixed[0];
        IrNode nullWhen = prefixed[1];
        Instance inst = new Instance(argTypes, value, nullWhen, strict);
        KernelProgram program = new KernelProgram(inst.irArgTypes(), value, nullWhen, strict, where);
        if (program.isFallible() && !fallible) {
            throw new IllegalArgumentException("RowFn " + where + " can fail a row ("
                    + (program.hasIntegerDivision() ? "integer division or remainder" : "failIf")
                    + ") but is declared infallible: call fallible() when declaring it");
        }
        return inst;
    }

    /** Puts the function's name in front of every check's message (shared subtrees stay shared). */
    /** {@link #prefix} of the body's value and of its null condition (null when it has none). */
    private IrNode[] prefixBoth(Val result) {
        return new IrNode[] {prefix(result.node()), result.nullWhen() == null ? null : prefix(result.nullWhen())};
    }

    private IrNode prefix(IrNode n) {
        return prefix(n, new IdentityHashMap<>());
    }

    private IrNode prefix(IrNode n, Map<IrNode, IrNode> done) {
        IrNode seen = done.get(n);
        if (seen != null) {
            return seen;
        }
        IrNode out = switch (n) {
            case IrNode.Check c ->
                new IrNode.Check(
                        prefix(c.failWhen(), done),
                        prefix(c.value(), done),
                        c.message().startsWith(name + ": ") ? c.message() : name + ": " + c.message(),
                        prefix(c.shown(), done));
            case IrNode.Arg a -> a;
            case IrNode.Const k -> k;
            default -> {
                List<IrNode> kids = new ArrayList<>(3); // a loop, not a stream: fewer frames per level of a deep body
                for (IrNode k : n.children()) {
                    kids.add(prefix(k, done));
                }
                yield IrSubstitution.withChildren(n, kids);
            }
        };
        done.put(n, out);
        return out;
    }

    private ElementType expectedResult(List<ElementType> argTypes) {
        if (returns == null) {
            return null;
        }
        if (returns == RowType.SAME_AS_ARGS) {
            for (int i = 0; i < argTypes.size(); i++) {
                if (param(i).type().isVariable()) {
                    return argTypes.get(i);
                }
            }
            throw new IllegalArgumentException(name + " returns SAME_AS_ARGS but no argument has a type variable");
        }
        if (returns.isVariable()) {
            throw new IllegalArgumentException(
                    name + ": the result type must be concrete or SAME_AS_ARGS, not " + returns);
        }
        return returns.types().getFirst();
    }

    private List<String> describeArgs(List<ElementType> types) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) {
            String p = param(i).name();
            out.add((variadic ? p + (i + 1) : p) + " " + types.get(i));
        }
        return out;
    }

    // ---- ScalarFunction -----------------------------------------------------------------

    @Override
    public String name() {
        return name;
    }

    @Override
    public List<String> aliases() {
        return aliases;
    }

    @Override
    public Signature signature() {
        return signature;
    }

    private Signature buildSignature() {
        List<TypeSignature> alternatives = new ArrayList<>();
        if (variadic) {
            List<DataType> types = params.getFirst().type().types().stream()
                    .map(RowFn::dataType)
                    .toList();
            alternatives.add(new TypeSignature.Variadic(types));
        } else if (params.isEmpty()) {
            return Signature.nullary(volatility);
        } else {
            for (List<ElementType> types : instantiations()) {
                alternatives.add(new TypeSignature.Exact(
                        types.stream().map(RowFn::dataType).toList()));
            }
        }
        Signature s = alternatives.size() == 1
                ? new Signature(alternatives.getFirst(), volatility)
                : Signature.oneOf(alternatives, volatility);
        return variadic
                ? s
                : s.withParameterNames(params.stream().map(Param::name).toArray(String[]::new));
    }

    static DataType dataType(ElementType t) {
        return DataType.fromArrow(t.arrowType());
    }

    static ElementType element(DataType t) {
        return t.valueType().elementType().orElseThrow(() -> new PlanningException("no row type for " + t));
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return dataType(instance(argTypes.stream().map(RowFn::element).toList()).resultType());
    }

    /** Fused into a kernel when the function is strict and never null for valid input (else the planner uses {@link #instance}). */
    @Override
    public Optional<IrNode> kernel(List<IrNode> args) {
        Instance inst = instance(args.stream().map(IrNode::type).toList());
        if (!inst.strict() || inst.nullWhen() != null) {
            return Optional.empty();
        }
        return Optional.of(IrSubstitution.substitute(inst.value(), args));
    }

    /** This function, when it has a body for these types. */
    @Override
    public Optional<RowFn> asRowFn(List<DataType> argTypes) {
        return accepts(argTypes) ? Optional.of(this) : Optional.empty();
    }

    /** Whether the body is declared for exactly these argument types (after coercion). */
    public boolean accepts(List<DataType> argTypes) {
        List<ElementType> types = new ArrayList<>();
        for (DataType t : argTypes) {
            Optional<ElementType> e = t.valueType().elementType();
            if (e.isEmpty()) {
                return false;
            }
            types.add(e.get());
        }
        if (variadic) {
            return types.size() >= minArity
                    && params.getFirst().type().types().contains(types.getFirst())
                    && types.stream().allMatch(t -> t == types.getFirst());
        }
        return instantiations().contains(types);
    }

    @Override
    public boolean requiresLiteral(int index) {
        return !variadic && index < params.size() && params.get(index).constant();
    }

    @Override
    public String description() {
        return description;
    }

    public List<Param> params() {
        return params;
    }

    public boolean isVariadic() {
        return variadic;
    }

    public boolean isFallible() {
        return fallible;
    }

    public boolean hasOptionalOutput() {
        return optionalOutput;
    }

    /** Whether the function was declared {@link Builder#cpuOnly()}: its segments always run on the CPU. */
    public boolean isCpuOnly() {
        return cpuOnly;
    }

    /** Whether a null argument makes the result null without running the body (every RowFn but those with a {@link RowBody}). */
    public boolean isStrict() {
        return strict;
    }

    public Volatility volatility() {
        return volatility;
    }

    /** What the framework has done with this function (rows computed, constants, strategies). */
    public RowFnStats stats() {
        return stats;
    }

    /**
     * The reference path, row by row through {@link RowInterpreter}: used when a call is not
     * planned into a kernel segment (folding literals at planning, direct calls). Null
     * arguments give null (strict functions); a failing row raises naming the row.
     */
    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        int n = call.args().size();
        List<DataType> types = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            types.add(DataType.fromField(call.argFields().get(i)));
        }
        Instance inst = instance(types.stream().map(RowFn::element).toList());
        KernelProgram program =
                new KernelProgram(inst.irArgTypes(), inst.value(), inst.nullWhen(), inst.strict(), name);
        DataType out = dataType(inst.resultType());
        if (strict
                && call.args().stream()
                        .anyMatch(a ->
                                a instanceof ColumnarValue.Scalar s && s.value().isNull())) {
            stats.record(Strategy.ALL_NULL, 0, 0); // a null constant: every row is null, nothing runs
            return new ColumnarValue.Scalar(ScalarValue.nullOf(out));
        }
        boolean allScalar = call.args().stream().allMatch(a -> a instanceof ColumnarValue.Scalar);
        int rows = allScalar ? 1 : call.numberRows();
        List<ColumnarValue> made = new ArrayList<>();
        FieldVector result = null;
        try {
            List<FieldVector> arrays = new ArrayList<>();
            for (ColumnarValue v : call.args()) {
                ColumnarValue.Array a = Values.toArray(v, rows, call.config().allocator());
                if (a != v) {
                    made.add(a);
                }
                arrays.add(a.vector());
            }
            result = Values.allocate(out, name, rows, call.config().allocator());
            Number[] row = new Number[inst.irArgTypes().size()];
            for (int r = 0; r < rows; r++) {
                boolean anyNull = false;
                for (int i = 0; i < n; i++) {
                    ScalarValue v = Values.get(arrays.get(i), r, types.get(i));
                    anyNull |= v.isNull();
                    row[i] = toNumber(v.value(), inst.argTypes().get(i));
                    if (!strict) {
                        row[n + i] = v.isNull() ? 0 : 1;
                    }
                }
                if (strict && anyNull) {
                    Values.set(result, r, ScalarValue.nullOf(out));
                    continue;
                }
                Number value;
                try {
                    value = RowInterpreter.evaluate(program.root(), row);
                    if (RowInterpreter.isNullResult(program, row)) {
                        Values.set(result, r, ScalarValue.nullOf(out));
                        continue;
                    }
                } catch (RowFailure e) {
                    throw RowInterpreter.failure(program, e, r, "reference");
                }
                Values.set(result, r, new ScalarValue(out, fromNumber(value, inst.resultType())));
            }
            result.setValueCount(rows);
            stats.record(allScalar ? Strategy.CONSTANT : Strategy.DENSE, allScalar ? 0 : rows, allScalar ? 1 : 0);
            if (allScalar) {
                try (FieldVector r = result) {
                    result = null;
                    return new ColumnarValue.Scalar(Values.get(r, 0, out));
                }
            }
            FieldVector r = result;
            result = null;
            return new ColumnarValue.Array(r);
        } finally {
            if (result != null) {
                result.close();
            }
            Resources.closeAll(made);
        }
    }

    /** A scalar's value as the IR boxes it (a Boolean as 0 or 1; an unused null value as zero). */
    public static Number toNumber(Object value, ElementType t) {
        if (value == null) {
            return switch (t) {
                case INT32, BOOL -> 0;
                case INT64 -> 0L;
                case FLOAT32 -> 0f;
                case FLOAT64 -> 0d;
            };
        }
        if (value instanceof Boolean b) {
            return b ? 1 : 0;
        }
        return (Number) value;
    }

    /** An IR value as a scalar's value (a Boolean from 0 or 1). */
    public static Object fromNumber(Number value, ElementType t) {
        return t == ElementType.BOOL ? (Object) (value.intValue() != 0) : value;
    }

    @Override
    public String toString() {
        return "RowFn[" + name + ": "
                + String.join(
                        ", ",
                        params.stream().map(p -> p.name() + " " + p.type()).toList()) + (variadic ? "..." : "") + "]";
    }

    /** For EXPLAIN: the captured bodies by argument types. */
    public Map<List<ElementType>, Instance> capturedInstances() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(instances));
    }
}
