package dev.quiver.spark.functions;

import dev.quiver.functions.Volatility;
import dev.quiver.rowfn.RowFn;
import dev.quiver.rowfn.ir.RowInterpreter;
import dev.quiver.types.ElementType;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenContext;
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback;
import org.apache.spark.sql.catalyst.expressions.codegen.ExprCode;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A call of a Quiver RowFn in a Spark plan. Inside a Quiver plan node it becomes part of the
 * node's fused Quiver expression; anywhere else (an aggregate, a join condition, or with the
 * extension off) Spark evaluates it row by row with Quiver's scalar reference interpreter
 * ({@link RowInterpreter}), which computes the values every Quiver device must produce.
 *
 * <p>Created by the builder {@link dev.quiver.spark.QuiverSpark#registerFunctions} registers;
 * carries only the provider's class name and the function's name, so it serialises to executors.
 */
public final class QuiverFunctionCall extends Expression implements CodegenFallback, Serializable {
    private static final long serialVersionUID = 1L;

    private final String providerClass;
    private final String functionName;
    private final Seq<Expression> arguments;
    private transient RowFn function;
    private transient RowFn.Instance instance;

    public QuiverFunctionCall(String providerClass, String functionName, Seq<Expression> arguments) {
        this.providerClass = Objects.requireNonNull(providerClass, "providerClass is null");
        this.functionName = Objects.requireNonNull(functionName, "functionName is null");
        this.arguments = Objects.requireNonNull(arguments, "arguments is null");
    }

    /** The {@link QuiverFunctions} class that declares the function. */
    public String providerClass() {
        return providerClass;
    }

    /** The function's name. */
    public String functionName() {
        return functionName;
    }

    /** Whether the function can fail a row (declared {@code fallible()}). */
    public boolean fallible() {
        return function().isFallible();
    }

    private RowFn function() {
        if (function == null) {
            function = FunctionCatalog.function(providerClass, functionName);
        }
        return function;
    }

    private List<ElementType> argTypes() {
        List<ElementType> types = new ArrayList<>();
        for (Expression e : CollectionConverters.asJava(arguments)) {
            types.add(elementType(e.dataType()));
        }
        return types;
    }

    private RowFn.Instance instance() {
        if (instance == null) {
            instance = function().instance(argTypes());
        }
        return instance;
    }

    /** The element type a Spark argument type computes as in a RowFn, or an exception naming the type. */
    static ElementType elementType(DataType t) {
        ElementType e = elementTypeOrNull(t);
        if (e == null) {
            throw new IllegalArgumentException(
                    "a Quiver RowFn takes boolean, int, bigint, float or double arguments, not " + t.simpleString());
        }
        return e;
    }

    /** The element type a Spark type computes as in a RowFn, or null for a type a RowFn does not take. */
    public static ElementType elementTypeOrNull(DataType t) {
        if (t.equals(DataTypes.DoubleType)) {
            return ElementType.FLOAT64;
        }
        if (t.equals(DataTypes.FloatType)) {
            return ElementType.FLOAT32;
        }
        if (t.equals(DataTypes.IntegerType)) {
            return ElementType.INT32;
        }
        if (t.equals(DataTypes.LongType)) {
            return ElementType.INT64;
        }
        if (t.equals(DataTypes.BooleanType)) {
            return ElementType.BOOL;
        }
        return null;
    }

    static DataType sparkType(ElementType t) {
        return switch (t) {
            case FLOAT64 -> DataTypes.DoubleType;
            case FLOAT32 -> DataTypes.FloatType;
            case INT32 -> DataTypes.IntegerType;
            case INT64 -> DataTypes.LongType;
            case BOOL -> DataTypes.BooleanType;
        };
    }

    @Override
    public DataType dataType() {
        return sparkType(instance().resultType());
    }

    @Override
    public boolean nullable() {
        return true;
    }

    @Override
    public boolean deterministic() {
        return function().volatility() == Volatility.IMMUTABLE && super.deterministic();
    }

    @Override
    public Object eval(InternalRow row) {
        RowFn.Instance inst = instance();
        List<Expression> args = CollectionConverters.asJava(arguments);
        int n = args.size();
        Number[] values = new Number[inst.strict() ? n : 2 * n];
        for (int i = 0; i < n; i++) {
            Object v = args.get(i).eval(row);
            if (v == null) {
                if (inst.strict()) {
                    return null;
                }
                values[i] = zero(inst.argTypes().get(i));
                values[n + i] = 0;
            } else {
                values[i] = v instanceof Boolean b ? (b ? 1 : 0) : (Number) v;
                if (!inst.strict()) {
                    values[n + i] = 1;
                }
            }
        }
        if (inst.nullWhen() != null
                && RowInterpreter.evaluate(inst.nullWhen(), values).intValue() != 0) {
            return null;
        }
        Number result = RowInterpreter.evaluate(inst.value(), values);
        return switch (inst.resultType()) {
            case FLOAT64 -> result.doubleValue();
            case FLOAT32 -> result.floatValue();
            case INT32 -> result.intValue();
            case INT64 -> result.longValue();
            case BOOL -> result.intValue() != 0;
        };
    }

    private static Number zero(ElementType t) {
        return switch (t) {
            case FLOAT64 -> 0.0;
            case FLOAT32 -> 0.0f;
            case INT64 -> 0L;
            case INT32, BOOL -> 0;
        };
    }

    @Override
    public ExprCode doGenCode(CodegenContext ctx, ExprCode ev) {
        return CodegenFallback.super.doGenCode(ctx, ev);
    }

    @Override
    public Seq<Expression> children() {
        return arguments;
    }

    @Override
    public Expression withNewChildrenInternal(IndexedSeq<Expression> newChildren) {
        return new QuiverFunctionCall(providerClass, functionName, newChildren.toSeq());
    }

    @Override
    public String prettyName() {
        return functionName;
    }

    @Override
    public String toString() {
        return functionName
                + CollectionConverters.asJava(arguments).stream()
                        .map(Object::toString)
                        .collect(Collectors.joining(", ", "(", ")"));
    }

    @Override
    public int productArity() {
        return 3;
    }

    @Override
    public Object productElement(int n) {
        return switch (n) {
            case 0 -> providerClass;
            case 1 -> functionName;
            case 2 -> arguments;
            default -> throw new IndexOutOfBoundsException(n);
        };
    }

    @Override
    public boolean canEqual(Object that) {
        return that instanceof QuiverFunctionCall;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof QuiverFunctionCall c
                && c.providerClass.equals(providerClass)
                && c.functionName.equals(functionName)
                && c.arguments.equals(arguments);
    }

    @Override
    public int hashCode() {
        return Objects.hash(providerClass, functionName, arguments);
    }
}
