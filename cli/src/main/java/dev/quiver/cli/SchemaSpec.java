package dev.quiver.cli;

import dev.quiver.types.DataType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;

/**
 * The {@code --schema} option: comma-separated {@code name:type} pairs, such as
 * {@code x:float64,price:decimal(10,2),at:timestamp[ms, UTC],name:utf8}, every column nullable.
 * Types are {@link DataType#parse} names. Commas inside {@code (...)} and {@code [...]} belong to
 * the type, so the list is split only at commas outside brackets.
 */
final class SchemaSpec implements ITypeConverter<Schema> {

    @Override
    public Schema convert(String text) {
        try {
            return parse(text);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }

    /**
     * The schema {@code text} describes.
     *
     * @throws IllegalArgumentException naming the offending entry: no ':', an empty name, a
     *                                  duplicate name, unbalanced brackets or an unknown type
     */
    static Schema parse(String text) {
        List<Field> fields = new ArrayList<>();
        Set<String> names = new HashSet<>();
        if (text.isBlank()) {
            return new Schema(fields);
        }
        for (String entry : splitTopLevel(text)) {
            String e = entry.strip();
            int colon = e.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("schema entry '" + e + "' is not name:type (for example x:float64)");
            }
            String name = e.substring(0, colon).strip();
            String type = e.substring(colon + 1).strip();
            if (name.isEmpty()) {
                throw new IllegalArgumentException("schema entry '" + e + "' has no column name");
            }
            if (type.isEmpty()) {
                throw new IllegalArgumentException("schema entry '" + e + "' has no type");
            }
            if (!names.add(name)) {
                throw new IllegalArgumentException("column '" + name + "' appears twice in the schema");
            }
            fields.add(parseType(name, type).toField(name, true));
        }
        return new Schema(fields);
    }

    private static DataType parseType(String column, String type) {
        try {
            DataType t = DataType.parse(type);
            String lower = type.toLowerCase(Locale.ROOT);
            // DataType.parse reads "timestamp..." and "decimal(..." by position; insist on the brackets here.
            if (lower.startsWith("timestamp")
                    && !lower.equals("timestamp")
                    && !(lower.contains("[") && lower.endsWith("]"))) {
                throw new IllegalArgumentException("write timestamp[unit] or timestamp[unit, tz]");
            }
            if ((lower.startsWith("decimal") || lower.startsWith("numeric")) && !lower.endsWith(")")) {
                throw new IllegalArgumentException("write decimal(precision, scale)");
            }
            return t;
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "column '" + column + "': bad type '" + type + "': " + e.getMessage(), e);
        }
    }

    /** Splits at commas that are not inside parentheses or brackets. */
    static List<String> splitTopLevel(String text) {
        List<String> parts = new ArrayList<>();
        int depth = 0, start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '(', '[' -> depth++;
                case ')', ']' -> {
                    if (--depth < 0) {
                        throw new IllegalArgumentException(
                                "unbalanced '" + c + "' at position " + i + " of schema '" + text + "'");
                    }
                }
                case ',' -> {
                    if (depth == 0) {
                        parts.add(text.substring(start, i));
                        start = i + 1;
                    }
                }
                default -> {}
            }
        }
        if (depth != 0) {
            throw new IllegalArgumentException("unclosed '(' or '[' in schema '" + text + "'");
        }
        parts.add(text.substring(start));
        return parts;
    }
}
