package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quiver.Placement;
import dev.quiver.Quiver;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;

/**
 * Mutated Arrow IPC files: valid files and streams of every type Quiver reads
 * ({@link IpcCorpus}, written by Arrow Java), mutated ({@link IpcMutator}: bits flipped,
 * truncated, lengths, offsets, counts, types and ids in the flatbuffer metadata corrupted,
 * offsets, dictionary indices, validity and data in the bodies corrupted, messages duplicated,
 * dropped, swapped), then read as {@code quiver eval} reads its input and evaluated
 * ({@link IpcCaseRun}, which says what each phase must give) on the CPU and, one case in
 * {@link #OPENCL_EVERY}, on OpenCL. Per case: a correct result or a documented exception, no
 * hang ({@link FuzzCases}: a time limit per case), no leak (the case's allocator back at zero
 * once the reader is closed), no {@link Error}.
 *
 * <p>By default a bounded run of {@link #DEFAULT_CASES} cases from a fixed seed. Flags:
 * {@code -Dquiver.fuzz.ipc.soak=N} runs N cases from a random seed; {@code -Dquiver.fuzz.ipc.seed=S}
 * replays a seed; {@code -Dquiver.fuzz.ipc.case=K} runs only case K of that seed (each case has
 * its own random source, {@link FuzzCases#caseRandom}); {@code -Dquiver.fuzz.caseTimeout=SECONDS}
 * sets the limit. It prints the seed, then the cases by outcome, the failures by category and
 * the first reports of each (seed, case, the file, the mutation, what happened).
 */
class IpcFuzzTest {
    static final int DEFAULT_CASES = Integer.getInteger("quiver.fuzz.ipc.cases", 1_500);
    /** One case in this many evaluates on OpenCL (and its reference too). */
    static final int OPENCL_EVERY = Integer.getInteger("quiver.fuzz.ipc.openClEvery", 8);
    /** One case in this many reads the file unmutated: the baseline every mutation departs from. */
    static final int UNMUTATED_EVERY = 50;
    /** What one case may allocate: a mutated length asks for more, and Arrow's reader refuses it. */
    static final long CASE_MEMORY_LIMIT = 64L << 20;

    /** Bytes the leaked allocators of the run still hold (Arrow's reader's leaks, and any failure's). */
    private long arrowLeaked;
    /** Nanoseconds in: planning, evaluating, the reference; writing and mutating the files. */
    private final long[] nanos = new long[4];

    @Test
    void mutatedIpcFilesGiveAResultOrADocumentedError() throws Exception {
        long soak = Long.getLong("quiver.fuzz.ipc.soak", 0L);
        long seed = FuzzCases.seed("quiver.fuzz.ipc.seed", 20261201L, soak > 0);
        Long only = Long.getLong("quiver.fuzz.ipc.case");
        long cases = soak > 0 ? soak : DEFAULT_CASES;
        System.out.println("IpcFuzzTest seed " + seed + " (replay with -Dquiver.fuzz.ipc.seed=" + seed
                + (soak > 0 ? " -Dquiver.fuzz.ipc.soak=" + soak : "") + "; one case: -Dquiver.fuzz.ipc.case=K)");
        FuzzTally tally = new FuzzTally();
        FuzzCases runner = new FuzzCases("IpcFuzzTest");
        long started = System.nanoTime();
        RootAllocator root = new RootAllocator();
        // The Quiver's own memory (folded constants, device state) apart from the cases', so each can be checked.
        BufferAllocator quiverMemory = root.newChildAllocator("the Quiver", 0, Long.MAX_VALUE);
        try (Quiver quiver = Quiver.builder()
                .allocator(quiverMemory)
                .openCl(OPENCL_EVERY > 0)
                .build()) {
            boolean openCl = !quiver.openClDevices().isEmpty();
            for (long k = only != null ? only : 0;
                    k < (only != null ? only + 1 : cases) && !runner.tooManyHangs();
                    k++) {
                Random r = FuzzCases.caseRandom(seed, k);
                runCase(quiver, root, runner, tally, seed, k, r, openCl);
                if (quiverMemory.getAllocatedMemory() != 0 && runner.hangs() == 0) { // a hung case may still hold some
                    tally.leaks++;
                    tally.fail(
                            "a leak",
                            "seed " + seed + ", case " + k + ": " + quiverMemory.getAllocatedMemory()
                                    + " bytes left in the Quiver's own allocator");
                }
                if (soak > 0 && (k + 1) % 10_000 == 0) {
                    System.out.printf(
                            "  soak: %d of %d cases, %d failures, %.0f s%n",
                            k + 1, soak, tally.failureCount(), (System.nanoTime() - started) / 1e9);
                }
            }
        }
        if (quiverMemory.getAllocatedMemory() == 0) {
            quiverMemory.close();
        }
        String summary = tally.summary("IpcFuzzTest", seed, (System.nanoTime() - started) / 1e9)
                + String.format(
                        "  seconds in: planning %.1f, evaluating %.1f, the reference %.1f, writing and mutating files %.1f%n",
                        nanos[0] / 1e9, nanos[1] / 1e9, nanos[2] / 1e9, nanos[3] / 1e9);
        System.out.print(summary);
        if (runner.tooManyHangs()) {
            fail("stopped after " + FuzzCases.MAX_HANGS + " hangs (seed " + seed + ")\n" + summary);
        }
        if (tally.failed()) {
            fail(tally.failureCount() + " failures (seed " + seed + ")\n" + summary);
        }
        // What is left is what the reader leaked on its own, and the allocators holding it stay open.
        assertEquals(arrowLeaked, root.getAllocatedMemory(), "bytes leaked");
        if (arrowLeaked == 0) {
            root.close();
        }
    }

