package dev.quiver.functions;

import dev.quiver.errors.ErrorKind;
import dev.quiver.errors.QuiverException;

/**
 * An expression that cannot be planned: an unknown column or function, a call no signature
 * accepts, types that cannot be coerced, a syntax error, an expression over a configured limit.
 * Raised while planning, never during evaluation. Its {@link #kind()} is
 * {@link dev.quiver.errors.ErrorKind#PLANNING}; it is the planning branch of
 * {@link dev.quiver.errors.QuiverException}.
 *
 * <p>Messages quote the expression; a string literal in it longer than
 * {@value #LONGEST_LITERAL} characters is shown by its start and its length, so that a
 * megabyte literal does not make a megabyte message.
 */
public class PlanningException extends QuiverException {
    static final int LONGEST_LITERAL = 80;
    private static final int SHOWN = 60;

    public PlanningException(String message) {
        super(ErrorKind.PLANNING, abbreviateLiterals(message), null);
    }

    public PlanningException(String message, Throwable cause) {
        super(ErrorKind.PLANNING, abbreviateLiterals(message), cause);
    }

    private PlanningException(Throwable cause, String message) {
        super(ErrorKind.PLANNING, message, cause);
    }

    /**
     * A planning error with {@code message} as it is, long literals included: a syntax error,
     * whose message shows the line and a caret under the position.
     */
    public static PlanningException verbatim(String message, Throwable cause) {
        return new PlanningException(cause, message);
    }

    /** {@code message} with each long quoted literal ('...', '' escaping a quote) cut to its start and its length. */
    static String abbreviateLiterals(String message) {
        if (message == null || message.length() <= LONGEST_LITERAL) {
            return message;
        }
        StringBuilder out = new StringBuilder();
        int i = 0, n = message.length();
        while (i < n) {
            char c = message.charAt(i);
            if (c != '\'') {
                out.append(c);
                i++;
                continue;
            }
            int end = i + 1; // the closing quote, skipping '' escapes
            while (end < n && !(message.charAt(end) == '\'' && (end + 1 >= n || message.charAt(end + 1) != '\''))) {
                end += message.charAt(end) == '\'' ? 2 : 1;
            }
            int length = end - i - 1;
            if (end < n && length > LONGEST_LITERAL) {
                out.append(message, i, i + 1 + SHOWN)
                        .append("...' (")
                        .append(length)
                        .append(" characters)");
            } else {
                out.append(message, i, Math.min(end + 1, n));
            }
            i = end + 1;
        }
        return out.toString();
    }
}
