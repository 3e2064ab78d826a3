/**
 * Quiver for Apache Spark 4.2: {@link dev.quiver.spark.QuiverDatasets} projects a Dataset with
 * Quiver expressions partition by partition; {@link dev.quiver.spark.exec.ExecutorQuivers} holds the
 * one Quiver instance and root allocator of a JVM. The conversions between Spark and Arrow are
 * in {@link dev.quiver.spark.arrow}.
 */
package dev.quiver.spark;
