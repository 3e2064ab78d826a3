package dev.quiver.physical;

/** How EXPLAIN spells names. */
final class Names {
    private Names() {
    }

    static String quote(String name) {
        return name.matches("[A-Za-z_][A-Za-z0-9_]*") ? name : "\"" + name.replace("\"", "\"\"") + "\"";
    }
}
