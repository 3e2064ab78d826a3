package dev.quiver.strings;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The ASCII bytes {@code [start, end)} of a segment seen as a {@link CharSequence} without a
 * copy: {@code charAt(i)} is byte {@code start + i}, so character indices are byte offsets from
 * {@code start}. One instance is reused for every row of a batch ({@link #reset}); hand it to
 * {@code Matcher.reset(CharSequence)}. Only for bytes known to be ASCII (an all-ASCII batch):
 * a byte of a multi-byte sequence would read as a negative char.
 */
public final class AsciiCharSequence implements CharSequence {
    private final MemorySegment data;
    private long start;
    private int length;

    public AsciiCharSequence(MemorySegment data) {
        this.data = Objects.requireNonNull(data, "data is null");
    }

    /** Makes this view the bytes {@code [start, end)} (at most 2^31 - 1 of them); returns this. */
    public AsciiCharSequence reset(long start, long end) {
        if (end - start > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "a string of " + (end - start) + " bytes is too long to match a regular expression on");
        }
        this.start = start;
        this.length = (int) (end - start);
        return this;
    }

    /** Where the view starts in the segment. */
    public long start() {
        return start;
    }

    @Override
    public int length() {
        return length;
    }

    @Override
    public char charAt(int index) {
        Objects.checkIndex(index, length);
        return (char) data.get(ValueLayout.JAVA_BYTE, start + index);
    }

    @Override
    public CharSequence subSequence(int from, int to) {
        Objects.checkFromToIndex(from, to, length);
        return toString(from, to);
    }

    private String toString(int from, int to) {
        byte[] b = data.asSlice(start + from, to - from).toArray(ValueLayout.JAVA_BYTE);
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    @Override
    public String toString() {
        return toString(0, length);
    }
}
