package memscope.ffmfixtures;

import io.memscope.ffm.TrackingArena;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * For {@code memscope attach}: a tracking arena allocates before the agent is there; once the file {@code args[0]}
 * exists (the agent has attached), a second tracking arena allocates and is never closed, and the first one closes
 * (freeing memory the agent never saw allocated). Prints "ready", then "done"; exits when {@code args[1]} exists.
 */
public final class FfmAttachFixture {
    static Arena after;

    public static void main(String[] args) throws Exception {
        TrackingArena before = TrackingArena.ofConfined();
        before.allocate(10_000);
        System.out.println("ready");
        System.out.flush();
        while (!Files.exists(Path.of(args[0]))) {
            Thread.sleep(20);
        }
        after = TrackingArena.ofConfined();
        after.allocate(30_000); // AFTER-ATTACH
        before.close();
        System.out.println("done");
        System.out.flush();
        while (!Files.exists(Path.of(args[1]))) {
            Thread.sleep(20);
        }
    }
}
