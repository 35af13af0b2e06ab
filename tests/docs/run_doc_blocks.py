#!/usr/bin/env python3
"""Runs every ```sh block of README.md and docs/*.md as a user would after the two commands.

Usage: run_doc_blocks.py SOURCE_DIR BUILD_DIR [--list] [FILE...]

docs/docs-test.md describes the conventions: the blocks run one at a time, each in a fresh
`bash -e -o pipefail`, in a scratch copy of the repository whose `build` points at BUILD_DIR, with
build/framework/cli on PATH and CI and every FPREV_* variable unset. An HTML comment on the line before a block
changes what is expected of it:
  <!-- docs-test: skip (why) -->   not run (the reason is required)
  <!-- docs-test: exit N -->       the block ends with exit status N
Exit status: 0 when every block did what was expected, 1 otherwise (each failure names file:line).
It also checks that every relative link of these pages, SECURITY.md and the backends' and examples'
READMEs names a file that exists and, for a Markdown page, one of its headings.
"""
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

MARKER = re.compile(r"^<!--\s*docs-test:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)```(.*)$")
BLOCK_TIMEOUT_S = 60
COPIED = ["suites", "golden", "docs", "examples", "README.md", "SECURITY.md"]


class Block:
    def __init__(self, path, line, language, text, marker):
        self.path, self.line, self.language, self.text, self.marker = path, line, language, text, marker

    def where(self):
        return f"{self.path}:{self.line}"


def blocks_of(path, relative):
    """Every fenced block of a Markdown file, with the marker on the line before it, if any."""
    lines = path.read_text(encoding="utf-8").split("\n")
    found, i = [], 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, language = opening.group(1), opening.group(2).strip().split(" ")[0]
        marker = None
        if i > 0 and (m := MARKER.match(lines[i - 1].strip())):
            marker = m.group(1)
        body, j = [], i + 1
        while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
            j += 1
        if j == len(lines):
            raise SystemExit(f"{relative}:{i + 1}: a code block that is never closed")
        found.append(Block(relative, i + 1, language, "\n".join(body) + "\n", marker))
        i = j + 1
    return found


def expectation(block):
    """(run, expected exit status); a SystemExit names a marker that is not understood."""
    if block.marker is None:
        return True, 0
    if m := re.fullmatch(r"skip \((.+)\)", block.marker):
        return False, None
    if m := re.fullmatch(r"exit (\d+)", block.marker):
        # bash -e stops at the first failing command: a block expected to fail holds one command,
        # so no command after it goes untested.
        commands = [l for l in block.text.split("\n") if l.strip() and not l.strip().startswith("#")]
        continued = sum(1 for l in commands if l.rstrip().endswith("\\"))
        if len(commands) - continued != 1:
            raise SystemExit(f"{block.where()}: a block marked 'exit {m.group(1)}' must hold one command "
                             "(the first failing command ends the block; docs/docs-test.md)")
        return True, int(m.group(1))
    raise SystemExit(f"{block.where()}: unknown docs-test marker '{block.marker}' "
                     "(allowed: 'skip (why)', 'exit N'; docs/docs-test.md)")


LINK = re.compile(r"\]\(([^)\s]+)\)")


