package dev.quiver.planning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.expr.Expr;
import dev.quiver.physical.ColumnExpr;
import dev.quiver.physical.EvalContext;
import dev.quiver.physical.KernelExecutor;
import dev.quiver.physical.SharedValues;
import dev.quiver.value.ColumnarValue;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;

/**
 * The expressions of a projection planned together ({@link ExpressionPlanner#planTogether}): a
 * subtree several of them read is one shared id in each, computed once when they are evaluated
 * over one {@link SharedValues}, with each value the same as the expression planned alone; each
 * plan still numbers the columns it reads on its own.
 */
class PlannedTogetherTest extends PlanningTestBase {
    /** The programs run, by text. */
    private final List<String> ran = new ArrayList<>();

    private final KernelExecutor counting = (program, args, rows, allocator, mode) -> {
        ran.add(program.text());
        return ROW_INTERPRETER.run(program, args, rows, allocator, mode);
    };

    private ProjectionPlan planTogether(String... sql) {
        List<Expr> exprs = new ArrayList<>();
        for (String s : sql) {
            exprs.add(Expr.parse(s));
        }
        return new ExpressionPlanner(registry, config).planTogether(SCHEMA, null, exprs);
    }

    /** Each plan evaluated over the batch in turn, all keeping shared values in one store. */
    private List<List<Object>> runTogether(ProjectionPlan together, List<FieldVector> batch) {
        List<List<Object>> out = new ArrayList<>();
        try (SharedValues store = new SharedValues(5, allocator)) {
            for (PhysicalPlan p : together.plans()) {
                List<FieldVector> cols =
                        p.schemaIndexes().stream().map(batch::get).toList();
                try (EvalContext ctx = new EvalContext(cols, 5, config, counting, store);
                        ColumnarValue v = ctx.release(p.root().evaluate(ctx))) {
                    out.add(values(v, 5));
                }
            }
        }
        return out;
    }

    /** How many programs ran that are {@code text} (a program reading a shared value spells its SQL too, so not "contains"). */
    private long runsOf(String text) {
        return ran.stream().filter(t -> t.equals(text)).count();
    }

    @Test
    void aSubtreeOfSeveralExpressionsIsComputedOncePerBatch() {
        String[] sql = {"sin(y) * 2", "x + sin(y) * 2", "CASE WHEN sin(y) * 2 > 1 THEN 'high' ELSE 'low' END"};
        ProjectionPlan together = planTogether(sql);
        assertEquals(1, together.shared().size(), together.shared().toString());
        ProjectionPlan.SharedSubtree s = together.shared().getFirst();
        assertEquals(List.of(0, 1, 2), s.readers());
        assertTrue(s.sql().contains("sin(y)"), s.sql());
        for (PhysicalPlan p : together.plans()) {
            assertTrue(
                    p.root().explainTree().contains("shared #" + s.id()),
                    p.root().explainTree());
        }
        List<FieldVector> batch = batch();
        List<List<Object>> values = runTogether(together, batch);
        assertEquals(1, runsOf("(sin(y) * 2.0)"), "sin(y) * 2 ran once for the three: " + ran);
        // The reference: each expression planned and evaluated alone.
        for (int i = 0; i < sql.length; i++) {
            assertEquals(evaluate(plan(sql[i]), batch), values.get(i), sql[i]);
        }
    }

    @Test
    void eachPlanNumbersItsOwnColumns() {
        // y is input 1 of the first (x, y) and input 0 of the second (y, l).
        ProjectionPlan together = planTogether("x + sqrt(y) * 3", "sqrt(y) * 3 - l");
        assertEquals(1, together.shared().size());
        PhysicalPlan second = together.plans().get(1);
        assertEquals(List.of(1, 2), second.schemaIndexes());
        for (var n : nodes(second.root())) {
            if (n instanceof ColumnExpr c) {
                assertEquals(
                        second.columns().get(c.index()).getName(),
                        c.name(),
                        second.root().explainTree());
            }
        }
        List<FieldVector> batch = batch();
        List<List<Object>> values = runTogether(together, batch);
        assertEquals(evaluate(plan("x + sqrt(y) * 3"), batch), values.get(0));
        assertEquals(evaluate(plan("sqrt(y) * 3 - l"), batch), values.get(1));
    }

    @Test
    void aWholeExpressionThatAnotherReadsIsSharedAndStaysTheStores() {
        ProjectionPlan together = planTogether("upper(name)", "upper(name) || '!'");
        assertEquals(1, together.shared().size());
        List<FieldVector> batch = batch();
        List<List<Object>> values = runTogether(together, batch);
        assertEquals(evaluate(plan("upper(name)"), batch), values.get(0));
        assertEquals(evaluate(plan("upper(name) || '!'"), batch), values.get(1));
    }

    @Test
    void volatileCallsAreNotSharedAcrossExpressions() {
        ProjectionPlan together = planTogether("random() * y", "random() * y + 1");
        assertEquals(List.of(), together.shared());
        for (PhysicalPlan p : together.plans()) {
            assertEquals(0, CommonSubexpressions.sharedCount(p.root()), p.root().explainTree());
        }
    }

    @Test
    void subtreesRepeatedWithinOneExpressionKeepTheirOwnIds() {
        ProjectionPlan together = planTogether(
                "CASE WHEN cos(y) > 0 THEN cos(y) ELSE 0 END", "CASE WHEN exp(y) > 1 THEN exp(y) ELSE 0 END");
        // Each subtree repeats within one expression only: shared there, across none.
        assertEquals(List.of(), together.shared());
        int a = CommonSubexpressions.maxId(together.plans().get(0).root());
        int b = CommonSubexpressions.maxId(together.plans().get(1).root());
        assertTrue(a > 0 && b > 0 && a != b, a + " " + b);
    }
}
