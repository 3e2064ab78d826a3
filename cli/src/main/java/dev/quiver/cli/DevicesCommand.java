package dev.quiver.cli;

import dev.quiver.Device;
import dev.quiver.Quiver;
import dev.quiver.opencl.OpenClBackend;
import dev.quiver.opencl.ProgramBinaryCache;
import dev.quiver.opencl.TransferMode;
import dev.quiver.placement.CalibrationCache;
import dev.quiver.placement.DeviceFigures;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import jdk.incubator.vector.DoubleVector;
import org.apache.arrow.memory.RootAllocator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Lists the devices Quiver found (or why there is no OpenCL device), each with the calibrated
 * figures AUTO placement estimates with and, for OpenCL devices, its health.
 */
@Command(
        name = "devices",
        mixinStandardHelpOptions = true,
        description = {
            "List the devices Quiver can run on, each with the figures automatic placement estimates with "
                    + "(calibrated once per device, then read from the cache) and, for OpenCL devices, its health."
        })
final class DevicesCommand implements Callable<Integer> {

    @Option(
            names = "--recalibrate",
            description = "Measure every device's figures again (up to about a second per device), "
                    + "replacing the cached ones, and print the new figures.")
    boolean recalibrate;

    @Option(
            names = "--transfer",
            converter = TransferOption.class,
            paramLabel = TransferOption.LABEL,
            description = TransferOption.DESCRIPTION + " Each mode has figures of its own.")
    TransferMode transfer;

    @Override
    public Integer call() {
        PrintStream out = System.out, err = System.err;
        try (RootAllocator allocator = new RootAllocator();
                Quiver quiver = TransferOption.apply(Quiver.builder().allocator(allocator), transfer)
                        .build()) {
            err.println(
                    recalibrate
                            ? "measuring each device's figures again (up to about a second per device) ..."
                            : "reading each device's figures, measuring those not cached yet (up to about a second per device) ...");
            for (Device d : quiver.devices()) {
                out.printf("%-40s %s%n", d.name(), d.description());
                out.println("  figures: " + figures(quiver, d));
                if (!d.equals(quiver.cpu())) {
                    out.println("  health: " + quiver.health(d).describe());
                }
                for (OpenClBackend b :
                        d.backend().unwrap(OpenClBackend.class).stream().toList()) {
                    OpenClBackend.ProgramStats s = b.programStats();
                    out.printf(
                            "  programs: %d built from source, %d loaded from the kernel cache, %d rejected%n",
                            s.built(), s.loaded(), s.rejected());
                }
            }
            out.println("CPU vectors: " + DoubleVector.SPECIES_PREFERRED.vectorBitSize() + "-bit ("
                    + DoubleVector.SPECIES_PREFERRED.length() + " float64 lanes)");
            out.println("OpenCL: " + quiver.openClStatus());
            out.println("Calibration cache: " + CalibrationCache.defaultDirectory()
                    + (recalibrate ? " (just recalibrated)" : " (quiver devices --recalibrate measures again)"));
            out.println("Kernel cache: " + ProgramBinaryCache.defaultDirectory()
                    + " (built OpenCL programs; safe to delete)");
        }
        return 0;
    }

    private String figures(Quiver quiver, Device d) {
        try {
            DeviceFigures f = recalibrate ? quiver.recalibrate(d) : quiver.figures(d);
            return f.describe();
        } catch (RuntimeException e) {
            return "unavailable: " + e.getMessage();
        }
    }
}
