package dev.quiver.cli;

import dev.quiver.errors.ErrorKind;
import dev.quiver.errors.QuiverException;
import java.io.PrintStream;

/**
 * The one place that turns a failure into the command line's exit status and the line it prints:
 * {@code 2} when what the user gave is wrong (an option, the expression, the input's schema or data,
 * an unusable {@code --input} or {@code --output} path), {@code 1} when a run that started
 * correctly failed (an evaluation error such as integer division by zero, writing the output, memory,
 * the stack, a leak, or a bug). Every failure prints one line, {@code error: <message>}, and never
 * a stack trace.
 */
final class ExitStatus {

    /** Success. */
    static final int OK = 0;
    /** A failure while running. */
    static final int FAILED = 1;
    /** A wrong option, expression, schema or input (picocli uses 2 for its own usage errors too). */
    static final int USAGE = 2;

    /** What failed. */
    enum Kind {
        /** A wrong option value, or an {@code --input}/{@code --output} path that cannot be used. */
        OPTION(USAGE),
        /** The expression does not parse or plan against the input's schema. */
        EXPRESSION(USAGE),
        /** The input cannot be read: not Arrow IPC, truncated, malformed batches, invalid UTF-8. */
        INPUT(USAGE),
        /** The evaluation failed on the data (integer division by zero, overflow, a failed cast). */
        EVALUATION(FAILED),
        /** Writing the output failed while running (the disk is full, the device refused). */
        OUTPUT(FAILED),
        /** Memory or stack ran out. */
        RESOURCE(FAILED),
        /** Anything else: a bug. */
        INTERNAL(FAILED);

        private final int code;

        Kind(int code) {
            this.code = code;
        }

        /** The process exit status for this kind. */
        int code() {
            return code;
        }
    }

    private ExitStatus() {}

    /**
     * What a failure thrown by {@code CompiledExpression.evaluate} means for the user: invalid data
     * in the input is an input error, memory a resource error, the rest an evaluation failure.
     */
    static Kind ofEvaluation(RuntimeException e) {
        return switch (e) {
            case CliError c -> c.kind();
            case QuiverException q -> ofKind(q.kind());
            case ArithmeticException _ -> Kind.EVALUATION;
            // A failed cast, a batch that does not match the planned schema, a device that cannot run it.
            case IllegalArgumentException _ -> Kind.EVALUATION;
            case IllegalStateException _ -> Kind.EVALUATION;
            case UnsupportedOperationException _ -> Kind.EVALUATION;
            default -> Kind.INTERNAL;
        };
    }

    /** What a failure that reached a command's boundary means, when nothing attributed it earlier. */
    static Kind of(Throwable t) {
        return switch (t) {
            case CliError c -> c.kind();
            case StackOverflowError _ -> Kind.RESOURCE;
            case OutOfMemoryError _ -> Kind.RESOURCE;
            case QuiverException q -> ofKind(q.kind());
            default -> Kind.INTERNAL;
        };
    }

    /** Quiver's error kinds as the command line's: what the user gave exits 2, the rest 1. */
    static Kind ofKind(ErrorKind kind) {
        return switch (kind) {
            case PLANNING -> Kind.EXPRESSION;
            case INPUT -> Kind.INPUT;
            case RESOURCE -> Kind.RESOURCE;
            case ARITHMETIC, EVALUATION, DEVICE, CANCELLED -> Kind.EVALUATION;
        };
    }

    /** The message printed after {@code error: }; one line for the JVM's errors and for bugs. */
    static String message(Throwable t) {
        return message(t, of(t));
    }

    /** The message printed after {@code error: } for {@code t}, known to be of {@code kind}. */
    static String message(Throwable t, Kind kind) {
        return switch (t) {
            case CliError c -> c.getMessage();
            case StackOverflowError _ ->
                "stack overflow (StackOverflowError): the expression is nested too deeply for the "
                        + "thread stack; simplify it, or give the JVM a larger stack (QUIVER_JAVA_OPTS=-Xss64m)";
            case OutOfMemoryError m ->
                "out of memory (OutOfMemoryError: " + firstLine(m.getMessage())
                        + "); give the JVM a larger heap (QUIVER_JAVA_OPTS=-Xmx8g) or the input smaller batches";
            default ->
                kind == Kind.INTERNAL || t.getMessage() == null
                        ? "internal error: " + t.getClass().getSimpleName() + ": " + firstLine(t.getMessage())
                        : t.getMessage();
        };
    }

    /** Prints {@code error: <message>} to {@code err} and returns the exit status of {@code t}. */
    static int report(Throwable t, PrintStream err) {
        err.println("error: " + message(t));
        err.flush();
        return of(t).code();
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "no message";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
