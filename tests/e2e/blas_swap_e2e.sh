#!/usr/bin/env bash
# The upgrade gate, demonstrated: the shipped BLAS suite, pointed at another BLAS with
# FPREV_BLAS_LIBRARY (as a CI job testing an upgrade candidate would), must fail with diffs.
# The goldens are keyed by kernel family and threads, so this runs on any x86-64 runner whatever
# its CPU's vendor or model. Exit 77 (a CTest skip) only when the library is not installed.
# usage: blas_swap_e2e.sh <fprev-golden> <source root> <library: netlib|blis|path>
set -uo pipefail
FG=$1 ROOT=$2 LIB=$3
unset CI FPREV_STRICT FPREV_BLAS_KERNEL FPREV_BLAS_CPUINFO
out=$(mktemp)
trap 'rm -f "$out"' EXIT
cd "$ROOT"

# The long cases (ddot 10^6: tens of minutes) are left out, as ctest -LE long does.
FPREV_BLAS_LIBRARY=$LIB "$FG" check --no-pending --suite blas-cpu --exclude-label long >"$out" 2>&1
status=$?
if [[ $LIB != /* ]] && grep -q "FPREV_BLAS_LIBRARY: BLAS library '$LIB' not found" "$out"; then
  echo "SKIP: $LIB is not installed"; exit 77
fi
failures=0
ok() { echo "ok   - $1"; }
bad() { echo "FAIL - $1"; failures=$((failures+1)); }
check() { if grep -qF -- "$1" "$out"; then ok "$2"; else bad "$2"; fi; }
[ "$status" -eq 1 ] && ok "the gate fails with $LIB (exit 1)" || bad "exit $status, expected 1"
check "FAILED reproducibility/blas-cpu/openblas-" "failing cases are named"
check "the summation tree changed" "the failure is a changed tree, not a broken run"
check "first difference" "each failure shows the first differing subtree"
check "inner nodes still agree" "each failure counts the agreeing nodes"
check "fprev-golden update --suite blas-cpu" "each failure gives the command that accepts it"
# Nothing is skipped except for a reason that names itself: a library without a thread API
# (netlib with threads: 2), or a kernel family this CPU cannot execute.
unexplained=$(grep "^SKIPPED " "$out" | grep -v -e "no API to set its thread count" \
                                              -e "this CPU cannot run the .* kernels")
[ -z "$unexplained" ] && ok "every skip names its reason" || { bad "unexplained skips:"; echo "$unexplained" | head -5; }
differs=$(grep -c "^FAILED reproducibility/blas-cpu/.*: the summation tree changed" "$out")
[ "$differs" -ge 20 ] && ok "$differs cases differ" || bad "only $differs cases differ"
grep -m1 -A8 "the summation tree changed" "$out"
tail -n1 "$out"
[ "$failures" -eq 0 ]
