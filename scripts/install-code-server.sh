#!/usr/bin/env bash
# install-code-server.sh — a real VS Code for the extension's end-to-end test
# (editors/vscode/test/e2e): code-server 4.100.3 (VS Code 1.100, the newest
# release that runs on Node 20) from the npm registry, checked against a
# pinned sha256, plus Debian's chromium to drive it and ripgrep for its
# search. VS Code's own downloads are not reachable from these machines, and
# `npm install code-server` fails (its postinstall downloads ripgrep), so the
# package is unpacked and its dependencies installed without scripts; the
# native modules code-server and VS Code load at start (argon2, spdlog,
# native-watchdog) are then built from source. node-pty (the integrated
# terminal, which the test does not use) is left out.
#
# The result goes to $CONTEXT_LS_CODE_SERVER (default
# ~/.cache/context-ls/code-server-4.100.3); a second run finds it complete and
# returns at once. Installs the Debian packages it needs when they are
# missing (sudo when not root).
set -euo pipefail

VERSION=4.100.3
SHA256=a85138ac3a382a9ba1df652a751901ec598fed24f673b8a8653de7be8335bfaa
DEST=${CONTEXT_LS_CODE_SERVER:-${XDG_CACHE_HOME:-$HOME/.cache}/context-ls/code-server-$VERSION}
MARK="$DEST/.context-ls-installed"

say() { echo "install-code-server: $*"; }

if [ -f "$MARK" ] && [ "$(cat "$MARK")" = "$VERSION $SHA256" ]; then
	say "present: $DEST"
	exit 0
fi

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo none)
if [ "$node_major" != 20 ]; then
	say "code-server $VERSION needs Node 20 (found: $node_major)" >&2
	exit 1
fi

# Debian packages: chromium (the browser the test drives), ripgrep (VS Code's
# search), and what node-gyp needs to build the native modules.
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v rg >/dev/null 2>&1 || need+=(ripgrep)
command -v g++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1 || need+=(build-essential)
command -v python3 >/dev/null 2>&1 || need+=(python3)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
if [ ${#need[@]} -gt 0 ]; then
	if ! command -v apt-get >/dev/null 2>&1; then
		say "not a Debian system; please install: ${need[*]}" >&2
		exit 1
	fi
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	say "installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
	$sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${need[@]}"
fi

# node-gyp builds against the installed Node's headers: it cannot download
# them here.
if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node.h ]; then
	export npm_config_nodedir=/usr
fi

mkdir -p "$(dirname "$DEST")"
work=$(mktemp -d "$DEST.tmp.XXXXXX")
trap 'rm -rf "$work"' EXIT

say "fetching code-server@$VERSION"
(cd "$work" && npm pack "code-server@$VERSION" --silent >/dev/null)
tarball="$work/code-server-$VERSION.tgz"
got=$(sha256sum "$tarball" | cut -d' ' -f1)
if [ "$got" != "$SHA256" ]; then
	say "sha256 mismatch for code-server-$VERSION.tgz: got $got, want $SHA256" >&2
	exit 1
fi
tar -xzf "$tarball" -C "$work"
pkg="$work/package"

npmi() { npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error; }

say "installing code-server's dependencies"
(cd "$pkg" && npmi && npm_config_build_from_source=true npm rebuild argon2 --loglevel=error)
say "installing VS Code's dependencies"
(cd "$pkg/lib/vscode" && npmi && npm rebuild @vscode/spdlog native-watchdog --loglevel=error)
(cd "$pkg/lib/vscode/extensions" && npmi)
# What code-server's postinstall would do: VS Code looks for its modules in
# node_modules.asar, and for ripgrep inside @vscode/ripgrep.
ln -sfn node_modules "$pkg/lib/vscode/node_modules.asar"
mkdir -p "$pkg/lib/vscode/node_modules/@vscode/ripgrep/bin"
ln -sf "$(command -v rg)" "$pkg/lib/vscode/node_modules/@vscode/ripgrep/bin/rg"

# The modules it cannot start without must load.
(cd "$pkg" && node -e 'require("argon2")')
(cd "$pkg/lib/vscode" && node -e 'require("@vscode/spdlog")')
node "$pkg/out/node/entry.js" --version >/dev/null

rm -rf "$DEST"
mv "$pkg" "$DEST"
echo "$VERSION $SHA256" >"$MARK"
say "installed: $DEST"
