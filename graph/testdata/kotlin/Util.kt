package com.acme.util

fun slug(s: String): String = s

object Strings {
    fun trim(s: String): String = s
}
