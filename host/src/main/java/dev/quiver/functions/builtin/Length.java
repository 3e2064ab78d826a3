package dev.quiver.functions.builtin;

import dev.quiver.types.DataType;

import java.util.List;

/** {@code length}: The number of characters (Unicode code points) as Int64 (alias char_length). */
final class Length extends StringFunction {
    @Override
    public String name() {
        return "length";
    }

    @Override
    public List<String> aliases() {
        return List.of("char_length");
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return DataType.INT64;
    }

    @Override
    Object apply(String s) {
        return (long) s.codePointCount(0, s.length());
    }

    @Override
    public String description() {
        return "The number of characters (Unicode code points) as Int64 (alias char_length).";
    }
}
