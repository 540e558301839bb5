#!/usr/bin/env bash
# The test command (README: `make test`): API checks, formatting, vet, a pure-Go build, and every module's
# tests. Real-component tests skip when a component is missing, unless GLOVEBOX_REQUIRE_ALL=1 (CI sets it).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/bin:$PATH"
modules=(./proto/... ./shared/... ./guest/... ./host/... ./tests/...)

step() { printf '\n== %s\n' "$*"; }

step "proto: format, lint, generated code is fresh"
buf format --diff --exit-code
buf lint
buf generate
if [ -n "$(git status --porcelain -- proto)" ]; then
  git status --porcelain -- proto
  echo "generated code is stale or .proto files are unformatted: run 'make proto' and commit" >&2
  exit 1
fi

step "proto: breaking changes (WIRE_JSON)"
scripts/breaking.sh

step "gofmt and go vet"
bad=$(git ls-files '*.go' | grep -v '\.pb\.go$' | xargs gofmt -l)
if [ -n "$bad" ]; then echo "gofmt needed:"; echo "$bad"; exit 1; fi
go vet "${modules[@]}"

step "pure-Go build (CGO_ENABLED=0)"
CGO_ENABLED=0 go build -o /dev/null ./guest/cmd/glovebox-agent

step "go test (everything but the QEMU stage)"
mapfile -t pkgs < <(go list "${modules[@]}" | grep -v '^glovebox.dev/tests/vm$')
go test -count=1 -timeout 30m "${pkgs[@]}"

step "QEMU stage: the agent in a TCG guest over virtio-serial, driven through the broker"
vm_start=$(date +%s)
# -v so the test's timing lines (vm: boot-to-ready, first screenshot, restarts) reach the log.
go test -count=1 -v -timeout 20m ./tests/vm 2>&1 | awk '/^(=== RUN|--- |PASS|FAIL|ok|panic)/ || /vm: / || /_test\.go:[0-9]+:/ { print; fflush() }'
echo "QEMU stage wall time: $(( $(date +%s) - vm_start ))s"
