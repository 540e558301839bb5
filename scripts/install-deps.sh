#!/usr/bin/env bash
# Installs what building and testing Glovebox needs: Debian packages (only those missing) and the Go tools
# at pinned versions into ./bin. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/versions.sh

missing=()
for p in $DEBIAN_PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing Debian packages: ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

export GOBIN="$PWD/bin"
mkdir -p "$GOBIN"
want() { # want NAME VERSION-MARKER: true when bin/NAME is missing or was built for another version
  [ ! -x "$GOBIN/$1" ] || [ "$(cat "$GOBIN/.$1.version" 2>/dev/null)" != "$2" ]
}
install_tool() { # install_tool NAME PACKAGE VERSION
  if want "$1" "$3"; then
    echo "installing $2@$3"
    (cd /tmp && GOFLAGS=-mod=mod GOWORK=off go install "$2@$3")
    echo "$3" > "$GOBIN/.$1.version"
  fi
}
install_tool buf github.com/bufbuild/buf/cmd/buf "$BUF_VERSION"
install_tool protoc-gen-go google.golang.org/protobuf/cmd/protoc-gen-go "$PROTOC_GEN_GO_VERSION"
install_tool protoc-gen-go-grpc google.golang.org/grpc/cmd/protoc-gen-go-grpc "$PROTOC_GEN_GO_GRPC_VERSION"
install_tool grpcurl github.com/fullstorydev/grpcurl/cmd/grpcurl "$GRPCURL_VERSION"

# npm: Debian's nodejs comes without npm (a nodejs from elsewhere usually bundles it).
if ! command -v npm >/dev/null; then
  sudo_cmd=""; [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends npm >/dev/null
fi
for d in $NPM_DIRS; do
  if [ ! -f "$d/node_modules/.package-lock.json" ] || ! cmp -s "$d/package-lock.json" "$d/.installed-lock.json"; then
    echo "npm ci in $d"
    (cd "$d" && npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json .installed-lock.json)
  fi
done
