#!/usr/bin/env bash
# The Restate driver beside the local driver on the same plans (issue 16's benchmark).
#
#   bench/restate.sh                      # debug binaries (cargo build -p agc -p agc-restate)
#   PROFILE=release bench/restate.sh      # release binaries (build them first)
#
# Prints, for each plan: runs per second and ms per node run, local (`agc run --script`, one
# process per run, RUNS runs one after another) and on Restate (`agc run --engine restate`,
# RUNS runs submitted at once against one worker); then the recovery times after `kill -9` of
# the worker: mid-map (restart to the run's end, minus the remaining work) and at a gate after
# 1,000 loop turns (restart to the run leaving the gate: a full replay of ~4,000 journal
# entries). With CLUSTER=1, also a three-node loopback cluster (replication 2): runs per second
# of the same map plan through it, and a loop run that survives `kill -9` of node 1.
#
# Environment: RUNS (default 20), PROFILE (debug), AGC_RESTATE_SERVER (the server binary;
# default the npm package under restate/server, `npm ci --ignore-scripts --prefix restate/server`).
# Everything listens on free loopback ports and is stopped by PID at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-20}
PROFILE=${PROFILE:-debug}
BIN=target/$PROFILE
SERVER=${AGC_RESTATE_SERVER:-restate/server/node_modules/@restatedev/restate-server-linux-x64/bin/restate-server}
for b in "$BIN/agc" "$BIN/agc-restate-worker" "$SERVER"; do
  [ -x "$b" ] || { echo "missing $b (build agc and agc-restate, install the server)"; exit 2; }
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/agc-restate-bench.XXXXXX")
PIDS=()
SERVER_PID=
cleanup() {
  [ -z "$SERVER_PID" ] || kill -TERM "$SERVER_PID" 2>/dev/null || true
  for p in "${PIDS[@]}"; do [ "$p" = "$SERVER_PID" ] || kill -9 "$p" 2>/dev/null || true; done
  for _ in $(seq 100); do
    [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  rm -rf "$TMP" 2>/dev/null || true
}
trap cleanup EXIT

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{(float(sys.argv[2])-float(sys.argv[1])):.3f}')" "$1" "$(now)"; }
wait_for() { # what, seconds, command...
  local what=$1 secs=$2; shift 2
  local end=$(( $(date +%s) + secs ))
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$end" ] || { echo "timed out waiting for $what"; exit 1; }
    sleep 0.05
  done
}

INGRESS_PORT=$(port); ADMIN_PORT=$(port); FABRIC_PORT=$(port); WORKER_PORT=$(port)
INGRESS=http://127.0.0.1:$INGRESS_PORT; ADMIN=http://127.0.0.1:$ADMIN_PORT
DO_NOT_TRACK=1 RESTATE_ADMIN__BIND_PORT=$ADMIN_PORT RESTATE_INGRESS__BIND_PORT=$INGRESS_PORT \
  "$SERVER" --base-dir "$TMP/data" --bind-ip 127.0.0.1 --bind-port "$FABRIC_PORT" \
  --listen-mode tcp --no-logo --log-format compact --default-num-partitions 4 \
  > "$TMP/server.log" 2>&1 &
SERVER_PID=$!
disown "$SERVER_PID"
wait_for "the server" 60 curl -sf "$ADMIN/health"
wait_for "the ingress" 60 curl -sf "$INGRESS/restate/health"

start_worker() {
  # A killed worker's port is free again once nothing accepts on it.
  wait_for "the old worker to be gone" 30 bash -c "! (echo > /dev/tcp/127.0.0.1/$WORKER_PORT) 2>/dev/null"
  "$BIN/agc-restate-worker" --listen "127.0.0.1:$WORKER_PORT" --log-dir "$TMP/logs" \
    > "$TMP/worker.log" 2>&1 &
  WORKER=$!
  disown "$WORKER"
  PIDS+=("$WORKER")
  wait_for "the worker" 30 grep -q listening "$TMP/worker.log"
}
start_worker
"$BIN/agc" restate register "http://127.0.0.1:$WORKER_PORT" --admin "$ADMIN" 2>/dev/null

# Node runs in a record (0 when the run wrote none: it failed to complete).
nodes_of() { python3 -c 'import json,sys
try: print(len(json.load(open(sys.argv[1]))["nodes"]))
except Exception: print(0)' "$1"; }
done_of() { [ -s "$1" ] && echo 1 || echo 0; }
row() { # name engine seconds runs nodes
  python3 -c '
import sys
name, engine, secs, runs, nodes = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
print(f"{name:<22} {engine:<8} {runs/secs:>9.1f} {1000*secs/max(nodes,1):>11.2f}")' "$@"
}

echo "plan                   engine    runs/s   ms/node"
F=restate/tests/fixtures
for plan in changelog fan-out; do
  case $plan in
    changelog) ARGS=(examples/ags/changelog-release.agraph.yaml --script examples/ags/changelog-release.script.yaml --params examples/ags/changelog-release.params.json) ;;
    fan-out) ARGS=($F/fan-out.agraph.yaml --script "$TMP/fast.script.yaml" --params $F/fan-out.params.json)
      sed 's/delay_ms: 400/delay_ms: 0/' $F/fan-out.script.yaml > "$TMP/fast.script.yaml" ;;
  esac
  t0=$(now)
  for i in $(seq "$RUNS"); do "$BIN/agc" run "${ARGS[@]}" -q --record "$TMP/l$i.json" 2>/dev/null || true; done
  secs=$(since "$t0")
  n=0; for i in $(seq "$RUNS"); do n=$(( n + $(nodes_of "$TMP/l$i.json") )); done
  row "$plan" local "$secs" "$RUNS" "$n"
  t0=$(now)
  jobs=()
  for i in $(seq "$RUNS"); do
    "$BIN/agc" run "${ARGS[@]}" -q --engine restate --ingress "$INGRESS" --record "$TMP/r$i.json" 2>/dev/null &
    jobs+=($!)
  done
  for j in "${jobs[@]}"; do wait "$j" || true; done
  secs=$(since "$t0")
  n=0; for i in $(seq "$RUNS"); do n=$(( n + $(nodes_of "$TMP/r$i.json") )); done
  row "$plan" restate "$secs" "$RUNS" "$n"
