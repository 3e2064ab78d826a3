package dev.quiver.cpu;

import dev.quiver.backend.KernelInvocation;
import dev.quiver.backend.RowMode;
import dev.quiver.rowfn.ir.Ir;
import dev.quiver.rowfn.ir.IrNode;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.rowfn.ir.UnaryOp;
import dev.quiver.types.ElementType;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Random;

/**
 * The fused haversine loop against the same computation written by hand with the Vector API,
 * over the same memory. Run with {@code -Dquiver.bench=true} (see {@link SharedSubtreesTest}) or as a
 * main; prints the best time per row of each and their ratio.
 */
final class HaversineBenchmark {
    static final double RAD = Math.PI / 180, EARTH_KM = 6371.0;
    private static final VectorSpecies<Double> S = DoubleVector.SPECIES_PREFERRED;

    private HaversineBenchmark() {
    }

    /** haversine(lat1, lon1, lat2, lon2) in km, as a DAG: sin(dlat/2) and sin(dlon/2) are used twice. */
    static KernelProgram program() {
        ElementType d = ElementType.FLOAT64;
        IrNode lat1 = Ir.arg(0, d), lon1 = Ir.arg(1, d), lat2 = Ir.arg(2, d), lon2 = Ir.arg(3, d);
        IrNode rad = Ir.lit(RAD), half = Ir.lit(0.5);
        IrNode sdlat = Ir.unary(UnaryOp.SIN, Ir.mul(Ir.mul(Ir.sub(lat2, lat1), rad), half));
        IrNode sdlon = Ir.unary(UnaryOp.SIN, Ir.mul(Ir.mul(Ir.sub(lon2, lon1), rad), half));
        IrNode a = Ir.add(Ir.mul(sdlat, sdlat),
                Ir.mul(Ir.mul(Ir.unary(UnaryOp.COS, Ir.mul(lat1, rad)), Ir.unary(UnaryOp.COS, Ir.mul(lat2, rad))),
                        Ir.mul(sdlon, sdlon)));
        IrNode c = Ir.mul(Ir.lit(2.0), Ir.unary(UnaryOp.ASIN, Ir.sqrt(a)));
        return new KernelProgram(List.of(d, d, d, d), Ir.mul(Ir.lit(EARTH_KM), c), "haversine");
    }

    /** The same, by hand. */
    static void handWritten(MemorySegment lat1s, MemorySegment lon1s, MemorySegment lat2s, MemorySegment lon2s,
                            MemorySegment out, long rows) {
        ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        DoubleVector rad = DoubleVector.broadcast(S, RAD), half = DoubleVector.broadcast(S, 0.5);
        DoubleVector two = DoubleVector.broadcast(S, 2.0), earth = DoubleVector.broadcast(S, EARTH_KM);
        long step = S.length();
        for (long i = 0; i < rows; i += step) {
            long off = i << 3;
            DoubleVector lat1 = DoubleVector.fromMemorySegment(S, lat1s, off, le);
            DoubleVector lon1 = DoubleVector.fromMemorySegment(S, lon1s, off, le);
            DoubleVector lat2 = DoubleVector.fromMemorySegment(S, lat2s, off, le);
            DoubleVector lon2 = DoubleVector.fromMemorySegment(S, lon2s, off, le);
            DoubleVector sdlat = lat2.sub(lat1).mul(rad).mul(half).lanewise(VectorOperators.SIN);
            DoubleVector sdlon = lon2.sub(lon1).mul(rad).mul(half).lanewise(VectorOperators.SIN);
            DoubleVector a = sdlat.mul(sdlat).add(lat1.mul(rad).lanewise(VectorOperators.COS)
                    .mul(lat2.mul(rad).lanewise(VectorOperators.COS)).mul(sdlon.mul(sdlon)));
            DoubleVector c = two.mul(a.lanewise(VectorOperators.SQRT).lanewise(VectorOperators.ASIN));
            earth.mul(c).intoMemorySegment(out, off, le);
        }
    }

    /** Best ns per row of the fused loop, of the hand-written loop, and their ratio (hand / fused: 1 = as fast). */
    static double[] measure(int rows, int rounds) {
        CpuBackend cpu = new CpuBackend();
        KernelProgram p = program();
        try (Arena arena = Arena.ofConfined()) {
            Random r = new Random(7);
            MemorySegment[] in = new MemorySegment[4];
            for (int k = 0; k < 4; k++) {
                in[k] = arena.allocate(rows * 8L, 64);
                for (int i = 0; i < rows; i++) {
                    in[k].setAtIndex(ValueLayout.JAVA_DOUBLE, i, (k % 2 == 0 ? 90 : 180) * (r.nextDouble() * 2 - 1));
                }
            }
            MemorySegment out = arena.allocate(rows * 8L, 64), out2 = arena.allocate(rows * 8L, 64);
            MemorySegment valid = arena.allocate((rows + 7) / 8);
            valid.fill((byte) -1);
            KernelInvocation inv = new KernelInvocation(List.of(in), valid, out, rows, RowMode.ALL_ROWS);
            double fused = Double.MAX_VALUE, hand = Double.MAX_VALUE;
            for (int round = 0; round < Math.max(1, rounds / 4); round++) { // each warms up alone, fully profiled
                handWritten(in[0], in[1], in[2], in[3], out2, rows - rows % S.length());
            }
            for (int round = 0; round < Math.max(1, rounds / 4); round++) {
                cpu.execute(p, inv);
            }
            for (int round = 0; round < rounds; round++) {
                long t0 = System.nanoTime();
                cpu.execute(p, inv);
                long t1 = System.nanoTime();
                handWritten(in[0], in[1], in[2], in[3], out2, rows - rows % S.length());
                long t2 = System.nanoTime();
                fused = Math.min(fused, (double) (t1 - t0) / rows);
                hand = Math.min(hand, (double) (t2 - t1) / rows);
            }
            return new double[]{fused, hand, hand / fused};
        }
    }

    public static void main(String[] args) {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1 << 16;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3000;
        double[] m = measure(rows, rounds);
        System.out.printf("haversine, %d rows: fused %.3f ns/row, hand-written %.3f ns/row, fused speed %.2fx of hand-written%n",
                rows, m[0], m[1], m[2]);
    }
}
