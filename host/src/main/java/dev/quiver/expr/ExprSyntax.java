package dev.quiver.expr;

/**
 * The SQL text of expressions, as far as {@link Expr} itself needs it: {@link Expr#parse} reads text with
 * {@link #parse}, and {@link Expr#toString()} double-quotes the names {@link #isReserved} says the grammar would not
 * read back as names. Quiver's SQL parser ({@code dev.quiver.sql}) provides it, as the service of this interface in
 * the host jar ({@code META-INF/services}); {@code expr} reaches the parser only through it, so that the parser, which
 * builds {@code Expr} trees, depends on {@code expr} and not the other way round.
 */
public interface ExprSyntax {

    /** The installed syntax: the first provider of this interface found by the loader of Quiver's own classes. */
    static ExprSyntax installed() {
        return InstalledSyntax.SYNTAX;
    }

    /**
     * One SQL scalar expression, within the configured limits; text that does not parse is a
     * {@code PlanningException} saying where and why.
     */
    Expr parse(String sql);

    /** Whether {@code name} (in any case) must be double-quoted to be read back as a name. */
    boolean isReserved(String name);
}
