package io.memscope.error;

/**
 * A file memscope reads (recording, event ring, ...) is truncated, corrupted, of another version or not a
 * memscope file at all. {@link #offset()} names the byte offset where the damage was found.
 */
public final class CorruptFileException extends MemscopeException {
    private static final long serialVersionUID = 1L;

    private final long offset;

    public CorruptFileException(String file, long offset, String what) {
        super(MemscopeException.Category.EXPORT, MemscopeException.Severity.HIGH, false, file + ": at offset " + offset + ": " + what);
        this.offset = offset;
    }

    /** @return the byte offset in the file where the problem was detected */
    public long offset() {
        return offset;
    }
}
