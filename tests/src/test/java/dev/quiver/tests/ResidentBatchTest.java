package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.CompiledExpression;
import dev.quiver.CompiledProjection;
import dev.quiver.Device;
import dev.quiver.Placement;
import dev.quiver.Quiver;
import dev.quiver.expr.Expr;
import dev.quiver.opencl.OpenClBackend;
import dev.quiver.opencl.OpenClDevice;
import dev.quiver.opencl.OpenClRuntime;
import dev.quiver.opencl.ResidentStats;
import dev.quiver.opencl.TransferMode;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryEncoder;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Resident arguments end to end, on an OpenCL device in COPY mode: a batch column read by two
 * kernel segments of one expression is uploaded once per batch and released when the batch is
 * done; a dictionary's values are uploaded once for every batch that brings the same dictionary.
 * Results equal the CPU's.
 */
class ResidentBatchTest {
    private BufferAllocator allocator;
    private Quiver quiver;
    private OpenClBackend copying;
    private Device device;

    @BeforeEach
    void open() {
        List<OpenClDevice> found = OpenClRuntime.discover().devices();
        Assumptions.assumeFalse(found.isEmpty() && System.getenv("CI") == null, "no OpenCL device");
        allocator = new RootAllocator();
        copying = OpenClBackend.open(found.getFirst(), TransferMode.COPY);
        device = new Device("opencl-copy", Device.Kind.OPENCL_CPU, "the first OpenCL device, copying", copying);
        quiver = Quiver.builder()
                .allocator(allocator)
                .openCl(false)
                .addDevice(device)
                .calibration(false)
                .build();
    }

    @AfterEach
    void close() {
        quiver.close();
        assertEquals(0, copying.liveObjects().total(), copying.liveObjects().toString());
        assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked");
        allocator.close();
    }

    private Float8Vector column(String name, int rows, double scale) {
        Float8Vector v = new Float8Vector(name, allocator);
        v.allocateNew(rows);
        for (int r = 0; r < rows; r++) {
            v.set(r, (r % 997 - 400) * scale);
        }
        v.setValueCount(rows);
        return v;
    }

    @Test
    void aColumnReadByTwoSegmentsGoesUpOncePerBatch() {
        int rows = 20_000;
        try (Float8Vector x = column("x", rows, 0.01);
                Float8Vector y = column("y", rows, 0.5);
                VectorSchemaRoot batch = new VectorSchemaRoot(List.<FieldVector>of(x, y))) {
            batch.setRowCount(rows);
            // Two fused segments, sqrt(abs(x)) and x * y + 1 (exact operations: equal on every device), joined by a
            // string operator that stays on the host.
            CompiledExpression e = quiver.compile(
                    batch.getSchema(),
                    Expr.parse("CAST(sqrt(abs(x)) AS VARCHAR) || '/' || CAST(x * y + 1 AS VARCHAR)"));
            for (int round = 1; round <= 3; round++) {
                try (FieldVector cpu = e.evaluate(batch, Placement.CPU);
                        FieldVector ocl = e.evaluate(batch, device, allocator)) {
                    for (int r = 0; r < rows; r++) {
                        assertEquals(String.valueOf(cpu.getObject(r)), String.valueOf(ocl.getObject(r)), "row " + r);
                    }
                }
                ResidentStats s = copying.residentStats();
                // Both columns are batch columns, kept for the batch: x for the first segment, y for the second.
                assertEquals(2L * round, s.uploads(), "x and y go up once per batch: " + s);
                assertEquals(2L * round * rows * Double.BYTES, s.uploadedBytes(), s.toString());
                assertEquals(round, s.hits(), "the second segment finds x on the device: " + s);
                assertEquals(0, s.entries(), "the batch is done: nothing of it stays on the device");
                assertEquals(0, copying.liveObjects().held());
            }
            String analyzed = e.explain(true);
            assertEquals(true, analyzed.contains("opencl-copy"), analyzed);
        }
    }

    @Test
    void aProjectionsExpressionsShareOneUploadOfAColumn() {
        int rows = 10_000;
        try (Float8Vector x = column("x", rows, 0.01);
                VectorSchemaRoot batch = new VectorSchemaRoot(List.<FieldVector>of(x))) {
            batch.setRowCount(rows);
            CompiledProjection q =
                    quiver.compileProjection(batch.getSchema(), null, List.of("sqrt(abs(x)) AS a", "x * 2 + 1 AS b"));
            try (VectorSchemaRoot cpu = q.project(batch, Placement.CPU, allocator);
                    VectorSchemaRoot ocl = q.project(batch, Placement.OPENCL, allocator)) {
                assertEquals(cpu.contentToTSVString(), ocl.contentToTSVString());
            }
            ResidentStats s = copying.residentStats();
            assertEquals(1, s.uploads(), "x goes up once for both expressions: " + s);
            assertEquals(1, s.hits(), s.toString());
            assertEquals(0, s.entries(), "released with the batch");
        }
    }

    @Test
    void aDictionaryGoesUpOnceForEveryBatchThatBringsIt() {
        int rows = 4_096;
        try (Float8Vector dictValues = column("price_dict", 64, 1.25);
                Float8Vector plain = new Float8Vector("price", allocator)) {
            Dictionary dict =
                    new Dictionary(dictValues, new DictionaryEncoding(7L, false, new ArrowType.Int(32, true)));
            DictionaryProvider.MapDictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider(dict);
            plain.allocateNew(rows);
            for (int r = 0; r < rows; r++) {
                plain.set(r, dictValues.get((r * 7) % 64));
            }
            plain.setValueCount(rows);
            try (FieldVector encoded = (FieldVector) DictionaryEncoder.encode(plain, dict);
                    VectorSchemaRoot batch = new VectorSchemaRoot(List.of(encoded))) {
                batch.setRowCount(rows);
                CompiledExpression e =
                        quiver.compile(batch.getSchema(), provider, Expr.parse("sqrt(price + 1000) * 2 + 1"));
                for (int round = 1; round <= 3; round++) {
                    try (FieldVector cpu = e.evaluate(batch, Placement.CPU);
                            FieldVector ocl = e.evaluate(batch, device, allocator)) {
                        for (int r = 0; r < rows; r++) {
                            assertEquals(cpu.getObject(r), ocl.getObject(r), "row " + r);
                        }
                    }
                    ResidentStats s = copying.residentStats();
                    assertEquals(1, s.uploads(), "the dictionary's values went up once: " + s);
                    assertEquals(round - 1, s.hits(), s.toString());
                    assertEquals(1, s.entries(), "the dictionary stays for the next batch");
                }
            }
        }
    }
}
