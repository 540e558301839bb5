#!/usr/bin/env bash
# Runs Glovebox on a local desktop, the embedded default: glovebox-agent on the current $DISPLAY (or, when there is
# none or GLOVEBOX_XVFB=1, a fresh Xvfb 1280x800 with openbox and an xterm), and glovebox-broker in front of it with
# one guest ("local") and you (your uid) as an admin principal. Everything lives in one private run directory.
set -euo pipefail
cd "$(dirname "$0")/.."
run_dir="${GLOVEBOX_RUN_DIR:-${XDG_RUNTIME_DIR:-/tmp}/glovebox-$(id -u)}"
mkdir -p "$run_dir/audit" && chmod 700 "$run_dir" "$run_dir/audit"
agent_sock="$run_dir/agent.sock"
broker_sock="$run_dir/broker.sock"
agent_tcp="${GLOVEBOX_TCP:-127.0.0.1:7005}"
console_addr="${GLOVEBOX_CONSOLE:-127.0.0.1:7080}"
pids=()
cleanup() { for ((i=${#pids[@]}-1; i>=0; i--)); do kill "${pids[$i]}" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

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

bin/glovebox-agent -listen "unix://$agent_sock" -listen "tcp://$agent_tcp" 2>>"$run_dir/agent.log" &
pids+=($!)

cat > "$run_dir/broker.json" <<JSON
{
  "listen": ["unix://$broker_sock"],
  "audit": {"dir": "$run_dir/audit"},
  "principals": [{"name": "$(id -un)", "uids": [$(id -u)], "guests": ["*"], "control": true, "admin": true, "audit": true}],
  "guests": [{"name": "local", "endpoint": "unix://$agent_sock"}],
  "console": {"listen": "$console_addr"}
}
JSON
bin/glovebox-broker -config "$run_dir/broker.json" 2>>"$run_dir/broker.log" &
pids+=($!)
for _ in $(seq 100); do [ -S "$broker_sock" ] && break; sleep 0.1; done

cat <<EOT
Glovebox is running on DISPLAY=$DISPLAY (logs: $run_dir/{agent,broker}.log, audit: $run_dir/audit)
  broker: unix://$broker_sock   (guest "local")
  console: http://$console_addr  (open a link: bin/glovebox view local -control, with GLOVEBOX_BROKER below)
  agent:  unix://$agent_sock and tcp://$agent_tcp
Try:
  export PATH=\$PWD/bin:\$PATH GLOVEBOX_BROKER=unix://$broker_sock
  export GLOVEBOX_SESSION=\$(glovebox sessions create local)
  glovebox screenshot -o shot.png
  glovebox act type 'hello from glovebox'
  glovebox act key ctrl+a
  glovebox audit tail -guest local -n 5
  glovebox view local -control        # prints a one-time link to the live view and takeover console
  grpcurl -plaintext $agent_tcp list
Ctrl-C stops everything.
EOT
wait -n "${pids[@]}"
