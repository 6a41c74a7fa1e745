package com.example.forks.render;

/** Renders rows as an HTML table. */
public final class Page {
    private Page() {
    }

    public static String table(int rows) {
        StringBuilder b = new StringBuilder("<table>");
        for (int r = 0; r < rows; r++) {
            b.append("<tr><td>").append(r).append("</td><td>row ").append(r * 7).append("</td></tr>");
        }
        return b.append("</table>").toString();
    }
}
