#!/usr/bin/env bash
# The MPI upgrade gate, demonstrated: the shipped mpi suite's Open MPI cases, pointed with
# FPREV_MPI_LIBRARY at another launcher (as a CI job testing an upgrade candidate would), must
# fail with readable diffs where the order changed. The candidate is this machine's Open MPI with
# its collectives taken from coll/basic instead of coll/tuned: what an upgrade that changes the
# default collective component does (Open MPI 5 prefers coll/han for some collectives): trees and
# an order map (Open MPI's own ring allreduce) that change fail with their diffs. Pointing the same
# instance at MPICH instead changes the platform key: no golden, a skip, saying so. An allreduce
# whose ranks disagree is the finding ranks_disagree, in JSON that follows the schema.
# Exit 77 (a CTest skip) when Open MPI is not installed or the mpi goldens do not pass here.
# usage: mpi_swap_e2e.sh <fprev-golden> <source root>
set -uo pipefail
FG=$1 ROOT=$2
unset CI FPREV_STRICT FPREV_MPI_LIBRARY FPREV_MPI_TUNING FPREV_MPI_LAUNCHER_ARGS FPREV_MPI_PROBE_TEST_FAULT
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out
cd "$ROOT"
# count 1 cases (one tree each), and the 3-rank 32 KB allreduce for which Open MPI's coll/tuned
# picks the ring by itself: an order map of 3 blocks, 1366 + 1365 + 1365 elements, each its own
# rotated sequential order (backends/mpi/tests/launch/ring_map_test.cpp), where coll/basic's
# reduce + broadcast gives every element rank 2 + 1, then + 0.
cases=(--suite mpi --backend openmpi --case 'allreduce-float64-count1-*' --case 'reduce-float64-count1-*'
       --case 'allreduce-float64-count4096-ranks3')

real=$(command -v mpirun.openmpi || true)
if [ -z "$real" ]; then echo "SKIP: Open MPI (mpirun.openmpi) is not installed"; exit 77; fi
"$FG" check --no-pending "${cases[@]}" >"$out" 2>&1
status=$?
if [ "$status" -ne 0 ] || ! grep -q " passed" "$out"; then
  cat "$out"
  echo "SKIP: the mpi goldens do not pass on this machine as shipped (exit $status)"
  exit 77
fi

cat >"$tmp/mpirun" <<WRAPPER
#!/bin/sh
# An "upgraded" Open MPI: the same library, its collectives from another component.
if [ "\$1" = --version ]; then exec "$real" --version; fi
exec "$real" --mca coll basic,libnbc,self "\$@"
WRAPPER
chmod +x "$tmp/mpirun"

failures=0
check() { if grep -qF -- "$1" "$out"; then echo "ok   - $2"; else echo "FAIL - $2"; failures=$((failures+1)); fi; }

# A case of P ranks keeps P processes busy: its CTest test says so, and ctest -j counts them.
"$FG" list --suite mpi --backend openmpi --case allreduce-float64-count1-ranks16 --cmake-tests fprev-golden >"$out" 2>&1
check "PROCESSORS 16 " "the 16-rank case's CTest test takes 16 processors"

FPREV_MPI_LIBRARY=$tmp/mpirun "$FG" check --no-pending "${cases[@]}" >"$out" 2>&1
status=$?
[ "$status" -eq 1 ] && echo "ok   - the gate fails with the candidate (exit 1)" || { echo "FAIL - exit $status, expected 1"; failures=$((failures+1)); }
check "FAILED reproducibility/mpi/openmpi/" "failing cases are named"
check "the summation tree changed" "the failure is a changed tree, not a broken run"
check "on platform openmpi" "the candidate is compared with the goldens of its family"
check "coll components basic,libnbc,self" "the report shows what differs in the library"
check "first difference" "each failure shows the first differing subtree"
check "inner nodes still agree" "each failure counts the agreeing nodes"
check "fprev-golden update --suite mpi --backend openmpi" "each failure gives the command that accepts it"
check " passed" "cases whose order did not change still pass"
check "FAILED reproducibility/mpi/openmpi/allreduce-float64-count4096-ranks3: the order map changed" \
      "a changed order map fails as one"
check "rows 0-1365: sequential -> reverse sequential" "the map diff names the elements whose tree changed"
grep -m1 -A10 "the summation tree changed" "$out"
grep -m1 -A14 "the order map changed" "$out"
tail -n1 "$out"

# Another family is another platform: no golden to compare with, a skip that says which key
# (--allow-nothing: the only case skips, and a check that compared nothing fails without it).
FPREV_MPI_LIBRARY=mpich "$FG" check --no-pending --allow-nothing --suite mpi --backend openmpi --case 'allreduce-float64-count1-ranks2' >"$out" 2>&1
status=$?
if grep -q "MPICH is not installed" "$out"; then
  echo "ok   - (MPICH not installed: family swap not checked)"
else
  [ "$status" -eq 0 ] && echo "ok   - MPICH under the openmpi instance is skipped (exit 0)" || { echo "FAIL - exit $status, expected 0"; failures=$((failures+1)); }
  check "no golden for platform 'mpich'" "the skip names the other family's platform key"
fi
# A finding in JSON: an allreduce whose ranks receive different bits (the probe's test-only fault
# switch makes the last rank flip a bit of its last element) is reported as ranks_disagree, in a
# document that follows the schema.
FPREV_MPI_PROBE_TEST_FAULT=ranks_disagree "$FG" reveal --backend mpi --library openmpi --op allreduce \
    --ranks 3 --count 4 --json >"$tmp/finding.json" 2>"$out"
status=$?
[ "$status" -eq 1 ] && echo "ok   - ranks that disagree fail the reveal (exit 1)" || { echo "FAIL - exit $status, expected 1"; failures=$((failures+1)); }
python3 "$ROOT/tests/e2e/validate_json.py" "$ROOT/docs/fprev-golden.schema.json" "$tmp/finding.json" reveal \
    diagnostic/finding=ranks_disagree
case $? in
  0) echo "ok   - the finding ranks_disagree in JSON follows the schema" ;;
  77) echo "ok   - (python3-jsonschema not installed: the JSON finding not checked)" ;;
  *) echo "FAIL - the ranks_disagree JSON document"; failures=$((failures+1)) ;;
esac
[ "$failures" -eq 0 ]
