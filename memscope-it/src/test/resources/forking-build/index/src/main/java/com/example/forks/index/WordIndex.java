package com.example.forks.index;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Which documents each word occurs in. */
public final class WordIndex {
    private final Map<String, List<Integer>> postings = new HashMap<>();

    public void add(int doc, String text) {
        for (String w : text.split(" ")) {
            postings.computeIfAbsent(w, k -> new ArrayList<>()).add(doc);
        }
    }

    public int documents(String word) {
        List<Integer> p = postings.get(word);
        return p == null ? 0 : p.size();
    }
}
