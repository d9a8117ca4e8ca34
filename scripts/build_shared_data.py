#!/usr/bin/env python3
"""Build the shared 9x9 game records (`../shared/data/`) from public repositories' checkouts.

    python3 scripts/build_shared_data.py --teeny-go DIR --gnugo DIR --fuego DIR --out DIR

`scripts/build-shared-data.sh` is the documented entry point; this file does the work with
the standard library only (tarfile, lzma, csv, subprocess for `git`). Writes three files:

- `ogs9x9.tar.xz`: `ogs9x9/ogs_<game id>.sgf`, one per OGS game, ordered by game id.
- `ogs9x9_index.csv.xz`: one row per game of that archive (columns below).
- `engine9x9.tar.xz`: `gnugo_regression/regression/games/...`,
  `fuego_regression/regression/sgf/...` and `cgos_teenygo_sample/<n>.sgf`, in that order,
  each part sorted by path.

Sources (checkouts of `Gregory-Eales/teeny-go`, GNU Go and Fuego):

- OGS games: the teeny-go subsets `data/ogs_games`, `data/15k_min_ogs_games`,
  `data/strict_ogs_games`, `data/bot_games` (in the checkout) and `data/ogs_dan_games`,
  which the repository deleted in September 2020: taken from the checkout when present
  there (e.g. a worktree of an older commit), else from the last commit of the checkout's
  git history that holds it. One file per game id is kept: the 2020 dan scrape's copy
  first, then the other subsets' (identical where both are real games). Error stubs (JSON
  `detail` replies, HTML error pages, `Error: ...` text: anything not starting with `(;`)
  and games whose `SZ` is not 9 are dropped; a game id left with no real copy is dropped.
- Engine games: every `.sgf` under GNU Go's `regression/games` and Fuego's
  `regression/sgf` that is a full 9x9 game: `SZ[9]`, no setup stones (`AB`/`AW`/`AE`,
  which mark a problem position) and at least 20 main-line moves (the suites also hold
  cut-off games); and the CGOS games teeny-go kept in `depreciated/GoSampleData` (history
  only, as above), 9x9 without setup stones, whatever their length (whole server games,
  one lost on time after 16 moves). Files are copied byte for byte.

Index columns, and how each is derived:

- `game_id`: from the file name `ogs_<id>.sgf`.
- `subsets`: every subset holding a file of that id, error stubs included, sorted, `+`-joined.
- `rank_source`: `2020` when the kept copy is the 2020 dan scrape's, else `head` (the
  subsets still in the repository).
- `DT, SZ, HA, KM, RU, RE, TM, OT, PB, PW`: the root node's first value of each, as
  written (SGF escapes such as `\\]` kept, as in the shared index) and trimmed; empty when
  absent. Stray text (outside any value, e.g. after an unescaped `]` in a name) is
  skipped, not fatal.
- `BR_raw`, `WR_raw`: the root's `BR`/`WR`, the same way.
- `BR`, `WR`: corrected ranks. The `head` scrape mirrored kyu ranks: a file saying `Nk`
  means `(30-N)k` (so `0k` is 30k and `-3k` is 33k). Found by comparing the games present in
  both scrapes: the 2020 copy of the same game says `3k` where the `head` copy says `27k`.
  Dan ranks and the 2020 scrape are kept as written; `?` stays `?`.
- `BR_num`, `WR_num`: 1k = 0, 2k = -1, ..., 1d = 1, 2d = 2 (pro ranks `Np` count as 9d + N,
  an assumption: none occur in these files); empty when the rank is unknown.
- `n_moves`: `B`/`W` moves along the main line (first child at each branch), passes
  included, broken coordinates (`B[dundefined]`, in one OGS file) not; `n_pass`: the
  passes among them (`[]` or `[tt]`).
- `has_siblings`: 1 when some node of the parsed tree has more than one child (a real
  variation). Differs on purpose from the shared index, whose 102 flags match the text
  `) (` anywhere in the file (chat comments: a smiley before a bracketed remark); no OGS
  file here has a real variation, so this column is 0 throughout.
- `bot_suspect`: 1 when the game is in `bot_games` or a player name contains one of
  `BOT_NAMES` (case-insensitive). The list was rebuilt from the shared index's suspects
  and reproduces all of its flags; it stays a heuristic (it flags "Abbot", misses bots
  with plain names).
"""

