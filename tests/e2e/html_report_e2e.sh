#!/usr/bin/env bash
# The HTML report of a gate run in a real browser (headless Chromium from Debian): a scratch
# project whose gate fails (a golden edited to another tree, a nondeterministic target) and skips
# (a missing golden) writes check --html; the page loads without console errors, its DOM holds the
# summary, the failing case with its picture, the diagnostic and the skip; a screenshot is taken
# (kept in the output directory for people to look at). Also the diff picture of two shipped
# goldens of one OpenBLAS case under two forced kernel families.
# Skips (77) when Chromium is not installed.
# usage: html_report_e2e.sh <fprev-golden> <source root> <output dir>
set -uo pipefail
FG=$1 ROOT=$2 OUT=$3
BROWSER=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$BROWSER" ]; then
  echo "SKIP: chromium is not installed (scripts/install-deps installs it)"
  exit 77
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
unset CI FPREV_STRICT FPREV_SUITES FPREV_GOLDEN_DIR
source "$(dirname "$0")/e2e_lib.sh"
mkdir -p "$OUT"
rm -f "$OUT/report.html" "$OUT/report.png" "$OUT/diff.svg" "$OUT/diff.png" "$OUT/sequential.svg" "$OUT/sequential.png"

# The flags the machine's browser needs to run headless and offline, and a fresh profile per run.
browser() {
  timeout 60 "$BROWSER" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$(mktemp -d "$WORK/profile-XXXXXX")" "$@"
}

cd "$WORK"
mkdir -p project/suites
cd project
cat > suites/demo.yaml <<'YAML'
suite: demo
description: a project whose gate fails
backends:
  - name: ref
    use: reference
  - name: tc
    use: tcsim
    arch: volta
cases:
  - op: sum
    order: [sequential, pairwise]
    n: [64, 1000]
    backends: ref
  - op: sum
    order: nondeterministic
    n: 64
    backends: ref
  - op: dot
    order: strided_pairwise
    n: 40
    backends: ref
  - op: gemm
    dtype: float16
    m: 16
    n: 16
    k: 64
    backends: tc
YAML
G=golden/any/demo/ref
"$FG" update --case 'sum-float32-sequential-*' --case 'sum-float32-pairwise-*' --case 'dot-*' --case 'gemm-*' >out.txt 2>&1
expect_status 0 $? "update creates the goldens"
# The GEMM's golden is Volta's (4-term fused sums); the suite now asks for Hopper's (16 terms): a
# wide picture of two trees side by side.
sed -i 's/arch: volta/arch: hopper/' suites/demo.yaml
# A golden edited to another valid tree: the pairwise sum of 1000 summands recorded as sequential.
{ sed -n '/^leaves:/q;p' "$G/sum-float32-pairwise-n1000.golden"
  sed -n '/^leaves:/,$p' "$G/sum-float32-sequential-n1000.golden"; } > edited && mv edited "$G/sum-float32-pairwise-n1000.golden"
# A nondeterministic target with a golden: it misbehaves. A missing golden: a skip.
sed 's/^case: sum-float32-sequential-n64$/case: sum-float32-nondeterministic-n64/' \
  "$G/sum-float32-sequential-n64.golden" > "$G/sum-float32-nondeterministic-n64.golden"
rm "$G/dot-float32-strided_pairwise-n40.golden"

"$FG" check --html "$OUT/report.html" >out.txt 2>&1; expect_status 1 $? "the gate fails"
expect_in "FAILED reproducibility/demo/ref/sum-float32-pairwise-n1000" out.txt "the edited golden fails"
[ -s "$OUT/report.html" ] && pass "check --html wrote the report" || fail "no report written"
"$FG" check --html /nonexistent-fprev-dir/report.html >out.txt 2>&1
expect_status 2 $? "a report that cannot be written stops the run"

