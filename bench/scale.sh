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
# this run agc only; default 10000, since the upstream validator is quadratic), RUNS (runs
# of each agc command; the table shows the fastest and the median, since shared 2-core
# machines vary by tens of percent from run to run; default 3), JSON=1 (also time each graph
# written as JSON: `agc check` on it, and serde_json building a value from it), DIALECTS=0
# (skip the other front ends: by default each size also times `agc check` on an Agent Graph
# graph and an agh Loop of that many nodes from `gen-dialect`, and on an AWP workflow of that
# many jq programs from `gen-awp`, and `agc build` on AGS graphs of that many loops, maps and
# subgraphs (`gen-dialect ags-composite`) and of one node read by all and one reading all
# (`ags-wide`), and `agc check` on the wide agh and AWP shapes (`agh-wide`, `awp-wide`), with
# their growth between sizes).
#
# After the timings, a second table gives the ratios of issue 13's scale goal: `agc check` and
# `agc build` against the floor (`yaml-floor`: the same file read and every event pulled out
# of saphyr-parser, the YAML parser agc uses, building nothing), peak RSS against the input's
# size, and t(10n)/t(n) between sizes ten times apart. Goals: within 3x the floor, at most
# 20x the input in memory, t(100k)/t(10k) at most 11.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-"1000 10000 100000"}
SEED=${SEED:-1}
TIMEOUT=${TIMEOUT:-120}
AGC_ONLY_ABOVE=${AGC_ONLY_ABOVE:-10000}
RUNS=${RUNS:-3}
DIALECTS=${DIALECTS:-1}
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
cargo build --release --quiet -p agc --bin agc -p agc-bench --bin gen-ags --bin yaml-floor \
  --bin gen-dialect --bin gen-awp
AGC=target/release/agc
GEN=target/release/gen-ags
FLOOR=target/release/yaml-floor

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

# run LABEL TIMEOUT SIZE CMD... : prints one table row; a timeout or crash is reported in the
# row. With RUNS set in the environment of the call, the command runs that many times: the row
# shows the fastest wall time, the median, and the largest peak RSS.
run() {
  local label=$1 limit=$2 size=$3
  shift 3
  local runs=${RUNS_OF_THIS:-1} status=0 i times=() rss_max=0 secs rss_kb t0 t1
  for ((i = 0; i < runs; i++)); do
    t0=$(date +%s%N)
    if [ "$limit" -gt 0 ]; then
      /usr/bin/time -f '%e %M' -o "$TMP/time" timeout "$limit" "$@" >"$TMP/out" 2>"$TMP/err" || status=$?
    else
      /usr/bin/time -f '%e %M' -o "$TMP/time" "$@" >"$TMP/out" 2>"$TMP/err" || status=$?
    fi
    t1=$(date +%s%N)
    # Peak RSS from GNU time; the wall time from the clock around it in milliseconds (time's
    # %e has 0.01 s steps, as coarse as the whole 1k-node check).
    read -r secs rss_kb < <(tail -1 "$TMP/time")
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", (b - a) / 1e9}')
    times+=("$secs")
    [ "$rss_kb" -gt "$rss_max" ] && rss_max=$rss_kb
    [ "$status" = 0 ] || break
  done
  local result best median
  case $status in
    0) result=ok ;;
    124) result="timeout (${limit} s)" ;;
    *) result="exit $status" ;;
  esac
  best=$(printf '%s\n' "${times[@]}" | sort -n | head -1)
  LAST_BEST=$best LAST_RSS=$rss_max LAST_STATUS=$status
  median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  printf '| %-24s | %7s | %9s | %10s | %9s | %-18s |\n' "$label" "$size" "$best" "$median" "$((rss_max / 1024))" "$result"
}

