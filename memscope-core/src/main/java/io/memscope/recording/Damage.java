package io.memscope.recording;

import io.memscope.error.CorruptFileException;

/**
 * Where and how a recording stops being readable. Everything before {@link #offset()} that formed complete,
 * valid blocks was read.
 *
 * @param file   the file, as given to the reader
 * @param offset byte offset in the file where the damage was found
 * @param what   what is wrong, for example {@code truncated block: payload of 65536 bytes, only 120 remain}
 */
public record Damage(String file, long offset, String what) {

    /** @return the damage as the exception strict readers throw */
    public CorruptFileException toException() {
        return new CorruptFileException(file, offset, what);
    }

    /** @return {@code FILE: at offset N: WHAT}, the same text as the exception's message */
    public String message() {
        return file + ": at offset " + offset + ": " + what;
    }
}
