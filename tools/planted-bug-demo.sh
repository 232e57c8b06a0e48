#!/usr/bin/env bash
# Does differential fuzzing catch a one-bit BFP rounding bug?
#
# In a scratch worktree of HEAD (never committed, removed afterwards), BFP8
# rounding is changed from "half away from zero" to "half toward zero": the
# rounding increment loses its lowest unit, so only exact ties change, and
# only by one in the last mantissa bit. Then:
#   1. `pack_tile_diff` is fuzzed from an empty corpus for at most
#      $FUZZ_SECONDS (default 60) seconds;
#   2. `tensix-harness repro` shrinks the finding to a tensix-vector/1 file;
#   3. that vector must fail on the broken tree and pass on the real one.
# Exits 0 only if all three happen. Needs cargo-fuzz (see fuzz/README.md).
#
#   tools/planted-bug-demo.sh            # seed 1
#   SEED=7 tools/planted-bug-demo.sh
set -euo pipefail

root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
seconds=${FUZZ_SECONDS:-60}
seed=${SEED:-1}
scratch=$(mktemp -d)
tree=$scratch/tree

cleanup() {
    git -C "$root" worktree remove --force "$tree" >/dev/null 2>&1 || true
    rm -rf "$scratch"
}
trap cleanup EXIT

git -C "$root" worktree add --detach "$tree" HEAD >/dev/null
correct='let r = (m + (1 << s)) >> (s + 1);'
broken='let r = (m + (1 << s) - 1) >> (s + 1);'
file=$tree/emu/src/format/bfp.rs
if ! grep -qF "$correct" "$file"; then
    echo "planted-bug-demo: the BFP8 rounding line is not in $file any more; update this script" >&2
    exit 2
fi
sed -i "s/$(printf '%s' "$correct" | sed 's/[][\/.*^$]/\\&/g')/$broken/" "$file"
grep -qF "$broken" "$file"
echo "planted: ${file#"$tree"/}: $broken"

mkdir -p "$scratch/corpus" "$scratch/artifacts"
start=$(date +%s)
(cd "$tree/fuzz" && cargo fuzz build -s none pack_tile_diff)
fuzz_start=$(date +%s)
if (cd "$tree/fuzz" && cargo fuzz run -s none pack_tile_diff "$scratch/corpus" -- \
    -max_total_time="$seconds" -seed="$seed" \
    -artifact_prefix="$scratch/artifacts/" >"$scratch/fuzz.log" 2>&1); then
    echo "planted-bug-demo: pack_tile_diff ran $seconds s without finding the bug" >&2
    exit 1
fi
found=$(date +%s)
artifact=$(find "$scratch/artifacts" -name 'crash-*' | head -n 1)
[ -n "$artifact" ] || { echo "planted-bug-demo: fuzzing stopped without an artifact" >&2; tail -n 20 "$scratch/fuzz.log" >&2; exit 1; }
execs=$(grep -oE '^#[0-9]+' "$scratch/fuzz.log" | tail -n 1)
echo "found after $((found - fuzz_start)) s of fuzzing (last status line ${execs:-#?}), build $((fuzz_start - start)) s"
grep -m 1 -A 5 'panicked' "$scratch/fuzz.log" || true

(cd "$tree" && cargo build --release -q -p tensix-harness)
"$tree/target/release/tensix-harness" repro pack_tile_diff "$artifact" -o "$scratch/repro"
vector=$(find "$scratch/repro" -name '*.yaml' | head -n 1)
echo "--- $vector"
cat "$vector"

if "$tree/target/release/tensix-harness" run "$vector" >/dev/null; then
    echo "planted-bug-demo: the repro vector passes on the broken tree" >&2
    exit 1
fi
echo "the vector fails on the broken tree"
(cd "$root" && cargo run --release -q -p tensix-harness -- run "$vector" >/dev/null) || {
    echo "planted-bug-demo: the repro vector fails on the real tree too" >&2
    exit 1
}
echo "the vector passes on the real tree"
