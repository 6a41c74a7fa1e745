package io.memscope.analysis;

/**
 * A static allocation site: one allocation instruction in one method (heap), or the first application frame
 * that asked for native memory (native).
 *
 * @param id        dense id, unique within one capture; 0 is "no site"
 * @param className binary class name with dots, for example {@code io.memscope.demo.LeakyCacheWorkload}
 * @param method    method name ({@code <init>} for constructors)
 * @param file      source file name from the class file's SourceFile attribute, or null when absent
 * @param line      source line from the LineNumberTable, or 0 when unknown
 * @param type      allocated type as the JVM names it in Java syntax ({@code byte[]}, {@code java.lang.String});
 *                  native sites use {@value #NATIVE_DIRECT}, {@value #NATIVE_ARENA} or {@value #NATIVE_UNSAFE}
 */
public record Site(int id, String className, String method, String file, int line, String type) {
    /** Type of native sites whose memory backs a direct {@code ByteBuffer}. */
    public static final String NATIVE_DIRECT = "native:direct-buffer";
    /** Type of native sites that called {@code Unsafe.allocateMemory} themselves. */
    public static final String NATIVE_UNSAFE = "native:unsafe";
    /** Type of native sites whose memory is an FFM arena's segment ({@code Arena.allocate}, memscope-ffm). */
    public static final String NATIVE_ARENA = "native:arena";

    /** @return true when this site allocates native (off-heap) memory */
    public boolean isNative() {
        return type != null && type.startsWith("native:");
    }

    /** @return the site as a stack-trace frame: {@code pkg.Class.method(File.java:LINE)} */
    public String frame() {
        return frame(className, method, file, line);
    }

    /** Formats a frame the way {@link StackTraceElement#toString()} does for a class without module. */
    public static String frame(String className, String method, String file, int line) {
        StringBuilder sb = new StringBuilder(className.length() + method.length() + 24);
        sb.append(className).append('.').append(method).append('(');
        if (file == null) {
            sb.append("Unknown Source");
        } else {
            sb.append(file);
            if (line > 0) {
                sb.append(':').append(line);
            }
        }
        return sb.append(')').toString();
    }
}
