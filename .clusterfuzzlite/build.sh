#!/bin/bash -eu
# Build every cargo-fuzz target into $OUT, with each target's seed corpus
# beside it as TARGET_seed_corpus.zip, as ClusterFuzzLite and OSS-Fuzz expect.
#
# In their images SANITIZER is set (address, undefined, coverage, ...) and the
# toolchain is nightly; cargo fuzz builds with that sanitizer. Anywhere else it
# builds without one, on stable:
#
#   OUT=$(mktemp -d) .clusterfuzzlite/build.sh
: "${OUT:?set OUT to the directory the fuzz target binaries go to}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
if [ -n "${SRC:-}" ] && [ -d "$SRC/tensix-packunpack/fuzz" ]; then
  repo="$SRC/tensix-packunpack"
fi
cd "$repo/fuzz"

if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

sanitizer="${SANITIZER:-none}"
case "$sanitizer" in
  none) build_args=(-O --debug-assertions -s none) ;;
  *) build_args=(-O --debug-assertions) ;;
esac
cargo fuzz build "${build_args[@]}"

triple="$(rustc -vV | sed -n 's/^host: //p')"
mkdir -p "$OUT"
for target in $(cargo fuzz list); do
  cp "target/$triple/release/$target" "$OUT/"
  if command -v zip >/dev/null 2>&1; then
    rm -f "$OUT/${target}_seed_corpus.zip"
    zip -q -j "$OUT/${target}_seed_corpus.zip" corpus/"$target"/seed-* \
      $(find "regressions/$target" -type f ! -name '.*' ! -name '*.md')
  fi
done
echo "built $(cargo fuzz list | wc -l) fuzz targets into $OUT"
