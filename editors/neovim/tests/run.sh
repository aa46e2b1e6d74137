#!/bin/sh
# Tests of the context-ls Neovim plugin, on every Neovim at hand: the one on
# PATH (Debian's 0.7.2; $CONTEXT_LS_NVIM names another) and every one that
# tests/install-neovim.sh put under $CONTEXT_LS_NVIM_DIR (default
# .cache/neovim of the repository: Debian trixie's 0.10 and sid's newest).
# For each:
#   1. unit tests of the plugin's modules (tests/unit.lua),
#   2. :helptags on doc/ (the help file must be valid),
#   3. the headless end-to-end test against the real server (tests/e2e.lua),
#   4. the server binary missing (tests/missing.lua): headless, and in a
#      terminal under tmux, whose screen must show one notification and no
#      autocommand error or hit-enter prompt;
#   5. the plugin as lazy.nvim installs it (tests/install.lua): a copy of
#      the plugin whose build step (build.sh) installed the release archive
#      $CONTEXT_LS_DIST_ARCHIVE (make dist), no context-ls on PATH, setup({}),
#      and :checkhealth reporting the server, runtime, model and index.
# Before the loop, once: build.sh from that archive (and refusing a
# tampered one, keeping the server it had) and from source (Go).
# The exit status is the verdict. The server binary is $CONTEXT_LS_BIN, by
# default bin/context-ls at the repository root; without it the end-to-end
# test is skipped with a message (the others still run). Without tmux the
# terminal test is skipped with a message.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
plugin=$(dirname "$here")
repo=$(cd "$plugin/../.." && pwd)
bin=${CONTEXT_LS_BIN:-$repo/bin/context-ls}
nvim_dir=${CONTEXT_LS_NVIM_DIR:-$repo/.cache/neovim}

first=${CONTEXT_LS_NVIM:-nvim}
if ! command -v "$first" >/dev/null 2>&1; then
	echo "neovim tests: $first is not on PATH (install Debian's neovim package; make deps does)" >&2
	exit 1
