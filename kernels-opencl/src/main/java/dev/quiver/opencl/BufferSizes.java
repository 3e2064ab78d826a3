package dev.quiver.opencl;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.memory.VectorView;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The bytes a run's buffers span in Arrow memory (values, or a bitmap for Booleans), and the
 * check that an invocation's segments hold them in memory OpenCL can use. Owns no state.
 */
final class BufferSizes {
    private BufferSizes() {}

    /** Bytes of {@code rows} values of {@code type} in Arrow memory: a bitmap for Booleans. */
    static long dataBytes(ElementType type, long rows) {
        return type.isBitPacked() ? VectorView.validityBytes(rows) : rows * type.byteWidth();
    }

    /** Bytes per row of {@code type}: an eighth for a bitmap. */
    static double bytesPerRow(ElementType type) {
        return type.isBitPacked() ? 1.0 / 8 : type.byteWidth();
    }

    /**
     * Throws {@link IllegalArgumentException} when {@code invocation} does not fit {@code program}:
     * argument count, segment sizes, heap segments, buffers over 2 GiB.
     */
    static void checkFits(KernelProgram program, KernelInvocation invocation) {
        if (invocation.args().size() != program.arity()) {
            throw new IllegalArgumentException(program.text() + " takes " + program.arity()
                    + " argument(s), the invocation has " + invocation.args().size());
        }
        long rows = invocation.rows();
        for (int i = 0; i < program.arity(); i++) {
            checkSegment(
                    "argument " + i,
                    invocation.args().get(i),
                    dataBytes(program.argTypes().get(i), rows));
        }
        checkSegment("the output", invocation.out(), dataBytes(program.resultType(), rows));
        if (invocation.validity().byteSize() < VectorView.validityBytes(rows)) {
            throw new IllegalArgumentException(
                    "the validity bitmap holds " + invocation.validity().byteSize() + " bytes, fewer than the "
                            + VectorView.validityBytes(rows) + " of " + rows + " rows");
        }
    }

    private static void checkSegment(String what, MemorySegment segment, long bytes) {
        Objects.requireNonNull(segment, what + " is null");
        if (segment.byteSize() < bytes) {
            throw new IllegalArgumentException(
                    what + " holds " + segment.byteSize() + " bytes, fewer than the " + bytes + " its rows need");
        }
        if (bytes == 0) {
            return;
        }
        if (!segment.isNative()) {
            throw new IllegalArgumentException(what + " is a heap segment; OpenCL needs native (Arrow) memory");
        }
        if (bytes > Integer.MAX_VALUE) {
            // JOCL hands memory to OpenCL through ByteBuffers, which end at 2 GiB.
            throw new IllegalArgumentException(what + " spans " + bytes + " bytes; buffers over 2 GiB ("
                    + Integer.MAX_VALUE + " bytes) are not supported by the OpenCL backend: split the batch");
        }
    }
}
