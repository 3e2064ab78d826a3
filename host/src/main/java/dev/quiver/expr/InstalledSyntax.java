package dev.quiver.expr;

import java.util.ServiceLoader;

/** Holds {@link ExprSyntax#installed()}, looked up once, when an expression is first parsed or printed. */
final class InstalledSyntax {
    static final ExprSyntax SYNTAX = ServiceLoader.load(ExprSyntax.class, ExprSyntax.class.getClassLoader())
            .findFirst()
            .orElseThrow(
                    () -> new IllegalStateException(
                            "no " + ExprSyntax.class.getName() + " service: Quiver's host jar"
                                    + " provides one in META-INF/services (is its resource directory missing from the class path?)"));

    private InstalledSyntax() {}
}