fi
set -- "$first"
for n in "$nvim_dir"/*/bin/nvim; do
	if [ -x "$n" ]; then
		set -- "$@" "$n"
	fi
done

archive=${CONTEXT_LS_DIST_ARCHIVE:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/context-ls-nvim.XXXXXX")
sock="context-ls-test-$$"
cleanup() {
	if command -v tmux >/dev/null 2>&1; then
		tmux -L "$sock" kill-server 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
status=0
summary=""

# fresh_env NAME points the XDG directories (configuration, plugins, state
# and the default index location) into $tmp/NAME, away from the user's.
fresh_env() {
	XDG_CONFIG_HOME="$tmp/$1/config" XDG_DATA_HOME="$tmp/$1/data" XDG_STATE_HOME="$tmp/$1/state" XDG_CACHE_HOME="$tmp/$1/cache"
	NVIM_LOG_FILE="$tmp/$1/nvim.log"
	export XDG_CONFIG_HOME XDG_DATA_HOME XDG_STATE_HOME XDG_CACHE_HOME NVIM_LOG_FILE
	mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_STATE_HOME" "$XDG_CACHE_HOME"
	rm -rf "$tmp/ws"
	mkdir -p "$tmp/ws"
	cp -R "$here/fixture/." "$tmp/ws/"
	ws=$(cd "$tmp/ws" && pwd -P)
}

# terminal_missing runs Neovim in tmux with the binary missing and checks
# the screen once it shows the notification (or after 10 s).
terminal_missing() {
	nvim=$1
	name=$2
	if ! command -v tmux >/dev/null 2>&1; then
		echo "skipped: tmux is not installed (make deps installs it)"
		return 0
	fi
	tmux -L "$sock" -f /dev/null new-session -d -x 100 -y 24 \
		"env CONTEXT_LS_PLUGIN='$plugin' '$nvim' -n -i NONE -u '$here/missing.lua' '$ws/inventory/stock.go'"
	screen=""
	i=0
	while [ $i -lt 100 ]; do
		screen=$(tmux -L "$sock" capture-pane -p 2>/dev/null || true)
		case $screen in *"not found (see :checkhealth context_ls)"*) break ;; esac
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.5 # a hit-enter prompt or a second message would come now
	screen=$(tmux -L "$sock" capture-pane -p 2>/dev/null || true)
	tmux -L "$sock" kill-server 2>/dev/null || true
	printf '%s\n' "$screen" >"$tmp/$name.screen"
	case $screen in
	*"Error detected"* | *"Error in "* | *"Press ENTER"* | *E5113* | *E5108*)
		echo "FAIL the terminal shows an error or a prompt:" >&2
		grep -v '^~ *$' "$tmp/$name.screen" >&2
		return 1
		;;
	*'context-ls: "no-context-ls" not found (see :checkhealth context_ls)'*)
		echo "ok   the terminal shows one notification, no error, no prompt"
		;;
	*)
		echo "FAIL the terminal does not show the notification:" >&2
		grep -v '^~ *$' "$tmp/$name.screen" >&2
		return 1
		;;
	esac
}

# The build step, once. lazy.nvim runs `sh editors/neovim/build.sh` in its
# clone of the repository; here the plugin is copied to where that clone
# would hold it.
installed=""
echo "== build step (build.sh)"
if [ -z "$archive" ]; then
	echo "skipped: CONTEXT_LS_DIST_ARCHIVE is not set (make test sets it after make dist)"
elif [ ! -f "$archive" ]; then
	echo "FAIL no release archive at $archive (run make dist)" >&2
	status=1
else
	installed="$tmp/lazy/context-ls/editors/neovim"
	mkdir -p "$installed"
	(cd "$plugin" && tar --exclude=./server -cf - .) | (cd "$installed" && tar -xf -)
	started=$(date +%s)
	if CONTEXT_LS_ARCHIVE="$archive" sh "$installed/build.sh" && [ -x "$installed/server/bin/context-ls" ]; then
		echo "ok   the release archive installed in $(($(date +%s) - started)) s"
	else
		echo "FAIL build.sh did not install the release archive" >&2
		status=1
	fi
	# A tampered archive is refused and the installed server stays.
	mkdir -p "$tmp/bad"
	tar -xzf "$archive" -C "$tmp/bad"
	printf 'x' >>"$tmp/bad/$(ls "$tmp/bad")/lib/$(ls "$tmp/bad"/*/lib | head -n 1)"
	(cd "$tmp/bad" && tar -czf ../bad.tar.gz .)
	before=$("$installed/server/bin/context-ls" version 2>&1 || true)
	if CONTEXT_LS_ARCHIVE="$tmp/bad.tar.gz" sh "$installed/build.sh" >"$tmp/bad.out" 2>&1; then
		echo "FAIL build.sh installed a tampered archive" >&2
		status=1
	elif ! grep -q 'do not match its SHA256SUMS' "$tmp/bad.out" || [ "$("$installed/server/bin/context-ls" version 2>&1)" != "$before" ]; then
		echo "FAIL a tampered archive: not refused plainly, or the installed server changed:" >&2
		cat "$tmp/bad.out" >&2
		status=1
	else
		echo "ok   a tampered archive is refused, the installed server kept"
	fi
fi
if command -v go >/dev/null 2>&1; then
	if CONTEXT_LS_INSTALL_FROM=source CONTEXT_LS_SERVER_DIR="$tmp/from-source" sh "$plugin/build.sh" >"$tmp/source.out" 2>&1 &&
		"$tmp/from-source/bin/context-ls" version >/dev/null; then
		echo "ok   built from source: $("$tmp/from-source/bin/context-ls" version)"
	else
		echo "FAIL build.sh from source:" >&2
		cat "$tmp/source.out" >&2
		status=1
	fi
