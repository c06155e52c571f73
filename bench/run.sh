#!/usr/bin/env bash
# `agc run` at scale (see bench/README.md): a chain of N AGS tasks with a script answering
# every one (`gen-dialect ags-chain N`, `ags-chain-script N`), the journal on (`--run-dir`),
# timed end to end: compile, script, run, journal, record; then the same from each chain's built
# plan (`agc run plan.json`, the issue's reading of end to end: plan load, script, run, record).
# Prints wall time and peak RSS per size, then issue 41's two figures for both:
# t(largest)/t(smallest) against the ratio of the sizes (goal: the 40k chain within 10x the 5k
# chain) and microseconds per node at 10k (goal: at most 20). Then a map over a params array (issue 48: `gen-dialect ags-map N`, one task per
# item of `params.items`) at 1k and 10k items, with t(10k)/t(1k) (goal: at most 15), peak RSS
# (goal: under 1 GiB) and microseconds per item at 10k (goal: at most 50).
#
#   bench/run.sh                   # sizes 5000 10000 40000, map items 1000 10000
#   SIZES="5000 40000" RUNS=5 bench/run.sh
#   SIZES="" bench/run.sh          # the map only (MAP_SIZES="" skips the map)
#
# Environment: SIZES (node counts, smallest first; default 5000 10000 40000), MAP_SIZES (map
# items, smallest first; default 1000 10000), RUNS (runs per
# size; the fastest and the median are shown, default 3), JOURNAL (jsonl or sqlite; default
# jsonl; sqlite builds agc with `--features sqlite`), PROFILE (cargo profile; default
# release).
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES-"5000 10000 40000"}
MAP_SIZES=${MAP_SIZES-"1000 10000"}
RUNS=${RUNS:-3}
JOURNAL=${JOURNAL:-jsonl}
PROFILE=${PROFILE:-release}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/agc-run-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

FEATURES=()
if [ "$JOURNAL" = sqlite ]; then FEATURES=(--features sqlite); fi
echo "building agc and gen-dialect ($PROFILE)..." >&2
cargo build --profile "$PROFILE" --quiet -p agc --bin agc "${FEATURES[@]}"
cargo build --profile "$PROFILE" --quiet -p agc-bench --bin gen-dialect
DIR=target/$PROFILE
[ "$PROFILE" = dev ] && DIR=target/debug
AGC=$DIR/agc
GEN=$DIR/gen-dialect

# Milliseconds since the epoch.
now_ms() { date +%s%3N; }

declare -A BEST
# Times `agc run` ARGS... RUNS times into BEST[$key]; prints one row.
measure() {
  local key=$1
  shift
  local times=() rss=0 r
  for _ in $(seq "$RUNS"); do
    rm -rf "$TMP/run"
    t0=$(now_ms)
    /usr/bin/time -f %M -o "$TMP/rss" "$AGC" run "$@" --run-dir "$TMP/run" --journal "$JOURNAL" \
      --fixed-clock --quiet >/dev/null
    t1=$(now_ms)
    times+=($((t1 - t0)))
    r=$(tail -1 "$TMP/rss")
    [ "$r" -gt "$rss" ] && rss=$r
  done
  local sorted=($(printf '%s\n' "${times[@]}" | sort -n))
  local best=${sorted[0]}
  local median=${sorted[$(((${#sorted[@]} - 1) / 2))]}
  BEST[$key]=$best
  printf '%8s %10.3f %10.3f %10.1f %12s\n' "${key#*-}" "$(echo "$best/1000" | bc -l)" \
    "$(echo "$median/1000" | bc -l)" "$(echo "$best*1000/${key#*-}" | bc -l)" "$rss"
}

if [ -n "$SIZES" ]; then
  echo "chain of N tasks:"
  printf '%8s %10s %10s %10s %12s\n' nodes "best (s)" "median (s)" "us/node" "peak RSS KB"
  for n in $SIZES; do
    "$GEN" ags-chain "$n" >"$TMP/chain-$n.yaml"
    "$GEN" ags-chain-script "$n" >"$TMP/script-$n.yaml"
    measure "chain-$n" "$TMP/chain-$n.yaml" --script "$TMP/script-$n.yaml"
  done
  echo
  echo "the same chains from their built plans (agc build -o plan.json, then agc run plan.json):"
  printf '%8s %10s %10s %10s %12s\n' nodes "best (s)" "median (s)" "us/node" "peak RSS KB"
  for n in $SIZES; do
    "$AGC" build "$TMP/chain-$n.yaml" -o "$TMP/plan-$n.json" >/dev/null
    measure "plan-$n" "$TMP/plan-$n.json" --script "$TMP/script-$n.yaml"
  done
  set -- $SIZES
  first=$1
  last=${!#}
  echo
  printf 't(%s)/t(%s) = %.2f for %.0fx the nodes (goal: at most 10 for 40k against 5k)\n' \
    "$last" "$first" "$(echo "${BEST[chain-$last]}/${BEST[chain-$first]}" | bc -l)" "$(echo "$last/$first" | bc -l)"
  printf 't(%s)/t(%s) = %.2f from the plans\n' \
    "$last" "$first" "$(echo "${BEST[plan-$last]}/${BEST[plan-$first]}" | bc -l)"
  if [ -n "${BEST[chain-10000]:-}" ]; then
    printf 'at 10000 nodes: %.1f us per node end to end from the document, %.1f from the plan (goal: at most 20)\n' \
      "$(echo "${BEST[chain-10000]}*1000/10000" | bc -l)" "$(echo "${BEST[plan-10000]}*1000/10000" | bc -l)"
  fi
fi

if [ -n "$MAP_SIZES" ]; then
  [ -n "$SIZES" ] && echo
  echo "map over params.items, one task per item:"
  printf '%8s %10s %10s %10s %12s\n' items "best (s)" "median (s)" "us/item" "peak RSS KB"
  "$GEN" ags-map-script 1 >"$TMP/map-script.yaml"
  for n in $MAP_SIZES; do
    "$GEN" ags-map "$n" >"$TMP/map-$n.yaml"
    "$GEN" ags-map-params "$n" >"$TMP/map-$n.params.json"
    measure "map-$n" "$TMP/map-$n.yaml" --params "$TMP/map-$n.params.json" \
      --script "$TMP/map-script.yaml"
  done
  set -- $MAP_SIZES
  first=$1
  last=${!#}
  echo
  printf 't(%s)/t(%s) = %.2f for %.0fx the items (goal: at most 15 for 10k against 1k)\n' \
    "$last" "$first" "$(echo "${BEST[map-$last]}/${BEST[map-$first]}" | bc -l)" "$(echo "$last/$first" | bc -l)"
  if [ -n "${BEST[map-10000]:-}" ]; then
    printf 'at 10000 items: %.1f us per item end to end (goal: at most 50; peak RSS under 1 GiB)\n' \
      "$(echo "${BEST[map-10000]}*1000/10000" | bc -l)"
  fi
fi
