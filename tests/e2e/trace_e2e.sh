#!/usr/bin/env bash
# fprev-golden trace end to end (docs/trace.md).
#   trace_e2e.sh c FG PROGRAM OTHER_BLAS: a program linked to the BLAS
#     (trace_program/traced_blas_program.cpp) gives the same bits with and without the interposer;
#     its trace is a suite that loads, pinned to the kernel family the program forced, names both
#     call sites of its dot and counts saxpy as not gated; update records it; the same suite run
#     against another BLAS (the "upgrade") fails, naming the call site; a failing program still
#     gives its trace; a program without BLAS gets no suite; --top, --min-count and --merge.
#   trace_e2e.sh numpy FG PROGRAM OTHER_BLAS: the issue's NumPy program (a 64x16 by 16x32 float64
#     product, a float32 dot of 1000) under Debian's /usr/bin/python3; skips (77) without numpy.
# OTHER_BLAS is the blas backend's toy library (backends/blas/tests/toy/toy_blas.cpp: sdot sums
# backwards), whose orders differ from OpenBLAS's: it stands for an upgrade that changed them.
set -u
part="$1"
FG="$(realpath "$2")"
PROGRAM="$(realpath "$3")"
OTHER_BLAS="$(realpath "$4")"
source "$(dirname "$0")/e2e_lib.sh"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
# One thread, and the Prescott kernels (every x86-64 CPU runs them): the traced suite pins both,
# so its goldens are keyed prescott-t1 on any runner and another BLAS is compared with them.
export OPENBLAS_NUM_THREADS=1 OPENBLAS_CORETYPE=Prescott

