#!/usr/bin/env bash
# End to end, in a scratch copy of a small project: the gate passes; a golden edited by hand to
# another valid tree fails with the diff; update restores it and git diff shows only the changed
# nodes; a missing golden skips (fails in strict mode); a malformed suite reports file:line:col; a
# truncated or corrupted golden fails clearly and is never overwritten by check; update under CI
# refuses; parallel updates never leave a half-written file; the CTest integration discovers,
# labels, skips and reports (JUnit) the cases.
# usage: gate_e2e.sh <fprev-golden> <source root> <cmake> <ctest>
set -uo pipefail
FG=$1 ROOT=$2 CMAKE=$3 CTEST=$4
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
unset CI FPREV_STRICT FPREV_SUITES FPREV_GOLDEN_DIR
source "$(dirname "$0")/e2e_lib.sh"

cd "$WORK"
mkdir project && cd project
small_project
G=golden/any/small/ref

# --- baseline and a green gate ------------------------------------------------------------------
"$FG" update >out.txt 2>&1; expect_status 0 $? "update creates the goldens"
expect_in "5 created" out.txt "update reports the created goldens"
git add -A && git commit -qm baseline
"$FG" check >out.txt 2>&1; expect_status 0 $? "the gate passes"
expect_in "5 passed, 0 failed, 0 skipped" out.txt "check prints the closing summary"

# --- a golden edited by hand to another valid tree ----------------------------------------------
golden="$G/sum-float32-pairwise-n64.golden"
sed -i -e 's/^n0\.2 = (0 1)$/n0.2 = (0 2)/' -e 's/^n2\.2 = (2 3)$/n1.2 = (1 3)/' \
       -e 's/^n0\.4 = (n0\.2 n2\.2)$/n0.4 = (n0.2 n1.2)/' "$golden"
git commit -qam "an older library's order"
"$FG" show "$golden" --format sexpr >out.txt 2>&1; expect_status 0 $? "the edited golden is a valid tree"
"$FG" check >out.txt 2>&1; expect_status 1 $? "check fails on the changed tree"
expect_in "FAILED reproducibility/small/ref/sum-float32-pairwise-n64" out.txt "the failing case is named"
expect_in "((0 2) (1 3))" out.txt "the diff shows the golden's differing subtree"
expect_in "((0 1) (2 3))" out.txt "the diff shows the revealed subtree"
expect_in "inner nodes still agree" out.txt "the diff counts the agreeing nodes"
expect_in "impact: differs on " out.txt "the failure says what the change costs numerically"
expect_in "worst-case bound 6u -> 6u" out.txt "the impact gives both trees' worst-case bounds (depth 6)"
expect_in "suggested relative tolerance: " out.txt "the impact suggests a tolerance"
expect_in "arithmetic: the case's target: float32 inputs" out.txt "the impact is evaluated in the case's formats"
expect_in "fprev-golden update --suite small --backend ref --case sum-float32-pairwise-n64" out.txt \
  "the failure names the command that accepts the change"
expect_in "1 failed" out.txt "the summary counts the failure"
"$FG" check --json >out.json 2>/dev/null; expect_status 1 $? "check --json fails too"
expect_in '"status": "differs"' out.json "the JSON report has the status"

"$FG" update --case 'sum-*-pairwise-n64' >out.txt 2>&1; expect_status 0 $? "update re-baselines the case"
expect_in "1 changed" out.txt "update reports the changed golden"
"$FG" check >out.txt 2>&1; expect_status 0 $? "the gate passes again"
changed=$(git diff -U0 -- "$golden" | grep -E '^[-+][^-+]' || true)
others=$(echo "$changed" | grep -vE '^[-+](created: |n[0-9]+\.[0-9]+ = )' || true)
nodes=$(echo "$changed" | grep -cE '^[-+]n[0-9]+\.[0-9]+ = ' || true)
if [ -z "$others" ] && [ "$nodes" -le 6 ]; then pass "git diff shows only the changed nodes ($nodes node lines)"
else fail "git diff shows more than the changed nodes:"; echo "$changed" | head -20; fi
git commit -qam "re-baselined"

