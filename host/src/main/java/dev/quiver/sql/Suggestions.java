package dev.quiver.sql;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** "did you mean ...": the candidates closest to a misspelt word, by edit distance, one edit for a word of up to four letters, two for longer ones, at most three names. */
final class Suggestions {
    private Suggestions() {}

    static List<String> closest(String word, Iterable<String> candidates) {
        String w = word.toLowerCase(Locale.ROOT);
        List<String> found = new ArrayList<>();
        if (w.length() < 3) {
            return found; // a word of one or two letters is close to too many
        }
        int limit = w.length() <= 4 ? 1 : 2;
        List<Integer> distances = new ArrayList<>();
        for (String c : candidates) {
            int d = distance(w, c.toLowerCase(Locale.ROOT), limit);
            if (d <= limit && !c.equalsIgnoreCase(word) && !found.contains(c)) {
                found.add(c);
                distances.add(d);
            }
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < found.size(); i++) {
            order.add(i);
        }
        order.sort(Comparator.comparingInt(distances::get));
        return order.stream().limit(3).map(found::get).toList();
    }

    static String didYouMean(List<String> close) {
        return close.isEmpty() ? "" : "; did you mean " + String.join(" or ", close) + "?";
    }

    /** Levenshtein distance, or {@code limit + 1} once it is certainly larger (names are short). */
    private static int distance(String a, String b, int limit) {
        if (Math.abs(a.length() - b.length()) > limit) {
            return limit + 1;
        }
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            int rowMin = cur[0];
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
                rowMin = Math.min(rowMin, cur[j]);
            }
            if (rowMin > limit) {
                return limit + 1;
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
