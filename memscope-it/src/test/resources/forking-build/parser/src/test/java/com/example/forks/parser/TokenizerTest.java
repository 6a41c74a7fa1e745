package com.example.forks.parser;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TokenizerTest {
    @Test
    void splitsManyLines() {
        List<List<String>> kept = new ArrayList<>();
        long words = 0;
        for (int i = 0; i < 150_000; i++) {
            List<String> w = Tokenizer.words("Line " + i + ": the Quick brown fox, number " + (i * 31) + "!");
            words += w.size();
            if (i % 100 == 0) {
                kept.add(w);
            }
            if (i % 50_000 == 0) {
                System.gc();
            }
        }
        assertEquals(150_000L * 8, words);
        assertEquals(1_500, kept.size());
    }
}
