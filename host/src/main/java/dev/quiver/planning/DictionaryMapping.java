package dev.quiver.planning;

import dev.quiver.functions.Volatility;
import dev.quiver.physical.ColumnExpr;
import dev.quiver.physical.DictionaryDecodeExpr;
import dev.quiver.physical.DictionaryMapExpr;
import dev.quiver.physical.FusedKernelExpr;
import dev.quiver.physical.LiteralExpr;
import dev.quiver.physical.PhysicalExpr;
import dev.quiver.physical.ScalarFunctionExpr;
import dev.quiver.types.DataType;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Plans each maximal deterministic subtree whose only column is one dictionary-encoded column as
 * a {@link DictionaryMapExpr}: computed once per distinct dictionary over its values, then
 * gathered by the indices. Literals are allowed in the subtree ({@code payment_type = 'card'},
 * {@code mode IN ('MAIL', 'SHIP')}, {@code upper(s) LIKE 'A%'}, {@code CASE WHEN m = 'AIR' THEN 1
 * ELSE 0 END}, {@code length(s) * 2}). Not mapped:
 * <ul>
 *   <li>a subtree that reads another column too, or two dictionary columns;</li>
 *   <li>one with a call that is not {@link Volatility#IMMUTABLE}: only an immutable result may be
 *       computed on values no row uses and kept for later batches;</li>
 *   <li>a bare decode (gathering the values is what the decode does);</li>
 *   <li>a kernel segment that already computes once per dictionary value each batch (an
 *       immutable, strict segment: {@link FusedKernelExpr}'s own dictionary shortcut, which keeps
 *       its RowFns' statistics);</li>
 *   <li>a subtree with a nested result (list, struct), or over a dictionary of nested values:
 *       their tables are not kept on the heap ({@code HeapVector} copies flat vectors).</li>
 * </ul>
 * Runs after {@link Fusion}, so fusion decides exactly as before and a mapped subtree keeps its
 * segments inside. The walk recurses over the tree: it runs on the planner's deep-stack thread.
 */
final class DictionaryMapping {
    /** What a subtree reads: no column, or more than one column or something not deterministic. */
    private static final int NONE = -1, MIXED = -2;

    private final Map<PhysicalExpr, Integer> reads = new IdentityHashMap<>();

    private DictionaryMapping() {}

    /** {@code root} with its mappable subtrees planned as {@link DictionaryMapExpr}. */
    static PhysicalExpr apply(PhysicalExpr root) {
        return new DictionaryMapping().rewrite(root);
    }

    private PhysicalExpr rewrite(PhysicalExpr e) {
        if (mappable(e)) {
            return new DictionaryMapExpr(e, decodeIn(e));
        }
        List<PhysicalExpr> children = e.children();
        if (children.isEmpty()) {
            return e;
        }
        List<PhysicalExpr> out = new ArrayList<>(children.size());
        boolean changed = false;
        for (PhysicalExpr c : children) {
            PhysicalExpr r = rewrite(c);
            changed |= r != c;
            out.add(r);
        }
        return changed ? Fusion.withChildren(e, out) : e;
    }

    private boolean mappable(PhysicalExpr e) {
        if (e instanceof ColumnExpr || e instanceof LiteralExpr || e instanceof DictionaryDecodeExpr) {
            return false;
        }
        if (e instanceof FusedKernelExpr f && f.immutable() && f.program().isStrict()) {
            return false; // computes once per dictionary value already
        }
        return reads(e) >= 0 && flat(e.dataType());
    }

    /** The input position of the one dictionary column {@code e} reads, or {@link #NONE} or {@link #MIXED}. */
    private int reads(PhysicalExpr e) {
        Integer known = reads.get(e);
        if (known != null) {
            return known;
        }
        int r = switch (e) {
            case LiteralExpr _ -> NONE;
            case ColumnExpr _ -> MIXED; // a column read as it is: not a dictionary's values
            case DictionaryDecodeExpr d ->
                d.indices() instanceof ColumnExpr c && flat(d.dataType()) ? c.index() : MIXED;
            case ScalarFunctionExpr f when f.function().signature().volatility() != Volatility.IMMUTABLE -> MIXED;
            case FusedKernelExpr f when !f.immutable() -> MIXED;
            default -> combine(e.children());
        };
        reads.put(e, r);
        return r;
    }

    private int combine(List<PhysicalExpr> children) {
        int r = NONE;
        for (PhysicalExpr c : children) {
            int k = reads(c);
            if (k == MIXED || (k >= 0 && r >= 0 && k != r)) {
                return MIXED;
            }
            if (k >= 0) {
                r = k;
            }
        }
        return r;
    }

    /** The decode of the dictionary column in {@code e} (every decode of it there is equal). */
    private static DictionaryDecodeExpr decodeIn(PhysicalExpr e) {
        for (PhysicalExpr x : PhysicalPlan.preOrder(e)) {
            if (x instanceof DictionaryDecodeExpr d) {
                return d;
            }
        }
        throw new IllegalStateException("no dictionary decode in " + e.describe());
    }

    /** Types whose vectors are flat: their values fit a heap copy. */
    private static boolean flat(DataType t) {
        return switch (t) {
            case DataType.Bool _,
                    DataType.Int _,
                    DataType.FloatingPoint _,
                    DataType.Decimal _,
                    DataType.Utf8 _,
                    DataType.Binary _,
                    DataType.Date32 _,
                    DataType.Timestamp _,
                    DataType.Interval _ -> true;
            default -> false;
        };
    }
}