import argparse
import csv
import io
import lzma
import os
import re
import subprocess
import sys
import tarfile

OGS_SUBSETS = ["ogs_games", "15k_min_ogs_games", "strict_ogs_games", "bot_games"]
DAN_SUBSET = "ogs_dan_games"
DAN_PATH = "data/ogs_dan_games"
CGOS_PATH = "depreciated/GoSampleData"
GNUGO_PATH = "regression/games"
FUEGO_PATH = "regression/sgf"
MIN_ENGINE_MOVES = 20

# Substrings of player names that mark a bot. Engine and bot-account names seen in the
# corpus; "bot" alone also catches human names such as "Abbot" (accepted: a suspect flag).
BOT_NAMES = re.compile(
    r"bot|gnugo|gnu go|fuego|leela|katago|kata-|pachi|alphago",
    re.IGNORECASE,
)

INDEX_COLUMNS = (
    "game_id,subsets,rank_source,DT,SZ,HA,KM,RU,RE,BR_raw,WR_raw,BR,WR,BR_num,WR_num,"
    "n_moves,n_pass,has_siblings,bot_suspect,TM,OT,PB,PW"
).split(",")


class BuildError(Exception):
    """A problem with the inputs, reported as one line without a traceback."""


# ---------------------------------------------------------------------------------------
# SGF: just enough to read the root's properties and walk the main line.


# One token of SGF: a bracket, a node mark, or a property with its values (escapes kept).
TOKEN = re.compile(r"\(|\)|;|([A-Za-z]+)\s*((?:\[(?:[^\]\\]|\\.)*\]\s*)+)|\S", re.S)
VALUE = re.compile(r"\[((?:[^\]\\]|\\.)*)\]", re.S)


def parse_sgf(text):
    """Parse the first game tree of `text` into nested `(properties, children)` pairs.

    `properties` maps a property name to its list of values as written (escapes kept).
    Iterative, because OGS writes each move as a nested variation, hundreds of levels deep
    in long games. Raises ValueError on text that is not an SGF tree."""
    start = text.find("(")
    if start < 0 or not text[start + 1 :].lstrip().startswith(";"):
        raise ValueError("no game tree")
    stack = []  # open sequences: the nodes of each so far
    node = None
    for m in TOKEN.finditer(text, start):
        tok = m.group(0)
        if tok == "(":
            stack.append([])
        elif tok == ")":
            if not stack or not stack[-1]:
                raise ValueError("empty or unopened variation")
            seq = stack.pop()
            if not stack:
                return seq[0]
            if not stack[-1]:
                raise ValueError("variation before any node")
            stack[-1][-1][1].append(seq[0])
        elif tok == ";":
            if not stack:
                raise ValueError("node outside a tree")
            node = ({}, [])
            seq = stack[-1]
            if seq:
                seq[-1][1].append(node)
            seq.append(node)
        elif m.group(1):
            if node is None:
                raise ValueError("property before any node")
            # FF[3] allows lower-case letters in names (`AddBlack`): they do not count.
            name = "".join(ch for ch in m.group(1) if ch.isupper())
            node[0].setdefault(name, []).extend(VALUE.findall(m.group(2)))
        # Anything else is stray text (an unescaped `]` inside a player name, say): skipped,
        # as lenient readers do, so that the rest of the record still counts.
    raise ValueError("unterminated game tree")


