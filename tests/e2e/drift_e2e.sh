#!/usr/bin/env bash
# A library release that changes the order of a few output elements only must fail the gate, not
# pass it: a GEMM whose new edge-tile or tail kernel adds the last two (or the second and third)
# products of some rows, some columns, a corner block or a single element in the other order. A
# BLAS whose sgemm does exactly that when asked (tests/e2e/drift_blas) is recorded with update,
# then checked after each drift: check exits 1 and names the elements whose tree changed, and
# passes again once the drift is gone. A band or an element that contracts its products (the same
# order, another arithmetic) fails on the fingerprint; a drift only where the data is not aligned fails the
# alignment check. (Until the confirmation proved on both axes and checked
# every element's edge pairs, a band of four rows with its last two products swapped passed.)
# usage: drift_e2e.sh FPREV_GOLDEN ROOT DRIFT_BLAS
set -uo pipefail
FG=$1 ROOT=$2 DRIFT_BLAS=$3
source "$ROOT/tests/e2e/e2e_lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir -p suites golden
cat > suites/drift.yaml <<YAML
suite: drift
description: a BLAS whose next release changes the order of a few elements
backends:
  - name: drift
    use: blas
    library: $DRIFT_BLAS
    threads: 1
cases:
  - op: gemm
    dtype: float32
    m: 40
    n: 36
    k: 48
  - op: gemv
    dtype: float32
    m: 40
    n: 48
YAML
unset DRIFT_BLAS_SWAP DRIFT_BLAS_ROWS DRIFT_BLAS_COLUMNS
"$FG" update --suites suites --golden golden >update.txt 2>&1
expect_status 0 $? "update records the GEMM and the GEMV with the release before"
expect_in "2 created" update.txt "update created the goldens"
"$FG" check --suites suites --golden golden >check.txt 2>&1
expect_status 0 $? "check passes with the same release"

# drift: "what" swap rows columns needle... (each needle must be in the report)
drift() {
  local what=$1 swap=$2 rows=$3 columns=$4
  shift 4
  DRIFT_BLAS_SWAP=$swap DRIFT_BLAS_ROWS=$rows DRIFT_BLAS_COLUMNS=$columns \
    "$FG" check --suites suites --golden golden --no-alignment-check >drift.txt 2>&1
  expect_status 1 $? "check fails when $what"
  local needle
  for needle in "$@"; do expect_in "$needle" drift.txt "the report names $needle"; done
}
gemm="FAILED reproducibility/drift/drift/gemm-float32-m40n36k48: the order map changed"
gemv="FAILED reproducibility/drift/drift/gemv-float32-m40n48: the order map changed"
# Rows drift in both cases (a GEMV's y is one column: its rows are its elements).
drift "rows 36-39 add their last two products the other way" -1,-2 36-39 "" "$gemm" "$gemv" \
  "rows 36-39 x columns 0-35: sequential -> sequential; summand 47 (the last) added to the sum of summands 0-45" \
  "    rows 36-39: sequential -> sequential; summand 47"
drift "row 17 adds its last two products the other way" -1,-2 17-17 "" "$gemm" "$gemv" "row 17 x columns 0-35" "    row 17: "
drift "row 3 adds its second and third products the other way" 1,2 3-3 "" "$gemm" "$gemv" "    row 3: "
# In the middle of the tree: the GEMV's one column cannot carry the proof on a second axis, so its
# confirmation holds; its fingerprint differs, and the reveal that follows finds the order.
drift "rows 5-9 add their 21st and 31st products the other way" 20,30 5-9 "" "$gemm" "$gemv" \
  "rows 5-9 x columns 0-35: sequential -> binary tree" "    rows 5-9: sequential -> binary tree"
drift "columns 0-3 add their last two products the other way" -1,-2 "" 0-3 "$gemm" "rows 0-39 x columns 0-3"
drift "a 4 x 4 corner adds its last two products the other way" -1,-2 36-39 32-35 "$gemm" "rows 36-39 x columns 32-35"
drift "one element adds its last two products the other way" -1,-2 5-5 7-7 "$gemm" "row 5 x column 7"
drift "one element adds its second and third products the other way" 1,2 20-20 30-30 "$gemm" "row 20 x column 30"
drift "one element adds its last and third-to-last products the other way" -1,-3 0-0 35-35 "$gemm" "row 0 x column 35"

# Another arithmetic under the same order: rows 36-39 (and, in the GEMM, columns 30-35, or one
# element) contract their products into the sum (fmaf). The fingerprint gives every element one
# input and compares each class's elements (the fact "uniformity"), so the report names where.
DRIFT_BLAS_FMA=1 DRIFT_BLAS_ROWS=36-39 "$FG" check --suites suites --golden golden --no-alignment-check >fma.txt 2>&1
expect_status 1 $? "check fails when rows 36-39 contract their products"
expect_in "gemm-float32-m40n36k48: the arithmetic changed under the same summation tree" fma.txt "the GEMM's report says the arithmetic changed under the same tree"
expect_in "gemv-float32-m40n48: the arithmetic changed under the same summation tree" fma.txt "the GEMV's report says so too"
expect_in "uniformity: every element alike -> differs at rows 36-39 x columns 0-35 (other bits than element (0, 0)" fma.txt "the GEMM's report names rows 36-39"
expect_in "uniformity: every element alike -> differs at rows 36-39 (other bits than element (0, 0)" fma.txt "the GEMV's report names rows 36-39"
DRIFT_BLAS_FMA=1 DRIFT_BLAS_ROWS=5-5 DRIFT_BLAS_COLUMNS=7-7 "$FG" check --suites suites --golden golden --no-alignment-check \
  --case gemm-float32-m40n36k48 >fma.txt 2>&1
