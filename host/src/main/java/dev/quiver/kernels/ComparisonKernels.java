package dev.quiver.kernels;

import dev.quiver.expr.Operator;
import dev.quiver.types.DataType;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

import java.math.BigDecimal;
import java.util.function.IntFunction;

/** {@code = <> < <= > >=} and the DISTINCT FROM forms over two values of one type. */
final class ComparisonKernels {
    /** The order of the two operands at a row where both are valid: negative, zero or positive. */
    @FunctionalInterface
    private interface RowOrder {
        int compare(int row);
    }

    private ComparisonKernels() {
    }

    static FieldVector compare(Operator op, KernelInput l, KernelInput r, int rows, BufferAllocator allocator) {
        if (!op.isComparison()) {
            throw new IllegalArgumentException(op + " is not a comparison operator");
        }
        RowOrder order = order(op, l, r);
        FieldVector out = ResultVector.allocate(DataType.BOOLEAN, rows, allocator);
        try {
            ArrowBuf validity = out.getValidityBuffer();
            ArrowBuf data = out.getDataBuffer();
            boolean distinctForm = op == Operator.IS_DISTINCT_FROM || op == Operator.IS_NOT_DISTINCT_FROM;
            if (!distinctForm) {
                ResultVector.intersectValidity(out, rows, l, r);
                for (int i = 0; i < rows; i++) {
                    if (ResultVector.isValid(validity, i)) {
                        ResultVector.setBit(data, i, holds(op, order.compare(i)));
                    }
                }
            } else {
                ResultVector.intersectValidity(out, rows);
                boolean wantDistinct = op == Operator.IS_DISTINCT_FROM;
                for (int i = 0; i < rows; i++) {
                    boolean lv = l.isValid(i);
                    boolean rv = r.isValid(i);
                    boolean same = lv && rv ? order.compare(i) == 0 : lv == rv;
                    ResultVector.setBit(data, i, same != wantDistinct);
                }
            }
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }

    private static boolean holds(Operator op, int c) {
        return switch (op) {
            case EQ -> c == 0;
            case NOT_EQ -> c != 0;
            case LT -> c < 0;
            case LT_EQ -> c <= 0;
            case GT -> c > 0;
            case GT_EQ -> c >= 0;
            default -> throw new AssertionError(op);
        };
    }

    private static RowOrder order(Operator op, KernelInput l, KernelInput r) {
        DataType lt = l.type;
        DataType rt = r.type;
        if (l.isNullType() || r.isNullType()) {
            return i -> 0; // never called on a row where both are valid
        }
        UnsupportedOperationException unsupported = new UnsupportedOperationException(
                "comparison " + lt + " " + op.sql() + " " + rt + " is not supported");
        switch (lt) {
            case DataType.Int i when i.equals(DataType.UINT64) && rt.equals(lt) -> {
                KernelInput.LongReader x = l.longs();
                KernelInput.LongReader y = r.longs();
                return row -> Long.compareUnsigned(x.get(row), y.get(row));
            }
            case DataType.Int i when rt.equals(lt) -> {
                return longOrder(l, r);
            }
            case DataType.Bool b when rt.equals(lt) -> {
                return longOrder(l, r);
            }
            case DataType.Date32 d when rt.equals(lt) -> {
                return longOrder(l, r);
            }
            case DataType.Timestamp t when rt instanceof DataType.Timestamp u && t.unit() == u.unit() -> {
                return longOrder(l, r);
            }
            case DataType.FloatingPoint f when rt.equals(lt) -> {
                KernelInput.DoubleReader x = l.doubles();
                KernelInput.DoubleReader y = r.doubles();
                return row -> totalOrder(x.get(row), y.get(row));
            }
            case DataType.Decimal d when rt instanceof DataType.Decimal e -> {
                if (d.scale() == e.scale()) {
                    return decimal128Order(l, r);
                }
                IntFunction<BigDecimal> x = l.decimals();
                IntFunction<BigDecimal> y = r.decimals();
                return row -> x.apply(row).compareTo(y.apply(row));
            }
            case DataType.Utf8 u when rt instanceof DataType.Utf8 -> {
                return bytesOrder(l, r);
            }
            case DataType.Binary b when rt instanceof DataType.Binary -> {
                return bytesOrder(l, r);
            }
            default -> throw unsupported;
        }
    }

    private static RowOrder longOrder(KernelInput l, KernelInput r) {
        KernelInput.LongReader x = l.longs();
        KernelInput.LongReader y = r.longs();
        return row -> Long.compare(x.get(row), y.get(row));
    }

    /** SQL's total order on floats: -0.0 = 0.0, NaN = NaN, NaN above everything else. */
    static int totalOrder(double a, double b) {
        boolean an = Double.isNaN(a);
        boolean bn = Double.isNaN(b);
        if (an || bn) {
            return an == bn ? 0 : an ? 1 : -1;
        }
        return a < b ? -1 : a > b ? 1 : 0;
    }

    /** Two Decimal128 columns of one scale: compare the 128-bit two's complement unscaled values. */
    private static RowOrder decimal128Order(KernelInput l, KernelInput r) {
        ArrowBuf a = l.vector.getDataBuffer();
        ArrowBuf b = r.vector.getDataBuffer();
        boolean ac = l.constant;
        boolean bc = r.constant;
        return row -> {
            long ao = ac ? 0 : (long) row << 4;
            long bo = bc ? 0 : (long) row << 4;
            int c = Long.compare(a.getLong(ao + 8), b.getLong(bo + 8));
            return c != 0 ? c : Long.compareUnsigned(a.getLong(ao), b.getLong(bo));
        };
    }

    private static RowOrder bytesOrder(KernelInput l, KernelInput r) {
        KernelInput.ByteRanges x = l.bytes();
        KernelInput.ByteRanges y = r.bytes();
        return row -> compareBytes(x.data, x.start(row), x.end(row), y.data, y.start(row), y.end(row));
    }

    /** Lexicographic order of unsigned bytes; for UTF-8 this is code point order. */
    static int compareBytes(ArrowBuf a, long aStart, long aEnd, ArrowBuf b, long bStart, long bEnd) {
        long aLen = aEnd - aStart;
        long bLen = bEnd - bStart;
        long n = Math.min(aLen, bLen);
        long k = 0;
        for (; k + 8 <= n; k += 8) {
            long x = a.getLong(aStart + k);
            long y = b.getLong(bStart + k);
            if (x != y) {
                // Little-endian loads: reverse so the first byte is the most significant.
                return Long.compareUnsigned(Long.reverseBytes(x), Long.reverseBytes(y));
            }
        }
        for (; k < n; k++) {
            int x = a.getByte(aStart + k) & 0xFF;
            int y = b.getByte(bStart + k) & 0xFF;
            if (x != y) {
                return x < y ? -1 : 1;
            }
        }
        return Long.compare(aLen, bLen);
    }
}
