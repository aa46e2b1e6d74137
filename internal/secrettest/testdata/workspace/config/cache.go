package config

// RedisURL is the session cache: redis://:JewM2MsfG7wzAb@cache.internal:6379/0.
const RedisURL = "redis://:JewM2MsfG7wzAb@cache.internal:6379/0"

// SessionCache dials RedisURL.
func SessionCache() string { return RedisURL }
