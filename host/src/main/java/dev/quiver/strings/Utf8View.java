package dev.quiver.strings;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The UTF-8 bytes of one string value, read in place from an Arrow buffer: no copy, no
 * {@code String}. A string RowFn receives one view per string argument; the view is reused from
 * row to row, so read it during the call and do not keep it (copy with {@link #toBytes()} or
 * {@link #toString()} when a value must outlive the row). Indexes are byte indexes; the bytes
 * are valid UTF-8 (Quiver checks every string column once per batch).
 */
public final class Utf8View implements Comparable<Utf8View> {
    private MemorySegment data = MemorySegment.NULL;
    private long start;
    private int length;

    /** An empty view; {@link #reset} points it at a value. */
    public Utf8View() {}

    /** A view of the UTF-8 encoding of {@code s} (tests, constants). */
    public static Utf8View of(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        Utf8View v = new Utf8View();
        v.reset(MemorySegment.ofArray(b), 0, b.length);
        return v;
    }

    /** Points this view at {@code length} bytes of {@code data} from {@code start}. */
    public void reset(MemorySegment data, long start, long length) {
        if (length > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "a string value of " + length + " bytes is longer than a view reads (2 GiB)");
        }
        this.data = data;
        this.start = start;
        this.length = (int) length;
    }

    /** The number of bytes. */
    public int length() {
        return length;
    }

    public boolean isEmpty() {
        return length == 0;
    }

    /** Byte {@code i} ({@code 0 <= i < length()}). */
    public byte byteAt(int i) {
        if (i < 0 || i >= length) {
            throw new IndexOutOfBoundsException("byte " + i + " of a " + length + "-byte string");
        }
        return data.get(ValueLayout.JAVA_BYTE, start + i);
    }

    /** Whether every byte is ASCII ({@link Utf8#isAscii}). */
    public boolean isAscii() {
        return Utf8.isAscii(data, start, start + length);
    }

    /** The number of characters (code points). */
    public int codePointCount() {
        return (int) Utf8.codePoints(data, start, start + length);
    }

    /** The code point whose encoding starts at byte {@code i}. */
    public int codePointAt(int i) {
        if (i < 0 || i >= length) {
            throw new IndexOutOfBoundsException("byte " + i + " of a " + length + "-byte string");
        }
        int n = Utf8.sequenceLength(data.get(ValueLayout.JAVA_BYTE, start + i));
        if (i + n > length) {
            throw new IndexOutOfBoundsException(
                    "a " + n + "-byte sequence at byte " + i + " of a " + length + "-byte string");
        }
        return Utf8.decode(data, start + i);
    }

    /** The number of bytes of the character that starts at byte {@code i}. */
    public int charLengthAt(int i) {
        return Utf8.sequenceLength(byteAt(i));
    }

    /** The first index {@code >= from} of byte {@code b}, or -1. */
    public int indexOf(byte b, int from) {
        for (int i = Math.max(0, from); i < length; i++) {
            if (data.get(ValueLayout.JAVA_BYTE, start + i) == b) {
                return i;
            }
        }
        return -1;
    }

    /** The first byte index {@code >= from} where {@code needle}'s bytes start, or -1. */
    public int indexOf(Utf8View needle, int from) {
        int n = needle.length;
        if (n == 0) {
            return Math.min(Math.max(0, from), length);
        }
        byte first = needle.data.get(ValueLayout.JAVA_BYTE, needle.start);
        for (int i = Math.max(0, from); i + n <= length; i++) {
            if (data.get(ValueLayout.JAVA_BYTE, start + i) == first
                    && MemorySegment.mismatch(
                                    data, start + i, start + i + n, needle.data, needle.start, needle.start + n)
                            < 0) {
                return i;
            }
        }
        return -1;
    }

    public boolean startsWith(Utf8View prefix) {
        return prefix.length <= length
                && MemorySegment.mismatch(
                                data,
                                start,
                                start + prefix.length,
                                prefix.data,
                                prefix.start,
                                prefix.start + prefix.length)
                        < 0;
    }

    public boolean endsWith(Utf8View suffix) {
        long at = start + length - suffix.length;
        return suffix.length <= length
                && MemorySegment.mismatch(
                                data, at, start + length, suffix.data, suffix.start, suffix.start + suffix.length)
                        < 0;
    }

    /** Whether the bytes are those of {@code other}. */
    public boolean contentEquals(Utf8View other) {
        return other.length == length
                && MemorySegment.mismatch(data, start, start + length, other.data, other.start, other.start + length)
                        < 0;
    }

    /** Byte-wise (unsigned) order, which is code point order for UTF-8. */
    @Override
    public int compareTo(Utf8View o) {
        long m = MemorySegment.mismatch(data, start, start + length, o.data, o.start, o.start + o.length);
        if (m < 0) {
            return 0;
        }
        if (m == length || m == o.length) {
            return Integer.compare(length, o.length);
        }
        return Integer.compare(
                data.get(ValueLayout.JAVA_BYTE, start + m) & 0xFF,
                o.data.get(ValueLayout.JAVA_BYTE, o.start + m) & 0xFF);
    }

    /** The bytes {@code [from, to)} of the value as a segment (zero copy; valid during the row only). */
    public MemorySegment segment(int from, int to) {
        if (from < 0 || to > length || from > to) {
            throw new IndexOutOfBoundsException("bytes [" + from + ", " + to + ") of a " + length + "-byte string");
        }
        return data.asSlice(start + from, to - from);
    }

    MemorySegment data() {
        return data;
    }

    long start() {
        return start;
    }

    /** A copy of the bytes. */
    public byte[] toBytes() {
        return segment(0, length).toArray(ValueLayout.JAVA_BYTE);
    }

    /** The value as a Java string: a copy and a decode, for slow paths and messages. */
    @Override
    public String toString() {
        return new String(toBytes(), StandardCharsets.UTF_8);
    }
}
