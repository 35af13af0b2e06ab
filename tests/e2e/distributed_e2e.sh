#!/usr/bin/env bash
# Distributed mode (docs/distributed.md): `mpirun -np N fprev-golden ...` on one host
# (--oversubscribe) must give what a serial run gives: the same tree, probe and target-call counts
# and fingerprint for a single-output target (dot) and a grid target (gemm), the same report and
# byte-identical goldens for a suite, with Open MPI (2 and 4 ranks) and MPICH; the JSON names the
# ranks and the probes each measured (they add up to the reveal's). A library that crashes or hangs
# on another rank is a named fault that says which rank; the job still ends and reports. A rank
# killed or stopped mid-case is lost: the case in flight fails naming it, the report is whole, the
# job's status is not 0 (rank 0 lost too), under each launcher's behaviour (docs/distributed.md,
# A lost rank). A suite's
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

# 2b. An MPI library that prints on standard output (MPICH's UCX does at MPI_Finalize) is heard on
# standard error, and every rank's standard output, the launcher's, stays the report: valid JSON.
# The transport plugin prints such a line after MPI_Init and before MPI_Finalize on every rank.
library_prints() {  # launcher, name
  FPREV_MPI_TRANSPORT_TEST_PRINT=1 "$1" -np 2 "$FG" reveal "${blas[@]}" --op dot --dtype float32 --n 100 \
    --json >"print-$2.json" 2>"print-$2.err"
  expect_status 0 $? "$2: reveal while the MPI library prints on standard output"
  python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "print-$2.json" \
    && pass "$2: the --json report stays JSON when the MPI library prints" \
    || { fail "$2: the MPI library's lines went into the --json report"; head -c 300 "print-$2.json"; }
  [ "$(grep -c 'a line an MPI library printed on standard output' "print-$2.err")" = 4 ] \
    && pass "$2: the library's lines (2 ranks x 2) reach standard error" \
    || { fail "$2: the library's lines on standard error"; cat "print-$2.err"; }
}
library_prints "$openmpi" "Open MPI"

# 3. MPICH's launcher: the other transport plugin.
if [ -n "$mpich" ] && [ -f "$PLUGINS/libfprev-mpi-transport-mpich.so" ]; then
  "$mpich" -np 2 "$FG" reveal "${blas[@]}" --op dot --dtype float32 --n 3000 --json >mpich-dot.json 2>mpich-dot.err
  expect_status 0 $? "mpiexec.mpich -np 2 reveal of sdot"
  [ "$(essence serial-dot.json)" = "$(essence mpich-dot.json)" ] \
    && pass "MPICH, 2 ranks: the serial run's tree and counts" || fail "MPICH, 2 ranks: differs from the serial run"
  library_prints "$mpich" "MPICH"
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

# 5b. A rank lost for good (kill -9, SIGSTOP) while a case is in flight on it (issue 34): the
# ranks send each other heartbeats, and one silent for --rank-timeout is lost. Rank 0 fails the
# case in flight there naming the rank and host, goes on with the other ranks, writes every report
# and ends the job with a status that is not 0; no golden is written for the lost case. Rank 1 runs
# the fault-injection BLAS in its hang mode, so that its case is surely in flight.
if [ -f "$fault" ]; then
  cat > suites/lost.yaml <<YAML
suite: lost
backends:
  - name: faulty
    use: blas
    library: $fault
    threads: 1
cases:
  - op: dot
    dtype: float64
    n: [100, 200, 300, 400]
