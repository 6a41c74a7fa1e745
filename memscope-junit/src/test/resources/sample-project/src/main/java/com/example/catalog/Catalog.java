package com.example.catalog;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A product catalog with two bugs: listeners are never removed, and rendering builds strings in a loop. */
public final class Catalog {
    private static final List<Object> LISTENERS = new ArrayList<>();
    private final Map<String, String> products = new HashMap<>();

    public void add(String id, String name) {
        products.put(id, name);
    }

    /** Registers a change listener; there is no way to remove it. */
    public void onChange(Runnable listener) {
        LISTENERS.add(new byte[256 * 1024]); // the leak: a snapshot buffer per listener, kept for ever
        LISTENERS.add(listener);
    }

    public String render() {
        String page = "";
        for (Map.Entry<String, String> p : products.entrySet()) {
            page += p.getKey() + ": " + p.getValue() + "\n"; // the needless temporaries
        }
        return page;
    }

    public int size() {
        return products.size();
    }
}
