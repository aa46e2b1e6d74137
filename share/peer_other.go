//go:build !linux && !windows

package share

import (
	"net"
	"os"
	"syscall"
)

// checkPeer accepts every connection: on this platform the socket's mode
// (0600) is what keeps other users out.
func checkPeer(*net.UnixConn) error { return nil }

// ownedByMe reports whether fi belongs to this process's user.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
