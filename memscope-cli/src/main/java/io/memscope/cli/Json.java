package io.memscope.cli;

import io.memscope.analysis.text.TerminalText;

/**
 * Writes JSON by hand for the CLI's JSON-lines output: one object per line, appended to a {@link StringBuilder}.
 * Strings are escaped per RFC 8259 (quote, backslash and control characters; everything else is written as is,
 * the output being UTF-8). Not a general JSON library: objects are flat or nest only by {@link #raw}.
 */
final class Json {
    private final StringBuilder b;
    private boolean first = true;

    private Json(StringBuilder b) {
        this.b = b;
    }

    /** Starts an object in {@code b}; finish it with {@link #end()}. */
    static Json object(StringBuilder b) {
        b.append('{');
        return new Json(b);
    }

    private StringBuilder key(String key) {
        if (!first) {
            b.append(',');
        }
        first = false;
        quote(b, key);
        return b.append(':');
    }

    Json field(String key, String value) {
        if (value == null) {
            key(key).append("null");
        } else {
            quote(key(key), value);
        }
        return this;
    }

    Json field(String key, long value) {
        key(key).append(value);
        return this;
    }

    /** An unsigned 64-bit value as a JSON number. */
    Json unsigned(String key, long value) {
        key(key).append(Long.toUnsignedString(value));
        return this;
    }

    Json field(String key, boolean value) {
        key(key).append(value);
        return this;
    }

    /** A value already in JSON form (a nested object, {@code null}). */
    Json raw(String key, String json) {
        key(key).append(json);
        return this;
    }

    void end() {
        b.append('}');
    }

    /** @return {@code s} as a JSON string literal */
    static String quote(String s) {
        return quote(new StringBuilder(s.length() + 2), s).toString();
    }

    /** Appends {@code s} as a JSON string literal. */
    static StringBuilder quote(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                case '\b': b.append("\\b"); break;
                case '\f': b.append("\\f"); break;
                default:
                    if (TerminalText.isControl(c)) { // also DEL, C1 and bidi controls: JSON printed on a terminal
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
            }
        }
        return b.append('"');
    }
}
