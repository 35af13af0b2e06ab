#!/usr/bin/env bash
# End to end, the holes hostile testing found (issue 26), each closed: no false pass, no lost
# golden, no raw control characters from foreign text, no code from the current directory.
# usage: trust_e2e.sh <fprev-golden> <source root> <cmake> <ctest>
set -uo pipefail
FG=$1 ROOT=$2 CMAKE=$3 CTEST=$4
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
source "$(dirname "$0")/e2e_lib.sh"
unset FPREV_STRICT FPREV_SUITES FPREV_GOLDEN_DIR FPREV_BACKEND_PATH
# run EXPECTED-STATUS WHAT -- COMMAND...: output (stdout and stderr) in out.txt
run() {
  local expected=$1 what=$2
  shift 3
  "$@" >out.txt 2>&1
  expect_status "$expected" $? "$what"
}
ESC=$'\x1b' BEL=$'\x07'
expect_no_escape() {  # file, what: no raw ESC or BEL byte, and the escaped form instead
  if grep -q "[$ESC$BEL]" "$1"; then fail "$2: a raw control character was printed"; else pass "$2: no raw control character"; fi
  expect_in '\u001b' "$1" "$2: shown as \\u001b"
}

cd "$WORK"
small_project

echo "# a check that compares nothing fails (5: every key moved to a platform without goldens)"
run 1 "check with no golden at all" -- "$FG" check
expect_in "error: nothing was compared (0 passed, 0 failed, 5 skipped)" out.txt "it says nothing was compared"
run 0 "check --allow-nothing" -- "$FG" check --allow-nothing
run 1 "under CI a missing golden fails" -- env CI=true "$FG" check --allow-nothing
expect_in "FAILED reproducibility/small/ref/sum-float32-sequential-n16: no golden for this platform and CI is set" out.txt \
  "the failure names CI"

"$FG" update >/dev/null 2>&1
run 0 "check after update" -- "$FG" check
golden=$(find golden -name 'sum-float32-sequential-n16.golden')
other=$(find golden -name 'sum-float32-pairwise-n16.golden')

echo "# 5: a golden that reaches no verdict fails; it is never a skip"
# The same suite (so the same goldens) with a budget no case can keep, as a pull request could set.
mkdir -p tiny && sed 's/^    n: \[16, 64\]$/    n: [16, 64]\n    max_seconds: 0.000001/' suites/small.yaml >tiny/small.yaml
run 1 "a case with a golden and a budget of a microsecond" -- "$FG" check tiny/small.yaml --case 'sum-*'
expect_in "the case has a golden here but reached no verdict within its time budget" out.txt "it fails, naming why"

echo "# 3: --output never overwrites an input"
cp "$golden" before.golden
run 2 "show X --output X" -- "$FG" show "$golden" --output "$golden"
expect_in "is the input" out.txt "show says why"
run 2 "diff A B --output A" -- "$FG" diff "$golden" "$other" --output "$golden"
if cmp -s "$golden" before.golden; then pass "the golden is untouched"; else fail "the golden was overwritten"; fi
# issue 34.4: nor does check's or update's --html (it emptied the golden it compared, or the suite).
cp suites/small.yaml before.yaml
run 2 "check --html <the golden it compares>" -- "$FG" check --html "$golden"
expect_in "is inside golden" out.txt "check says why"
run 2 "check --html <a new file among the goldens>" -- "$FG" check --html golden/report.html
run 2 "check --html <the suite, spelt otherwise>" -- "$FG" check --html ./suites/../suites/small.yaml
expect_in "is the input" out.txt "it says why"
run 2 "check --pending-dir p --html <inside it>" -- "$FG" check --pending-dir p --html p/report.html
if cmp -s "$golden" before.golden && cmp -s suites/small.yaml before.yaml && [ ! -e golden/report.html ] && [ ! -e p ]; then
  pass "nothing was written"; else fail "an input was overwritten or a report written"; fi
run 0 "check --html elsewhere" -- "$FG" check --html report.html

echo "# 4: a golden without fingerprint: a note with the command, a failure in strict mode"
grep -v '^fingerprint\.' before.golden >"$golden"
run 0 "check on an older golden" -- "$FG" check --case sum-float32-sequential-n16
expect_in "add one with:" out.txt "the note is there"
if grep -A1 "add one with:" out.txt | tail -1 | grep -q "update"; then pass "the note ends in a command"; else
  fail "the note ends in an empty line"; fi
