package dev.quiver.functions.builtin;

import dev.quiver.functions.PlanningException;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.memory.Resources;
import dev.quiver.memory.SharedVectors;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.Values;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;

/**
 * {@code named_struct('a', x, 'b', y, ...)}: per row, the struct {@code {a: x, b: y}}. The names
 * (odd positions, 1-based) must be non-NULL string literals, all different (compared exactly);
 * the values may be anything typed. A struct row is never NULL; a NULL value is a NULL field.
 *
 * <p>Zero copy: the result's children are the value arguments' own Arrow buffers, shared with
 * a reference of the result's own ({@link SharedVectors}); only scalar values are broadcast
 * into new vectors. The argument and the result can then be closed in either order.
 */
final class NamedStruct implements ScalarFunction {
    private static final Signature SIGNATURE = Signature.userDefined(Volatility.IMMUTABLE);

    private final List<String> names;

    NamedStruct() {
        this(null);
    }

    private NamedStruct(List<String> names) {
        this.names = names;
    }

    @Override
    public String name() {
        return "named_struct";
    }

    @Override
    public Signature signature() {
        return SIGNATURE;
    }

    @Override
    public boolean requiresLiteral(int index) {
        return index % 2 == 0;
    }

    @Override
    public List<DataType> coerceTypes(List<DataType> argTypes) {
        if (argTypes.isEmpty() || argTypes.size() % 2 != 0) {
            throw new PlanningException(
                    "named_struct takes pairs of a field name and a value ('a', x, 'b', y, ...), got " + argTypes.size()
                            + " argument" + (argTypes.size() == 1 ? "" : "s"));
        }
        List<DataType> out = new ArrayList<>(argTypes.size());
        for (int i = 0; i < argTypes.size(); i++) {
            DataType t = argTypes.get(i).valueType();
            if (i % 2 == 0) {
                if (!(t instanceof DataType.Utf8) && !(t instanceof DataType.Null)) {
                    throw new PlanningException("argument " + (i + 1)
                            + " of named_struct is a field name and must be a string literal, got a " + t);
                }
                out.add(DataType.UTF8);
            } else {
                out.add(t);
            }
        }
        return out;
    }

    @Override
    public ScalarFunction bind(List<DataType> argTypes, List<Optional<ScalarValue>> literals) {
        List<String> bound = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < literals.size(); i += 2) {
            ScalarValue v = literals.get(i)
                    .orElseThrow(() -> new PlanningException("a field name of named_struct must be a literal"));
            if (v.isNull()) {
                throw new PlanningException(
                        "argument " + (bound.size() * 2 + 1) + " of named_struct (a field name) is NULL");
            }
            String name = (String) v.value();
            Integer before = seen.putIfAbsent(name, i + 1);
            if (before != null) {
                throw new PlanningException("field name '" + name + "' of named_struct is given twice (arguments "
                        + before + " and " + (i + 1) + ")");
            }
            bound.add(name);
        }
        return new NamedStruct(bound);
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        if (names == null) {
            throw new IllegalStateException("named_struct's type depends on its literal names: bind it first");
        }
        return structType(names, argTypes, 1, 2);
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        if (names == null) {
            throw new IllegalStateException("named_struct runs only bound to its call's literal names");
        }
        List<ColumnarValue> values = new ArrayList<>(names.size());
        for (int i = 1; i < call.args().size(); i += 2) {
            values.add(call.arg(i));
        }
        return pack(names, values, call);
    }

    @Override
    public String description() {
        return "A struct of the given fields: named_struct('a', x, 'b', y).";
    }

    /** The struct type of fields {@code names} whose types are {@code argTypes[first], [first + step], ...}. */
    static DataType.Struct structType(List<String> names, List<DataType> argTypes, int first, int step) {
        List<DataType.StructField> fields = new ArrayList<>(names.size());
        for (int k = 0; k < names.size(); k++) {
            fields.add(new DataType.StructField(
                    names.get(k), argTypes.get(first + k * step).valueType(), true));
        }
        return new DataType.Struct(fields);
    }

    /** The struct of {@code values} under {@code names}: a scalar when all are scalars, else a struct vector over their buffers. */
    static ColumnarValue pack(List<String> names, List<ColumnarValue> values, ScalarFunctionArgs call) {
        DataType.Struct type = (DataType.Struct) DataType.fromField(call.returnField());
        if (values.stream().allMatch(v -> v instanceof ColumnarValue.Scalar)) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (int k = 0; k < names.size(); k++) {
                m.put(
                        names.get(k),
                        ((ColumnarValue.Scalar) values.get(k)).value().value());
            }
            return ColumnarValue.scalar(type, m);
        }
        BufferAllocator allocator = call.config().allocator();
        int rows = call.numberRows();
        List<ColumnarValue> made = new ArrayList<>();
        StructVector out =
                (StructVector) type.toField(call.returnField().getName(), true).createVector(allocator);
        try {
            // Every row valid: Arrow makes the all-ones bitmap itself for a node without nulls.
            out.loadFieldBuffers(new ArrowFieldNode(rows, 0), List.of(allocator.getEmpty()));
            List<FieldVector> children = out.getChildrenFromFields();
            for (int k = 0; k < names.size(); k++) {
                ColumnarValue.Array a = Values.toArray(values.get(k), rows, allocator);
                if (a != values.get(k)) {
                    made.add(a);
                }
                SharedVectors.load(a.vector(), children.get(k), rows, null);
            }
            return new ColumnarValue.Array(out);
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        } finally {
            Resources.closeAll(made);
        }
    }
}
