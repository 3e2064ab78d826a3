package dev.quiver.cli.html;

/** Text for the command line's HTML pages (the benchmark charts), which are well-formed XML as well as HTML. */
public final class HtmlText {
    private HtmlText() {}

    /**
     * {@code s} as XML/HTML text or attribute value: markup characters as entities, and characters XML 1.0
     * does not allow (control characters, lone surrogates) as U+FFFD.
     */
    public static String escape(String s) {
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> {
                    if (Character.isHighSurrogate(c)
                            && i + 1 < s.length()
                            && Character.isLowSurrogate(s.charAt(i + 1))) {
                        b.append(c).append(s.charAt(++i));
                    } else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r'
                            || Character.isSurrogate(c)
                            || c == 0xFFFE
                            || c == 0xFFFF) {
                        b.append('\uFFFD');
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.toString();
    }
}
