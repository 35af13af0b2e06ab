#!/usr/bin/env bash
# A new user's first hour (issue 29), on the command line: typos get "did you mean", a YAML syntax
# error keeps file:line:col and hints at indentation and tabs, an unknown backend names the module
# file and FPREV_BACKEND_PATH, list counts the suites of its cases, an S-expression error gives one
# position; and in a new CMake project: the golden folder exists after configuring, the first
# ctest says in its default output which command records the goldens (and fails its
# goldens-missing test), the skips print it too, the fprev-update target records, cases labelled
# long are opt-in for `ctest -L reproducibility` and for update.
# usage: first_hour_e2e.sh <fprev-golden> <source root> <cmake> <ctest>
set -uo pipefail
FG=$1 ROOT=$2 CMAKE=$3 CTEST=$4
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
unset CI FPREV_STRICT FPREV_SUITES FPREV_GOLDEN_DIR FPREV_BACKEND_PATH
source "$(dirname "$0")/e2e_lib.sh"
run() {  # EXPECTED-STATUS WHAT -- COMMAND...: output in out.txt
  local expected=$1 what=$2
  shift 3
  "$@" >out.txt 2>&1
  expect_status "$expected" $? "$what"
}
cd "$WORK"

# --- typos -------------------------------------------------------------------------------------------
run 2 "check --suit" -- "$FG" check --suit blas-cpu
expect_in "did you mean --suite?" out.txt "a mistyped option gets the closest one"
run 2 "list --gloden x --exclude-lable y" -- "$FG" list --gloden x --exclude-lable y
expect_in "--gloden: did you mean --golden?" out.txt "each of several typos is named"
expect_in "--exclude-lable: did you mean --exclude-label?" out.txt "the second typo too"
run 2 "chek" -- "$FG" chek
expect_in "unknown command 'chek' (did you mean check?)" out.txt "a mistyped command gets the closest one"
run 2 "check --frobnicate" -- "$FG" check --frobnicate
expect_not_in "did you mean" out.txt "an option like none gets no guess"
run 2 "reveal --backend reference --ordr" -- "$FG" reveal --backend reference --ordr pairwise --n 8
expect_in "--ordr (did you mean --order?)" out.txt "a backend option's typo gets the closest one"

# --- a module that is not found ----------------------------------------------------------------------
run 2 "reveal --backend mine" -- "$FG" reveal --backend mine --n 8
expect_in "fprev_backend_mine.so" out.txt "the unknown backend names the module file"
expect_in "FPREV_BACKEND_PATH (not set)" out.txt "and FPREV_BACKEND_PATH"

# --- YAML syntax ------------------------------------------------------------------------------------
mkdir -p project/suites && cd project
printf 'suite: s\nbackends:\n  - name: ref\n    use: reference\ncases:\n  - op: sum\n\t order: pairwise\n    n: 8\n' >suites/tab.yaml
run 2 "a suite indented with a tab" -- "$FG" list suites/tab.yaml
expect_in "suites/tab.yaml:7:1: error: YAML syntax error" out.txt "the position stays"
expect_in "line 7 is indented with a tab" out.txt "the tab is named"
printf 'suite: s\nbackends:\n  - name: ref\n    use: reference\ncases:\n  - op: sum\n    order: pairwise\n   n: 8\n' >suites/tab.yaml
run 2 "a suite with a line indented one space short" -- "$FG" list suites/tab.yaml
expect_in "suites/tab.yaml:8:4: error: YAML syntax error: end of sequence not found (check the indentation" out.txt \
  "yaml-cpp's message keeps its position and gets the hint"
rm suites/tab.yaml

# --- list, diff wording ---------------------------------------------------------------------------
cat > suites/one.yaml <<'YAML'
suite: one
backends:
  - name: ref
    use: reference
cases:
  - op: sum
    order: [sequential, pairwise]
    n: [8, 16]
  - op: sum
    order: pairwise
    n: 2048
    labels: long
YAML
cat > suites/two.yaml <<'YAML'
suite: two
backends:
  - name: ref
    use: reference