def github_anchor(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors_of(path):
    anchors, fenced = set(), False
    for line in path.read_text(encoding="utf-8").split("\n"):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and (m := re.match(r"^#+\s+(.*)$", line)):
            anchors.add(github_anchor(m.group(1)))
    return anchors


def broken_links(source):
    """Relative links of the README, the guide and the backends' READMEs whose file or heading is missing."""
    pages = [source / "README.md", source / "SECURITY.md"] + sorted((source / "docs").glob("*.md")) + \
        sorted(source.glob("backends/*/README.md")) + sorted(source.glob("examples/*/README.md"))
    broken = []
    for page in pages:
        if not page.exists():
            continue
        fenced = False
        for number, line in enumerate(page.read_text(encoding="utf-8").split("\n"), 1):
            if FENCE.match(line):
                fenced = not fenced
            if fenced:
                continue
            for target in LINK.findall(line):
                if re.match(r"^[a-z]+:", target):
                    continue  # https:, mailto:
                file, _, anchor = target.partition("#")
                resolved = (page.parent / file).resolve() if file else page
                where = f"{page.relative_to(source)}:{number}"
                if not resolved.exists():
                    broken.append(f"{where}: the link {target} names no file")
                elif anchor and resolved.suffix == ".md" and anchor not in anchors_of(resolved):
                    broken.append(f"{where}: the link {target} names no heading of {file or 'this page'}")
    return broken


def scratch_copy(source, build):
    root = pathlib.Path(tempfile.mkdtemp(prefix="fprev-docs-test-"))
    for name in COPIED:
        src = source / name
        if src.is_dir():
            shutil.copytree(src, root / name, symlinks=True)
        elif src.exists():
            shutil.copy2(src, root / name)
    (root / "build").symlink_to(build.resolve())
    return root


def run_block(block, root, expected):
    # A developer's shell: no CI, and none of the FPREV_* variables a test run may carry (the
    # pending folder, strict mode, suite and golden paths).
    environment = {k: v for k, v in os.environ.items() if k != "CI" and not k.startswith("FPREV_")}
    environment["PATH"] = f"{root / 'build/framework/cli'}:{environment.get('PATH', '')}"
    started = time.monotonic()
    # stdin empty: `review` reads its answers from it, and ends at its end. A session of its own,
    # so a block past its time is killed with everything it started.
    process = subprocess.Popen(["bash", "-e", "-o", "pipefail", "-c", block.text], cwd=root, env=environment,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               start_new_session=True)
    try:
        stdout, _ = process.communicate(timeout=BLOCK_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, _ = process.communicate()
        return False, f"ran past {BLOCK_TIMEOUT_S} s", stdout.decode(errors="replace")
    done = subprocess.CompletedProcess(process.args, process.returncode, stdout)
    seconds = time.monotonic() - started
    output = done.stdout.decode(errors="replace")
    if done.returncode != expected:
        return False, f"exit status {done.returncode}, expected {expected} ({seconds:.1f} s)", output
    return True, f"{seconds:.1f} s", output


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    source, build = pathlib.Path(argv[1]).resolve(), pathlib.Path(argv[2])
    rest = argv[3:]
    list_only = "--list" in rest
    files = [a for a in rest if a != "--list"] or \
        ["README.md"] + sorted(str(p.relative_to(source)) for p in (source / "docs").glob("*.md"))
    blocks = []
    for relative in files:
        blocks += [b for b in blocks_of(source / relative, relative) if b.language == "sh"]
    if list_only:
        for b in blocks:
            run, expected = expectation(b)
            print(f"{b.where()}: {'run, exit ' + str(expected) if run else 'skip: ' + b.marker}")
        return 0
    failures = ran = skipped = 0
    for problem in broken_links(source):  # pages moved into the guide keep every link working
        print(f"FAIL {problem}")
        failures += 1
    root, root_file = None, None
    try:
        for b in blocks:
            if b.path != root_file:  # each page starts from a fresh copy: pages never depend on each other
                if root:
                    shutil.rmtree(root, ignore_errors=True)
                root, root_file = scratch_copy(source, build), b.path
            run, expected = expectation(b)
            if not run:
                skipped += 1
                print(f"skip {b.where()}: {b.marker}")
                continue
            ran += 1
            ok, summary, output = run_block(b, root, expected)
            print(f"{'ok  ' if ok else 'FAIL'} {b.where()}: {summary}", flush=True)
            if not ok:
                failures += 1
                print("  the block:\n" + "".join("    " + l + "\n" for l in b.text.rstrip("\n").split("\n")))
                print("  its output (the last 40 lines):\n" +
                      "".join("    " + l + "\n" for l in output.rstrip("\n").split("\n")[-40:]))
    finally:
        if root:
            shutil.rmtree(root, ignore_errors=True)
    print(f"{ran} blocks ran, {failures} failed, {skipped} skipped by their marker")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
