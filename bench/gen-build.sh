#!/usr/bin/env bash
# Clean build time of a generated runner crate (issue 49 item 8; see bench/README.md): `agc gen
# rust` writes the crate of DOC into a scratch folder, depending on this checkout's
# agc-runtime by path, with the workspace's Cargo.lock (the same versions), and `cargo build`
# compiles it from nothing in a scratch target dir, deleted afterwards. Prints the wall time,
# the CPU time (user + system: less sensitive to other builds on the machine), the packages
# in its normal dependency tree and how many of them are ICU's (`icu_*`).
#
#   bench/gen-build.sh                                      # the AGS example, dev profile
#   DOC=examples/awp/... PROFILE=release bench/gen-build.sh
#
# Sources come from cargo's cache (`cargo fetch` first, outside the timing).
set -euo pipefail
cd "$(dirname "$0")/.."

DOC=${DOC:-examples/ags/changelog-release.agraph.yaml}
PROFILE=${PROFILE:-dev}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/agc-gen-build.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

cargo build -q -p agc --bin agc
target/debug/agc gen rust "$DOC" -o "$TMP/runner" --runtime "path=$PWD/runtime" >&2
cp Cargo.lock "$TMP/runner/Cargo.lock"

cd "$TMP/runner"
# Download what the lock names and resolve once, outside the timing.
cargo fetch -q
PKGS=$(cargo tree --offline -e normal --prefix none --format '{p}' | sed 's/ (.*//' | sort -u)
TOTAL=$(printf '%s\n' "$PKGS" | wc -l)
ICU=$(printf '%s\n' "$PKGS" | grep -c '^icu_' || true)
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
/usr/bin/time -f '%e %U %S' -o "$TMP/time" \
  env CARGO_TARGET_DIR="$TMP/target" cargo build --offline -q --profile "$PROFILE"
read -r WALL USER SYS <"$TMP/time"
CPU=$(echo "$USER + $SYS" | bc)
echo "$DOC ($PROFILE): clean build ${WALL} s wall, ${CPU} s CPU; ${TOTAL} packages, ${ICU} icu_*"
