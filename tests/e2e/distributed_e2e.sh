#!/usr/bin/env bash
# Distributed mode (docs/distributed.md): `mpirun -np N fprev-golden ...` on one host
# (--oversubscribe) must give what a serial run gives: the same tree, probe and target-call counts
# and fingerprint for a single-output target (dot) and a grid target (gemm), the same report and
# byte-identical goldens for a suite, with Open MPI (2 and 4 ranks) and MPICH; the JSON names the
# ranks and the probes each measured (they add up to the reveal's). A library that crashes or hangs
# on another rank is a named fault that says which rank; the job still ends and reports. A suite's
# cases run side by side on the ranks (--spread cases) or one after another (--spread waves).
# Exit 77 (a CTest skip) when Open MPI or the transport plugin is missing.
# usage: distributed_e2e.sh <fprev-golden> <source root> <fault-injection BLAS> <folder of the worker and plugins>
set -uo pipefail
FG=$1 ROOT=$2 FAULT_BLAS=$3 PLUGINS=$4
source "$ROOT/tests/e2e/e2e_lib.sh"
unset FPREV_MPI FPREV_WORKERS FPREV_GOLDEN_DIR
# More ranks than cores, as `mpirun --oversubscribe` allows, set in the environment so that every
# command below reads as a user types it: Open MPI 4 (Debian 12) reads OMPI_MCA_rmaps_base_oversubscribe;
# Open MPI 5 (Debian 13) launches with PRRTE, which ignores it ("not enough slots available" for
# -np 3 on 2 cores) and reads the mapping policy's OVERSUBSCRIBE modifier instead.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
       PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
openmpi=$(command -v mpirun.openmpi || true)
mpich=$(command -v mpiexec.mpich || true)
if [ -z "$openmpi" ] || [ ! -f "$PLUGINS/libfprev-mpi-transport-openmpi.so" ]; then
  echo "SKIP: Open MPI (mpirun.openmpi) or its transport plugin (built with mpicxx.openmpi) is not here"; exit 77