if [ "$part" = c ]; then
  "$PROGRAM" > plain.txt
  "$FG" trace --output traced.yaml -- "$PROGRAM" > traced.txt 2> trace.log
  expect_status 0 $? "trace of a program linked to the BLAS"
  if cmp -s plain.txt traced.txt; then pass "the program's results are bit for bit the same under the interposer"
  else fail "the results differ under the interposer"; diff plain.txt traced.txt | head; fi
  expect_in "ended with exit status 0" trace.log "the program's exit status is reported"
  expect_in "4 cases for 5 BLAS calls" trace.log "one case per distinct call (the dot called twice)"
  expect_in "cblas_saxpy: 1 call" trace.log "saxpy is counted, not gated"
  "$FG" list traced.yaml > list.txt 2>&1
  expect_status 0 $? "the traced suite loads"
  expect_in "dot-float32-n1000" list.txt "the dot of 1000 float32"
  # Row-major C (64 x 32) = A (64 x 16) B (16 x 32) is the column-major call C^T = B^T A^T.
  expect_in "gemm-float64-beta0-nn-m32n64k16" list.txt "the row-major CBLAS dgemm as the library runs it"
  expect_in "gemv-float32-beta1-t-m40n24" list.txt "the Fortran sgemv T with beta 1"
  expect_in "gemm-float64-beta1-nn-m8n8k33" list.txt "the Fortran dgemm with beta 1"
  expect_in "threads: 1" traced.yaml "the instance is pinned to the program's thread count"
  expect_in "library: openblas" traced.yaml "the instance names the library that served the calls"
  expect_in "kernel: Prescott" traced.yaml "and the kernel family the program forced"
  expect_in "dot_from_here+" traced.yaml "the first call site of the dot"
  expect_in "dot_from_there+" traced.yaml "its second call site"
  expect_in "cblas_dgemm RowMajor NN, m 64, n 32, k 16, lda 16, ldb 32, ldc 32" traced.yaml \
    "the comment says how the program called it"

  "$FG" update --suites traced.yaml --golden golden > update.txt 2>&1
  expect_status 0 $? "update records the traced suite"
  expect_in "4 created" update.txt "every traced case has a golden"
  FPREV_BLAS_LIBRARY="$OTHER_BLAS" "$FG" check --suites traced.yaml --golden golden --no-pending > check.txt 2>&1
  expect_status 1 $? "check against another BLAS fails"
  expect_in "FAILED reproducibility/traced/openblas-prescott-t1/dot-float32-n1000: the summation tree changed" \
    check.txt "the dot's order changed"
  expect_in "the application makes this call at:" check.txt "the failure says where the application calls"
  expect_in "dot_from_here+" check.txt "and names the call site"
  FPREV_BLAS_LIBRARY="$OTHER_BLAS" "$FG" check --suites traced.yaml --golden golden --no-pending --json \
    > check.json 2>/dev/null
  expect_in '"call_sites": [' check.json "the JSON report carries the call sites"

  # The reference BLAS's cblas_dgemm calls dgemm_ through its PLT, that is through the interposer:
  # only the outermost call counts.
  netlib=""
  for candidate in /usr/lib/*/blas/libblas.so.3 /usr/lib64/blas/libblas.so.3; do
    [ -e "$candidate" ] && netlib="$candidate" && break
  done
  if [ -n "$netlib" ]; then
    LD_PRELOAD="$netlib" "$FG" trace --output netlib.yaml -- "$PROGRAM" > /dev/null 2> netlib.log
    expect_status 0 $? "trace of the program running the reference BLAS"
    expect_in "library: netlib" netlib.yaml "the library is recognised as the reference BLAS"
    expect_in "4 cases for 5 BLAS calls" netlib.log "its CBLAS calling its Fortran BLAS counts once"
  else
    echo "SKIP - the reference BLAS (libblas3) is not installed: nested calls not checked"
  fi

  "$FG" trace --output failing.yaml -- "$PROGRAM" 3 > /dev/null 2> failing.log
  expect_status 0 $? "a failing program still gives its trace"
  expect_in "ended with exit status 3 (it failed" failing.log "its exit status is said clearly"
  expect_in "exit status 3" failing.yaml "and written into the suite"

  "$FG" trace --output none.yaml -- /bin/true > /dev/null 2> none.log
  expect_status 1 $? "a program that loads no BLAS gets no suite"
  expect_in "loaded no BLAS" none.log "and a message that says so"
  [ ! -e none.yaml ] && pass "no empty suite is written" || fail "none.yaml was written"

  "$FG" trace --output killed.yaml -- bash -c 'kill -9 $$' > /dev/null 2> killed.log
  expect_status 1 $? "a program killed by a signal gives no suite"
  expect_in "killed by signal 9" killed.log "how it ended is said"
  expect_in "no process of the program wrote a trace" killed.log "and why there is no trace"

  "$FG" trace --output top.yaml --top 1 -- "$PROGRAM" > /dev/null 2> top.log
  "$FG" list top.yaml > top.txt 2>&1
  expect_in "1 case in 1 suite" top.txt "--top 1 keeps one case"
  expect_in "dot-float32-n1000" top.txt "the most frequent one"
  "$FG" trace --output min.yaml --min-count 2 -- "$PROGRAM" > /dev/null 2>&1
  "$FG" list min.yaml > min.txt 2>&1
  expect_in "1 case in 1 suite" min.txt "--min-count 2 keeps the calls made twice"

  "$FG" trace --output traced.yaml --merge traced.yaml -- "$PROGRAM" > /dev/null 2> merge.log
  expect_status 0 $? "merging a trace into its own suite"
  expect_in "added 0 of 4" merge.log "adds no duplicate"
  cat > hand.yaml <<'YAML'
# A hand-written suite: its comments stay.
suite: hand
backends:
  - name: mine
    use: blas
    threads: 1
cases:
  - op: dot
    dtype: float32
    n: 1000
YAML
  "$FG" trace --output merged.yaml --merge hand.yaml --min-count 1 -- "$PROGRAM" > /dev/null 2> merge2.log
  expect_status 0 $? "merging a trace into a hand-written suite"
  # The hand-written dot entry has no `backends:`: it applies to the instance the merge adds too.
  expect_in "added 3 of 4" merge2.log "the dot it has already is not added again"
  "$FG" list merged.yaml > merged.txt 2>&1
  expect_status 0 $? "the merged suite loads"
  expect_in "5 cases in 1 suite" merged.txt "its dot on both instances, the three new cases on the new one"
  expect_in "# A hand-written suite: its comments stay." merged.yaml "its own text is kept"
  finish trace-c
fi

# ---- the issue's NumPy program ----------------------------------------------------------------
PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then
  echo "SKIP: Debian's /usr/bin/python3 has no numpy (python3-numpy), so there is no NumPy program to trace"
  exit 77
fi
cat > numpy_program.py <<'PY'
import numpy as np

a = np.linspace(-1.0, 1.0, 64 * 16).reshape(64, 16)
b = np.linspace(0.5, -0.5, 16 * 32).reshape(16, 32)
x = np.linspace(0.0, 1.0, 1000, dtype=np.float32)
c = a @ b
d = np.dot(x, x[::-1].copy())
print(c.sum(), d)
PY
"$PY" numpy_program.py > plain.txt
"$FG" trace --output numpy.yaml -- "$PY" numpy_program.py > traced.txt 2> trace.log
expect_status 0 $? "trace of the NumPy program"
if cmp -s plain.txt traced.txt; then pass "NumPy's results are the same under the interposer"
else fail "NumPy's results differ under the interposer"; fi
"$FG" list numpy.yaml > list.txt 2>&1
expect_status 0 $? "the traced suite loads"
expect_in "gemm-float64-beta0-nn-m32n64k16" list.txt "the 64x16 by 16x32 float64 product (cblas_dgemm)"
expect_in "dot-float32-n1000" list.txt "the float32 dot of 1000 (cblas_sdot)"
expect_in "numpy_program.py:6 in <module>" numpy.yaml "the product's call site is its Python line"
expect_in "numpy_program.py:7 in <module>" numpy.yaml "the dot's call site is its Python line"
"$FG" update --suites numpy.yaml --golden golden > update.txt 2>&1
expect_status 0 $? "update records it"
grep -qE "gemm-float64-beta0-nn-m32n64k16 +created" update.txt && pass "the product has a golden" || fail "no golden for the product"
grep -qE "dot-float32-n1000 +created" update.txt && pass "the dot has one" || fail "no golden for the dot"
FPREV_BLAS_LIBRARY="$OTHER_BLAS" "$FG" check --suites numpy.yaml --golden golden --no-pending > check.txt 2>&1
expect_status 1 $? "check against another BLAS fails"
expect_in "dot-float32-n1000: the summation tree changed" check.txt "the dot's order changed"
expect_in "the application makes this call at:" check.txt "the failing case says where the application calls"
expect_in "numpy_program.py:7 in <module>" check.txt "and names the line of the dot"
finish trace-numpy
