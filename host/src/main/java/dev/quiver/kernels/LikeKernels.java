package dev.quiver.kernels;

import dev.quiver.types.DataType;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

import java.nio.charset.StandardCharsets;

/** [NOT] LIKE / ILIKE over strings: a constant pattern is compiled once, an array pattern per distinct row value. */
final class LikeKernels {
    private LikeKernels() {
    }

    static FieldVector like(KernelInput v, KernelInput pattern, Character escape, boolean negated, boolean caseInsensitive,
                            int rows, BufferAllocator allocator) {
        String name = caseInsensitive ? "ILIKE" : "LIKE";
        for (KernelInput in : new KernelInput[]{v, pattern}) {
            if (!(in.type instanceof DataType.Utf8 || in.isNullType())) {
                throw new UnsupportedOperationException(v.type + " " + name + " " + pattern.type + " is not supported (strings only)");
            }
        }
        FieldVector out = ResultVector.allocate(DataType.BOOLEAN, rows, allocator);
        try {
            if (v.isNullType() || pattern.isNullType()) {
                return out;
            }
            ResultVector.intersectValidity(out, rows, v, pattern);
            ArrowBuf validity = out.getValidityBuffer();
            ArrowBuf data = out.getDataBuffer();
            KernelInput.ByteRanges values = v.bytes();
            KernelInput.ByteRanges patterns = pattern.bytes();
            LikePattern compiled = null;
            String compiledFrom = null;
            if (pattern.constant && pattern.isValid(0)) {
                compiledFrom = new String(patterns.get(0), StandardCharsets.UTF_8);
                compiled = LikePattern.compile(compiledFrom, escape, caseInsensitive);
            }
            for (int i = 0; i < rows; i++) {
                if (!ResultVector.isValid(validity, i)) {
                    continue;
                }
                if (!pattern.constant) {
                    String p = new String(patterns.get(i), StandardCharsets.UTF_8);
                    if (!p.equals(compiledFrom)) {
                        compiled = LikePattern.compile(p, escape, caseInsensitive);
                        compiledFrom = p;
                    }
                }
                boolean match = compiled.matches(values.data, values.start(i), values.end(i));
                ResultVector.setBit(data, i, match != negated);
            }
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }
}
