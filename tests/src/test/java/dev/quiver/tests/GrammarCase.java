package dev.quiver.tests;

import java.util.ArrayList;
import java.util.List;

/**
 * One case of a grammar golden file ({@code src/test/resources/grammar/*.txt}): the text, and what it must give:
 * the tree ({@code tree}: the {@code Expr}'s canonical text, fully parenthesised) or the exact error
 * ({@code error}); for a file with a {@code schema}, also what planning the tree gives ({@code plan}: the result
 * type, or {@code plan error} and the message). Multi-line text and messages are written with {@code \n}.
 *
 * @param line the line of the {@code expr} in its file, for failures
 */
record GrammarCase(String expr, String outcome, String plan, int line) {
    static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t");
    }

    static String unescape(String s) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char n = s.charAt(++i);
                out.append(
                        switch (n) {
                            case 'n' -> '\n';
                            case 't' -> '\t';
                            default -> n;
                        });
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** A golden file: its leading comment and schema lines, kept as they are, and its cases. */
    record File(List<String> header, String schema, List<GrammarCase> cases) {
        static File parse(List<String> lines) {
            List<String> header = new ArrayList<>();
            List<GrammarCase> cases = new ArrayList<>();
            String schema = null;
            int i = 0;
            while (i < lines.size() && !lines.get(i).startsWith("expr ")) {
                if (lines.get(i).startsWith("schema ")) {
                    schema = lines.get(i).substring("schema ".length());
                }
                header.add(lines.get(i++));
            }
            for (; i < lines.size(); i++) {
                String l = lines.get(i);
                if (!l.startsWith("expr ")) {
                    if (!l.isBlank() && !l.startsWith("#")) {
                        throw new IllegalArgumentException("line " + (i + 1) + ": expected 'expr ', found " + l);
                    }
                    continue;
                }
                String expr = unescape(l.substring(5));
                String outcome = null;
                String plan = null;
                int at = i + 1;
                while (i + 1 < lines.size()
                        && (lines.get(i + 1).startsWith("tree ")
                                || lines.get(i + 1).startsWith("error ")
                                || lines.get(i + 1).startsWith("plan "))) {
                    String next = lines.get(++i);
                    if (next.startsWith("plan ")) {
                        plan = next.substring(5);
                    } else {
                        outcome = next;
                    }
                }
                cases.add(new GrammarCase(expr, outcome, plan, at));
            }
            return new File(header, schema, cases);
        }

        List<String> render() {
            List<String> out = new ArrayList<>(header);
            for (GrammarCase c : cases) {
                out.add("expr " + escape(c.expr()));
                out.add(c.outcome());
                if (c.plan() != null) {
                    out.add("plan " + c.plan());
                }
                out.add("");
            }
            return out;
        }
    }
}
