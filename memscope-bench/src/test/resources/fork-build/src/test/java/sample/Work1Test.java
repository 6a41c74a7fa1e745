package sample;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Allocates and checks a little, as an ordinary unit test does (one of four; each runs in its own JVM). */
class Work1Test {
    @Test
    void countsWords() {
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < 200_000; i++) {
            counts.merge("w" + (i % (1000 * 1)), 1, Integer::sum);
        }
        assertEquals(1000 * 1, counts.size());
    }

    @Test
    void buildsLists() {
        List<int[]> l = new ArrayList<>();
        long sum = 0;
        for (int i = 0; i < 100_000; i++) {
            int[] a = new int[8 + i % 16];
            a[0] = i;
            l.add(a);
            sum += a[0];
        }
        assertEquals(100_000L * 99_999 / 2, sum);
        assertEquals(100_000, l.size());
    }
}