done

echo
echo "recovery after kill -9 of the worker"
# Mid-map: six items of 400 ms, two at a time; kill once three have started.
rm -rf "$TMP/logs"; mkdir -p "$TMP/logs"
"$BIN/agc" run $F/fan-out.agraph.yaml --script $F/fan-out.script.yaml --params $F/fan-out.params.json \
  -q --engine restate --ingress "$INGRESS" --record "$TMP/k.json" 2>/dev/null &
RUN=$!
wait_for "three items" 60 bash -c "[ \$(cat $TMP/logs/*.jsonl 2>/dev/null | grep -c 'each\\[') -ge 3 ]"
kill -9 "$WORKER"
t0=$(now)
start_worker
wait "$RUN" || true
total=$(since "$t0")
# Items left at the kill: 6 - the two finished; 400 ms each, two at a time, plus the summary.
python3 -c "import sys; t=float(sys.argv[1]); print(f'mid-map: restart to end {t:.3f} s (of which ~0.8 s is the remaining items)')" "$total"

# At a gate after 1,000 turns: the decision replays the whole journal on the new worker.
"$BIN/agc" run $F/long-loop.agraph.yaml --script $F/long-loop.script.yaml -q \
  --engine restate --ingress "$INGRESS" --record "$TMP/g.json" 2>/dev/null || true
RUN_ID=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_id"])' "$TMP/g.json")
kill -9 "$WORKER"
t0=$(now)
start_worker
curl -sf -X POST "$INGRESS/restate/call/AgcRun/$RUN_ID/decide" -H 'content-type: application/json' \
  -d '{"gate":"approve","outcome":"approved"}' >/dev/null
wait_for "the replay" 120 bash -c "curl -sf -X POST $INGRESS/restate/call/AgcRun/$RUN_ID/status | grep -q '\"status\":\"succeeded\"'"
echo "at a gate after 1,000 turns: restart and decision to end $(since "$t0") s (a full replay of ~4,000 journal entries)"

