package dev.quiver.strings;

import dev.quiver.errors.InputException;

/**
 * A non-null row of a Utf8 or LargeUtf8 column whose bytes are not valid UTF-8 (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF, no truncated sequence). Quiver checks
 * every string column an expression reads, once per batch, and raises this rather than compute
 * on malformed text. It names the column, the batch row and the offending byte.
 */
public final class InvalidUtf8Exception extends InputException {
    private final String column;
    private final long row;
    private final long byteIndex;

    public InvalidUtf8Exception(String column, long row, long byteIndex, int badByte) {
        super("invalid UTF-8 in column '" + column + "' at row " + row + ": the sequence that starts at byte "
                + byteIndex + " of the value (0x" + String.format("%02X", badByte & 0xFF) + ") is not valid UTF-8");
        fillColumn(column);
        fillRow(row);
        this.column = column;
        this.row = row;
        this.byteIndex = byteIndex;
    }

    /** The column (or argument) that holds the value. */
    public String column() {
        return column;
    }

    /** The row of the batch. */
    public long row() {
        return row;
    }

    /** Where, in the value's bytes, the first invalid sequence starts. */
    public long byteIndex() {
        return byteIndex;
    }
}
