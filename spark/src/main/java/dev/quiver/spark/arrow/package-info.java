/**
 * Spark columns and rows to Arrow and back, for Quiver's Spark integration.
 *
 * <ul>
 *   <li>{@link dev.quiver.spark.arrow.SparkArrowTypes}: which Spark types have an Arrow form, and which.</li>
 *   <li>{@link dev.quiver.spark.arrow.ArrowImport}: a Spark {@code ColumnVector} as an Arrow vector, the
 *       one it already wraps or a bulk copy.</li>
 *   <li>{@link dev.quiver.spark.arrow.RowsToArrow}: Spark {@code InternalRow}s as Arrow batches of bounded size.</li>
 *   <li>{@link dev.quiver.spark.arrow.ArrowExport}: Arrow vectors as a Spark {@code ColumnarBatch}, without a copy.</li>
 * </ul>
 *
 * <p>Every method that returns Arrow memory says who closes it; the vectors it allocates come
 * from the allocator the caller passes.
 */
package dev.quiver.spark.arrow;
