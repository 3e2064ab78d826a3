package dev.quiver.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.Quiver;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A fresh allocator and Quiver per test; the allocator must end at zero bytes. */
abstract class QuiverTestBase {
    protected BufferAllocator allocator;
    protected Quiver quiver;

    @BeforeEach
    void openQuiver() {
        allocator = new RootAllocator();
        quiver = Quiver.builder().allocator(allocator).build();
    }

    @AfterEach
    void closeQuiver() {
        quiver.close();
        assertEquals(0, allocator.getAllocatedMemory(), "bytes leaked");
        allocator.close();
    }
}
