#!/usr/bin/env bash
# The public headers' digest in the generated fprev/version.hpp, recomputed from the sources with
# sha256sum the way framework/CMakeLists.txt documents it: SHA-256 over the lines
# "<path under include/> <SHA-256 of the file>", paths in byte order, first 16 hex digits.
# Fails when the build's digest is stale (a header changed and the configuration did not re-run)
# or computed differently: then a backend module built against other headers would be accepted.
#   headers_digest_test.sh <framework/include> <generated fprev/version.hpp>
set -euo pipefail
include_dir=$1
version_header=$2
expected=$(cd "$include_dir" && find . -name '*.hpp' -type f | sed 's|^\./||' | LC_ALL=C sort |
  while IFS= read -r header; do
    printf '%s %s\n' "$header" "$(sha256sum < "$header" | cut -d' ' -f1)"
  done | sha256sum | cut -c1-16)
built=$(sed -n 's/^#define FPREV_HEADERS_DIGEST "\([0-9a-f]*\)"$/\1/p' "$version_header")
if [ "$built" != "$expected" ]; then
  echo "headers digest in $version_header: '$built'; the headers in $include_dir give '$expected'" >&2
  exit 1
fi
echo "headers digest $built matches the $(cd "$include_dir" && find . -name '*.hpp' -type f | wc -l) public headers"
