package io.memscope.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;

/**
 * report.json and the commands' JSON output read through Jackson, as plain maps and lists, with the few accessors
 * that keep the tests' assertions short. Integers are {@code Long}, other numbers {@code Double}; trailing data after
 * the document is an error.
 */
final class Json {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.USE_LONG_FOR_INTS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private Json() {
    }

    /** @return the document: a {@code Map}, {@code List}, {@code String}, {@code Long}, {@code Double}, {@code Boolean} or null */
    static Object parse(String text) {
        try {
            return MAPPER.readValue(text, Object.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** @return the object at {@code path} (keys of nested objects) under {@code o} */
    @SuppressWarnings("unchecked")
    static Map<String, Object> obj(Object o, String... path) {
        return (Map<String, Object>) at(o, path);
    }

    /** @return the array of objects at {@code path} under {@code o} */
    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> list(Object o, String... path) {
        return (List<Map<String, Object>>) at(o, path);
    }

    /** @return the number under {@code key}, which must be there */
    static long num(Map<String, Object> o, String key) {
        Object v = o.get(key);
        if (!(v instanceof Number n)) {
            throw new AssertionError("no number under \"" + key + "\" in " + o.keySet() + ": " + v);
        }
        return n.longValue();
    }

    @SuppressWarnings("unchecked")
    private static Object at(Object o, String... path) {
        Object cur = o;
        for (String k : path) {
            cur = ((Map<String, Object>) cur).get(k);
        }
        return cur;
    }
}
