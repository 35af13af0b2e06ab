#!/usr/bin/env bash
# The python backend beside FPRev's own Python implementation (Xie et al., USENIX ATC 2025; its code
# in ../shared/anchors/fprev-py/, run, never copied), on the same machine, one thread:
#   numpy.sum, n = 16384   and   torch sgemm 512^3 (A @ B)
# Ours: a whole `fprev-golden reveal` process (the gate, a Python worker started, the library
# imported, every probe crossing the process boundary in runs, the order map of all 512 x 512
# elements for the GEMM, the determinism check and the fingerprint). FPRev's: its reveal alone,
# in-process (its tree of one output element), after the imports. Both at one placement of the
# data: ours with --no-alignment-check (FPRev has no alignment check; ours is timed alone last).
# Both as wall seconds and as CPU seconds (user + sys, workers included): on a shared machine the
# CPU seconds are the comparable figure.
# usage: bench/python_bench.sh [BUILD_DIR] [FPREV_PY_DIR] [PYTHON]
set -euo pipefail
BUILD=${1:-build}
ANCHOR=${2:-$(cd "$(dirname "$0")/../.." && pwd)/shared/anchors/fprev-py}
PY=${3:-/usr/bin/python3}
FG=$BUILD/framework/cli/fprev-golden
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
ours() {  # label, reveal arguments...
  local label=$1; shift
  /usr/bin/time -f "%e %U %S" -o /tmp/python_bench.$$ "$FG" reveal --backend python --python "$PY" --threads 1 \
    --no-alignment-check "$@" >/dev/null
  read -r wall user sys < /tmp/python_bench.$$
  printf '%-28s %-22s wall %7.2f s   cpu %7.2f s\n' "$label" "fprev-golden (process)" "$wall" "$(echo "$user + $sys" | bc)"
}
theirs() {  # label, library, class
  "$PY" - "$ANCHOR" "$2" "$3" "$1" <<'PY'
import sys, time
sys.path.insert(0, sys.argv[1])
from fprev import fprev
if sys.argv[2] == "numpy":
    from accumimpls.numpy import NumpySum as S, NumpyGEMM as M
else:
    import torch
    torch.set_num_threads(1)
    from accumimpls.torch import TorchSum as S, TorchGEMM as M
cls, n = {"sum16384": (S, 16384), "gemm512": (M, 512)}[sys.argv[3]]
impl = cls(n)
c, w = time.process_time(), time.perf_counter()
fprev(impl)
print("%-28s %-22s wall %7.2f s   cpu %7.2f s" % (sys.argv[4], "FPRev (in-process)", time.perf_counter() - w, time.process_time() - c))
PY
}
ours "numpy sum n=16384" --library numpy --op sum --dtype float32 --n 16384
theirs "numpy sum n=16384" numpy sum16384
ours "torch sgemm 512^3" --library torch --op gemm --dtype float32 --m 512 --n 512 --k 512
theirs "torch sgemm 512^3" torch gemm512
# The floor of a whole process: the interpreter started and the library imported, nothing else.
for library in numpy torch; do
  /usr/bin/time -f "%e %U %S" -o /tmp/python_bench.$$ "$PY" -c "import $library"
  read -r wall user sys < /tmp/python_bench.$$
  printf '%-28s %-22s wall %7.2f s   cpu %7.2f s\n' "import $library" "python3 alone" "$wall" "$(echo "$user + $sys" | bc)"
done
# The alignment check of the numpy sum alone: the reveal with it, in stats.
"$FG" reveal --backend python --python "$PY" --threads 1 --library numpy --op sum --dtype float32 --n 16384 --format json |
  "$PY" -c 'import json, sys; a = json.load(sys.stdin)["alignment_stats"]; print("%-28s %-22s %d proofs, %d probes, %.2f s" % ("numpy sum n=16384", "alignment check", a["proofs"], a["probes"], a["seconds"]))'
rm -f /tmp/python_bench.$$
