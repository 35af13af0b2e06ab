#!/usr/bin/env bash
# The upgrade gate, demonstrated: the shipped BLAS suite, pointed at another BLAS with
# FPREV_BLAS_LIBRARY (as a CI job testing an upgrade candidate would), must fail with diffs.
# Exit 77 (a CTest skip) when this CPU has no BLAS goldens to compare with, or the library is
# not installed.
# usage: blas_swap_e2e.sh <fprev-golden> <source root> <library: netlib|blis|path>
set -uo pipefail
FG=$1 ROOT=$2 LIB=$3
unset CI FPREV_STRICT
out=$(mktemp)
trap 'rm -f "$out"' EXIT
cd "$ROOT"

"$FG" check --suite blas-cpu --json >"$out" 2>/dev/null
if ! grep -q '"status": "passed"' "$out"; then
  echo "SKIP: no blas-cpu goldens for this platform (run fprev-golden update --suite blas-cpu)"
  exit 77
fi
FPREV_BLAS_LIBRARY=$LIB "$FG" check --suite blas-cpu --backend openblas >"$out" 2>&1
status=$?
if grep -q "backend unavailable here" "$out" && ! grep -q "passed\|differs" "$out"; then
  echo "SKIP: $LIB is not installed"; exit 77
fi
failures=0
check() { if grep -qF -- "$1" "$out"; then echo "ok   - $2"; else echo "FAIL - $2"; failures=$((failures+1)); fi; }
[ "$status" -eq 1 ] && echo "ok   - the gate fails with $LIB (exit 1)" || { echo "FAIL - exit $status, expected 1"; failures=$((failures+1)); }
check "FAILED reproducibility/blas-cpu/openblas/" "failing cases are named"
check "the summation tree changed" "the failure is a changed tree, not a broken run"
check "first difference" "each failure shows the first differing subtree"
check "inner nodes still agree" "each failure counts the agreeing nodes"
check "fprev-golden update --suite blas-cpu" "each failure gives the command that accepts it"
grep -m1 -A8 "the summation tree changed" "$out"
tail -n1 "$out"
[ "$failures" -eq 0 ]