def main_line_stats(root):
    """(moves, passes, has_siblings) of a parsed tree: moves and passes along the main
    line (first child at each branch), siblings anywhere in the tree."""
    moves = passes = 0
    node = root
    while node is not None:
        props, children = node
        for colour in ("B", "W"):
            for v in props.get(colour, []):
                v = v.strip()
                # A pass, or a point; OGS wrote some broken moves (`B[dundefined]`): skipped.
                if v in ("", "tt"):
                    passes += 1
                elif not re.fullmatch(r"[a-z]{2}", v):
                    continue
                moves += 1
        node = children[0] if children else None
    siblings = False
    todo = [root]
    while todo:
        _, children = todo.pop()
        if len(children) > 1:
            siblings = True
            break
        todo.extend(children)
    return moves, passes, siblings


def root_value(root, name):
    """A root property's first value as written (escapes such as `\\]` kept), trimmed."""
    values = root[0].get(name)
    return values[0].strip() if values else ""


def decode(data):
    """SGF bytes as text: UTF-8 (what OGS writes), else Latin-1 (older engine records)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def board_size(text):
    """The `SZ` of a record as an int, 19 (the SGF default) when absent, None when odd."""
    m = re.search(r"(?<![A-Z])SZ\s*\[\s*([^\]]*?)\s*\]", text)
    if not m:
        return 19
    try:
        return int(m.group(1).split(":")[0])
    except ValueError:
        return None


def is_stub(data):
    """True for a scrape's error reply saved as a game (not an SGF game tree)."""
    return not data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"(;")


# ---------------------------------------------------------------------------------------
# Ranks.


def corrected_rank(raw, source):
    """The rank a player really had: `head` files mirror kyu ranks (`Nk` means `(30-N)k`)."""
    m = re.fullmatch(r"\s*(-?\d+)\s*k\s*", raw, re.IGNORECASE)
    if m and source == "head":
        return f"{30 - int(m.group(1))}k"
    return raw


def rank_number(rank):
    """1k = 0, 2k = -1, ..., 1d = 1, 2d = 2; pro ranks above 9d; "" when unknown."""
    m = re.fullmatch(r"\s*(-?\d+)\s*([kdp])\s*", rank, re.IGNORECASE)
    if not m:
        return ""
    n, kind = int(m.group(1)), m.group(2).lower()
    if kind == "k":
        return str(1 - n)
    if kind == "d":
        return str(n)
    return str(9 + n)


# ---------------------------------------------------------------------------------------
# Reading the checkouts.


def check_dir(flag, path, inner):
    """Fail with a message naming the flag and folder unless `path/inner` is a folder."""
    if not os.path.isdir(path):
        raise BuildError(f"{flag} {path}: no such folder")
    if inner and not os.path.isdir(os.path.join(path, inner)):
        raise BuildError(
            f"{flag} {path}: no {inner}/ folder in it (is it a checkout of the right repository?)"
        )


def folder_files(folder):
    """{relative path: bytes} of every `.sgf` file under `folder`, recursively."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for name in filenames:
            if name.lower().endswith(".sgf"):
                full = os.path.join(dirpath, name)
                with open(full, "rb") as f:
                    out[os.path.relpath(full, folder).replace(os.sep, "/")] = f.read()
    return out


def git(repo, *args):
    return subprocess.run(
        ["git", "-C", repo, *args], check=True, capture_output=True
    ).stdout


def history_files(repo, path, flag):
    """{relative path: bytes} of the `.sgf` files under `path` in the last commit of the
    checkout's history that holds `path` (the folder deleted later), read with git."""
    try:
        top = git(repo, "rev-parse", "--show-toplevel").decode().strip()
    except (OSError, subprocess.CalledProcessError):
        top = None
    # The checkout's own history only: not that of a repository the folder happens to sit in.
    if top is None or os.path.realpath(top) != os.path.realpath(repo):
        raise BuildError(
            f"{flag} {repo}: no {path}/ folder and no git history to take it from "
            "(use a full clone of the repository)"
        ) from None
    last = git(repo, "rev-list", "-1", "HEAD", "--", path).decode().strip()
    if not last:
        raise BuildError(f"{flag} {repo}: {path}/ is in neither the checkout nor its git history")
    commit = last
    if subprocess.run(
        ["git", "-C", repo, "cat-file", "-e", f"{last}:{path}"], capture_output=True
    ).returncode:
        commit = f"{last}^"  # the last change deleted it: take the commit before
    data = git(repo, "archive", "--format=tar", commit, "--", path)
    out = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as t:
        for m in t.getmembers():
            if m.isfile() and m.name.lower().endswith(".sgf"):
                out[m.name[len(path) + 1 :]] = t.extractfile(m).read()
    return out


