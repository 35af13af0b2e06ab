#!/usr/bin/env bash
# End to end, the command line itself: the help of every sub-command; --version; unknown options,
# stray arguments and badly typed values rejected by name (exit 2); suite paths given positionally;
# the exit statuses of the error handler; every command's JSON against docs/json.md's schema
# (docs/fprev-golden.schema.json) with values checked; and the CTest integration: JUnit failure
# messages and accept commands that work as printed.
# usage: cli_e2e.sh <fprev-golden> <source root> <cmake> <ctest> <version> <python3>
set -uo pipefail
FG=$1 ROOT=$2 CMAKE=$3 CTEST=$4 VERSION=$5 PYTHON=$6
SCHEMA="$ROOT/docs/fprev-golden.schema.json"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
unset CI FPREV_STRICT FPREV_SUITES FPREV_GOLDEN_DIR
source "$(dirname "$0")/e2e_lib.sh"
# run EXPECTED-STATUS WHAT -- COMMAND...: output (stdout and stderr) in out.txt
run() {
  local expected=$1 what=$2
  shift 3
  "$@" >out.txt 2>&1
  expect_status "$expected" $? "$what"
}
# json COMMAND EXPECTED-STATUS WHAT [PATH=VALUE...] -- FG-ARGUMENTS...: validates stdout
json_ok() {
  local command=$1 expected=$2 what=$3
  shift 3
  local checks=()
  while [ "$1" != "--" ]; do checks+=("$1"); shift; done
  shift
  "$FG" "$@" >out.json 2>err.txt
  local status=$?
  if [ "$status" != "$expected" ]; then
    fail "$what: expected exit $expected, got $status"; sed 's/^/      /' err.txt | head -10; return
  fi
  if [ -z "$JSON_SCHEMA_OK" ]; then
    "$PYTHON" -c 'import json; json.load(open("out.json"))' && pass "$what: JSON (schema not checked)" ||
      fail "$what: not JSON"
  elif "$PYTHON" "$ROOT/tests/e2e/validate_json.py" "$SCHEMA" out.json "$command" "${checks[@]}" >check.txt 2>&1; then
    pass "$what: valid $command JSON (exit $status)"
  else
    fail "$what: the JSON does not follow docs/json.md:"; sed 's/^/      /' check.txt | head -20
  fi
}

# The JSON checks need python3 with jsonschema (python3-jsonschema, installed by scripts/install-deps);
# without it they only check that the output parses, and the test ends as skipped.
JSON_SCHEMA_OK=yes
"$PYTHON" -c 'import jsonschema' 2>/dev/null || JSON_SCHEMA_OK=""

cd "$WORK"
mkdir -p project/suites project/other && cd project
cat > suites/small.yaml <<'YAML'
suite: small
backends:
  - name: ref
    use: reference
cases:
  - op: sum
    order: [sequential, pairwise]
    n: [4, 16]
YAML
cat > other/tiny.yaml <<'YAML'
suite: tiny
backends:
  - name: ref
    use: reference
cases:
  - op: sum
    order: reverse
    n: 5
YAML

cat > other/labelled.yaml <<'YAML'
suite: labelled
backends:
  - name: ref
    use: reference
cases:
  - op: sum
    order: sequential
    n: 4
  - op: sum
    order: pairwise
    n: [4, 8]
    labels: long
    max_seconds: 30
    invariant:
      runs: 2
YAML

# --- help and version -----------------------------------------------------------------------------
declare -A OPTIONS=(
  [list]="--suites --golden --suite --backend --case --label --json --strict --cmake-tests SUITE_PATH"
  [check]="--suites --golden --suite --backend --case --exclude-label --label --json --strict --quiet --ctest --seed --reveal-seed --algorithm SUITE_PATH --pending --no-pending --pending-dir --unreferenced --force --streams --max-seconds --max-estimate --no-sibling-guesses"
  [update]="--suites --golden --suite --backend --case --label --json --quiet --force --seed --algorithm --pending-dir --no-pending --streams --max-seconds --max-estimate --no-sibling-guesses"
  [review]="--golden --pending-dir --suite --backend --case --platform --max-nodes --force"
  [accept]="--golden --pending-dir --suite --backend --case --platform --json --force"
  [reject]="--golden --pending-dir --suite --backend --case --platform --json"
  [diff]="OLD NEW --json"
  [show]="TREE --format --output --json"
  [reveal]="--backend --format --json --algorithm --reveal-seed --no-sibling-guesses"
  [env]="--json")
for command in list check update review accept reject diff show reveal env; do
  run 0 "$command --help" -- "$FG" "$command" --help
  for option in ${OPTIONS[$command]}; do expect_in "$option" out.txt "$command --help mentions $option"; done
  expect_in "exit status: 0 good" out.txt "$command --help documents the exit statuses"
  expect_not_in "UINT:UINT" out.txt "$command --help names a type once"
  cp out.txt help.txt
  run 0 "$command -h" -- "$FG" "$command" -h
  cmp -s out.txt help.txt && pass "$command -h prints the same help" || fail "$command -h differs from --help"
  run 0 "help $command" -- "$FG" help "$command"
  cmp -s out.txt help.txt && pass "help $command prints the same help" || fail "help $command differs from $command --help"
