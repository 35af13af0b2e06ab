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
# The jobs' socket directories go under a TMPDIR of this test's own, so that their processes
# (the probe is given --socket $TMPDIR/fprev-mpi-.../ranks.sock) can be told from anyone else's.
jobs_tmp=$tmp/j
mkdir -p "$jobs_tmp"
TMPDIR=$jobs_tmp "$FG" check --no-pending --json "${cases[@]}" >"$tmp/gate.json" 2>"$out"
status=$?
if [ "$status" -ne 0 ]; then
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
# No process of a job left after the gate: nothing runs with a socket under $jobs_tmp, and every
# job's private directory is gone.
no_leftovers() {
  if ps -eo args | grep -F -- "$jobs_tmp/fprev-mpi-" | grep -v grep >/dev/null; then
    echo "FAIL - $1: processes of MPI jobs are left"; ps -eo pid,args | grep -F -- "$jobs_tmp/" | grep -v grep
    failures=$((failures+1))
  else
    echo "ok   - $1: no process of an MPI job is left"
  fi
}
# Per case stats.jobs_started (a case's targets share one job per launch key: backend instance and
# rank count): $1 the JSON, then the expected jobs "case=N" for the cases named; every launch key
# starts at most one job unless a case of it failed.
jobs_ok() {
  python3 - "$@" <<'PY'
import collections, json, sys
doc = json.load(open(sys.argv[1]))
expected = dict(arg.split("=") for arg in sys.argv[2:])
per_key, failed_keys, bad = collections.Counter(), set(), []
for c in doc["cases"]:
    key = (c["backend"], c["case"].rsplit("ranks", 1)[1])
    jobs = (c["stats"] or {}).get("jobs_started")
    if c["outcome"] == "failed": failed_keys.add(key)
    if jobs is not None: per_key[key] += jobs
    if c["case"] in expected and str(jobs) != expected[c["case"]]:
        bad.append("%s: jobs_started %s, expected %s" % (c["case"], jobs, expected[c["case"]]))
for key, jobs in per_key.items():
    if jobs > 1 and key not in failed_keys:
        bad.append("%s ranks %s: %d jobs started for one launch" % (key[0], key[1], jobs))
print("\n".join(bad) if bad else "jobs per launch key: %s" % dict(per_key))
sys.exit(1 if bad else 0)
PY
}

# One job per launch: the 12 cases over 6 rank counts start 6 jobs, the first case of each rank
# count one, and none is left running after the gate.
if jobs_ok "$tmp/gate.json" allreduce-float64-count1-ranks3=1 reduce-float64-count1-ranks3=0 \
    allreduce-float64-count4096-ranks3=0 allreduce-float64-count1-ranks16=1 reduce-float64-count1-ranks16=0; then
  echo "ok   - the cases of one launch share one job (stats.jobs_started)"
else
  echo "FAIL - jobs started per launch"; failures=$((failures+1))
fi
python3 "$ROOT/tests/e2e/validate_json.py" "$ROOT/docs/fprev-golden.schema.json" "$tmp/gate.json" check >/dev/null
case $? in 0|77) ;; *) echo "FAIL - the check JSON does not follow the schema"; failures=$((failures+1)) ;; esac
no_leftovers "after a passing gate"
[ -z "$(ls -A "$jobs_tmp")" ] && echo "ok   - every job's socket directory is removed" || { echo "FAIL - left in $jobs_tmp: $(ls "$jobs_tmp")"; failures=$((failures+1)); }

# A rank that crashes in a reused job (the probe's test-only switch: only in the case of 4096
# elements) fails that case alone; the next case of its rank count gets a fresh job and passes.
FPREV_MPI_PROBE_TEST_FAULT=crash:4096 TMPDIR=$jobs_tmp "$FG" check --no-pending --json --suite mpi --backend openmpi \
    --case allreduce-float64-count1-ranks3 --case allreduce-float64-count4096-ranks3 --case reduce-float64-count1-ranks3 \
    >"$tmp/crash.json" 2>"$out"
status=$?
[ "$status" -eq 1 ] && echo "ok   - a crash in a reused job fails the gate (exit 1)" || { echo "FAIL - exit $status, expected 1"; failures=$((failures+1)); }
if python3 - "$tmp/crash.json" <<'PY'
import json, sys
outcomes = {c["case"]: c["outcome"] for c in json.load(open(sys.argv[1]))["cases"]}
want = {"allreduce-float64-count1-ranks3": "passed", "allreduce-float64-count4096-ranks3": "failed",
        "reduce-float64-count1-ranks3": "passed"}
print(outcomes)
sys.exit(0 if outcomes == want else 1)
PY
then echo "ok   - only the crashing case fails"; else echo "FAIL - outcomes of the crash run"; failures=$((failures+1)); fi
jobs_ok "$tmp/crash.json" allreduce-float64-count1-ranks3=1 reduce-float64-count1-ranks3=1 >/dev/null &&
  echo "ok   - the case after the crash starts a fresh job" || { echo "FAIL - jobs after the crash"; failures=$((failures+1)); }
no_leftovers "after a crash in a reused job"

# SIGTERM to the gate while jobs run and wait between cases (two launches' ranks seen: at least 5
# processes) ends them too.
TMPDIR=$jobs_tmp "$FG" check --no-pending "${cases[@]}" >"$out" 2>&1 &
gate=$!
seen=0
for _ in $(seq 300); do
  seen=$(ps -eo args | grep -F -- "$jobs_tmp/fprev-mpi-" | grep -vc grep)
  [ "$seen" -ge 5 ] && break
  sleep 0.1
done
kill -TERM "$gate"
wait "$gate"
status=$?
sleep 1
if [ "$seen" -ge 5 ] && [ "$status" -eq 143 ]; then
  echo "ok   - SIGTERM ended the gate while $seen rank processes ran"
else
  echo "FAIL - SIGTERM test: $seen rank processes seen, gate exit $status (expected 143)"; failures=$((failures+1))
fi
no_leftovers "after SIGTERM to the gate"

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
