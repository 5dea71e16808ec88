#!/usr/bin/env bash
# The chaos scenario of switchyard-bench (docs/benchmark.md, "chaos"): a private PostgreSQL and three
# nodes on 127.0.0.2-4 (heartbeat 1 s, node timeout 8 s, cascading past one subscriber), then
# `switchyard-bench chaos` with every node's URL and PID and the commands that stop and start the
# database; the bench kills, drains, stops and restarts the nodes itself, and ends the processes it
# started. Every process this script started is ended by its PID on the way out, also on failure.
# Usage: scripts/bench-chaos.sh <directory with switchyard and switchyard-bench> [results directory] [bench options...]
# CHAOS_PORT (default 7911: the nodes' HTTP ports are it and the next two), CHAOS_MEDIA_PORT
# (default 46000: each node takes 400 media ports from there on; bench-cluster.sh's end at 45199) and
# CHAOS_PG_PORT (default 55449) move it off ports another run uses.
# CHAOS_WEBRTC_CLIENTS (default 2; 0 for none) aiortc subscribers (Tests/Interop/aiortc_peer.py)
# join the first sessions beside the bench's plain clients.
# CHAOS_CAP_KBPS (default unset: no cap fault) adds the cap fault: a subscriber's downlink capped
# at that many kbit/s by the kernel. It needs root: the whole run (PostgreSQL, nodes, bench) then
# goes into a network namespace of its own, whose `lo` the bench shapes by the client's UDP port,
# so a cap touches nothing outside; the namespace goes when the run ends, also on SIGINT/SIGTERM.
set -euo pipefail

