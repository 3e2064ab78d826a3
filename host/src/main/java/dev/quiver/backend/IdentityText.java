package dev.quiver.backend;

/**
 * The text of a {@link KernelBackend#identity()}: fields joined by {@code " | "}, each on one
 * line with single spaces and no field separator of its own, so that two identities compare
 * equal exactly when every field does.
 */
public final class IdentityText {
    private IdentityText() {}

    /** The fields, cleaned, joined by {@code " | "}. */
    public static String join(String... fields) {
        StringBuilder sb = new StringBuilder();
        for (String f : fields) {
            if (!sb.isEmpty()) {
                sb.append(" | ");
            }
            sb.append(clean(f));
        }
        return sb.toString();
    }

    /** One line, single spaces, no field separator. */
    public static String clean(String s) {
        return s == null ? "" : s.replace('|', '/').replaceAll("\\s+", " ").strip();
    }
}
