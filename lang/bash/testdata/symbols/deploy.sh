#!/usr/bin/env bash
# deploy.sh - a fixture for Bash symbol extraction.
set -euo pipefail

readonly APP_NAME="context-ls"
declare -r MAX_RETRIES=3
export DEPLOY_ENV="${DEPLOY_ENV:-staging}"
TARGET_DIR=/opt/app
TARGET_DIR=/srv/app
declare -a HOSTS=(web1 web2)

# Prints a message with a timestamp.
# Usage: log MESSAGE...
log() {
  printf '%s %s\n' "$(date +%T)" "$*" >&2
}

# Retries a command up to MAX_RETRIES times.
function retry {
  local n=0
  until "$@"; do
    n=$((n + 1))
    if ((n >= MAX_RETRIES)); then
      return 1
    fi
    sleep "$n"
  done
}

function _cleanup() {
  rm -rf "${TMP_DIR:-}"
}

deploy_host() {
  local host=$1
  retry ssh "$host" "systemctl restart ${APP_NAME}"
}

main() {
  trap _cleanup EXIT
  for h in "${HOSTS[@]}"; do
    deploy_host "$h"
  done
  log "deployed to ${#HOSTS[@]} hosts"
}

main "$@"
