package dev.quiver.cli;

import static java.util.Objects.requireNonNull;

/**
 * A failure a command has attributed to its cause: the user's option, the expression, the input,
 * the evaluation or the output. {@link ExitStatus} turns it into the exit status and the one line
 * printed; the message is written for the user and already names the path or option concerned.
 */
final class CliError extends RuntimeException {

    private final ExitStatus.Kind kind;

    CliError(ExitStatus.Kind kind, String message, Throwable cause) {
        super(requireNonNull(message, "message is null"), cause);
        this.kind = requireNonNull(kind, "kind is null");
    }

    CliError(ExitStatus.Kind kind, String message) {
        this(kind, message, null);
    }

    /** What failed; decides the exit status. */
    ExitStatus.Kind kind() {
        return kind;
    }
}