[ "${CLUSTER:-0}" = 1 ] || exit 0
echo
echo "three-node loopback cluster (replication 2)"
CP=(); for n in 1 2 3; do CP+=("$(port) $(port) $(port)"); done
ADDRS=""
for n in 0 1 2; do set -- ${CP[$n]}; ADDRS="$ADDRS${ADDRS:+,}\"http://127.0.0.1:$1\""; done
NODES=()
for n in 0 1 2; do
  set -- ${CP[$n]}
  prov=false; [ "$n" = 0 ] && prov=true
  DO_NOT_TRACK=1 RESTATE_CLUSTER_NAME=agc-bench RESTATE_NODE_NAME=n$n RESTATE_FORCE_NODE_ID=$((n + 1)) \
    RESTATE_DEFAULT_REPLICATION=2 RESTATE_AUTO_PROVISION=$prov \
    RESTATE_METADATA_CLIENT__ADDRESSES="[$ADDRS]" RESTATE_BIND_PORT=$1 \
    RESTATE_ADVERTISED_ADDRESS=http://127.0.0.1:$1 RESTATE_ADMIN__BIND_PORT=$2 \
    RESTATE_INGRESS__BIND_PORT=$3 "$SERVER" --base-dir "$TMP/n$n" --bind-ip 127.0.0.1 \
    --listen-mode tcp --no-logo --log-format compact --default-num-partitions 4 \
    > "$TMP/n$n.log" 2>&1 &
  NODES+=($!); disown $!; PIDS+=($!)
done
for n in 0 1 2; do set -- ${CP[$n]}; wait_for "node $n" 60 curl -sf "http://127.0.0.1:$3/restate/health"; done
set -- ${CP[1]}; ADMIN2=http://127.0.0.1:$2; INGRESS2=http://127.0.0.1:$3
set -- ${CP[2]}; INGRESS3=http://127.0.0.1:$3
wait_for "registration" 60 "$BIN/agc" restate register "http://127.0.0.1:$WORKER_PORT" --admin "$ADMIN2"
# Every node learns the new deployment shortly after; wait until node 3's ingress knows it.
wait_for "the deployment on node 3" 60 curl -sf -X POST "$INGRESS3/restate/call/AgcRun/probe/status"
t0=$(now); jobs=()
for i in $(seq "$RUNS"); do
  "$BIN/agc" run $F/fan-out.agraph.yaml --script "$TMP/fast.script.yaml" --params $F/fan-out.params.json \
    -q --engine restate --ingress "$INGRESS3" --record "$TMP/c$i.json" 2>/dev/null &
  jobs+=($!)
done
for j in "${jobs[@]}"; do wait "$j" || true; done
secs=$(since "$t0")
n=0; ok=0
for i in $(seq "$RUNS"); do n=$(( n + $(nodes_of "$TMP/c$i.json") )); ok=$(( ok + $(done_of "$TMP/c$i.json") )); done
row fan-out cluster "$secs" "$ok" "$n"
echo "($ok of $RUNS runs finished; runs/s counts finished runs)"
"$BIN/agc" run $F/long-loop.agraph.yaml --script $F/long-loop.script.yaml -q --engine restate \
  --ingress "$INGRESS3" --record "$TMP/cl.json" 2>/dev/null &
RUN=$!
sleep 3
kill -9 "${NODES[0]}"
t0=$(now)
wait "$RUN" || true
echo "loop of 1,000 turns with node 1 killed 3 s in: paused at its gate $(since "$t0") s after the kill"
RUN_ID=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_id"])' "$TMP/cl.json")
"$BIN/agc" run --resume "$RUN_ID" --decide approve=approved -q --engine restate --ingress "$INGRESS2" \
  --record "$TMP/cl2.json" 2>/dev/null && echo "decided through node 2: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$TMP/cl2.json")"
for p in "${NODES[@]:1}"; do kill -TERM "$p" 2>/dev/null || true; done