else
	echo "skipped: building from source needs Go"
fi

n=0
for nvim in "$@"; do
	n=$((n + 1))
	version=$("$nvim" --version | head -n 1)
	verdict=ok
	fresh_env "run$n"

	echo "== $version: unit tests"
	if ! CONTEXT_LS_PLUGIN="$plugin" "$nvim" --headless -n -i NONE -u "$here/unit.lua"; then
		verdict=FAILED
	fi

	echo "== $version: :helptags doc/"
	rm -rf "$tmp/doc"
	cp -R "$plugin/doc" "$tmp/doc"
	if "$nvim" --headless -n -i NONE -u NONE \
		-c "try | helptags $tmp/doc | catch | echo v:exception | cquit 1 | endtry" -c 'qall!' 2>"$tmp/helptags.err" \
		&& [ -s "$tmp/doc/tags" ] && grep -q '^context-ls	' "$tmp/doc/tags"; then
		echo "helptags: $(wc -l <"$tmp/doc/tags") tags"
	else
		echo "helptags failed: $(cat "$tmp/helptags.err")" >&2
		verdict=FAILED
	fi

	echo "== $version: end-to-end test"
	if [ ! -x "$bin" ]; then
		echo "skipped: no server binary at $bin (run make build, or set CONTEXT_LS_BIN)"
	else
		# setup({}) finds the binary on PATH; embeddings off keeps the run small
		bindir=$(cd "$(dirname "$bin")" && pwd)
		if ! PATH="$bindir:$PATH" CONTEXT_LS_EMBEDDINGS=off CONTEXT_LS_PLUGIN="$plugin" CONTEXT_LS_BIN="$bin" \
			CONTEXT_LS_ROOT="$ws" CONTEXT_LS_OUT="$tmp/result$n.json" \
			"$nvim" --headless -n -i NONE -u "$here/e2e.lua" 2>"$tmp/e2e.err"; then
			echo "end-to-end test failed; Neovim's stderr:" >&2
			tail -n 40 "$tmp/e2e.err" >&2
			verdict=FAILED
		elif [ ! -s "$tmp/result$n.json" ]; then
			echo "end-to-end test wrote no result file" >&2
			verdict=FAILED
		fi
	fi

	echo "== $version: server binary missing"
	fresh_env "missing$n"
	if ! CONTEXT_LS_PLUGIN="$plugin" CONTEXT_LS_ROOT="$ws" CONTEXT_LS_OUT="$tmp/missing$n.json" \
		"$nvim" --headless -n -i NONE -u "$here/missing.lua" 2>"$tmp/missing.err"; then
		echo "missing-binary test failed; Neovim's stderr:" >&2
		tail -n 20 "$tmp/missing.err" >&2
		verdict=FAILED
	fi
	if ! terminal_missing "$nvim" "missing$n"; then
		verdict=FAILED
	fi

	echo "== $version: installed by the build step"
	if [ -z "$installed" ]; then
		echo "skipped: no release archive installed (see the build step above)"
	else
		fresh_env "install$n"
		# No context-ls on PATH, no Go: Neovim and a system PATH only.
		if ! PATH=/usr/bin:/bin CONTEXT_LS_PLUGIN="$installed" CONTEXT_LS_ROOT="$ws" CONTEXT_LS_OUT="$tmp/install$n.json" \
			"$nvim" --headless -n -i NONE -u "$installed/tests/install.lua" 2>"$tmp/install.err"; then
			echo "installed-plugin test failed; Neovim's stderr:" >&2
			tail -n 40 "$tmp/install.err" >&2
			verdict=FAILED
		fi
	fi

	summary="$summary$version: $verdict
"
	if [ $verdict != ok ]; then
		status=1
	fi
done
echo "== Neovim plugin tests"
printf '%s' "$summary"
exit $status
