package dev.quiver.planning;

import dev.quiver.expr.ArithmeticCoercion;
import dev.quiver.expr.Expr;
import dev.quiver.expr.ExprThreads;
import dev.quiver.expr.Operator;
import dev.quiver.functions.AsyncScalarFunction;
import dev.quiver.functions.ExecutionConfig;
import dev.quiver.functions.FunctionRegistry;
import dev.quiver.functions.PlanningException;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.SignatureResolver;
import dev.quiver.functions.Volatility;
import dev.quiver.kernels.ArithmeticMode;
import dev.quiver.kernels.Kernels;
import dev.quiver.physical.BetweenExpr;
import dev.quiver.physical.BinaryExpr;
import dev.quiver.physical.CaseExpr;
import dev.quiver.physical.CastExpr;
import dev.quiver.physical.ColumnExpr;
import dev.quiver.physical.DictionaryDecodeExpr;
import dev.quiver.physical.EvalContext;
import dev.quiver.physical.InListExpr;
import dev.quiver.physical.IsNullExpr;
import dev.quiver.physical.KernelExecutor;
import dev.quiver.physical.LikeExpr;
import dev.quiver.physical.LiteralExpr;
import dev.quiver.physical.NegativeExpr;
import dev.quiver.physical.NotExpr;
import dev.quiver.physical.PhysicalExpr;
import dev.quiver.physical.ScalarFunctionExpr;
import dev.quiver.types.ArithmeticPlan;
import dev.quiver.types.DataType;
import dev.quiver.types.TypeCoercion;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.commons.text.similarity.LevenshteinDistance;

/**
 * Plans a logical {@link Expr} against a schema, once per query, into the physical tree that
 * runs on every batch:
 * <ol>
 *   <li>columns are resolved by name to input positions (the message for an unknown column
 *   lists the schema's columns; a name two fields of the schema share is ambiguous and refused,
 *   while duplicate names the expression does not use are harmless);</li>
 *   <li>types are checked and coerced: operators and function calls get explicit casts to
 *   the types the coercion lattice ({@link TypeCoercion}) and the function's
 *   {@code Signature} ({@link SignatureResolver}) choose; the physical tree never coerces;</li>
 *   <li>non-volatile subtrees over literals only are folded into literals
 *   ({@code 1 + abs(-1)} becomes {@code 2}); volatile calls ({@code random()}) and everything
 *   above them are kept;</li>
 *   <li>numeric subtrees are fused into kernel programs ({@link Fusion}) that run on the CPU
 *   or an OpenCL device;</li>
 *   <li>deterministic subtrees over one dictionary-encoded column alone are computed on the
 *   dictionary's values and gathered by the indices ({@link DictionaryMapping});</li>
 *   <li>AND/OR chains whose terms may move run in the order measured to cost least
 *   ({@link AdaptiveConjuncts}).</li>
 * </ol>
 * Every error is a {@link PlanningException} raised here, never during evaluation. An
 * {@link Expr.ScalarSubquery} anywhere in the expression is rejected: it reads a table of the
 * query, not the batch, and a pipeline ({@code dev.quiver.stream.Pipeline}) computes it once per query.
 */
public final class ExpressionPlanner {
    private final FunctionRegistry registry;
    private final ExecutionConfig config;
    private final ExpressionLimits limits;

    /**
     * A planner with the default {@link ExpressionLimits}.
     *
     * @param registry the functions calls resolve against
     * @param config   the query's configuration: folding allocates from its allocator (and
     *                 frees before returning) and {@code now()} reads its start time
     */
    public ExpressionPlanner(FunctionRegistry registry, ExecutionConfig config) {
        this(registry, config, ExpressionLimits.DEFAULT);
    }

