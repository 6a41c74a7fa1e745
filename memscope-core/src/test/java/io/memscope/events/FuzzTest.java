package io.memscope.events;

import io.memscope.error.CorruptFileException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/** Thousands of mutated ring files: each one reads fine or fails with CorruptFileException, never anything else. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FuzzTest {
    @TempDir
    Path tmp;

    @AfterEach
    void stop() {
        RuntimeEvents.stop();
    }

    @Test
    void mutatedFilesNeverCrashTheReader() throws Exception {
        RuntimeEvents.start(EventsSettings.fromMap(Map.of()).withDirectory(tmp).withRingSize(4096).withSlots(2)
                .withPreserve(true));
        Counter c = RuntimeEvents.counter("fuzz.counter");
        Span s = RuntimeEvents.span("fuzz.span");
        UserEvent<Integer> u = RuntimeEvents.register("fuzz.int", EventType.INT);
        for (int i = 0; i < 500; i++) { // wraps the 4 KiB ring several times: padding and a moved head
            s.begin();
            c.set(i);
            u.writeInt(i);
            s.end();
        }
        byte[] image = Files.readAllBytes(RuntimeEvents.file());
        RuntimeEvents.stop();
        int slotBase = RingLayout.HEADER_BYTES + EventsSettings.NAMES_CAPACITY;
        Random rnd = new Random(20261121);
        int ok = 0;
        int corrupt = 0;
        for (int iter = 0; iter < 3000; iter++) {
            byte[] m = image.clone();
            int flips = 1 + rnd.nextInt(8);
            for (int k = 0; k < flips; k++) {
                int region = rnd.nextInt(4);
                int at;
                switch (region) {
                    case 0: at = rnd.nextInt(128); break;                          // header fields
                    case 1: at = RingLayout.HEADER_BYTES + rnd.nextInt(512); break; // names
                    case 2: at = slotBase + rnd.nextInt(256); break;               // slot header
                    default: at = slotBase + 256 + rnd.nextInt(4096); break;       // records
                }
                m[at] = (byte) (rnd.nextInt(4) == 0 ? rnd.nextInt(256) : m[at] ^ (1 << rnd.nextInt(8)));
            }
            if (rnd.nextInt(20) == 0) {
                m = java.util.Arrays.copyOf(m, rnd.nextInt(m.length));
            }
            try {
                EventCursor cursor = EventCursor.of(tmp.resolve("mutant-" + iter), ByteBuffer.wrap(m));
                Recorded r = new Recorded();
                int n = cursor.poll(r);
                assertThat(n).isBetween(0, 4096 / 8 * 2);
                ok++;
            } catch (CorruptFileException e) {
                assertThat(e.getMessage()).contains("mutant-" + iter).contains("offset");
                corrupt++;
            } catch (Throwable t) {
                fail("mutant " + iter + " crashed the reader", t);
            }
        }
        assertThat(ok).isPositive();
        assertThat(corrupt).isPositive();
    }
}
