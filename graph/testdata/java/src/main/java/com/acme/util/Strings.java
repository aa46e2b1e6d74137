package com.acme.util;

public final class Strings {
    public static String trim(String s) {
        return s.trim();
    }

    public static String pad(String s) {
        return s;
    }
}
