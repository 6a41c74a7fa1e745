package io.memscope.recording;

/**
 * An allocation site: one allocating instruction in one method with the type it allocates (heap), or the first
 * application frame that asked for native memory (native).
 *
 * @param id         the site id events refer to (never 0; 0 means "no site")
 * @param className  binary class name with dots, for example {@code com.example.Cache}; null if unknown
 * @param methodName method name, for example {@code put} ({@code <init>} for constructors); null if unknown
 * @param fileName   source file name, for example {@code Cache.java}; null if unknown
 * @param line       source line, 1-based; 0 if unknown
 * @param typeName   the allocated type in Java syntax, for example {@code byte[]} or {@code java.lang.String};
 *                   native sites use {@value #NATIVE_DIRECT}, {@value #NATIVE_ARENA}, {@value #NATIVE_UNSAFE} or
 *                   {@value #NATIVE_MALLOC};
 *                   null if unknown
 */
public record Site(int id, String className, String methodName, String fileName, int line, String typeName) {
    /** Type of native sites whose memory backs a direct {@code ByteBuffer}. */
    public static final String NATIVE_DIRECT = "native:direct-buffer";
    /** Type of native sites that called {@code Unsafe.allocateMemory} themselves. */
    public static final String NATIVE_UNSAFE = "native:unsafe";
    /** Type of native sites whose memory is an FFM arena's segment ({@code Arena.allocate}, memscope-ffm). */
    public static final String NATIVE_ARENA = "native:arena";
    /**
     * Type of native sites whose memory came from the C allocator ({@code malloc} and its kin), seen by the agent's
     * sampled interception: each event is a sample, weighed as a heap sample is (docs/formats/recording.md).
     */
    public static final String NATIVE_MALLOC = "native:malloc";
    /**
     * File name of a site that is a native function rather than a Java method: {@code className} is the library,
     * {@code methodName} the function, and the frame reads {@code library!function}.
     */
    public static final String NATIVE_FUNCTION_FILE = "<native>";
    /** Prefix of every native site type. */
    public static final String NATIVE_PREFIX = "native:";

    /** @return true when this site allocates native (off-heap) memory: its type starts with {@code native:} */
    public boolean isNative() {
        return typeName != null && typeName.startsWith(NATIVE_PREFIX);
    }

    /** @return the site as a stack frame: {@code pkg.Class.method(File.java:LINE)} */
    public String frame() {
        return frame(className, methodName, fileName, line);
    }

    /**
     * Formats a frame the way {@link StackTraceElement#toString()} does for a class without a module:
     * {@code pkg.Class.method(File.java:LINE)}, {@code (Unknown Source)} without a file, no {@code :LINE} when the
     * line is unknown (0 or negative); {@code ?} for a missing class or method name. A native function
     * ({@link #NATIVE_FUNCTION_FILE}) is {@code library!function}. A placeholder (a class name in parentheses with an
     * empty method name and no file, such as {@code (Java stack not walkable: a collection was running)}) is its
     * class name alone.
     */
    public static String frame(String className, String methodName, String fileName, int line) {
        if (NATIVE_FUNCTION_FILE.equals(fileName)) {
            return (className == null ? "?" : className) + '!' + (methodName == null ? "?" : methodName);
        }
        if (fileName == null && methodName != null && methodName.isEmpty() && className != null
                && className.startsWith("(") && className.endsWith(")")) {
            return className;
        }
        String c = className == null ? "?" : className;
        String m = methodName == null ? "?" : methodName;
        StringBuilder b = new StringBuilder(c.length() + m.length() + 24);
        b.append(c).append('.').append(m).append('(').append(fileName == null ? "Unknown Source" : fileName);
        if (fileName != null && line > 0) {
            b.append(':').append(line);
        }
        return b.append(')').toString();
    }
}
