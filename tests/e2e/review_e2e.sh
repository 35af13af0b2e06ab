#!/usr/bin/env bash
# End to end, the review loop in a scratch copy of a small project: check keeps the revealed result
# of every failing or missing case as <case>.golden.new (never in CI unless asked; --pending-dir
# mirrors the layout elsewhere), a case that passes again leaves none; review walks them with
# scripted answers (picture, accept, reject, skip); accept and reject take the filters; accepting
# refuses a golden that changed since check and a file moved to another case's name; the gate is
# green again. Obsolete goldens: --unreferenced=warn|fail|delete (delete only what reads as a
# golden of its path, of the selected suites, never in CI without --force).
# usage: review_e2e.sh <fprev-golden>
set -uo pipefail
FG=$1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
unset CI FPREV_STRICT FPREV_SUITES FPREV_GOLDEN_DIR FPREV_PENDING_DIR
source "$(dirname "$0")/e2e_lib.sh"
pending_files() { find "${1:-golden}" -name '*.golden.new' 2>/dev/null | sort; }
expect_pending() {  # expected count, what [, directory]
  local n; n=$(pending_files "${3:-golden}" | wc -l)
  if [ "$n" -eq "$1" ]; then pass "$2 ($n pending)"; else fail "$2: $n pending files, expected $1:"; pending_files "${3:-golden}" | sed 's/^/      /'; fi
}
# An older library's order for a pairwise sum: ((0 2) (1 3)) where the golden has ((0 1) (2 3)).
edit_tree() {
  sed -i -e 's/^n0\.2 = (0 1)$/n0.2 = (0 2)/' -e 's/^n2\.2 = (2 3)$/n1.2 = (1 3)/' \
         -e 's/^n0\.4 = (n0\.2 n2\.2)$/n0.4 = (n0.2 n1.2)/' -e 's/^sexpr: ((((0 1) (2 3))/sexpr: ((((0 2) (1 3))/' "$1"
}

cd "$WORK"
mkdir project && cd project
small_project
G=golden/any/small/ref
N16=$G/sum-float32-pairwise-n16 N64=$G/sum-float32-pairwise-n64 SEQ=$G/sum-float32-sequential-n16

"$FG" update >out.txt 2>&1; expect_status 0 $? "update creates the goldens"
git add -A && git commit -qm baseline
"$FG" check >out.txt 2>&1; expect_status 0 $? "the gate passes"
expect_pending 0 "a green gate keeps no pending results"

# --- check keeps what it revealed for failing and missing cases ---------------------------------
edit_tree "$N16.golden"; edit_tree "$N64.golden"; rm "$SEQ.golden"
git commit -qam "an older library's orders, one golden missing"
"$FG" show "$N16.golden" --format sexpr >/dev/null 2>&1; expect_status 0 $? "the edited golden is a valid tree"
"$FG" check >out.txt 2>&1; expect_status 1 $? "check fails"
expect_pending 3 "check keeps the two changed trees and the missing golden"
expect_in "kept for review: $N64.golden.new" out.txt "the failure says where the result was kept"
expect_in "kept for review: $SEQ.golden.new" out.txt "so does the skip"
expect_in "3 pending result(s) to review: $FG review" out.txt "the summary names the review command"
[ "$(tail -n1 out.txt)" = "2 passed, 2 failed, 1 skipped" ] && pass "the closing line stays last" ||
  fail "last line: $(tail -n1 out.txt)"
"$FG" list --json >/dev/null 2>&1
"$FG" check --json >out.json 2>&1
expect_in '"obsolete_goldens": []' out.json "pending files are never taken for (obsolete) goldens"
"$FG" diff "$N64.golden" "$N64.golden.new" >out.txt 2>&1; expect_status 1 $? "a pending file reads as a golden for diff"
expect_in "((0 2) (1 3))" out.txt "diff shows the golden's subtree"
[ -z "$(git status --porcelain --ignored=no -- golden | grep -v '^??')" ] && pass "check changed no golden" ||
  fail "check changed goldens: $(git status --porcelain -- golden)"