if [ -n "${CHAOS_CAP_KBPS:-}" ] && [ -z "${CHAOS_IN_NAMESPACE:-}" ]; then
    [ "$(id -u)" -eq 0 ] || { echo "CHAOS_CAP_KBPS needs root (a network namespace and tc); unset it for a run without caps" >&2; exit 1; }
    namespace="switchyard-chaos-$$"
    ip netns add "$namespace"
    inner=""
    leave_namespace() {
        [ -n "$inner" ] && kill -TERM "$inner" 2>/dev/null && wait "$inner" 2>/dev/null || true
        # Whatever still runs in the namespace was started by this run.
        for pid in $(ip netns pids "$namespace" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
        ip netns del "$namespace" 2>/dev/null || true
    }
    trap leave_namespace EXIT
    trap 'exit 143' TERM INT
    ip netns exec "$namespace" ip link set lo up
    # aiortc gathers no loopback candidates: an address of a veth pair kept inside the namespace gives
    # it one (what it sends to the nodes' 127.0.0.x addresses, and what comes back, still goes by lo).
    ip netns exec "$namespace" ip link add chaos0 type veth peer name chaos1
    ip netns exec "$namespace" ip addr add 10.255.0.1/24 dev chaos0
    ip netns exec "$namespace" ip link set chaos0 up
    ip netns exec "$namespace" ip link set chaos1 up
    CHAOS_IN_NAMESPACE="$namespace" ip netns exec "$namespace" bash "$0" "$@" &
    inner=$!
    status=0
    wait "$inner" || status=$?
    inner=""
    exit "$status"
fi

bin="${1:?usage: $0 <bin directory> [results directory] [bench options...]}"
results="${2:-bench-results}"
shift $(( $# >= 2 ? 2 : 1 ))
mkdir -p "$results"
pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
[ -x "$pg_bin/pg_ctl" ] || { echo "PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }
http_port="${CHAOS_PORT:-7911}"
media_port="${CHAOS_MEDIA_PORT:-46000}"
pg_port="${CHAOS_PG_PORT:-55449}"

work="$(mktemp -d)"
chmod 755 "$work"   # the postgres user must reach its data directory inside
pids=()
bench_pid=""
as_postgres() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
pg_ctl_command() {
    local prefix=""
    [ "$(id -u)" -eq 0 ] && prefix="runuser -u postgres -- "
    echo "cd /tmp && $prefix$pg_bin/pg_ctl -D $work/pg/data -l $work/pg/log -w $*"
}
pg_start="$(pg_ctl_command "-o '-p $pg_port -k $work/pg -c listen_addresses=127.0.0.1 -c fsync=off' start") >/dev/null"
pg_stop="$(pg_ctl_command "-m fast stop") >/dev/null"
cleanup() {
    [ -n "$bench_pid" ] && kill -TERM "$bench_pid" 2>/dev/null && wait "$bench_pid" 2>/dev/null || true
    for pid in "${pids[@]}"; do kill -CONT "$pid" 2>/dev/null || true; kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    sh -c "$pg_stop" 2>/dev/null || true
    if [ -n "${CHAOS_KEEP_LOGS:-}" ]; then cp "$work"/node-*.log "$results/" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

mkdir -p "$work/pg"
[ "$(id -u)" -eq 0 ] && chown postgres:postgres "$work/pg"
(cd /tmp && as_postgres "$pg_bin/initdb" -D "$work/pg/data" -A trust -U switchyard --no-sync >/dev/null)
sh -c "$pg_start"
database="postgres://switchyard@127.0.0.1:$pg_port/postgres?sslmode=disable"

servers=()
for index in 0 1 2; do
    host="127.0.0.$((index + 2))"
    port=$((http_port + index))
    first=$((media_port + 400 * index))
    cat > "$work/node-$index.json" <<JSON
{"server": {"host": "$host", "port": $port},
 "media": {"listenAddress": "$host", "workers": 1, "portRange": {"first": $first, "last": $((first + 399))}},
 "logging": {"level": "warning"},
 "signaling": {"maxBacklogBytes": 1048576},
 "cluster": {"databaseURL": "$database", "nodeId": "chaos-$index", "heartbeatSeconds": 1, "nodeTimeoutSeconds": 8,
             "subscribersBeforeCascading": 1}}
JSON
    "$bin/switchyard" --config "$work/node-$index.json" 2>>"$work/node-$index.log" &
    pids+=($!)
    servers+=(--server "ws://$host:$port/v1/ws" --node-pid "$!")
done
for index in 0 1 2; do
    host="127.0.0.$((index + 2))"
    port=$((http_port + index))
    for attempt in $(seq 300); do
        curl -sf -m 1 "http://$host:$port/health" >/dev/null && break
        [ "$attempt" -eq 300 ] && { echo "node $index did not answer /health within 30 s" >&2; cat "$work/node-$index.log" >&2; exit 1; }
        sleep 0.1
    done
done

extra=()
webrtc_clients="${CHAOS_WEBRTC_CLIENTS:-2}"
if [ "$webrtc_clients" != 0 ]; then
    extra+=(--webrtc-clients "$webrtc_clients" --aiortc-peer "$(cd "$(dirname "$0")/.." && pwd)/Tests/Interop/aiortc_peer.py")
fi
[ -n "${CHAOS_CAP_KBPS:-}" ] && extra+=(--cap-kbps "$CHAOS_CAP_KBPS" --cap-interface lo)

echo
echo "== switchyard-bench chaos (3 nodes on PostgreSQL; node timeout 8 s${CHAOS_IN_NAMESPACE:+; in namespace $CHAOS_IN_NAMESPACE, caps of $CHAOS_CAP_KBPS kbps})"
"$bin/switchyard-bench" chaos "${servers[@]}" --node-timeout 8 "${extra[@]}" \
    --postgres-stop "$pg_stop" --postgres-start "$pg_start" \
    --video-bitrate 150000 --width 320 --height 180 --fps 15 \
    --json "$results/chaos.json" --svg "$results/chaos.svg" "$@" &
bench_pid=$!
status=0
wait "$bench_pid" || status=$?
bench_pid=""
exit "$status"
