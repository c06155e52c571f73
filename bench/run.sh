#!/usr/bin/env bash
# `agc run` at scale (see bench/README.md): a chain of N AGS tasks with a script answering
# every one (`gen-dialect ags-chain N`, `ags-chain-script N`), the journal on (`--run-dir`),
# timed end to end: compile, script, run, journal, record. Prints wall time and peak RSS per
# size, then issue 41's two figures: t(largest)/t(smallest) against the ratio of the sizes
# (goal: the 40k chain within 10x the 5k chain) and microseconds per node at 10k (goal:
# at most 20).
#
#   bench/run.sh                   # sizes 5000 10000 40000
#   SIZES="5000 40000" RUNS=5 bench/run.sh
#
# Environment: SIZES (node counts, smallest first; default 5000 10000 40000), RUNS (runs per
# size; the fastest and the median are shown, default 3), JOURNAL (jsonl or sqlite; default
# jsonl; sqlite builds agc with `--features sqlite`), PROFILE (cargo profile; default
# release).
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-"5000 10000 40000"}
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
printf '%8s %10s %10s %10s %12s\n' nodes "best (s)" "median (s)" "us/node" "peak RSS KB"
for n in $SIZES; do
  "$GEN" ags-chain "$n" >"$TMP/chain-$n.yaml"
  "$GEN" ags-chain-script "$n" >"$TMP/script-$n.yaml"
  times=()
  rss=0
  for _ in $(seq "$RUNS"); do
    rm -rf "$TMP/run"
    t0=$(now_ms)
    /usr/bin/time -f %M -o "$TMP/rss" "$AGC" run "$TMP/chain-$n.yaml" \
      --script "$TMP/script-$n.yaml" --run-dir "$TMP/run" --journal "$JOURNAL" \
      --fixed-clock --quiet >/dev/null
    t1=$(now_ms)
    times+=($((t1 - t0)))
    r=$(tail -1 "$TMP/rss")
    [ "$r" -gt "$rss" ] && rss=$r
  done
  sorted=($(printf '%s\n' "${times[@]}" | sort -n))
  best=${sorted[0]}
  median=${sorted[$(((${#sorted[@]} - 1) / 2))]}
  BEST[$n]=$best
  printf '%8s %10.3f %10.3f %10.1f %12s\n' "$n" "$(echo "$best/1000" | bc -l)" \
    "$(echo "$median/1000" | bc -l)" "$(echo "$best*1000/$n" | bc -l)" "$rss"
done

set -- $SIZES
first=$1
last=${!#}
echo
printf 't(%s)/t(%s) = %.2f for %.0fx the nodes (goal: at most 10 for 40k against 5k)\n' \
  "$last" "$first" "$(echo "${BEST[$last]}/${BEST[$first]}" | bc -l)" "$(echo "$last/$first" | bc -l)"
if [ -n "${BEST[10000]:-}" ]; then
  printf 'at 10000 nodes: %.1f us per node end to end (goal: at most 20)\n' \
    "$(echo "${BEST[10000]}*1000/10000" | bc -l)"
fi