done
run 0 "--help" -- "$FG" --help
for command in list check update review accept reject diff show reveal env; do expect_in "$command" out.txt "--help lists $command"; done
expect_in "exit status:" out.txt "--help documents the exit statuses"
run 2 "no command prints the help and fails" -- "$FG"
expect_in "Usage: fprev-golden" out.txt "no command: the usage"
run 0 "--version" -- "$FG" --version
expect_in "fprev-golden $VERSION" out.txt "--version prints the project version"
run 0 "reveal --backend reference --help" -- "$FG" reveal --backend reference --help
for option in --order --n --lanes --block --width --seed strided_pairwise; do
  expect_in "$option" out.txt "the reference backend's help mentions $option"
done
run 0 "reveal --backend tcsim --help" -- "$FG" reveal --backend tcsim --help
expect_in "--arch" out.txt "the tcsim backend's help lists its settings"
run 0 "reveal --backend python --help" -- "$FG" reveal --backend python --help
expect_in "default python3 on PATH" out.txt "the python backend's help names its default interpreter"
expect_not_in "default python3 on PATH; default python3" out.txt "once: a help that says its default is not given it twice"

# --- rejected command lines: exit 2, naming what is wrong ---------------------------------------------
run 2 "an unknown command" -- "$FG" frobnicate
expect_in "unknown command 'frobnicate'" out.txt "the unknown command is named"
for command in list check update review accept reject env; do
  run 2 "$command --bogus" -- "$FG" "$command" --bogus
  expect_in "fprev-golden $command: error:" out.txt "$command: the error names the command"
  expect_in "--bogus" out.txt "$command: the unknown option is named"
done
run 2 "check -x (unknown short option)" -- "$FG" check -x
expect_in "-x" out.txt "the unknown short option is named"
run 2 "diff with a third argument" -- "$FG" diff '(0 1)' '(0 1)' stray-argument
expect_in "stray-argument" out.txt "the stray argument is named"
run 2 "env with an argument" -- "$FG" env stray-argument
expect_in "stray-argument" out.txt "env: the stray argument is named"
run 2 "show without a tree" -- "$FG" show
expect_in "TREE is required" out.txt "show: the missing argument is named"
run 2 "check of a suite path that does not exist" -- "$FG" check no/such/suite.yaml
expect_in "no/such/suite.yaml" out.txt "the missing suite path is named"
run 2 "check with a golden directory that does not exist" -- "$FG" check --golden no/such/golden
expect_in "the golden directory no/such/golden does not exist (named with --golden)" out.txt \
  "the missing golden directory is named"
FPREV_GOLDEN_DIR=no/such/golden run 2 "check with FPREV_GOLDEN_DIR that does not exist" -- "$FG" check
expect_in "(named with FPREV_GOLDEN_DIR)" out.txt "the variable that named it is said"
run 2 "check --seed x" -- "$FG" check --seed x
expect_in "--seed" out.txt "the badly typed option is named"
run 2 "check --streams -1" -- "$FG" check --streams -1
run 2 "check --max-seconds ten" -- "$FG" check --max-seconds ten
expect_in "--max-seconds" out.txt "a badly typed budget is named"
run 2 "update --reveal-seed -1" -- "$FG" update --reveal-seed -1
expect_in "--reveal-seed" out.txt "a negative seed is rejected by name"
run 2 "check --algorithm clever" -- "$FG" check --algorithm clever
expect_in "--algorithm" out.txt "the option with a bad choice is named"
run 2 "show --format pdf" -- "$FG" show '(0 1)' --format pdf
expect_in "--format" out.txt "show: the bad format is named"
run 2 "show --format json --json" -- "$FG" show '(0 1)' --format json --json
run 2 "check --unreferenced keep" -- "$FG" check --unreferenced keep
expect_in "--unreferenced" out.txt "the bad policy is named"
run 2 "check --pending --no-pending" -- "$FG" check --pending --no-pending
expect_in "--no-pending" out.txt "contradicting pending flags are named"
run 2 "review with a stray argument" -- "$FG" review stray-argument
expect_in "stray-argument" out.txt "review: the stray argument is named"
run 2 "check --golden given twice" -- "$FG" check --golden a --golden b
expect_in "--golden" out.txt "an option given twice is named"
run 2 "check --golden with no value" -- "$FG" check --golden
expect_in "--golden" out.txt "the option missing its value is named"
run 2 "reveal without --backend" -- "$FG" reveal --order pairwise --n 8
expect_in "--backend" out.txt "reveal asks for --backend"
run 2 "reveal --backend nope" -- "$FG" reveal --backend nope
expect_in "allowed values: " out.txt "an unknown backend lists the backends"
run 2 "reveal with a setting the backend does not take" -- \
  "$FG" reveal --backend reference --order pairwise --n 8 --library openblas
