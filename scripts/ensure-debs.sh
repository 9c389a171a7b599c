#!/usr/bin/env bash
# Installs the Debian packages that tests need when they are missing (CI runs as root on a fresh machine).
# Usage: scripts/ensure-debs.sh <command>=<package> ...   e.g. chromium=chromium zsh=zsh ip=iproute2
# Prints nothing when every command is present. Serialised with a lock: dpkg allows one installer at a time.
set -euo pipefail
missing=()
for pair in "$@"; do
  cmd="${pair%%=*}"; pkg="${pair#*=}"
  command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then echo "ensure-debs: need root to install ${missing[*]}" >&2; exit 1; fi
exec 9>/tmp/tsipfs-ensure-debs.lock
flock 9
still=()
for pair in "$@"; do
  cmd="${pair%%=*}"; pkg="${pair#*=}"
  command -v "$cmd" >/dev/null 2>&1 || still+=("$pkg")
done
[ ${#still[@]} -eq 0 ] && exit 0
echo "ensure-debs: installing ${still[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
stamp=/tmp/tsipfs-apt-updated
if [ ! -e "$stamp" ] || [ -n "$(find "$stamp" -mmin +360)" ]; then apt-get update -qq >&2 && touch "$stamp"; fi
apt-get install -y -qq --no-install-recommends "${still[@]}" >&2
