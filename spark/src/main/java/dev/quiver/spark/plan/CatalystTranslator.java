package dev.quiver.spark.plan;

import dev.quiver.expr.Expr;
import dev.quiver.expr.Operator;
import dev.quiver.kernels.ArithmeticMode;
import dev.quiver.spark.arrow.SparkArrowTypes;
import dev.quiver.spark.functions.QuiverFunctionCall;
import dev.quiver.types.DataType;
import dev.quiver.value.ScalarValue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.expressions.*;
import org.apache.spark.sql.catalyst.util.StringUtils;
import org.apache.spark.sql.types.BooleanType$;
import org.apache.spark.sql.types.ByteType$;
import org.apache.spark.sql.types.DoubleType$;
import org.apache.spark.sql.types.FloatType$;
import org.apache.spark.sql.types.IntegerType$;
import org.apache.spark.sql.types.LongType$;
import org.apache.spark.sql.types.ShortType$;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StringType$;
import org.apache.spark.unsafe.types.UTF8String;
import scala.Enumeration;
import scala.Tuple2;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Translates a Catalyst expression into a Quiver {@link Expr} with Spark's semantics, or says
 * why it cannot ({@link Unsupported}). Input columns become Quiver columns named {@code c0},
 * {@code c1}, ... in the order they are first met ({@link #inputs()}).
 *
 * <p>Only what computes the same values as Spark is translated; where Spark and Quiver differ
 * the translation either rewrites (Spark's {@code ln(x)} is NULL for {@code x <= 0}: {@code CASE
 * WHEN x > 0 THEN ln(x) END}) or refuses, and the expression stays with Spark. The rules are
 * listed in docs/spark.md.
 *
 * <p>One translator is used for all the expressions of one plan node: they share the input
 * numbering and one integer arithmetic mode (Spark's ANSI mode raises on integer overflow:
 * Quiver's {@link ArithmeticMode#CHECKED}; the legacy mode wraps: {@link ArithmeticMode#WRAPPING}).
 */
public final class CatalystTranslator {

    /** Why an expression stays with Spark. */
    public static final class Unsupported extends Exception {
        private final transient Expression expression;

        public Unsupported(Expression expression, String reason) {
            super(reason, null, false, false);
            this.expression = expression;
        }

        /** The Catalyst expression that could not be translated (may be a part of the one asked for). */
        public Expression expression() {
            return expression;
        }
    }

    private final Map<ExprId, Attribute> inputs = new LinkedHashMap<>();
    private final Set<String> providers = new LinkedHashSet<>();
    private ArithmeticMode mode;

    /** What {@link #reset} goes back to. */
    public record Mark(Map<ExprId, Attribute> inputs, Set<String> providers, ArithmeticMode mode) {}

    /** The translator's state now. */
    public Mark mark() {
        return new Mark(new LinkedHashMap<>(inputs), new LinkedHashSet<>(providers), mode);
    }

    /** Goes back to a state {@link #mark} returned (forgetting inputs met since). */
    public void reset(Mark m) {
        inputs.clear();
        inputs.putAll(m.inputs());
        providers.clear();
        providers.addAll(m.providers());
        mode = m.mode();
    }

    /**
     * Takes over what another node's expressions need (a fused filter's): its arithmetic mode
     * (null when it needs none) and its function providers.
     */
    public void inherit(ArithmeticMode requiredMode, List<String> functionProviders) throws Unsupported {
        if (requiredMode != null) {
            if (mode != null && mode != requiredMode) {
                throw new Unsupported(
                        null,
                        "the filter's integer arithmetic is in " + requiredMode + " mode, the projection's in " + mode);
            }
            mode = requiredMode;
        }
        providers.addAll(functionProviders);
    }

    /** The integer arithmetic mode the translated expressions need, or null when they need none. */
    public ArithmeticMode requiredMode() {
        return mode;
    }

    /** Numbers {@code attributes} as the first inputs, in order (a fused filter's columns). */
    public void seed(List<Attribute> attributes) {
        for (Attribute a : attributes) {
            inputs.putIfAbsent(a.exprId(), a);
        }
    }

    /** The input attributes met so far, in column order ({@code c0} first). */
    public List<Attribute> inputs() {
        return List.copyOf(inputs.values());
    }

    /** The function providers ({@code QuiverFunctions} classes) whose functions were used. */
    public List<String> providers() {
        return List.copyOf(providers);
    }

    /** The integer arithmetic mode the translated expressions need; CHECKED when none is needed. */
    public ArithmeticMode mode() {
        return mode == null ? ArithmeticMode.CHECKED : mode;
    }

    /** The Quiver column name of the input at {@code index}. */
    public static String inputName(int index) {
        return "c" + index;
    }

    /**
     * Translates {@code e} or throws {@link Unsupported}. A failed translation leaves the
     * translator as it was (inputs, mode), so it can be used again for another expression.
     */
    public Expr translate(Expression e) throws Unsupported {
        return translate(e, false);
    }

    /**
     * Translates {@code e}, which Spark evaluates on every row of the node ({@code skipped} false)
     * or may skip on some rows where Quiver would evaluate it ({@code skipped} true: it is a part
     * of a larger expression, see {@link #childSkipped}).
     */
    public Expr translate(Expression e, boolean skipped) throws Unsupported {
        Mark saved = mark();
        try {
            checkRaising(e, skipped);
            return tr(e);
        } catch (Unsupported | RuntimeException u) {
            reset(saved);
            if (u instanceof Unsupported unsupported) {
                throw unsupported;
            }
            throw new Unsupported(e, "cannot translate " + e.prettyName() + ": " + u.getMessage());
        }
    }

    /**
     * Spark evaluates a child of most expressions only when the children before it are not NULL
     * (a binary expression returns NULL at a NULL left operand without evaluating the right one),
     * and an IN list's items only until one matches; Quiver evaluates every operand on every row.
     * The same values come out, except where evaluating raises: under ANSI mode an integer
     * overflow Spark never reaches would fail the query in Quiver. So an expression that can
     * raise is translated only where Spark evaluates it on every row Quiver does.
     */
    static void checkRaising(Expression e, boolean skipped) throws Unsupported {
        if (skipped && raises(e)) {
            throw new Unsupported(
                    e,
                    e.sql() + " can raise under ANSI mode on rows where Spark does not evaluate it "
                            + "(after a NULL operand, in an IN list, or past a LIMIT)");
        }
        List<Expression> children = CollectionConverters.asJava(e.children());
        for (int i = 0; i < children.size(); i++) {
            checkRaising(children.get(i), childSkipped(e, i, skipped));
        }
    }

    /**
     * Whether Spark may skip child {@code i} of {@code parent} on a row where Quiver evaluates it:
     * when the parent is skipped itself, or when an earlier child may be NULL and the parent is
     * not one that evaluates all its children (or that Quiver evaluates as lazily as Spark: CASE,
     * IF, COALESCE, AND, OR), or for the items of an IN list.
     */
    public static boolean childSkipped(Expression parent, int i, boolean parentSkipped) {
        if (parentSkipped) {
            return true;
        }
        if (parent instanceof In) {
            return i > 0;
        }
        // Spark's / % div pmod evaluate the divisor first and return NULL without the dividend
        // when it is NULL, or (outside ANSI mode) zero.
        if (parent instanceof DivModLike || parent instanceof Pmod) {
            if (i != 0) {
                return false;
            }
            Expression divisor = parent.children().apply(1);
            boolean nonZeroLiteral =
                    divisor instanceof Literal l && l.value() instanceof Number n && n.doubleValue() != 0;
            boolean ansi = switch (parent) {
                case Divide d -> d.evalContext().evalMode().toString().equals("ANSI");
                case Remainder r -> r.evalContext().evalMode().toString().equals("ANSI");
                case IntegralDivide d -> d.evalContext().evalMode().toString().equals("ANSI");
                case Pmod m -> m.evalContext().evalMode().toString().equals("ANSI");
                default -> false;
            };
            return divisor.nullable() || (!ansi && !nonZeroLiteral);
        }
        if (parent instanceof ConditionalExpression
                || parent instanceof And
                || parent instanceof Or
                || parent instanceof Greatest
                || parent instanceof Least
                || parent instanceof EqualNullSafe
                || parent instanceof Alias) {
            return false;
        }
        List<Expression> children = CollectionConverters.asJava(parent.children());
        for (int j = 0; j < i; j++) {
            if (children.get(j).nullable()) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code e} itself can raise once translated: integer arithmetic in ANSI mode, or a fallible RowFn. */
    static boolean raises(Expression e) {
        if (e instanceof BinaryArithmetic b && isIntegral(e.dataType())) {
            return switch (b) {
                case Add a -> a.evalContext().evalMode().toString().equals("ANSI");
                case Subtract a -> a.evalContext().evalMode().toString().equals("ANSI");
                case Multiply a -> a.evalContext().evalMode().toString().equals("ANSI");
                case Remainder a -> a.evalContext().evalMode().toString().equals("ANSI");
                default -> true;
            };
        }
        if (e instanceof UnaryMinus u) {
            return isIntegral(u.dataType()) && u.failOnError();
        }
        if (e instanceof QuiverFunctionCall f) {
            return f.fallible();
        }
        return false;
    }

    private Expr tr(Expression e) throws Unsupported {
        if (!e.deterministic()) {
            throw new Unsupported(e, e.prettyName() + " is not deterministic");
        }
        // Any column Quiver can read may be tested for NULL (dates, decimals, binary too).
        if ((e instanceof IsNull || e instanceof IsNotNull)
                && e.children().head() instanceof AttributeReference a
                && SparkArrowTypes.arrowType(a.dataType()).isPresent()) {
            Expr c = column(a);
            return e instanceof IsNull ? c.isNull() : c.isNotNull();
        }
        // Types Quiver computes on as Spark does; decimals, dates, intervals, nested types stay with Spark.
        checkType(e, e.dataType());
        return switch (e) {
            case Alias a -> tr(a.child());
            case AttributeReference a -> column(a);
            case Literal l -> literal(l);
            case Add a ->
                integerOrFloat(
                        a,
                        a.left(),
                        a.right(),
                        Operator.PLUS,
                        "try_add",
                        a.evalContext().evalMode());
            case Subtract s ->
                integerOrFloat(
                        s,
                        s.left(),
                        s.right(),
                        Operator.MINUS,
                        "try_subtract",
                        s.evalContext().evalMode());
            case Multiply m ->
                integerOrFloat(
                        m,
                        m.left(),
                        m.right(),
                        Operator.MULTIPLY,
                        "try_multiply",
                        m.evalContext().evalMode());
            case Divide d ->
                division(
                        d, d.left(), d.right(), Operator.DIVIDE, d.evalContext().evalMode());
            case Remainder r ->
                division(
                        r, r.left(), r.right(), Operator.MODULO, r.evalContext().evalMode());
            case UnaryMinus u -> {
                if (isIntegral(u.dataType())) {
                    needMode(u, u.failOnError() ? ArithmeticMode.CHECKED : ArithmeticMode.WRAPPING);
                }
                yield tr(u.child()).neg();
            }
            case EqualTo c -> tr(c.left()).eq(tr(c.right()));
            case EqualNullSafe c -> tr(c.left()).isNotDistinctFrom(tr(c.right()));
            case LessThan c -> tr(c.left()).lt(tr(c.right()));
            case LessThanOrEqual c -> tr(c.left()).ltEq(tr(c.right()));
            case GreaterThan c -> tr(c.left()).gt(tr(c.right()));
            case GreaterThanOrEqual c -> tr(c.left()).gtEq(tr(c.right()));
            case And a -> tr(a.left()).and(tr(a.right()));
            case Or o -> tr(o.left()).or(tr(o.right()));
            case Not n -> tr(n.child()).not();
            case IsNull n -> tr(n.child()).isNull();
            case IsNotNull n -> tr(n.child()).isNotNull();
            case If i -> Expr.when(tr(i.predicate()), tr(i.trueValue())).otherwise(tr(i.falseValue()));
            case CaseWhen c -> caseWhen(c);
            case Coalesce c -> coalesce(c);
            case In in -> {
                List<Expr> list = new ArrayList<>();
                for (Expression item : CollectionConverters.asJava(in.list())) {
                    list.add(tr(item));
                }
                yield new Expr.InList(tr(in.value()), list, false);
            }
            case InSet in -> {
                List<Expr> list = new ArrayList<>();
                for (Object v : CollectionConverters.asJava(in.hset())) {
                    list.add(literal(new Literal(v, in.child().dataType())));
                }
                yield new Expr.InList(tr(in.child()), list, false);
            }
            case Cast c -> cast(c);
            case Sqrt f -> Expr.call("sqrt", tr(f.child()));
            case Cbrt f -> Expr.call("cbrt", tr(f.child()));
            case Exp f -> Expr.call("exp", tr(f.child()));
            case Sin f -> Expr.call("sin", tr(f.child()));
            case Cos f -> Expr.call("cos", tr(f.child()));
            case Tan f -> Expr.call("tan", tr(f.child()));
            case Asin f -> Expr.call("asin", tr(f.child()));
            case Acos f -> Expr.call("acos", tr(f.child()));
            case Atan f -> Expr.call("atan", tr(f.child()));
            case Sinh f -> Expr.call("sinh", tr(f.child()));
            case Cosh f -> Expr.call("cosh", tr(f.child()));
            case Tanh f -> Expr.call("tanh", tr(f.child()));
            case ToDegrees f -> Expr.call("degrees", tr(f.child()));
            case ToRadians f -> Expr.call("radians", tr(f.child()));
            case Signum f -> Expr.call("sign", tr(f.child()));
            // Spark adds 0.0 to both arguments first, so atan2(-0.0, x) is atan2(0.0, x).
            case Atan2 f ->
                Expr.call(
                        "atan2", tr(f.left()).add(Expr.lit(0.0)), tr(f.right()).add(Expr.lit(0.0)));
            case Pow f -> Expr.call("pow", tr(f.left()), tr(f.right()));
            case Hypot f -> Expr.call("hypot", tr(f.left()), tr(f.right()));
            // Spark's logarithms are NULL at and below their asymptote (x <= 0); NaN is above it in
            // Quiver's order, as `NaN <= 0` is false in Spark's Java, so NaN gives NaN on both.
            case Log f -> logarithm(f.child(), "ln");
            case Log10 f -> logarithm(f.child(), "log10");
            // Spark's log2 is StrictMath.log(x) / StrictMath.log(2.0), not a true log2 (29.000000000000004 at 2^29).
            case Log2 f -> {
                Expr arg = tr(f.child());
                yield Expr.when(arg.gt(Expr.lit(0.0)), Expr.call("ln", arg).div(Expr.call("ln", Expr.lit(2.0))))
                        .otherwise(Expr.nullLit(DataType.FLOAT64));
            }
            case Abs a -> {
                if (isIntegral(a.dataType()) && a.failOnError()) {
                    throw new Unsupported(
                            a, "abs of an integer raises on its smallest value under ANSI mode; Quiver's wraps");
                }
                yield Expr.call("abs", tr(a.child()));
            }
            // Spark rounds the decimal string of a double (BigDecimal HALF_UP); at scale 0 that is
            // Quiver's half away from zero, but Spark's result has no negative zero: + 0.0.
            case Round r
            when r.scale() instanceof Literal scale
                    && Integer.valueOf(0).equals(scale.value())
                    && r.child().dataType().equals(DoubleType$.MODULE$) ->
                Expr.call("round", tr(r.child())).add(Expr.lit(0.0));
            // Spark's floor and ceil of a double are a bigint by Java's (long) cast: saturating, NaN 0.
            case Floor f
            when f.child().dataType().equals(DoubleType$.MODULE$) -> toLongAsJava(Expr.call("floor", tr(f.child())));
            case Ceil f
            when f.child().dataType().equals(DoubleType$.MODULE$) -> toLongAsJava(Expr.call("ceil", tr(f.child())));
            case Floor f when f.child().dataType().equals(LongType$.MODULE$) -> tr(f.child());
            case Ceil f when f.child().dataType().equals(LongType$.MODULE$) -> tr(f.child());
            // NaN is above +Infinity in Quiver's order (and Spark's); isnan(NULL) is false.
            case IsNaN n -> {
                Expr a = tr(n.child());
                yield Expr.when(a.isNull(), Expr.lit(false)).otherwise(a.gt(Expr.lit(Double.POSITIVE_INFINITY)));
            }
            case NaNvl n -> {
                Expr a = tr(n.left());
                yield Expr.when(a.gt(Expr.lit(Double.POSITIVE_INFINITY)), tr(n.right()))
                        .otherwise(a);
            }
            case Greatest g -> Expr.call("greatest", children(g));
            case Least l -> Expr.call("least", children(l));
            case Like l -> {
                if (!(l.right() instanceof Literal p) || p.value() == null) {
                    throw new Unsupported(l, "LIKE with a pattern that is not a literal");
                }
                try {
                    // Spark rejects an escape before anything but _, % or itself; Quiver would not.
                    StringUtils.escapeLikeRegex(p.value().toString(), l.escapeChar());
                } catch (RuntimeException invalid) {
                    throw new Unsupported(l, "a LIKE pattern Spark rejects: " + invalid.getMessage());
                }
                yield new Expr.Like(tr(l.left()), literal(p), l.escapeChar(), false, false);
            }
            case StartsWith s -> Expr.call("starts_with", tr(s.left()), tr(s.right()));
            case EndsWith s -> Expr.call("ends_with", tr(s.left()), tr(s.right()));
            case Contains s -> Expr.call("contains", tr(s.left()), tr(s.right()));
            // Spark's length of a string counts code points (Int32); Quiver's too (Int64).
            case Length l
            when l.child().dataType() instanceof StringType ->
                Expr.call("length", tr(l.child())).cast(DataType.INT32);
            case QuiverFunctionCall f -> {
                providers.add(f.providerClass());
                yield Expr.call(f.functionName(), children(f));
            }
            default -> throw new Unsupported(e, e.prettyName() + " has no Quiver translation");
        };
    }

    private List<Expr> children(Expression e) throws Unsupported {
        List<Expr> out = new ArrayList<>();
        for (Expression c : CollectionConverters.asJava(e.children())) {
            out.add(tr(c));
        }
        return out;
    }

    private Expr column(AttributeReference a) {
        inputs.putIfAbsent(a.exprId(), a);
        int index = 0;
        for (ExprId id : inputs.keySet()) {
            if (id.equals(a.exprId())) {
                break;
            }
            index++;
        }
        return Expr.col(inputName(index));
    }

    /** Java's {@code (long)} of a whole double: NaN is 0, beyond the range the nearest end. */
    private static Expr toLongAsJava(Expr whole) {
        return Expr.when(whole.gt(Expr.lit(Double.POSITIVE_INFINITY)), Expr.lit(0L))
                .when(whole.gtEq(Expr.lit(0x1p63)), Expr.lit(Long.MAX_VALUE))
                .when(whole.lt(Expr.lit(-0x1p63)), Expr.lit(Long.MIN_VALUE))
                .otherwise(whole.cast(DataType.INT64));
    }

    private Expr logarithm(Expression x, String function) throws Unsupported {
        Expr arg = tr(x);
        return Expr.when(arg.gt(Expr.lit(0.0)), Expr.call(function, arg)).otherwise(Expr.nullLit(DataType.FLOAT64));
    }

    private Expr integerOrFloat(
            Expression e,
            Expression left,
            Expression right,
            Operator op,
            String tryFunction,
            Enumeration.Value evalMode)
            throws Unsupported {
        Expr l = tr(left);
        Expr r = tr(right);
        if (isIntegral(e.dataType())) {
            String m = evalMode.toString();
            if (m.equals("TRY")) {
                return Expr.call(tryFunction, l, r);
            }
            needMode(e, m.equals("ANSI") ? ArithmeticMode.CHECKED : ArithmeticMode.WRAPPING);
        }
        return new Expr.Binary(l, op, r);
    }

    /**
     * Spark's {@code /} and {@code %} give NULL (legacy, TRY) or raise (ANSI) for a zero divisor,
     * floats included; Quiver's float division follows IEEE 754. So: a non-zero literal divisor
     * is plain division; otherwise NULL where the divisor is zero in legacy and TRY modes, and no
     * translation in ANSI mode, where only Spark raises Spark's error.
     */
    private Expr division(Expression e, Expression left, Expression right, Operator op, Enumeration.Value evalMode)
            throws Unsupported {
        Expr l = tr(left);
        Expr r = tr(right);
        String m = evalMode.toString();
        boolean literalNonZero =
                right instanceof Literal lit && lit.value() instanceof Number n && n.doubleValue() != 0;
        if (isIntegral(e.dataType())) {
            if (op == Operator.DIVIDE) {
                throw new Unsupported(e, "integer division");
            }
            if (literalNonZero && !m.equals("TRY")) {
                needMode(e, m.equals("ANSI") ? ArithmeticMode.CHECKED : ArithmeticMode.WRAPPING);
                return new Expr.Binary(l, op, r);
            }
            if (m.equals("ANSI")) {
                needMode(e, ArithmeticMode.CHECKED);
                return new Expr.Binary(l, op, r);
            }
            return Expr.call("try_mod", l, r);
        }
        if (literalNonZero) {
            return new Expr.Binary(l, op, r);
        }
        if (m.equals("ANSI")) {
            throw new Unsupported(e, "division by an expression raises DIVIDE_BY_ZERO under ANSI mode; Spark keeps it");
        }
        return Expr.when(r.eq(Expr.lit(0)), Expr.nullLit(quiverType(e, e.dataType())))
                .otherwise(new Expr.Binary(l, op, r));
    }

    private Expr caseWhen(CaseWhen c) throws Unsupported {
        List<Expr.WhenThen> branches = new ArrayList<>();
        for (Tuple2<Expression, Expression> b : CollectionConverters.asJava(c.branches())) {
            branches.add(new Expr.WhenThen(tr(b._1()), tr(b._2())));
        }
        Expr otherwise = c.elseValue().isDefined() ? tr(c.elseValue().get()) : null;
        return new Expr.Case(null, branches, otherwise);
    }

    private Expr coalesce(Coalesce c) throws Unsupported {
        List<Expression> args = CollectionConverters.asJava(c.children());
        List<Expr.WhenThen> branches = new ArrayList<>();
        for (int i = 0; i < args.size() - 1; i++) {
            Expr a = tr(args.get(i));
            branches.add(new Expr.WhenThen(a.isNotNull(), a));
        }
        return new Expr.Case(null, branches, tr(args.getLast()));
    }

    /** Casts that cannot fail and convert as Java does: integers to wider integers or floats, float to double. */
    private Expr cast(Cast c) throws Unsupported {
        var from = c.child().dataType();
        var to = c.dataType();
        if (from.equals(to)) {
            return tr(c.child());
        }
        int fromRank = integralRank(from);
        int toRank = integralRank(to);
        boolean widening = (fromRank > 0 && toRank > fromRank)
                || (fromRank > 0 && (to.equals(DoubleType$.MODULE$) || to.equals(FloatType$.MODULE$)))
                || (from.equals(FloatType$.MODULE$) && to.equals(DoubleType$.MODULE$));
        if (!widening) {
            throw new Unsupported(
                    c,
                    "cast from " + from.simpleString() + " to " + to.simpleString()
                            + " (only widening numeric casts are translated)");
        }
        return tr(c.child()).cast(quiverType(c, to));
    }

    private Expr literal(Literal l) throws Unsupported {
        var t = l.dataType();
        DataType q = quiverType(l, t);
        Object v = l.value();
        if (v == null) {
            return Expr.nullLit(q);
        }
        Object javaValue = v instanceof UTF8String s ? s.toString() : v;
        return new Expr.Literal(new ScalarValue(q, javaValue));
    }

    private void needMode(Expression e, ArithmeticMode wanted) throws Unsupported {
        if (mode == null) {
            mode = wanted;
        } else if (mode != wanted) {
            throw new Unsupported(
                    e, "integer arithmetic in " + wanted + " mode next to arithmetic in " + mode + " mode");
        }
    }

    @SuppressWarnings("checkstyle:inlinefqn") // Spark's DataType, beside Quiver's imported one
    private static void checkType(Expression e, org.apache.spark.sql.types.DataType t) throws Unsupported {
        quiverType(e, t);
    }

    /** The Quiver type of a Spark type, for the types whose values and arithmetic Quiver shares with Spark. */
    @SuppressWarnings("checkstyle:inlinefqn") // Spark's DataType, beside Quiver's imported one
    static DataType quiverType(Expression e, org.apache.spark.sql.types.DataType t) throws Unsupported {
        if (t.equals(BooleanType$.MODULE$)) {
            return DataType.BOOLEAN;
        }
        if (t.equals(IntegerType$.MODULE$)) {
            return DataType.INT32;
        }
        if (t.equals(LongType$.MODULE$)) {
            return DataType.INT64;
        }
        if (t.equals(DoubleType$.MODULE$)) {
            return DataType.FLOAT64;
        }
        if (t.equals(FloatType$.MODULE$)) {
            return DataType.FLOAT32;
        }
        if (t.equals(ByteType$.MODULE$) || t.equals(ShortType$.MODULE$)) {
            // Readable and castable; arithmetic on them is refused below (Spark wraps at 8/16 bits).
            if (e instanceof BinaryArithmetic || e instanceof UnaryMinus) {
                throw new Unsupported(e, t.simpleString() + " arithmetic");
            }
            return t.equals(ByteType$.MODULE$) ? DataType.INT8 : DataType.INT16;
        }
        if (t instanceof StringType s && s.equals(StringType$.MODULE$)) {
            return DataType.UTF8;
        }
        if (t instanceof StringType) {
            throw new Unsupported(e, "strings with a collation other than UTF8_BINARY");
        }
        throw new Unsupported(e, "type " + t.simpleString());
    }

    @SuppressWarnings("checkstyle:inlinefqn") // Spark's DataType, beside Quiver's imported one
    private static boolean isIntegral(org.apache.spark.sql.types.DataType t) {
        return integralRank(t) > 0;
    }

    @SuppressWarnings("checkstyle:inlinefqn") // Spark's DataType, beside Quiver's imported one
    private static int integralRank(org.apache.spark.sql.types.DataType t) {
        if (t.equals(ByteType$.MODULE$)) {
            return 1;
        }
        if (t.equals(ShortType$.MODULE$)) {
            return 2;
        }
        if (t.equals(IntegerType$.MODULE$)) {
            return 3;
        }
        if (t.equals(LongType$.MODULE$)) {
            return 4;
        }
        return 0;
    }
}
