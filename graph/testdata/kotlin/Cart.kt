package com.acme.shop

import com.acme.util.slug
import com.acme.util.Strings as S

class Cart(private val repo: Repo) : Base(), Sized {
    fun add(item: String) {
        val clean = slug(item)
        repo.save(clean)
        this.repo.save(S.trim(clean))
        val other = Repo()
        other.load(clean)
        validate()
    }

    private fun validate() {}
}

class Repo {
    fun save(key: String) {}
    fun load(key: String): String = key
}

class CartTest {
    @Test
    fun addsItems() {
        Cart(Repo()).add("x")
    }
}
