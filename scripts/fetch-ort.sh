#!/usr/bin/env bash
# fetch-ort.sh [DEST_DIR] — install the ONNX Runtime shared library that the
# vectors package loads at run time (github.com/yalue/onnxruntime_go needs
# ONNX Runtime >= 1.24.1).
#
# The library comes from the npm package onnxruntime-node@1.24.1: the tarball
# is fetched with `npm pack` (no install scripts run), only
# package/bin/napi-v6/linux/x64/libonnxruntime.so.1 is extracted, its sha256 is
# checked against the pinned value below, and it is moved into place
# atomically. Running the script again when a valid copy is present does
# nothing.
#
# DEST_DIR defaults to ${XDG_CACHE_HOME:-$HOME/.cache}/context-ls/onnxruntime/1.24.1,
# the last place vectors.FindRuntime looks.
set -euo pipefail

ORT_VERSION=1.24.1
ORT_LIB=libonnxruntime.so.1
ORT_MEMBER=package/bin/napi-v6/linux/x64/$ORT_LIB
# sha256 of $ORT_MEMBER in onnxruntime-node-1.24.1.tgz (35,057,880 bytes).
ORT_SHA256=53ef1ac028dd1b05554b8da28d9159eb3876f99868193d2aaa6e67f0243c23d4

die() {
	echo "fetch-ort: $*" >&2
	exit 1
}

DEST_DIR=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/context-ls/onnxruntime/$ORT_VERSION}
DEST=$DEST_DIR/$ORT_LIB

case "$(uname -s)/$(uname -m)" in
Linux/x86_64) ;;
*) die "only linux/x86_64 is supported by this script (this is $(uname -s)/$(uname -m)); install ONNX Runtime >= $ORT_VERSION yourself and set CONTEXT_LS_ORT_LIB to the library's path" ;;
esac

sha256_of() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d' ' -f1
	else
		die "neither sha256sum nor shasum is installed"
	fi
}

if [ -f "$DEST" ]; then
	if [ "$(sha256_of "$DEST")" = "$ORT_SHA256" ]; then
		echo "fetch-ort: $DEST present and verified"
		exit 0
	fi
	echo "fetch-ort: $DEST has the wrong checksum; fetching it again" >&2
	rm -f "$DEST"
fi

command -v npm >/dev/null 2>&1 || die "npm is required to fetch onnxruntime-node@$ORT_VERSION"
command -v tar >/dev/null 2>&1 || die "tar is required"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/fetch-ort.XXXXXX")
PART=""
cleanup() {
	rm -rf "$WORK"
	if [ -n "$PART" ]; then rm -f "$PART"; fi
}
trap cleanup EXIT

echo "fetch-ort: npm pack onnxruntime-node@$ORT_VERSION (about 86 MB)"
(cd "$WORK" && npm pack --ignore-scripts --silent "onnxruntime-node@$ORT_VERSION" >/dev/null) ||
	die "npm pack onnxruntime-node@$ORT_VERSION failed"
TGZ=$WORK/onnxruntime-node-$ORT_VERSION.tgz
[ -f "$TGZ" ] || die "npm pack did not produce $TGZ"

tar -xzf "$TGZ" -C "$WORK" "$ORT_MEMBER" || die "$ORT_MEMBER is not in $TGZ"
GOT=$(sha256_of "$WORK/$ORT_MEMBER")
if [ "$GOT" != "$ORT_SHA256" ]; then
	rm -f "$WORK/$ORT_MEMBER"
	die "checksum mismatch for $ORT_MEMBER: got $GOT, want $ORT_SHA256 (file removed)"
fi

mkdir -p "$DEST_DIR"
PART=$(mktemp "$DEST_DIR/.$ORT_LIB.XXXXXX")
cp "$WORK/$ORT_MEMBER" "$PART"
GOT=$(sha256_of "$PART")
if [ "$GOT" != "$ORT_SHA256" ]; then
	die "checksum mismatch after copying to $DEST_DIR: got $GOT, want $ORT_SHA256 (file removed)"
fi
chmod 0644 "$PART"
mv -f "$PART" "$DEST"
PART=""
echo "fetch-ort: installed $DEST"
