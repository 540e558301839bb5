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

step "go test"
go test -count=1 -timeout 30m "${modules[@]}"
