package dev.quiver.opencl;

/**
 * What one backend's resident arguments take and have saved ({@link OpenClBackend#residentStats()}).
 *
 * @param entries       arguments on the device now
 * @param bytes         their bytes
 * @param budget        the most bytes kept
 * @param uploads       arguments uploaded to be kept
 * @param uploadedBytes their bytes
 * @param hits          runs that found an argument already on the device (each saved its upload)
 * @param evictions     arguments released to make room for others
 */
public record ResidentStats(
        int entries, long bytes, long budget, long uploads, long uploadedBytes, long hits, long evictions) {}
