prepare() { mkdir -p "$1"; }
helper() { :; }
