package io.memscope.agent.capture;

import io.memscope.agent.boot.SamplerNatives;
import java.util.HashMap;
import java.util.Map;

/**
 * Names of native code addresses for stack frames: {@code library!function} when the address lies inside a dynamic
 * symbol's extent ({@code dladdr1} with the symbol's size), else {@code library+0xOFF} (offset from the library's
 * load base): a function without a dynamic symbol (hidden, static, or a stripped library) is never given the name
 * of the exported function before it. The library is the file's base name. Resolved by the malloc library's
 * {@code mallocSymbol0}; remembered per address in a bounded cache (emptied when full). One thread only (the malloc
 * drain thread).
 */
final class NativeSymbols {
    /** Addresses remembered before the cache is emptied. */
    static final int CACHE_LIMIT = 1 << 16;
    /** What an address no library holds resolves to (the cache remembers it too). */
    private static final String NONE = "";

    private final Map<Long, String> names = new HashMap<>();

    /**
     * @param returnAddress a return address (the instruction after a call): looked up one byte before, inside the
     *                      calling instruction, so that a call that ends a function names that function
     * @return the frame text, or null when no loaded library holds the address (not a frame)
     */
    String frame(long returnAddress) {
        Long key = returnAddress;
        String s = names.get(key);
        if (s == null) {
            try {
                s = SamplerNatives.mallocSymbol(returnAddress - 1);
            } catch (Throwable t) {
                s = null;
            }
            if (s == null) {
                s = NONE;
            }
            if (names.size() >= CACHE_LIMIT) {
                names.clear();
            }
            names.put(key, s);
        }
        return s.isEmpty() ? null : s;
    }

    /** @return the library part of a frame text ({@code libz.so.1} of {@code libz.so.1!inflate}) */
    static String library(String frame) {
        int bang = frame.indexOf('!');
        int plus = frame.lastIndexOf("+0x");
        int end = bang >= 0 ? bang : plus >= 0 ? plus : frame.length();
        return frame.substring(0, end);
    }

    /** @return the function part of a frame text ({@code inflate}), or {@code +0xOFF} when it has no name */
    static String function(String frame) {
        int bang = frame.indexOf('!');
        if (bang >= 0) {
            return frame.substring(bang + 1);
        }
        int plus = frame.lastIndexOf("+0x");
        return plus >= 0 ? frame.substring(plus) : frame;
    }

    /** @return whether a library is the C library (its functions are never a native site: the caller is) */
    static boolean isLibc(String library) {
        return library.startsWith("libc.so") || library.startsWith("libc-") || library.startsWith("ld-linux");
    }
}
