#!/usr/bin/env bash
# Heavy backends load on demand (fprev/backend_module.hpp): the built fprev-golden links no CUDA
# library; its help and CPU reveals (reference, blas) never map one, which the dynamic loader's own
# log (LD_DEBUG=files: every library mapped, dlopen'ed ones included) shows; a cuBLAS case loads the
# module fprev_backend_cublas.so (and through it the CUDA libraries) and, without a GPU, reports the
# reason; `env` lists cublas either way.
# usage: lean_start_e2e.sh <fprev-golden> <cuBLAS module file, or "none" in a build without CUDA>
set -uo pipefail
FG=$1 MODULE=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
unset FPREV_BACKEND_PATH
failures=0
pass() { echo "ok   - $1"; }
fail() { echo "FAIL - $1"; failures=$((failures + 1)); }
expect_status() {  # expected, actual, what
  if [ "$1" = "$2" ]; then pass "$3 (exit $2)"; else fail "$3: expected exit $1, got $2"; sed 's/^/      /' "$WORK/err.txt" | tail -20; fi
}
cuda_pattern='libcudart|libcublas|libcublasLt|libcuda\.so|fprev_backend_cublas'
expect_no_cuda() {  # loader log, what
  if grep -E "$cuda_pattern" "$1" >/dev/null; then
    fail "$2: a CUDA library or the cuBLAS module was mapped:"; grep -E "$cuda_pattern" "$1" | head -5 | sed 's/^/      /'
  elif ! grep -q "libfprev_framework" "$1"; then
    fail "$2: the loader log is empty or unreadable (LD_DEBUG ignored?)"
  else
    pass "$2"
  fi
}
# run <log> <args...>: fprev-golden with the dynamic loader logging every library it maps.
run() {
  local log=$1; shift
  LD_DEBUG=files LD_DEBUG_OUTPUT="$WORK/$log" "$FG" "$@" >"$WORK/out.txt" 2>"$WORK/err.txt"
  local status=$?
  cat "$WORK/$log".* > "$WORK/$log" 2>/dev/null
  return $status
}

if ldd "$FG" | grep -E "$cuda_pattern" >/dev/null; then
  fail "the executable links no CUDA library"; ldd "$FG" | grep -E "$cuda_pattern" | sed 's/^/      /'
else
  pass "the executable links no CUDA library"
fi

run help.log --help; expect_status 0 $? "--help"
expect_no_cuda "$WORK/help.log" "--help maps no CUDA library"
run version.log --version
expect_no_cuda "$WORK/version.log" "--version maps no CUDA library"

run reference.log reveal --backend reference --order pairwise --dtype float32 --n 16
expect_status 0 $? "a reference reveal"
grep -qF "(((0 1) (2 3)) ((4 5) (6 7)))" "$WORK/out.txt" && pass "the reference reveal prints its tree" \
  || fail "the reference reveal prints its tree: $(cat "$WORK/out.txt")"
expect_no_cuda "$WORK/reference.log" "a reference reveal maps no CUDA library"

run blas.log reveal --backend blas --op dot --dtype float64 --n 32
status=$?
if grep -q "backend unavailable" "$WORK/err.txt"; then
  echo "skip - no CPU BLAS here: $(head -1 "$WORK/err.txt")"
else
  expect_status 0 $status "a blas reveal"
  grep -q "libopenblas\|libblas\|libblis" "$WORK/blas.log" && pass "the blas reveal loaded a BLAS" \
    || fail "the blas reveal loaded a BLAS"
  expect_no_cuda "$WORK/blas.log" "a blas reveal maps no CUDA library"
fi

# FPREV_SKIP_GPU_DRIVER_CHECK: load the module even on a machine without an NVIDIA driver, to
# see that it loads (without it such a machine never loads it: checked with env below).
FPREV_SKIP_GPU_DRIVER_CHECK=1 run cublas.log reveal --backend cublas --op dot --dtype float32 --n 8
status=$?
if [ "$MODULE" = none ]; then
  expect_status 1 $status "a cuBLAS reveal in a build without CUDA"
  grep -q "built without the CUDA toolkit" "$WORK/err.txt" && pass "it says the toolkit was missing" \
    || fail "it says the toolkit was missing: $(cat "$WORK/err.txt")"
else
  grep -qF "file=$MODULE" "$WORK/cublas.log" && pass "a cuBLAS case loads $(basename "$MODULE")" \
    || fail "a cuBLAS case loads $MODULE: $(grep fprev_backend "$WORK/cublas.log" | head -3)"
  grep -q "file=libcublasLt" "$WORK/cublas.log" && pass "the module brings the CUDA libraries" \
    || fail "the module brings the CUDA libraries"
  if grep -q "no CUDA device" "$WORK/err.txt"; then
    expect_status 1 $status "without a GPU, the cuBLAS reveal is unavailable"
  else
    expect_status 0 $status "with a GPU, the cuBLAS reveal succeeds"
  fi
fi

run env.log env; expect_status 0 $? "env"
# Without any file of an NVIDIA driver, env says so without loading the CUDA module (it would map
# hundreds of MiB only to find no GPU).
if ! ls /dev/nvidiactl /dev/nvidia0 /proc/driver/nvidia/version /dev/dxg >/dev/null 2>&1; then
  expect_no_cuda "$WORK/env.log" "env on a machine without an NVIDIA driver maps no CUDA library"
  if [ "$MODULE" != none ]; then
    grep -q "no NVIDIA GPU driver here" "$WORK/out.txt" && pass "env says there is no driver" \
      || fail "env says there is no driver: $(grep -A1 '^  cublas:' "$WORK/out.txt")"
  fi
fi
grep -A1 "^  cublas:" "$WORK/out.txt" > "$WORK/cublas_env.txt"
if grep -q "usable\|unavailable" "$WORK/cublas_env.txt"; then
  pass "env lists cublas with its state: $(sed -n 2p "$WORK/cublas_env.txt" | cut -c1-100)"
else
  fail "env lists cublas with its state:"; sed 's/^/      /' "$WORK/out.txt" | head -30
fi

echo
if [ "$failures" -ne 0 ]; then echo "$failures check(s) failed"; exit 1; fi
echo "all checks passed"
