#!/usr/bin/env bash
# Where one run of agc keeps the cores busy, over time: samples the process on every thread
# (`perf record -e cpu-clock`, a software clock, so it works where the machine exposes no
# hardware counters) and prints, per time slice, the cores in use (CPU seconds per second),
# the threads seen, and the functions most sampled. A slice with about one core in use while
# agc has two is a serial stretch: the place to look when wall time grows faster than the
# instruction counts (bench/instructions.sh) say the work does.
#
#   bench/timeline.sh build 100000           # agc build on a 100k-node gen-ags graph
#   bench/timeline.sh check 10000
#   SLICE=0.05 bench/timeline.sh build 100000
#
# Environment: SLICE (seconds per row, default 0.1), SEED (generator seed, default 1), HZ
# (samples per second per thread, default 4999). Run it on an otherwise idle machine: other
# load takes cores away from agc's threads, which then show as idle slices.
set -euo pipefail
if [ $# -ne 2 ] || { [ "$1" != build ] && [ "$1" != check ]; }; then
  echo "usage: [SLICE=0.1] [SEED=1] [HZ=4999] $0 build|check NODES" >&2
  exit 2
fi
CMD=$1
NODES=$2
SLICE=${SLICE:-0.1}
SEED=${SEED:-1}
HZ=${HZ:-4999}
number() { [[ $2 =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk -v v="$2" 'BEGIN { exit !(v > 0) }' ||
  { echo "error: $1 must be a positive number, not \`$2\`" >&2; exit 2; }; }
[[ $NODES =~ ^[0-9]+$ ]] || { echo "error: NODES must be a whole number, not \`$NODES\`" >&2; exit 2; }
number SLICE "$SLICE"
[[ $HZ =~ ^[1-9][0-9]*$ ]] || { echo "error: HZ must be a whole number above 0, not \`$HZ\`" >&2; exit 2; }
cd "$(dirname "$0")/.."
command -v perf >/dev/null || { echo "error: perf is needed (Debian: linux-perf)" >&2; exit 2; }
# perf lowers a rate above the kernel's maximum, which would make the core counts wrong.
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo "$HZ")
[ "$HZ" -le "$max" ] || { echo "error: HZ $HZ is above this kernel's sampling maximum, $max" >&2; exit 2; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/agc-timeline.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

echo "building agc and gen-ags (release)..." >&2
cargo build --release --quiet -p agc --bin agc -p agc-bench --bin gen-ags
target/release/gen-ags "$NODES" --seed "$SEED" >"$TMP/g.yaml"
args=("$CMD" "$TMP/g.yaml")
[ "$CMD" = build ] && args+=(-o "$TMP/plan.json")
perf record -q -e cpu-clock -F "$HZ" -o "$TMP/perf.data" target/release/agc "${args[@]}" \
  >/dev/null 2>"$TMP/perf.err" || true
[ -s "$TMP/perf.data" ] || { echo "error: perf recorded nothing:" >&2; cat "$TMP/perf.err" >&2; exit 1; }
echo "agc $CMD, $NODES nodes; slices of $SLICE s (cores: CPU seconds per second)"
perf script -i "$TMP/perf.data" -F tid,time,ip,sym 2>/dev/null |
  awk -v slice="$SLICE" -v hz="$HZ" '
    {
      tid = $1; t = $2; sub(/:$/, "", t); t += 0
      sym = ""; for (i = 4; i <= NF; i++) sym = sym (i > 4 ? " " : "") $i
      if (sym == "") sym = "?"
      sym = substr(sym, 1, 56)
      if (t0 == "") t0 = t
      b = int((t - t0) / slice)
      n[b]++; c[b, sym]++; if (!((b, tid) in seen)) { seen[b, tid] = 1; th[b]++ }
      if (b > last) last = b
      syms[b] = syms[b] SUBSEP sym
    }
    END {
      for (b = 0; b <= last; b++) {
        line = sprintf("%6.2fs cores %4.2f threads %2d ", b * slice, n[b] / hz / slice, th[b])
        # the three functions most sampled in the slice
        delete done
        m = split(syms[b], list, SUBSEP)
        for (k = 1; k <= 3; k++) {
          best = ""; bc = 0
          for (i = 2; i <= m; i++) {
            s = list[i]
            if (!(s in done) && c[b, s] > bc) { best = s; bc = c[b, s] }
          }
          if (best == "") break
          done[best] = 1
          line = line sprintf(" | %s %d", best, bc)
        }
        print line
      }
    }'
