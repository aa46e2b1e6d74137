#!/bin/sh
# install-neovim.sh DEST — newer Neovims for the plugin tests, beside
# Debian's 0.7.2: the neovim package of Debian trixie (0.10) and of sid (the
# newest release), from Debian's archive like any package, each unpacked
# with the libraries it needs (its C library included) into DEST/SUITE.
# Nothing is installed into the system: the binary is patched (patchelf) to
# load that C library and those libraries, so that Neovim runs on bookworm,
# and the processes it starts (the server) use the system's as usual.
# DEST/SUITE/bin/nvim is what tests/run.sh looks for. An installed suite is
# kept; remove DEST/SUITE to fetch it again. Off Debian, or when the archive
# cannot be reached, it says so and exits 0: the tests then run on the
# Neovim on PATH only.
set -eu

dest=${1:?usage: install-neovim.sh DEST}
suites=${CONTEXT_LS_NVIM_SUITES:-trixie sid}
mirror=${CONTEXT_LS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
arch=amd64

if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1; then
	echo "install-neovim: not a Debian system; the plugin tests run on the Neovim on PATH only"
	exit 0
fi
if [ "$(dpkg --print-architecture)" != "$arch" ]; then
	echo "install-neovim: only $arch is handled; the plugin tests run on the Neovim on PATH only"
	exit 0
fi
if ! command -v patchelf >/dev/null 2>&1; then
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		sudo="sudo"
	fi
	echo "install-neovim: installing patchelf"
	$sudo apt-get install -y -qq --no-install-recommends patchelf >/dev/null || {
		echo "install-neovim: patchelf could not be installed; the plugin tests run on the Neovim on PATH only"
		exit 0
	}
fi

mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

# deps SUITE PKG... prints the packages PKG depends on (first alternative,
# libraries and Lua modules only), one a line.
deps() {
	suite=$1
	shift
	for p in "$@"; do
		apt-cache $apt show "$p/$suite" 2>/dev/null | sed -n 's/^\(Pre-\)\{0,1\}Depends: //p' | head -n 1 | tr ',' '\n' |
			sed 's/|.*//; s/(.*)//; s/:any//; s/ //g' | grep -E '^(lib|lua-)' || true
	done
}

for suite in $suites; do
	root="$dest/$suite"
	if [ -x "$root/bin/nvim" ] && "$root/bin/nvim" --version >/dev/null 2>&1; then
		echo "install-neovim: $("$root/bin/nvim" --version | head -n 1) present ($root)"
		continue
	fi
	work=$(mktemp -d "${TMPDIR:-/tmp}/install-neovim.XXXXXX")
	mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
	echo "deb $mirror $suite main" >"$work/sources.list"
	apt="-o Dir::Etc::SourceList=$work/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$work/lists
		-o Dir::Cache=$work/cache -o APT::Architecture=$arch -o Acquire::Languages=none
		-o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false -o Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled=false
		-o Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled=false -o Acquire::IndexTargets::deb::CNF::DefaultEnabled=false"
	# shellcheck disable=SC2086
	if ! apt-get $apt update -qq >"$work/update.log" 2>&1; then
		echo "install-neovim: Debian $suite cannot be reached ($(tail -n 1 "$work/update.log")); skipped"
		rm -rf "$work"
		continue
	fi
	# the package, its runtime and the closure of its library dependencies
	want="neovim neovim-runtime"
	next=$(deps "$suite" neovim)
	while [ -n "$next" ]; do
		new=""
		for p in $next; do
			case " $want " in *" $p "*) ;; *) want="$want $p" new="$new $p" ;; esac
		done
		# shellcheck disable=SC2086
		next=$(deps "$suite" $new)
	done
	pkgs=""
	for p in $want; do
		pkgs="$pkgs $p/$suite"
	done
	echo "install-neovim: Debian $suite:$pkgs"
	# shellcheck disable=SC2086
	if ! (cd "$work/debs" && apt-get $apt download $pkgs >"$work/download.log" 2>&1); then
		echo "install-neovim: download from Debian $suite failed: $(tail -n 3 "$work/download.log")" >&2
		rm -rf "$work"
		exit 1
	fi
	rm -rf "$root.new"
	mkdir -p "$root.new/bin"
	for deb in "$work"/debs/*.deb; do
		dpkg-deb -x "$deb" "$root.new"
	done
	lib="$root/usr/lib/x86_64-linux-gnu"
	patchelf --set-interpreter "$root/usr/lib64/ld-linux-x86-64.so.2" --force-rpath --set-rpath "$lib" "$root.new/usr/bin/nvim"
	cat >"$root.new/bin/nvim" <<EOF
#!/bin/sh
# Neovim from Debian $suite, unpacked by install-neovim.sh
VIMRUNTIME="$root/usr/share/nvim/runtime" exec "$root/usr/bin/nvim" "\$@"
EOF
	chmod +x "$root.new/bin/nvim"
	rm -rf "$root"
	mv "$root.new" "$root"
	rm -rf "$work"
	if ! "$root/bin/nvim" --headless -u NONE -c 'qall!' >/dev/null 2>&1; then
		echo "install-neovim: the Neovim of Debian $suite does not start here; removed" >&2
		rm -rf "$root"
		exit 1
	fi
	echo "install-neovim: $("$root/bin/nvim" --version | head -n 1) installed ($root)"
done
