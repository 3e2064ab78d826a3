package dev.quiver.sql;

import java.util.Locale;
import org.antlr.v4.runtime.Token;

/**
 * Names as the text spells them: bare names exactly as written (Quiver does not fold case),
 * {@code "quoted"} and {@code `quoted`} names without their quotes, a doubled quote inside one quote.
 */
final class Names {
    private Names() {}

    static String identifier(QuiverSqlParser.IdentifierContext ctx) {
        return unquote(ctx.getText());
    }

    static String unquote(String name) {
        if (name.length() >= 2) {
            char q = name.charAt(0);
            if ((q == '"' || q == '`') && name.charAt(name.length() - 1) == q) {
                String d = String.valueOf(q);
                return name.substring(1, name.length() - 1).replace(d + d, d);
            }
        }
        return name;
    }

    /** A function's name: a quoted name as written, a bare one in lower case (SQL function names ignore case). */
    static String function(Token t) {
        String text = t.getText();
        boolean quoted =
                t.getType() == QuiverSqlLexer.QUOTED_IDENTIFIER || t.getType() == QuiverSqlLexer.BACKQUOTED_IDENTIFIER;
        return quoted ? unquote(text) : text.toLowerCase(Locale.ROOT);
    }
}
