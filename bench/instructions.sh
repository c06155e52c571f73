#!/usr/bin/env bash
# Instruction counts of the scale goal's runs (see bench/README.md): valgrind's callgrind
# counts every instruction the process runs, on all its threads, so the figures do not move
# with what else the machine runs (scale.sh's wall times do, by tens of percent on a shared
# 2-core machine). They leave out what wall time adds on a large input: cache misses and page
# faults. Prints the count for the event floor (`yaml-floor`), `agc check` and `agc build`
# (plan written to a file) on gen-ags graphs of each size, their ratios to the floor, and
# c(10n)/c(n) between sizes ten times apart: linear passes give 10.
#
#   bench/instructions.sh                   # 10k and 100k: about 8 minutes under callgrind
#   SIZES="1000 10000" bench/instructions.sh
#
# Environment: SIZES (node counts), SEED (generator seed, default 1). Counts differ by up to
# about 3% between runs of one binary: agc's parallel parts split their work differently.
set -euo pipefail
if [ $# -gt 0 ]; then
  echo "usage: [SIZES=\"10000 100000\"] [SEED=1] $0   (no arguments; see the comment at its top)" >&2
  exit 2
fi
cd "$(dirname "$0")/.."

SIZES=${SIZES:-"10000 100000"}
SEED=${SEED:-1}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/agc-instructions.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

if ! command -v valgrind >/dev/null; then
  echo "note: installing valgrind" >&2
  (apt-get install -y -qq valgrind >/dev/null 2>&1 ||
    (apt-get update -qq && apt-get install -y -qq valgrind >/dev/null)) ||
    { echo "error: valgrind is needed (apt-get install valgrind)" >&2; exit 2; }
fi

echo "building agc, gen-ags and yaml-floor (release)..." >&2
cargo build --release --quiet -p agc --bin agc -p agc-bench --bin gen-ags --bin yaml-floor
AGC=target/release/agc

# count CMD... : the instructions CMD runs (its exit status is not checked here: `agc check`
# exits 0 on the advisories gen-ags graphs give, and a failure shows as a count far off).
count() {
  valgrind --tool=callgrind --callgrind-out-file="$TMP/cg" "$@" >/dev/null 2>&1 || true
  awk '/^summary:/ {print $2}' "$TMP/cg"
}

echo
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git describe --always --dirty 2>/dev/null || echo "?")"
echo
printf '| %7s | %15s | %15s | %15s | %11s | %11s |\n' nodes floor check build check/floor build/floor
printf '| %7s | %15s | %15s | %15s | %11s | %11s |\n' ------: --------------: --------------: --------------: ----------: ----------:
declare -A FLOOR CHECK BUILD
for n in $SIZES; do
  f="$TMP/layered-$n.agraph.yaml"
  target/release/gen-ags "$n" --seed "$SEED" >"$f"
  FLOOR[$n]=$(count target/release/yaml-floor "$f")
  CHECK[$n]=$(count "$AGC" check "$f")
  BUILD[$n]=$(count "$AGC" build "$f" -o "$TMP/plan.json")
  awk -v n="$n" -v f="${FLOOR[$n]}" -v c="${CHECK[$n]}" -v b="${BUILD[$n]}" \
    'BEGIN {printf "| %7d | %15.0f | %15.0f | %15.0f | %11.2f | %11.2f |\n", n, f, c, b, c / f, b / f}'
done

echo
for n in $SIZES; do
  m=$((n * 10))
  [ -n "${FLOOR[$m]:-}" ] || continue
  awk -v n="$n" -v m="$m" -v f0="${FLOOR[$n]}" -v f1="${FLOOR[$m]}" -v c0="${CHECK[$n]}" \
    -v c1="${CHECK[$m]}" -v b0="${BUILD[$n]}" -v b1="${BUILD[$m]}" \
    'BEGIN {printf "growth %d -> %d: floor %.2f, check %.2f, build %.2f\n", n, m, f1 / f0, c1 / c0, b1 / b0}'
done
