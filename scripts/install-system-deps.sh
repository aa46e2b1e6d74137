#!/usr/bin/env bash
# install-system-deps.sh — the Debian packages `make test` needs on a fresh
# machine: neovim (the headless real-client test), tmux (the Neovim plugin
# test that reads a terminal's screen) and python3-onnx + python3-numpy
# (they generate the random-weight test model). Installs only
# what is missing; uses sudo when not root. On non-Debian systems it says
# what to install and exits 0: the tests that need these packages skip with
# a message.
set -euo pipefail

need=()
command -v nvim >/dev/null 2>&1 || need+=(neovim)
command -v tmux >/dev/null 2>&1 || need+=(tmux)
[ -x /usr/bin/python3 ] || need+=(python3)
/usr/bin/python3 -c 'import onnx' >/dev/null 2>&1 || need+=(python3-onnx)
/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || need+=(python3-numpy)

if [ ${#need[@]} -eq 0 ]; then
	echo "install-system-deps: all present"
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-system-deps: not a Debian system; please install: ${need[*]}" >&2
	exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
	sudo="sudo"
fi
echo "install-system-deps: installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