    /**
     * @param registry the functions calls resolve against
     * @param config   the query's configuration: folding allocates from its allocator (and
     *                 frees before returning), keeps no constant larger than its
     *                 {@link ExecutionConfig#maxFoldedValueBytes()}, and {@code now()} reads its
     *                 start time
     * @param limits   how deep and how large an expression may be
     */
    public ExpressionPlanner(FunctionRegistry registry, ExecutionConfig config, ExpressionLimits limits) {
        this.registry = Objects.requireNonNull(registry, "registry is null");
        this.config = Objects.requireNonNull(config, "config is null");
        this.limits = Objects.requireNonNull(limits, "limits is null");
    }

    /** Plans {@code expr} against {@code schema} (which has no dictionary-encoded columns). */
    public PhysicalPlan plan(Schema schema, Expr expr) {
        return plan(schema, null, expr);
    }

    /**
     * Plans {@code expr} against {@code schema}; dictionary-encoded columns take their value
     * type from {@code dictionaries}. A deterministic subtree over one of them alone
     * ({@code payment_type = 'card'}) is computed once per distinct dictionary and gathered by the
     * indices ({@link DictionaryMapping}, unless {@link ExecutionConfig#dictionaryMapping()} is
     * off); elsewhere they are decoded once per batch where they are read.
     *
     * @param dictionaries the dictionaries of the schema's encoded columns, looked up again on
     *                     every batch; null when there are none
     */
    public PhysicalPlan plan(Schema schema, DictionaryProvider dictionaries, Expr expr) {
        Objects.requireNonNull(expr, "expr is null");
        return planTogether(schema, dictionaries, List.of(expr)).plans().getFirst();
    }

    /**
     * Plans the expressions of one projection (its filter among them) together, as
     * {@link #plan(Schema, DictionaryProvider, Expr)} plans each: a deterministic subtree that stands
     * in several of them is one shared node ({@link dev.quiver.physical.SharedExpr}) of one id in
     * each plan that reads it, so an evaluation that keeps shared values across the expressions
     * ({@link dev.quiver.physical.SharedValues}) computes it once per batch. Sharing comes before
     * fusion: such a subtree is an input of each fused segment that reads it. Volatile calls are never shared.
     */
    public ProjectionPlan planTogether(Schema schema, DictionaryProvider dictionaries, List<Expr> exprs) {
        Objects.requireNonNull(schema, "schema is null");
        Objects.requireNonNull(exprs, "exprs is null");
        List<Expr> planned = new ArrayList<>(exprs.size());
        for (Expr expr : exprs) {
            Objects.requireNonNull(expr, "an expression is null");
            // Before anything that recurses: long AND/OR chains balanced, then the limits checked.
            Expr balanced = LogicChains.balance(expr);
            limits.check(balanced);
            planned.add(balanced);
        }
        boolean together = exprs.size() > 1;
        // Lowering and fusion recurse over the tree: on a thread whose stack the depth limit fits.
        return ExprThreads.call(limits.stackBytes(), () -> {
            try (BufferAllocator folding = foldingAllocator()) {
                List<Lowering> lowerings = new ArrayList<>(exprs.size());
                List<PhysicalExpr> unfused = new ArrayList<>(exprs.size());
                for (int i = 0; i < exprs.size(); i++) {
                    Lowering l = new Lowering(schema, dictionaries, exprs.get(i), config.withAllocator(folding));
                    lowerings.add(l);
                    PhysicalExpr lowered = DisjunctFactoring.apply(l.lower(planned.get(i)));
                    // Numbered by schema position, so the same column reads alike in every expression.
                    unfused.add(together ? ColumnNumbering.renumber(lowered, l.schemaIndexes::get) : lowered);
                }
                List<PhysicalExpr> shared = CommonSubexpressions.share(unfused);
                List<PhysicalPlan> plans = new ArrayList<>(exprs.size());
                for (int i = 0; i < exprs.size(); i++) {
                    Lowering l = lowerings.get(i);
                    PhysicalExpr own = together
                            ? ColumnNumbering.renumber(shared.get(i), l.schemaIndexes::indexOf)
                            : shared.get(i);
                    PhysicalExpr root = Fusion.fuse(own);
                    if (dictionaries != null && config.dictionaryMapping()) {
                        root = DictionaryMapping.apply(root);
                    }
                    if (AdaptiveConjuncts.enabled()) {
                        root = AdaptiveConjuncts.apply(root);
                    }
                    Expr expr = exprs.get(i);
                    String name = expr instanceof Expr.Alias a ? a.name() : expr.toString();
                    plans.add(new PhysicalPlan(expr, root, l.columns, l.schemaIndexes, name));
                }
                return new ProjectionPlan(plans, CommonSubexpressions.readers(shared));
            }
        });
    }