expect_in "unknown option --library for backend reference" out.txt "the unknown backend option is named"
expect_in "--order" out.txt "the allowed options are listed"
run 2 "reveal with a badly typed case parameter" -- "$FG" reveal --backend reference --order pairwise --n x
expect_in "'n'" out.txt "the bad case parameter is named"
run 2 "reveal with a bad choice" -- "$FG" reveal --backend reference --order sideways --n 8
expect_in "allowed values:" out.txt "the bad choice lists the allowed values"
run 2 "reveal with a stray argument" -- "$FG" reveal --backend reference --order pairwise --n 8 stray-argument
expect_in "stray-argument" out.txt "reveal: the stray argument is named"
run 2 "check --golden naming a file" -- "$FG" check --golden suites/small.yaml
expect_in "is not a directory" out.txt "a --golden that is a file is refused"

# --- what works -------------------------------------------------------------------------------------
run 0 "reveal with backend options" -- "$FG" reveal --backend reference --order pairwise --n 4
expect_in "((0 1) (2 3))" out.txt "pairwise n=4 is ((0 1) (2 3))"
run 0 "reveal --lanes=2 (the = form)" -- "$FG" reveal --backend reference --order strided_sequential --lanes=2 --n 4
expect_in "((0 2) (1 3))" out.txt "two strided lanes of 4 summands: ((0 2) (1 3))"
"$FG" reveal --backend reference --order random_tree --n 12 --seed 1 >seed1.txt 2>&1
"$FG" reveal --backend reference --order random_tree --n 12 --seed 2 >seed2.txt 2>&1
if ! cmp -s seed1.txt seed2.txt; then pass "reveal --seed reaches the reference backend's seed parameter"
else fail "reveal --seed does not change the random tree"; fi
run 0 "reveal --reveal-seed (the engine's seed)" -- "$FG" reveal --backend reference --order pairwise --n 4 --reveal-seed 7
run 0 "update creates the goldens" -- "$FG" update
expect_in "4 created" out.txt "update counts the created goldens"
# (Its one case has no golden: nothing is compared, which fails without --allow-nothing.)
run 0 "check of a suite file given positionally" -- "$FG" check other/tiny.yaml --allow-nothing
expect_in "1 skipped" out.txt "only the positional suite's case ran"
expect_not_in "small" out.txt "the default suites were not run"
expect_in "$FG update --suites other/tiny.yaml --suite tiny --backend ref --case sum-float32-reverse-n5" \
  out.txt "the accept command repeats the suite path"

# --- exit statuses of the error handler ------------------------------------------------------------------
run 1 "update into a golden path that cannot be created" -- "$FG" update --golden suites/small.yaml/x
expect_in "FAILED reproducibility/small/ref/sum-float32-sequential-n4: the golden file could not be written" out.txt \
  "a golden write error fails its case"
expect_in "0 passed, 4 failed, 0 skipped" out.txt "and update goes on to its summary"
# (Not meaningful under AddressSanitizer, which cannot start under a virtual-memory limit; the
# sanitizer run of scripts/test-all runs the unit tests only.)
(ulimit -v 1000000; "$FG" reveal --backend reference --order sequential --n 268435456) >out.txt 2>&1
expect_status 3 $? "out of memory is an internal error"
expect_in "fprev-golden reveal: error: out of memory" out.txt "out of memory is reported as such"
mkdir bad && printf 'suite: bad\nbackends:\n  - name: ref\n    use: reference\ncases:\n  - op: sum\n    order: sideways\n    n: 8\n' >bad/bad.yaml
run 2 "an invalid suite" -- "$FG" list bad
expect_in "fprev-golden list: error: the suites are invalid (1 problem):" out.txt "the handler's line for an invalid suite"
expect_in "bad/bad.yaml:7:12: error:" out.txt "each problem on a file:line:col line"
mkdir huge && printf 'suite: huge\nbackends:\n  - name: ref\n    use: reference\ncases:\n  - op: sum\n    order: sequential\n    n: 1073741824\n' >huge/huge.yaml
run 2 "a size no reveal can finish, refused when the suite is read" -- "$FG" list huge
expect_in "huge/huge.yaml:8:8: error:" out.txt "the refusal names the line of n"
expect_in "too large to reveal: at least 1073741823 probes" out.txt "and says the floor of the cost"
CI=true "$FG" update >out.txt 2>&1
expect_status 2 $? "update refuses under CI"
expect_in "fprev-golden update: error: refusing to re-baseline" out.txt "the refusal goes through the handler"

# --- JSON: every command, docs/json.md's schema, and values ---------------------------------------------
G=golden/any/small/ref
json_ok list 0 "list --json" cases/0/suite=small cases/3/test=reproducibility/small/ref/sum-float32-pairwise-n16 \
  cases/0/params/order=sequential cases/0/line=@number -- list --json
