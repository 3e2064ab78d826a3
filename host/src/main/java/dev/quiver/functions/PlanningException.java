package dev.quiver.functions;

/**
 * An expression that cannot be planned: an unknown column or function, a call no signature
 * accepts, types that cannot be coerced. Raised while planning, never during evaluation.
 *
 * <p>Messages quote the expression; a string literal in it longer than
 * {@value #LONGEST_LITERAL} characters is shown by its start and its length, so that a
 * megabyte literal does not make a megabyte message.
 */
public class PlanningException extends IllegalArgumentException {
    static final int LONGEST_LITERAL = 80;
    private static final int SHOWN = 60;

    public PlanningException(String message) {
        super(abbreviateLiterals(message));
    }

    public PlanningException(String message, Throwable cause) {
        super(abbreviateLiterals(message), cause);
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
                out.append(message, i, i + 1 + SHOWN).append("...' (").append(length).append(" characters)");
            } else {
                out.append(message, i, Math.min(end + 1, n));
            }
            i = end + 1;
        }
        return out.toString();
    }
}
