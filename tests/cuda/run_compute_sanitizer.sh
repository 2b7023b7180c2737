#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs NVIDIA compute-sanitizer (memcheck, racecheck, initcheck, synccheck) over every `gpu`
# test executable of a CUDA build and prints one summary line per tool:
#
#   compute-sanitizer memcheck: 0 errors; tests 812 passed, 0 failed, 3 skipped; 2 executables; 95 s
#
# Usage: tests/cuda/run_compute_sanitizer.sh [-b BUILD_DIR] [-t "memcheck racecheck ..."]
#                                             [-f GTEST_FILTER] [-o LOG_DIR] [-j SHARDS]
#                                             [-x "EXECUTABLE ..."]
#   -b  CUDA build folder (default: build/cuda, the `cuda` preset's); build it first with
#       `cmake --workflow --preset cuda` or `cmake --preset cuda && cmake --build build/cuda`.
#   -t  tools to run (default: all four). Each tool runs every executable once, whole suite.
#   -f  gtest filter passed to every executable (default: all tests).
#   -j  run each executable as this many gtest shards in parallel (default 1; at most one shard
#       per test)
#   -x  these test executables instead of the build's `gpu` ctest entries (e.g. binaries built
#       elsewhere and copied to the GPU machine)
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
jobs=1
explicit=""
while getopts "b:t:f:o:j:x:h" opt; do
  case $opt in
    b) build=$OPTARG ;;
    t) tools=$OPTARG ;;
    f) filter=$OPTARG ;;
    o) logdir=$OPTARG ;;
    j) jobs=$OPTARG ;;
    x) explicit=$OPTARG ;;
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
if [ -z "$explicit" ] && [ ! -f "$build/CTestTestfile.cmake" ]; then
  echo "run_compute_sanitizer: $build is not a configured build with tests (build the cuda preset first)" >&2
  exit 2
fi

# The executables behind the ctest entries labelled gpu (but not scale), one per line.
if [ -n "$explicit" ]; then
  read -r -a exes <<< "$explicit"
