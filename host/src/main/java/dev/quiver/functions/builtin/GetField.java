package dev.quiver.functions.builtin;

import dev.quiver.functions.PlanningException;
import dev.quiver.functions.ScalarFunction;
import dev.quiver.functions.ScalarFunctionArgs;
import dev.quiver.functions.Signature;
import dev.quiver.functions.Volatility;
import dev.quiver.memory.SharedVectors;
import dev.quiver.strings.Utf8Input;
import dev.quiver.types.DataType;
import dev.quiver.value.ColumnarValue;
import dev.quiver.value.ScalarValue;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * {@code get_field(s, 'name')} (alias {@code struct_extract}; SQL {@code s['name']}): field
 * {@code name} of struct {@code s}, of that field's type. The name must be a string literal
 * naming one of the struct's fields (matched exactly); anything else is a planning error that
 * lists the fields. NULL where the struct row is NULL or the field is NULL.
 *
 * <p>Zero copy: the result shares the field's value, offset and child buffers
 * ({@link SharedVectors}). Where the struct itself has NULL rows the result gets a validity
 * bitmap of its own, the AND of the struct's and the field's. A Boolean field is the exception:
 * its bits are copied (rows/8 bytes), because Boolean chains write into Boolean vectors they own.
 */
final class GetField implements ScalarFunction {
    private static final Signature SIGNATURE = Signature.userDefined(Volatility.IMMUTABLE);

    /** The field this call reads; -1 before {@link #bind}. */
    private final int index;

    private final String field;

    GetField() {
        this(-1, null);
    }

    private GetField(int index, String field) {
        this.index = index;
        this.field = field;
    }

    @Override
    public String name() {
        return "get_field";
    }

    @Override
    public List<String> aliases() {
        return List.of("struct_extract");
    }

    @Override
    public Signature signature() {
        return SIGNATURE.withParameterNames("struct", "name");
    }

    @Override
    public boolean requiresLiteral(int index) {
        return index == 1;
    }

    @Override
    public List<DataType> coerceTypes(List<DataType> argTypes) {
        if (argTypes.size() != 2) {
            throw new PlanningException(
                    "get_field takes a struct and a field name, got " + argTypes.size() + " arguments");
        }
        if (!(argTypes.get(0).valueType() instanceof DataType.Struct)) {
            throw new PlanningException("argument 1 of get_field must be a struct, got a " + argTypes.get(0));
        }
        DataType n = argTypes.get(1).valueType();
        if (!(n instanceof DataType.Utf8) && !(n instanceof DataType.Null)) {
            throw new PlanningException(
                    "argument 2 of get_field is a field name and must be a string literal, got a " + n);
        }
        return List.of(argTypes.get(0).valueType(), DataType.UTF8);
    }

    @Override
    public ScalarFunction bind(List<DataType> argTypes, List<Optional<ScalarValue>> literals) {
        DataType.Struct s = (DataType.Struct) argTypes.get(0).valueType();
        ScalarValue name = literals.get(1)
                .orElseThrow(() -> new PlanningException("the field name of get_field must be a literal"));
        if (name.isNull()) {
            throw new PlanningException("the field name of get_field (argument 2) is NULL");
        }
        List<DataType.StructField> fields = s.fields();
        for (int i = 0; i < fields.size(); i++) {
            if (fields.get(i).name().equals(name.value())) {
                return new GetField(i, fields.get(i).name());
            }
        }
        throw new PlanningException("the struct has no field '" + name.value() + "' (fields: "
                + String.join(
                        ", ", fields.stream().map(DataType.StructField::name).toList()) + ")");
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        if (index < 0) {
            throw new IllegalStateException("get_field's type depends on its literal field name: bind it first");
        }
        return ((DataType.Struct) argTypes.get(0).valueType())
                .fields()
                .get(index)
                .type();
    }

    @Override
    public ColumnarValue invoke(ScalarFunctionArgs call) {
        if (index < 0) {
            throw new IllegalStateException("get_field runs only bound to its call's literal field name");
        }
        Field out = call.returnField();
        DataType type = DataType.fromField(out);
        return switch (call.arg(0)) {
            case ColumnarValue.Scalar s ->
                new ColumnarValue.Scalar(
                        s.isNull()
                                ? ScalarValue.nullOf(type)
                                : new ScalarValue(type, ((Map<?, ?>) s.value().value()).get(field)));
            case ColumnarValue.Array a ->
                new ColumnarValue.Array(Utf8Input.checked(
                        extract(
                                (StructVector) a.vector(),
                                call.numberRows(),
                                out,
                                call.config().allocator()),
                        "field '" + field + "'"));
        };
    }

    private FieldVector extract(StructVector struct, int rows, Field out, BufferAllocator allocator) {
        FieldVector child = (FieldVector) struct.getChildByOrdinal(index);
        boolean structHasNulls = rows > 0 && struct.getNullCount() > 0;
        if (child instanceof BitVector bits) {
            return copyBits(bits, structHasNulls ? struct.getValidityBuffer() : null, rows, out, allocator);
        }
        if (!structHasNulls || child instanceof NullVector) {
            return SharedVectors.share(child, out, rows, allocator);
        }
        try (ArrowBuf validity = allocator.buffer(BitVectorHelper.getValidityBufferSizeFromCount(rows))) {
            and(struct.getValidityBuffer(), child.getValidityBuffer(), validity, rows);
            return SharedVectors.share(child, out, rows, validity, allocator);
        }
    }

    private static FieldVector copyBits(
            BitVector bits, ArrowBuf structValidity, int rows, Field out, BufferAllocator allocator) {
        BitVector copy = (BitVector) out.createVector(allocator);
        try {
            copy.allocateNew(Math.max(rows, 1));
            long bytes = BitVectorHelper.getValidityBufferSizeFromCount(rows);
            copy.getDataBuffer().setBytes(0, bits.getDataBuffer(), 0, bytes);
            if (structValidity == null) {
                copy.getValidityBuffer().setBytes(0, bits.getValidityBuffer(), 0, bytes);
            } else {
                and(structValidity, bits.getValidityBuffer(), copy.getValidityBuffer(), rows);
            }
            copy.setValueCount(rows);
            return copy;
        } catch (RuntimeException | Error e) {
            copy.close();
            throw e;
        }
    }

    private static void and(ArrowBuf a, ArrowBuf b, ArrowBuf out, int rows) {
        long bytes = BitVectorHelper.getValidityBufferSizeFromCount(rows);
        long i = 0;
        for (; i + 8 <= bytes; i += 8) {
            out.setLong(i, a.getLong(i) & b.getLong(i));
        }
        for (; i < bytes; i++) {
            out.setByte(i, a.getByte(i) & b.getByte(i));
        }
    }

    @Override
    public String description() {
        return "Field 'name' of a struct: get_field(s, 'name'), s['name'].";
    }
}
