package dev.quiver.functions.builtin;

import dev.quiver.types.DataType;

import java.util.List;

/** {@code lower}: The string in lower case (Unicode, locale-independent). */
final class Lower extends StringFunction {
    @Override
    public String name() {
        return "lower";
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return argTypes.getFirst();
    }

    @Override
    Object apply(String s) {
        return s.toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public String description() {
        return "The string in lower case (Unicode, locale-independent).";
    }
}
