package com.example.forks.parser;

import java.util.ArrayList;
import java.util.List;

/** Splits lines into lower-case words. */
public final class Tokenizer {
    private Tokenizer() {
    }

    public static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        for (String w : line.split("[^A-Za-z0-9]+")) {
            if (!w.isEmpty()) {
                words.add(w.toLowerCase());
            }
        }
        return words;
    }
}