# What else an entry asks for is listed: labels, budget, invariance contracts (text and JSON).
json_ok list 0 "list --json shows labels, budget and contracts" cases/0/labels/0=long cases/0/max_seconds=30 \
  cases/0/invariant/runs/1='"2"' cases/0/call_sites=@array -- list --json --label long other/labelled.yaml
json_ok list 0 "list --json: an entry without them" cases/0/labels=@array cases/0/max_seconds=null \
  cases/0/invariant=@object -- list --json other/tiny.yaml
"$FG" list --label long other/labelled.yaml >out.txt 2>&1
expect_in "split_k_max_m=0, width=5)  invariant runs=1,2  labels long  max_seconds 30" out.txt \
  "list shows an entry's contracts, labels and budget"
json_ok check 0 "check --json, all passing" counts/passed=4 counts/failed=0 strict=false \
  cases/0/status=passed cases/0/outcome=passed cases/0/revealed/sexpr='(((0 1) 2) 3)' \
  cases/0/golden/metadata/suite=small cases/0/accept_command=null cases/0/stats/probes=@number -- check --json
# A time budget no reveal can keep: every case stops over budget. Each has a golden here, so
# reaching no verdict fails it, strict or not (without a golden it would be a skip).
json_ok check 1 "check --json, over the time budget" counts/failed=4 counts/passed=0 cases/0/status=over_budget \
  cases/0/outcome=failed cases/0/message=@nonempty ci=false -- check --json --max-seconds 0.000001
json_ok check 1 "check --json --strict, over the time budget" counts/failed=4 cases/0/status=over_budget \
  cases/0/outcome=failed -- check --json --strict --max-seconds 0.000001
json_ok check 0 "check --json with two probe streams" counts/passed=4 cases/3/stats/streams=@number \
  -- check --json --streams 2
json_ok update 0 "update --json" command=update counts/unchanged=4 cases/0/status=unchanged -- update --json
sed -i -e 's/^n0\.2 = (0 1)$/n0.2 = (0 2)/' -e 's/^n2\.2 = (2 3)$/n1.2 = (1 3)/' \
       -e 's/^n0\.4 = (n0\.2 n2\.2)$/n0.4 = (n0.2 n1.2)/' -e 's/^sexpr: ((0 1) (2 3))$/sexpr: ((0 2) (1 3))/' \
       "$G/sum-float32-pairwise-n4.golden"
json_ok check 1 "check --json, a changed tree" counts/failed=1 cases/2/status=differs cases/2/outcome=failed \
  cases/2/golden/tree/sexpr='((0 2) (1 3))' cases/2/revealed/sexpr='((0 1) (2 3))' cases/2/diff/equal=false \
  cases/2/diff/differences/0/leaves='{0..3}' cases/2/accept_command=@nonempty cases/2/impact/sets/normal/inputs=100 \
  cases/2/impact/old_bound_u=2 cases/2/impact/new_bound_u=2 cases/2/impact/summary=@nonempty cases/0/impact=null \
  -- check --json
rm "$G/sum-float32-sequential-n16.golden"
json_ok check 1 "check --json --strict, a missing golden" strict=true cases/1/status=missing_golden \
  cases/1/outcome=failed cases/1/golden=null cases/1/accept_command=@nonempty -- check --json --strict
json_ok check 1 "check --json, a missing golden (not strict)" cases/1/outcome=skipped counts/skipped=1 -- check --json
json_ok reveal 0 "reveal --json" tree/sexpr='((0 1) (2 3))' tree/leaves=4 tree/depth=2 tree/arity/2=3 \
  tree/description=pairwise case/order=pairwise backend=reference diagnostic=null identity/platform_key=any \
  'classes/0/rows=[[0, 0]]' 'classes/0/columns=[[0, 0]]' 'grid/rows=1' \
  -- reveal --backend reference --order pairwise --n 4 --json
# Sibling guesses: pivot 0 of a pairwise sum of 64 meets groups of 1, 2, 4, 8, 16 and 32 leaves, and
# each of the last five is the subtree built so far, moved: five guesses, all proven. Without them
# (Alg. 4 as published) the same tree.
json_ok reveal 0 "reveal --json, pairwise halves guessed and proven" stats/guesses_proven=5 stats/guesses_failed=0 \
  tree/leaves=64 -- reveal --backend reference --order pairwise --n 64 --json
json_ok reveal 0 "reveal --json --no-sibling-guesses" stats/guesses_proven=0 stats/guesses_failed=0 \
  tree/leaves=64 -- reveal --backend reference --order pairwise --n 64 --json --no-sibling-guesses
