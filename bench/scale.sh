#!/usr/bin/env bash
# Scale benchmark for agc (see bench/README.md). Prints wall time and peak RSS per tool and size.
#
#   bench/scale.sh                 # sizes 1000 10000 100000
#   SIZES="1000 10000" bench/scale.sh
#
# Environment: SIZES (node counts), SEED (generator seed, default 1), TIMEOUT (seconds per
# run of an external validator, default 120), AGS_VALIDATE (path to an existing
# `ags-validate`), AGS_ROOT (cargo --root for installing it; default a folder under $TMPDIR),
# SKIP_UPSTREAM=1 (do not run or install the upstream validator), AGC_ONLY_ABOVE (sizes above
# this run agc only; default 10000, since the upstream validator is quadratic).
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-"1000 10000 100000"}
SEED=${SEED:-1}
TIMEOUT=${TIMEOUT:-120}
AGC_ONLY_ABOVE=${AGC_ONLY_ABOVE:-10000}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/agc-scale.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

note() { echo "note: $*" >&2; }

# GNU time for peak RSS.
if [ ! -x /usr/bin/time ]; then
  note "installing Debian's 'time' package for /usr/bin/time"
  (apt-get install -y -qq time >/dev/null 2>&1 ||
    (apt-get update -qq && apt-get install -y -qq time >/dev/null)) ||
    { echo "error: /usr/bin/time is needed (apt-get install time)" >&2; exit 2; }
fi

echo "building agc and gen-ags (release)..." >&2
cargo build --release --quiet -p agc --bin agc -p agc-bench --bin gen-ags
AGC=target/release/agc
GEN=target/release/gen-ags

HAS_BUILD=0
if "$AGC" build --help >/dev/null 2>&1; then HAS_BUILD=1; else note "agc has no 'build' subcommand yet; timing 'agc check' only"; fi

# The upstream Rust validator (crate agentic-graph-spec), installed once into a temp root.
UPSTREAM=""
if [ "${SKIP_UPSTREAM:-0}" != 1 ]; then
  AGS_ROOT=${AGS_ROOT:-"${TMPDIR:-/tmp}/agc-bench-ags-validate"}
  if [ -n "${AGS_VALIDATE:-}" ] && [ -x "$AGS_VALIDATE" ]; then
    UPSTREAM=$AGS_VALIDATE
  elif command -v ags-validate >/dev/null 2>&1; then
    UPSTREAM=$(command -v ags-validate)
  elif [ -x "$AGS_ROOT/bin/ags-validate" ]; then
    UPSTREAM=$AGS_ROOT/bin/ags-validate
  else
    echo "installing ags-validate (cargo install agentic-graph-spec --locked) into $AGS_ROOT..." >&2
    if cargo install --quiet agentic-graph-spec --locked --root "$AGS_ROOT" >"$TMP/install.log" 2>&1; then
      UPSTREAM=$AGS_ROOT/bin/ags-validate
    else
      note "could not install agentic-graph-spec; skipping the upstream validator"
      tail -5 "$TMP/install.log" >&2 || true
    fi
  fi
fi

# run LABEL TIMEOUT CMD... : prints one table row; a timeout or crash is reported in the row.
run() {
  local label=$1 limit=$2 size=$3
  shift 3
  local status=0
  if [ "$limit" -gt 0 ]; then
    /usr/bin/time -f '%e %M' -o "$TMP/time" timeout "$limit" "$@" >"$TMP/out" 2>"$TMP/err" || status=$?
  else
    /usr/bin/time -f '%e %M' -o "$TMP/time" "$@" >"$TMP/out" 2>"$TMP/err" || status=$?
  fi
  local secs rss_kb result
  read -r secs rss_kb < <(tail -1 "$TMP/time")
  case $status in
    0) result=ok ;;
    124) result="timeout (${limit} s)" ;;
    *) result="exit $status" ;;
  esac
  printf '| %-24s | %7s | %9s | %9s | %-18s |\n' "$label" "$size" "$secs" "$((rss_kb / 1024))" "$result"
}

echo
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "agc: $($AGC --version 2>/dev/null || echo unknown) (commit $(git describe --always --dirty 2>/dev/null || echo "?"))"
[ -n "$UPSTREAM" ] && echo "upstream: ags-validate $("$UPSTREAM" --version 2>/dev/null | awk '{print $NF}')"
echo
printf '| %-24s | %7s | %9s | %9s | %-18s |\n' tool nodes "wall (s)" "RSS (MiB)" result
printf '| %-24s | %7s | %9s | %9s | %-18s |\n' ------------------------ ------: --------: --------: ------------------
for n in $SIZES; do
  f="$TMP/layered-$n.agraph.yaml"
  "$GEN" "$n" --seed "$SEED" >"$f"
  size_mb=$(awk -v b="$(stat -c %s "$f")" 'BEGIN {printf "%.1f", b/1048576}')
  run "gen-ags (${size_mb} MB)" 0 "$n" "$GEN" "$n" --seed "$SEED"
  run "agc check" 0 "$n" "$AGC" check "$f"
  if [ "$HAS_BUILD" = 1 ]; then
    run "agc build" 0 "$n" "$AGC" build "$f"
  fi
  if [ -n "$UPSTREAM" ]; then
    if [ "$n" -le "$AGC_ONLY_ABOVE" ]; then
      run "ags-validate (upstream)" "$TIMEOUT" "$n" "$UPSTREAM" "$f"
    else
      printf '| %-24s | %7s | %9s | %9s | %-18s |\n' "ags-validate (upstream)" "$n" - - "not run (size)"
    fi
  fi
done
