#!/usr/bin/env bash
# Rewrites packages.txt with the bookworm candidate version of every package it names (run on a Debian 12
# host with bookworm, bookworm-updates and bookworm-security in its apt sources, after apt-get update).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp)
grep '^#' "$here/packages.txt" > "$tmp"
for p in $(grep -v '^#' "$here/packages.txt" | cut -d= -f1); do
	v=$(apt-cache policy "$p" | awk '/Candidate:/{print $2}')
	[[ -n $v && $v != "(none)" ]] || { echo "pin.sh: no candidate for $p" >&2; exit 1; }
	echo "$p=$v" >> "$tmp"
done
mv "$tmp" "$here/packages.txt"
echo "pin.sh: $here/packages.txt"
