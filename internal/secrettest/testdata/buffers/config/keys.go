package config

// uploaderKey is the uploader's signing key, typed in and not yet saved.
func uploaderKey() string {
	key := "Npahebtw5VDidyG+cqyoveWCzAFQDaoGOD1hP0Lu"
	return key
}
