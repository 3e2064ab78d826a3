package dev.quiver.cli;

import dev.quiver.types.DataType;
import dev.quiver.value.ScalarValue;
import dev.quiver.value.TemporalText;
import dev.quiver.value.Values;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Field;

import java.math.BigDecimal;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

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
                    throw new CliError(ExitStatus.Kind.INPUT, input + ": batch " + index + ", column '" + f.getName() + "', row "
                            + i + " cannot be read (the batch is malformed): " + e.getClass().getSimpleName()
                            + (e.getMessage() == null ? "" : ": " + e.getMessage()), e);
                }
            }
            try {
                line.add(text(Values.get(result, i, resultType)));
            } catch (RuntimeException e) {
                throw new CliError(ExitStatus.Kind.INTERNAL, "the result of batch " + index + " cannot be read at row " + i + ": "
                        + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()), e);
            }
            lines.add(line);
        }
    }

    /** The table, then {@code <rows> rows in <batches> batches[ (first n shown, --limit)]; result <type>}. */
    String render(long rows, long batches, DataType resultType) {
        List<String> header = new ArrayList<>();
        columns.forEach(f -> header.add(f.getName()));
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
        sb.append(String.format(Locale.ROOT, "%d rows in %d batches%s; result %s%n", rows, batches,
                rows > lines.size() ? " (first " + lines.size() + " shown, --limit)" : "", resultType));
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
            throw new IndexOutOfBoundsException("dictionary index " + index + " outside the dictionary's "
                    + values.getValueCount() + " values");
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
        } catch (java.time.DateTimeException e) {
            return TemporalText.formatTimestamp(ticks, ts.unit()) + " UTC";
        }
        return TemporalText.formatInZone(ticks, ts.unit(), zone) + " " + ts.timezone();
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

    /** A value as a person reads it: NULL, strings without quotes, dates and timestamps in ISO form (UTC). */
    static String text(ScalarValue v) {
        if (v.isNull()) {
            return "NULL";
        }
        Object o = v.value();
        return switch (v.type().valueType()) {
            case DataType.Utf8 u -> (String) o;
            case DataType.Date32 d -> TemporalText.formatDate((Integer) o);
            case DataType.Timestamp ts -> timestamp(ts, (Long) o);
            case DataType.Decimal d -> ((BigDecimal) o).toPlainString();
            default -> v.toString();
        };
    }
}
