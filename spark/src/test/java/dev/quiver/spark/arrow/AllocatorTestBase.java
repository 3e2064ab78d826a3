package dev.quiver.spark.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A root allocator per test, which must be back at zero bytes when the test ends. */
abstract class AllocatorTestBase {
    protected BufferAllocator allocator;

    @BeforeEach
    final void openAllocator() {
        allocator = new RootAllocator();
    }

    @AfterEach
    final void closeAllocator() {
        assertEquals(0, allocator.getAllocatedMemory(), "a test leaked Arrow memory");
        allocator.close();
    }
}