echo
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "agc: $($AGC --version 2>/dev/null || echo unknown) (commit $(git describe --always --dirty 2>/dev/null || echo "?"))"
# Whether the release linker's function order (compiler/build.rs) still names this binary's
# functions: a stale order costs megabytes of peak RSS on every row below.
command -v nm >/dev/null && bench/order.sh --check
[ -n "$UPSTREAM" ] && echo "upstream: ags-validate $("$UPSTREAM" --version 2>/dev/null | awk '{print $NF}')"
echo
echo "(wall: fastest of the runs; median: of $RUNS runs for agc, one run otherwise)"
echo
printf '| %-24s | %7s | %9s | %10s | %9s | %-18s |\n' tool nodes "wall (s)" "median (s)" "RSS (MiB)" result
printf '| %-24s | %7s | %9s | %10s | %9s | %-18s |\n' ------------------------ ------: --------: ---------: --------: ------------------
declare -A BYTES FLOOR_S CHECK_S CHECK_KB BUILD_S BUILD_KB JCHECK_S JFLOOR_S PLAN_B CPLAN_B
declare -A DIALECT_S DIALECT_KB DIALECT_B
for n in $SIZES; do
  f="$TMP/layered-$n.agraph.yaml"
  "$GEN" "$n" --seed "$SEED" >"$f"
  BYTES[$n]=$(stat -c %s "$f")
  size_mb=$(awk -v b="${BYTES[$n]}" 'BEGIN {printf "%.1f", b/1048576}')
  run "gen-ags (${size_mb} MB)" 0 "$n" "$GEN" "$n" --seed "$SEED"
  RUNS_OF_THIS=$RUNS run "yaml-floor (events)" 0 "$n" "$FLOOR" "$f"
  FLOOR_S[$n]=$LAST_BEST
  RUNS_OF_THIS=$RUNS run "agc check" 0 "$n" "$AGC" check "$f"
  CHECK_S[$n]=$LAST_BEST CHECK_KB[$n]=$LAST_RSS
  if [ "$HAS_BUILD" = 1 ]; then
    RUNS_OF_THIS=$RUNS run "agc build" 0 "$n" "$AGC" build "$f"
    BUILD_S[$n]=$LAST_BEST BUILD_KB[$n]=$LAST_RSS
    PLAN_B[$n]=$(stat -c %s "$TMP/out")
    run "agc build --compact" 0 "$n" "$AGC" build --compact "$f"
    CPLAN_B[$n]=$(stat -c %s "$TMP/out")
  fi
  if [ "${JSON:-0}" = 1 ]; then
    j="$TMP/layered-$n.agraph.json"
    "$GEN" "$n" --seed "$SEED" --json >"$j"
    RUNS_OF_THIS=$RUNS run "yaml-floor (json events)" 0 "$n" "$FLOOR" "$j"
    JFLOOR_S[$n]=$LAST_BEST
    RUNS_OF_THIS=$RUNS run "serde_json value (json)" 0 "$n" "$FLOOR" "$j" --serde-json
    RUNS_OF_THIS=$RUNS run "agc check (json)" 0 "$n" "$AGC" check "$j"
    JCHECK_S[$n]=$LAST_BEST
  fi
  if [ "$DIALECTS" = 1 ]; then
    # A lone graph file (its action files are not resolved), a Loop, a workflow.
    mkdir -p "$TMP/ag-$n/graphs"
    target/release/gen-dialect agent-graph "$n" --seed "$SEED" >"$TMP/ag-$n/graphs/big.yaml"
    target/release/gen-dialect agh "$n" --seed "$SEED" >"$TMP/big-$n.loop.yaml"
    target/release/gen-awp "$n" "$SEED" >"$TMP/big-$n.workflow.json"
    target/release/gen-dialect ags-composite "$n" --seed "$SEED" >"$TMP/composite-$n.agraph.yaml"
    target/release/gen-dialect ags-wide "$n" >"$TMP/wide-$n.agraph.yaml"
    target/release/gen-dialect agh-wide "$n" >"$TMP/wide-$n.loop.yaml"
    target/release/gen-dialect awp-wide "$n" >"$TMP/wide-$n.workflow.yaml"
    for d in agent-graph agh awp ags-composite ags-wide agh-wide awp-wide; do
      case $d in
        agent-graph) f="$TMP/ag-$n/graphs/big.yaml" ;;
        agh) f="$TMP/big-$n.loop.yaml" ;;
        awp) f="$TMP/big-$n.workflow.json" ;;
        ags-composite) f="$TMP/composite-$n.agraph.yaml" ;;
        ags-wide) f="$TMP/wide-$n.agraph.yaml" ;;
        agh-wide) f="$TMP/wide-$n.loop.yaml" ;;
        awp-wide) f="$TMP/wide-$n.workflow.yaml" ;;
      esac
      if [ "${d#ags-}" != "$d" ] && [ "$HAS_BUILD" = 1 ]; then
        # Regions and links per node: the build is what these shapes measure.
        RUNS_OF_THIS=$RUNS run "agc build ($d)" 0 "$n" "$AGC" build "$f" -o "$TMP/$d-$n.plan.json"
      else
        RUNS_OF_THIS=$RUNS run "agc check ($d)" 0 "$n" "$AGC" check "$f"
      fi
      DIALECT_S[$d-$n]=$LAST_BEST DIALECT_KB[$d-$n]=$LAST_RSS DIALECT_B[$d-$n]=$(stat -c %s "$f")
    done
  fi
  if [ -n "$UPSTREAM" ]; then
    if [ "$n" -le "$AGC_ONLY_ABOVE" ]; then
      run "ags-validate (upstream)" "$TIMEOUT" "$n" "$UPSTREAM" "$f"
    else
      printf '| %-24s | %7s | %9s | %10s | %9s | %-18s |\n' "ags-validate (upstream)" "$n" - - - "not run (size)"
    fi
  fi