    /**
     * Where folding allocates: a child of the query's allocator whose limit stops a constant far
     * larger than {@link ExecutionConfig#maxFoldedValueBytes()} before it is made (twice the limit:
     * Arrow rounds buffers up to a power of two), so {@code repeat('x', 2000000000)} is left to the
     * batches, where the output checks apply, instead of filling memory at planning.
     */
    private BufferAllocator foldingAllocator() {
        long max = config.maxFoldedValueBytes();
        long limit = max > (Long.MAX_VALUE - (1 << 20)) / 2 ? Long.MAX_VALUE : 2 * max + (1 << 20);
        return config.allocator().newChildAllocator("constant folding", 0, limit);
    }

    private final class Lowering {
        private final ArithmeticMode arithmeticMode = config.arithmeticMode();
        final Schema schema;
        final List<Field> columns = new ArrayList<>();
        final List<Integer> schemaIndexes = new ArrayList<>();

        final DictionaryProvider dictionaries;
        /** The whole expression being planned, for messages about a part of it. */
        final Expr root;
        /** The configuration folding evaluates with: the query's, allocating from the folding allocator. */
        final ExecutionConfig folding;

        Lowering(Schema schema, DictionaryProvider dictionaries, Expr root, ExecutionConfig folding) {
            this.schema = schema;
            this.dictionaries = dictionaries;
            this.root = root;
            this.folding = folding;
        }

        private PhysicalExpr fold(PhysicalExpr p) {
            return ExpressionPlanner.fold(p, folding);
        }

        PhysicalExpr lower(Expr e) {
            return fold(lowerNode(e));
        }

        private PhysicalExpr lowerNode(Expr e) {
            return switch (e) {
                case Expr.Column c -> column(c);
                case Expr.Literal lit -> new LiteralExpr(lit.value());
                case Expr.Alias a -> lower(a.expr());
                case Expr.Binary b -> binary(b);
                case Expr.Not n -> new NotExpr(boolArg(lower(n.expr()), "NOT", e));
                case Expr.IsNull n -> new IsNullExpr(lower(n.expr()), n.negated());
                case Expr.Negative n -> {
                    PhysicalExpr in = lower(n.expr());
                    DataType t = in.dataType().valueType();
                    if (t instanceof DataType.Null) {
                        yield new NegativeExpr(cast(in, DataType.INT32, e), arithmeticMode);
                    }
                    if (!t.isNumeric() || (t instanceof DataType.Int i && !i.signed())) {
                        throw new PlanningException("cannot negate a " + in.dataType() + " value in " + e
                                + " (negation needs a signed integer, float or decimal)");
                    }
                    yield new NegativeExpr(decoded(in, e), arithmeticMode);
                }
                case Expr.Cast c -> explicitCast(lower(c.expr()), c.type(), false, e);
                case Expr.TryCast c -> explicitCast(lower(c.expr()), c.type(), true, e);
                case Expr.Case c -> caseExpr(c);
                case Expr.InList in -> {
                    List<PhysicalExpr> all = new ArrayList<>();
                    all.add(lower(in.expr()));
                    for (Expr x : in.list()) {
                        all.add(lower(x));
                    }
                    DataType t = comparisonType(all, "IN", e);
                    List<PhysicalExpr> cast = comparedAs(all, t, "IN", e);
                    yield new InListExpr(cast.getFirst(), cast.subList(1, cast.size()), in.negated());
                }
                case Expr.Between b -> {
                    List<PhysicalExpr> all = List.of(lower(b.expr()), lower(b.low()), lower(b.high()));
                    DataType t = comparisonType(all, "BETWEEN", e);
                    List<PhysicalExpr> cast = comparedAs(all, t, "BETWEEN", e);
                    yield new BetweenExpr(cast.get(0), cast.get(1), cast.get(2), b.negated());
                }
                case Expr.Like like -> {
                    PhysicalExpr v = lower(like.expr());
                    PhysicalExpr p = lower(like.pattern());
                    DataType t = stringType(List.of(v.dataType(), p.dataType()));
                    if (t == null) {
                        throw new PlanningException((like.caseInsensitive() ? "ILIKE" : "LIKE") + " needs strings, got "
                                + v.dataType() + " " + (like.caseInsensitive() ? "ILIKE " : "LIKE ") + p.dataType()
                                + " in " + e);
                    }
                    yield new LikeExpr(
                            cast(v, t, e), cast(p, t, e), like.escape(), like.negated(), like.caseInsensitive());
                }
                case Expr.Call call -> call(call);
                // Its table is not this batch's schema, and its value is one per query, not per batch.
                case Expr.ScalarSubquery sub ->
                    throw new PlanningException("a scalar subquery needs the tables of a query: run it in a"
                            + " pipeline (dev.quiver.stream.Pipeline), which computes it once per query; got " + sub
                            + " in " + root);
            };
        }

