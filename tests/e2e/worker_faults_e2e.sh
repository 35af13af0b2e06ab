#!/usr/bin/env bash
# A library that crashes, aborts, hangs, exits, prints or allocates without bound never takes the gate
# with it (supervised workers, docs/worker-protocol.md). A suite of 8 dot cases over a fault-injection
# BLAS (tests/e2e/fault_blas) that misbehaves for n >= 100 only: for each fault, the 4 healthy cases
# pass, the 4 others fail with the named fault, check and check --ctest exit 1, --json stays one
# valid document, and the run ends in bounded time (this test's TIMEOUT). A backend module that
# prints a banner when loaded leaves list --cmake-tests and ctest working.
# usage: worker_faults_e2e.sh FPREV_GOLDEN ROOT FAULT_BLAS BANNER_MODULE_DIR PYTHON CMAKE CTEST
set -uo pipefail
FG=$1 ROOT=$2 FAULT_BLAS=$3 BANNER_DIR=$4 PYTHON=$5 CMAKE=$6 CTEST=$7
source "$ROOT/tests/e2e/e2e_lib.sh"
SCHEMA="$ROOT/docs/fprev-golden.schema.json"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir -p suites golden
cat > suites/faults.yaml <<YAML
suite: faults
description: a BLAS that misbehaves for n >= 100
backends:
  - name: fault
    use: blas
    library: $FAULT_BLAS
    threads: 1
cases:
  - op: dot
    dtype: float32
    n: [8, 16, 32, 64, 100, 128, 256, 512]
YAML
unset FAULT_BLAS_MODE FAULT_BLAS_BANNER
"$FG" update --suites suites --golden golden >update.txt 2>&1
expect_status 0 $? "update records the 8 cases with a healthy library"
expect_in "8 created" update.txt "update created 8 goldens"
sums_before=$(find golden -type f -name '*.golden' | sort | xargs sha256sum)

json_counts() {  # file -> "passed failed skipped" (or "invalid")
  "$PYTHON" - "$1" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    c = d["counts"]
    print(c["passed"], c["failed"], c["skipped"])
except Exception as e:
    print("invalid:", e)
PY
}
json_faults() {  # file -> the diagnostics' findings and first message lines of the failed cases
  "$PYTHON" - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cases"]:
    if c["outcome"] == "failed":
        diag = c.get("diagnostic") or {}
        print(c["case"], diag.get("finding"), diag.get("message", "").splitlines()[0])
PY
}

# check_fault MODE NAME [options...]: the named fault on the 4 large cases, the 4 small ones pass.
check_fault() {
  local mode=$1 name=$2
  shift 2
  FAULT_BLAS_MODE=$mode "$FG" check --suites suites --golden golden --no-pending --json "$@" >$mode.json 2>$mode.err
  expect_status 1 $? "$mode: check fails"
  local counts
  counts=$(json_counts $mode.json)
  if [ "$counts" = "4 4 0" ]; then pass "$mode: --json is one document: 4 passed, 4 failed"; else fail "$mode: counts '$counts'"; sed 's/^/      /' $mode.err | head -20; fi
  "$PYTHON" "$ROOT/tests/e2e/validate_json.py" "$SCHEMA" $mode.json check >$mode.schema 2>&1
  local status=$?
  if [ $status -eq 0 ] || [ $status -eq 77 ]; then pass "$mode: the document follows the schema"; else fail "$mode: schema"; cat $mode.schema; fi
  json_faults $mode.json >$mode.faults
  local named
  named=$(grep -c "target_fault $name while" $mode.faults)
  if [ "$named" = 4 ]; then pass "$mode: every faulty case is named '$name'"; else fail "$mode: $named of 4 named '$name':"; sed 's/^/      /' $mode.faults; fi
  for n in 128 512; do expect_in "dot-float32-n$n target_fault" $mode.faults "$mode: n=$n failed"; done
}

check_fault segv "crashed (SIGSEGV)"
expect_in "about to dereference null" segv.json "segv: the diagnostic carries the library's last stderr line"
expect_in "fault_blas" segv.json "segv: the diagnostic names the library"
expect_in "probe" segv.json "segv: the diagnostic names the call in flight"
check_fault abort "crashed (SIGABRT)"
check_fault fpe "crashed (SIGFPE)"
check_fault exit0 "exited (status 0)"
check_fault exit3 "exited (status 3)"
check_fault oom "crashed (out of memory)" --worker-memory 200
start=$(date +%s)
check_fault hang "hung" --watchdog 1
elapsed=$(( $(date +%s) - start ))
if [ $elapsed -lt 60 ]; then pass "hang: the watchdog ended the run in ${elapsed} s"; else fail "hang: ${elapsed} s"; fi
check_fault hang "hung" --max-seconds 2
expect_in "time budget" hang.json "hang: --max-seconds is a hard limit named in the diagnostic"