done

# ratio A B: A/B with two decimals, or "-" when either is missing or B is zero.
ratio() { awk -v a="${1:-}" -v b="${2:-}" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'; }

echo
echo "Ratios (goals: check and build within 3x the floor; peak RSS at most 20x the input; the"
echo "plan at most 2x the input):"
echo
printf '| %7s | %11s | %9s | %11s | %11s | %12s | %12s | %7s | %10s |\n' nodes "input (MiB)" "floor (s)" "check/floor" "build/floor" "check RSS/in" "build RSS/in" "plan/in" "compact/in"
printf '| %7s | %11s | %9s | %11s | %11s | %12s | %12s | %7s | %10s |\n' ------: ----------: --------: ----------: ----------: -----------: -----------: ------: ---------:
for n in $SIZES; do
  in_mib=$(awk -v b="${BYTES[$n]}" 'BEGIN {printf "%.1f", b/1048576}')
  printf '| %7s | %11s | %9s | %11s | %11s | %12s | %12s | %7s | %10s |\n' "$n" "$in_mib" "${FLOOR_S[$n]}" \
    "$(ratio "${CHECK_S[$n]}" "${FLOOR_S[$n]}")" "$(ratio "${BUILD_S[$n]:-}" "${FLOOR_S[$n]}")" \
    "$(ratio "$((CHECK_KB[$n] * 1024))" "${BYTES[$n]}")" "$(ratio "$((${BUILD_KB[$n]:-0} * 1024))" "${BYTES[$n]}")" \
    "$(ratio "${PLAN_B[$n]:-}" "${BYTES[$n]}")" "$(ratio "${CPLAN_B[$n]:-}" "${BYTES[$n]}")"
done
if [ "${JSON:-0}" = 1 ]; then
  echo
  echo "JSON input: agc check on the graph written as JSON, against the event floor of that file:"
  for n in $SIZES; do
    echo "  $n nodes: agc check (json) ${JCHECK_S[$n]} s = $(ratio "${JCHECK_S[$n]}" "${JFLOOR_S[$n]}")x its event floor, $(ratio "${JCHECK_S[$n]}" "${CHECK_S[$n]}")x the YAML check"
  done
fi
echo
echo "Growth between sizes ten times apart (goal: t(100k)/t(10k) at most 11):"
for n in $SIZES; do
  m=$((n * 10))
  if [ -n "${CHECK_S[$m]:-}" ]; then
    echo "  t($m)/t($n): check $(ratio "${CHECK_S[$m]}" "${CHECK_S[$n]}"), build $(ratio "${BUILD_S[$m]:-}" "${BUILD_S[$n]:-}"), floor $(ratio "${FLOOR_S[$m]}" "${FLOOR_S[$n]}")"
  fi
done
if [ "$DIALECTS" = 1 ]; then
  echo
  echo "Other front ends and shapes (awp: N jq programs; ags-composite: agc build of N loops,"
  echo "maps and subgraphs; ags-wide: agc build of one node read by N, read by one; agh-wide:"
  echo "one node fed and read by N; awp-wide: N/2 branches sharing a tail of N/2), peak RSS"
  echo "against the input, and growth:"
  for d in agent-graph agh awp ags-composite ags-wide agh-wide awp-wide; do
    for n in $SIZES; do
      m=$((n * 10))
      growth=""
      if [ -n "${DIALECT_S[$d-$m]:-}" ]; then
        growth=", t($m)/t($n) $(ratio "${DIALECT_S[$d-$m]}" "${DIALECT_S[$d-$n]}")"
      fi
      echo "  $d $n: ${DIALECT_S[$d-$n]} s, RSS $(ratio "$((DIALECT_KB[$d-$n] * 1024))" "${DIALECT_B[$d-$n]}")x the input$growth"
    done
  done
fi