        /**
         * "; did you mean 'a'?" naming up to three columns close to {@code name}: the same name in
         * another case, two letters swapped, or within an edit distance that grows with the name
         * (none for one or two letters, where every short name would be "close"); empty when none is.
         */
        private String didYouMean(String name) {
            String k = name.toLowerCase(Locale.ROOT);
            int allowed = k.length() >= 6 ? 2 : k.length() >= 3 ? 1 : 0;
            var distance = new LevenshteinDistance(allowed);
            List<String> close = schema.getFields().stream()
                    .map(Field::getName)
                    .filter(n -> {
                        String m = n.toLowerCase(Locale.ROOT);
                        return m.equals(k) || (allowed > 0 && (distance.apply(k, m) >= 0 || swapped(k, m)));
                    })
                    .limit(3)
                    .map(n -> "'" + n + "'")
                    .toList();
            return close.isEmpty() ? "" : "; did you mean " + String.join(" or ", close) + "?";
        }

        /** Whether {@code a} is {@code b} with two neighbouring letters swapped. */
        private static boolean swapped(String a, String b) {
            if (a.length() != b.length()) {
                return false;
            }
            int i = 0;
            while (i < a.length() && a.charAt(i) == b.charAt(i)) {
                i++;
            }
            return i + 1 < a.length()
                    && a.charAt(i) == b.charAt(i + 1)
                    && a.charAt(i + 1) == b.charAt(i)
                    && a.substring(i + 2).equals(b.substring(i + 2));
        }

