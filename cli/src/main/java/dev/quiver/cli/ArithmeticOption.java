package dev.quiver.cli;

import dev.quiver.kernels.ArithmeticMode;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;

/**
 * The {@code --arithmetic} option: {@code checked} (the default: integer overflow is an error) or
 * {@code wrapping} (integers wrap, and integer arithmetic is fused into the CPU/OpenCL kernels).
 */
final class ArithmeticOption implements ITypeConverter<ArithmeticMode> {
    static final String DESCRIPTION = "Integer + - * / %% and unary minus: checked (overflow is an error) or wrapping "
            + "(two's complement, and fused into the CPU/OpenCL kernels). Default: checked.";

    @Override
    public ArithmeticMode convert(String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "checked" -> ArithmeticMode.CHECKED;
            case "wrapping" -> ArithmeticMode.WRAPPING;
            default -> throw new CommandLine.TypeConversionException("'" + value + "' is not checked or wrapping");
        };
    }
}