cases:
  - op: sum
    order: sequential
    n: 4
YAML
run 0 "list --suite one" -- "$FG" list --suite one
expect_in "5 cases in 1 suite" out.txt "list counts the suites of the cases it lists"
run 2 "diff of a broken S-expression" -- "$FG" diff '((0 1) 2)' '((0 1) 1)'
expect_not_in "at character" out.txt "one position per S-expression error"
expect_in "position" out.txt "the position is given"

# --- a new CMake project ----------------------------------------------------------------------------
configure_downstream_project
[ -d golden ] && pass "configuring creates the golden folder" || fail "no golden folder after configuring"
(cd build && "$CTEST" -N -L reproducibility >../out.txt 2>&1)
expect_in "Total Tests: 7" out.txt "ctest -L reproducibility: 5 cases and a goldens-missing test per suite"
expect_not_in "pairwise-n2048" out.txt "it leaves the long case out"
(cd build && "$CTEST" -N -L long >../out.txt 2>&1)
expect_in "Total Tests: 1" out.txt "ctest -L long runs it"
# The first ctest, default output (no -V): it does not read "100% tests passed" having compared
# nothing; it says which command records the goldens, and a test named for it fails.
(cd build && "$CTEST" -L reproducibility >../out.txt 2>&1); expect_status 8 $? "the first ctest fails"
expect_not_in "100% tests passed" out.txt "it does not say every test passed"
expect_in "fprev-golden: suite 'one' has no goldens in $PWD/golden: its cases are skipped until you record them, with" \
  out.txt "its default output says the suite has no goldens"
expect_in "reproducibility/one/goldens-missing (Failed)" out.txt "a failed test named for it"
expect_in "cmake --build <build folder> --target fprev-update" out.txt "and the target that records every suite"
record=$(grep -A1 "suite 'one' has no goldens" out.txt | sed -n 2p | sed 's/^ *//')
expect_in "update --suites $PWD/suites --golden $PWD/golden --suite one" <(echo "$record") "the command: $record"
(cd build && "$CTEST" -L reproducibility -V >../out.txt 2>&1)
expect_in "or record every case of the suite with: " out.txt "each skip prints the command that records the suite"
expect_not_in "does not exist" out.txt "no case fails on the golden folder"
(cd / && bash -c "$record" >/dev/null 2>&1); expect_status 0 $? "the printed command works as printed"
record_two=$(grep -A1 "suite 'two' has no goldens" out.txt | sed -n 2p | sed 's/^ *//')
[ -n "$record_two" ] || record_two=$(cd build && "$CTEST" -L reproducibility 2>&1 | grep -A1 "suite 'two' has no goldens" | sed -n 2p | sed 's/^ *//')
(cd / && bash -c "$record_two" >/dev/null 2>&1); expect_status 0 $? "so does the other suite's: $record_two"
(cd build && "$CTEST" -L reproducibility >../out.txt 2>&1); expect_status 0 $? "then ctest passes"
expect_not_in "Skipped" out.txt "and skips nothing"
expect_not_in "goldens-missing" out.txt "and has no goldens-missing test"
rm -rf golden/*
"$CMAKE" --build build --target fprev-update >update.txt 2>&1; expect_status 0 $? "the fprev-update target"
expect_in "CREATED reproducibility/one/ref/sum-float32-pairwise-n8" update.txt "it records the goldens"
expect_not_in "pairwise-n2048" update.txt "but not the long case (opt-in: --label long)"
(cd build && "$CTEST" -L reproducibility >../out.txt 2>&1); expect_status 0 $? "then ctest passes"
expect_not_in "Skipped" out.txt "and skips nothing"
# The long case's own test runs it (list --cmake-tests gives it --label long); its skip prints a
# command that records it.
(cd build && "$CTEST" -L long -V >../out.txt 2>&1); expect_status 0 $? "ctest -L long: the long case skips (no golden)"
expect_in "--case sum-float32-pairwise-n2048 --label long" out.txt "its record command names --label long"
finish first-hour