        private PhysicalExpr column(Expr.Column c) {
            int idx = -1;
            if (c.qualifier() != null) {
                idx = indexOf(c.flatName());
            }
            if (idx < 0) {
                idx = indexOf(c.name());
            }
            if (idx < 0) {
                throw new PlanningException(
                        "no column '" + c.flatName() + "' in the schema" + didYouMean(c.name()) + " (columns: "
                                + schema.getFields().stream()
                                        .map(f -> f.getName() + " " + describe(f))
                                        .collect(Collectors.joining(", "))
                                + ")");
            }
            Field f = schema.getFields().get(idx);
            DataType t;
            try {
                DataType valueType = null;
                if (f.getDictionary() != null) {
                    var dict = dictionaries == null
                            ? null
                            : dictionaries.lookup(f.getDictionary().getId());
                    if (dict == null) {
                        throw new PlanningException("column '" + f.getName() + "' is dictionary-encoded (id "
                                + f.getDictionary().getId()
                                + ") and no dictionary with that id was given: compile with the reader's dictionaries");
                    }
                    valueType = DataType.fromField(dict.getVector().getField());
                }
                t = DataType.fromField(f, valueType);
            } catch (PlanningException ex) {
                throw ex;
            } catch (IllegalArgumentException ex) {
                throw new PlanningException("column '" + f.getName() + "': " + ex.getMessage(), ex);
            }
            int pos = schemaIndexes.indexOf(idx);
            if (pos < 0) {
                pos = columns.size();
                columns.add(f);
                schemaIndexes.add(idx);
            }
            ColumnExpr col = new ColumnExpr(pos, f.getName(), t);
            if (t instanceof DataType.Dictionary d) {
                return new DictionaryDecodeExpr(col, f.getDictionary().getId(), dictionaries, d.value());
            }
            return col;
        }

        /**
         * The schema index of the field named {@code name}, -1 when there is none. A name that
         * several fields share is ambiguous (which column would the expression read?): refused,
         * naming every position.
         */
        private int indexOf(String name) {
            List<Field> fs = schema.getFields();
            int found = -1;
            List<Integer> all = null;
            for (int i = 0; i < fs.size(); i++) {
                if (fs.get(i).getName().equals(name)) {
                    if (found < 0) {
                        found = i;
                    } else {
                        if (all == null) {
                            all = new ArrayList<>(List.of(found));
                        }
                        all.add(i);
                    }
                }
            }
            if (all != null) {
                String positions =
                        all.subList(0, all.size() - 1).stream()
                                        .map(String::valueOf)
                                        .collect(Collectors.joining(", ")) + " and " + all.getLast();
                throw new PlanningException("column '" + name + "' is ambiguous: the schema has " + all.size()
                        + " columns of that name, at positions " + positions
                        + " (counted from 0); rename all but one of them");
            }
            return found;
        }

        private PhysicalExpr binary(Expr.Binary b) {
            PhysicalExpr l = lower(b.left());
            PhysicalExpr r = lower(b.right());
            Operator op = b.op();
            if (op.isLogical()) {
                return new BinaryExpr(boolArg(l, op.sql(), b), op, boolArg(r, op.sql(), b), DataType.BOOLEAN);
            }
            if (op.isComparison()) {
                DataType t = comparisonType(List.of(l, r), op.sql(), b);
                List<PhysicalExpr> cast = comparedAs(List.of(l, r), t, op.sql(), b);
                return new BinaryExpr(cast.get(0), op, cast.get(1), DataType.BOOLEAN);
            }
            DataType lt = l.dataType().valueType();
            DataType rt = r.dataType().valueType();
            DataType flt = lt;
            DataType frt = rt;
            ArithmeticPlan plan = ArithmeticCoercion.arithmetic(op, lt, rt)
                    .orElseThrow(() -> new PlanningException(
                            "cannot apply " + op.sql() + " to " + flt + " and " + frt + " in " + b));
            return new BinaryExpr(
                    cast(l, plan.leftCast(), b), op, cast(r, plan.rightCast(), b), plan.result(), arithmeticMode);
        }

