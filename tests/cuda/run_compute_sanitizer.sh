#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs NVIDIA compute-sanitizer (memcheck, racecheck, initcheck, synccheck) over every `gpu`
# test executable of a CUDA build and prints one summary line per tool:
#
#   compute-sanitizer memcheck: 0 errors; tests 812 passed, 0 failed, 3 skipped; 2 executables; 95 s
#
# Usage: tests/cuda/run_compute_sanitizer.sh [-b BUILD_DIR] [-t "memcheck racecheck ..."]
#                                             [-f GTEST_FILTER] [-o LOG_DIR]
#   -b  CUDA build folder (default: build/cuda, the `cuda` preset's); build it first with
#       `cmake --workflow --preset cuda` or `cmake --preset cuda && cmake --build build/cuda`.
#   -t  tools to run (default: all four). Each tool runs every executable once, whole suite.
#   -f  gtest filter passed to every executable (default: all tests).
#   -o  where the full logs go (default: BUILD_DIR/compute-sanitizer; or $OUT/compute-sanitizer
#       when $OUT is set, so they come back from a remote run).
# The scale test (label `scale`) is excluded: it is far too large to run under a sanitizer.
# Exit status: 0 when every tool reports 0 errors and no test failed, 1 otherwise, 2 on usage
# or set-up errors.
set -uo pipefail
cd "$(dirname "$0")/../.."

build=build/cuda
tools="memcheck racecheck initcheck synccheck"
filter=""
logdir=""
while getopts "b:t:f:o:h" opt; do
  case $opt in
    b) build=$OPTARG ;;
    t) tools=$OPTARG ;;
    f) filter=$OPTARG ;;
    o) logdir=$OPTARG ;;
    h) sed -n '2,20p' "$0"; exit 0 ;;
    *) exit 2 ;;
  esac
done
[ -n "$logdir" ] || logdir=${OUT:+$OUT/compute-sanitizer}
[ -n "$logdir" ] || logdir=$build/compute-sanitizer
mkdir -p "$logdir"

cs=$(command -v compute-sanitizer || true)
[ -n "$cs" ] || for c in "${CUDA_HOME:-}" /usr/local/cuda /opt/nvidia/cuda; do
  [ -n "$c" ] && [ -x "$c/bin/compute-sanitizer" ] && cs=$c/bin/compute-sanitizer && break
done
if [ -z "$cs" ]; then
  echo "run_compute_sanitizer: compute-sanitizer not found (PATH, \$CUDA_HOME/bin, /usr/local/cuda/bin)" >&2
  exit 2
fi
if [ ! -f "$build/CTestTestfile.cmake" ]; then
  echo "run_compute_sanitizer: $build is not a configured build with tests (build the cuda preset first)" >&2
  exit 2
fi

# The executables behind the ctest entries labelled gpu (but not scale), one per line.
mapfile -t exes < <(ctest --test-dir "$build" -L gpu -LE scale --show-only=json-v1 2>/dev/null |
  python3 -c '
import json, sys
seen = []
for t in json.load(sys.stdin).get("tests", []):
    cmd = t.get("command") or []
    if cmd and cmd[0] not in seen:
        seen.append(cmd[0])
print("\n".join(seen))')
if [ ${#exes[@]} -eq 0 ] || [ -z "${exes[0]}" ]; then
  echo "run_compute_sanitizer: no gpu test executables found in $build" >&2
  exit 2
fi
echo "run_compute_sanitizer: $("$cs" --version | tail -1); ${#exes[@]} executable(s): ${exes[*]}"
echo "run_compute_sanitizer: logs in $logdir"

status=0
summaries=()
for tool in $tools; do
  case $tool in
    memcheck) extra=(--leak-check full) ;;
    racecheck) extra=(--racecheck-report all) ;;
    initcheck | synccheck) extra=() ;;
    *) echo "run_compute_sanitizer: unknown tool $tool" >&2; exit 2 ;;
  esac
  errors=0 passed=0 failed=0 skipped=0 crashed=0
  start=$(date +%s)
  for exe in "${exes[@]}"; do
    log="$logdir/$tool-$(basename "$exe").log"
    args=(--gtest_brief=1)
    [ -n "$filter" ] && args+=("--gtest_filter=$filter")
    "$cs" --tool "$tool" "${extra[@]}" --error-exitcode 99 --print-limit 200 \
      "$exe" "${args[@]}" > "$log" 2>&1
    rc=$?
    # "========= ERROR SUMMARY: 3 errors" (also "LEAK SUMMARY" lines count inside the errors).
    n=$(grep -Eo 'ERROR SUMMARY: [0-9]+ error' "$log" | grep -Eo '[0-9]+' | tail -1)
    if [ -z "$n" ]; then crashed=$((crashed + 1)); n=0; fi
    errors=$((errors + n))
    p=$(grep -Eo '\[  PASSED  \] [0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1)
    f=$(grep -Eo '\[  FAILED  \] [0-9]+ test' "$log" | grep -Eo '[0-9]+' | tail -1)
    s=$(grep -Eo '\[  SKIPPED \] [0-9]+ test' "$log" | grep -Eo '[0-9]+' | tail -1)
    passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0})); skipped=$((skipped + ${s:-0}))
    if [ $rc -ne 0 ] && [ "$n" -eq 0 ] && [ -z "$f" ]; then crashed=$((crashed + 1)); fi
  done
  secs=$(( $(date +%s) - start ))
  line="compute-sanitizer $tool: $errors errors; tests $passed passed, $failed failed, $skipped skipped; ${#exes[@]} executable(s); ${secs} s"
  [ $crashed -gt 0 ] && line="$line; $crashed run(s) ended without a summary (see logs)"
  summaries+=("$line")
  echo "$line"
  if [ $errors -ne 0 ] || [ $failed -ne 0 ] || [ $crashed -ne 0 ]; then status=1; fi
done

echo "---- summary ----"
printf '%s\n' "${summaries[@]}" | tee "$logdir/summary.txt"
exit $status
