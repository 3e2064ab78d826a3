/**
 * Checks that a batch's Arrow buffers hold what its declared lengths promise, before anything
 * reads them: {@link dev.quiver.validation.BatchValidation}, called once per batch for the
 * columns an expression reads.
 *
 * <p>Why not only Arrow's own validators ({@code ValueVectorUtility.validate/validateFull},
 * {@code ValidateVectorBufferVisitor}, {@code ValidateVectorDataVisitor}): they are used here for
 * the vector kinds Quiver does not read itself (unions, views, run-end encoded), but for the
 * columns Quiver computes on they do not do the job. The buffer visitor accepts a negative last
 * offset and does not look at the first offset or at monotonicity; the data visitor, which does,
 * reads each offset through a bounds- and reference-count-checked {@code ArrowBuf.getInt} and
 * boxes its message arguments per offset; neither checks dictionary indices; and their messages
 * name neither the column nor the row. The checks here are O(columns) for fixed-width columns and
 * one Vector API pass over the offsets (or indices) for string, list and dictionary-encoded ones.
 */
package dev.quiver.validation;
