package io.memscope.analysis.text;

/**
 * Application strings (class, method, thread, scope, instrument and event names, command lines, messages) made safe
 * to print on a terminal: every control character is shown as an escape instead of acting. A name holding an ANSI
 * colour or an OSC title sequence, a clear-screen, or a carriage return and newline followed by text of its choosing
 * ("FORGED: leak of 999 GiB") prints as visible text on one line.
 *
 * <ul>
 * <li>C0 controls and DEL: {@code \n}, {@code \r}, {@code \t}, {@code \e} (escape), else {@code \xHH};</li>
 * <li>C1 controls (U+0080 to U+009F, which some terminals obey as CSI and OSC): {@code \xHH};</li>
 * <li>characters that reorder or hide text (bidirectional overrides and isolates, U+200E/U+200F, U+061C, the line
 *     and paragraph separators U+2028/U+2029): <code>&#92;u{HHHH}</code>;</li>
 * <li>a backslash is left as it is: an escape is only ever memscope's.</li>
 * </ul>
 *
 * report.json keeps the strings as they are (JSON escapes control characters itself); report.html escapes for HTML.
 */
public final class TerminalText {
    private TerminalText() {
    }

    /** @return {@code s} with every control character escaped; {@code s} itself when it has none; null for null */
    public static String safe(String s) {
        if (s == null) {
            return null;
        }
        int i = 0;
        while (i < s.length() && !unsafe(s.charAt(i))) {
            i++;
        }
        if (i == s.length()) {
            return s;
        }
        StringBuilder b = new StringBuilder(s.length() + 8);
        b.append(s, 0, i);
        for (; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!unsafe(c)) {
                b.append(c);
            } else if (c == '\n') {
                b.append("\\n");
            } else if (c == '\r') {
                b.append("\\r");
            } else if (c == '\t') {
                b.append("\\t");
            } else if (c == 0x1b) {
                b.append("\\e");
            } else if (c < 0x100) {
                b.append("\\x").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 15, 16));
            } else {
                b.append("\\u{").append(Integer.toHexString(c)).append('}');
            }
        }
        return b.toString();
    }

    /** @return {@link #safe} of {@code o}'s string */
    public static String safe(Object o) {
        return o == null ? null : safe(o.toString());
    }

    /** @return whether a character must not reach a terminal as it is (JSON writers escape the same ones) */
    public static boolean isControl(char c) {
        return unsafe(c);
    }

    private static boolean unsafe(char c) {
        return c < 0x20 || c >= 0x7f && c <= 0x9f || c >= '\u202a' && c <= '\u202e'
                || c >= '\u2066' && c <= '\u2069' || c == '\u200e' || c == '\u200f' || c == '\u061c'
                || c == '\u2028' || c == '\u2029';
    }
}
