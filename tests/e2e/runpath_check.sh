#!/usr/bin/env bash
# No relative search path in a binary (issue 26): an empty RUNPATH or RPATH entry means "the
# current directory" to the dynamic linker, so a libgcc_s.so.1 or libblas.so.3 in whatever
# directory the gate runs from would be loaded, its constructors run. Every entry must be
# absolute or start with $ORIGIN. Checks the files given (executables, shared libraries, modules);
# e2e/runpath runs it on the build tree, scripts/test-package on the installed package.
# usage: runpath_check.sh FILE...
set -uo pipefail
failures=0
for file in "$@"; do
  # "Library runpath: [a:b]" / "Library rpath: [...]"; none at all is fine.
  paths=$(readelf -d "$file" 2>/dev/null | sed -n 's/.*Library \(runpath\|rpath\): \[\(.*\)\]$/\2/p')
  bad=""
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    # Split on ':' keeping empty fields: "a::b", ":a" and "a:" all hold an empty entry.
    IFS=':' read -r -a entries <<<"$line:"
    count=$(( $(tr -cd ':' <<<"$line" | wc -c) + 1 ))
    for ((k = 0; k < count; k++)); do
      entry=${entries[k]:-}
      case "$entry" in
        /*|'$ORIGIN'|'$ORIGIN/'*) ;;
        *) bad="$bad '${entry}'" ;;
      esac
    done
  done <<<"$paths"
  if [ -n "$bad" ]; then
    echo "FAIL - $file: relative or empty search path entries:$bad (in: $paths)"
    failures=$((failures + 1))
  else
    echo "ok   - $file: no relative search path (${paths:-none})"
  fi
done
exit $((failures > 0))
