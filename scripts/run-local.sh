#!/usr/bin/env bash
# Runs glovebox-agent on a local desktop: the current $DISPLAY, or (when there is none, or GLOVEBOX_XVFB=1) a
# fresh Xvfb 1280x800 with openbox and an xterm. It serves on a unix socket and on tcp://127.0.0.1:7005.
set -euo pipefail
cd "$(dirname "$0")/.."
run_dir="${XDG_RUNTIME_DIR:-/tmp}/glovebox-$(id -u)"
mkdir -p "$run_dir" && chmod 700 "$run_dir"
sock="$run_dir/agent.sock"
tcp="${GLOVEBOX_TCP:-127.0.0.1:7005}"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

if [ -z "${DISPLAY:-}" ] || [ "${GLOVEBOX_XVFB:-0}" = 1 ]; then
  : > "$run_dir/display"
  Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp +extension XTEST 3>"$run_dir/display" 2>/dev/null &
  pids+=($!)
  for _ in $(seq 100); do [ -s "$run_dir/display" ] && break; sleep 0.1; done
  n=$(tr -d '[:space:]' < "$run_dir/display")
  [ -n "$n" ] || { echo "Xvfb did not start" >&2; exit 1; }
  export DISPLAY=":$n"
  openbox --sm-disable >/dev/null 2>&1 & pids+=($!)
  sleep 0.5
  xterm -geometry 100x30+40+40 >/dev/null 2>&1 & pids+=($!)
  echo "started Xvfb on DISPLAY=$DISPLAY with openbox and an xterm"
fi

cat <<EOT
glovebox-agent on DISPLAY=$DISPLAY
  unix://$sock
  tcp://$tcp
Try:
  grpcurl -plaintext $tcp list
  grpcurl -plaintext $tcp glovebox.agent.v1.AgentService/GetInfo
  grpcurl -plaintext -d '{"action":{"type":{"text":"hello"}},"owner":"me"}' $tcp glovebox.agent.v1.ActService/Act
  grpcurl -unix -plaintext $sock glovebox.agent.v1.ObserveService/ListWindows
EOT
bin/glovebox-agent -listen "unix://$sock" -listen "tcp://$tcp" &
pids+=($!)
wait "${pids[-1]}"
