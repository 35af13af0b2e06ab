#!/usr/bin/env bash
# End to end, the holes of issue 34 that are about containment: text that leaves the tool is never
# raw (8-bit CSI, bidirectional controls, bytes that are not UTF-8), every limit is a total (the
# workers' memory, the cases of all suite files, the work a golden may ask for), and every process
# the gate starts dies with it (a Python worker when the gate is killed; a child that a target
# forks after setsid()).
# usage: containment_e2e.sh FPREV_GOLDEN ROOT FAULT_BLAS
set -uo pipefail
FG=$1 ROOT=$2 FAULT_BLAS=$3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
source "$ROOT/tests/e2e/e2e_lib.sh"
unset FPREV_STRICT FPREV_SUITES FPREV_GOLDEN_DIR FPREV_BACKEND_PATH
run() {  # EXPECTED-STATUS WHAT -- COMMAND...: output (stdout and stderr) in out.txt
  local expected=$1 what=$2
  shift 3
  "$@" >out.txt 2>&1
  expect_status "$expected" $? "$what"
}
cd "$WORK"
small_project
"$FG" update >/dev/null 2>&1
golden=$(find golden -name 'sum-float32-sequential-n16.golden')
other=$(find golden -name 'sum-float32-pairwise-n16.golden')
cp "$golden" before.golden

echo "# 9: no raw 8-bit CSI, bidirectional control or stray byte reaches a reader"
CSI=$'\x9b' RLO=$'\xe2\x80\xae'
expect_clean() {  # file, what
  if LC_ALL=C grep -q "$CSI" "$1"; then fail "$2: a raw 0x9B byte (8-bit CSI) was written"; else pass "$2: no raw 0x9B"; fi
  if LC_ALL=C grep -q "$RLO" "$1"; then fail "$2: a raw U+202E was written"; else pass "$2: no raw U+202E"; fi
  if iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1; then pass "$2: valid UTF-8"; else fail "$2: not valid UTF-8"; fi
}
# The golden's escape \x9b is the raw byte once read; U+202E is valid UTF-8 written as it is.
sed "s/^library: \(.*\)\$/library: \1\\\\x9b31m${RLO}evil/" before.golden >"$golden"
run 0 "show a golden whose library line holds an 8-bit CSI and a U+202E" -- "$FG" show "$golden"
expect_clean out.txt "show"
expect_in '\x9b31m\u202eevil' out.txt "show writes both escaped"
for format in dot json; do
  run 0 "show --format $format" -- "$FG" show "$golden" --format $format
  expect_clean out.txt "show --format $format"
done
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if "\u202e" in d["metadata"]["library"] else 1)' out.txt &&
  pass "the JSON is valid and holds the same U+202E, JSON-escaped" || fail "the JSON lost or broke the value"
if command -v dot >/dev/null; then
  run 0 "show --format svg --output" -- "$FG" show "$golden" --format svg --output tree.svg
  expect_clean tree.svg "the SVG file"
fi
sed -e 's/^case: sum-float32-pairwise-n16$/case: sum-float32-sequential-n16/' \
    -e "s/^library: \(.*\)\$/library: \1\\\\x9b31m${RLO}evil/" "$other" >"$golden"
run 1 "check of a golden whose library line holds them" -- "$FG" check --case sum-float32-sequential-n16 --html report.html
expect_clean out.txt "check"
expect_clean report.html "the HTML report"
"$FG" check --case sum-float32-sequential-n16 --json >check.json 2>/dev/null
expect_clean check.json "check --json"
cp before.golden "$golden"

echo "# 8: a golden's work is bounded by its case, and reading it counts against the case's budget"
# A few lines that claim a chain of 16,777,216 leaves (the most a golden may hold) for a case of 16
# summands: 2 minutes and 3 GB to expand before; refused at its leaves line now.
awk '/^leaves: /{exit} {print}' before.golden >"$golden"
cat >>"$golden" <<'GOLDEN'
leaves: 16777216
inner-nodes: 16777215
depth: 16777215
arity: 2:16777215
# structure: T<k> = <expression>; each template uses earlier ones, the last is the root
T1 = chain(0..16777215)
# end
GOLDEN
run 1 "check of a 16-summand case whose golden claims 16,777,216 leaves" -- \
  bash -c "ulimit -v 1000000; ulimit -t 60; exec \"$FG\" check --case sum-float32-sequential-n16"
expect_in "leaves is 16,777,216, but the case has 16 summands" out.txt "it is refused, naming both sizes"
cp before.golden "$golden"

echo "# 11: the case limit is a total across the suite files of a run"
mkdir -p many
for k in 1 2 3; do sed "s/^suite: small\$/suite: small$k/" suites/small.yaml >many/s$k.yaml; done
run 2 "three files of 5 cases under --max-cases 12" -- "$FG" list many --max-cases 12
expect_in "more than 12 cases together" out.txt "the refusal names the limit"
expect_in "--max-cases N" out.txt "and how to raise it"
run 0 "the same under --max-cases 15" -- "$FG" list many --max-cases 15
"$FG" list --help >out.txt 2>&1
expect_in "--max-cases" out.txt "list --help documents --max-cases"