else
mapfile -t exes < <(ctest --test-dir "$build" -L gpu -LE scale --show-only=json-v1 2>/dev/null |
  python3 -c '
import json, os, sys
# A test is either the executable itself or (gtest_discover_tests, PRE_TEST discovery) a cmake
# script call that names it as -D TEST_EXECUTABLE=...: take whichever names a spindle_ binary.
seen = []
for t in json.load(sys.stdin).get("tests", []):
    for arg in t.get("command") or []:
        path = arg.split("TEST_EXECUTABLE=", 1)[1] if "TEST_EXECUTABLE=" in arg else arg
        if os.path.basename(path).startswith("spindle_") and os.access(path, os.X_OK):
            if path not in seen:
                seen.append(path)
            break
print("\n".join(seen))')
fi
if [ ${#exes[@]} -eq 0 ] || [ -z "${exes[0]}" ]; then
  echo "run_compute_sanitizer: no gpu test executables found in $build" >&2
  exit 2
fi
echo "run_compute_sanitizer: $("$cs" --version | tail -1); ${#exes[@]} executable(s): ${exes[*]}"
echo "run_compute_sanitizer: logs in $logdir"

status=0
summaries=()
for tool in $tools; do
  excluded=""
  case $tool in
    memcheck) extra=(--leak-check full) ;;
    racecheck)
      extra=(--racecheck-report all)
      # cuSPARSE's own kernels (the baselines some tests compare against) are not Spindle's code,
      # and instrumenting them for shared-memory hazards is what made racecheck runs take many
      # minutes: leave them out where this compute-sanitizer has the option (it still checks
      # every Spindle and CUB kernel).
      # (help text read whole first: grep -q closing the pipe early fails the pipeline under
      # pipefail, which silently dropped the option before)
      help=$("$cs" --help 2>&1)
      if grep -q -- '--kernel-name-exclude' <<< "$help"; then
        extra+=(--kernel-name-exclude kns=cusparse)
        excluded="; cuSPARSE kernels not instrumented"
      fi ;;
    initcheck | synccheck) extra=() ;;
    *) echo "run_compute_sanitizer: unknown tool $tool" >&2; exit 2 ;;
  esac
  errors=0 passed=0 failed=0 skipped=0 crashed=0 lib=0
  start=$(date +%s)
  logs=()
  for exe in "${exes[@]}"; do
    # -j N: N gtest shards of the executable run side by side (racecheck is slow, the GPU idle).
    # No more shards than the executable has tests: an empty shard makes no CUDA call, which
    # compute-sanitizer reports as an error of its own.
    ntests=$("$exe" --gtest_list_tests ${filter:+"--gtest_filter=$filter"} 2>/dev/null | grep -c '^  ')
    shards=$jobs
    [ "$ntests" -lt "$shards" ] && shards=$ntests
    [ "$shards" -lt 1 ] && shards=1
    for ((shard = 0; shard < shards; shard++)); do
      log="$logdir/$tool-$(basename "$exe")"
      [ "$shards" -gt 1 ] && log="$log.shard$shard"
      log="$log.log"
      logs+=("$log")
      args=()  # full gtest output: per-test times show where a slow tool spends its time
      [ -n "$filter" ] && args+=("--gtest_filter=$filter")
      (
        export GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$shard
        "$cs" --tool "$tool" "${extra[@]}" --error-exitcode 99 --print-limit 200 \
          "$exe" "${args[@]}" > "$log" 2>&1
        echo $? > "$log.rc"
      ) &
    done
    wait
  done
  for log in "${logs[@]}"; do
    rc=$(cat "$log.rc" 2>/dev/null || echo 1)
    rm -f "$log.rc"
    if [ "$tool" = racecheck ]; then
      # "RACECHECK SUMMARY: 12 hazards displayed (3 errors, 9 warnings)": errors are what counts.
      # Hazards inside NVIDIA's libraries (the cuSPARSE / cuBLAS baselines) are reported apart:
      # they are not Spindle's code and not Spindle's to fix.
      n=$(grep -Eo 'RACECHECK SUMMARY: [0-9]+ hazards displayed \([0-9]+ error' "$log" |
          grep -Eo '[0-9]+ error' | grep -Eo '[0-9]+' | tail -1)
      if [ -n "$n" ] && [ "$n" -gt 0 ]; then
        # The line after each "Error:" names the first thread's kernel.
        l=$(grep -A1 -E '^========= Error: ' "$log" | grep -cE ' at .*(cusparse|cublas)' || true)
        [ "$l" -gt "$n" ] && l=$n
        lib=$((lib + l)); n=$((n - l))
      fi
    else
      # "========= ERROR SUMMARY: 3 errors" (also "LEAK SUMMARY" lines count inside the errors).
      n=$(grep -Eo 'ERROR SUMMARY: [0-9]+ error' "$log" | grep -Eo '[0-9]+' | tail -1)
    fi
    if [ -z "$n" ]; then crashed=$((crashed + 1)); n=0; fi
    errors=$((errors + n))
    p=$(grep -Eo '\[  PASSED  \] [0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1)
    f=$(grep -Eo '\[  FAILED  \] [0-9]+ test' "$log" | grep -Eo '[0-9]+' | tail -1)
    s=$(grep -Eo '\[  SKIPPED \] [0-9]+ test' "$log" | grep -Eo '[0-9]+' | tail -1)
    passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0})); skipped=$((skipped + ${s:-0}))
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 99 ] && [ -z "$f" ]; then crashed=$((crashed + 1)); fi
  done
  secs=$(( $(date +%s) - start ))
  line="compute-sanitizer $tool: $errors errors; tests $passed passed, $failed failed, $skipped skipped; ${#exes[@]} executable(s); ${secs} s"
  line="$line$excluded"
  [ $lib -gt 0 ] && line="$line; $lib racecheck errors inside cuSPARSE/cuBLAS kernels (baselines, not counted)"
  [ $crashed -gt 0 ] && line="$line; $crashed run(s) ended without a summary (see logs)"
  summaries+=("$line")
  echo "$line"
  if [ $errors -ne 0 ] || [ $failed -ne 0 ] || [ $crashed -ne 0 ]; then status=1; fi
done

echo "---- summary ----"
printf '%s\n' "${summaries[@]}" | tee "$logdir/summary.txt"
exit $status
