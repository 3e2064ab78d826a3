package dev.quiver;

import dev.quiver.errors.InputException;
import dev.quiver.errors.QuiverException;
import dev.quiver.physical.DictionaryDecodeExpr;
import dev.quiver.physical.SharedValues;
import dev.quiver.planning.PhysicalPlan;
import dev.quiver.validation.BatchValidation;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Binds a batch to a plan: finds the vectors of the plan's inputs and checks them before anything
 * computes on them. Each has the planned type (and dictionary) and the batch's rows, its buffers
 * hold those rows ({@link BatchValidation#checkColumn}: O(1) per column, one pass over the offsets
 * of string and list columns), and a dictionary-encoded column's non-null indices are within its
 * dictionary. Stateless; thread-safe.
 */
final class BatchBinder {
    private final PhysicalPlan plan;
    private final List<DictionaryDecodeExpr> decodes;

    BatchBinder(PhysicalPlan plan, List<DictionaryDecodeExpr> decodes) {
        this.plan = plan;
        this.decodes = decodes;
    }

    /**
     * The batch's vectors for the plan's inputs, in input order. A column is read at the position it
     * was planned at when the batch has a column of that name there, else by name when the batch has
     * exactly one column of that name.
     */
    List<FieldVector> bind(VectorSchemaRoot batch, int rows) {
        return bind(batch, rows, null);
    }

    /**
     * As {@link #bind(VectorSchemaRoot, int)}, leaving out the buffer checks of the columns
     * {@code batchValues} says another expression over the same batch checked already (its filter,
     * an earlier column of its projection), and noting those checked here; null: check every one.
     */
    List<FieldVector> bind(VectorSchemaRoot batch, int rows, SharedValues batchValues) {
        if (rows < 0) {
            throw new InputException("the batch declares " + rows + " rows");
        }
        List<FieldVector> all = batch.getFieldVectors();
        List<FieldVector> inputs = new ArrayList<>(plan.columns().size());
        for (int i = 0; i < plan.columns().size(); i++) {
            Field f = plan.columns().get(i);
            FieldVector v = vectorFor(all, f.getName(), plan.schemaIndexes().get(i));
            if (v.getField().getDictionary() != null && f.getDictionary() == null) {
                throw input(
                        f.getName(),
                        "column '" + f.getName() + "' is dictionary-encoded in the batch (indices "
                                + v.getField().getType() + ") but was planned as " + f.getType() + ": decode it first");
            }
            if (f.getDictionary() != null
                    && (v.getField().getDictionary() == null
                            || v.getField().getDictionary().getId()
                                    != f.getDictionary().getId())) {
                throw input(
                        f.getName(),
                        "column '" + f.getName() + "' was planned dictionary-encoded with dictionary "
                                + f.getDictionary().getId() + " but the batch's column "
                                + (v.getField().getDictionary() == null
                                        ? "is not dictionary-encoded"
                                        : "uses dictionary "
                                                + v.getField().getDictionary().getId()));
            }
            if (!v.getField().getType().equals(f.getType())) {
                throw input(
                        f.getName(),
                        "column '" + f.getName() + "' is " + v.getField().getType()
                                + " in the batch but was planned as " + f.getType());
            }
            if (v.getValueCount() != rows) {
                throw input(
                        f.getName(),
                        "column '" + f.getName() + "' has " + v.getValueCount() + " values but the batch has " + rows
                                + " rows");
            }
            if (batchValues == null || !batchValues.isChecked(v)) {
                BatchValidation.checkColumn(v, f.getName());
                boolean whole = true;
                if (f.getDictionary() != null) {
                    FieldVector values = dictionaryValues(f.getDictionary().getId());
                    if (values != null) { // none: the decode says so when it runs
                        BatchValidation.checkDictionaryIndices(v, f.getName(), values);
                    } else {
                        whole = false;
                    }
                }
                if (batchValues != null && whole) {
                    batchValues.markChecked(v);
                }
            }
            inputs.add(v);
        }
        return inputs;
    }

    /**
     * Checks the columns a filter copies without the expression reading them (those it reads,
     * {@link #bind} checks): copying reads their buffers too.
     */
    void checkCopiedColumns(VectorSchemaRoot batch) {
        try {
            List<FieldVector> all = batch.getFieldVectors();
            for (int i = 0; i < all.size(); i++) {
                FieldVector v = all.get(i);
                if (reads(plan, i, v.getName())) {
                    continue;
                }
                if (v.getValueCount() != batch.getRowCount()) {
                    throw input(
                            v.getName(),
                            "column '" + v.getName() + "' has " + v.getValueCount() + " values but the batch has "
                                    + batch.getRowCount() + " rows");
                }
                BatchValidation.checkColumn(v, v.getName());
            }
        } catch (QuiverException e) {
            e.fillExpression(plan.logical().toString());
            throw e;
        }
    }

    /** Whether {@code p} reads schema position {@code index} under the name {@code name}. */
    private static boolean reads(PhysicalPlan p, int index, String name) {
        int pos = p.schemaIndexes().indexOf(index);
        return pos >= 0 && p.columns().get(pos).getName().equals(name);
    }

    private static InputException input(String column, String detail) {
        return (InputException) new InputException(detail).fillColumn(column);
    }

    /**
     * The column named {@code name} that was planned at schema position {@code plannedAt}: the
     * batch's column there when it has that name (a schema may repeat names the expression does
     * not read), else the batch's only column of that name.
     */
    private static FieldVector vectorFor(List<FieldVector> columns, String name, int plannedAt) {
        if (plannedAt < columns.size() && columns.get(plannedAt).getName().equals(name)) {
            return columns.get(plannedAt);
        }
        FieldVector found = null;
        for (FieldVector v : columns) {
            if (v.getName().equals(name)) {
                if (found != null) {
                    throw input(
                            name,
                            "the batch has several columns named '" + name + "' and none at position " + plannedAt
                                    + ", where it was planned: which one to read is ambiguous");
                }
                found = v;
            }
        }
        if (found == null) {
            throw input(name, "the batch has no column '" + name + "' (it was planned against a schema with it)");
        }
        return found;
    }

    /** The values of the plan's dictionary {@code id} as its decode will read them this batch, or null. */
    private FieldVector dictionaryValues(long id) {
        for (DictionaryDecodeExpr d : decodes) {
            if (d.dictionaryId() == id) {
                Dictionary dict = d.dictionaries().lookup(id);
                return dict == null ? null : dict.getVector();
            }
        }
        return null;
    }
}
