package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.types.DataType;
import dev.quiver.value.Values;
import java.io.ByteArrayOutputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ArrowWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link IpcLayout} finds what {@link IpcMutator} aims at: in a file written with known values,
 * the messages in order, the record batch's length among the metadata fields, and each body
 * buffer with its role holding exactly the bytes written (the string offsets, the dictionary's
 * offsets and text, the indices). Without this the IPC fuzzer could corrupt the wrong bytes and
 * never notice.
 */
class IpcLayoutTest {
    private static final List<String> TEXT = List.of("ab", "", "cde");
    private static final List<String> DICTIONARY = List.of("x", "yz");

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void findsMessagesFieldsAndBuffers(boolean file) throws Exception {
        try (RootAllocator allocator = new RootAllocator()) {
            DictionaryEncoding encoding = new DictionaryEncoding(7, false, new ArrowType.Int(32, true));
            Field s = Field.nullable("s", ArrowType.Utf8.INSTANCE);
            Field d = new Field("d", new FieldType(true, new ArrowType.Int(32, true), encoding), null);
            Schema schema = new Schema(List.of(s, d));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            Field dictionaryField;
            try (FieldVector values = Values.of(DataType.UTF8, "d_values", DICTIONARY, allocator);
                    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
                dictionaryField = values.getField();
                DictionaryProvider.MapDictionaryProvider provider =
                        new DictionaryProvider.MapDictionaryProvider(new Dictionary(values, encoding));
                try (ArrowWriter writer = file
                        ? new ArrowFileWriter(root, provider, Channels.newChannel(out))
                        : new ArrowStreamWriter(root, provider, Channels.newChannel(out))) {
                    writer.start();
                    try (FieldVector text = Values.of(DataType.UTF8, "s", TEXT, allocator)) {
                        text.makeTransferPair(root.getVector(0)).transfer();
                    }
                    IntVector indices = (IntVector) root.getVector(1);
                    indices.allocateNew(3);
                    indices.set(0, 1);
                    indices.set(1, 0);
                    indices.set(2, 1);
                    indices.setValueCount(3);
                    root.setRowCount(3);
                    writer.writeBatch();
                    writer.end();
                }
            }
            byte[] bytes = out.toByteArray();
            IpcLayout layout = IpcLayout.of(bytes, file, schema, Map.of(7L, dictionaryField));

            assertEquals(
                    List.of(MessageHeader.Schema, MessageHeader.DictionaryBatch, MessageHeader.RecordBatch),
                    layout.messages.stream().map(IpcLayout.Message::headerType).toList());
            IpcLayout.Slot length = layout.slots.stream()
                    .filter(x -> x.name().equals("message 2 (RecordBatch) length"))
                    .findFirst()
                    .orElseThrow();
            assertEquals(3, IpcMutator.read(bytes, length.position(), length.width()));
            if (file) {
                assertTrue(
                        layout.slots.stream()
                                .anyMatch(x -> x.name().equals("footer record batch block 0 offset")
                                        && IpcMutator.read(bytes, x.position(), 8)
                                                == layout.messages.get(2).start()),
                        "the footer's block points at the batch");
            }

            // The dictionary batch: the values' validity, offsets 0, 1, 3 and text "xyz"; the record batch:
            // the strings' validity, offsets 0, 2, 2, 5 and text "abcde", the indices' validity and 1, 0, 1.
            List<IpcLayout.Region> regions = layout.regions;
            assertEquals(
                    List.of(
                            IpcLayout.Role.VALIDITY,
                            IpcLayout.Role.OFFSETS,
                            IpcLayout.Role.DATA,
                            IpcLayout.Role.VALIDITY,
                            IpcLayout.Role.OFFSETS,
                            IpcLayout.Role.DATA,
                            IpcLayout.Role.VALIDITY,
                            IpcLayout.Role.DICTIONARY_INDICES),
                    regions.stream().map(IpcLayout.Region::role).toList());
            assertEquals(List.of(0L, 1L, 3L), ints(bytes, regions.get(1), 3));
            assertEquals("xyz", text(bytes, regions.get(2), 3));
            assertEquals(List.of(0L, 2L, 2L, 5L), ints(bytes, regions.get(4), 4));
            assertEquals("abcde", text(bytes, regions.get(5), 5));
            assertEquals(List.of(1L, 0L, 1L), ints(bytes, regions.get(7), 3));
            assertEquals(
                    List.of("s", "s", "s", "d", "d"),
                    regions.subList(3, 8).stream().map(IpcLayout.Region::column).toList());
        }
    }

    private static List<Long> ints(byte[] bytes, IpcLayout.Region r, int n) {
        assertEquals(4, r.width());
        return IntStream.range(0, n)
                .mapToObj(i -> IpcMutator.read(bytes, r.start() + 4 * i, 4))
                .toList();
    }

    private static String text(byte[] bytes, IpcLayout.Region r, int n) {
        return new String(bytes, r.start(), n, StandardCharsets.UTF_8);
    }
}
