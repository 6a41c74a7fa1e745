package io.memscope.analysis;

import io.memscope.analysis.text.TerminalText;

/**
 * A minimal streaming JSON writer (RFC 8259) into a {@link StringBuilder}, indented by two spaces (or compact, for
 * data embedded in report.html). Callers nest {@code beginObject/endObject} and {@code beginArray/endArray}
 * correctly; the writer places commas.
 */
public final class JsonWriter {
    private final StringBuilder out = new StringBuilder(4096);
    private final boolean indent;
    private int depth;
    private boolean first = true;
    private boolean afterName;

    /** A writer that indents by two spaces, one value per line. */
    public JsonWriter() {
        this(true);
    }

    private JsonWriter(boolean indent) {
        this.indent = indent;
    }

    /** @return a writer without any whitespace between tokens */
    public static JsonWriter compact() {
        return new JsonWriter(false);
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
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                default:
                    if (TerminalText.isControl(c)) { // also DEL, C1 and bidi controls: JSON printed on a terminal
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
            }
        }
        out.append('"');
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
