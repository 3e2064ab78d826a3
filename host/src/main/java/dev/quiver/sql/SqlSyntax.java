package dev.quiver.sql;

import dev.quiver.expr.Expr;
import dev.quiver.expr.ExprSyntax;

/**
 * {@link SqlParser} as {@code expr}'s {@link ExprSyntax}: what {@link Expr#parse} and {@link Expr#toString()} use.
 * Registered in {@code META-INF/services/dev.quiver.expr.ExprSyntax}; stateless.
 */
public final class SqlSyntax implements ExprSyntax {

    /** For {@code ServiceLoader}. */
    public SqlSyntax() {}

    @Override
    public Expr parse(String sql) {
        return SqlParser.parse(sql);
    }

    @Override
    public boolean isReserved(String name) {
        return SqlParser.isReserved(name);
    }
}
