package dev.quiver.cli;

import dev.quiver.Quiver;
import dev.quiver.opencl.TransferMode;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;

/**
 * The {@code --transfer auto|zero-copy|copy} option: how OpenCL devices get the Arrow memory
 * ({@link TransferMode}). Not given: {@code -Dquiver.opencl.transfer}, else auto.
 */
final class TransferOption implements ITypeConverter<TransferMode> {
    static final String LABEL = "auto|zero-copy|copy";
    static final String DESCRIPTION =
            "How OpenCL devices get the Arrow memory: zero-copy (the kernel works on the Arrow "
                    + "buffers themselves), copy (one explicit write per input and one read of the result per batch, as a discrete "
                    + "GPU needs) or auto (each device's own: zero-copy where it shares host memory, as PoCL does). "
                    + "Default: -Dquiver.opencl.transfer, else auto.";

    @Override
    public TransferMode convert(String value) {
        try {
            return TransferMode.parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }

    /** {@code builder} with {@code mode} when one was given (else the property or auto apply). */
    static Quiver.Builder apply(Quiver.Builder builder, TransferMode mode) {
        return mode == null ? builder : builder.transferMode(mode);
    }
}
