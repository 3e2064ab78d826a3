package dev.quiver.cli;

import dev.quiver.types.DataType;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.TemporalText;
import dev.quiver.value.Values;
import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * What {@code quiver eval} prints without {@code --output}: the columns the expression reads and
 * {@code result}, for the first {@code --limit} rows, then the totals.
 *
 * <p>Reading a cell never escapes as an unexplained exception: a value that cannot be read (a
 * malformed batch, such as string offsets that decrease, or a dictionary index out of range) is an
 * input error naming the batch, the column and the row.
 */
final class ResultTable {

    private final List<Field> columns;
    private final DictionaryProvider dictionaries;
    private final String input;
    private final int limit;
    private final List<List<String>> lines = new ArrayList<>();

    /**
     * @param columns      the input columns shown, in order, before {@code result}
     * @param dictionaries the input's dictionaries (dictionary-encoded columns show their values)
     * @param input        how errors name the input
     * @param limit        the most rows kept
     */
    ResultTable(List<Field> columns, DictionaryProvider dictionaries, String input, int limit) {
        this.columns = List.copyOf(columns);
        this.dictionaries = dictionaries;
        this.input = input;
        this.limit = limit;
    }

    /** Keeps the rows of batch {@code index} (numbered from 0) while fewer than the limit are kept. */
    void add(long index, VectorSchemaRoot batch, FieldVector result) {
        DataType resultType = DataType.fromField(result.getField());
        for (int i = 0; i < batch.getRowCount() && lines.size() < limit; i++) {
            List<String> line = new ArrayList<>(columns.size() + 1);
            for (Field f : columns) {
                FieldVector v = batch.getVector(f.getName());
                try {
                    line.add(text(valueAt(v, i)));
                } catch (RuntimeException e) {
                    throw new CliError(
                            ExitStatus.Kind.INPUT,
                            input + ": batch " + index + ", column '" + f.getName() + "', row "
                                    + i + " cannot be read (the batch is malformed): "
                                    + e.getClass().getSimpleName()
                                    + (e.getMessage() == null ? "" : ": " + e.getMessage()),
                            e);
                }
            }
            try {
                line.add(text(Values.get(result, i, resultType)));
            } catch (RuntimeException e) {
                throw new CliError(
                        ExitStatus.Kind.INTERNAL,
                        "the result of batch " + index + " cannot be read at row " + i + ": "
                                + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()),
                        e);
            }
            lines.add(line);
        }
    }

    /** The table, then {@code <rows> rows in <batches> batches[ (first n shown, --limit)]; result <type>}. */
    String render(long rows, long batches, DataType resultType) {
        List<String> header = new ArrayList<>();
        columns.forEach(f -> header.add(printable(f.getName())));
        header.add("result");
        int[] width = new int[header.size()];
        for (int c = 0; c < width.length; c++) {
            width[c] = header.get(c).length();
            for (List<String> line : lines) {
                width[c] = Math.max(width[c], line.get(c).length());
            }
        }
        StringBuilder sb = new StringBuilder();
        appendLine(sb, header, width);
        List<String> rule = new ArrayList<>();
        for (int w : width) {
            rule.add("-".repeat(w));
        }
        appendLine(sb, rule, width);
        for (List<String> line : lines) {
            appendLine(sb, line, width);
        }
        sb.append(String.format(
                Locale.ROOT,
                "%d rows in %d batches%s; result %s%n",
                rows,
                batches,
                rows > lines.size() ? " (first " + lines.size() + " shown, --limit)" : "",
                resultType));
        return sb.toString();
    }

    /** Row {@code i} of {@code v}; for a dictionary-encoded column, the value its index points at. */
    private ScalarValue valueAt(FieldVector v, int i) {
        var encoding = v.getField().getDictionary();
        if (encoding == null) {
            return Values.get(v, i, DataType.fromField(v.getField()));
        }
        Dictionary dictionary = dictionaries.lookup(encoding.getId());
        if (dictionary == null) {
            throw new IllegalStateException("no dictionary " + encoding.getId() + " in the input");
        }
        FieldVector values = dictionary.getVector();
        DataType type = DataType.fromField(values.getField());
        if (v.isNull(i)) {
            return ScalarValue.nullOf(type);
        }
        long index = ((BaseIntVector) v).getValueAsLong(i);
        if (index < 0 || index >= values.getValueCount()) {
            throw new IndexOutOfBoundsException(
                    "dictionary index " + index + " outside the dictionary's " + values.getValueCount() + " values");
        }
        return Values.get(values, (int) index, type);
    }

    /**
     * A timestamp in ISO form (TemporalText: any value of the unit, years beyond 9999 and beyond
     * java.time's range included), in its zone; UTC without one, or when Java does not know the zone.
     */
    private static String timestamp(DataType.Timestamp ts, long ticks) {
        if (ts.timezone() == null) {
            return TemporalText.formatTimestamp(ticks, ts.unit());
        }
        ZoneId zone;
        try {
            zone = ZoneId.of(ts.timezone());
        } catch (DateTimeException e) {
            return TemporalText.formatTimestamp(ticks, ts.unit()) + " UTC";
        }
        return TemporalText.formatInZone(ticks, ts.unit(), zone) + " " + ts.timezone();
    }

    /**
     * {@code s} with every character that would act on the terminal instead of being shown escaped, so
     * data cannot move the cursor, recolour the screen, start a new row or reorder the text around it:
     * line feed, carriage return and tab as {@code \n}, {@code \r}, {@code \t}; every other C0
     * control, DEL, the C1 controls (U+0080 to U+009F), the bidirectional marks, embeddings, overrides
     * and isolates (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069) and the line and
     * paragraph separators (U+2028, U+2029) as a backslash, {@code u} and four upper-case hex digits
     * (ESC is shown as backslash-u001B). Everything else, a backslash included, is shown as it is: the
     * table is for reading; {@code --output} keeps the bytes.
     */
    static String printable(String s) {
        StringBuilder sb = null;
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            String escape = switch (ch) {
                case '\n' -> "\\n";
                case '\r' -> "\\r";
                case '\t' -> "\\t";
                default -> acts(ch) ? String.format(Locale.ROOT, "\\u%04X", (int) ch) : null;
            };
            if (escape != null && sb == null) {
                sb = new StringBuilder(s.length() + 8).append(s, 0, i);
            }
            if (sb != null) {
                if (escape != null) {
                    sb.append(escape);
                } else {
                    sb.append(ch);
                }
            }
        }
        return sb == null ? s : sb.toString();
    }

    /** True for a character a terminal acts on rather than shows (see {@link #printable}). */
    private static boolean acts(char ch) {
        return ch < 0x20
                || (ch >= 0x7F && ch <= 0x9F)
                || ch == 0x061C
                || ch == 0x200E
                || ch == 0x200F
                || (ch >= 0x2028 && ch <= 0x202E)
                || (ch >= 0x2066 && ch <= 0x2069);
    }

    private static void appendLine(StringBuilder sb, List<String> cells, int[] width) {
        for (int c = 0; c < cells.size(); c++) {
            if (c > 0) {
                sb.append(" | ");
            }
            String cell = cells.get(c);
            sb.append(c == cells.size() - 1 ? cell : cell + " ".repeat(width[c] - cell.length()));
        }
        sb.append('\n');
    }

    /**
     * A value as a person reads it: NULL, strings without quotes (and with their control characters
     * escaped, {@link #printable}), dates and timestamps in ISO form (UTC).
     */
    static String text(ScalarValue v) {
        if (v.isNull()) {
            return "NULL";
        }
        Object o = v.value();
        return switch (v.type().valueType()) {
            case DataType.Utf8 _ -> printable((String) o);
            case DataType.Date32 _ -> TemporalText.formatDate((Integer) o);
            case DataType.Timestamp ts -> timestamp(ts, (Long) o);
            case DataType.Decimal _ -> ((BigDecimal) o).toPlainString();
            default -> v.toString();
        };
    }
}