# --- the page in the browser --------------------------------------------------------------------
browser --enable-logging=stderr --v=0 --dump-dom "file://$OUT/report.html" >dom.html 2>console.txt
expect_status 0 $? "Chromium loads the report"
if grep -E "CONSOLE|net::ERR|Not allowed to load" console.txt >errors.txt; then
  fail "the page logged errors:"; sed 's/^/      /' errors.txt
else
  pass "the page loads without console or network errors"
fi
expect_in "<h1>fprev-golden check</h1>" dom.html "the DOM holds the page"
expect_in "3 passed, 3 failed, 1 skipped" dom.html "the summary's closing line"
expect_in "reproducibility/demo/tc/gemm-" dom.html "the GEMM's section"
expect_in "reproducibility/demo/ref/sum-float32-pairwise-n1000: the summation tree changed" dom.html \
  "the failing case's section"
expect_in "reproducibility/demo/ref/sum-float32-nondeterministic-n64: the target misbehaves: nondeterministic" \
  dom.html "the misbehaving case's section"
expect_in "no golden for platform" dom.html "the skip and why"
expect_in '<div class="impact"><p><strong>impact: differs on ' dom.html "the impact of the change beside its picture"
expect_in "<th>alignment</th>" dom.html "the summary table has an alignment column"
expect_in "<td>independent (offsets 0-15 checked)</td>" dom.html "a reference sum's order is independent of the offset"
expect_in "<td>not applicable</td>" dom.html "tcsim places no data: not applicable"
if command -v dot >/dev/null; then
  expect_in "<svg" dom.html "the picture of the diff is inline SVG"
  expect_in "#f4cccc" dom.html "the picture marks what differs"
  # Graphviz names every picture's elements graph0, node1, ...: each inline picture has its own.
  [ "$(grep -o 'id="[^"]*graph0"' dom.html | sort | uniq -d)" = "" ] && pass "no two inline pictures share an id" \
    || fail "inline pictures share ids: $(grep -o 'id="[^"]*graph0"' dom.html | sort | uniq -d | head -3)"
fi
# 1280 px wide, a laptop's width: the pictures are scaled to it (both trees of a diff in view) and
# long lines wrap; the screenshot is kept for people to look at.
browser --screenshot="$OUT/report.png" --window-size=1280,4000 "file://$OUT/report.html" >/dev/null 2>&1
size=$(stat -c %s "$OUT/report.png" 2>/dev/null || echo 0)
[ "$size" -gt 20000 ] && pass "a screenshot of the report ($OUT/report.png, $size bytes)" \
                      || fail "no screenshot (size $size)"

# --- many failures: the page stays small -------------------------------------------------------------
# 144 failing GEMMs once made a 13.9 MB page (every picture twice). Now the page embeds the first 20
# pictures, each once, and the others are files beside it, linked and loaded lazily.
if command -v dot >/dev/null; then
  mkdir -p "$WORK/many/suites" && cd "$WORK/many"
  printf 'suite: many\nbackends:\n  - name: tc\n    use: tcsim\n    arch: volta\ncases:\n  - op: gemm\n    dtype: [float16, bfloat16]\n    m: 16\n    n: 16\n    k: [32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 256]\n' \
    >suites/many.yaml
  "$FG" update >/dev/null 2>&1
  sed -i 's/arch: volta/arch: hopper/' suites/many.yaml
  mkdir -p reports/many-pictures && echo keep >reports/many-pictures/notes.txt && echo old >reports/many-pictures/picture-99.svg
  "$FG" check --html reports/many.html >out.txt 2>&1; expect_status 1 $? "24 GEMMs fail"
  expect_in "0 passed, 24 failed, 0 skipped" out.txt "every case fails with a picture to draw"
  embedded=$(grep -o '<svg' reports/many.html | wc -l)
  [ "$embedded" -eq 20 ] && pass "the page embeds 20 pictures, each once" || fail "the page embeds $embedded SVGs, not 20"
  linked=$(grep -o '<img loading="lazy" src="many-pictures/picture-[0-9]*.svg"' reports/many.html | wc -l)
  [ "$linked" -eq 4 ] && pass "the other 4 are linked, loaded lazily" || fail "$linked pictures linked lazily, not 4"
  files=$(ls reports/many-pictures/picture-*.svg 2>/dev/null | wc -l)
  [ "$files" -eq 4 ] && pass "4 picture files beside the page (the last run's picture-99.svg removed)" \
    || fail "$files picture files beside the page: $(ls reports/many-pictures)"
  [ -f reports/many-pictures/notes.txt ] && pass "other files in that folder are left alone" || fail "notes.txt was removed"
  for f in reports/many-pictures/picture-*.svg; do
    grep -q '</svg>' "$f" || fail "$f is not a whole SVG"
  done
  # The bound: 20 pictures once each (none larger than the largest file) and 300 kB of text.
  page=$(stat -c %s reports/many.html)
  largest=$(for f in reports/many-pictures/picture-*.svg; do stat -c %s "$f"; done | sort -n | tail -1)
  [ "$page" -lt $((20 * largest + 300000)) ] \
    && pass "the page is small: $page bytes for 24 failures" || fail "the page is $page bytes (largest picture $largest)"
  expect_not_in "<!--" reports/many.html "no Graphviz comments in the page"
  browser --enable-logging=stderr --v=0 --dump-dom "file://$WORK/many/reports/many.html" >dom.html 2>console.txt
  if grep -E "CONSOLE|net::ERR|Not allowed to load" console.txt >errors.txt; then
    fail "the page with linked pictures logged errors:"; sed 's/^/      /' errors.txt
  else
    pass "the page with linked pictures loads without errors"
  fi
  cd "$WORK/project"
fi

# --- the diff picture of a changed OpenBLAS order --------------------------------------------------
c=gemm-float64-beta0-nn-m64n64k1001.golden
"$FG" diff "$ROOT/golden/sandybridge-t1/blas-cpu/openblas-sandybridge/$c" \
  "$ROOT/golden/haswell-t1/blas-cpu/openblas-haswell/$c" --format dot >diff.dot 2>&1
expect_status 1 $? "diff --format dot of Sandybridge and Haswell exits 1 (they differ)"
expect_in "subgraph cluster_1" diff.dot "both trees side by side"
if command -v dot >/dev/null; then
  "$FG" diff "$ROOT/golden/sandybridge-t1/blas-cpu/openblas-sandybridge/$c" \
    "$ROOT/golden/haswell-t1/blas-cpu/openblas-haswell/$c" --format svg --output "$OUT/diff.svg" >out.txt 2>&1
  expect_status 1 $? "diff --format svg --output"
  expect_in "<svg" "$OUT/diff.svg" "the diff picture is SVG"
  browser --screenshot="$OUT/diff.png" --window-size=1600,900 "file://$OUT/diff.svg" >/dev/null 2>&1
  [ -s "$OUT/diff.png" ] && pass "Chromium renders the diff picture" || fail "no screenshot of the diff picture"
  # A sequential tree beside a pairwise one: the summands in index order in both panels.
  sequential='0'; for i in $(seq 1 14); do sequential="($sequential $i)"; done
  "$FG" diff "$("$FG" reveal --backend reference --order pairwise --n 15)" "$sequential" --format svg \
    --output "$OUT/sequential.svg" >out.txt 2>&1
  order=$(sed -n '/<title>p1_[0-9]*<\/title>/{n;p}' "$OUT/sequential.svg" |
          sed -n 's/.* x="\([-0-9.]*\)".*>\(x[0-9]*\)<.*/\1 \2/p' | sort -n | awk '{printf "%s ", $2}')
  [ "$order" = "x0 x1 x2 x3 x4 x5 x6 x7 x8 x9 x10 x11 x12 x13 x14 " ] && pass "the sequential tree's summands in order" \
    || fail "the sequential tree's summands out of order: $order"
  browser --screenshot="$OUT/sequential.png" --window-size=1600,900 "file://$OUT/sequential.svg" >/dev/null 2>&1
fi
finish html-report
