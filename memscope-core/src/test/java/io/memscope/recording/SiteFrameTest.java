package io.memscope.recording;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How a site reads as a frame: a Java method, a native function, and a placeholder that names no code. */
class SiteFrameTest {
    @Test
    void javaNativeAndPlaceholderSitesReadAsFrames() {
        assertThat(Site.frame("com.acme.Cache", "put", "Cache.java", 12))
                .isEqualTo("com.acme.Cache.put(Cache.java:12)");
        assertThat(Site.frame("com.acme.Cache", "put", null, 12)).isEqualTo("com.acme.Cache.put(Unknown Source)");
        assertThat(Site.frame("libz.so.1", "inflateInit2_", Site.NATIVE_FUNCTION_FILE, 0))
                .isEqualTo("libz.so.1!inflateInit2_");
        assertThat(Site.frame("(Java stack not walkable: a collection was running)", "", null, 0))
                .isEqualTo("(Java stack not walkable: a collection was running)");
        // a class name in parentheses with a method is a frame like any other
        assertThat(Site.frame("(odd)", "m", null, 0)).isEqualTo("(odd).m(Unknown Source)");
    }
}
