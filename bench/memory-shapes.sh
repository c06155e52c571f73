#!/usr/bin/env bash
# Peak memory of `agc check` per input byte, by document shape (issue 47: check and build
# memory within a fixed multiple of the input on every shape; see bench/README.md).
#
#   bench/memory-shapes.sh                  # 1M items per shape
#   N=250000 bench/memory-shapes.sh         # smaller
#   AGC=target/release/agc bench/memory-shapes.sh
#
# Each shape is the example AGS document with one extra top-level key holding it (an
# unknown field: the document also gets AG003, which a schema error used to pay for with a
# JSON copy of the whole document). Prints the input's size, peak RSS (`/usr/bin/time -f %M`)
# and the RSS above the example alone per byte added. Needs python3 and GNU time.
set -euo pipefail
# A relative AGC names a binary from where the script was started.
AGC=${AGC:-}
if [ -n "$AGC" ] && [ "${AGC#/}" = "$AGC" ]; then AGC="$PWD/$AGC"; fi
cd "$(dirname "$0")/.."

N=${N:-1000000}
if [ -z "$AGC" ]; then
  for c in target/release/agc target/debug/agc; do
    if [ -x "$c" ]; then AGC=$c; break; fi
  done
fi
[ -n "$AGC" ] || { echo "build agc first (cargo build --release)" >&2; exit 2; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/agc-shapes.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

python3 - "$TMP" "$N" <<'PY'
import json, sys
tmp, n = sys.argv[1], int(sys.argv[2])
base = open("examples/ags/changelog-release.agraph.yaml").read()
shapes = {
    "base": "",
    "flow-list": "x: [" + ",".join(["1"] * n) + "]\n",
    "block-list": "x:\n" + "- 1\n" * n,
    "block-map": "x:\n" + "".join(f"  k{i}: 1\n" for i in range(n // 2)),
    "flow-maps": "x: [" + ",".join(['{"a":1}'] * (n // 2)) + "]\n",
    "long-string": "x: \"" + "a" * (5 * n) + "\"\n",
    "nested-lists": "x: [" + ",".join(["[[1]]"] * (n // 4)) + "]\n",
}
for name, extra in shapes.items():
    open(f"{tmp}/{name}.yaml", "w").write(base + extra)
PY

printf '%-14s %12s %12s %18s\n' shape "input (MB)" "peak (MB)" "above base/input"
base_kb=0
base_bytes=0
for shape in base flow-list block-list block-map flow-maps long-string nested-lists; do
  f="$TMP/$shape.yaml"
  bytes=$(stat -c %s "$f")
  /usr/bin/time -f %M -o "$TMP/rss" "$AGC" check "$f" >/dev/null 2>&1 || true
  kb=$(tail -1 "$TMP/rss")
  if [ "$shape" = base ]; then
    base_kb=$kb
    base_bytes=$bytes
    printf '%-14s %12.1f %12.1f %18s\n' "$shape" "$(echo "$bytes/1048576" | bc -l)" "$(echo "$kb/1024" | bc -l)" "-"
  else
    ratio=$(echo "($kb - $base_kb) * 1024 / ($bytes - $base_bytes)" | bc -l)
    printf '%-14s %12.1f %12.1f %17.1fx\n' "$shape" "$(echo "$bytes/1048576" | bc -l)" "$(echo "$kb/1024" | bc -l)" "$ratio"
  fi
done
