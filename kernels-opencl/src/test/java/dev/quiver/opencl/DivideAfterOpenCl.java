package dev.quiver.opencl;

/**
 * Run in a child JVM by {@link JavaDivisionByZeroTest}: loads OpenCL (discovery, then a backend
 * on every device), then divides by zero in plain Java. Prints {@code THREW <devices>} when Java
 * still throws, {@code NO-THROW <value>} when a driver's signal handler swallowed the trap.
 */
public final class DivideAfterOpenCl {
    private DivideAfterOpenCl() {}

    public static void main(String[] args) {
        OpenClRuntime.Discovery discovery = OpenClRuntime.discover();
        for (OpenClDevice d : discovery.devices()) {
            OpenClBackend.open(d).close();
        }
        int zero = Integer.parseInt(args.length > 0 ? args[0] : "0");
        try {
            int q = 7 / zero;
            System.out.println("NO-THROW " + q);
        } catch (ArithmeticException e) {
            System.out.println("THREW " + discovery.devices().size());
        }
    }
}
