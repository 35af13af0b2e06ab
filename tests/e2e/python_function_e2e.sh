#!/usr/bin/env bash
# A user's own Python function gated like a library (the python backend's `function:` setting): a
# scratch project whose suite reveals mysums:total (a module beside the suite), a left-to-right float32 loop, records it with
# update, then changes the loop to run right to left, so check fails with a diff naming the case;
# math.fsum (exact, then rounded: no summation tree) fails too. A function that exits the
# interpreter (os._exit) or crashes it (a NULL read through ctypes) is a named target_fault and the
# other cases still pass; a module that cannot be imported is a failure, a library that is not
# installed a skip that says what to install.
# usage: python_function_e2e.sh FPREV_GOLDEN ROOT
set -uo pipefail
FG=$1 ROOT=$2
source "$ROOT/tests/e2e/e2e_lib.sh"
# Debian's interpreter (python3-numpy), else python3 on PATH, with numpy.
PY=""
for candidate in /usr/bin/python3 "$(command -v python3 2>/dev/null)"; do
  if [ -n "$candidate" ] && "$candidate" -c "import numpy" 2>/dev/null; then PY=$candidate; break; fi
done
[ -n "$PY" ] || { echo "SKIP: no python3 with numpy (Debian: python3-numpy)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir -p suites golden
cat > suites/mine.yaml <<YAML
suite: mine
description: my own summation function
backends:
  - name: mine
    use: python
    python: $PY
    library: numpy
    function: mysums:total
cases:
  - op: sum
    dtype: float32
    n: [8, 33]
YAML
cat > suites/mysums.py <<'PY'
import numpy as np

def total(x):
    acc = np.float32(0)
    for v in x:  # left to right
        acc = np.float32(acc + v)
    return acc
PY
cp suites/mysums.py left_to_right.py
"$FG" update --suites suites --golden golden >update.txt 2>&1
expect_status 0 $? "update records the function's two cases"
expect_in "2 created" update.txt "update created 2 goldens"
golden8=$(find golden -name 'sum-float32-n8.golden')
"$FG" show --format sexpr "$golden8" >show.txt 2>&1
expect_in "(((((((0 1) 2) 3) 4) 5) 6) 7)" show.txt "the recorded tree is the loop's left-to-right order"
"$FG" check --suites suites --golden golden >check.txt 2>&1
expect_status 0 $? "check passes with the function unchanged"

sed -i 's/for v in x:  # left to right/for v in x[::-1]:  # right to left/' suites/mysums.py
"$FG" check --suites suites --golden golden >reversed.txt 2>&1
expect_status 1 $? "check fails once the loop runs right to left"
expect_in "sum-float32-n8" reversed.txt "the failing case is named"
expect_in "(0 (1 (2 (3 (4 (5 (6 7)))))))" reversed.txt "the diff shows the new, reversed order"
# The function's identity carries a digest of its source: the golden's and the new one differ, so
# the reviewer sees that their code changed (not numpy underneath it).
expect_in "library-version: source " "$golden8" "the golden records the source's digest as the function's version"
expect_in "extra.function_file: suites/mysums.py" "$golden8" "the function's file (imported from the suite's folder) relative to the project"
expect_not_in "$work" "$golden8" "no absolute path of this machine in the golden"
digests=$(grep -o "mysums:total source [0-9a-f]*" reversed.txt | sort -u | wc -l)
[ "$digests" = 2 ] && pass "the failure names two source digests, the golden's and the edited code's" \
  || fail "the failure names $digests source digests: $(grep -o 'mysums:total source [0-9a-f]*' reversed.txt | sort -u)"

cat > suites/mysums.py <<'PY'
import math

def total(x):
    return math.fsum(x)
PY
"$FG" check --suites suites --golden golden >fsum.txt 2>&1
expect_status 1 $? "check fails once the function is math.fsum"

cat > suites/mysums.py <<'PY'
import ctypes, os

def total(x):
    if len(x) == 33:
        os._exit(3)
    return x.sum()
PY
"$FG" check --suites suites --golden golden >exit.txt 2>&1
expect_status 1 $? "a function that exits the interpreter fails the check"
expect_in "exited (status 3)" exit.txt "the fault is named: exited (status 3)"
sed -i 's/os._exit(3)/ctypes.string_at(0)/' suites/mysums.py
"$FG" check --suites suites --golden golden >segv.txt 2>&1
expect_status 1 $? "a function that crashes the interpreter fails the check"
expect_in "crashed (SIGSEGV)" segv.txt "the fault is named: crashed (SIGSEGV)"

# Where the data lies: the worker lays a function's numpy arrays out at every offset the alignment
# check asks for. A function that peels until a 16-byte boundary, as SSE kernels do, adds in one of
# four orders (offset mod 4): reveal reports the order map over offsets, update records it, and a
# function that stops peeling fails the check.
cat > peel.py <<'PY'
import numpy as np

def peeled(x):
    head = (-(x.ctypes.data // x.itemsize)) % 4  # floats before the next 16-byte boundary
    first = np.float32(0)
    for v in x[:head]:
        first = np.float32(first + v)
    rest = np.float32(0)
    for v in x[head:]:
        rest = np.float32(rest + v)
    return np.float32(first + rest)
PY
"$FG" reveal --backend python --python "$PY" --library numpy --function peel:peeled --module_dir . --op sum --dtype float32 --n 8 \
  >peel-reveal.txt 2>&1
expect_status 0 $? "reveal of a peeling function"
# The classes as the function defines them: at offset 1 it peels 3 floats (0 1 2), then 3..7.
expect_in "offsets 0,4,8,12: (((((((0 1) 2) 3) 4) 5) 6) 7)" peel-reveal.txt "no peel on a 16-byte boundary"
expect_in "offsets 1,5,9,13: (((0 1) 2) ((((3 4) 5) 6) 7))" peel-reveal.txt "three floats peeled at offset 1 mod 4"
expect_in "offsets 3,7,11,15: (0 ((((((1 2) 3) 4) 5) 6) 7))" peel-reveal.txt "one float peeled at offset 3 mod 4"
"$FG" reveal --backend python --python "$PY" --library numpy --function peel:peeled --module_dir . --op sum --dtype float32 --n 8 \
  --format text >peel-text.txt 2>&1
expect_in "dependent (offsets 0-15 checked, 4 classes)" peel-text.txt "the text report names the dependence"
mkdir -p peel/suites peel/golden
sed -e 's/mysums:total/peel:peeled/' -e 's/n: \[8, 33\]/n: 8/' -e 's/suite: mine/suite: peel/' suites/mine.yaml \
  >peel/suites/peel.yaml
(cd peel && cp ../peel.py suites/ && "$FG" update --suites suites --golden golden) >peel-update.txt 2>&1
expect_status 0 $? "update records the peeling function"
expect_in "alignment: dependent (offsets 0-15 checked, 4 classes)" "$(find peel/golden -name '*.golden')" \
  "the golden records the order map over offsets"
cat > peel/suites/peel.py <<'PY'
import numpy as np

def peeled(x):
    acc = np.float32(0)
    for v in x:
        acc = np.float32(acc + v)
    return acc
PY
(cd peel && "$FG" check --suites suites --golden golden) >peel-check.txt 2>&1
expect_status 1 $? "check fails once the function no longer depends on where the data lies"
expect_in "where the data lies" peel-check.txt "the failure says the alignment dependence changed"

# Issue 34.5: Python code comes from where the suite says (its folder, PYTHONPATH, the interpreter's
# own paths), never from the folder the gate runs in: a mysums.py or a venv/bin/python planted there
# is not run. (The gate used to import ./mysums.py ahead of PYTHONPATH and run ./venv/bin/python.)
cp left_to_right.py suites/mysums.py
mkdir -p planted/venv/bin
cat > planted/mysums.py <<PY
open("$work/planted-module-ran", "w").close()
def total(x):
    return x.sum()
PY
printf '#!/bin/sh\ntouch "%s/planted-python-ran"\nexec "%s" "$@"\n' "$work" "$PY" >planted/venv/bin/python
chmod +x planted/venv/bin/python
(cd planted && "$FG" check --suites ../suites --golden ../golden) >planted.txt 2>&1
expect_status 0 $? "check from a folder holding another mysums.py passes with the suite's"
if [ -e planted-module-ran ]; then fail "the working directory's mysums.py was imported"; else pass "the working directory's mysums.py was not imported"; fi
# On PYTHONPATH only (the suite's folder has none): PYTHONPATH's, still not the working directory's,
# even where PYTHONPATH has entries that mean it ('.' and an empty one, which Python makes absolute).
mkdir -p onpath && mv suites/mysums.py onpath/
(cd planted && PYTHONPATH=".::$work/onpath" "$FG" check --suites ../suites --golden ../golden) >planted.txt 2>&1
expect_status 0 $? "a module on PYTHONPATH is imported ahead of the working directory's"
if [ -e planted-module-ran ]; then fail "the working directory's mysums.py was imported"; else pass "not the working directory's"; fi
mv onpath/mysums.py suites/
# A relative python: is relative to the suite file, not to the working directory.
mkdir -p suites/venv/bin && ln -s "$PY" suites/venv/bin/python
sed "s|python: $PY|python: venv/bin/python|" suites/mine.yaml >suites/mine.yaml.new && mv suites/mine.yaml.new suites/mine.yaml
(cd planted && "$FG" check --suites ../suites --golden ../golden) >planted.txt 2>&1
expect_status 0 $? "python: venv/bin/python runs the suite's venv"
if [ -e planted-python-ran ]; then fail "the working directory's venv/bin/python ran"; else pass "the working directory's venv/bin/python did not run"; fi
FPREV_PYTHON_PYTHON=venv/bin/python "$FG" check --suites suites --golden golden >planted.txt 2>&1
expect_status 2 $? "a relative interpreter in the environment is a configuration error"
expect_in "relative path" planted.txt "it says why"
sed -i "s|python: venv/bin/python|python: $PY|" suites/mine.yaml

# A module named explicitly that cannot be imported: a failure, never a skip.
sed -i 's/mysums:total/nosuchmodule:total/' suites/mine.yaml
"$FG" check --suites suites --golden golden >missing.txt 2>&1
expect_status 1 $? "a function whose module is missing fails the check"
expect_in "nosuchmodule" missing.txt "the missing module is named"
# The identity of a library's own op names the BLAS its order comes from (NumPy's matrix products
# are its BLAS's), and the golden keeps it: a failure's identity line says which library changed.
mkdir -p blasname/suites blasname/golden
cat > blasname/suites/b.yaml <<YAML
suite: b
backends:
  - name: np
    use: python
    python: $PY
    library: numpy
cases:
  - op: dot
    dtype: float64
    n: 8
YAML
(cd blasname && "$FG" update --suites suites --golden golden) >blasname-update.txt 2>&1
expect_status 0 $? "update records numpy's dot"
expect_in "library-configuration: BLAS " "$(find blasname/golden -name '*.golden')" \
  "NumPy's identity names its BLAS"
if grep -q "^extra.blas_config: OpenBLAS" "$(find blasname/golden -name '*.golden')"; then
  expect_in "library-configuration: BLAS OpenBLAS " "$(find blasname/golden -name '*.golden')" \
    "NumPy over OpenBLAS names OpenBLAS and its version"
fi
# A library that is not installed: a skip that says what to install.
if ! "$PY" -c "import jax" 2>/dev/null; then
  sed -i -e 's/function: nosuchmodule:total//' -e 's/library: numpy/library: jax/' suites/mine.yaml
  "$FG" check --suites suites --golden golden >jax.txt 2>&1
  expect_in "pip install jax" jax.txt "a missing library is a skip that says what to install"
  expect_in "skipped" jax.txt "reported as skipped"
fi
# Two Pythons: a pyenv or a bare virtualenv first on PATH without numpy, a python3 with numpy after
# it (Debian's). The first python3 on PATH that has numpy runs and the golden says which; with
# none that has it, update records nothing and exits 1 saying why. The interpreters are injected:
# fake python3 scripts on a temporary PATH, the system one left out (FPREV_PYTHON_SYSTEM_INTERPRETER).
mkdir -p two/nonumpy/hide/numpy two/withnumpy two/suites
echo 'raise ModuleNotFoundError("No module named numpy", name="numpy")' >two/nonumpy/hide/numpy/__init__.py
printf '#!/bin/sh\nPYTHONPATH=%s exec %s "$@"\n' "$work/two/nonumpy/hide" "$PY" >two/nonumpy/python3
printf '#!/bin/sh\nexec %s "$@"\n' "$PY" >two/withnumpy/python3
chmod +x two/nonumpy/python3 two/withnumpy/python3
cat > two/suites/two.yaml <<'YAML'
suite: two
description: numpy's own sum with the default interpreter
backends:
  - name: numpy
    use: python
    library: numpy
cases:
  - op: sum
    dtype: float32
    n: 8
YAML
(cd two && PATH="$work/two/nonumpy:$work/two/withnumpy:$PATH" FPREV_PYTHON_SYSTEM_INTERPRETER= \
  "$FG" update --suites suites --golden golden) >two-update.txt 2>&1
expect_status 0 $? "update with python3 first on PATH lacking numpy"
expect_in "1 created" two-update.txt "the python3 after it on PATH, which has numpy, recorded the case"
# numpy's own sum is keyed by nothing of the host (no BLAS decides its order)
two_golden=two/golden/any/two/numpy/sum-float32-n8.golden
expect_in "extra.interpreter_chosen: withnumpy/python3: the interpreters before it on PATH lack numpy" "$two_golden" \
  "the golden says which interpreter ran and why, as a path relative to the project"
expect_not_in "$work" "$two_golden" "no absolute path of this machine in the golden"
(cd two && rm -rf golden && PATH="$work/two/nonumpy" FPREV_PYTHON_SYSTEM_INTERPRETER= \
  "$FG" update --suites suites --golden golden) >two-nothing.txt 2>&1
expect_status 1 $? "an update that recorded nothing fails"
expect_in "nothing was recorded (0 passed, 0 failed, 1 skipped)" two-nothing.txt "it says nothing was recorded"
expect_in "two/nonumpy/python3: numpy (the worker's buffers) is not installed" two-nothing.txt "and why, naming the interpreter"
# A function given as a file is refused at its suite line, with the module form to write.
sed -i 's/    library: numpy/    library: numpy\n    function: mysums.py:total/' two/suites/two.yaml
(cd two && "$FG" list --suites suites) >two-file.txt 2>&1
expect_status 2 $? "a function given as a file path is a configuration error"
expect_in "two.yaml:7:" two-file.txt "named at its line"
expect_in "mysums:total" two-file.txt "with the module form to write"
# A gemv or gemm of a single output (m = 1: what an invariance check over m reveals) is a matrix op
# with matrix buffers, not a dot product (it failed with "'Target' object has no attribute 'x'").
"$FG" reveal --backend python --python "$PY" --op gemv --m 1 --n 8 >out.txt 2>&1
expect_status 0 $? "numpy A @ x with one row reveals"
expect_in "7)" out.txt "and gives a tree of the 8 products"
# Cases side by side (update --jobs 2): the cases n = 8 and n = 33, on their first call, wait (up to
# 20 s) for a worker of the other to have started. They meet only when both run at once; run one
# after another, the first waits in vain and says so. Three cases of one instance: the slot that
# has no instance of its own joins this one from its end (n = 33) while the first slot runs n = 8;
# n = 20 waits for nobody.
mkdir -p meet/suites meet/golden
cat > meet/suites/meet.yaml <<YAML
suite: meet
backends:
  - name: mine
    use: python
    python: $PY
    library: numpy
    function: meet:total
cases:
  - op: sum
    dtype: float32
    n: [8, 20, 33]
YAML
cat > meet/suites/meet.py <<'PY'
import os, time
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
met = None

def total(x):
    global met
    if met is None and len(x) in (8, 33):
        n = len(x)
        open(os.path.join(here, "started-%d" % n), "w").close()
        other = os.path.join(here, "started-%d" % (41 - n))  # the cases are n 8 and 33
        deadline = time.time() + 20
        while not os.path.exists(other) and time.time() < deadline:
            time.sleep(0.05)
        met = os.path.exists(other)
        with open(os.path.join(here, "met-%d" % n), "w") as f:
            f.write("yes" if met else "no")
    acc = np.float32(0)
    for v in x:
        acc = np.float32(acc + v)
    return acc
PY
(cd meet && "$FG" update --suites suites --golden golden --jobs 2) >meet.txt 2>&1
expect_status 0 $? "update --jobs 2 records the three cases"
[ "$(cat meet/suites/met-8 meet/suites/met-33 2>/dev/null)" = "yesyes" ] \
  && pass "update --jobs 2 ran the two cases at the same time" \
  || fail "update --jobs 2 did not run the cases side by side: $(cat meet/suites/met-* 2>/dev/null)"
finish python-function
