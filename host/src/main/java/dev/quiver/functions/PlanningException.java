package dev.quiver.functions;

/**
 * An expression that cannot be planned: an unknown column or function, a call no signature
 * accepts, types that cannot be coerced. Raised while planning, never during evaluation.
 */
public class PlanningException extends IllegalArgumentException {
    public PlanningException(String message) {
        super(message);
    }

    public PlanningException(String message, Throwable cause) {
        super(message, cause);
    }
}
