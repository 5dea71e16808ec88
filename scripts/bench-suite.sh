#!/usr/bin/env bash
# The standard switchyard-bench suite (docs/benchmark.md): each scenario against a freshly started
# local daemon, its table on stdout, its JSON report and SVG timeline in the results directory.
# Usage: scripts/bench-suite.sh <directory with switchyard and switchyard-bench> [results directory]
set -euo pipefail

bin="${1:?usage: $0 <bin directory> [results directory]}"
results="${2:-bench-results}"
mkdir -p "$results"
bench="$bin/switchyard-bench"

run() {
    local name="$1"
    shift
    echo
    echo "== switchyard-bench $name $*"
    "$bench" "$@" --json "$results/$name.json" --svg "$results/$name.svg"
}

run fanout-1000 fanout --clients 1000 --duration 10 --decoders 2
run join join --joins 15
run fallback fallback
run bandwidth bandwidth
# The same schedules through a real kernel queue, daemon and clients in network namespaces
# (docs/benchmark.md, "Kernel-shaped networks"): they need root.
if [ "$(id -u)" = 0 ]; then
    run fallback-kernel fallback --network kernel
    run bandwidth-kernel bandwidth --network kernel
    run fallback-simulcast-kernel fallback --simulcast --network kernel
    run red-kernel red --network kernel
else
    echo "(fallback, bandwidth and red with --network kernel left out: they make network namespaces, which needs root)"
fi
run red red
run red-2 red --red-frames 2
run fallback-simulcast fallback --simulcast
run room room --clients 6
run audio-only audio-only --clients 200
run soak soak --clients 100 --duration 60
run speakers speakers
run webhooks webhooks
run webhooks-silent webhooks --receiver silent --duration 30
run archive archive
# 15,000 viewers need 15,000 descriptors in the bench and in the daemon it starts.
if ulimit -n 20000 2>/dev/null; then
    run broadcast broadcast --clients 15000 --churn-rate 500 --publishers 2 --media-viewers 10
else
    echo "(broadcast at 1,000 viewers: ulimit -n 20000 was refused, and 15,000 need it)"
    run broadcast broadcast --clients 1000 --publishers 2 --media-viewers 10
fi
"$(dirname "$0")/bench-cluster.sh" "$bin" "$results"
# As root, with the cap fault (a subscriber's downlink capped at 100 kbps by the kernel, in the
# script's own network namespace); unless CHAOS_CAP_KBPS says otherwise (empty: none).
if [ "$(id -u)" -eq 0 ]; then export CHAOS_CAP_KBPS="${CHAOS_CAP_KBPS-100}"; fi
"$(dirname "$0")/bench-chaos.sh" "$bin" "$results" --duration 600
echo
echo "== webrtc-join (aiortc publisher and subscribers)"
python3 "$(dirname "$0")/webrtc-join.py" --bin "$bin" --joins 15 --json "$results/webrtc-join.json"
echo
echo "== reachability (Chromium over UDP, ICE-TCP and TURN/TLS on 443, in a network namespace)"
python3 "$(dirname "$0")/reachability.py" --bin "$bin" --runs 5 --json "$results/reachability.json"
echo
echo "Reports: $results/*.json, timelines: $results/*.svg"
