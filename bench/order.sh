#!/usr/bin/env bash
# Regenerates compiler/link/symbol-order.txt, the order in which the release linker lays out
# agc's functions (see compiler/build.rs and bench/README.md, "Code laid out in the order a
# compile runs it").
#
#   bench/order.sh                 # write the file from training runs under callgrind
#   ORDER_KEEP=F bench/order.sh    # the same, keeping the training data in F
#   bench/order.sh --from F        # write the file from kept training data
#   bench/order.sh --check         # how many of the file's symbols the release binary has
#
# Training runs: `agc check`, `agc build` and `agc graph` on every example of each dialect,
# `agc check` on every test fixture (valid documents and broken ones), and `check` and `build`
# on generated graphs of each front end large enough to take the parallel paths (5,000
# nodes). Each runs under valgrind's callgrind, which names every function it entered; agc's
# own text symbols among them are kept. The file lists first the functions the large graphs
# entered, then the rest; within each part, those entered by runs of more dialects before
# those of fewer, grouped by which dialects, then the most entered first. So the code every
# compile runs is one block, and each dialect's own code another: a check of a large AWP
# workflow then touches about 2.1 MB of code pages, not 7 MB scattered over the whole text.
# Needs valgrind (installed with apt-get when absent). Takes about ten minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."
ORDER=compiler/link/symbol-order.txt
AGC=target/release/agc

if [ "${1:-}" = --check ]; then
  [ -x "$AGC" ] || { echo "error: build $AGC first (cargo build --release)" >&2; exit 2; }
  total=$(wc -l <"$ORDER")
  found=$(nm --defined-only "$AGC" | awk '{print $NF}' | sort -u | comm -12 - <(sort -u "$ORDER") | wc -l)
  echo "symbol order: $found of $total symbols in $ORDER are in $AGC"
  exit 0
fi

if ! command -v valgrind >/dev/null 2>&1; then
  echo "note: installing valgrind" >&2
  apt-get install -y -qq valgrind >/dev/null 2>&1 ||
    (apt-get update -qq && apt-get install -y -qq valgrind >/dev/null) ||
    { echo "error: valgrind is needed (apt-get install valgrind)" >&2; exit 2; }
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/agc-order.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

if [ "${1:-}" = --from ]; then
  # Reorders from the training data an earlier run kept (ORDER_KEEP=FILE).
  cp "$2" "$TMP/entered"
else
  echo "building agc and the generators (release)..." >&2
  cargo build --release --quiet -p agc --bin agc -p agc-bench --bin gen-ags --bin gen-dialect \
    --bin gen-awp

  # Training inputs: the shipped examples and test fixtures (every dialect, valid and not), and
  # one generated graph per front end.
  mkdir -p "$TMP/gen/ag/graphs"
  N=5000
  target/release/gen-ags "$N" --seed 1 >"$TMP/gen/layered.agraph.yaml"
  target/release/gen-dialect ags-composite "$N" --seed 1 >"$TMP/gen/composite.agraph.yaml"
  target/release/gen-dialect agh "$N" --seed 1 >"$TMP/gen/big.loop.yaml"
  target/release/gen-awp "$N" 1 >"$TMP/gen/big.workflow.json"
  target/release/gen-dialect awp-wide "$N" >"$TMP/gen/wide.workflow.yaml"
  target/release/gen-dialect agent-graph "$N" --seed 1 >"$TMP/gen/ag/graphs/big.yaml"

  # The agc text symbols, to keep only agc's own functions from callgrind's list.
  nm --defined-only "$AGC" | awk '$2 ~ /^[tTwW]$/ {print $3}' | sort -u >"$TMP/text"

  runs=0
  # train CLASS ARGS...: runs agc ARGS under callgrind and keeps the agc functions it entered,
  # as lines `symbol run class`. CLASS is the run's dialect, `big-` before it for a large graph.
  train() {
    local class=$1
    shift
    runs=$((runs + 1))
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$TMP/cg" \
      "$AGC" "$@" >/dev/null 2>&1 || true
    # Callgrind names a function once, as `fn=(id) name` or `cfn=(id) name`, then by id.
    sed -nE 's/^c?fn=\([0-9]+\) (.*)$/\1/p' "$TMP/cg" | sort -u | comm -12 - "$TMP/text" |
      awk -v run="$runs" -v class="$class" '{print $0, run, class}' >>"$TMP/entered"
    rm -f "$TMP/cg"
  }
  # The dialect of a shipped example or fixture, from its folder.
  dialect() {
    case $1 in
      */ags/*) echo ags ;; */agh/*) echo agh ;; */agent-graph/*) echo ag ;; */awp/*) echo awp ;;
      *) echo misc ;;
    esac
  }

  : >"$TMP/entered"
  docs() { find "$@" -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' -o -name '*.md' \) | sort; }
  while IFS= read -r f; do
    train "$(dialect "$f")" check "$f"
    train "$(dialect "$f")" build "$f" -o /dev/null
    train "$(dialect "$f")" graph "$f"
  done < <(docs examples/ags examples/agh examples/agent-graph examples/awp)
  while IFS= read -r f; do
    train "$(dialect "$f")" check "$f"
  done < <(docs tests/fixtures)
  for f in layered.agraph.yaml:ags composite.agraph.yaml:ags big.loop.yaml:agh \
    big.workflow.json:awp wide.workflow.yaml:awp ag/graphs/big.yaml:ag; do
    train "big-${f#*:}" check "$TMP/gen/${f%:*}"
    train "big-${f#*:}" build "$TMP/gen/${f%:*}" -o /dev/null
  done
  echo "trained on $runs runs" >&2
  [ -n "${ORDER_KEEP:-}" ] && cp "$TMP/entered" "$ORDER_KEEP"
fi

# Per symbol, two keys: the dialects whose large graphs entered it, and the dialects of all
# the runs that did (each a sorted `+` list, `-` for none). The code of large graphs comes
# first; within it and after it, code used by more dialects before code used by fewer, so that
# the code every compile runs is one block and each dialect's own code another.
mkdir -p "$(dirname "$ORDER")"
sort -k1,1 "$TMP/entered" |
  awk 'function key(set,   n, i, k, parts, out) {
         n = split("ag agh ags awp misc", parts, " "); out = ""; k = 0
         for (i = 1; i <= n; i++) if ((parts[i]) in set) { out = out (k ? "+" : "") parts[i]; k++ }
         return (9 - k) " " (k ? out : "-")
       }
       function flush() {
         if (sym != "") print (nbig ? 0 : 1), key(big), key(all), 100000 - n, sym
         delete big; delete all; n = 0; nbig = 0
       }
       { if ($1 != sym) { flush(); sym = $1 }
         n++; d = $3; if (d ~ /^big-/) { nbig++; sub(/^big-/, "", d); big[d] = 1 }; all[d] = 1 }
       END { flush() }' |
  sort -k1,1n -k2,2n -k3,3 -k4,4n -k5,5 -k6,6n -k7,7 | awk '{print $NF}' >"$ORDER"
echo "wrote $ORDER: $(wc -l <"$ORDER") symbols" >&2
