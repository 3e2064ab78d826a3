package dev.quiver.functions.builtin;

import dev.quiver.types.DataType;

import java.util.List;

/** {@code upper}: The string in upper case (Unicode, locale-independent). */
final class Upper extends StringFunction {
    @Override
    public String name() {
        return "upper";
    }

    @Override
    public DataType returnType(List<DataType> argTypes) {
        return argTypes.getFirst();
    }

    @Override
    Object apply(String s) {
        return s.toUpperCase(java.util.Locale.ROOT);
    }

    @Override
    public String description() {
        return "The string in upper case (Unicode, locale-independent).";
    }
}
