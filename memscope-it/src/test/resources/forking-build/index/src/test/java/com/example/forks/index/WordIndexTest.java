package com.example.forks.index;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class WordIndexTest {
    @Test
    void indexesDocumentsInRounds() {
        for (int round = 0; round < 6; round++) {
            WordIndex index = new WordIndex();
            for (int doc = 0; doc < 60_000; doc++) {
                index.add(doc, "w" + (doc % 5_000) + " common r" + round + " d" + doc);
            }
            assertEquals(60_000, index.documents("common"));
            assertEquals(12, index.documents("w7"));
            if (round % 2 == 1) {
                System.gc();
            }
        }
    }
}