YAML
  # rank_pid VARIABLE RANK: the pid of this test's fprev-golden of that rank once rank 1's worker
  # runs (its case is in flight); empty when none came.
  rank_pid() {
    local p ours=() busy=""
    for _ in $(seq 300); do
      ours=()
      for p in $(pgrep -x fprev-golden); do [ "$(readlink "/proc/$p/cwd")" = "$tmp" ] && ours+=("$p"); done
      for p in "${ours[@]}"; do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "$1=1" && [ -n "$(pgrep -P "$p")" ] && busy=1
      done
      [ -n "$busy" ] && break
      sleep 0.1
    done
    [ -n "$busy" ] || return
    for p in "${ours[@]}"; do
      tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "$1=$2" && { echo "$p"; return; }
    done
  }
  # lose LAUNCHER-AND-FLAGS -- SIGNAL VARIABLE RANK OUT -- fprev-golden arguments: runs the job on 2
  # ranks (rank 1's workers hang in their call), sends SIGNAL to RANK, and leaves the job's exit
  # status in $status and the found pid in $lost_pid.
  lose() {
    local launcher=()
    while [ "$1" != -- ]; do launcher+=("$1"); shift; done
    shift
    local signal=$1 variable=$2 rank=$3 out=$4 p
    shift 5
    # Rank 1 alone hangs; not by an MPMD command line (see fault_on_rank_1 above).
    timeout 60 "${launcher[@]}" -np 2 bash -c \
      '[ "${OMPI_COMM_WORLD_RANK:-$PMI_RANK}" = 1 ] && export FAULT_BLAS_MODE=hang; exec "$@"' lose "$FG" "$@" \
      >"$out" 2>"$out.err" &
    local job=$!
    lost_pid=$(rank_pid "$variable" "$rank")
    [ -n "$lost_pid" ] && kill "-$signal" "$lost_pid"
    wait "$job"
    status=$?
    [ -n "$lost_pid" ] || fail "$out: rank $rank was not found"
    # A rank a launcher left behind (stopped, or after a timeout) must not be taken for the next
    # job's: end this job's leftovers.
    for p in $(pgrep -x fprev-golden); do [ "$(readlink "/proc/$p/cwd")" = "$tmp" ] && kill -KILL "$p" 2>/dev/null; done
    [ "$status" -ne 124 ] || fail "$out: the job did not end within 60 s"
  }
  # the_lost_case REPORT: the case failed as "rank lost" naming rank 1 and its host, every other passed.
  the_lost_case() {
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = [c for c in d["cases"] if c["outcome"] != "passed"]
assert len(d["cases"]) == 4 and len(bad) == 1, [(c["case"], c["outcome"]) for c in d["cases"]]
message = bad[0]["diagnostic"]["message"]
assert bad[0]["outcome"] == "failed" and bad[0]["diagnostic"]["finding"] == "target_fault", bad[0]
assert message.startswith("rank 1 (host ") and " was lost: it sent no word for 3 s" in message, message
assert len(d["lost_ranks"]) == 1 and d["lost_ranks"][0] in message, d["lost_ranks"]
print(bad[0]["case"])
PY
  }
  # 3 s of silence: the lost rank is noticed soon, and a live one is never that slow to be scheduled.
  lost=(--suite lost --suites suites --rank-timeout 3 --watchdog 300)
  ompi_go_on=("$openmpi" --mca orte_abort_on_non_zero_status 0)
  # Open MPI 4 (ORTE) lets rank 0 outlive a lost rank with orte_abort_on_non_zero_status 0. Open
  # MPI 5's launcher (PRRTE, Debian 13) ends the job at once whatever that says (measured): there
  # only what holds under every launcher is checked (a lost or stopped rank ends the job non-zero,
  # a stopped one named in the report), and the skip is said (docs/distributed.md, A lost rank).
  # Open MPI 4's mpirun says "mpirun (OpenRTE) 4.1.4"; Open MPI 5's "mpirun (Open MPI) 5.0.7".
  launcher_version=$("$openmpi" --version 2>&1 | head -1)
  orte=""
  case "$launcher_version" in *"(OpenRTE)"*) orte=1 ;; esac
  [ -n "$orte" ] || echo "SKIP - $launcher_version (PRRTE): no launcher flag keeps rank 0 alive after a lost rank; the report-after-loss, exit-status-under-the-flag and --enable-recovery checks are Open MPI 4's"
  if [ -n "$orte" ]; then
    # Open MPI, told to let the job go on: kill -9 of rank 1 during update.
    lose "${ompi_go_on[@]}" -- KILL OMPI_COMM_WORLD_RANK 1 lost-update.json -- update "${lost[@]}" --golden golden-lost \
      --json
    [ "$status" -ne 0 ] && pass "Open MPI, rank 1 killed: the job's exit status is $status" || fail "Open MPI, rank 1 killed: exit 0"
    if lost_case=$(the_lost_case lost-update.json); then
      pass "Open MPI, rank 1 killed: the JSON report is whole, names rank 1 in lost_ranks, the case in flight ($lost_case) failed naming it, the others passed"
      [ -z "$(find golden-lost -name "$lost_case.golden")" ] && [ "$(find golden-lost -name '*.golden' | wc -l)" -eq 3 ] \
        && pass "no golden for the lost case, the other 3 recorded" || fail "the goldens after a lost rank: $(find golden-lost -name '*.golden')"
    else fail "Open MPI, rank 1 killed: the JSON report"; head -c 600 lost-update.json; tail -5 lost-update.json.err; fi
    python3 "$ROOT/tests/e2e/validate_json.py" "$ROOT/docs/fprev-golden.schema.json" lost-update.json update \
      lost_ranks/0=@nonempty >lost-schema.txt 2>&1
    case $? in
      0) pass "the report of a run that lost a rank follows the JSON schema" ;;
      77) cat lost-schema.txt ;;
      *) fail "the report of a run that lost a rank: schema"; head -5 lost-schema.txt ;;
    esac
    expect_in "the MPI job lost a rank:" lost-update.json.err "rank 0 names the lost rank on its way out"
    # With that flag Open MPI's mpirun ends with 0 when every rank finalises, whatever rank 0 returns:
    # rank 0 ends a run that did not pass with MPI_Abort(status), so that the status gets out.
    "${ompi_go_on[@]}" -np 2 "$FG" check --suite lost --suites suites --golden golden-lost --strict >flag-fail.txt 2>&1
    expect_status 1 $? "Open MPI, orte_abort_on_non_zero_status 0: a check that fails (a missing golden, strict)"
    "${ompi_go_on[@]}" -np 2 "$FG" check --suite lost --suites suites --golden no-such-folder >flag-usage.txt 2>&1
    expect_status 2 $? "Open MPI, orte_abort_on_non_zero_status 0: a usage error"
  fi
  # SIGSTOP: the process lives, so no launcher notices; rank 0 does, under the launcher's defaults.
  "$FG" update "${lost[@]}" --golden golden-whole >/dev/null 2>&1
  expect_status 0 $? "serial update of the lost suite"
  if [ -n "$orte" ]; then
    "${ompi_go_on[@]}" -np 2 "$FG" check --suite lost --suites suites --golden golden-whole >flag-pass.txt 2>&1
    expect_status 0 $? "Open MPI, orte_abort_on_non_zero_status 0: a check that passes"
  fi
  lose "$openmpi" -- STOP OMPI_COMM_WORLD_RANK 1 stop-ompi.txt -- check "${lost[@]}" --golden golden-whole
  [ "$status" -ne 0 ] && pass "Open MPI, rank 1 stopped: exit status $status" || fail "Open MPI, rank 1 stopped: exit 0"
  expect_in "lost MPI rank (the run fails): rank 1 (host " stop-ompi.txt "Open MPI, rank 1 stopped: the text report names it"
  expect_in "3 passed, 1 failed, 0 skipped" stop-ompi.txt "Open MPI, rank 1 stopped: the other cases ran on rank 0"
  # Rank 0 killed: the serving rank says so and ends the job, never 0 and never waiting for ever.
  if [ -n "$orte" ]; then
    lose "${ompi_go_on[@]}" -- KILL OMPI_COMM_WORLD_RANK 0 lost0.json -- check "${lost[@]}" --golden golden-whole --json
    [ "$status" -ne 0 ] && pass "Open MPI, rank 0 killed: the job ends with $status" \
      || fail "Open MPI, rank 0 killed: exit status $status"
    expect_in "rank 0 was lost: it sent no word for 3 s" lost0.json.err "the serving rank names the lost rank 0"
  fi
  # Open MPI's launcher defaults end the job at once: rank 0 says so and the status is not 0.
  lose "$openmpi" -- KILL OMPI_COMM_WORLD_RANK 1 lost-default.json -- check "${lost[@]}" --golden golden-whole --json
  [ "$status" -ne 0 ] && pass "Open MPI defaults, rank 1 killed: exit status $status" || fail "Open MPI defaults, rank 1 killed: exit 0"
  expect_in "fprev-golden (rank 0 of 2): ended from outside before the run finished" lost-default.json.err \
    "rank 0 says the run ended without a report"
  # mpirun --enable-recovery ends with 0 whatever the ranks do (Open MPI 4.1): refused.
  if [ -n "$orte" ]; then
    "$openmpi" --enable-recovery -np 2 "$FG" check "${lost[@]}" --golden golden-whole --json >recovery.json 2>&1
    expect_in "makes Open MPI's mpirun end with exit status 0" recovery.json "mpirun --enable-recovery is refused"
    expect_not_in '"cases"' recovery.json "no report under --enable-recovery"
  fi
  if [ -n "$mpich" ] && [ -f "$PLUGINS/libfprev-mpi-transport-mpich.so" ]; then
    # MPICH 4.0's hydra ends the job when a process dies, -disable-auto-cleanup or not (within about
    # a second in most tries here): only the status is sure. A stopped rank it does not notice.
    lose "$mpich" -disable-auto-cleanup -- KILL PMI_RANK 1 lost-mpich.json -- check "${lost[@]}" --golden golden-whole --json
    [ "$status" -ne 0 ] && pass "MPICH, rank 1 killed: the job ends with $status" \
      || fail "MPICH, rank 1 killed: exit status $status"
    lose "$mpich" -- STOP PMI_RANK 1 stop-mpich.json -- check "${lost[@]}" --golden golden-whole --json
    [ "$status" -ne 0 ] && pass "MPICH, rank 1 stopped: exit status $status" || fail "MPICH, rank 1 stopped: exit 0"
    the_lost_case stop-mpich.json >/dev/null && pass "MPICH, rank 1 stopped: the report fails its case naming it" \
      || fail "MPICH, rank 1 stopped: the report"
    lose "$mpich" -disable-auto-cleanup -- KILL PMI_RANK 0 lost0-mpich.json -- check "${lost[@]}" --golden golden-whole --json
    [ "$status" -ne 0 ] && pass "MPICH, rank 0 killed: the job ends with $status" \
      || fail "MPICH, rank 0 killed: exit status $status"
  fi
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
