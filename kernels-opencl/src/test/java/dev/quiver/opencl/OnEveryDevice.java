package dev.quiver.opencl;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A test that runs once per backend of {@link DeviceTestBase#backends()}. The backends belong to
 * the class, so JUnit must not close them after each invocation (it closes AutoCloseable
 * arguments by default).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "{0}", autoCloseArguments = false)
@MethodSource("backends")
@interface OnEveryDevice {}
