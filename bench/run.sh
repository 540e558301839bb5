#!/usr/bin/env bash
# Side-by-side benchmarks: Glovebox through gRPC and the peer tool (scrot, xdotool, xclip, pyatspi, playwright-core)
# in one run, on the same 1280x800 Xvfb desktop, then the ratio peer/glovebox for each pair. Sub-benchmarks are
# named <Name>/glovebox-<case> and <Name>/<peer>-<case>; the pair shares <Name> and <case>. Broker overhead pairs
# are <Name>/direct-<case> and <Name>/broker-<case>; MCP overhead pairs <Name>/grpc-<case> and <Name>/mcp-<case>.
# playwright-core is looked up in $PLAYWRIGHT_DIR (default bench/out/playwright: npm install --prefix
# bench/out/playwright playwright-core); puppeteer-core, pinned by bench/puppeteer/package-lock.json, is installed
# into bench/puppeteer by npm ci when npm is there.
# Usage: bench/run.sh [go test -bench regexp] (default: all). BENCHTIME overrides -benchtime (default 2s).
# GLOVEBOX_MCP_BASELINE=path/to/glovebox (a build of another commit) adds tests/mcp's vs-baseline- benchmarks: MCP
# calls alternate between this build and that one, reporting p50-ms and baseline-p50-ms side by side.
# GLOVEBOX_AGENT_BASELINE=path/to/glovebox-agent does the same for the agent (tests/mcp's vs-baseline-agent-).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/bin:$PATH"
out_dir=bench/out; mkdir -p "$out_dir"
if command -v npm >/dev/null && [ ! -d bench/puppeteer/node_modules/puppeteer-core ]; then
  npm ci --prefix bench/puppeteer --ignore-scripts --no-audit --no-fund >/dev/null
fi
out="$out_dir/bench-$(date +%Y%m%d-%H%M%S).txt"
# One package a line, so additions merge cleanly.
pkgs=(
  ./guest/internal/server/
  ./guest/internal/encode/
  ./guest/internal/x11/...
  ./guest/internal/clipboard/
  ./guest/internal/atspi/
  ./host/internal/audit/
  ./host/internal/broker/
  ./tests/broker/
  ./tests/console/
  ./tests/mcp/
)
go test -run '^$' -bench "${1:-.}" -benchtime "${BENCHTIME:-2s}" -count 1 -timeout 30m "${pkgs[@]}" 2>&1 | tee "$out"

echo
echo "== ratios (peer time / glovebox time; higher is better for glovebox), of the means and of the medians"
awk '
  /^Benchmark/ {
    name=$1; sub(/-[0-9]+$/, "", name)              # strip GOMAXPROCS suffix
    ns=""; p50=""
    for (i=2; i<=NF; i++) { if ($(i+1)=="ns/op") ns=$i; if ($(i+1)=="p50-ms") p50=$i }
    if (ns=="") next
    n=split(name, parts, "/"); if (n<2) next
    sub_=parts[n]; base=substr(name, 1, length(name)-length(sub_)-1)
    dash=index(sub_, "-"); if (dash==0) next
    who=substr(sub_, 1, dash-1); cse=substr(sub_, dash+1)
    key=base "/" cse
    if (who=="direct") { direct[key]=ns; directp50[key]=p50; next }
    if (who=="broker") { viabroker[key]=ns; brokerp50[key]=p50; next }
    if (who=="grpc") { grpcp50[key]=p50; next }
    if (who=="mcp") { mcpp50[key]=p50; next }
    if (who=="glovebox") { ours[key]=ns; ourp50[key]=p50 } else { peer[key]=ns; peername[key]=who; peerp50[key]=p50 }
  }
  END {
    for (k in ours) if (k in peer) {
      p50r=""
      if (ourp50[k]!="" && peerp50[k]!="" && ourp50[k]>0) p50r=sprintf("  p50 %.3f vs %.3f ms, ratio %.1fx", ourp50[k], peerp50[k], peerp50[k]/ourp50[k])
      printf "%-50s mean glovebox %9.3f ms  %-8s %9.3f ms  ratio %6.1fx%s\n", k, ours[k]/1e6, peername[k], peer[k]/1e6, peer[k]/ours[k], p50r
    }
    for (k in ours) if (!(k in peer)) printf "%-40s glovebox %9.3f ms%s\n", k, ours[k]/1e6, (ourp50[k]!="" ? "  (p50 " ourp50[k] " ms)" : "")
    for (k in viabroker) if (k in direct) {
      if (brokerp50[k]!="" && directp50[k]!="") printf "%-40s broker adds %6.3f ms p50 (direct %6.3f, through the broker %6.3f)\n", k, brokerp50[k]-directp50[k], directp50[k], brokerp50[k]
      else printf "%-40s broker adds %6.3f ms mean\n", k, (viabroker[k]-direct[k])/1e6
    }
    for (k in mcpp50) if (k in grpcp50) printf "%-40s MCP adds %6.3f ms p50 (gRPC %6.3f, MCP stdio %6.3f)\n", k, mcpp50[k]-grpcp50[k], grpcp50[k], mcpp50[k]
  }' "$out" | sort
echo "(raw output: $out)"
