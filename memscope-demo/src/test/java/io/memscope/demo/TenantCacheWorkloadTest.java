package io.memscope.demo;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(60)
class TenantCacheWorkloadTest {
    @Test
    void carolCrossesHerBudgetAndTheTablesArePrinted() throws Exception {
        PrintStream out = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
            new TenantCacheWorkload().run();
        } finally {
            System.setOut(out);
        }
        String text = buf.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("budget of user carol EXCEEDED", "budget of user carol back under",
                "MEMORY_SUMMARY_BY_USER_BY_EVENT_NAME", "MEMORY_SUMMARY_GLOBAL_BY_EVENT_NAME",
                "memory/tenantcache/entries", "memory/tenantcache/arena");
        assertThat(text).doesNotContain("budget of user alice", "budget of user bob");
        assertThat(text).containsPattern("(?m)^carol +memory/tenantcache/entries +\\d+");
    }
}