fi
# OpenBLAS's Prescott kernels run on every x86-64 CPU: nothing here depends on the host's family.
blas=(--backend blas --kernel Prescott --threads 1)
# The parts of a reveal's JSON a distributed run must reproduce exactly.
essence() { python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = d["stats"]
print(json.dumps([d["tree"], d["classes"], s["probes"], s["target_calls"], d["fingerprint"], d["alignment"]], sort_keys=True))
' "$1"; }

# 1. dot (single output, probe streams): serial with 2 streams vs 2 and 4 ranks.
"$FG" reveal "${blas[@]}" --op dot --dtype float32 --n 3000 --json --streams 2 >serial-dot.json 2>serial-dot.err
expect_status 0 $? "serial reveal of sdot n=3000"
for ranks in 2 4; do
  "$openmpi" -np $ranks "$FG" reveal "${blas[@]}" --op dot --dtype float32 --n 3000 --json >dist-dot-$ranks.json 2>dist-dot-$ranks.err
  expect_status 0 $? "mpirun -np $ranks reveal of sdot n=3000"
  if [ "$(essence serial-dot.json)" = "$(essence dist-dot-$ranks.json)" ]; then
    pass "$ranks ranks: the tree, probes, target calls, fingerprint and alignment of the serial run"
  else
    fail "$ranks ranks: differs from the serial run"; diff <(essence serial-dot.json) <(essence dist-dot-$ranks.json) | head -5
  fi
  python3 - dist-dot-$ranks.json $ranks <<'PY' && pass "$ranks ranks: stats.ranks and rank_probes (every rank measured, the sum is the probes)" || fail "$ranks ranks: stats.ranks / rank_probes"
import json, sys
s = json.load(open(sys.argv[1]))["stats"]
ranks = int(sys.argv[2])
assert s["ranks"] == ranks, s["ranks"]
assert s["streams"] == ranks, s["streams"]
assert len(s["rank_probes"]) == ranks and all(p > 0 for p in s["rank_probes"]), s["rank_probes"]
assert sum(s["rank_probes"]) == s["probes"], (s["rank_probes"], s["probes"])
PY
done
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["stats"]; sys.exit(0 if s["ranks"] == 1 and s["rank_probes"] == [] else 1)' serial-dot.json \
  && pass "a serial run says 1 rank" || fail "a serial run's stats.ranks"

# 1b. A library at 2 threads runs one stream at a time in one process (its thread pool is
# process-global), but one per rank in a distributed run: each rank's worker is its own process.
t2=(--backend blas --kernel Prescott --threads 2 --op dot --dtype float64 --n 40000 --json --no-alignment-check)
"$FG" reveal "${t2[@]}" >serial-t2.json 2>&1
"$openmpi" -np 2 "$FG" reveal "${t2[@]}" >dist-t2.json 2>dist-t2.err
expect_status 0 $? "mpirun -np 2 reveal of a 2-thread ddot n=40000"
[ "$(essence serial-t2.json)" = "$(essence dist-t2.json)" ] \
  && pass "2 threads on 2 ranks: the serial tree and counts" || fail "2 threads on 2 ranks differs from the serial run"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["stats"]; b=json.load(open(sys.argv[2]))["stats"]; sys.exit(0 if a["streams"] == 1 and b["streams"] == 2 else 1)' serial-t2.json dist-t2.json \
  && pass "2 threads: 1 stream serially, one per rank distributed" || fail "2 threads: the streams"

# 2. gemm: a grid target (an order map's classes), on 3 ranks.
"$FG" reveal "${blas[@]}" --op gemm --dtype float64 --m 12 --n 40 --k 33 --json >serial-gemm.json 2>&1
"$openmpi" -np 3 "$FG" reveal "${blas[@]}" --op gemm --dtype float64 --m 12 --n 40 --k 33 --json >dist-gemm.json 2>dist-gemm.err
expect_status 0 $? "mpirun -np 3 reveal of dgemm 12x40x33"
[ "$(essence serial-gemm.json)" = "$(essence dist-gemm.json)" ] \
  && pass "gemm on 3 ranks: the order map of the serial run" || fail "gemm on 3 ranks differs from the serial run"

# 3. MPICH's launcher: the other transport plugin.
if [ -n "$mpich" ] && [ -f "$PLUGINS/libfprev-mpi-transport-mpich.so" ]; then
  "$mpich" -np 2 "$FG" reveal "${blas[@]}" --op dot --dtype float32 --n 3000 --json >mpich-dot.json 2>mpich-dot.err
  expect_status 0 $? "mpiexec.mpich -np 2 reveal of sdot"
  [ "$(essence serial-dot.json)" = "$(essence mpich-dot.json)" ] \
    && pass "MPICH, 2 ranks: the serial run's tree and counts" || fail "MPICH, 2 ranks: differs from the serial run"
else
  echo "skip - MPICH or its transport plugin is not here"
fi

# 4. A suite: update (goldens byte for byte) and check (the same report) on 4 ranks.
mkdir -p suites
cat > suites/spread.yaml <<'YAML'
suite: spread
backends:
  - name: openblas
    use: blas
    kernel: Prescott
    threads: 1
cases:
  - op: dot
    dtype: [float32, float64]
    n: [7, 1000, 4096]
  - op: gemv
    dtype: float32
    trans: [N, T]
    m: 40
    n: 33
  - op: gemm
    dtype: float32
    m: 8
    n: 12
    k: 100
YAML
# SOURCE_DATE_EPOCH fixes the goldens' `created:` time: the files of both runs can be compared whole.
export SOURCE_DATE_EPOCH=1790000000
"$FG" update --suite spread --suites suites --golden golden-serial >update-serial.txt 2>&1
expect_status 0 $? "serial update of the suite"
"$openmpi" -np 4 "$FG" update --suite spread --suites suites --golden golden-dist >update-dist.txt 2>&1
expect_status 0 $? "mpirun -np 4 update of the suite"
if diff -r golden-serial golden-dist >golden.diff; then pass "the goldens of 4 ranks are byte for byte the serial ones ($(find golden-dist -name '*.golden' | wc -l) files)"
else fail "the goldens differ:"; head -20 golden.diff; fi
rows() { grep -E '^spread ' "$1" | awk '{print $1, $2, $3, $4}'; }
"$FG" check --suite spread --suites suites --golden golden-serial >check-serial.txt 2>&1
expect_status 0 $? "serial check"
"$openmpi" -np 4 "$FG" check --suite spread --suites suites --golden golden-serial >check-dist.txt 2>&1
expect_status 0 $? "mpirun -np 4 check"
if [ -n "$(rows check-serial.txt)" ] && [ "$(rows check-serial.txt)" = "$(rows check-dist.txt)" ]; then
  pass "mpirun -np 4 check: every row of the serial report ($(rows check-dist.txt | wc -l) cases, all listed)"
else fail "the reports differ:"; diff <(rows check-serial.txt) <(rows check-dist.txt) | head; fi
expect_in "passed, 0 failed, 0 skipped" check-dist.txt "the distributed check's summary"
# 9 cases on 4 ranks: whole cases side by side, each on one rank (--spread auto); --spread waves
# runs them one after another, each wave over every rank: the same report either way.
# (stderr apart: Open MPI 5 may print its own transport warnings there, never into the JSON)
"$openmpi" -np 4 "$FG" check --suite spread --suites suites --golden golden-serial --json >check-cases.json 2>check-cases.err
expect_status 0 $? "mpirun -np 4 check --json"
python3 - check-cases.json <<'PY' && pass "cases spread: each case's probes on one rank, the cases over several ranks" || fail "cases spread: per-rank probes"
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
used = set()
for c in cases:
    probes = c["stats"]["rank_probes"]
    assert len(probes) == 4, probes
    busy = [r for r, p in enumerate(probes) if p > 0]
    assert len(busy) <= 1, (c["test"], probes)
    assert sum(probes) == c["stats"]["probes"], (c["test"], probes, c["stats"]["probes"])
    used.update(busy)
assert len(used) >= 2, used
PY
"$openmpi" -np 4 "$FG" check --suite spread --suites suites --golden golden-serial --spread waves >check-waves.txt 2>&1
expect_status 0 $? "mpirun -np 4 check --spread waves"
[ "$(rows check-serial.txt)" = "$(rows check-waves.txt)" ] \
  && pass "--spread waves: the serial report's rows" || fail "--spread waves: the rows differ"

# The cost estimate before a case runs counts the ranks (one case: its waves over every rank).
"$openmpi" -np 4 "$FG" check --suite spread --suites suites --golden golden-serial --case dot-float64-n4096 \
  --max-estimate 0.000001 >estimate.txt 2>&1
expect_status 1 $? "a case refused by its estimate fails (it has a golden here)"
expect_in "on 4 streams over 4 MPI ranks" estimate.txt "the estimate names the streams and the ranks"

# 5. A library that crashes only on rank 1 (rank 1's workers inherit FAULT_BLAS_MODE). Each rank
# decides from its own rank number rather than an MPMD command line (`-np 1 A : -np 1 B`), which
# Open MPI 5.0.7's launcher as Debian 13 packages it answers with a SIGSEGV of its own
# (open-mpi/ompi#13303), whatever the programs.
# fault_on_rank_1 MODE ARGUMENTS...: `mpirun -np 2 fprev-golden ARGUMENTS...`, FAULT_BLAS_MODE=MODE on rank 1
fault_on_rank_1() {
  local mode=$1
  shift
  "$openmpi" -np 2 bash -c '[ "$OMPI_COMM_WORLD_RANK" = 1 ] && export FAULT_BLAS_MODE=$0; exec "$@"' \
    "$mode" "$FG" "$@"
}
fault=$FAULT_BLAS
if [ -f "$fault" ]; then
  fault_on_rank_1 segv reveal --backend blas --library "$fault" --op dot --dtype float64 --n 400 --streams 2 \
    >crash.txt 2>&1
  expect_status 1 $? "a crash on rank 1 fails the reveal"
  expect_in "crashed (SIGSEGV)" crash.txt "the fault is named"
  expect_in "on rank 1, host" crash.txt "the fault names the rank and host"
  fault_on_rank_1 hang reveal --backend blas --library "$fault" --op dot --dtype float64 --n 400 --streams 2 --watchdog 1 \
    >hang.txt 2>&1
  expect_status 1 $? "a hang on rank 1 fails the reveal"
  expect_in "hung" hang.txt "the hang is named"
  expect_in "on rank 1, host" hang.txt "the hang names the rank"
else
  fail "the fault-injection BLAS $fault was not built"
fi

# 5b. A rank lost for good (kill -9 while its worker is in a call): Open MPI's launcher then ends
# every rank with SIGTERM. Rank 0 says so on its way out, its workers go with it, and the job's
# exit status is not 0 (issue 34).
if [ -f "$fault" ]; then
  lost=(reveal --backend blas --library "$fault" --op dot --dtype float64 --n 400 --streams 2 --watchdog 300)
  fault_on_rank_1 hang "${lost[@]}" >lost.txt 2>&1 &
  launcher=$!
  rank1=""
  for _ in $(seq 150); do
    for p in $(pgrep -f -- "--library $fault"); do
      if [ "$(readlink "/proc/$p/exe")" = "$(readlink -f "$FG")" ] &&
         tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=1; then rank1=$p; fi
    done
    [ -n "$rank1" ] && break
    sleep 0.2
  done
  sleep 3  # its worker is inside the call that hangs
  [ -n "$rank1" ] && kill -9 "$rank1"
  wait "$launcher"
  status=$?
  if [ -z "$rank1" ]; then fail "rank 1 was not found"
  elif [ "$status" -ne 0 ]; then pass "a lost rank: the job's exit status is $status"
  else fail "a lost rank: the job exited 0"; fi
  expect_in "fprev-golden (rank 0 of 2): ended from outside before the run finished" lost.txt \
    "rank 0 says the run ended without a report"
fi

# 6. The lean start holds under a launcher: list and --version map no MPI library.
"$openmpi" -np 1 bash -c "LD_DEBUG=files '$FG' --version" >lean.txt 2>&1
expect_not_in "libmpi" lean.txt "mpirun -np 1 fprev-golden --version loads no MPI library"
# 7. A copy of fprev-golden whose transport plugin is missing, or is not a transport: every rank
# says which file it could not use, and the job fails (never a serial run under mpirun).
mkdir -p broken/bin broken/lib/fprev-golden
cp "$FG" broken/bin/
framework_library=$(ldd "$FG" | awk '/libfprev_framework/ {print $3}')  # as loaded, by its soname
cp -L "$framework_library" broken/lib/
"$openmpi" -np 2 env LD_LIBRARY_PATH="$PWD/broken/lib" broken/bin/fprev-golden reveal --backend reference \
  --op sum --n 8 --order sequential >noplugin.txt 2>&1
expect_status 2 $? "a missing transport plugin is a usage error"
expect_in "cannot load the MPI transport $PWD/broken/lib/fprev-golden/libfprev-mpi-transport-openmpi.so" noplugin.txt \
  "the missing plugin is named"
cp -L "$framework_library" broken/lib/fprev-golden/libfprev-mpi-transport-openmpi.so
"$openmpi" -np 2 env LD_LIBRARY_PATH="$PWD/broken/lib" broken/bin/fprev-golden reveal --backend reference \
  --op sum --n 8 --order sequential >wrongplugin.txt 2>&1
expect_status 2 $? "a library that is no transport is a usage error"
expect_in "is not an MPI transport of this fprev-golden version" wrongplugin.txt "the wrong plugin is named"
finish distributed