# --- a changed arithmetic under the same tree: its impact, each side with its own facts ----------
golden="$G/sum-float32-sequential-n64.golden"
sed -i 's/^fingerprint\.fact\.partial-sums: float32$/fingerprint.fact.partial-sums: float64/' "$golden"
"$FG" check --case sum-float32-sequential-n64 >out.txt 2>&1; expect_status 1 $? "check fails on a changed arithmetic"
expect_in "the arithmetic changed under the same summation tree" out.txt "the failure says the arithmetic changed"
expect_in "worst-case bound 1.17e-07u -> 63u" out.txt "the impact evaluates each side with its own partial sums"
git checkout -q -- golden && rm -f "$golden.new"

# --- missing golden: skipped, failed in strict mode ---------------------------------------------
rm "$G/sum-float32-sequential-n16.golden"
"$FG" check >out.txt 2>&1; expect_status 0 $? "a missing golden does not fail the gate"
expect_in "SKIPPED reproducibility/small/ref/sum-float32-sequential-n16" out.txt "the missing golden is a skip"
expect_in "create it with: $FG update --suite small --backend ref --case sum-float32-sequential-n16" \
  out.txt "the skip gives the update command (the program as it was run)"
expect_in "1 skipped" out.txt "the summary counts the skip"
"$FG" check --strict >out.txt 2>&1; expect_status 1 $? "strict mode fails on a missing golden"
FPREV_STRICT=1 "$FG" check >out.txt 2>&1; expect_status 1 $? "FPREV_STRICT=1 fails on a missing golden"
"$FG" check --suite small --backend ref --case sum-float32-sequential-n16 --ctest >out.txt 2>&1
expect_status 77 $? "--ctest exits 77 (CTest skip) for a missing golden"
git checkout -q -- golden

# --- CI refuses update --------------------------------------------------------------------------
before=$(find golden -type f -exec md5sum {} + | sort)
CI=true "$FG" update >out.txt 2>&1; expect_status 2 $? "update refuses under CI"
expect_in "refusing to re-baseline" out.txt "the refusal says why"
after=$(find golden -type f -exec md5sum {} + | sort)
[ "$before" = "$after" ] && pass "nothing was written under CI" || fail "update wrote goldens under CI"
CI=true "$FG" update --force >out.txt 2>&1; expect_status 0 $? "update --force works under CI"

# --- truncated and corrupted goldens: clear failure, never overwritten by check -------------------
golden="$G/sum-float32-sequential-n64.golden"
head -n 20 "$golden" >trunc && cp trunc "$golden"
sum_before=$(md5sum <"$golden")
"$FG" check >out.txt 2>&1; expect_status 1 $? "a truncated golden fails the gate"
expect_in "$golden" out.txt "the message names the truncated file"
expect_in "FAILED reproducibility/small/ref/sum-float32-sequential-n64" out.txt "the case is named"
[ "$(md5sum <"$golden")" = "$sum_before" ] && pass "check never rewrites a truncated golden" || fail "check rewrote the golden"
git checkout -q -- golden
sed -i 's/^n0\.2 = (0 1)$/n0.2 = (0 x)/' "$golden"
"$FG" check >out.txt 2>&1; expect_status 1 $? "a corrupted golden fails the gate"
expect_in "$golden:" out.txt "the message names the corrupted file and line"
git checkout -q -- golden

# --- malformed suite: file:line:col and allowed values, exit 2 ----------------------------------
mkdir bad && cat > bad/broken.yaml <<'YAML'
suite: broken
backends:
  - name: ref
    use: reference
cases:
  - op: sum
    order: sideways
    n: 8
YAML
"$FG" list --suites bad >out.txt 2>&1; expect_status 2 $? "a malformed suite is a configuration error"
expect_in "broken.yaml:7:12:" out.txt "the error names file:line:col"
expect_in "allowed values:" out.txt "the error lists the allowed values"
"$FG" check --suites bad >out.txt 2>&1; expect_status 2 $? "check does not run an invalid suite"

# --- parallel updates never leave a half-written file --------------------------------------------
rm -rf golden/any
for round in 1 2 3; do
  pids=""
  for k in 1 2 3 4; do "$FG" update --quiet >/dev/null 2>&1 & pids="$pids $!"; done
  "$FG" check >/dev/null 2>&1 || true   # a concurrent reader
  for p in $pids; do wait "$p" || fail "parallel update $round failed"; done