run 1 "check --strict on an older golden" -- "$FG" check --strict --case sum-float32-sequential-n16
expect_in "the golden has no arithmetic fingerprint and strict mode is on" out.txt "strict mode fails it"
cp before.golden "$golden"

echo "# 12: a golden copied over another case's fails"
cp "$other" "$golden"
run 1 "check of a copied golden" -- "$FG" check --case sum-float32-sequential-n16
expect_in "this file belongs to another case" out.txt "it names the mismatch"
cp before.golden "$golden"

echo "# 8: control characters from a golden or a file name are escaped"
# A golden writes a control character as \xHH; the parser decodes it to the raw byte.
sed 's/^library: \(.*\)$/library: \1\\x1b]0;pwned\\x07\\x1b[2J/' before.golden >"$golden"
run 0 "show a golden whose library line holds escapes" -- "$FG" show "$golden"
expect_no_escape out.txt "show"
"$FG" show "$golden" --format json >show.json 2>&1
python3 -c 'import json,sys; d=json.load(open("show.json")); sys.exit(0 if "\x1b" in d["metadata"]["library"] else 1)' &&
  pass "the JSON holds the same characters, JSON-escaped" || fail "the JSON lost or broke the value"
# The pairwise tree filed as the sequential case's golden, from a library whose name holds escapes:
# check prints the golden's identity above the diff.
sed -e 's/^case: sum-float32-pairwise-n16$/case: sum-float32-sequential-n16/' \
    -e 's/^library: \(.*\)$/library: \1\\x1b]0;pwned\\x07\\x1b[2J/' "$other" >"$golden"
run 1 "check of a golden whose library line holds escapes" -- "$FG" check --case sum-float32-sequential-n16 --html report.html
expect_no_escape out.txt "check"
expect_no_escape report.html "the HTML report"
cp before.golden "$golden"
mkdir -p evil && printf 'suite: x\n' >"evil/bad${ESC}[2J.yaml"
run 2 "an invalid suite whose file name holds an escape" -- "$FG" list evil
expect_no_escape out.txt "the suite error"

echo "# 9: names longer than 128 characters are refused when the suite is read"
mkdir -p long && sed "s/^    n: 40$/    n: 40\n    id: $(printf 'a%.0s' $(seq 129))/" suites/small.yaml >long/small.yaml
run 2 "a case id of 129 characters" -- "$FG" list long
expect_in "at most 128 characters" out.txt "it names the limit"

echo "# 10: a FIFO at a golden's path fails at once"
rm "$golden" && mkfifo "$golden"
run 1 "check with a FIFO for a golden" -- timeout 60 "$FG" check --case sum-float32-sequential-n16
expect_in "it is a FIFO, not a regular file" out.txt "it says what the file is"
rm "$golden" && cp before.golden "$golden"

echo "# 11: a byte order mark is named; leftovers are ignored by git; a failed write is summarised"
{ printf '\xef\xbb\xbf'; cat before.golden; } >"$golden"
run 1 "check of a golden with a BOM" -- "$FG" check --case sum-float32-sequential-n16
expect_in "UTF-8 byte order mark" out.txt "check names the BOM"
run 2 "show of a golden with a BOM" -- "$FG" show "$golden"
expect_in "UTF-8 byte order mark" out.txt "show names the BOM"
cp before.golden "$golden"
cp "$ROOT/.gitignore" .gitignore
git check-ignore -q "$(dirname "$golden")/.$(basename "$golden").tmp-4242-1f-0" &&
  pass "git ignores a writer's temporary" || fail "git does not ignore a writer's temporary"
mkdir -p unwritable && echo "not a directory" >unwritable/any  # where the platform's directory goes
run 1 "update where no golden can be written" -- "$FG" update --golden unwritable
expect_in "5 failed" out.txt "update goes on to its summary"
expect_in "the golden file could not be written" out.txt "each case says why"