# The text report and --ctest.
FAULT_BLAS_MODE=segv "$FG" check --suites suites --golden golden --no-pending >segv.txt 2>&1
expect_status 1 $? "segv: text check fails"
expect_in "4 passed, 4 failed" segv.txt "segv: the text report is complete"
expect_in "crashed (SIGSEGV)" segv.txt "segv: the text report names the fault"
FAULT_BLAS_MODE=exit0 "$FG" check --suites suites --golden golden --no-pending --ctest --suite faults --case dot-float32-n128 >ctest0.txt 2>&1
expect_status 1 $? "exit0: check --ctest of a faulty case exits 1 (never CTest's pass)"
FAULT_BLAS_MODE=exit0 "$FG" check --suites suites --golden golden --no-pending --ctest --strict --suite faults --case dot-float32-n128 >ctest0s.txt 2>&1
expect_status 1 $? "exit0: check --ctest --strict exits 1"
FAULT_BLAS_MODE=exit0 "$FG" check --suites suites --golden golden --no-pending --ctest --suite faults --case dot-float32-n64 >ctest64.txt 2>&1
expect_status 0 $? "exit0: a healthy case still passes under --ctest"
FAULT_BLAS_MODE=segv "$FG" reveal --backend blas --library "$FAULT_BLAS" --op dot --dtype float32 --n 200 >reveal.txt 2>&1
expect_status 1 $? "segv: reveal fails with status 1 (not a dead process)"
expect_in "crashed (SIGSEGV)" reveal.txt "segv: reveal names the fault"

# Output of a library never reaches our reports.
for stream in stdout stderr; do
  FAULT_BLAS_MODE=$stream "$FG" check --suites suites --golden golden --no-pending --json >$stream.json 2>$stream.err
  expect_status 0 $? "$stream: a printing but healthy library passes"
  counts=$(json_counts $stream.json)
  if [ "$counts" = "8 0 0" ]; then pass "$stream: --json stays one document: 8 passed"; else fail "$stream: counts '$counts'"; fi
  expect_not_in "fault_blas says hello" $stream.json "$stream: nothing of the library on stdout"
  expect_not_in "fault_blas says hello" $stream.err "$stream: nothing of the library on stderr"
done

# update with a faulting target leaves the goldens untouched and exits 1.
FAULT_BLAS_MODE=segv "$FG" update --suites suites --golden golden >update_segv.txt 2>&1
expect_status 1 $? "segv: update fails"
expect_in "crashed (SIGSEGV)" update_segv.txt "segv: update reports the fault"
sums_after=$(find golden -type f -name '*.golden' | sort | xargs sha256sum)
if [ "$sums_before" = "$sums_after" ]; then pass "segv: update left every golden untouched"; else fail "segv: a golden changed"; fi

# Issue 34.2: FPREV_WORKERS=off (the library in the gate's own process) is a debugging aid. Its
# exit(0) once ended check --json with status 0 and no output, and update after 2 of 8 goldens.
FAULT_BLAS_MODE=exit0 FPREV_WORKERS=off "$FG" check --suites suites --golden golden --no-pending --strict --json >off.json 2>off.err
expect_status 1 $? "FPREV_WORKERS=off: check --strict --json ended by the library's exit(0) fails"
expect_in "called exit() during the run" off.err "FPREV_WORKERS=off: it says why"
FAULT_BLAS_MODE=exit0 FPREV_WORKERS=off "$FG" check --suites suites --golden golden --no-pending --ctest --strict --suite faults --case dot-float32-n128 >off.txt 2>&1
expect_status 1 $? "FPREV_WORKERS=off: check --ctest --strict fails"
cp -r golden golden-off
FAULT_BLAS_MODE=exit0 FPREV_WORKERS=off "$FG" update --suites suites --golden golden-off >off.txt 2>&1
expect_status 1 $? "FPREV_WORKERS=off: update cut short by exit(0) fails"
CI=true FPREV_WORKERS=off "$FG" check --suites suites --golden golden --no-pending >off.txt 2>&1
expect_status 2 $? "FPREV_WORKERS=off is refused under CI"
expect_in "FPREV_WORKERS=off" off.txt "the refusal names the variable"

