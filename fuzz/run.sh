#!/usr/bin/env bash
# The fuzz campaign: runs every target for SECONDS each (default 60) with cargo fuzz on
# nightly, installing cargo-fuzz when it is absent, and prints one row per target with the
# executions reached. Not part of CI (CI replays fuzz/regressions/ in tests/fuzz_replay.rs).
#
#   fuzz/run.sh 600                 # ten minutes per target, every target
#   TARGETS="check mutate" fuzz/run.sh 300
#   RUNS=10000000 TARGETS=agx fuzz/run.sh 36000   # stop at ten million executions (or 10 h)
#   SANITIZER=none fuzz/run.sh 600   # no AddressSanitizer: several times faster (README)
#
# Settings: a run fails on a crash, on one input taking over 1 s (-timeout=1; TIMEOUT=N) and on more than
# 2 GiB of memory (-rss_limit_mb=2048). Seeds: the project's own examples and fixtures (never
# third-party corpus files). A failing input is copied to fuzz/regressions/<target>/ so that the
# replay test picks it up once the bug is fixed. JOBS (default 1) runs that many libFuzzer
# workers per target; the machine is shared, so the default is one.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_TARGET=${1:-60}
TARGETS=${TARGETS:-"load split check mutate template agx cel gotmpl jq jq_eval expr_eval lsp_change"}
JOBS=${JOBS:-1}
# libFuzzer's -timeout is wall-clock: on a loaded machine (or under `nice`) a starved process
# reports 5-byte inputs as "timeouts". TIMEOUT raises the limit for such runs; then replay any
# input that took long on a quiet core (`fuzz/target/.../release/TARGET FILE` prints its time).
TIMEOUT=${TIMEOUT:-1}
# RUNS: stop a target after that many executions (libFuzzer's -runs), SECONDS still bounding it.
RUNS=${RUNS:--1}
# SANITIZER: cargo fuzz's -s (address by default; `none` runs several times faster, and
# leaves unchecked the unsafe code of agc's `Str` and of its dependencies; see the README).
SANITIZER=${SANITIZER:-address}
# PLAIN_TARGETS: targets built without libFuzzer's comparison tracing (cargo fuzz's
# --no-trace-compares, into their own fuzz/target-plain so the others' build is kept). `mutate`
# reads its input as a list of choices (which seed, which value, which edit), never compared
# with the document's text, so the values the tracing feeds back to the mutator do not help it,
# and the tracing was over half of its instructions (bench: fuzz/README.md, 2026-12-02).
PLAIN_TARGETS=${PLAIN_TARGETS-mutate}
# Each target's libFuzzer log is kept in fuzz/logs/ (git-ignored), so that a run cut short
# still shows how far it got (its last `#N` status line).
mkdir -p fuzz/logs

if ! rustup toolchain list | grep -q '^nightly'; then
  echo "installing the nightly toolchain (cargo fuzz needs it)..." >&2
  rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "installing cargo-fuzz..." >&2
  cargo install cargo-fuzz --locked
fi

# Seed corpora from the project's own documents (the corpus folder is git-ignored).
seed() {
  local dir=fuzz/corpus/$1
  shift
  mkdir -p "$dir"
  for f in "$@"; do
    [ -f "$f" ] && cp "$f" "$dir/seed-$(basename "$(dirname "$f")")-$(basename "$f")"
  done
  return 0
}
seed load examples/ags/*.yaml tests/fixtures/*/*.yaml
seed check examples/ags/*.yaml tests/fixtures/*/*.yaml
seed split examples/*/*.yaml tests/fixtures/*/*.yaml

# Build the targets asked for (each in the folder it runs from; see PLAIN_TARGETS), before
# any run starts, so that a compile error stops the campaign at once.
# plain_args T: sets PLAIN to the build flags of target T (none, or those of PLAIN_TARGETS).
plain_args() {
  PLAIN=()
  if [[ " $PLAIN_TARGETS " == *" $1 "* ]]; then
    PLAIN=(--no-trace-compares --target-dir "$PWD/fuzz/target-plain")
  fi
}
echo "building the targets (nightly, release, sanitizer $SANITIZER)..." >&2
for t in $TARGETS; do
  plain_args "$t"
  cargo +nightly fuzz build --release -s "$SANITIZER" "${PLAIN[@]}" "$t" >&2
done

echo
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); at most ${SECONDS_PER_TARGET} s and $RUNS runs per target, $JOBS job(s), sanitizer $SANITIZER, commit $(git rev-parse --short HEAD)"
echo
printf '| %-9s | %8s | %12s | %8s | %-26s |\n' target seconds executions "exec/s" result
printf '| %-9s | %8s | %12s | %8s | %-26s |\n' --------- -------: -----------: -------: --------------------------
failed=0
for t in $TARGETS; do
  log=fuzz/logs/$t-$(date -u +%Y%m%dT%H%M%S).log
  start=$(date +%s)
  status=0
  parallel=()
  if [ "$JOBS" -gt 1 ]; then
    parallel=(-jobs="$JOBS" -workers="$JOBS")
    # The workers' logs of an earlier run would be counted with this one's.
    rm -f fuzz-*.log
  fi
  plain_args "$t"
  cargo +nightly fuzz run --release -s "$SANITIZER" "${PLAIN[@]}" "$t" -- \
    -max_total_time="$SECONDS_PER_TARGET" -runs="$RUNS" -timeout="$TIMEOUT" -rss_limit_mb=2048 \
    -print_final_stats=1 "${parallel[@]}" >"$log" 2>&1 || status=$?
  # With several jobs each worker logs to fuzz-N.log in the current folder, and libFuzzer
  # copies a worker's log into the main one when the worker ends: count the workers' own logs
  # when there are any (a stopped run has only those), else the main log, never both. A
  # one-job run has no worker logs: whatever fuzz-N.log an earlier run left is not its own.
  counted=("$log")
  if [ "$JOBS" -gt 1 ] && compgen -G 'fuzz-*.log' >/dev/null; then counted=(fuzz-*.log); fi
  execs=$( (cat "${counted[@]}" 2>/dev/null || true) | (grep 'stat::number_of_executed_units' || true) |
    awk '{s += $2} END {print s + 0}')
  took=$(($(date +%s) - start))
  rate=$(awk -v e="$execs" -v s="$took" 'BEGIN {printf "%d", e / (s > 0 ? s : 1)}')
  result=ok
  if [ "$status" != 0 ]; then
    failed=1
    result="FAILED (exit $status)"
    # libFuzzer's own verdict lines (the command line echoed into the log says -timeout too).
    if grep -q 'panicked at' "$log"; then result="PANIC (crash)"; fi
    if grep -q 'ERROR: libFuzzer: timeout' "$log"; then result="TIMEOUT (over ${TIMEOUT} s)"; fi
    if grep -q 'ERROR: libFuzzer: out-of-memory' "$log"; then result="OUT OF MEMORY"; fi
    mkdir -p "fuzz/regressions/$t"
    for a in fuzz/artifacts/"$t"/*; do
      [ -f "$a" ] && cp "$a" "fuzz/regressions/$t/" && echo "finding: $a -> fuzz/regressions/$t/" >&2
    done
    tail -40 "$log" >&2
  fi
  printf '| %-9s | %8s | %12s | %8s | %-26s |\n' "$t" "$took" "$execs" "$rate" "$result"
  rm -f fuzz-*.log
done
exit $failed
