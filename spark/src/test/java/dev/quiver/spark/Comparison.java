package dev.quiver.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.spark.sql.Row;

/**
 * Row-for-row comparison of two query results. Floating-point values must be equal (NaN equals
 * NaN; a zero must have the same sign) or within {@link #ULPS} units in the last place of the larger
 * one, or within {@link #ABSOLUTE} of each other when both are smaller than 1 (results of
 * cancellation near zero, where ulps say nothing). Spark's math is java.lang.Math; Quiver's
 * devices are within 2 (CPU) and 17 (OpenCL pow) ulps of StrictMath (docs/math.md), and the
 * expressions combine at most a few such results.
 */
final class Comparison {
    static final int ULPS = 64;
    static final double ABSOLUTE = 1e-13;

    private Comparison() {}

    static void assertSameRows(List<Row> expected, List<Row> actual, String what) {
        assertEquals(expected.size(), actual.size(), what + ": row count");
        Comparator<Row> byFirst =
                Comparator.comparing(r -> r.get(0) == null ? Long.MIN_VALUE : ((Number) r.get(0)).longValue());
        List<Row> e = expected.stream().sorted(byFirst).toList();
        List<Row> a = actual.stream().sorted(byFirst).toList();
        for (int i = 0; i < e.size(); i++) {
            Row x = e.get(i);
            Row y = a.get(i);
            assertEquals(x.size(), y.size(), what + ": columns");
            for (int c = 0; c < x.size(); c++) {
                Object u = x.get(c);
                Object v = y.get(c);
                if (!same(u, v)) {
                    fail(what + ": row " + x + " column " + c + ": Spark " + u + ", Quiver " + v + " (Quiver row " + y
                            + ")");
                }
            }
        }
    }

    static boolean same(Object u, Object v) {
        if (u == null || v == null) {
            return u == v;
        }
        if (u instanceof Double p && v instanceof Double q) {
            return close(p, q);
        }
        if (u instanceof Float p && v instanceof Float q) {
            if (Float.isNaN(p) || Float.isNaN(q)) {
                return Float.isNaN(p) && Float.isNaN(q);
            }
            float m = Math.max(Math.abs(p), Math.abs(q));
            return p.floatValue() == q.floatValue() || Math.abs(p - q) <= ULPS * Math.ulp(m);
        }
        if (u instanceof byte[] p && v instanceof byte[] q) {
            return Arrays.equals(p, q);
        }
        return u.equals(v);
    }

    static boolean close(double p, double q) {
        if (Double.isNaN(p) || Double.isNaN(q)) {
            return Double.isNaN(p) && Double.isNaN(q);
        }
        if (p == 0 && q == 0) {
            return Double.compare(p, q) == 0; // the sign of zero too
        }
        if (p == q) {
            return true;
        }
        if (Double.isInfinite(p) || Double.isInfinite(q)) {
            return false;
        }
        double m = Math.max(Math.abs(p), Math.abs(q));
        return Math.abs(p - q) <= ULPS * Math.ulp(m) || (m < 1 && Math.abs(p - q) <= ABSOLUTE);
    }
}
