#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The include rules of the layers (engine < ops < loaders, algorithms; docs/design/layering.md).
# Fails, listing file:line, when
#   - engine/ includes anything of ops/, loaders/ or algorithms/ (public headers or internals);
#   - loaders/ includes ops/ or algorithms/;
#   - algorithms/ includes an internal header (anything but the installed spindle/... headers
#     and its own algorithms/src/...);
#   - a file outside the CUDA backend (ops/cuda, ops/cuda_stub, engine/src/cuda), the
#     benchmarks and the tests includes the engine's CUDA internals (engine/src/cuda/...);
#   - an installed header (*/include/spindle/...) includes an internal one.
set -uo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp)
trap 'rm -f "$out"' EXIT
inc='#[[:space:]]*include[[:space:]]*"'
src() {
  find "$@" -type f \( -name '*.hpp' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' -o \
    -name '*.h' \) 2>/dev/null | sort
}
rule() {  # $1: the rule's name; stdin: grep -n lines
  sed "s|^|layering: $1: |" >>"$out"
}

src engine | xargs -r grep -nE "${inc}(ops/|loaders/|algorithms/|spindle/ops[/.]|spindle/loaders[/.]|spindle/algorithms[/.]|spindle/cuda/(tune|semiring|kernels))" |
  rule "engine includes a layer above it"
src loaders | xargs -r grep -nE "${inc}(ops/|algorithms/|spindle/ops[/.]|spindle/algorithms[/.])" |
  rule "loaders include ops or algorithms"
src algorithms | xargs -r grep -nE "${inc}" | grep -vE "${inc}(spindle/|algorithms/src/)" |
  rule "algorithms include an internal header"
src engine ops loaders algorithms apps/spindle python |
  grep -vE '^(ops/cuda/|ops/cuda_stub/|engine/src/cuda/)' |
  xargs -r grep -nE "${inc}engine/src/cuda/" | rule "the engine's CUDA internals outside the backend"
src engine/include ops/include loaders/include algorithms/include | xargs -r grep -nE "${inc}" |
  grep -E "${inc}(engine/|ops/|loaders/|algorithms/|apps/|\.\./)" |
  rule "an installed header includes an internal one"

if [ -s "$out" ]; then
  cat "$out"
  echo "layering: FAILED ($(wc -l <"$out") includes break the rules of .ci/check_layering.sh)"
  exit 1
fi
echo "layering: ok"
