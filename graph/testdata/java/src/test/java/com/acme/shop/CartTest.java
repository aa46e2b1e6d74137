package com.acme.shop;

import org.junit.jupiter.api.Test;

class CartTest {
    @Test
    void addsItems() {
        Cart cart = new Cart();
        cart.add("x");
    }

    @Test
    void add() {
        new Cart().size();
    }

    void helper() {}
}