        private PhysicalExpr caseExpr(Expr.Case c) {
            PhysicalExpr operand = c.operand() == null ? null : lower(c.operand());
            List<PhysicalExpr> whens = new ArrayList<>();
            List<PhysicalExpr> thens = new ArrayList<>();
            for (Expr.WhenThen wt : c.branches()) {
                whens.add(lower(wt.when()));
                thens.add(lower(wt.then()));
            }
            PhysicalExpr otherwise = c.otherwise() == null ? null : lower(c.otherwise());
            if (operand != null) {
                List<PhysicalExpr> all = new ArrayList<>();
                all.add(operand);
                all.addAll(whens);
                DataType t = comparisonType(all, "CASE operand = WHEN", c);
                List<PhysicalExpr> cast = comparedAs(all, t, "CASE operand = WHEN", c);
                operand = cast.getFirst();
                whens = cast.subList(1, cast.size());
            } else {
                whens = whens.stream().map(w -> boolArg(w, "CASE WHEN", c)).toList();
            }
            List<DataType> resultTypes =
                    new ArrayList<>(thens.stream().map(PhysicalExpr::dataType).toList());
            if (otherwise != null) {
                resultTypes.add(otherwise.dataType());
            }
            DataType t = TypeCoercion.commonType(
                            resultTypes.stream().map(DataType::valueType).toList())
                    .orElseThrow(() -> new PlanningException(
                            "the THEN/ELSE values of CASE have no common type: " + resultTypes + " in " + c));
            thens = thens.stream().map(x -> cast(x, t, c)).toList();
            otherwise = otherwise == null ? null : cast(otherwise, t, c);
            return new CaseExpr(operand, whens, thens, otherwise, t);
        }

        private PhysicalExpr call(Expr.Call call) {
            ScalarFunction fn = registry.lookup(call.function());
            if (fn instanceof AsyncScalarFunction) {
                throw new PlanningException(
                        "async function '" + fn.name() + "' cannot run in a single-batch expression: run "
                                + "the query as a pipeline (dev.quiver.stream.Pipeline), which lifts " + call
                                + " into an async-function operator");
            }
            List<Expr> ordered = orderArguments(fn, call);
            List<PhysicalExpr> args = new ArrayList<>();
            for (Expr a : ordered) {
                args.add(lower(a));
            }
            for (int i = 0; i < args.size(); i++) {
                if (fn.requiresLiteral(i) && !(args.get(i) instanceof LiteralExpr)) {
                    throw new PlanningException("argument " + (i + 1) + parameterName(fn, i) + " of " + fn.name()
                            + " must be a literal, got " + ordered.get(i) + " in " + call);
                }
            }
            List<DataType> given = args.stream().map(PhysicalExpr::dataType).toList();
            List<DataType> target = SignatureResolver.resolve(fn, given);
            for (int i = 0; i < target.size(); i++) {
                if (target.get(i).valueType() instanceof DataType.Null && !acceptsUntypedNull(fn)) {
                    throw new PlanningException("argument " + (i + 1) + parameterName(fn, i) + " of " + fn.name()
                            + " is an untyped NULL, and its signature does not say what type it should have; write CAST(NULL AS <type>) in "
                            + call);
                }
            }
            List<PhysicalExpr> cast = new ArrayList<>();
            for (int i = 0; i < args.size(); i++) {
                cast.add(cast(args.get(i), target.get(i), call));
            }
            List<DataType> types = cast.stream().map(PhysicalExpr::dataType).toList();
            List<Optional<ScalarValue>> literals = cast.stream()
                    .map(p -> p instanceof LiteralExpr l ? Optional.of(l.value()) : Optional.<ScalarValue>empty())
                    .toList();
            ScalarFunction bound;
            try {
                bound = Objects.requireNonNull(fn.bind(types, literals), () -> fn.name() + ".bind returned null");
            } catch (PlanningException e) {
                throw new PlanningException(e.getMessage() + " in " + call, e);
            }
            DataType rt = bound.returnType(types);
            return new ScalarFunctionExpr(
                    bound, cast, Objects.requireNonNull(rt, () -> fn.name() + " returned no return type"));
        }