expect_status 1 $? "check fails when one element of the GEMM contracts its products"
expect_in "uniformity: every element alike -> differs at row 5 x column 7" fma.txt "the report names row 5 x column 7"
DRIFT_BLAS_FMA=1 DRIFT_BLAS_COLUMNS=30-35 "$FG" check --suites suites --golden golden --no-alignment-check \
  --case gemm-float32-m40n36k48 >fma.txt 2>&1
expect_status 1 $? "check fails when columns 30-35 of the GEMM contract their products"
expect_in "the arithmetic changed under the same summation tree" fma.txt "the report says the arithmetic changed"

# The same band of rows drifting only where A does not start on a 64-byte boundary: the order at
# offset 0 is the golden's, the alignment check's placements see the band.
DRIFT_BLAS_WHEN=misaligned DRIFT_BLAS_SWAP=-1,-2 DRIFT_BLAS_ROWS=36-39 \
  "$FG" check --suites suites --golden golden --case gemm-float32-m40n36k48 >misaligned.txt 2>&1
expect_status 1 $? "check fails when rows 36-39 drift only where the data is not aligned"
expect_in "the order's dependence on where the data lies changed" misaligned.txt "the report says the order now depends on where the data lies"

# Rows 36-39 contracting their products only where the data is not aligned: the same order at
# every placement, and the proof's random inputs have exact products; one input with inexact
# products on every element gives other bits at offset 1 than at offset 0 (the build before
# passed this).
DRIFT_BLAS_WHEN=misaligned DRIFT_BLAS_FMA=1 DRIFT_BLAS_ROWS=36-39 \
  "$FG" check --suites suites --golden golden --case gemm-float32-m40n36k48 >misaligned.txt 2>&1
expect_status 1 $? "check fails when rows 36-39 contract their products only where the data is not aligned"
expect_in "at offset 1 every output element follows offset 0's order (the proof and a reveal agree), but the outputs on the same inputs differ bitwise from offset 0's" misaligned.txt "the report names offset 1 and says the arithmetic depends on where the data lies"

# Rows 5-9 adding their 21st and 31st products the other way, only where the data is not aligned:
# a change in the middle of the tree that the proofs at those placements do not all look at; their
# bits differ from offset 0's, the reveal there finds the order, in the GEMM and in the GEMV.
DRIFT_BLAS_WHEN=misaligned DRIFT_BLAS_SWAP=20,30 DRIFT_BLAS_ROWS=5-9 \
  "$FG" check --suites suites --golden golden >misaligned.txt 2>&1
expect_status 1 $? "check fails when rows 5-9 drift in the middle of the tree where the data is not aligned"
expect_in "gemm-float32-m40n36k48: the order's dependence on where the data lies changed" misaligned.txt "the GEMM's order now depends on where the data lies"
expect_in "gemv-float32-m40n48: the order's dependence on where the data lies changed" misaligned.txt "the GEMV's too"

"$FG" check --suites suites --golden golden >again.txt 2>&1
expect_status 0 $? "check passes again without the drift"

# The release is accepted: update records the band's order as a class of its own (the GEMV's
# too, whose confirmation alone would have kept the old map), check passes with it, and the old
# release then fails, the other way round.
cp -r golden accepted
DRIFT_BLAS_SWAP=20,30 DRIFT_BLAS_ROWS=5-9 "$FG" update --suites suites --golden accepted --no-alignment-check >update2.txt 2>&1
expect_status 0 $? "update accepts the release whose rows 5-9 changed"
expect_in "2 changed" update2.txt "update changed both goldens"
DRIFT_BLAS_SWAP=20,30 DRIFT_BLAS_ROWS=5-9 "$FG" check --suites suites --golden accepted --no-alignment-check >accepted.txt 2>&1
expect_status 0 $? "check passes with the accepted release"
"$FG" check --suites suites --golden accepted --no-alignment-check >back.txt 2>&1
expect_status 1 $? "check fails with the release before"
expect_in "    rows 5-9: binary tree, depth 47 -> sequential" back.txt "the GEMV's report names rows 5-9, the other way round"

# A release whose rows 36-39 contract their products is accepted the same way: its goldens record
# where the elements compute otherwise, and check passes with it and fails without it.
cp -r golden fused
DRIFT_BLAS_FMA=1 DRIFT_BLAS_ROWS=36-39 "$FG" update --suites suites --golden fused --no-alignment-check >update3.txt 2>&1
expect_status 0 $? "update accepts the release whose rows 36-39 contract their products"
grep -rq "fingerprint.fact.uniformity: differs at rows 36-39 x columns 0-35" fused &&
  pass "the GEMM's golden records rows 36-39" || fail "no golden records rows 36-39 as computing otherwise"
DRIFT_BLAS_FMA=1 DRIFT_BLAS_ROWS=36-39 "$FG" check --suites suites --golden fused --no-alignment-check >fused.txt 2>&1
expect_status 0 $? "check passes with the accepted release"
"$FG" check --suites suites --golden fused --no-alignment-check >unfused.txt 2>&1
expect_status 1 $? "check fails with the release before"
expect_in "uniformity: differs at rows 36-39 x columns 0-35 (other bits than element (0, 0) on the same input) -> every element alike" unfused.txt "the report names rows 36-39, the other way round"
finish drift
