package com.example.users

import kotlin.math.max

/** Maximum users per page. */
const val PAGE_SIZE = 50
val defaultNames = listOf("a", "b")
private var counter: Int = 0

/** A user of the system. */
@Serializable
data class User(val id: Long, val name: String) : Comparable<User> {
    /** Secondary constructor from a name. */
    constructor(name: String) : this(0, name)

    /** Compares by id. */
    override fun compareTo(other: User): Int = id.compareTo(other.id)

    private fun secret(): String = name.reversed()

    internal fun moduleOnly() {}

    companion object {
        const val ANONYMOUS = "anon"
        val cache = mutableMapOf<Long, User>()
        fun of(name: String) = User(name)
    }
}

/** Loads users. */
interface Repository {
    fun find(id: Long): User?
    suspend fun all(): List<User>
}

enum class Role {
    ADMIN, GUEST;

    fun label(): String = name.lowercase()
}

object Registry {
    fun register(user: User) {}
}

private class Hidden {
    fun visibleButHidden() {}
}

typealias UserId = Long

/** Pads a string. */
fun String.padded(width: Int): String = padStart(max(width, length))

fun <T : Comparable<T>> maxOf(
    a: T,
    b: T,
): T {
    return if (a > b) a else b
}