echo "# 7: the worker memory limit is a total across the workers of a run"
"$FG" check --help >out.txt 2>&1
expect_in "all workers of the run may use together" out.txt "check --help says the limit is a total"
mkdir -p mem/suites mem/golden
cat >mem/suites/mem.yaml <<YAML
suite: mem
backends:
  - name: fault
    use: blas
    library: $FAULT_BLAS
    threads: 1
cases:
  - op: dot
    dtype: float32
    n: 256
YAML
if "$FG" update --suites mem/suites --golden mem/golden >out.txt 2>&1; then
  # Each probe stream's worker holds 150 MiB: under a limit of 250 MiB one worker fits, two do not.
  run 0 "one worker of 150 MiB under --worker-memory 250" -- env FAULT_BLAS_MODE=hold \
    "$FG" check --suites mem/suites --golden mem/golden --no-pending --streams 1 --worker-memory 250
  run 1 "two workers of 150 MiB under --worker-memory 250" -- env FAULT_BLAS_MODE=hold \
    "$FG" check --suites mem/suites --golden mem/golden --no-pending --streams 2 --worker-memory 250
  expect_in "crashed (out of memory)" out.txt "the case fails as out of memory"
  expect_in "a total across all workers of the run" out.txt "the diagnostic says the limit is a total"
else
  fail "update of the fault BLAS suite"; sed 's/^/      /' out.txt | head -20
fi

echo "# 6: every process the gate starts dies with it"
PY=""
for candidate in /usr/bin/python3 "$(command -v python3 2>/dev/null)"; do
  if [ -n "$candidate" ] && "$candidate" -c "import numpy" 2>/dev/null; then PY=$candidate; break; fi
done
if [ -z "$PY" ]; then
  echo "  (skipped: no python3 with numpy for the python backend)"
else
  mkdir -p py/suites py/golden py/modules
  cat >py/suites/py.yaml <<YAML
suite: py
backends:
  - name: mine
    use: python
    python: $PY
    library: numpy
    function: escaper:total
cases:
  - op: sum
    dtype: float32
    n: 8
YAML
  # A function that leaves a grandchild behind in a session of its own (setsid, then fork), and,
  # with ESCAPER_HANG set, never returns: the gate is then killed while the worker runs it.
  cat >py/modules/escaper.py <<'PY'
import os, time

def total(x):
    pidfile = os.environ["ESCAPER_PIDS"]
    if not os.path.exists(pidfile + ".done"):
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                with open(pidfile, "a") as f:
                    f.write("%d\n" % os.getpid())
                time.sleep(600)
            os._exit(0)
        open(pidfile + ".done", "w").close()
        time.sleep(0.5)
    if os.environ.get("ESCAPER_HANG"):
        with open(pidfile + ".worker", "w") as f:
            f.write("%d\n" % os.getpid())
        time.sleep(600)
    acc = x.dtype.type(0)
    for v in x:
        acc = acc + v
    return acc
PY
  export PYTHONPATH="$PWD/py/modules"
  alive() {  # a pid that is neither gone nor a zombie (whoever adopted it may reap it late)
    local state
    state=$(ps -o stat= -p "$1" 2>/dev/null | tr -d ' ')
    [ -n "$state" ] && [ "${state:0:1}" != Z ]
  }
  run 0 "update of a function that leaves a setsid() grandchild" -- env ESCAPER_PIDS="$PWD/u.pids" \
    "$FG" update --suites py/suites --golden py/golden
  sleep 1
  left=$(cat u.pids 2>/dev/null)
  if [ -z "$left" ]; then fail "the function did not start its grandchild"
  elif alive "$left"; then fail "the setsid() grandchild $left outlived the run"; kill -9 "$left"
  else pass "the setsid() grandchild is gone once the run ended"; fi
  for signal in TERM KILL; do
    rm -f hang.pids*
    ESCAPER_PIDS="$PWD/hang.pids" ESCAPER_HANG=1 "$FG" check --suites py/suites --golden py/golden --no-pending \
      >hang.txt 2>&1 &
    gate=$!
    for _ in $(seq 100); do [ -s hang.pids.worker ] && break; sleep 0.2; done
    worker=$(cat hang.pids.worker 2>/dev/null)
    kill -$signal $gate
    wait $gate 2>/dev/null
    sleep 1
    if [ -z "$worker" ]; then fail "SIG$signal: the worker never ran the function"; sed 's/^/      /' hang.txt | head
    elif alive "$worker"; then fail "SIG$signal: the Python worker $worker outlived the gate"; kill -9 "$worker"
    else pass "SIG$signal to the gate: the Python worker died with it"; fi
    # The setsid() grandchild: the gate takes it along when it can act (SIGTERM); after SIGKILL it
    # is beyond reach (SECURITY.md) and the test removes it.
    grandchild=$(cat hang.pids 2>/dev/null)
    if [ "$signal" = TERM ]; then
      if [ -z "$grandchild" ]; then fail "SIGTERM: the function did not start its grandchild"
      elif alive "$grandchild"; then fail "SIGTERM: the setsid() grandchild $grandchild outlived the gate"
      else pass "SIGTERM to the gate: the setsid() grandchild died with it"; fi
    fi
    [ -n "$grandchild" ] && kill -9 "$grandchild" 2>/dev/null
  done
fi

finish containment
