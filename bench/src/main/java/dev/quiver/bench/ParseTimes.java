package dev.quiver.bench;

import dev.quiver.sql.SqlLimits;
import dev.quiver.sql.SqlParser;
import java.util.Arrays;

/**
 * How long the SQL parser takes on long and deep text, to show that the time grows linearly: sums of 1,000,
 * 10,000 and 100,000 terms, 100, 1,000 and 10,000 nested parentheses (under a nesting limit that takes them), and
 * a 1 MB expression. Each text is parsed {@code runs} times after a warm-up; the median is printed, with the time
 * per term or level. Run: {@code java -cp bench/target/classes:<deps> dev.quiver.bench.ParseTimes [runs]}
 * (docs/expressions.md#parse-times has the command and the figures).
 */
public final class ParseTimes {
    private ParseTimes() {}

    public static void main(String[] args) {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        SqlLimits deep = new SqlLimits(20_000);
        System.out.println("| text | size | median ms | µs per term or level |");
        System.out.println("| --- | ---: | ---: | ---: |");
        for (int n : new int[] {1_000, 10_000, 100_000}) {
            report("sum of " + n + " terms", "a" + " + a".repeat(n - 1), n, runs, deep);
        }
        for (int n : new int[] {100, 1_000, 10_000}) {
            report(n + " nested parentheses", "(".repeat(n) + "a" + ")".repeat(n), n, runs, deep);
        }
        StringBuilder mb = new StringBuilder("x0 = 0");
        int k = 1;
        while (mb.length() < 1 << 20) {
            mb.append(" OR (x")
                    .append(k % 97)
                    .append(" BETWEEN ")
                    .append(k)
                    .append(" AND ")
                    .append(k + 5)
                    .append(" AND s LIKE 'a")
                    .append(k)
                    .append("%')");
            k++;
        }
        report("1 MB of ORs of BETWEEN and LIKE", mb.toString(), k, runs, deep);
    }

    private static void report(String what, String text, int units, int runs, SqlLimits limits) {
        for (int i = 0; i < 3; i++) {
            SqlParser.parse(text, limits); // warm-up: the JIT and ANTLR's prediction cache
        }
        long[] nanos = new long[runs];
        for (int i = 0; i < runs; i++) {
            long t0 = System.nanoTime();
            SqlParser.parse(text, limits);
            nanos[i] = System.nanoTime() - t0;
        }
        Arrays.sort(nanos);
        double ms = nanos[runs / 2] / 1e6;
        System.out.printf("| %s | %,d chars | %.1f | %.2f |%n", what, text.length(), ms, ms * 1000 / units);
    }
}
