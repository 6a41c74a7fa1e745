package io.memscope.recording;

/**
 * An allocation site: one allocating instruction in one method, with the type it allocates.
 *
 * @param id         the site id events refer to (never 0; 0 means "no site")
 * @param className  binary class name with dots, for example {@code com.example.Cache}; null if unknown
 * @param methodName method name, for example {@code put}; null if unknown
 * @param fileName   source file name, for example {@code Cache.java}; null if unknown
 * @param line       source line, 1-based; 0 if unknown
 * @param typeName   the allocated type, for example {@code byte[]}; null if unknown
 */
public record Site(int id, String className, String methodName, String fileName, int line, String typeName) {

    /** @return the site as a stack frame: {@code pkg.Class.method(File.java:LINE)} */
    public String frame() {
        StringBuilder b = new StringBuilder();
        b.append(className == null ? "?" : className).append('.').append(methodName == null ? "?" : methodName);
        b.append('(').append(fileName == null ? "Unknown Source" : fileName);
        if (line > 0) {
            b.append(':').append(line);
        }
        return b.append(')').toString();
    }
}
