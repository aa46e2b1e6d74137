#!/bin/sh
# build.sh — puts the context-ls server in place for the Neovim plugin: the
# plugin manager's build step (lazy.nvim: build = 'sh editors/neovim/build.sh',
# run in the plugin's directory after each install or update).
#
# The server goes into editors/neovim/server/ (bin/context-ls, lib/ with the
# ONNX Runtime, models/ when the release carries one), where the plugin looks
# before PATH. It comes from, in order:
#   1. $CONTEXT_LS_ARCHIVE: a release archive (context-ls-PLATFORM.tar.gz)
#      already on disk, or its URL;
#   2. the release archive of this platform from the project's GitHub
#      releases (the release tagged like this checkout, else the latest),
#      checked against the release's SHA256SUMS;
#   3. a build from this checkout's source: Go (with cgo) builds the binary
#      and scripts/fetch-ort.sh adds the ONNX Runtime when npm is there
#      (no model: `context-ls model pull`, or modelPath, adds one).
# CONTEXT_LS_INSTALL_FROM=archive|release|source picks one of them alone.
# Every archive's files are checked against its SHA256SUMS. The new server
# replaces the old one only once it is complete and runs (`context-ls
# version`): a failed step leaves what was there. CONTEXT_LS_SERVER_DIR
# installs elsewhere (the tests do).
set -eu

say() { echo "context-ls build: $*"; }
die() {
	echo "context-ls build: $*" >&2
	exit 1
}

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
dest=${CONTEXT_LS_SERVER_DIR:-$here/server}
from=${CONTEXT_LS_INSTALL_FROM:-}
releases=https://github.com/context-ls/context-ls/releases

case "$(uname -s)/$(uname -m)" in
Linux/x86_64) platform=linux-x64 ;;
Linux/aarch64 | Linux/arm64) platform=linux-arm64 ;;
Darwin/arm64) platform=darwin-arm64 ;;
Darwin/x86_64) platform=darwin-x64 ;;
*) platform="" ;;
esac

sha256_check() { # sha256_check DIR SUMS_FILE: every listed file matches
	if command -v sha256sum >/dev/null 2>&1; then
		(cd "$1" && sha256sum -c --quiet "$2")
	else
		(cd "$1" && shasum -a 256 -c --quiet "$2")
	fi
}

# Staged beside the destination, so the last step is a rename.
mkdir -p "$(dirname "$dest")"
work=$(mktemp -d "$(dirname "$dest")/.context-ls-build.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
stage=$work/server

# unpack ARCHIVE: the archive's one directory becomes $stage, its files
# checked against the SHA256SUMS it carries.
unpack() {
	mkdir -p "$work/unpack"
	tar -xzf "$1" -C "$work/unpack" || die "cannot unpack $1"
	top=$(ls "$work/unpack")
	[ "$(echo "$top" | wc -l)" -eq 1 ] && [ -f "$work/unpack/$top/bin/context-ls" ] ||
		die "$1 is not a context-ls release archive (want one directory holding bin/context-ls)"
	[ -f "$work/unpack/$top/SHA256SUMS" ] || die "$1 carries no SHA256SUMS"
	sha256_check "$work/unpack/$top" SHA256SUMS || die "$1: files do not match its SHA256SUMS"
	mv "$work/unpack/$top" "$stage"
}

fetch() { # fetch URL FILE
	if command -v curl >/dev/null 2>&1; then
		curl -fsSL --retry 2 -o "$2" "$1"
	elif command -v wget >/dev/null 2>&1; then
		wget -q -O "$2" "$1"
	else
		return 1
	fi
}

from_archive() {
	a=$CONTEXT_LS_ARCHIVE
	case "$a" in
	http://* | https://*)
		fetch "$a" "$work/archive.tar.gz" || return 1
		a=$work/archive.tar.gz
		;;
	esac
	[ -f "$a" ] || die "CONTEXT_LS_ARCHIVE=$a: no such file"
	unpack "$a"
	say "server from $CONTEXT_LS_ARCHIVE"
}

from_release() {
	[ -n "$platform" ] || return 1
	tag=$(git -C "$repo" describe --tags --exact-match 2>/dev/null || true)
	if [ -n "$tag" ]; then base=$releases/download/$tag; else base=$releases/latest/download; fi
	name=context-ls-$platform.tar.gz
	say "downloading $base/$name"
	fetch "$base/$name" "$work/$name" && fetch "$base/SHA256SUMS" "$work/SHA256SUMS" || return 1
	grep "  $name\$" "$work/SHA256SUMS" >"$work/sum" || die "the release's SHA256SUMS does not list $name"
	sha256_check "$work" sum || die "$name does not match the release's SHA256SUMS"
	unpack "$work/$name"
	say "server from $base/$name"
}

from_source() {
	[ -f "$repo/go.mod" ] || die "no source checkout at $repo to build from"
	command -v go >/dev/null 2>&1 || return 1
	say "building from source in $repo (Go with cgo; a first build takes minutes)"
	mkdir -p "$stage/bin"
	(cd "$repo" && CGO_ENABLED=1 go build -o "$stage/bin/context-ls" ./cmd/context-ls) || die "go build failed"
	if command -v npm >/dev/null 2>&1; then
		"$repo/scripts/fetch-ort.sh" "$stage/lib" || say "no ONNX Runtime (fetch-ort.sh failed): search runs without embeddings"
	else
		say "npm is not installed: no ONNX Runtime, search runs without embeddings (context-ls doctor says what to add)"
	fi
	say "server built from source"
}

case "$from" in
archive) [ -n "${CONTEXT_LS_ARCHIVE:-}" ] || die "CONTEXT_LS_INSTALL_FROM=archive needs CONTEXT_LS_ARCHIVE"
	from_archive || die "could not fetch $CONTEXT_LS_ARCHIVE" ;;
release) from_release || die "could not download the release archive for ${platform:-this platform}" ;;
source) from_source || die "Go is not installed: cannot build from source" ;;
"")
	if [ -n "${CONTEXT_LS_ARCHIVE:-}" ]; then
		from_archive || die "could not fetch $CONTEXT_LS_ARCHIVE"
	elif ! from_release; then
		rm -rf "$stage" "$work/unpack"
		say "no release archive for ${platform:-$(uname -s)/$(uname -m)} could be downloaded; building from source"
		from_source || die "neither a release archive nor Go: install one of them, or set CONTEXT_LS_ARCHIVE to a downloaded archive"
	fi
	;;
*) die "CONTEXT_LS_INSTALL_FROM=$from: want archive, release or source" ;;
esac

"$stage/bin/context-ls" version >/dev/null 2>&1 || die "the new server does not run on this machine ($stage/bin/context-ls version failed); the old one is kept"
rm -rf "$dest.old"
if [ -e "$dest" ]; then mv "$dest" "$dest.old"; fi
mv "$stage" "$dest" || {
	[ -e "$dest.old" ] && mv "$dest.old" "$dest"
	die "could not move the server into $dest"
}
rm -rf "$dest.old"
say "installed $("$dest/bin/context-ls" version) in $dest"