# Issue 34.3: environment variables that move cases (a simulated host, another kernel family or
# thread count: other platform keys, no goldens, green skips) are named in the summary, and refused
# under CI unless the suite accepts them.
sed 's/ avx[0-9a-z_]*//g' "$ROOT/backends/blas/tests/data/cpuinfo-amd-epyc-zen3-avx2.txt" >noavx.txt
CI=true FPREV_BLAS_CPUINFO="$PWD/noavx.txt" "$FG" check --suites suites --golden golden --no-pending >env.txt 2>&1
expect_status 2 $? "CI with FPREV_BLAS_CPUINFO is a configuration error"
expect_in "FPREV_BLAS_CPUINFO (suite faults)" env.txt "the refusal names the variable and the suite"
FPREV_BLAS_THREADS=2 "$FG" check --suites suites --golden golden --no-pending >env.txt 2>&1
expect_in "skipped (environment overrides: FPREV_BLAS_THREADS=2)" env.txt "the summary line names FPREV_BLAS_THREADS"
FPREV_BLAS_KERNEL=Haswell "$FG" check --suites suites --golden golden --no-pending --json >env.json 2>/dev/null
"$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if {"variable": "FPREV_BLAS_KERNEL", "value": "Haswell"} in d["environment_overrides"] and "FPREV_BLAS_KERNEL=Haswell" in d["summary"] else 1)' env.json
expect_status 0 $? "--json names FPREV_BLAS_KERNEL in environment_overrides and the summary"
"$PYTHON" "$ROOT/tests/e2e/validate_json.py" "$SCHEMA" env.json check >env.schema 2>&1
status=$?
if [ $status -eq 0 ] || [ $status -eq 77 ]; then pass "that document follows the schema"; else fail "schema"; cat env.schema; fi
FPREV_BLAS_THREADS=2 "$FG" check --suites suites --golden golden --no-pending --ctest --suite faults --case dot-float32-n8 >env.txt 2>&1
expect_in "environment overrides: FPREV_BLAS_THREADS=2" env.txt "check --ctest names it too"
mkdir -p accepting
sed 's/^description: .*/environment_overrides: [FPREV_BLAS_CPUINFO]/' suites/faults.yaml >accepting/faults.yaml
CI=true FPREV_BLAS_CPUINFO="$PWD/noavx.txt" "$FG" check --suites accepting --golden golden --no-pending --case 'dot-float32-n[1-6]*' >env.txt 2>&1
expect_status 0 $? "a suite that accepts FPREV_BLAS_CPUINFO runs under CI with it"
expect_in "(environment overrides: FPREV_BLAS_CPUINFO=" env.txt "and the summary still names it"

# Issue 34.12: a relative library: is relative to the suite file (it was loaded relative to the
# working directory at run time, or failed there as a misbehaving target); in the environment it
# is a configuration error before anything runs.
mkdir -p rel/suites rel/golden && cp "$FAULT_BLAS" rel/suites/libfault.so
sed "s|library: $FAULT_BLAS|library: ./libfault.so|" suites/faults.yaml >rel/suites/faults.yaml
(cd / && "$FG" update --suites "$work/rel/suites" --golden "$work/rel/golden") >rel.txt 2>&1
expect_status 0 $? "library: ./libfault.so loads the library beside the suite, from any directory"
expect_in "8 created" rel.txt "and records its 8 cases"
(cd rel/suites && FPREV_BLAS_LIBRARY=./libfault.so "$FG" check --suites . --golden ../golden) >rel.txt 2>&1
expect_status 2 $? "FPREV_BLAS_LIBRARY=./libfault.so is a configuration error"
expect_in "relative path" rel.txt "it says why"

# A module that prints a banner when loaded: list --cmake-tests and ctest still work; a crash in
# one of its calls is named too.
export FPREV_BACKEND_PATH="$BANNER_DIR"
mkdir -p mod/suites mod/golden
cat > mod/suites/banner.yaml <<'YAML'
suite: banner
description: a module that prints when loaded
backends:
  - name: bannered
    use: banner
  - name: crashing
    use: banner
    crash_from: 100
cases:
  - n: [16, 200]
    backends: [bannered, crashing]
YAML
(cd mod && "$FG" list --cmake-tests "$FG" >cmake_tests.txt 2>list.err)
expect_status 0 $? "banner: list --cmake-tests succeeds"
expect_not_in "licensed to nobody" mod/cmake_tests.txt "banner: the banner is not in list --cmake-tests"
expect_not_in "licensed to nobody" mod/list.err "banner: nor on its stderr"
expect_in "add_test" mod/cmake_tests.txt "banner: list --cmake-tests lists the tests"
(cd mod && "$FG" list --json >list.json 2>/dev/null)
counts=$("$PYTHON" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["cases"]))' mod/list.json 2>&1)
if [ "$counts" = 4 ]; then pass "banner: list --json is one document of 4 cases"; else fail "banner: list --json: $counts"; fi
(cd mod && "$FG" update --backend bannered >update.txt 2>&1)
expect_status 0 $? "banner: update of the healthy instance"
(cd mod && FG="$FG" ROOT="$ROOT" CMAKE="$CMAKE" configure_downstream_project)
(cd mod && "$CTEST" --test-dir build -R bannered >ctest.txt 2>&1)
expect_status 0 $? "banner: ctest runs the module's cases"
expect_in "100% tests passed" mod/ctest.txt "banner: ctest passes them"
(cd mod && "$FG" check --backend crashing --no-pending --json >crashing.json 2>/dev/null)
expect_status 1 $? "banner: a module that crashes in a call fails the check"
json_faults mod/crashing.json >mod/crashing.faults
expect_in "target_fault crashed (SIGSEGV)" mod/crashing.faults "banner: the module's crash is named"

finish worker-faults
