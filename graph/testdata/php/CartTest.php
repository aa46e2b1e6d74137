<?php
namespace Acme\Shop;

class CartTest extends TestCase
{
    public function testAdd(): void
    {
        $cart = new Cart();
        $cart->add("x");
    }
}
