#!/bin/sh
# Tests of the context-ls Neovim plugin, with Debian's Neovim (0.7.2) or any
# later one on PATH:
#   1. unit tests of the plugin's pure modules (tests/unit.lua),
#   2. :helptags on doc/ (the help file must be valid),
#   3. the headless end-to-end test against the real server (tests/e2e.lua).
# The exit status is the verdict. The server binary is $CONTEXT_LS_BIN, by
# default bin/context-ls at the repository root; without it the end-to-end
# test is skipped with a message (the other two still run).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
plugin=$(dirname "$here")
repo=$(cd "$plugin/../.." && pwd)
bin=${CONTEXT_LS_BIN:-$repo/bin/context-ls}
nvim=${NVIM:-nvim}

if ! command -v "$nvim" >/dev/null 2>&1; then
	echo "neovim tests: $nvim is not on PATH (install Debian's neovim package; make deps does)" >&2
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/context-ls-nvim.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
# keep the user's configuration, plugins and state out of the test
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" XDG_STATE_HOME="$tmp/state" XDG_CACHE_HOME="$tmp/cache"
export NVIM_LOG_FILE="$tmp/nvim.log"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_STATE_HOME" "$XDG_CACHE_HOME"
status=0

echo "== unit tests ($("$nvim" --version | head -n 1))"
if ! CONTEXT_LS_PLUGIN="$plugin" "$nvim" --headless -n -i NONE -u "$here/unit.lua"; then
	status=1
fi

echo "== :helptags doc/"
cp -R "$plugin/doc" "$tmp/doc"
if "$nvim" --headless -n -i NONE -u NONE \
	-c "try | helptags $tmp/doc | catch | echo v:exception | cquit 1 | endtry" -c 'qall!' 2>"$tmp/helptags.err" \
	&& [ -s "$tmp/doc/tags" ] && grep -q '^context-ls	' "$tmp/doc/tags"; then
	echo "helptags: $(wc -l <"$tmp/doc/tags") tags"
else
	echo "helptags failed: $(cat "$tmp/helptags.err")" >&2
	status=1
fi

echo "== end-to-end test"
if [ ! -x "$bin" ]; then
	echo "skipped: no server binary at $bin (run make build, or set CONTEXT_LS_BIN)"
else
	mkdir -p "$tmp/ws"
	cp -R "$here/fixture/." "$tmp/ws/"
	ws=$(cd "$tmp/ws" && pwd -P)
	if ! CONTEXT_LS_PLUGIN="$plugin" CONTEXT_LS_BIN="$bin" CONTEXT_LS_ROOT="$ws" CONTEXT_LS_DB="$tmp/index" \
		CONTEXT_LS_OUT="$tmp/result.json" \
		"$nvim" --headless -n -i NONE -u "$here/e2e.lua" 2>"$tmp/e2e.err"; then
		echo "end-to-end test failed; Neovim's stderr:" >&2
		tail -n 40 "$tmp/e2e.err" >&2
		status=1
	elif [ ! -s "$tmp/result.json" ]; then
		echo "end-to-end test wrote no result file" >&2
		status=1
	fi
fi
exit $status
