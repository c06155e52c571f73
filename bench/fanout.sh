#!/usr/bin/env bash
# `agc run` over waiting calls (issue 42; see bench/README.md): an AGS map of N items with
# `max_parallel: N` and `max_parallel_nodes: N` whose scripted handler waits DELAY_MS per call
# (`delay_ms`, a timer, as a model call would wait on the network), the journal on
# (`--run-dir`), timed end to end. The calls are futures on the async driver, so the run takes
# about one delay, not N / threads delays (the thread pool of before: 500 x 1 s on 4 threads
# took 125 s).
#
#   bench/fanout.sh                     # 500 items, 1000 ms each
#   N=2000 DELAY_MS=200 bench/fanout.sh
#
# Environment: N (items; default 500), DELAY_MS (default 1000), THREADS (`--threads`, the
# async runtime's workers; default 2), RUNS (default 3; the fastest and the median are
# shown), PROFILE (cargo profile; default release), AGC (an agc binary to use instead of
# building one).
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-500}
DELAY_MS=${DELAY_MS:-1000}
THREADS=${THREADS:-2}
RUNS=${RUNS:-3}
PROFILE=${PROFILE:-release}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/agc-fanout-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

if [ -z "${AGC:-}" ]; then
  echo "building agc ($PROFILE)..." >&2
  cargo build --profile "$PROFILE" --quiet -p agc --bin agc
  DIR=target/$PROFILE
  [ "$PROFILE" = dev ] && DIR=target/debug
  AGC=$DIR/agc
fi

items=$(seq -s, 0 $((N - 1)))
cat >"$TMP/fanout.agraph.yaml" <<YAML
ags_version: "1.0"
kind: AgenticGraph
id: bench/fanout
title: Fan out over waiting calls
objective: Measure how many waiting handler calls are in flight at once.
params:
  items:
    type: array
    description: One entry per call.
    required: false
    default: [$items]
constraints:
  max_parallel_nodes: $N
  max_node_executions: $((N + 10))
  max_cost_usd: 1
entrypoints: [fan]
nodes:
  fan:
    type: map
    title: One call per item
    description: Every item at once.
    map:
      over: params.items
      as: item
      max_items: $N
      max_parallel: $N
      on_item_failure: continue
      collect:
        results: nodes.work.outputs.result
      body:
        title: One item
        entrypoints: [work]
        nodes:
          work:
            type: task
            title: Wait as a model call does
            description: Answers after the script's delay.
            inputs:
              item:
                type: integer
                description: The item.
                from: item
            outputs:
              result:
                type: text
                description: The answer.
YAML
cat >"$TMP/script.yaml" <<YAML
format: agc.script/v1
nodes:
  work:
    delay_ms: $DELAY_MS
    outputs:
      result: done
YAML

now_ms() { date +%s%3N; }
times=()
for _ in $(seq "$RUNS"); do
  rm -rf "$TMP/run" "$TMP/record.json"
  t0=$(now_ms)
  "$AGC" run "$TMP/fanout.agraph.yaml" --script "$TMP/script.yaml" --run-dir "$TMP/run" \
    --threads "$THREADS" --record "$TMP/record.json" --quiet
  t1=$(now_ms)
  times+=($((t1 - t0)))
done
grep -q '"status": "succeeded"' "$TMP/record.json" || { echo "the run did not succeed" >&2; exit 1; }
sorted=($(printf '%s\n' "${times[@]}" | sort -n))
best=${sorted[0]}
median=${sorted[$(((${#sorted[@]} - 1) / 2))]}
printf '%s items x %s ms, max_parallel %s, --threads %s: best %.3f s, median %.3f s (goal: at most 5 s for 500 x 1000 ms)\n' \
  "$N" "$DELAY_MS" "$N" "$THREADS" "$(echo "$best/1000" | bc -l)" "$(echo "$median/1000" | bc -l)"