"$FG" reveal --backend reference --order pairwise --n 64 >guessed.txt 2>&1
"$FG" reveal --backend reference --order pairwise --n 64 --no-sibling-guesses >alg4.txt 2>&1
if cmp -s guessed.txt alg4.txt && grep -q '(' guessed.txt; then pass "the tree is the same with and without guesses"
else fail "the tree differs with and without guesses"; fi
run 0 "reveal --format text of a pairwise sum of 64" -- "$FG" reveal --backend reference --order pairwise --n 64 --format text
expect_in "guesses:       5 sub-problems guessed from a sibling's shape and proven" out.txt "the text report counts the guesses"
# An order map: OpenBLAS's sgemv (Sandybridge kernels) runs rows 0-7 through another kernel than the
# rest (the order its source gives for the first full block differs; seen with the Haswell, SkylakeX
# and Sandybridge families alike). Sandybridge needs only AVX: some VMs hide flags (abm) that
# Haswell needs from their guests. Needs the blas backend and a CPU with AVX.
if "$FG" reveal --backend blas --help >/dev/null 2>&1 && grep -qw avx /proc/cpuinfo; then
  json_ok reveal 0 "reveal --json of an order map" tree=null grid/rows=200 grid/columns=1 \
    classes/0/class=0 'classes/0/rows=[[0, 7]]' 'classes/0/columns=[[0, 0]]' classes/1/class=1 \
    'classes/1/rows=[[8, 199]]' classes/1/tree=@nonempty stats/classes=2 \
    -- reveal --backend blas --kernel Sandybridge --op gemv --m 200 --n 200 --json
else
  echo "  (skipped: reveal --json of an order map needs the blas backend and an AVX CPU)"
fi
# Invariance contracts (docs/invariance.md): the reference gemv splits K in two halves at m <= 4,
# so row 0 adds in another order at m = 1 than at m = 16 (ground truth by construction); m = 5, 8
# and 16 are on the same side of the split.
json_ok reveal 0 "reveal --invariant: not batch-invariant, with the counterexample" \
  invariance/0/parameter=m invariance/0/level=batch-invariant invariance/0/invariant=false \
  'invariance/0/values=["1", "2", "16"]' invariance/0/counterexample/value='"1"' \
  invariance/0/counterexample/base_value='"16"' invariance/0/counterexample/row=0 invariance/0/counterexample/column=0 \
  invariance/0/counterexample/variant_subtree='((((0 1) 2) 3) (((4 5) 6) 7))' \
  invariance/0/counterexample/base_subtree='(((((((0 1) 2) 3) 4) 5) 6) 7)' \
  invariance/1/invariant=true 'invariance/1/values=["5", "8", "16"]' invariance_stats/1/reveals=0 \
  invariance/2/parameter=runs invariance/2/level=run-to-run invariance/2/invariant=true \
  -- reveal --backend reference --op gemv --order sequential --n 8 --m 16 --split_k_max_m 4 \
  --invariant m=1,2,16 --invariant m=5,8 --invariant runs=2 --json
run 0 "reveal --invariant prints the verdict" -- "$FG" reveal --backend reference --op gemv --order sequential --n 8 \
  --m 16 --split_k_max_m 4 --invariant m=1,16 --format text
expect_in "at m=1 element (0,0) adds its summands in another order than at m=16" out.txt \
  "the text names the values and the element"
run 2 "reveal --invariant over a parameter that changes the summands" -- \
  "$FG" reveal --backend reference --order sequential --n 8 --invariant n=8,16
expect_in "changes the number of summands" out.txt "and says why it cannot be compared"
run 2 "reveal --invariant over an unknown parameter" -- "$FG" reveal --backend reference --order sequential --n 8 --invariant batch=1,2
expect_in "allowed values: runs, op, order" out.txt "names the parameters it can vary"
json_ok reveal 1 "reveal --invariant with a variant that misbehaves: a diagnostic, no verdict" \
  diagnostic/finding=@string tree=null -- reveal --backend reference --order sequential --n 8 \
  --invariant order=sequential,nondeterministic --json
json_ok reveal 1 "reveal --format json of a misbehaving target" tree=null diagnostic/finding=nondeterministic \
  diagnostic/variability/runs=@number -- reveal --backend reference --order nondeterministic --n 8 --format json
json_ok reveal 1 "reveal --json of a NaN-producing target" diagnostic/finding=non_finite_output \
  diagnostic/raw_output=nan -- reveal --backend reference --order nan --n 8 --json
json_ok show 0 "show --format json of a golden" metadata/suite=small metadata/case=sum-float32-pairwise-n16 \
  tree/leaves=16 input=@string -- show "$G/sum-float32-pairwise-n16.golden" --format json
json_ok show 0 "show --json of an S-expression" metadata=null tree/sexpr='((0 1) 2)' tree/description=sequential \
  -- show '((0 1) 2)' --json
json_ok diff 1 "diff --json of two different trees" diff/equal=false diff/comparable=true \
  diff/agreeing_inner_nodes=1 old/tree/sexpr='((0 1) (2 3))' new/metadata=null impact/old_bound_u=2 \
  impact/new_bound_u=2 impact/sets/cancel/inputs=100 -- diff '((0 1) (2 3))' '((0 2) (1 3))' --json