    private void runCase(
            Quiver quiver,
            RootAllocator root,
            FuzzCases runner,
            FuzzTally tally,
            long seed,
            long k,
            Random r,
            boolean openCl)
            throws InterruptedException {
        tally.cases++;
        long t0 = System.nanoTime();
        IpcCorpus.Item item;
        try (BufferAllocator writing = root.newChildAllocator("writing case " + k, 0, Long.MAX_VALUE)) {
            item = IpcCorpus.random(r, writing);
        }
        IpcMutator.Mutated mutated = k % UNMUTATED_EVERY == 0
                ? new IpcMutator.Mutated(item.bytes(), "unmutated")
                : IpcMutator.mutate(item.layout(), r);
        nanos[3] += System.nanoTime() - t0;
        IpcCaseRun.ReadPath path = r.nextInt(4) == 0 ? IpcCaseRun.ReadPath.PIPE : IpcCaseRun.ReadPath.SEEKABLE;
        int draw = r.nextInt(840); // drawn whatever the flags say, so a case replays alike
        Placement placement = openCl && OPENCL_EVERY > 0 && draw % OPENCL_EVERY == 0 ? Placement.OPENCL : Placement.CPU;
        String what = "seed " + seed + ", case " + k + " (-Dquiver.fuzz.ipc.seed=" + seed + " -Dquiver.fuzz.ipc.case="
                + k + "): " + item.description() + ", read " + path + " on " + placement + "; mutation: "
                + mutated.description();
        BufferAllocator allocator = root.newChildAllocator("case " + k, 0, CASE_MEMORY_LIMIT);
        Random evaluation = new Random(r.nextLong());
        IpcCaseRun run = IpcCaseRun.of(quiver, placement, evaluation, allocator, nanos);
        FuzzCases.Timed<List<FuzzTally.Observation>> timed =
                runner.run(k, () -> run.run(mutated.bytes(), path), run::reading);
        if (timed.late() != null && !timed.hung()) {
            // Arrow's reader allocates on the heap what a length says (4 bytes of 'ARRO' read as a length: 1.3 GB).
            tally.count("read: Arrow's reader took longer than the limit (then ended)");
        }
        if (timed.hung()) {
            tally.hangs++;
            tally.fail(run.reading() ? "a hang in Arrow's reader" : "a hang", what + "\n" + timed.hang());
            return; // the stuck thread still holds the allocator
        }
        if (timed.thrown() != null) {
            tally.fail(
                    "the case raised " + timed.thrown().getClass().getName(),
                    what + "\n" + FuzzTally.stack(timed.thrown()));
        } else {
            timed.value().forEach(o -> tally.add(o, what));
        }
        long left = allocator.getAllocatedMemory();
        if (left == 0) {
            allocator.close();
            return;
        }
        // Whose leak: Arrow's reader, reading alone what the case read, may leave the same behind.
        BufferAllocator alone = root.newChildAllocator("reading case " + k + " alone", 0, CASE_MEMORY_LIMIT);
        long readerAlone = readAlone(mutated.bytes(), path, alone);
        if (readerAlone == 0) {
            alone.close();
        }
        // Neither allocator can be closed while it holds what was leaked: the run's end accounts for them.
        arrowLeaked += left + readerAlone;
        if (readerAlone == left) {
            tally.count("read: Arrow's reader leaked (reading alone, without Quiver, leaves as many bytes)");
        } else {
            tally.leaks++;
            tally.fail(
                    "a leak",
                    what + "\n" + left + " bytes left (reading alone leaves " + readerAlone + "):\n"
                            + allocator.toVerboseString());
        }
    }

    /** Reads every batch (up to {@link IpcCaseRun#MAX_BATCHES}) and closes the reader; the bytes left in {@code allocator}. */
    static long readAlone(byte[] bytes, IpcCaseRun.ReadPath path, BufferAllocator allocator) {
        try (ArrowReader reader = IpcCaseRun.open(bytes, path, allocator)) {
            reader.getVectorSchemaRoot();
            for (int b = 0; b < IpcCaseRun.MAX_BATCHES && reader.loadNextBatch(); b++) {
                // only reading
            }
        } catch (Exception | Error e) {
            // What the reader refuses (an exception, or an Error inside it: an assertion of Arrow's, a heap
            // allocation at a corrupt length) is counted by the case; only the bytes left matter here.
        }
        return allocator.getAllocatedMemory();
    }
}
