package dev.quiver.opencl;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * Process environment that OpenCL drivers read when they load, set before the first OpenCL call.
 *
 * <p>PoCL (3.x) installs a process-wide SIGFPE handler when it initializes, which skips a
 * faulting integer division instead of letting it trap. The JVM relies on that trap to throw
 * {@link ArithmeticException} for {@code x / 0}, so after PoCL loads, plain Java code anywhere
 * in the process would silently compute {@code 7 / 0 == 7}. Setting
 * {@code POCL_SIGFPE_HANDLER=0} keeps PoCL's handler out. Quiver's kernels never execute a
 * zero divisor or {@code MIN_VALUE / -1} (both are guarded in the generated code), so they do
 * not need it. A value the user set already is left as it is.
 */
final class NativeEnvironment {
    static final String POCL_SIGFPE_HANDLER = "POCL_SIGFPE_HANDLER";

    private NativeEnvironment() {}

    static void keepJavaDivisionByZero() {
        setIfAbsent(POCL_SIGFPE_HANDLER, "0");
    }

    /** Sets a variable in the process's native environment (what C's getenv sees), unless already set. */
    static void setIfAbsent(String name, String value) {
        Linker linker = Linker.nativeLinker();
        Optional<MemorySegment> setenv = linker.defaultLookup().find("setenv");
        if (setenv.isEmpty()) {
            return; // not a POSIX C library: no PoCL either
        }
        MethodHandle call = linker.downcallHandle(
                setenv.get(),
                FunctionDescriptor.of(
                        ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        try (Arena arena = Arena.ofConfined()) {
            int rc = (int) call.invokeExact(arena.allocateFrom(name), arena.allocateFrom(value), 0);
            if (rc != 0) {
                throw new IllegalStateException("setenv(" + name + ") failed with " + rc);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("setenv(" + name + ") failed", t);
        }
    }
}
