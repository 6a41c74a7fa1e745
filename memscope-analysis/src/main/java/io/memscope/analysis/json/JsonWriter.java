package io.memscope.analysis.json;

import io.memscope.analysis.text.TerminalText;

/**
 * The JSON writer of every file and line memscope writes as JSON (report.json, the page's data, diff, dump and live
 * JSON lines, Chrome traces): a minimal streaming writer (RFC 8259) into a {@link StringBuilder}, indented by two
 * spaces (or compact, for data embedded in report.html and for one-object-per-line output). Callers nest
 * {@code beginObject/endObject} and {@code beginArray/endArray} correctly; the writer places commas.
 *
 * <p>Strings are escaped here and nowhere else ({@link #quote}): quote and backslash; the C0 controls
 * (U+0000-U+001F: <code>&#92;n &#92;r &#92;t &#92;b &#92;f</code>, the others as <code>&#92;u00XX</code>); and as
 * <code>&#92;uXXXX</code> what must not act when the JSON is printed on a terminal or embedded in a page's script:
 * DEL and the C1 controls, the bidirectional controls, U+2028/U+2029 (line breaks in JavaScript before ES2019), and
 * lone surrogates (no UTF-8 form: an encoder would replace them with {@code ?}). Everything else is written as is,
 * the output being UTF-8.
 */
public final class JsonWriter {
    private final StringBuilder out;
    private final boolean indent;
    private int depth;
    private boolean first = true;
    private boolean afterName;

    /** A writer that indents by two spaces, one value per line. */
    public JsonWriter() {
        this(new StringBuilder(4096), true);
    }

    private JsonWriter(StringBuilder out, boolean indent) {
        this.out = out;
        this.indent = indent;
    }

    /** @return a writer without any whitespace between tokens */
    public static JsonWriter compact() {
        return new JsonWriter(new StringBuilder(256), false);
    }

    /** @return a writer without whitespace that appends to {@code into} (a line being built) */
    public static JsonWriter compact(StringBuilder into) {
        return new JsonWriter(into, false);
    }

    /** @return {@code s} as a JSON string literal, quotes included */
    public static String quote(String s) {
        return quote(new StringBuilder(s.length() + 2), s).toString();
    }

    /** Appends {@code s} as a JSON string literal, quotes included; @return {@code b} */
    public static StringBuilder quote(StringBuilder b, String s) {
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
                    if (TerminalText.isControl(c) || loneSurrogate(s, i)) {
                        b.append("\\u").append(HEX[c >> 12]).append(HEX[c >> 8 & 15]).append(HEX[c >> 4 & 15])
                                .append(HEX[c & 15]);
                    } else {
                        b.append(c);
                    }
            }
        }
        return b.append('"');
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** @return whether {@code s.charAt(i)} is a surrogate that is not half of a pair */
    private static boolean loneSurrogate(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 == s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
        }
        return Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(s.charAt(i - 1)));
    }

    public JsonWriter beginObject() {
        value();
        out.append('{');
        depth++;
        first = true;
        return this;
    }

    public JsonWriter endObject() {
        depth--;
        if (!first) {
            newline();
        }
        out.append('}');
        first = false;
        return this;
    }

    public JsonWriter beginArray() {
        value();
        out.append('[');
        depth++;
        first = true;
        return this;
    }

    public JsonWriter endArray() {
        depth--;
        if (!first) {
            newline();
        }
        out.append(']');
        first = false;
        return this;
    }

    public JsonWriter name(String name) {
        if (!first) {
            out.append(',');
        }
        newline();
        string(name);
        out.append(indent ? ": " : ":");
        afterName = true;
        return this;
    }

    public JsonWriter value(String s) {
        value();
        if (s == null) {
            out.append("null");
        } else {
            string(s);
        }
        first = false;
        return this;
    }

    public JsonWriter value(long v) {
        value();
        out.append(v);
        first = false;
        return this;
    }

    public JsonWriter value(boolean v) {
        value();
        out.append(v);
        first = false;
        return this;
    }

    /**
     * Writes a finite double with up to 3 decimals, without a fraction when it has none ({@code 2}, {@code 2.5});
     * NaN and infinities become {@code null}.
     */
    public JsonWriter value(double v) {
        value();
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            out.append("null");
        } else {
            double r = Math.round(v * 1000) / 1000.0;
            if (r == Math.rint(r) && Math.abs(r) < 1e15) {
                out.append((long) r);
            } else {
                out.append(r);
            }
        }
        first = false;
        return this;
    }

    /** Writes {@code json}, already JSON text (a number formatted by the caller, a nested document), as a value. */
    public JsonWriter rawValue(String json) {
        value();
        out.append(json);
        first = false;
        return this;
    }

    /** Writes {@code null}. */
    public JsonWriter nullValue() {
        return rawValue("null");
    }

    public JsonWriter field(String name, String v) {
        return name(name).value(v);
    }

    public JsonWriter field(String name, long v) {
        return name(name).value(v);
    }

    public JsonWriter field(String name, double v) {
        return name(name).value(v);
    }

    public JsonWriter field(String name, boolean v) {
        return name(name).value(v);
    }

    /** An unsigned 64-bit value as a JSON number. */
    public JsonWriter unsignedField(String name, long v) {
        return name(name).rawValue(Long.toUnsignedString(v));
    }

    /** A field whose value is {@code json}, already JSON text. */
    public JsonWriter rawField(String name, String json) {
        return name(name).rawValue(json);
    }

    /** A field whose value is {@code null}. */
    public JsonWriter nullField(String name) {
        return name(name).nullValue();
    }

    private void value() {
        if (afterName) {
            afterName = false;
            return;
        }
        if (depth > 0) {
            if (!first) {
                out.append(',');
            }
            newline();
        }
    }

    private void newline() {
        if (!indent) {
            return;
        }
        out.append('\n');
        for (int i = 0; i < depth; i++) {
            out.append("  ");
        }
    }

    private void string(String s) {
        quote(out, s);
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
