package engine

import (
	"slices"
	"testing"

	"github.com/context-ls/context-ls/querytext"
)

// TestSpelledKeys: adjacent words of a text spell a file's whole base name,
// in order for a one-word name, in any order for a name of several words;
// one word never spells a one-word name (every file named like a common
// word would gain), and a stop word breaks a run.
func TestSpelledKeys(t *testing.T) {
	keys := spelledKeys("Fix ID tracking of the string slice flag values; bash completion of it")
	spelled := func(base string) bool { return spells(keys, base) }
	for _, base := range []string{"idtracking", "flag_string_slice", "_bashcomplete", "bash_completions", "StringSlice"} {
		if !spelled(base) {
			t.Errorf("%s: not spelled by %v", base, keys)
		}
	}
	for _, base := range []string{"flag", "tracking", "completion_of", "flag_int_slice", "slice_values_of"} {
		if spelled(base) {
			t.Errorf("%s: spelled, want not", base)
		}
	}
	// one compound word spells part of a longer name; a letter left of a
	// word ("command's") does not join it
	keys = spelledKeys("don't overwrite the existing stringslice; the parent command's hook")
	for base, want := range map[string]bool{"flag_string_slice": true, "string_slice": true, "command": false, "hook": false, "command_hook": false} {
		if got := spelled(base); got != want {
			t.Errorf("%s: spelled %v, want %v", base, got, want)
		}
	}
}

// TestIsCompound: only names no English word spells are looked for
// verbatim where nothing defines them.
func TestIsCompound(t *testing.T) {
	for name, want := range map[string]bool{
		"protected_args": true, "_fetch": true, "REQUEST_URI": true, "setFlags": true, "__call__": true,
		"fetch": false, "Flag": false, "URL": false, "_": false, "a.b_c": false,
	} {
		if got := isCompound(name); got != want {
			t.Errorf("isCompound(%q) = %v, want %v", name, got, want)
		}
	}
}

// A frame's file: a Python frame's bare name is the user's script, found
// only at the workspace's root; a bare name from another language's frame
// (Java prints Bar.java) is any file of that name; a path finds the files
// sharing its last components.
func TestFilesAtFrame(t *testing.T) {
	l := &locator{paths: []string{"app.py", "src/flask/app.py", "src/main/java/com/shop/Bar.java", "pkg/core/util.go"}}
	for _, tc := range []struct {
		frame string
		want  []string
	}{
		{"app.py", []string{"app.py"}},
		{"Bar.java", []string{"src/main/java/com/shop/Bar.java"}},
		{"/usr/lib/site-packages/flask/app.py", []string{"src/flask/app.py"}},
		{"/build/pkg/core/util.go", []string{"pkg/core/util.go"}},
		{"/home/me/tools/nightly/main.go", nil},
	} {
		got := l.frameFile(tc.frame).files
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.frame, got, tc.want)
		}
	}
}

// A frame's depth counts the workspace's frames only: the runtime's and the
// standard library's printed inside them do not push the workspace's
// innermost frame down; each traceback counts from its own innermost.
func TestFrameDepths(t *testing.T) {
	l := &locator{paths: []string{"internal/webhook/signature.go", "internal/retry/backoff.go"}}
	paths := []querytext.Path{
		{Path: "README.md", Frame: -1},
		{Path: "/usr/local/go/src/runtime/panic.go", Line: 914, Frame: 0},
		{Path: "/usr/local/go/src/encoding/hex/hex.go", Line: 88, Frame: 1},
		{Path: "/build/internal/webhook/signature.go", Line: 41, Frame: 2},
		{Path: "/build/internal/retry/backoff.go", Line: 40, Frame: 3},
		{Path: "notes.txt", Frame: -1},
		// a second traceback, printed innermost last
		{Path: "/build/internal/retry/backoff.go", Line: 52, Frame: 1},
		{Path: "/usr/lib/go/src/net/http/server.go", Line: 2136, Frame: 0},
	}
	got, err := l.frameDepths(paths)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{-1, 0, 0, 0, 1, -1, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("depths %v, want %v", got, want)
	}
}
