#!/usr/bin/env bash
# What `fprev-golden trace` costs a program (docs/trace.md, "Overhead"): 10^6 small BLAS calls
# (cblas_ddot of 16 elements, the test program's `repeat` mode) with and without the interposer
# preloaded, one thread, best of 5 runs each; the difference per call. The interposer adds one
# lock, a hash-table lookup and a few loads per call (and a backtrace for the first 16 calls of
# each distinct call), so the figure is the fixed cost of a call, which a large call hides.
# usage: bench/trace_overhead.sh [BUILD_DIR] [CALLS]
set -euo pipefail
BUILD=${1:-build}
CALLS=${2:-1000000}
PROGRAM=$BUILD/tests/e2e/fprev_traced_blas_program
INTERPOSER=$BUILD/lib/fprev-golden/libfprev-blas-trace.so
[ -x "$PROGRAM" ] && [ -e "$INTERPOSER" ] || {
  echo "build fprev_traced_blas_program and fprev_blas_trace first (cmake --build $BUILD --target fprev_traced_blas_program)"
  exit 2
}
export OPENBLAS_NUM_THREADS=1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
best() {  # prints the least wall time of 5 runs, in nanoseconds
  local least=0 start elapsed
  for _ in 1 2 3 4 5; do
    start=$(date +%s%N)
    "$@" > "$scratch/out"
    elapsed=$(( $(date +%s%N) - start ))
    if [ "$least" -eq 0 ] || [ "$elapsed" -lt "$least" ]; then least=$elapsed; fi
  done
  echo "$least"
}
plain=$(best "$PROGRAM" repeat "$CALLS")
traced=$(best env LD_PRELOAD="$(realpath "$INTERPOSER")" FPREV_BLAS_TRACE_DIR="$scratch" "$PROGRAM" repeat "$CALLS")
printf '%d cblas_ddot calls (n = 16): plain %d ms, traced %d ms: %d ns more per call\n' \
  "$CALLS" $((plain / 1000000)) $((traced / 1000000)) $(((traced - plain) / CALLS))
