package dev.quiver.functions;

import dev.quiver.types.DataType;
import java.util.Locale;
import java.util.Objects;

/**
 * A family of types a {@link Coercion} accepts or asks for: one of the {@link Family}
 * constants, or one exact type ({@link Native}).
 */
public sealed interface TypeSignatureClass permits TypeSignatureClass.Family, TypeSignatureClass.Native {

    /** Whether {@code type} (a dictionary counts as its value type) belongs to this class. */
    boolean matches(DataType type);

    enum Family implements TypeSignatureClass {
        ANY,
        BOOLEAN,
        INTEGER,
        FLOAT,
        DECIMAL,
        /** INTEGER, FLOAT or DECIMAL. */
        NUMERIC,
        STRING,
        BINARY,
        DATE,
        TIMESTAMP,
        INTERVAL;

        @Override
        public boolean matches(DataType type) {
            DataType t = type.valueType();
            return switch (this) {
                case ANY -> true;
                case BOOLEAN -> t instanceof DataType.Bool;
                case INTEGER -> t instanceof DataType.Int;
                case FLOAT -> t instanceof DataType.FloatingPoint;
                case DECIMAL -> t instanceof DataType.Decimal;
                case NUMERIC -> t.isNumeric();
                case STRING -> t instanceof DataType.Utf8;
                case BINARY -> t instanceof DataType.Binary;
                case DATE -> t instanceof DataType.Date32;
                case TIMESTAMP -> t instanceof DataType.Timestamp;
                case INTERVAL -> t instanceof DataType.Interval;
            };
        }

        @Override
        public String toString() {
            String n = name();
            return n.charAt(0) + n.substring(1).toLowerCase(Locale.ROOT);
        }
    }

    record Native(DataType type) implements TypeSignatureClass {
        public Native {
            Objects.requireNonNull(type, "type is null");
        }

        @Override
        public boolean matches(DataType t) {
            return type.equals(t.valueType());
        }

        @Override
        public String toString() {
            return type.toString();
        }
    }

    static TypeSignatureClass of(DataType type) {
        return new Native(type);
    }
}
