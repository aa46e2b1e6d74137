package com.acme.shop;

public class Base {
    public void close() {}
}

interface Sized {
    int size();
}