json_ok diff 1 "diff --json: the impact of pairwise -> sequential" impact/old_bound_u=2 impact/new_bound_u=3 \
  -- diff '((0 1) (2 3))' '(((0 1) 2) 3)' --json
json_ok diff 0 "diff --json of equal trees" diff/equal=true diff/differences='[]' impact=null -- diff '((0 1) 2)' '((0 1) 2)' --json
json_ok diff 1 "diff --json of trees over different leaves" diff/comparable=false diff/note=@string \
  -- diff '((0 1) 2)' '(0 1)' --json
json_ok env 0 "env --json" backends/0/name=@string os=@string -- env --json
"$PYTHON" -c 'import json,sys; d=json.load(open("out.json")); r=[b for b in d["backends"] if b["name"]=="reference"][0]; sys.exit(0 if r["state"]=="usable" and r["identity"]["platform_key"]=="any" else 1)' \
  && pass "env --json: the reference backend is usable everywhere" || fail "env --json: reference not usable"
"$FG" check --json >out.json 2>/dev/null
"$PYTHON" -c 'import json; json.load(open("out.json"))' && pass "--json keeps stdout pure JSON" || fail "stdout is not pure JSON"
# Pending results (check kept the changed pairwise-n4 and the missing sequential-n16), obsolete goldens.
json_ok check 1 "check --json keeps pending results" cases/1/pending_file="$G/sum-float32-sequential-n16.golden.new" \
  cases/2/pending_file="$G/sum-float32-pairwise-n4.golden.new" cases/0/pending_file=null cases/0/pending_error=null \
  review_command=@nonempty unreferenced=warn deleted_goldens='[]' undeleted_goldens='[]' -- check --json
json_ok reject 0 "reject --json" counts/rejected=1 counts/accepted=0 counts/refused=0 results/0/outcome=rejected \
  results/0/case=sum-float32-pairwise-n4 results/0/change=null -- reject --case sum-float32-pairwise-n4 --json
json_ok accept 0 "accept --json" counts/accepted=1 results/0/outcome=created results/0/change=@nonempty \
  results/0/golden_path="$G/sum-float32-sequential-n16.golden" results/0/message=null -- accept --suite small --json
json_ok accept 0 "accept --json with nothing pending" counts/accepted=0 'results=[]' -- accept --suite small --json
sed 's/^case: .*/case: gone/' "$G/sum-float32-sequential-n4.golden" >"$G/gone.golden"
json_ok check 1 "check --json --unreferenced=delete" unreferenced=delete "obsolete_goldens/0=$G/gone.golden" \
  "deleted_goldens/0=$G/gone.golden" -- check --json --no-pending --unreferenced=delete
[ ! -e "$G/gone.golden" ] && pass "the obsolete golden was deleted" || fail "the obsolete golden is still there"
rm -rf golden

# expect_junit_failure FILE TEST REASON WHAT: the JUnit report marks TEST failed and carries REASON
# with it, in the failure's message (CTest 3.25 writes the regular expression that matched there) or
# in the test's own output (CTest 3.31 writes message="Failed" and the output beside it): what a CI
# page shows next to the red test, whichever CTest wrote it.
expect_junit_failure() {
  if "$PYTHON" - "$@" >junit-check.txt 2>&1 <<'PY'
import sys
import xml.etree.ElementTree as ET
path, test, reason = sys.argv[1:4]
cases = [c for c in ET.parse(path).iter("testcase") if c.get("name") == test]
if len(cases) != 1:
    sys.exit(f"{len(cases)} testcase elements named {test}")
failure = cases[0].find("failure")
if failure is None:
    sys.exit(f"{test} has no <failure> element (status {cases[0].get('status')})")
said = [failure.get("message", ""), failure.text or "", cases[0].findtext("system-out", "")]
if not any(reason in text for text in said):
    sys.exit(f"'{reason}' is neither in the failure message {failure.get('message')!r} nor in the test's output")
PY
  then pass "$4"; else fail "$4: $(cat junit-check.txt)"; sed 's/^/      /' "$1" | head -40; fi
}
# --- CTest: JUnit failure messages, accept commands that work as printed ---------------------------------
"$FG" update >/dev/null 2>&1
configure_downstream_project
sed -i -e 's/^n0\.2 = (0 1)$/n0.2 = (0 2)/' -e 's/^n2\.2 = (2 3)$/n1.2 = (1 3)/' \
       -e 's/^n0\.4 = (n0\.2 n2\.2)$/n0.4 = (n0.2 n1.2)/' -e 's/^sexpr: ((0 1) (2 3))$/sexpr: ((0 2) (1 3))/' \
       "$G/sum-float32-pairwise-n4.golden"
rm "$G/sum-float32-sequential-n16.golden"
(cd build && "$CTEST" --output-junit junit.xml --output-on-failure >../ctest.txt 2>&1)
expect_status 8 $? "ctest fails on the changed tree"
expect_junit_failure build/junit.xml reproducibility/small/ref/sum-float32-pairwise-n4 \
  "the summation tree changed" "the JUnit failure names the failure"
