#!/usr/bin/env bash
# agc beside LangGraph on the same shapes (issue 42; see bench/README.md): a linear chain of
# 1k and 10k nodes, and a fan-out of 1k items whose call waits 10 ms. LangGraph (pinned in
# bench/langgraph/requirements.txt) runs in its own venv under target/; its figures split
# import, compile and run. agc's are end to end (`agc run` of the document with a run script,
# journal on: load, check, compile, run, journal, record). Prints each and the ratios.
#
#   bench/langgraph.sh
#   CHAIN_SIZES="1000" FAN=500 DELAY_MS=20 bench/langgraph.sh
#
# Environment: CHAIN_SIZES (default "1000 10000"), FAN (items, default 1000), DELAY_MS
# (default 10), PROFILE (cargo profile; default release), AGC (an agc binary to use instead of
# building one), PYTHON (default python3).
set -euo pipefail
cd "$(dirname "$0")/.."

CHAIN_SIZES=${CHAIN_SIZES:-"1000 10000"}
FAN=${FAN:-1000}
DELAY_MS=${DELAY_MS:-10}
PROFILE=${PROFILE:-release}
PYTHON=${PYTHON:-python3}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/agc-langgraph-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

DIR=target/$PROFILE
[ "$PROFILE" = dev ] && DIR=target/debug
if [ -n "${AGC:-}" ]; then what="gen-dialect (agc: $AGC)"; else what="gen-dialect and agc"; fi
echo "building $what ($PROFILE)..." >&2
cargo build --profile "$PROFILE" --quiet -p agc-bench --bin gen-dialect
if [ -z "${AGC:-}" ]; then
  cargo build --profile "$PROFILE" --quiet -p agc --bin agc
  AGC=$DIR/agc
fi
GEN=$DIR/gen-dialect

VENV=target/bench-langgraph-venv
if [ ! -x "$VENV/bin/python" ]; then
  echo "creating $VENV (langgraph from bench/langgraph/requirements.txt)..." >&2
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet -r bench/langgraph/requirements.txt
fi
LG="$VENV/bin/python bench/langgraph/shapes.py"
echo "langgraph $("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("langgraph"))')"

now_ms() { date +%s%3N; }
# Runs `agc run` with the given arguments; prints the wall time in seconds.
agc_run() {
  rm -rf "$TMP/run"
  local t0 t1
  t0=$(now_ms)
  "$AGC" run "$@" --run-dir "$TMP/run" --quiet >/dev/null
  t1=$(now_ms)
  grep -q '"status": "succeeded"' "$TMP/run/record.json" || { echo "agc: the run did not succeed" >&2; exit 1; }
  echo "scale=3; ($t1 - $t0) / 1000" | bc -l
}

printf '%-16s %12s %12s %12s %12s %12s %10s\n' shape "lg import" "lg compile" "lg run" "lg total" "agc total" "lg/agc"
row() {
  local shape=$1 lg=$2 agc=$3
  read -r _ _ imp comp run <<<"$lg"
  local total
  total=$(echo "$imp + $comp + $run" | bc -l)
  printf '%-16s %12.3f %12.3f %12.3f %12.3f %12.3f %10.1f\n' "$shape" "$imp" "$comp" "$run" "$total" \
    "$agc" "$(echo "$total / $agc" | bc -l)"
}

for n in $CHAIN_SIZES; do
  "$GEN" ags-chain "$n" >"$TMP/chain.yaml"
  "$GEN" ags-chain-script "$n" >"$TMP/chain-script.yaml"
  agc_s=$(agc_run "$TMP/chain.yaml" --script "$TMP/chain-script.yaml")
  lg=$($LG chain "$n")
  row "chain $n" "$lg" "$agc_s"
done

# The fan-out document and its script are bench/fanout.sh's (one definition of the shape).
agc_s=$(N=$FAN DELAY_MS=$DELAY_MS RUNS=1 AGC=$AGC PROFILE=$PROFILE bench/fanout.sh |
  sed -n 's/.*best \([0-9.]*\) s.*/\1/p')
lg=$($LG fanout "$FAN" "$DELAY_MS")
row "fanout $FAN x${DELAY_MS}ms" "$lg" "$agc_s"
