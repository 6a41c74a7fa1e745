package io.memscope.track;

/**
 * The strings of {@link ObjectTracker}, kept out of it for the reason given in {@code io.memscope.scope.ScopeText}
 * (a C2 compilation would turn its unused literals into {@code String}s on the application's thread).
 */
final class TrackText {
    static final String TRACK;

    static {
        TRACK = "track";
    }

    private TrackText() {
    }

    static IllegalArgumentException badCapacity(int capacity) {
        return new IllegalArgumentException("capacity must be at least 1, was " + capacity);
    }
}
