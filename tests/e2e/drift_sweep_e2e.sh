#!/usr/bin/env bash
# The gate's per-element guarantee, element by element: `check` catches for certain a change of
# where an element's first two or last two summands join its tree (the edge pairs every element
# answers: docs/order-maps.md), whichever single element of the grid it is. drift_e2e.sh shows
# what the reports say for a few elements; this sweeps the corners, the edges and the inside of a
# GEMM (and every kind of edge drift at rows of a GEMV) with a BLAS that drifts on request
# (tests/e2e/drift_blas): every check must exit 1 and name the element. (A change in the middle of
# one element's tree is caught by plain `check` only by chance, docs/limits.md; `check
# --prove-every-element` catches it for certain, asserted at the end.)
# usage: drift_sweep_e2e.sh FPREV_GOLDEN ROOT DRIFT_BLAS
set -uo pipefail
FG=$1 ROOT=$2 DRIFT_BLAS=$3
source "$ROOT/tests/e2e/e2e_lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir -p suites golden
suite() {  # name, case lines
  cat > "suites/$1.yaml" <<YAML
suite: $1
description: a BLAS whose next release changes the order of one element
backends:
  - name: drift
    use: blas
    library: $DRIFT_BLAS
    threads: 1
cases:
$2
YAML
}
suite sweep-gemm "  - {op: gemm, dtype: float32, m: 40, n: 36, k: 48}"
suite sweep-gemv "  - {op: gemv, dtype: float32, m: 40, n: 48}"
unset DRIFT_BLAS_SWAP DRIFT_BLAS_ROWS DRIFT_BLAS_COLUMNS DRIFT_BLAS_FMA DRIFT_BLAS_WHEN
"$FG" update --suites suites --golden golden >update.txt 2>&1
expect_status 0 $? "update records the GEMM and the GEMV with the release before"
"$FG" check --suites suites --golden golden --no-alignment-check >check.txt 2>&1
expect_status 0 $? "check passes with the same release"

# The kinds of edge drift (DRIFT_BLAS_SWAP: two summands trade places in a sequential sum of 48):
# the last two, the second and third, the second- and third-to-last, the first and the third.
kinds=(-1,-2 1,2 -2,-3 0,2)
# drift_at SUITE ROW COLUMN SWAP NEEDLE: check exits 1 and the report holds NEEDLE.
drift_at() {
  DRIFT_BLAS_SWAP=$4 DRIFT_BLAS_ROWS=$2-$2 DRIFT_BLAS_COLUMNS=$3-$3 \
    "$FG" check --suites suites --suite "$1" --golden golden --no-alignment-check >drift.txt 2>&1
  local rc=$?
  if [ "$rc" = 1 ] && grep -qF -- "$5" drift.txt; then
    caught=$((caught + 1))
  else
    fail "$1: element ($2, $3) with summands $4 traded: expected exit 1 naming '$5', got exit $rc"
    sed 's/^/      /' drift.txt | head -20
  fi
}
caught=0 tried=0
i=0
for row in 0 1 19 38 39; do
  for column in 0 1 17 34 35; do
    for turn in 0 1; do
      swap=${kinds[$(((i + turn) % 4))]}
      drift_at sweep-gemm "$row" "$column" "$swap" "row $row x column $column"
      tried=$((tried + 1))
    done
    i=$((i + 1))
  done
done
for row in 0 1 20 39; do
  for swap in "${kinds[@]}"; do
    drift_at sweep-gemv "$row" 0 "$swap" "    row $row: "
    tried=$((tried + 1))
  done
done
if [ "$caught" = "$tried" ]; then
  pass "check fails and names the element for each of $tried single-element edge drifts"
fi
# Row 1 of the GEMV answers its probes alone: its second and third summands traded made the reveal
# refuse the whole column (inconsistent_structure) until a class whose answers fit no tree was
# divided by its probes. The release is accepted with row 1 a class of its own.
cp -r golden accepted
DRIFT_BLAS_SWAP=1,2 DRIFT_BLAS_ROWS=1-1 "$FG" update --suites suites --suite sweep-gemv --golden accepted \
  --no-alignment-check >update2.txt 2>&1
expect_status 0 $? "update accepts the release whose GEMV row 1 changed"
expect_in "1 changed" update2.txt "update changed the GEMV's golden"
DRIFT_BLAS_SWAP=1,2 DRIFT_BLAS_ROWS=1-1 "$FG" check --suites suites --suite sweep-gemv --golden accepted \
  --no-alignment-check >accepted.txt 2>&1
