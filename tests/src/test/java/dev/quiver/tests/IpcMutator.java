package dev.quiver.tests;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Mutations of a valid IPC file or stream ({@link IpcLayout}): each case applies one to three
 * in-place mutations, then sometimes one that changes the file's structure. In place:
 * <ul>
 *   <li>{@code bits}: one to four random bits flipped anywhere;</li>
 *   <li>{@code metadata bytes}: one to three bytes of a message's flatbuffer set at random;</li>
 *   <li>{@code slot}: one scalar of the metadata ({@link IpcLayout.Slot}: a record batch's
 *       length, a field node's length or null count, a buffer's offset or length, a body or
 *       metadata length, a type's bit width, precision, scale or unit, a type id, a dictionary
 *       id, a footer block) set to a value near or far from the original: 0, ±1, ±8, doubled,
 *       halved, the type's extremes, random;</li>
 *   <li>{@code offsets}: one offset of a string, binary or list column made to decrease, to
 *       pass the data, to be negative or huge;</li>
 *   <li>{@code indices}: one dictionary index set outside the dictionary (or to -1);</li>
 *   <li>{@code validity}: one validity bit flipped;</li>
 *   <li>{@code body bytes}: one to eight bytes of a body buffer set at random.</li>
 * </ul>
 * Structure: {@code truncate} (at a random byte, near a message boundary, or a few bytes off
 * the end), and {@code messages} (a message duplicated, dropped, swapped with another or moved;
 * the schema message included; in a file the footer then points at the old places).
 */
final class IpcMutator {
    private IpcMutator() {}

    /** The mutated bytes and what was done, for the report. */
    record Mutated(byte[] bytes, String description) {}

    static Mutated mutate(IpcLayout layout, Random r) {
        byte[] b = layout.bytes.clone();
        List<String> done = new ArrayList<>();
        int inPlace = r.nextInt(10) < 7 ? 1 : r.nextInt(3) < 2 ? 2 : 3;
        boolean structural = r.nextInt(4) == 0;
        if (structural && r.nextInt(3) == 0) {
            inPlace = 0; // a structural change alone
        }
        for (int i = 0; i < inPlace; i++) {
            done.add(inPlace(layout, b, r));
        }
        if (structural) {
            if (r.nextBoolean()) {
                return truncate(layout, b, r, done);
            }
            return messages(layout, b, r, done);
        }
        return new Mutated(b, String.join("; ", done));
    }

    private static String inPlace(IpcLayout layout, byte[] b, Random r) {
        List<IpcLayout.Region> offsets = regions(layout, IpcLayout.Role.OFFSETS);
        List<IpcLayout.Region> indices = regions(layout, IpcLayout.Role.DICTIONARY_INDICES);
        List<IpcLayout.Region> validity = regions(layout, IpcLayout.Role.VALIDITY);
        switch (r.nextInt(12)) {
            case 0 -> {
                int n = 1 + r.nextInt(4);
                StringBuilder s = new StringBuilder("bits flipped at");
                for (int k = 0; k < n; k++) {
                    int p = r.nextInt(b.length);
                    int bit = r.nextInt(8);
                    b[p] ^= (byte) (1 << bit);
                    s.append(' ').append(p).append('.').append(bit);
                }
                return s.toString();
            }
            case 1 -> {
                IpcLayout.Message m = layout.messages.get(r.nextInt(layout.messages.size()));
                int n = 1 + r.nextInt(3);
                StringBuilder s = new StringBuilder("metadata bytes set at");
                for (int k = 0; k < n; k++) {
                    int p = m.metadataStart() + r.nextInt(m.metadataLength());
                    b[p] = (byte) r.nextInt(256);
                    s.append(' ').append(p).append('=').append(b[p] & 0xFF);
                }
                return s.toString();
            }
            case 2, 3, 4, 5 -> {
                IpcLayout.Slot slot = layout.slots.get(r.nextInt(layout.slots.size()));
                long old = read(b, slot.position(), slot.width());
                long v = interesting(old, slot.width(), r);
                write(b, slot.position(), slot.width(), v);
                return slot.name() + " " + old + " -> " + read(b, slot.position(), slot.width());
            }
            case 6, 7 -> {
                if (offsets.isEmpty()) {
                    return inPlace(layout, b, r);
                }
                IpcLayout.Region region = offsets.get(r.nextInt(offsets.size()));
                int entries = region.length() / region.width();
                int k = r.nextInt(entries);
                long old = read(b, region.start() + k * region.width(), region.width());
                long last = read(b, region.start() + (entries - 1) * region.width(), region.width());
                long v = switch (r.nextInt(6)) {
                    case 0 -> old - 1 - r.nextInt(8); // decreasing
                    case 1 -> last + 1 + r.nextInt(64); // past the data
                    case 2 -> -1 - r.nextInt(1000); // negative
                    case 3 -> region.width() == 4 ? Integer.MAX_VALUE : Long.MAX_VALUE;
                    case 4 -> old + 1 + r.nextInt(4); // into the next value
                    default -> 1L << (20 + r.nextInt(10)); // far beyond
                };
                write(b, region.start() + k * region.width(), region.width(), v);
                return "offset " + k + " of " + region.column() + " " + old + " -> " + v;
            }
            case 8 -> {
                if (indices.isEmpty()) {
                    return inPlace(layout, b, r);
                }
                IpcLayout.Region region = indices.get(r.nextInt(indices.size()));
                int k = r.nextInt(region.length() / region.width());
                long v = switch (r.nextInt(4)) {
                    case 0 -> -1;
                    case 1 -> 9 + r.nextInt(4);
                    case 2 -> region.width() == 1 ? Byte.MAX_VALUE : Integer.MAX_VALUE;
                    default -> region.width() == 1 ? Byte.MIN_VALUE : Integer.MIN_VALUE;
                };
                write(b, region.start() + k * region.width(), region.width(), v);
                return "dictionary index " + k + " of " + region.column() + " -> " + v;
            }
            case 9 -> {
                if (validity.isEmpty()) {
                    return inPlace(layout, b, r);
                }
                IpcLayout.Region region = validity.get(r.nextInt(validity.size()));
                int bit = r.nextInt(region.length() * 8);
                b[region.start() + bit / 8] ^= (byte) (1 << (bit % 8));
                return "validity bit " + bit + " of " + region.column() + " flipped";
            }
            default -> {
                if (layout.regions.isEmpty()) {
                    int p = r.nextInt(b.length);
                    b[p] = (byte) r.nextInt(256);
                    return "byte " + p + " set";
                }
                IpcLayout.Region region = layout.regions.get(r.nextInt(layout.regions.size()));
                int n = 1 + r.nextInt(8);
                for (int k = 0; k < n; k++) {
                    b[region.start() + r.nextInt(region.length())] = (byte) r.nextInt(256);
                }
                return n + " bytes of the " + region.role() + " buffer of " + region.column() + " set";
            }
        }
    }

