#!/usr/bin/env bash
# End to end, invariance contracts (docs/invariance.md) in a scratch project with the reference
# gemv whose K split depends on the batch (split_k_max_m: ground truth by construction): update
# records the verdicts in the golden; check passes at the cost of proofs; a library that starts
# splitting K for small batches (the suite's split_k_max_m raised, the case's own order unchanged)
# fails check with the values and the element; review and accept take the new verdict; the reverse
# is a gained invariance to review; show, the HTML report and --json show the verdicts; a malformed
# `invariant:` is refused with file:line and the allowed values; a golden without the lines reads.
# usage: invariance_e2e.sh <fprev-golden> <source root> <python3>
set -uo pipefail
FG=$1 ROOT=$2 PYTHON=$3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
unset CI FPREV_STRICT FPREV_SUITES FPREV_GOLDEN_DIR FPREV_PENDING_DIR
source "$(dirname "$0")/e2e_lib.sh"

cd "$WORK"
mkdir -p project/suites project/golden && cd project
suite() {  # split_k_max_m
  cat > suites/inv.yaml <<YAML
suite: inv
backends:
  - name: ref
    use: reference
cases:
  - op: gemv
    order: sequential
    n: 16
    m: 16
    split_k_max_m: $1
    id: decode
    invariant:
      m: [1, 4, 16]
      runs: 2
YAML
}
G=golden/any/inv/ref/decode.golden

suite 0
"$FG" update >out.txt 2>&1; expect_status 0 $? "update records the verdicts"
expect_in "invariance.m: batch-invariant (m = 1, 4, 16)" "$G" "the golden records batch invariance"
expect_in "invariance.runs: run-to-run (2 runs)" "$G" "and run-to-run"
"$FG" check >out.txt 2>&1; expect_status 0 $? "check passes"
expect_in "batch-invariant, run-to-run" out.txt "the summary table shows the levels"
"$FG" check --json >out.json 2>&1
if "$PYTHON" "$ROOT/tests/e2e/validate_json.py" "$ROOT/docs/fprev-golden.schema.json" out.json check \
     cases/0/invariance/0/parameter=m cases/0/invariance/0/invariant=true cases/0/invariance_stats/0/reveals=0 \
     cases/0/invariance_stats/0/proofs=2 'cases/0/invariance_changes=[]' >check.txt 2>&1; then
  pass "check --json: the verdicts at the cost of proofs (no reveal)"
elif [ $? = 77 ]; then pass "check --json (schema not checked: no python3-jsonschema)"
else fail "check --json:"; sed 's/^/      /' check.txt | head; fi

# --- a lost invariance ---------------------------------------------------------------------------
suite 4
"$FG" check >out.txt 2>&1; expect_status 1 $? "check fails when batch invariance is lost"
expect_in "a recorded invariance was lost" out.txt "the reason names the lost invariance"
expect_in "no longer batch-invariant: at m=1 element (0,0) adds its summands in another order than at m=16" out.txt \
  "the message names the values and the element"
expect_in "first difference, over leaves {0..15}:" out.txt "and the first differing subtree"
expect_in "m=1: ((((((((0 1) 2) 3) 4) 5) 6) 7) (((((((8 9) 10) 11) 12) 13) 14) 15))" out.txt "at m=1: the split K"
expect_in "kept for review: $G.new" out.txt "the new verdict is kept for review"
"$FG" review --golden golden <<<"a" >out.txt 2>&1; expect_status 0 $? "review accepts it"
expect_in "no longer batch-invariant" out.txt "review shows the invariance change"
expect_in "invariance.m: not batch-invariant (m = 1, 4, 16): at m=1 element (0,0)" "$G" "the golden records the loss"
"$FG" check >out.txt 2>&1; expect_status 0 $? "check passes against the accepted verdict"
"$FG" show "$G" --format text >out.txt 2>&1
expect_in "not batch-invariant (m = 1, 4, 16)" out.txt "show prints the verdicts"

# --- a gained invariance is a change to review ------------------------------------------------------
suite 0
"$FG" check --html report.html >out.txt 2>&1; expect_status 1 $? "a gained invariance fails check as a change"
expect_in "now batch-invariant (m = 1, 4, 16), a change to review" out.txt "and says so"
expect_in "now batch-invariant" report.html "the HTML report shows it"
"$FG" update >out.txt 2>&1; expect_status 0 $? "update takes it"
expect_in "1 changed" out.txt "update reports the changed golden"

# --- a golden without the lines (written before the check) reads, and check asks for update ----------
grep -v '^invariance\.' "$G" > old.golden && mv old.golden "$G"
"$FG" show "$G" >/dev/null 2>&1; expect_status 0 $? "a golden without invariance lines reads"
"$FG" check >out.txt 2>&1; expect_status 1 $? "check runs the contracts the golden lacks"
expect_in "invariance over m is not recorded in the golden: now batch-invariant (m = 1, 4, 16); update records it" \
  out.txt "and says what update would record"

# --- malformed contracts: file:line and the allowed values -------------------------------------------
cat > suites/bad.yaml <<'YAML'
suite: bad
backends:
  - name: ref
    use: reference
cases:
  - op: gemv
    order: sequential
    n: 16
    invariant:
      batch: [1, 2]
      m: [1, 1]
      runs: 1
YAML
"$FG" list suites/bad.yaml >out.txt 2>&1; expect_status 2 $? "a malformed invariant is refused"
expect_in "bad.yaml:10:7: error: invariance over 'batch'" out.txt "an unknown parameter names file:line:col"
expect_in "allowed values: runs, op, order" out.txt "and the parameters allowed"
expect_in "bad.yaml:11:7: error: invariance over m: value 1 is listed twice" out.txt "a repeated value is refused"
expect_in "bad.yaml:12:13: error: runs takes one count of fresh runs, 2 to 1000" out.txt "runs: 1 is refused"

# A contract only the backend can refuse (n changes the number of summands of a reference sum):
# a configuration error, exit 2 with the case named, never "the target misbehaves" and exit 1.
mkdir -p summands/suites summands/golden
cat > summands/suites/sum.yaml <<'YAML'
suite: sum
backends:
  - name: ref
    use: reference
cases:
  - op: sum
    order: sequential
    n: 8
    invariant:
      n: [8, 16]
YAML
"$FG" update --suites summands/suites --golden summands/golden >out.txt 2>&1
expect_status 2 $? "an invariance the backend cannot compare is a configuration error"
expect_in "FAILED reproducibility/sum/ref/" out.txt "the case is named"
expect_in "the suite's configuration is refused" out.txt "as the suite's error"
expect_in "n changes the number of summands" out.txt "with the backend's reason"
expect_in "1 case has a configuration error" out.txt "and the run says why it exits 2"
finish invariance
