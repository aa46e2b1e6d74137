package com.example.inventory;

import java.util.ArrayList;
import java.util.List;

/**
 * Inventory tracks items in stock.
 *
 * @param <T> the item type
 */
@SuppressWarnings("unchecked")
public class Inventory<T extends Item> implements Iterable<T> {
    /** Default capacity. */
    public static final int DEFAULT_CAPACITY = 16, MAX_CAPACITY = 1 << 20;
    private static final String NAME = "inventory";
    private final List<T> items = new ArrayList<>();

    /** Creates an empty inventory. */
    public Inventory() {
        this(DEFAULT_CAPACITY);
    }

    Inventory(int capacity) {
        // package-private constructor
    }

    /**
     * Adds an item.
     * @return true when added
     */
    @Override
    @Deprecated(since = "2")
    public synchronized boolean add(final T item) throws IllegalStateException {
        return items.add(item);
    }

    private void compact() {}

    protected int size() { return items.size(); }

    /** Kinds of stock. */
    public enum Kind {
        PERISHABLE, DURABLE;

        public boolean expires() { return this == PERISHABLE; }
    }

    /** Listens to changes. */
    public interface Listener {
        void onChange(T item);

        default void onClear() {}

        int LIMIT = 3;
    }

    /** A snapshot entry. */
    public record Entry(String name, int count) {
        public Entry {
            if (count < 0) throw new IllegalArgumentException();
        }
    }

    static class Helper {
        public void help() {}
    }

    /** Marks persistent fields. */
    public @interface Persistent {
        String value() default "";
    }
}

interface Item {
    String sku();
}