def teeny_part(repo, path, flag):
    """A teeny-go folder's `.sgf` files: from the checkout, else from its history."""
    here = os.path.join(repo, path)
    if os.path.isdir(here):
        return folder_files(here)
    return history_files(repo, path, flag)


# ---------------------------------------------------------------------------------------
# OGS archive and index.

GAME_FILE = re.compile(r"ogs_(\d+)\.sgf")


def collect_ogs(teeny):
    """{game id: (kept bytes, rank source, sorted subsets)} over all five subsets."""
    copies = {}  # id -> list of (priority, subset, bytes)
    sources = [(0, DAN_SUBSET, teeny_part(teeny, DAN_PATH, "--teeny-go"))]
    for priority, subset in enumerate(OGS_SUBSETS, start=1):
        sources.append((priority, subset, folder_files(os.path.join(teeny, "data", subset))))
    for priority, subset, files in sources:
        for rel, data in files.items():
            m = GAME_FILE.fullmatch(rel)
            if m:
                copies.setdefault(int(m.group(1)), []).append((priority, subset, data))
    games = {}
    for gid, found in copies.items():
        found.sort(key=lambda c: c[0])
        real = [c for c in found if not is_stub(c[2]) and board_size(decode(c[2])) == 9]
        if real:
            source = "2020" if real[0][1] == DAN_SUBSET else "head"
            games[gid] = (real[0][2], source, sorted({c[1] for c in found}))
    return games


def index_row(gid, data, source, subsets):
    """One row of the index (a dict keyed by INDEX_COLUMNS)."""
    text = decode(data)
    try:
        root = parse_sgf(text)
        moves, passes, siblings = main_line_stats(root)
    except ValueError:
        # A record that does not parse keeps its row: the index covers every archived game.
        root, moves, passes, siblings = ({}, []), "", "", False
    plain = ("DT", "SZ", "HA", "KM", "RU", "RE", "TM", "OT", "PB", "PW")
    row = {k: root_value(root, k) for k in plain}
    row.update(game_id=gid, subsets="+".join(subsets), rank_source=source)
    for colour in ("B", "W"):
        raw = root_value(root, colour + "R")
        rank = corrected_rank(raw, source)
        row[colour + "R_raw"] = raw
        row[colour + "R"] = rank
        row[colour + "R_num"] = rank_number(rank)
    bot = "bot_games" in subsets or any(BOT_NAMES.search(row[p]) for p in ("PB", "PW"))
    row.update(
        n_moves=moves, n_pass=passes, has_siblings=int(siblings), bot_suspect=int(bool(bot))
    )
    return row


# ---------------------------------------------------------------------------------------
# Engine archive.


def is_full_game(data, min_moves):
    """A whole 9x9 game: SZ 9, no setup stones, at least `min_moves` moves."""
    text = decode(data)
    if board_size(text) != 9:
        return False
    if re.search(r"(?<![A-Z])A[BWE]\s*\[", text):
        return False
    try:
        moves, _, _ = main_line_stats(parse_sgf(text))
    except ValueError:
        return False
    return moves >= min_moves