# --- CI: none unless asked; --pending-dir mirrors the layout ---------------------------------------
rm -f golden/any/small/ref/*.golden.new
CI=true "$FG" check >out.txt 2>&1; expect_status 1 $? "check fails in CI too"
expect_pending 0 "check in CI keeps nothing"
expect_not_in "pending result(s) to review" out.txt "and says nothing about review"
CI=true "$FG" check --pending-dir artifacts >out.txt 2>&1
expect_pending 3 "--pending-dir in CI keeps them in that directory" artifacts
expect_pending 0 "and none beside the goldens"
[ -f "artifacts/any/small/ref/sum-float32-pairwise-n64.golden.new" ] && pass "the directory mirrors the golden layout" ||
  fail "not mirrored: $(pending_files artifacts)"
expect_in "review --pending-dir artifacts" out.txt "the review command names the directory"
rm -rf artifacts
CI=true FPREV_PENDING_DIR=artifacts "$FG" check >/dev/null 2>&1
expect_pending 3 "FPREV_PENDING_DIR asks for them too" artifacts
rm -rf artifacts
CI=true "$FG" check --pending >/dev/null 2>&1
expect_pending 3 "--pending keeps them beside the goldens in CI"
CI=true "$FG" review </dev/null >out.txt 2>&1; expect_status 2 $? "review refuses in CI"
expect_in "refusing to review pending results in CI" out.txt "the refusal says why"
CI=true "$FG" accept >out.txt 2>&1; expect_status 2 $? "accept refuses in CI"
expect_pending 3 "nothing was accepted in CI"

# --- review with scripted answers ------------------------------------------------------------------
# In path order: pairwise-n16 (picture, then accept), pairwise-n64 (reject), sequential-n16 (skip).
printf 'p\na\nr\ns\n' | "$FG" review --picture-dir pictures >review.txt 2>&1; expect_status 0 $? "review with scripted answers"
expect_in "[1/3] reproducibility/small/ref/sum-float32-pairwise-n16 on platform any" review.txt "review shows the case"
expect_in "the summation tree changed: " review.txt "review says what changed"
expect_in "first difference, over leaves {0..3}:" review.txt "review shows the diff"
expect_in "pending: ((0 1) (2 3))" review.txt "review shows the pending subtree"
expect_in "impact: differs on " review.txt "review says what the change costs numerically"
expect_in "arithmetic: inferred from the results: float32 inputs" review.txt "in the formats the results imply"
expect_in "no golden yet: accepting creates $SEQ.golden" review.txt "review says a missing golden would be created"
picture=$(sed -n 's/.*picture: \(.*\.svg\)$/\1/p; s/.*DOT text: \(.*\.dot\)$/\1/p' review.txt | head -n1)
[ -n "$picture" ] && [ -s "$picture" ] && pass "the picture was written ($(basename "$picture"))" ||
  fail "no picture in the transcript"
[ "$(dirname "$picture")" = pictures ] && pass "--picture-dir keeps it there" || fail "the picture is not under pictures/: $picture"
rm -rf pictures
expect_in "accepted: $N16.golden changed" review.txt "the first is accepted"
expect_in "rejected: removed $N64.golden.new" review.txt "the second is rejected"
expect_in "review: 1 accepted, 1 rejected, 1 left pending" review.txt "review sums up"
git show HEAD~1:"$N16.golden" >base.golden
"$FG" diff base.golden "$N16.golden" >/dev/null 2>&1; expect_status 0 $? "the accepted golden holds the revealed tree again"
[ "$(git diff HEAD -- "$N64.golden")" = "" ] && pass "the rejected case's golden is untouched" || fail "the rejected golden changed"
expect_pending 1 "only the skipped result is left"
[ -f "$SEQ.golden.new" ] && pass "the skipped one is the missing golden's" || fail "wrong file left: $(pending_files)"
printf 'q\n' | "$FG" review >review.txt 2>&1; expect_status 0 $? "quit"
expect_in "stay pending" review.txt "quit leaves it pending"
"$FG" review </dev/null >review.txt 2>&1; expect_status 0 $? "end of input"
expect_pending 1 "the end of the input leaves it pending"

# --- accept and reject by filters --------------------------------------------------------------------
"$FG" accept --case 'nothing-*' >out.txt 2>&1; expect_status 2 $? "accept with a filter matching nothing is an error"
expect_in "no pending results match the filters" out.txt "says so"
"$FG" review --case 'nothing-*' </dev/null >out.txt 2>&1; expect_status 2 $? "review with a filter matching nothing is an error"
"$FG" review --golden "$PWD/no-such-golden-dir" </dev/null >out.txt 2>&1
expect_status 2 $? "review --golden naming no directory is an error"
expect_in "no-such-golden-dir does not exist" out.txt "the missing directory is named"
"$FG" accept --pending-dir "$PWD/no-such-pending-dir" >out.txt 2>&1
expect_status 2 $? "accept --pending-dir naming no directory is an error"
"$FG" accept --case 'sum-*-sequential-*' >out.txt 2>&1; expect_status 0 $? "accept --case"
expect_in "ACCEPTED reproducibility/small/ref/sum-float32-sequential-n16: no golden yet" out.txt "accept names the case"
[ -f "$SEQ.golden" ] && pass "the golden was created" || fail "no golden"
expect_pending 0 "nothing is left pending"
"$FG" check >out.txt 2>&1; expect_status 1 $? "the rejected change still fails"
expect_pending 1 "check keeps it again"
"$FG" reject --backend ref >out.txt 2>&1; expect_status 0 $? "reject --backend"
expect_in "REJECTED reproducibility/small/ref/sum-float32-pairwise-n64" out.txt "reject names the case"
expect_pending 0 "reject removed it"

# A result moved to another case's name is not accepted, not even with --force.
"$FG" check >/dev/null 2>&1
mv "$N64.golden.new" "$G/sum-float32-sequential-n64.golden.new"
"$FG" accept --force >out.txt 2>&1; expect_status 1 $? "accept refuses a file moved to another case's name"
expect_in "its case is 'sum-float32-pairwise-n64' but its path names 'sum-float32-sequential-n64'" out.txt "and says why"
[ -z "$(git status --porcelain -- "$G/sum-float32-sequential-n64.golden")" ] && pass "that golden is untouched" ||
  fail "accept wrote another case's golden"
"$FG" reject >/dev/null 2>&1

# Accepting refuses a golden that changed since check kept the result (a pull, another update).
"$FG" check >/dev/null 2>&1
expect_pending 1 "the changed tree is pending again"
git show HEAD~1:"$N64.golden" >"$N64.golden"   # a pull brings another golden
sum_before=$(md5sum <"$N64.golden")
"$FG" accept >out.txt 2>&1; expect_status 1 $? "accept refuses a golden that changed since check"
expect_in "changed since check wrote this pending result" out.txt "the refusal says why"
[ "$(md5sum <"$N64.golden")" = "$sum_before" ] && pass "the changed golden is untouched" || fail "accept overwrote it"
expect_pending 1 "the pending result stays"
"$FG" accept --force >out.txt 2>&1; expect_status 0 $? "accept --force accepts over it"
"$FG" check >out.txt 2>&1; expect_status 0 $? "the gate is green again"
expect_pending 0 "and keeps nothing"
git add -A && git commit -qm reviewed

# A case that passes again leaves no stale pending result; --no-pending keeps and removes none.
edit_tree "$N64.golden"
"$FG" check >/dev/null 2>&1
expect_pending 1 "a failing case is pending"
git checkout -q -- golden
"$FG" check --no-pending >/dev/null 2>&1; expect_status 0 $? "--no-pending: green"
expect_pending 1 "--no-pending leaves the stale file"
"$FG" check >/dev/null 2>&1; expect_status 0 $? "green"
expect_pending 0 "the case passes again: its pending result is gone"
"$FG" check >/dev/null 2>&1 && rm "$SEQ.golden" && "$FG" check >/dev/null 2>&1
expect_pending 1 "missing golden kept"
"$FG" update --case 'sum-*-sequential-n16' >/dev/null 2>&1
expect_pending 0 "update removes the pending result of the golden it wrote"

# --- obsolete goldens -------------------------------------------------------------------------------
git add -A && git commit -qm "before obsolete" >/dev/null
sed -i '/op: dot/,$d' suites/small.yaml            # the dot case is gone
DOT=$G/dot-float32-strided_pairwise-n40.golden
mkdir -p golden/any/other/ref && cp "$SEQ.golden" golden/any/other/ref/   # a suite this run does not load
sed 's/^case: .*/case: conflicted/' "$SEQ.golden" | sed '3i <<<<<<< HEAD' >"$G/conflicted.golden"
sed 's/^case: .*/case: somewhere-else/' "$SEQ.golden" >"$G/misnamed.golden"
"$FG" check >out.txt 2>&1; expect_status 0 $? "--unreferenced=warn (the default) does not fail"
expect_in "3 obsolete golden(s)" out.txt "the obsolete goldens are listed"
expect_in "$DOT" out.txt "by path"
expect_not_in "golden/any/other" out.txt "goldens of suites not loaded are not obsolete"
"$FG" check --unreferenced=fail >out.txt 2>&1; expect_status 1 $? "--unreferenced=fail fails"
expect_in "FAILED: 3 obsolete golden(s)" out.txt "and says why"
"$FG" check --unreferenced=delete --case 'nothing' >out.txt 2>&1; expect_status 2 $? "a filter matching no case is still an error"
CI=true "$FG" check --unreferenced=delete >out.txt 2>&1; expect_status 2 $? "--unreferenced=delete refuses in CI"
expect_in "refusing to delete obsolete goldens in CI" out.txt "the refusal says why"
[ -f "$DOT" ] && pass "nothing was deleted in CI" || fail "deleted in CI"
"$FG" check --unreferenced=delete --case 'sum-*' >out.txt 2>&1; expect_status 0 $? "delete with a case filter"
[ -f "$DOT" ] && pass "an obsolete golden outside the case filter is kept" || fail "deleted outside the filter"
"$FG" check --unreferenced=delete >out.txt 2>&1; expect_status 1 $? "delete fails when some cannot be deleted safely"
expect_in "deleted 1 obsolete golden(s)" out.txt "it reports what it deleted"
[ ! -e "$DOT" ] && pass "the obsolete golden is deleted" || fail "still there"
expect_in "$G/conflicted.golden: it does not read as a golden" out.txt "a file that does not parse is kept"
expect_in "$G/misnamed.golden: its metadata names another case" out.txt "a file naming another case is kept"
[ -f "$G/conflicted.golden" ] && [ -f "$G/misnamed.golden" ] && pass "both are still there" || fail "deleted unsafe files"
[ -f golden/any/other/ref/sum-float32-sequential-n16.golden ] && pass "another suite's golden is untouched" || fail "deleted another suite's golden"
rm "$G/conflicted.golden" "$G/misnamed.golden"
git checkout -q -- golden suites
sed -i '/op: dot/,$d' suites/small.yaml
CI=true "$FG" check --unreferenced=delete --force >out.txt 2>&1; expect_status 0 $? "--force deletes in CI"
[ ! -e "$DOT" ] && pass "deleted with --force" || fail "not deleted with --force"

finish review
