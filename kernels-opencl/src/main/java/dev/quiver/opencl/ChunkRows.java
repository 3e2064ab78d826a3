package dev.quiver.opencl;

import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import org.jocl.CL;

/**
 * The chunk size of one backend's overlapped copy path ({@link OverlapPipeline}): the rows
 * configured ({@link OpenClBackend#overlapChunkRows(int)}), whether the device can cut its
 * buffers at such chunks (its base address alignment), and the chunk a run of a given program
 * takes so that one staging slot stays under {@link #MAX_SLOT_BYTES}. Thread-safe: the rows are
 * one volatile field, read once per run.
 */
final class ChunkRows {
    /** Rows per chunk on a GPU or accelerator unless configured: {@link OpenClBackend#DEFAULT_CHUNK_ROWS}. */
    static final int DEFAULT_ROWS = 1 << 20;
    /** Chunks are whole multiples of this many rows: {@link OpenClBackend#CHUNK_GRAIN}. */
    static final int GRAIN = 1 << 16;
    /** The most bytes of one pinned staging slot: {@link OpenClBackend#MAX_SLOT_BYTES}. */
    static final long MAX_SLOT_BYTES = 256L << 20;

    /** Rows per chunk; 0: no overlap. */
    private volatile int rows;
    /** The device's base address alignment in bytes: sub-buffer origins must be multiples of it. */
    private final long baseAlignBytes;

    /** The default for {@code device}: {@code -Dquiver.opencl.chunkRows}, else 0 on a CPU device and {@link #DEFAULT_ROWS} elsewhere. */
    ChunkRows(OpenClDevice device) {
        this.baseAlignBytes = Math.max(1, baseAlignBits(device) / 8);
        set(Integer.getInteger("quiver.opencl.chunkRows", device.type() == OpenClDevice.Type.CPU ? 0 : DEFAULT_ROWS));
    }

    private static long baseAlignBits(OpenClDevice device) {
        try {
            return OpenClRuntime.deviceUInt(device.id(), CL.CL_DEVICE_MEM_BASE_ADDR_ALIGN);
        } catch (RuntimeException e) {
            return 4096 * 8; // a page: what the largest alignment drivers ask for
        }
    }

    /** The rows configured; 0: no overlap. */
    int rows() {
        return rows;
    }

    /** Sets {@link #rows()}: 0 turns overlap off; otherwise rounded up to a multiple of {@link #GRAIN} rows. */
    void set(int rows) {
        if (rows < 0) {
            throw new IllegalArgumentException("chunk rows must be >= 0, got " + rows);
        }
        this.rows = rows == 0 ? 0 : (int) Math.min(1 << 30, ((long) rows + GRAIN - 1) / GRAIN * GRAIN);
    }

    /**
     * {@link #rows()} when every chunk of every buffer starts at an offset the device can make a
     * sub-buffer at, else 0.
     */
    int aligned() {
        int c = rows;
        return c > 0 && c % baseAlignBytes == 0 && (c / 8) % baseAlignBytes == 0 ? c : 0;
    }

    /** The chunk rows of a run of {@code program}: {@link #aligned()}, shrunk so one slot stays under {@link #MAX_SLOT_BYTES}. */
    int forProgram(KernelProgram program) {
        int c = aligned();
        if (c == 0) {
            return 0;
        }
        double perRow = 2.0 / 8 + BufferSizes.bytesPerRow(program.resultType()); // validity in and out, the result
        for (ElementType t : program.argTypes()) {
            perRow += BufferSizes.bytesPerRow(t);
        }
        long fit = (long) (MAX_SLOT_BYTES / perRow) / GRAIN * GRAIN;
        return (int) Math.max(GRAIN, Math.min(c, fit));
    }
}
