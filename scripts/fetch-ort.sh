#!/usr/bin/env bash
# fetch-ort.sh [--platform PLATFORM] [DEST_DIR] — install the ONNX Runtime
# shared library that the vectors package loads at run time
# (github.com/yalue/onnxruntime_go needs ONNX Runtime >= 1.24.1).
#
# The library comes from the npm package onnxruntime-node@1.24.1, which
# carries it for several platforms: the tarball is fetched with `npm pack`
# (no install scripts run), only the platform's library is extracted, its
# sha256 is checked against the pinned value below, and it is moved into
# place atomically under the name the binary looks for. Running the script
# again when a valid copy is present does nothing.
#
# PLATFORM is one of linux-x64, linux-arm64, darwin-arm64, windows-x64
# (default: this machine's). onnxruntime-node@1.24.1 carries no library for
# darwin-x64. DEST_DIR defaults to
# ${XDG_CACHE_HOME:-$HOME/.cache}/context-ls/onnxruntime/1.24.1, the last
# place vectors.FindRuntime looks; make dist passes an archive's lib/.
set -euo pipefail

ORT_VERSION=1.24.1
die() {
	echo "fetch-ort: $*" >&2
	exit 1
}

host_platform() {
	case "$(uname -s)/$(uname -m)" in
	Linux/x86_64) echo linux-x64 ;;
	Linux/aarch64 | Linux/arm64) echo linux-arm64 ;;
	Darwin/arm64) echo darwin-arm64 ;;
	Darwin/x86_64) echo darwin-x64 ;;
	MINGW*/x86_64 | MSYS*/x86_64 | CYGWIN*/x86_64) echo windows-x64 ;;
	*) echo "$(uname -s)/$(uname -m)" ;;
	esac
}

PLATFORM=$(host_platform)
if [ "${1:-}" = "--platform" ]; then
	[ $# -ge 2 ] || die "--platform needs a value"
	PLATFORM=$2
	shift 2
fi

# Per platform: the tarball member, its sha256 (pinned from
# onnxruntime-node-1.24.1.tgz) and the name it is installed under (one of
# the names vectors looks for in a directory).
case "$PLATFORM" in
linux-x64)
	ORT_MEMBER=package/bin/napi-v6/linux/x64/libonnxruntime.so.1
	ORT_SHA256=53ef1ac028dd1b05554b8da28d9159eb3876f99868193d2aaa6e67f0243c23d4 # 35,057,880 bytes
	ORT_LIB=libonnxruntime.so.1
	;;
linux-arm64)
	ORT_MEMBER=package/bin/napi-v6/linux/arm64/libonnxruntime.so.1
	ORT_SHA256=7954e8bdedb497f830c6a679e818d98399b7f4d81ade1126c3e0be74d28111ab # 18,559,840 bytes
	ORT_LIB=libonnxruntime.so.1
	;;
darwin-arm64)
	ORT_MEMBER=package/bin/napi-v6/darwin/arm64/libonnxruntime.$ORT_VERSION.dylib
	ORT_SHA256=7ad6507ad64d3b02aebfae6380c024ff188939cd8a7a493ec18028e034c8275c # 35,880,440 bytes
	ORT_LIB=libonnxruntime.dylib
	;;
windows-x64)
	ORT_MEMBER=package/bin/napi-v6/win32/x64/onnxruntime.dll
	ORT_SHA256=be46630a10f6ed3897fd9d1ec83f6e2577e34851fb1024d685884ed40faed3a7 # 23,781,408 bytes
	ORT_LIB=onnxruntime.dll
	;;
*) die "no ONNX Runtime $ORT_VERSION library for platform $PLATFORM in onnxruntime-node@$ORT_VERSION (it carries linux-x64, linux-arm64, darwin-arm64, windows-x64); install ONNX Runtime >= $ORT_VERSION yourself and set CONTEXT_LS_ORT_LIB to the library's path" ;;
esac

DEST_DIR=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/context-ls/onnxruntime/$ORT_VERSION}
DEST=$DEST_DIR/$ORT_LIB

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