        private List<Expr> orderArguments(ScalarFunction fn, Expr.Call call) {
            if (!call.hasNamedArgs()) {
                return call.args();
            }
            List<String> params = fn.signature().parameterNames();
            if (params.isEmpty()) {
                throw new PlanningException("function " + fn.name() + " does not take named arguments, in " + call);
            }
            Expr[] slots = new Expr[params.size()];
            for (int i = 0; i < call.args().size(); i++) {
                String n = call.argNames().get(i);
                int pos = i;
                if (n != null) {
                    pos = -1;
                    for (int k = 0; k < params.size(); k++) {
                        if (params.get(k).equalsIgnoreCase(n)) {
                            pos = k;
                        }
                    }
                    if (pos < 0) {
                        throw new PlanningException("function " + fn.name() + " has no parameter '" + n
                                + "' (parameters: " + String.join(", ", params) + ") in " + call);
                    }
                }
                if (pos >= slots.length) {
                    throw new PlanningException("function " + fn.name() + " takes at most " + params.size()
                            + " arguments (" + String.join(", ", params) + "), got "
                            + call.args().size() + " in " + call);
                }
                if (slots[pos] != null) {
                    throw new PlanningException(
                            "parameter '" + params.get(pos) + "' of " + fn.name() + " is given twice in " + call);
                }
                slots[pos] = call.args().get(i);
            }
            int last = slots.length - 1;
            while (last >= 0 && slots[last] == null) {
                last--;
            }
            for (int k = 0; k <= last; k++) {
                if (slots[k] == null) {
                    throw new PlanningException(
                            "parameter '" + params.get(k) + "' of " + fn.name() + " is missing in " + call);
                }
            }
            return Arrays.asList(slots).subList(0, last + 1);
        }

        private PhysicalExpr boolArg(PhysicalExpr p, String what, Expr in) {
            DataType t = p.dataType().valueType();
            if (t instanceof DataType.Bool || t instanceof DataType.Null) {
                return cast(p, DataType.BOOLEAN, in);
            }
            throw new PlanningException(what + " needs Boolean operands, got " + p.dataType() + " in " + in);
        }

        private DataType comparisonType(List<PhysicalExpr> all, String what, Expr in) {
            DataType t = DataType.NULL;
            for (PhysicalExpr p : all) {
                DataType pt = p.dataType().valueType();
                DataType before = t;
                t = TypeCoercion.comparisonType(t, pt)
                        .orElseThrow(() -> new PlanningException(
                                "cannot compare " + before + " with " + pt + " (" + what + ") in " + in));
            }
            return t instanceof DataType.Null ? DataType.BOOLEAN : t;
        }

        /**
         * The operands of a comparison ({@code what}: =, IN, BETWEEN, ...) cast to their comparison type
         * {@code t}; a list or struct the comparison kernels compare as it is stays as it is (nested
         * casts do not exist; nullability and decimal scales do not matter to the comparison). Refuses
         * what no kernel compares (intervals, lists of different element types), so nothing planned
         * fails for its types at run time.
         */
        private List<PhysicalExpr> comparedAs(List<PhysicalExpr> all, DataType t, String what, Expr in) {
            List<PhysicalExpr> out = new ArrayList<>();
            for (PhysicalExpr p : all) {
                DataType pt = p.dataType().valueType();
                boolean nestedAsIs =
                        (pt instanceof DataType.ListType || pt instanceof DataType.Struct) && Kernels.canCompare(pt, t);
                out.add(nestedAsIs ? decoded(p, in) : cast(p, t, in));
            }
            DataType first = out.getFirst().dataType().valueType();
            for (PhysicalExpr p : out) {
                if (!Kernels.canCompare(first, p.dataType().valueType())) {
                    throw new PlanningException("cannot compare " + first + " with "
                            + p.dataType().valueType() + " (" + what + "): no comparison kernel takes them, in " + in);
                }
            }
            return out;
        }

        private PhysicalExpr explicitCast(PhysicalExpr in, DataType to, boolean safe, Expr e) {
            DataType from = in.dataType().valueType();
            if (from.equals(to)) {
                return decoded(in, e);
            }
            if (!Kernels.canCast(from, to)) {
                throw new PlanningException("cannot cast " + in.dataType() + " to " + to + " in " + e);
            }
            return fold(new CastExpr(decoded(in, e), to, safe));
        }

