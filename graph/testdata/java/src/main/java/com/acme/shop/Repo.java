package com.acme.shop;

public class Repo {
    public void save(String key) {}

    public String load(String key) {
        return key;
    }
}
