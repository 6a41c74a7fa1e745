package io.memscope.analysis.text;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.accounting.Column;
import io.memscope.accounting.SummaryRow;
import io.memscope.accounting.SummaryTable;
import io.memscope.analysis.AccountingText;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TerminalTextTest {
    static final String HOSTILE = "\u001b[31mred\u001b]0;pwned\u0007\u001b[2J\u009b1m\u202e\r\nFORGED: leak of 999 GiB";

    @Test
    void everyControlCharacterIsShownNotObeyed() {
        String s = TerminalText.safe(HOSTILE);
        assertThat(s).isEqualTo("\\e[31mred\\e]0;pwned\\x07\\e[2J\\x9b1m\\u{202e}\\r\\nFORGED: leak of 999 GiB");
        assertThat(s.chars().filter(c -> TerminalText.isControl((char) c))).isEmpty();
        assertThat(TerminalText.safe("plain \u00e9t\u00e9 \u4e2d\u6587 C:\\path")).isEqualTo(
                "plain \u00e9t\u00e9 \u4e2d\u6587 C:\\path");
        assertThat(TerminalText.safe((String) null)).isNull();
    }

    @Test
    void accountingTablesPrintNoControlCharacter() {
        String out = AccountingText.format(Map.of(SummaryTable.USER, List.of(row())), AccountingText.Format.TEXT);
        assertThat(out).doesNotContain("\u001b").doesNotContain("\r").doesNotContain("\u009b")
                .doesNotContain("\nFORGED");
    }

    private static SummaryRow row() {
        long[] values = new long[Column.values().length];
        return new SummaryRow(SummaryTable.USER, -1, null, HOSTILE, null, "memory/" + "cache/x", values);
    }
}