done
"$FG" check >out.txt 2>&1; expect_status 0 $? "goldens written by parallel updates are complete"
stray=$(find golden -type f ! -name '*.golden')
[ -z "$stray" ] && pass "no temporary files left behind" || fail "left behind: $stray"

# --- cases side by side (--jobs): the serial run's goldens, byte for byte, and its report ---------
rm -rf golden/any
SOURCE_DATE_EPOCH=1700000000 "$FG" update --quiet >/dev/null 2>&1; cp -r golden serial-golden
rm -rf golden/any
SOURCE_DATE_EPOCH=1700000000 "$FG" update --jobs 3 >out.txt 2>&1; expect_status 0 $? "update --jobs 3"
diff -r serial-golden golden >/dev/null && pass "update --jobs 3 writes the serial run's goldens byte for byte" \
  || fail "update --jobs 3 wrote other goldens than a serial update"
"$FG" check --json >serial.json 2>/dev/null
"$FG" check --jobs 0 --json >jobs.json 2>/dev/null; expect_status 0 $? "check --jobs 0 (one per core)"
essence() { python3 -c '
import json, sys
print(json.dumps([(c["test"], c["status"], c["revealed"], c["fingerprint"]) for c in json.load(open(sys.argv[1]))["cases"]]))
' "$1"; }
[ "$(essence serial.json)" = "$(essence jobs.json)" ] \
  && pass "check --jobs: the serial run's cases, results and order" || fail "check --jobs reports otherwise than a serial check"
FPREV_JOBS=2 "$FG" check --case 'sum-*' >out.txt 2>&1; expect_status 0 $? "FPREV_JOBS=2 check"
expect_in "4 passed, 0 failed, 0 skipped" out.txt "FPREV_JOBS: the closing summary counts every case"
"$FG" check --jobs 0 --jobs 1 --case 'sum-*' >out.txt 2>&1
expect_status 0 $? "a later --jobs wins (scripts/gate passes --jobs 0 before the user's arguments)"
"$FG" check --jobs 2000 >out.txt 2>&1; expect_status 2 $? "check --jobs out of range is refused"
expect_in "--jobs" out.txt "the refusal names --jobs"
rm -rf serial-golden serial.json jobs.json

# --- CTest integration in a downstream project ---------------------------------------------------
configure_downstream_project
(cd build && "$CTEST" -L reproducibility --output-junit junit.xml >../out.txt 2>&1); expect_status 0 $? "ctest -L reproducibility passes"
expect_in "reproducibility/small/ref/dot-float32-strided_pairwise-n40" out.txt "tests are named reproducibility/<suite>/<backend>/<case>"
expect_in "100% tests passed" out.txt "every case passed"
expect_in "<testcase" build/junit.xml "ctest --output-junit writes the cases"
(cd build && "$CTEST" -N -L small >../out.txt 2>&1); expect_in "Total Tests: 5" out.txt "the suite name is a label"
(cd build && "$CTEST" -N -R 'pairwise' >../out.txt 2>&1); expect_in "Total Tests: 3" out.txt "ctest -R selects by name"
cat >> suites/small.yaml <<'YAML'
  - op: sum
    order: reverse
    n: 12
YAML
(cd build && "$CTEST" -N -L reproducibility >../out.txt 2>&1)
expect_in "Total Tests: 6" out.txt "a new YAML case is a new test without re-running cmake"
(cd build && "$CTEST" -L reproducibility >../out.txt 2>&1); expect_status 0 $? "a case without golden does not fail ctest"
expect_in "Skipped" out.txt "ctest reports the missing golden as skipped"
(cd build && FPREV_STRICT=1 "$CTEST" -L reproducibility >../out.txt 2>&1); expect_status 8 $? "FPREV_STRICT=1 makes ctest fail"
"$FG" update --case sum-float32-reverse-n12 >/dev/null 2>&1
(cd build && "$CTEST" -L reproducibility >../out.txt 2>&1); expect_status 0 $? "after update the new case passes"
expect_in "100% tests passed" out.txt "no skips remain"

finish gate
