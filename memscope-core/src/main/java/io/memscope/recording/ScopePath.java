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
}
