package dev.quiver.placement;

import dev.quiver.backend.ResidencyScope;
import dev.quiver.backend.ResidentKey;
import dev.quiver.memory.VectorView;
import dev.quiver.physical.DictionaryDecodeExpr;
import dev.quiver.rowfn.ir.KernelProgram;
import dev.quiver.types.ElementType;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.dictionary.Dictionary;

/**
 * The resident keys of one evaluation's kernel arguments (see {@link ResidentKey}): under which
 * key a device that copies may keep an argument in its memory. A batch column by its address
 * within this evaluation's {@link ResidencyScope}, a dictionary's values by their contents across
 * batches; values computed during the evaluation get none (their memory may be reused). Not
 * thread-safe: one evaluation runs on one thread.
 */
final class ResidentKeys {
    private final List<DictionaryDecodeExpr> decodes;
    /** The batch's input columns (read-only while it is evaluated). */
    private List<FieldVector> batchColumns = List.of();
    /** The scope of this evaluation's keys: the caller's, or made by the first kernel that has one. */
    private ResidencyScope scope;
    /** Whether this evaluation closes {@link #scope} when it ends (it is not a caller's). */
    private final boolean ownsScope;
    /** This batch's dictionary value vectors, looked up once; null before. */
    private List<FieldVector> dictionaryValues;

    ResidentKeys(List<DictionaryDecodeExpr> decodes, ResidencyScope shared) {
        this.decodes = decodes;
        this.scope = shared;
        this.ownsScope = shared == null;
    }

    void batchColumns(List<FieldVector> columns) {
        this.batchColumns = columns;
    }

    /** Per argument of {@code program}, its key or null; empty when none has one. */
    List<ResidentKey> keys(KernelProgram program, List<FieldVector> inputs, List<VectorView> views, int rows) {
        List<ResidentKey> keys = null;
        for (int i = 0; i < inputs.size(); i++) {
            FieldVector in = inputs.get(i);
            ElementType t = program.argTypes().get(i);
            long bytes = t.isBitPacked() ? VectorView.validityBytes(rows) : (long) rows * t.byteWidth();
            ResidentKey key = null;
            if (containsIdentical(batchColumns, in)) {
                if (scope == null) {
                    scope = new ResidencyScope();
                }
                key = ResidentKey.inScope(scope, views.get(i).data(), bytes);
            } else if (!decodes.isEmpty() && containsIdentical(dictionaryValues(), in)) {
                key = ResidentKey.constant(views.get(i).data(), bytes);
            }
            if (key != null) {
                if (keys == null) {
                    keys = new ArrayList<>(Collections.nCopies(inputs.size(), null));
                }
                keys.set(i, key);
            }
        }
        return keys == null ? List.of() : keys;
    }

    private List<FieldVector> dictionaryValues() {
        if (dictionaryValues == null) {
            List<FieldVector> values = new ArrayList<>();
            for (DictionaryDecodeExpr d : decodes) {
                Dictionary dict = d.dictionaries().lookup(d.dictionaryId());
                if (dict != null) {
                    values.add(dict.getVector());
                }
            }
            dictionaryValues = values;
        }
        return dictionaryValues;
    }

    private static boolean containsIdentical(List<FieldVector> vectors, FieldVector v) {
        for (FieldVector x : vectors) {
            if (x == v) {
                return true;
            }
        }
        return false;
    }

    /**
     * Closes this evaluation's own scope, releasing its device copies. A release that fails is
     * logged, not thrown: the result is computed, and a device that cannot release memory shows
     * its trouble on its next run.
     */
    void close() {
        if (scope != null && ownsScope) {
            try {
                scope.close();
            } catch (RuntimeException e) {
                System.getLogger(ResidentKeys.class.getName())
                        .log(Level.WARNING, "releasing a batch's device copies failed: " + e.getMessage(), e);
            }
            scope = null;
        }
    }
}