        /** {@code p} as type {@code t}: itself, or a (folded) cast the planner inserts. */
        private PhysicalExpr cast(PhysicalExpr p, DataType t, Expr in) {
            if (p.dataType().equals(t)) {
                return p;
            }
            PhysicalExpr d = decoded(p, in);
            if (d.dataType().equals(t)) {
                return d;
            }
            if (!Kernels.canCast(d.dataType(), t)) {
                throw new PlanningException("cannot cast " + d.dataType() + " to " + t + " in " + in);
            }
            return fold(new CastExpr(d, t, false));
        }

        /** Dictionary columns are decoded where they are read, so no expression here has a dictionary type. */
        private PhysicalExpr decoded(PhysicalExpr p, Expr in) {
            if (p.dataType() instanceof DataType.Dictionary) {
                throw new IllegalStateException("undecoded dictionary input " + p.describe() + " in " + in);
            }
            return p;
        }
    }

    private static boolean acceptsUntypedNull(ScalarFunction fn) {
        return false;
    }

    private static String parameterName(ScalarFunction fn, int i) {
        List<String> names = fn.signature().parameterNames();
        return i < names.size() ? " (" + names.get(i) + ")" : "";
    }

    private static DataType stringType(List<DataType> types) {
        boolean large = false;
        for (DataType t : types) {
            DataType v = t.valueType();
            if (v instanceof DataType.Utf8 u) {
                large |= u.large();
            } else if (!(v instanceof DataType.Null)) {
                return null;
            }
        }
        return large ? DataType.LARGE_UTF8 : DataType.UTF8;
    }

    private static String describe(Field f) {
        try {
            return DataType.fromField(f).toString();
        } catch (IllegalArgumentException e) {
            return f.getType().toString();
        }
    }

    /**
     * Folds {@code p} into a literal when it is not volatile and all its children are literals.
     * A node whose evaluation fails (such as {@code 1 / 0}) is kept: it fails only if a batch
     * reaches it, which inside a CASE branch may never happen. So is one whose value would take
     * more than {@link ExecutionConfig#maxFoldedValueBytes()} (the folding allocator refuses most
     * such values before they are made; the rest are measured here).
     */
    static PhysicalExpr fold(PhysicalExpr p, ExecutionConfig config) {
        if (p instanceof LiteralExpr || p instanceof ColumnExpr) {
            return p;
        }
        if (p instanceof ScalarFunctionExpr f && f.function().signature().volatility() == Volatility.VOLATILE) {
            return p;
        }
        for (PhysicalExpr c : p.children()) {
            if (!(c instanceof LiteralExpr)) {
                return p;
            }
        }
        EvalContext ctx = new EvalContext(List.of(), 1, config, NO_KERNELS);
        try (ColumnarValue v = p.evaluate(ctx)) {
            long max = config.maxFoldedValueBytes();
            ScalarValue s = switch (v) {
                case ColumnarValue.Scalar sc -> heldBytes(sc.value()) > max ? null : sc.value();
                case ColumnarValue.Array a
                when a.length() == 1 && Values.bufferBytes(a.vector()) <= max ->
                    Values.get(a.vector(), 0, p.dataType());
                case ColumnarValue.Array _ -> null;
            };
            if (s == null || !s.type().equals(p.dataType().valueType())) {
                return p;
            }
            return new LiteralExpr(s);
        } catch (RuntimeException e) {
            return p;
        }
    }

    /** The bytes a string or binary constant holds (other values are small, or were measured as vectors). */
    private static long heldBytes(ScalarValue v) {
        return switch (v.value()) {
            case String str -> str.length();
            case byte[] b -> b.length;
            case null, default -> 0;
        };
    }

    private static final KernelExecutor NO_KERNELS = (program, args, rows, allocator, mode) -> {
        throw new IllegalStateException("no kernels while folding");
    };
}
