package dev.quiver.cli;

import dev.quiver.Device;
import dev.quiver.Quiver;
import jdk.incubator.vector.DoubleVector;
import org.apache.arrow.memory.RootAllocator;
import picocli.CommandLine.Command;

import java.util.concurrent.Callable;

/** Lists the devices Quiver found, or why there is no OpenCL device. */
@Command(name = "devices", description = "List the devices Quiver can run on.")
final class DevicesCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        try (RootAllocator allocator = new RootAllocator(); Quiver quiver = Quiver.builder().allocator(allocator).build()) {
            for (Device d : quiver.devices()) {
                System.out.printf("%-40s %s%n", d.name(), d.description());
            }
            System.out.println("CPU vectors: " + DoubleVector.SPECIES_PREFERRED.vectorBitSize() + "-bit ("
                    + DoubleVector.SPECIES_PREFERRED.length() + " float64 lanes)");
            System.out.println("OpenCL: " + quiver.openClStatus());
        }
        return 0;
    }
}
