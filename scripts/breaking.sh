#!/usr/bin/env bash
# buf breaking (WIRE_JSON) against the last landed main: origin/main when this clone has it and it differs from
# HEAD, else the newest commit before this change set that already had protos (GLOVEBOX_BREAKING_BASE overrides).
set -euo pipefail
cd "$(dirname "$0")/.."
base="${GLOVEBOX_BREAKING_BASE:-}"
if [ -z "$base" ] && git rev-parse -q --verify origin/main >/dev/null && [ "$(git rev-parse origin/main)" != "$(git rev-parse HEAD)" ]; then
  base=origin/main
fi
if [ -z "$base" ]; then
  base=$(git rev-list -n 1 HEAD~1 -- proto/glovebox 2>/dev/null || true)
fi
if [ -z "$base" ] || [ -z "$(git ls-tree -r --name-only "$base" -- proto/glovebox 2>/dev/null | grep '\.proto$' || true)" ]; then
  echo "no earlier commit with protos: nothing to compare"
  exit 0
fi
echo "against $base ($(git rev-parse --short "$base"))"
buf breaking --against ".git#ref=$(git rev-parse "$base"),subdir=proto"
