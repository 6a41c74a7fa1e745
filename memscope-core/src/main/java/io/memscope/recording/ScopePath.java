package io.memscope.recording;

/**
 * A scope path of a SCOPE_PATHS block (format 1.2): {@code request/parse} is the path {@code parse} whose parent
 * is the path {@code request}.
 *
 * @param id       the id scope edges carry, not 0
 * @param parentId the enclosing path's id, 0 for a root scope
 * @param name     the last name of the path
 */
public record ScopePath(int id, int parentId, String name) {

    /**
     * A scope entry or exit of a SCOPE_EDGES block (format 1.2), as {@link RecordingReader#read} keeps it.
     *
     * @param timestampNanos when, {@code System.nanoTime()} of the recorded JVM
     * @param threadId       the thread's id
     * @param threadName     its name, or null
     * @param exit           false for an entry
     * @param pathId         a {@link ScopePath} id
     * @param taskId         entries: not 0 when the entry runs a task handed over from another thread
     * @param allocatedBytes exits: heap bytes the thread allocated inside the scope, children included; -1 unknown
     */
    public record Edge(long timestampNanos, long threadId, String threadName, boolean exit, int pathId, long taskId,
                            long allocatedBytes) {
    }
}