    private static List<IpcLayout.Region> regions(IpcLayout layout, IpcLayout.Role role) {
        return layout.regions.stream()
                .filter(x -> x.role() == role && (x.width() == 0 || x.length() >= x.width()))
                .toList();
    }

    private static Mutated truncate(IpcLayout layout, byte[] b, Random r, List<String> done) {
        int at = switch (r.nextInt(3)) {
            case 0 -> r.nextInt(b.length);
            case 1 -> {
                IpcLayout.Message m = layout.messages.get(r.nextInt(layout.messages.size()));
                int[] near = {m.start(), m.metadataStart(), m.bodyStart(), m.end()};
                yield Math.clamp(near[r.nextInt(near.length)] + r.nextInt(9) - 4, 0, b.length);
            }
            default -> Math.max(0, b.length - 1 - r.nextInt(16));
        };
        done.add("truncated to " + at + " of " + b.length + " bytes");
        return new Mutated(Arrays.copyOf(b, at), String.join("; ", done));
    }

    private static Mutated messages(IpcLayout layout, byte[] b, Random r, List<String> done) {
        List<byte[]> parts = new ArrayList<>();
        for (IpcLayout.Message m : layout.messages) {
            parts.add(Arrays.copyOfRange(b, m.start(), m.end()));
        }
        int n = parts.size();
        int i = r.nextInt(n), j = r.nextInt(n);
        String what;
        switch (r.nextInt(4)) {
            case 0 -> {
                parts.add(j, parts.get(i).clone());
                what = "message " + i + " duplicated before " + j;
            }
            case 1 -> {
                parts.remove(i);
                what = "message " + i + " dropped";
            }
            case 2 -> {
                byte[] t = parts.get(i);
                parts.set(i, parts.get(j));
                parts.set(j, t);
                what = "messages " + i + " and " + j + " swapped";
            }
            default -> {
                parts.add(j, parts.remove(i));
                what = "message " + i + " moved to " + j;
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(b, 0, layout.streamStart);
        parts.forEach(out::writeBytes);
        int tail = layout.messages.isEmpty()
                ? layout.streamStart
                : layout.messages.getLast().end();
        out.write(b, tail, b.length - tail); // end of stream, and in a file the footer (now pointing at the old places)
        done.add(what);
        return new Mutated(out.toByteArray(), String.join("; ", done));
    }

    /** A value near or far from {@code old} for a field of {@code width} bytes. */
    static long interesting(long old, int width, Random r) {
        long max = width == 8 ? Long.MAX_VALUE : (1L << (8 * width - 1)) - 1;
        long min = width == 8 ? Long.MIN_VALUE : -(1L << (8 * width - 1));
        return switch (r.nextInt(12)) {
            case 0 -> 0;
            case 1 -> old + 1;
            case 2 -> old - 1;
            case 3 -> old + 8;
            case 4 -> old - 8;
            case 5 -> old * 2;
            case 6 -> old / 2;
            case 7 -> max;
            case 8 -> min;
            case 9 -> -1;
            case 10 -> old ^ (1L << r.nextInt(8 * width));
            default -> r.nextLong();
        };
    }

    static long read(byte[] b, int p, int width) {
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        return switch (width) {
            case 1 -> bb.get(p);
            case 2 -> bb.getShort(p);
            case 4 -> bb.getInt(p);
            default -> bb.getLong(p);
        };
    }

    static void write(byte[] b, int p, int width, long v) {
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        switch (width) {
            case 1 -> bb.put(p, (byte) v);
            case 2 -> bb.putShort(p, (short) v);
            case 4 -> bb.putInt(p, (int) v);
            default -> bb.putLong(p, v);
        }
    }
}