echo "# 6: nothing is loaded from the current directory"
# (Without LD_LIBRARY_PATH, whose own empty entries would mean the current directory too.)
mkdir -p cwd nl/blas && echo "not a library" >cwd/libgcc_s.so.1
(cd cwd && env -u LD_LIBRARY_PATH "$FG" --version) >out.txt 2>&1
expect_status 0 $? "--version beside a libgcc_s.so.1 that is not one (its RUNPATH had an empty entry)"
# The netlib search looks for blas/libblas.so.3 in the linker's directories: absolute ones only,
# even where LD_LIBRARY_PATH has an empty entry. A real BLAS planted as ./blas/libblas.so.3 was
# loaded and reported as the netlib BLAS.
planted=$(ls /usr/lib/*-linux-gnu/libopenblas.so.0 2>/dev/null | head -1)
if [ -n "$planted" ] && "$FG" reveal --backend blas --help >/dev/null 2>&1; then
  cp -L "$planted" nl/blas/libblas.so.3
  (cd nl && LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}:" "$FG" reveal --backend blas --library netlib --op dot --n 8 --json) >out.txt 2>&1
  expect_not_in "$PWD/nl/blas" out.txt "the library loaded as netlib is not the one planted in the current directory"
  expect_not_in '"./blas' out.txt "nor named relative to it"
else
  echo "  (skipped: the planted-library check needs the blas backend and OpenBLAS)"
fi

echo "# 14: a backend module that cannot be loaded is a configuration error"
mkdir -p modules && echo "not a shared object" >modules/fprev_backend_broken.so
run 2 "reveal --backend broken" -- env FPREV_BACKEND_PATH="$PWD/modules" "$FG" reveal --backend broken --op sum --n 8
expect_in "backend 'broken'" out.txt "it names the backend"
expect_not_in "internal error" out.txt "it is not an internal error"

echo "# issue 34.1: an invalid suite file fails every filtered CTest run that would have selected it"
mkdir -p filtered && cd filtered
small_project
# One entry of this suite is wrong (op nosuch), the other still expands: its cases keep their names.
cat > suites/broken.yaml <<'YAML'
suite: broken
backends:
  - name: refb
    use: reference
cases:
  - op: sum
    order: sequential
    n: 16
    id: mine-{n}
    labels: [nightly]
  - op: nosuch
    n: 16
YAML
printf 'suite: garbled\nbackends: [\n' >suites/garbled.yaml          # not YAML
printf 'backends: {\n' >suites/nameless.yaml                         # not YAML, no name either
cat > suites/module.yaml <<'YAML'
suite: needsmodule
backends:
  - name: mine
    use: nosuchmodule
cases:
  - n: 16
YAML
configure_downstream_project
ctest_run() {  # expected-to-fail what -- ctest arguments
  local what=$1
  shift 2
  "$CTEST" --test-dir build "$@" >ctest.txt 2>&1
  local status=$?
  if [ $status -ne 0 ] && ! grep -q "No tests were found" ctest.txt; then pass "$what fails"; else
    fail "$what: status $status"; sed 's/^/      /' ctest.txt | tail -5; fi
}
ctest_run "ctest -L broken (the suite's label)" -- -L broken
ctest_run "ctest -L refb (its backend instance)" -- -L refb
ctest_run "ctest -L nightly (a case label of it)" -- -L nightly
ctest_run "ctest -R mine-16 (a case of it that still expands)" -- -R mine-16
ctest_run "ctest -R broken/ (its name)" -- -R broken/
ctest_run "ctest -L garbled (a file that is not YAML, named by its suite: line)" -- -L garbled
ctest_run "ctest -L nameless (named by its file name)" -- -L nameless
ctest_run "ctest -L needsmodule (a backend module that is not found)" -- -L needsmodule
ctest_run "ctest -L mine (the instance of the missing module)" -- -L mine
ctest_run "ctest -R /mine/ (that instance by name)" -- -R /mine/
"$CTEST" --test-dir build -L small -E goldens-missing >ctest.txt 2>&1
expect_status 0 $? "ctest -L small: the valid suite's cases still run (skips: no goldens yet)"
expect_in "5 tests" ctest.txt "ctest -L small runs its 5 cases"
"$CTEST" --test-dir build -R 'broken/\(invalid suite file\)' --output-on-failure >ctest.txt 2>&1
expect_in "broken.yaml:11:9: error" ctest.txt "the failing test shows the problem with file:line:col"
cd ..

finish trust