expect_in '<skipped message="SKIP_RETURN_CODE=77"/>' build/junit.xml "the missing golden is a JUnit skip"
accept=$(grep -m1 -A1 "accept it with:" build/Testing/Temporary/LastTest.log | tail -n1 | sed 's/^ *//')
case "$accept" in
  /*" update --suites /"*" --golden /"*" --suite small --backend ref --case sum-float32-pairwise-n4")
    pass "the accept command has the real executable and absolute paths" ;;
  *) fail "the accept command is not absolute: '$accept'" ;;
esac
create=$(grep -m1 "create it with:" build/Testing/Temporary/LastTest.log | sed 's/^ *create it with: //')
(cd / && bash -c "$accept" >/dev/null 2>&1); expect_status 0 $? "the accept command works as printed, from /"
(cd / && bash -c "$create" >/dev/null 2>&1); expect_status 0 $? "the create command works as printed, from /"
(cd build && "$CTEST" >../ctest.txt 2>&1); expect_status 0 $? "after the printed commands ctest passes"
expect_in "100% tests passed" ctest.txt "no failure and no skip remains"

# An FPREV_<BACKEND>_<SETTING> override in effect is part of the printed command: without it the
# command would record another configuration's tree.
cat > suites/sim.yaml <<'YAML'
suite: sim
backends:
  - name: tc
    use: tcsim
    arch: volta
cases:
  - op: gemm
    dtype: float16
    m: 2
    n: 2
    k: 12
YAML
(cd build && FPREV_TCSIM_ARCH=ampere "$CTEST" -R sim >../ctest.txt 2>&1)
create=$(grep -m1 "create it with:" build/Testing/Temporary/LastTest.log | sed 's/^ *create it with: //')
case "$create" in
  "FPREV_TCSIM_ARCH=ampere /"*) pass "the printed command sets the override that was in effect" ;;
  *) fail "the override is missing from '$create'" ;;
esac
(cd / && bash -c "$create" >/dev/null 2>&1); expect_status 0 $? "the command with the override works as printed"
ls golden/*/sim/tc/*.golden >/dev/null 2>&1 && pass "it created the golden" || fail "no golden for sim"
(cd build && FPREV_TCSIM_ARCH=ampere "$CTEST" -R sim >../ctest.txt 2>&1)
expect_status 0 $? "with the same override the case now passes"

# A target that misbehaves: the JUnit message names the finding. (The golden comes from a
# sequential sum under the same case id: without a golden the case would be skipped unrevealed.)
printf 'suite: flaky\nbackends:\n  - name: ref\n    use: reference\ncases:\n  - op: sum\n    order: ORDER\n    n: 8\n    id: flaky-{n}\n' \
  >flaky.template
sed 's/ORDER/sequential/' flaky.template >suites/flaky.yaml
"$FG" update --suite flaky >/dev/null 2>&1
sed 's/ORDER/nondeterministic/' flaky.template >suites/flaky.yaml
(cd build && "$CTEST" -R flaky --output-junit junit-flaky.xml >../ctest.txt 2>&1)
expect_status 8 $? "ctest fails on a misbehaving target"
expect_junit_failure build/junit-flaky.xml reproducibility/flaky/ref/flaky-8 \
  "the target misbehaves: nondeterministic" "the JUnit failure names the finding"
rm suites/flaky.yaml

if [ "$failures" -eq 0 ] && [ -z "$JSON_SCHEMA_OK" ]; then
  echo "SKIP: the JSON schema checks need python3-jsonschema (scripts/install-deps installs it)"; exit 77
fi
# --- labels: check and update leave the long cases out unless --label long names them (as the gate
# and ctest -L reproducibility do: a plain check once ran two hour-long cases); --exclude-label -----
run 0 "update the labelled suite" -- "$FG" update --suites other/labelled.yaml
expect_in "1 created" out.txt "a plain update records the unlabelled case only"
expect_in "2 cases left out by label (long), not counted below; --label long runs the long ones" out.txt \
  "update says what it left out and how to opt in"
run 0 "update --label long" -- "$FG" update --suites other/labelled.yaml --label long
expect_in "2 created" out.txt "--label long records the long cases"
run 0 "a plain check" -- "$FG" check --suites other/labelled.yaml
expect_in "1 passed, 0 failed, 0 skipped" out.txt "a plain check runs only the unlabelled case"
expect_in "2 cases left out by label (long), not counted below; --label long runs the long ones" out.txt \
  "the left-out cases are said, with the option that runs them"
run 0 "check FILE" -- "$FG" check other/labelled.yaml
expect_in "1 passed, 0 failed, 0 skipped" out.txt "check FILE leaves the long cases out too"
run 0 "check --label long" -- "$FG" check --suites other/labelled.yaml --label long
expect_in "2 passed, 0 failed, 0 skipped" out.txt "--label long runs only the long cases"
expect_not_in "left out" out.txt "and leaves nothing out"
run 0 "check --exclude-label long" -- "$FG" check --suites other/labelled.yaml --exclude-label long
expect_in "1 passed, 0 failed, 0 skipped" out.txt "--exclude-label still leaves them out"
expect_not_in "--label long runs" out.txt "a label left out on request needs no advice"
json_ok check 0 "check --json" excluded_by_label=2 excluded_labels/0=long counts/passed=1 \
  -- check --suites other/labelled.yaml --json
json_ok check 0 "check --label long --json" excluded_by_label=0 excluded_labels=[] counts/passed=2 \
  -- check --suites other/labelled.yaml --label long --json
run 0 "check --html" -- "$FG" check --suites other/labelled.yaml --html left-out.html
expect_in "2 cases left out by label (long), not counted above" left-out.html "the HTML report says them too"
run 2 "a long case named without --label long" -- "$FG" check --suites other/labelled.yaml --case '*pairwise-n8'
expect_in "no case to run: the case selected carries a label of long, left out unless named (add --label long" \
  out.txt "naming a long case says how to run it"
run 2 "--exclude-label leaving nothing" -- "$FG" check --suites other/labelled.yaml --case '*pairwise*' --exclude-label long
expect_in "no case to run" out.txt "an empty selection is refused"

# --- progress in a log: a line whenever the interval passed without one, on stderr only ---------------
printf 'suite: slow\nbackends:\n  - name: ref\n    use: reference\ncases:\n  - op: sum\n    order: pairwise\n    n: 4096\n' \
  >other/slow.yaml
"$FG" update --suites other/slow.yaml >/dev/null 2>&1
FPREV_PROGRESS_INTERVAL=0.02 "$FG" check --suites other/slow.yaml --json >progress.json 2>progress.txt
expect_status 0 $? "a piped check with a short progress interval"
expect_in "fprev-golden check: 0 of 1 cases done after " progress.txt "a log gets progress lines"
expect_in "running [1/1] reproducibility/slow/ref/sum-float32-pairwise-n4096 for " progress.txt \
  "naming the running case"
expect_not_in "cases done" progress.json "never in the --json document"
"$PYTHON" -c 'import json,sys; json.load(open(sys.argv[1]))' progress.json && pass "stdout stays one JSON document" \
  || fail "stdout is not JSON"
FPREV_PROGRESS_INTERVAL=0.02 "$FG" check --suites other/slow.yaml --quiet >/dev/null 2>progress.txt
expect_not_in "cases done" progress.txt "--quiet prints no progress"
"$FG" check --suites other/slow.yaml >/dev/null 2>progress.txt
expect_not_in "cases done" progress.txt "a run shorter than the default 30 s prints none"
run 2 "a bad FPREV_PROGRESS_INTERVAL" -- env FPREV_PROGRESS_INTERVAL=soon "$FG" check --suites other/slow.yaml
expect_in "FPREV_PROGRESS_INTERVAL='soon' is not a number of seconds" out.txt "is refused, naming the value"
# In a log where stdout and stderr meet (2>&1, as CI captures them), a progress line lands between
# the reports' lines, never inside one: 300 cases without goldens write a SKIPPED line each and a
# table, while a line of progress is due every 10 ms.
printf 'suite: many\nbackends:\n  - name: ref\n    use: reference\ncases:\n  - op: sum\n    order: [sequential, reverse, pairwise]\n    n: [%s]\n' \
  "$(seq -s, 2 101)" >other/many.yaml
mkdir -p other/none
FPREV_PROGRESS_INTERVAL=0.01 "$FG" check --suites other/many.yaml --golden other/none --allow-nothing --all-rows \
  >combined.txt 2>&1
expect_status 0 $? "a check of 300 cases without goldens, progress every 10 ms"
inside=$(grep -v '^fprev-golden check: ' combined.txt | grep -c 'fprev-golden check: ')
[ "$inside" -eq 0 ] && pass "no progress line inside a report's line" ||
  fail "$inside report lines have a progress line inside them: $(grep -v '^fprev-golden check: ' combined.txt | grep -m1 'fprev-golden check: ')"

# --- the alignment check: Eigen's sum peels until aligned, four orders over the offsets (SSE2) ---
if [ "$(uname -m)" = x86_64 ]; then
  run 0 "reveal an Eigen sum at every offset" -- "$FG" reveal --backend eigen --op sum --dtype float32 --n 1000
  expect_in "offsets 3,7,11,15: " out.txt "reveal prints the offset classes and their trees"
  json_ok reveal 0 "reveal --json of an alignment-dependent sum" alignment/verdict=dependent \
    alignment/summary='dependent (offsets 0-15 checked, 4 classes)' alignment/classes/1/offsets=[1,5,9,13] \
    -- reveal --backend eigen --op sum --dtype float32 --n 1000 --json
  json_ok reveal 0 "reveal --json of an aligned-only reference order" alignment/verdict=independent \
    -- reveal --backend reference --order strided_pairwise --n 64 --json
fi
finish cli