def collect_engine(gnugo, fuego, teeny):
    """[(member name, bytes)] of the engine archive, in archive order."""
    # Regression suites also hold cut-off games (a position to test, a few moves): those
    # need MIN_ENGINE_MOVES. CGOS records are whole server games, a short one (lost on
    # time) included.
    parts = [
        ("gnugo_regression/" + GNUGO_PATH, folder_files(os.path.join(gnugo, GNUGO_PATH)),
         MIN_ENGINE_MOVES),
        ("fuego_regression/" + FUEGO_PATH, folder_files(os.path.join(fuego, FUEGO_PATH)),
         MIN_ENGINE_MOVES),
        ("cgos_teenygo_sample", teeny_part(teeny, CGOS_PATH, "--teeny-go"), 1),
    ]
    members = []
    for prefix, files, min_moves in parts:
        for rel in sorted(files):
            if is_full_game(files[rel], min_moves):
                members.append((f"{prefix}/{rel}", files[rel]))
    return members


# ---------------------------------------------------------------------------------------
# Writing: fixed metadata so that two runs give identical bytes.


def xz_writer(path):
    # preset 9 (64 MiB dictionary, one block) in-process, so the bytes do not depend on an
    # xz binary's thread count. The shared OGS archive was written with xz's multi-block
    # default: its compressed bytes differ from these, the tar inside is the same.
    return lzma.open(path, "wb", preset=9)


def write_tar_xz(path, members):
    """A ustar archive of `members` (name, bytes): mode 644, owner 0/0, mtime 0, no names."""
    with xz_writer(path + ".tmp") as raw:
        with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as t:
            for name, data in members:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                info.mode = 0o644
                info.mtime = 0
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                t.addfile(info, io.BytesIO(data))
    os.replace(path + ".tmp", path)


def write_index(path, rows):
    with xz_writer(path + ".tmp") as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8", newline="")
        # csv's default dialect (quotes where needed, CRLF line ends), as the shared index.
        w = csv.DictWriter(text, fieldnames=INDEX_COLUMNS)
        w.writeheader()
        w.writerows(rows)
        text.flush()
        text.detach()
    os.replace(path + ".tmp", path)


def main(argv):
    p = argparse.ArgumentParser(
        description="Build ogs9x9.tar.xz, ogs9x9_index.csv.xz and engine9x9.tar.xz "
        "from checkouts of teeny-go, GNU Go and Fuego.",
        epilog="See the header of scripts/build_shared_data.py for what each column means.",
    )
    p.add_argument("--teeny-go", required=True, metavar="DIR",
                   help="a full git clone of Gregory-Eales/teeny-go (history needed)")
    p.add_argument("--gnugo", required=True, metavar="DIR", help="a GNU Go checkout")
    p.add_argument("--fuego", required=True, metavar="DIR", help="a Fuego checkout")
    p.add_argument("--out", required=True, metavar="DIR", help="where to write (created)")
    a = p.parse_args(argv)
    check_dir("--teeny-go", a.teeny_go, "data")
    for subset in OGS_SUBSETS:
        check_dir("--teeny-go", a.teeny_go, "data/" + subset)
    check_dir("--gnugo", a.gnugo, GNUGO_PATH)
    check_dir("--fuego", a.fuego, FUEGO_PATH)
    # Everything is read before anything is written: a failure leaves no partial output.
    games = collect_ogs(a.teeny_go)
    ids = sorted(games)
    rows = [index_row(gid, *games[gid]) for gid in ids]
    engine = collect_engine(a.gnugo, a.fuego, a.teeny_go)
    os.makedirs(a.out, exist_ok=True)
    write_tar_xz(
        os.path.join(a.out, "ogs9x9.tar.xz"),
        [(f"ogs9x9/ogs_{gid}.sgf", games[gid][0]) for gid in ids],
    )
    write_index(os.path.join(a.out, "ogs9x9_index.csv.xz"), rows)
    write_tar_xz(os.path.join(a.out, "engine9x9.tar.xz"), engine)
    print(f"ogs9x9.tar.xz: {len(ids)} games; engine9x9.tar.xz: {len(engine)} games; in {a.out}")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except BuildError as e:
        sys.exit(f"build-shared-data: {e}")
