#!/usr/bin/env python3
"""Check that every row of a results table in the docs names a committed record.

The rule, in full:

  * Files read (relative to ROOT, the repository by default): README.md, RESULTS*.md,
    experiments/RESULTS*.md, models/README.md and docs/*.md, those that exist.
  * A results table is a markdown table (a `|` header row, then a `|---|` separator row)
    whose header has a column named `record` (any case). That column is how a table says
    its rows are measurements; a table of reference facts (keys, commands, files) has none.
  * Every body row of a results table must name, in its `record` cell, at least one
    committed path: a path in backticks (relative to ROOT) or a markdown link target
    (relative to the document). Committed means `git ls-files` lists it (a directory counts
    when it holds a listed file); where ROOT is not in a git work tree, that it exists. A
    packed games folder's SGFs (`RUN/sgf/NAME`, `RUN/sgf`) count when its committed
    `RUN/sgf.tar.xz` holds them (`akushu runs pack`).
    A `#anchor` or trailing `/` is ignored; a backticked command counts when one of its
    words is such a path (`akushu eval --csv models/x.csv` names `models/x.csv`).
  * A row breaking the rule is printed as FILE:LINE with its first cell and its figures
    (the numbers in the row), and the script exits 1. Bad usage exits 2.

Fenced code blocks are skipped. The check says that a record is named and committed, not
that it holds the figure: reading the record is the reviewer's part.

Usage: python3 scripts/check-claims.py [--root DIR]
"""

import argparse
import glob
import os
import re
import subprocess
import sys
import tarfile

DOC_PATTERNS = [
    "README.md",
    "RESULTS*.md",
    "experiments/RESULTS*.md",
    "models/README.md",
    "docs/*.md",
]
RECORD_HEADERS = {"record"}
SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
FIGURE = re.compile(r"\d[\d,]*(?:\.\d+)?")


def split_cells(line):
    """The cells of a table row: split at `|` outside backticks and not escaped."""
    cells, cell, in_code, i = [], [], False, 0
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] == "|":
            cell.append("|")
            i += 2
            continue
        if ch == "`":
            in_code = not in_code
        if ch == "|" and not in_code:
            cells.append("".join(cell).strip())
            cell = []
        else:
            cell.append(ch)
        i += 1
    cells.append("".join(cell).strip())
    return cells


class Committed:
    """Which paths under ROOT are committed (tracked by git, or on disk outside git)."""

    def __init__(self, root):
        self.root = os.path.abspath(root)
        self.files = None
        # Member names of the packed archives read so far, by ROOT-relative archive path.
        self.members = {}
        try:
            out = subprocess.run(
                ["git", "-C", self.root, "ls-files", "-z"],
                capture_output=True,
                check=True,
            ).stdout.decode("utf-8", "replace")
        except (OSError, subprocess.CalledProcessError):
            return
        self.files = set()
        self.dirs = set()
        for name in filter(None, out.split("\0")):
            self.files.add(name)
            parent = os.path.dirname(name)
            while parent:
                self.dirs.add(parent)
                parent = os.path.dirname(parent)

    def has(self, rel):
        """Whether the ROOT-relative path `rel` is committed."""
        rel = os.path.normpath(rel)
        if rel.startswith("..") or os.path.isabs(rel) or rel == ".":
            return False
        if self.files is None:
            found = os.path.exists(os.path.join(self.root, rel))
        else:
            found = rel in self.files or rel in self.dirs
        return found or self.packed(rel)

    def packed(self, rel):
        """Whether `rel` is `RUN/sgf` or `RUN/sgf/NAME` of a committed `RUN/sgf.tar.xz`
        holding it (the archive's members are `sgf/NAME`)."""
        if os.path.basename(rel) == "sgf":
            run, member = os.path.dirname(rel), None
        elif os.path.basename(os.path.dirname(rel)) == "sgf":
            run, member = os.path.dirname(os.path.dirname(rel)), "sgf/" + os.path.basename(rel)
        else:
            return False
        archive = os.path.join(run, "sgf.tar.xz")
        if not self.has(archive):
            return False
        if member is None:
            return True
        if archive not in self.members:
            with tarfile.open(os.path.join(self.root, archive), "r:xz") as tar:
                self.members[archive] = set(tar.getnames())
        return member in self.members[archive]


def named_paths(cell, doc_dir):
    """Candidate ROOT-relative paths a cell names: backticked words and link targets."""
    found = []
    for code in re.findall(r"`([^`]+)`", cell):
        # A command's words: only those shaped like a path (a `/` or a `.`) are candidates.
        found.extend(w for w in code.split() if "/" in w or "." in w)
    for target in re.findall(r"\]\(([^)\s]+)\)", cell):
        found.append(os.path.join(doc_dir, target))
    cleaned = []
    for path in found:
        path = path.split("#", 1)[0].strip().strip("'\",;:()").rstrip("/")
        if path.startswith("./"):
            path = path[2:]
        if path and path not in cleaned:
            cleaned.append(path)
    return cleaned


def tables(lines):
    """Yield (header line index, header cells, [(line index, cells)]) for every table."""
    i, fenced = 0, False
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            fenced = not fenced
            i += 1
            continue
        if (
            not fenced
            and line.lstrip().startswith("|")
            and i + 1 < len(lines)
            and SEPARATOR.match(lines[i + 1])
        ):
            header = split_cells(line)
            rows = []
            j = i + 2
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                rows.append((j, split_cells(lines[j])))
                j += 1
            yield i, header, rows
            i = j
            continue
        i += 1


def check_file(root, rel, committed):
    """One document's results-table rows checked: (rows, ['FILE:LINE: ...' problems])."""
    problems, checked = [], 0
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        lines = f.read().split("\n")
    doc_dir = os.path.dirname(rel)
    for _, header, rows in tables(lines):
        columns = [k for k, name in enumerate(header) if name.strip("* ").lower() in RECORD_HEADERS]
        if not columns:
            continue
        for line_index, cells in rows:
            checked += 1
            record = " ".join(cells[k] for k in columns if k < len(cells))
            paths = named_paths(record, doc_dir)
            if any(committed.has(p) for p in paths):
                continue
            first = cells[0] if cells else ""
            figures = ", ".join(FIGURE.findall(" ".join(cells[1:]))) or "none"
            why = (
                "names no committed record"
                if not paths
                else "names no committed record (not committed: " + ", ".join(paths) + ")"
            )
            problems.append(
                f"{rel}:{line_index + 1}: row {first!r} {why}; figures: {figures}"
            )
    return checked, problems


def documents(root):
    """The documents the rule reads, ROOT-relative, in a fixed order."""
    seen = []
    for pattern in DOC_PATTERNS:
        for path in sorted(glob.glob(os.path.join(root, pattern))):
            rel = os.path.relpath(path, root)
            if os.path.isfile(path) and rel not in seen:
                seen.append(rel)
    return seen


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    if not os.path.isdir(root):
        print(f"check-claims: --root {args.root}: not a directory", file=sys.stderr)
        return 2
    committed = Committed(root)
    docs = documents(root)
    if not docs:
        print(f"check-claims: no documents under {root} ({', '.join(DOC_PATTERNS)})", file=sys.stderr)
        return 2
    problems = []
    rows = 0
    for rel in docs:
        checked, found = check_file(root, rel, committed)
        rows += checked
        problems.extend(found)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-claims: {len(problems)} of {rows} results-table rows name no committed record")
        return 1
    print(f"check-claims: {rows} results-table rows in {len(docs)} documents, each names a committed record")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
