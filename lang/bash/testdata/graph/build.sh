#!/bin/bash
source ./lib.sh
. "$DIR/util.sh"

build() {
	prepare "$1"
	echo "building"
	helper
}

main() { build all; }
