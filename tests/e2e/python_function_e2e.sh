#!/usr/bin/env bash
# A user's own Python function gated like a library (the python backend's `function:` setting): a
# scratch project whose suite reveals mysums:total, a left-to-right float32 loop, records it with
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
cat > mysums.py <<'PY'
import numpy as np

def total(x):
    acc = np.float32(0)
    for v in x:  # left to right
        acc = np.float32(acc + v)
    return acc
PY
"$FG" update --suites suites --golden golden >update.txt 2>&1
expect_status 0 $? "update records the function's two cases"
expect_in "2 created" update.txt "update created 2 goldens"
golden8=$(find golden -name 'sum-float32-n8.golden')
"$FG" show --format sexpr "$golden8" >show.txt 2>&1
expect_in "(((((((0 1) 2) 3) 4) 5) 6) 7)" show.txt "the recorded tree is the loop's left-to-right order"
"$FG" check --suites suites --golden golden >check.txt 2>&1
expect_status 0 $? "check passes with the function unchanged"

sed -i 's/for v in x:  # left to right/for v in x[::-1]:  # right to left/' mysums.py
"$FG" check --suites suites --golden golden >reversed.txt 2>&1
expect_status 1 $? "check fails once the loop runs right to left"
expect_in "sum-float32-n8" reversed.txt "the failing case is named"
expect_in "(0 (1 (2 (3 (4 (5 (6 7)))))))" reversed.txt "the diff shows the new, reversed order"

cat > mysums.py <<'PY'
import math

def total(x):
    return math.fsum(x)
PY
"$FG" check --suites suites --golden golden >fsum.txt 2>&1
expect_status 1 $? "check fails once the function is math.fsum"

cat > mysums.py <<'PY'
import ctypes, os

def total(x):
    if len(x) == 33:
        os._exit(3)
    return x.sum()
PY
"$FG" check --suites suites --golden golden >exit.txt 2>&1
expect_status 1 $? "a function that exits the interpreter fails the check"
expect_in "exited (status 3)" exit.txt "the fault is named: exited (status 3)"
sed -i 's/os._exit(3)/ctypes.string_at(0)/' mysums.py
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
"$FG" reveal --backend python --python "$PY" --library numpy --function peel:peeled --op sum --dtype float32 --n 8 \
  >peel-reveal.txt 2>&1
expect_status 0 $? "reveal of a peeling function"
# The classes as the function defines them: at offset 1 it peels 3 floats (0 1 2), then 3..7.
expect_in "offsets 0,4,8,12: (((((((0 1) 2) 3) 4) 5) 6) 7)" peel-reveal.txt "no peel on a 16-byte boundary"
expect_in "offsets 1,5,9,13: (((0 1) 2) ((((3 4) 5) 6) 7))" peel-reveal.txt "three floats peeled at offset 1 mod 4"
expect_in "offsets 3,7,11,15: (0 ((((((1 2) 3) 4) 5) 6) 7))" peel-reveal.txt "one float peeled at offset 3 mod 4"
"$FG" reveal --backend python --python "$PY" --library numpy --function peel:peeled --op sum --dtype float32 --n 8 \
  --format text >peel-text.txt 2>&1
expect_in "dependent (offsets 0-15 checked, 4 classes)" peel-text.txt "the text report names the dependence"
mkdir -p peel/suites peel/golden
sed -e 's/mysums:total/peel:peeled/' -e 's/n: \[8, 33\]/n: 8/' -e 's/suite: mine/suite: peel/' suites/mine.yaml \
  >peel/suites/peel.yaml
(cd peel && cp ../peel.py . && "$FG" update --suites suites --golden golden) >peel-update.txt 2>&1
expect_status 0 $? "update records the peeling function"
expect_in "alignment: dependent (offsets 0-15 checked, 4 classes)" "$(find peel/golden -name '*.golden')" \
  "the golden records the order map over offsets"
cat > peel/peel.py <<'PY'
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
finish python-function