expect_status 0 $? "check passes with the accepted release"
# GEMV row 5 with summands 10 and 20 traded (the middle of its tree): its sampled probes miss it,
# but the fingerprint's experiments read row 5 and disagree. check then proves every element's tree
# in full: it names the order change at row 5 (it reported "the arithmetic changed under the same
# summation tree" before), and update records row 5 as a class of its own (it kept the old tree).
DRIFT_BLAS_SWAP=10,20 DRIFT_BLAS_ROWS=5-5 "$FG" check --suites suites --suite sweep-gemv --golden golden \
  --no-alignment-check >middle.txt 2>&1
expect_status 1 $? "check fails for a GEMV row whose tree changed in the middle"
expect_in "the order map changed" middle.txt "check reports the change of order, not of arithmetic"
expect_in "    row 5: " middle.txt "check names row 5"
cp -r golden middle
DRIFT_BLAS_SWAP=10,20 DRIFT_BLAS_ROWS=5-5 "$FG" update --suites suites --suite sweep-gemv --golden middle \
  --no-alignment-check >middle-update.txt 2>&1
expect_status 0 $? "update accepts the release whose GEMV row 5 changed in the middle"
expect_in "region: rows 5 x columns 0" middle/*/sweep-gemv/drift/*.golden "update records row 5 as a class of its own"
# The whole GEMV contracting its products (another arithmetic, the same tree): the report says the
# trees were proven at every element.
DRIFT_BLAS_FMA=1 "$FG" check --suites suites --suite sweep-gemv --golden golden --no-alignment-check >fma.txt 2>&1
expect_status 1 $? "check fails for a GEMV that contracts its products"
expect_in "the arithmetic changed under the same summation tree" fma.txt "check reports the arithmetic change"
expect_in "tree unchanged at every element" fma.txt "the same trees are proven at every element"
# A single GEMM element whose summands traded places in the middle of its tree (next to each other,
# or far apart): `check --prove-every-element` proves every element's tree in full (each answers
# its class's whole proof) and names the element, whatever the sampled checks saw.
unset DRIFT_BLAS_FMA
caught=0 tried=0
for drift in "19 17 30,31" "38 1 20,21" "0 35 10,40" "21 20 23,24"; do
  read -r row column swap <<<"$drift"
  DRIFT_BLAS_SWAP=$swap DRIFT_BLAS_ROWS=$row-$row DRIFT_BLAS_COLUMNS=$column-$column \
    "$FG" check --suites suites --suite sweep-gemm --golden golden --no-alignment-check --prove-every-element \
    >proven.txt 2>&1
  rc=$?
  tried=$((tried + 1))
  if [ "$rc" = 1 ] && grep -qF -- "row $row x column $column" proven.txt; then
    caught=$((caught + 1))
  else
    fail "element ($row, $column) with summands $swap traded: check --prove-every-element: expected exit 1 naming it, got exit $rc"
    sed 's/^/      /' proven.txt | head -20
  fi
done
if [ "$caught" = "$tried" ]; then
  pass "check --prove-every-element fails and names the element for each of $tried drifts in the middle of one element's tree"
fi
unset DRIFT_BLAS_SWAP DRIFT_BLAS_ROWS DRIFT_BLAS_COLUMNS
"$FG" check --suites suites --golden golden --no-alignment-check --prove-every-element >proven-same.txt 2>&1
expect_status 0 $? "check --prove-every-element passes without the drift"
expect_in "every element proven in full" proven-same.txt "the report says every element was proven"
FPREV_PROVE_EVERY_ELEMENT=1 DRIFT_BLAS_SWAP=30,31 DRIFT_BLAS_ROWS=19-19 DRIFT_BLAS_COLUMNS=17-17 \
  "$FG" check --suites suites --suite sweep-gemm --golden golden --no-alignment-check >proven-env.txt 2>&1
expect_status 1 $? "FPREV_PROVE_EVERY_ELEMENT=1 asks for the same proof"
expect_in "row 19 x column 17" proven-env.txt "FPREV_PROVE_EVERY_ELEMENT=1: check names the element"
"$FG" check --suites suites --golden golden --no-alignment-check >again.txt 2>&1
expect_status 0 $? "check passes again without the drift"
finish drift-sweep
