#!/usr/bin/env bash
# The cluster scenario of switchyard-bench (docs/benchmark.md): a private PostgreSQL and three nodes
# on 127.0.0.2-4 (each announcing its own media address; ten subscribers of a session each before
# cascading), a 1 → 30 room, `switchyard-bench cluster` through all three, then kill -9 of the first node;
# then, the first node started again, `switchyard-bench broadcast` of up to 15,000 viewers on the three.
# Usage: scripts/bench-cluster.sh <directory with switchyard and switchyard-bench> [results directory] [bench options...]
set -euo pipefail

bin="${1:?usage: $0 <bin directory> [results directory] [bench options...]}"
results="${2:-bench-results}"
shift $(( $# >= 2 ? 2 : 1 ))
mkdir -p "$results"
pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
[ -x "$pg_bin/pg_ctl" ] || { echo "PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }

work="$(mktemp -d)"
chmod 755 "$work"   # the postgres user must reach its data directory inside
pids=()
as_postgres() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    as_postgres "$pg_bin/pg_ctl" -D "$work/pg/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/pg"
[ "$(id -u)" -eq 0 ] && chown postgres:postgres "$work/pg"
pg_port=55439
(cd /tmp && as_postgres "$pg_bin/initdb" -D "$work/pg/data" -A trust -U switchyard --no-sync >/dev/null)
(cd /tmp && as_postgres "$pg_bin/pg_ctl" -D "$work/pg/data" -l "$work/pg/log" -w \
    -o "-p $pg_port -k $work/pg -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null)
database="postgres://switchyard@127.0.0.1:$pg_port/postgres?sslmode=disable"

# 15,000 broadcast viewers need 15,000 descriptors in the bench and in the session's node.
viewers=15000
ulimit -n 20000 2>/dev/null || viewers=1000
start_node() {
    local index=$1 host="127.0.0.$(($1 + 2))" port=$((7891 + $1)) first=$((44000 + 400 * $1))
    cat > "$work/node-$index.json" <<JSON
{"server": {"host": "$host", "port": $port, "http": {"maxConnections": 20000, "maxConnectionsPerAddress": 20000}},
 "signaling": {"maxConnectionsPerSession": 16000, "messagesPerSecond": 200, "messageBurst": 400},
 "media": {"listenAddress": "$host", "workers": 1, "portRange": {"first": $first, "last": $((first + 399))}},
 "logging": {"level": "warning"},
 "cluster": {"databaseURL": "$database", "nodeId": "bench-$index", "heartbeatSeconds": 1, "nodeTimeoutSeconds": 3,
             "subscribersBeforeCascading": 10}}
JSON
    "$bin/switchyard" --config "$work/node-$index.json" 2>>"$work/node-$index.log" &
    pids[$index]=$!
    for _ in $(seq 100); do (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null && break; sleep 0.1; done
}
servers=()
for index in 0 1 2; do
    start_node "$index"
    servers+=(--server "ws://127.0.0.$((index + 2)):$((7891 + index))/v1/ws")
done

transactions() {
    as_postgres "$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U switchyard -d postgres -At \
        -c "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = 'postgres'"
}
idle_start=$(transactions); sleep 10; idle_end=$(transactions)
echo
echo "== switchyard-bench cluster (3 nodes on PostgreSQL; node timeout 3 s; kill -9 of bench-0)"
run_start=$(transactions); started=$SECONDS
"$bin/switchyard-bench" cluster "${servers[@]}" --kill-pid "${pids[0]}" --cascade-subscribers 30 \
    --video-bitrate 300000 --width 320 --height 180 --fps 15 \
    --json "$results/cluster.json" "$@"
run_end=$(transactions)
# The psql calls that read the counter count one transaction each.
echo "database: $(( idle_end - idle_start - 1 )) transactions in 10 s with 3 idle nodes; $(( run_end - run_start - 1 )) during the run ($(( SECONDS - started )) s, 12 sessions placed and ended by default)" \
    | tee "$results/cluster-database.txt"
# A broadcast on the three nodes (the killed one started again): $viewers signaling-only viewers
# and two simulcast publishers on the session's node, and 12 viewers decoding both publishers (24
# subscriptions, past the nodes' 10 subscribers before cascading, so that most are served by the
# other nodes over relay legs; more would make the bench's one media thread, decoding them all, the
# bottleneck).
start_node 0
sleep 2
echo
echo "== switchyard-bench broadcast on the cluster ($viewers viewers at 500/s; 2 publishers; 12 decoding both, cascading past 10)"
"$bin/switchyard-bench" broadcast --server "ws://127.0.0.3:7892/v1/ws" --server-pid "${pids[1]}" --clients "$viewers" \
    --churn-rate 500 --publishers 2 --media-viewers 12 --json "$results/broadcast-cluster.json"
