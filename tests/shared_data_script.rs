//! `scripts/build-shared-data.sh` on a hand-written fixture ([`FIXTURE`] lists each case):
//! the archives hold exactly the
//! expected members, byte for byte from the right copy, with fixed tar metadata; duplicates
//! by game id and error stubs are dropped, so are other board sizes and engine problem
//! files; the index rows carry the subsets, rank source and corrected ranks; a second run
//! gives identical bytes; the folders teeny-go deleted are found in its git history; a
//! missing folder is named.
//!
//! Needs python3 and git; without them a test says why and skips, unless
//! `AKUSHU_REQUIRE_PYTHON` (python3) or `AKUSHU_REQUIRE_GIT` (git) makes that a failure.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::{s, scratch, skip_or_fail};

const SCRIPT: &str = "scripts/build-shared-data.sh";
const ARCHIVES: [&str; 3] = ["ogs9x9.tar.xz", "ogs9x9_index.csv.xz", "engine9x9.tar.xz"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The hand-written fixture, laid out like the three source checkouts and written into a
/// scratch folder by [`fixture`] (the records stay in this file: nothing shaped like the
/// corpus is committed as a file). Each case, by path under the fixture:
/// - `teeny-go/data/ogs_dan_games/ogs_101.sgf`, `ogs_games/ogs_101.sgf`: the same game in both
///   scrapes, the head copy mirroring White's kyu rank (27k for 3k): the 2020 copy is kept,
///   `rank_source` 2020.
/// - `ogs_games/ogs_102.sgf`, `15k_min_ogs_games/ogs_102.sgf`: a duplicate game id, identical
///   files, `\]` in a name: one member, subsets joined, 25k read as 5k.
/// - `ogs_games/ogs_103.sgf` (an HTML error page), `strict_ogs_games/ogs_103.sgf`: an error
///   stub beside the real game, `) (` in a comment: the strict copy, `has_siblings` 0.
/// - `15k_min_ogs_games/ogs_104.sgf`: 19x19, dropped.
/// - `ogs_dan_games/ogs_105.sgf`: an error stub only (`detail`), dropped.
/// - `bot_games/ogs_106.sgf`, `strict_ogs_games/ogs_106.sgf`: the bot subset, rank `?`:
///   `bot_suspect` 1, empty `BR_num`.
/// - `ogs_dan_games/ogs_107.sgf` (a stub), `ogs_games/ogs_107.sgf`: the 2020 copy is a stub, a
///   real variation: the head copy, `has_siblings` 1.
/// - `gnugo/.../fixture-long.sgf`, `nngs/fixture-full.sgf`, `fuego/.../games/fixture-cgos.sgf`:
///   full 9x9 engine games, kept.
/// - `gnugo/.../fixture-problem.sgf`, `fixture-19.sgf`, `fuego/.../fixture-cut.sgf`: setup
///   stones, 19x19, 5 moves: dropped.
/// - `teeny-go/depreciated/GoSampleData/900001.sgf`, `900002.sgf`: CGOS games, one of 6
///   moves: both kept.
///
/// In the real teeny-go repository `data/ogs_dan_games` and `depreciated/GoSampleData` exist
/// only in its history; a test commits this tree to a scratch git repository, deletes those
/// folders and checks that the script finds them there.
const FIXTURE: &[(&str, &str)] = &[
    (
        "fuego/regression/sgf/fixture-cut.sgf",
        "(;GM[1]FF[4]SZ[9]KM[6.5]\n;B[ee];W[cc];B[gg];W[cg];B[gc])\n",
    ),
    (
        "fuego/regression/sgf/games/fixture-cgos.sgf",
        "(;GM[1]FF[4]SZ[9]KM[6.5]RU[Chinese]PB[Fuego]PW[Fixture C]RE[B+Resign]\n;B[ee];W[cc];B[gg];W[cg];B[gc];W[dd];B[ff];W[dc];B[fc];W[cd];B[fd];W[ce];B[fg];W[cf];B[gf];W[dg];B[ge];W[eg];B[hd];W[fh];B[he];W[gh])\n",
    ),
    (
        "gnugo/regression/games/fixture-19.sgf",
        "(;GM[1]FF[4]SZ[19]RE[B+R]\n;B[pd];W[dp];B[pp];W[dd];B[qf];W[nc];B[fq];W[cn];B[qn];W[ql];B[jd];W[jp];B[dj];W[pj];B[ip];W[gp];B[qc];W[rc];B[qd];W[re];B[rd];W[se])\n",
    ),
    (
        "gnugo/regression/games/fixture-long.sgf",
        "(;GM[1]FF[4]SZ[9]KM[5.5]PB[Fixture A]PW[Fixture B]RE[W+R]\n;B[ee];W[cc];B[gg];W[cg];B[gc];W[dd];B[ff];W[dc];B[fc];W[cd];B[fd];W[ce];B[fg];W[cf];B[gf];W[dg];B[ge];W[eg];B[hd];W[fh];B[he];W[gh];B[ii])\n",
    ),
    (
        "gnugo/regression/games/fixture-problem.sgf",
        "(;GM[1]FF[4]SZ[9]AB[ee][ef]AW[de][df]\n;B[ee];W[cc];B[gg];W[cg];B[gc];W[dd];B[ff];W[dc];B[fc];W[cd];B[fd];W[ce];B[fg];W[cf];B[gf];W[dg];B[ge];W[eg];B[hd];W[fh];B[he];W[gh])\n",
    ),
    (
        "gnugo/regression/games/nngs/fixture-full.sgf",
        "(;GM[1]FF[4]SZ[9]KM[5.5]PB[GNU Go 3.8]PW[Fixture engine]RE[B+7.5]\n;B[ee];W[cc];B[gg];W[cg];B[gc];W[dd];B[ff];W[dc];B[fc];W[cd];B[fd];W[ce];B[fg];W[cf];B[gf];W[dg];B[ge];W[eg];B[hd];W[fh];B[he];W[gh])\n",
    ),
    (
        "teeny-go/data/15k_min_ogs_games/ogs_102.sgf",
        "(;FF[4]\nCA[UTF-8]\nGM[1]\nDT[2018-07-14]\nPC[OGS: https://online-go.com/game/102]\nGN[Fixture game]\nPB[carol]\nPW[dave [x\\]]\nBR[25k]\nWR[20k]\nTM[600]OT[5x30 byo-yomi]\nRE[W+3.5]\nSZ[9]\nKM[5.5]\nRU[Japanese]\n;B[ef]\n(;W[de]\n(;B[fd]\n(;W[cf]\n(;B[dg]\n(;W[ce]\n(;B[]\n(;W[]\n))))))))\n",
    ),
    (
        "teeny-go/data/15k_min_ogs_games/ogs_104.sgf",
        "(;FF[4]\nCA[UTF-8]\nGM[1]\nDT[2016-05-05]\nPC[OGS: https://online-go.com/game/104]\nGN[Fixture game]\nPB[gina]\nPW[hal]\nBR[10k]\nWR[12k]\nTM[600]OT[5x30 byo-yomi]\nRE[B+R]\nSZ[19]\nKM[5.5]\nRU[Japanese]\n;B[pd]\n(;W[dp]\n(;B[pp]\n(;W[dd]\n))))\n",
    ),
    (
        "teeny-go/data/bot_games/ogs_106.sgf",
        "(;FF[4]\nCA[UTF-8]\nGM[1]\nDT[2020-02-20]\nPC[OGS: https://online-go.com/game/106]\nGN[Fixture game]\nPB[GnuGo]\nPW[ivan]\nBR[?]\nWR[22k]\nTM[600]OT[5x30 byo-yomi]\nRE[B+12.5]\nSZ[9]\nKM[5.5]\nRU[Japanese]\n;B[ee]\n(;W[dc]\n(;B[fg]\n(;W[ch]\n(;B[gc]\n(;W[ff]\n))))))\n",
    ),
    (
        "teeny-go/data/ogs_dan_games/ogs_101.sgf",
        "(;FF[4]\nCA[UTF-8]\nGM[1]\nDT[2019-03-02]\nPC[OGS: https://online-go.com/game/101]\nGN[Fixture game]\nPB[alice]\nPW[bob]\nBR[2d]\nWR[3k]\nTM[600]OT[5x30 byo-yomi]\nRE[B+R]\nSZ[9]\nKM[5.5]\nRU[Japanese]\n;B[ee]\n(;W[cc]\n(;B[gg]\n(;W[cg]\n(;B[gc]\n(;W[dd]\n(;B[]\n(;W[]\n))))))))\n",
    ),
    ("teeny-go/data/ogs_dan_games/ogs_105.sgf", "detail"),
    ("teeny-go/data/ogs_dan_games/ogs_107.sgf", "detail"),
    (
        "teeny-go/data/ogs_games/ogs_101.sgf",
        "(;FF[4]\nCA[UTF-8]\nGM[1]\nDT[2019-03-02]\nPC[OGS: https://online-go.com/game/101]\nGN[Fixture game]\nPB[alice]\nPW[bob]\nBR[2d]\nWR[27k]\nTM[600]OT[5x30 byo-yomi]\nRE[B+R]\nSZ[9]\nKM[5.5]\nRU[Japanese]\n;B[ee]\n(;W[cc]\n(;B[gg]\n(;W[cg]\n(;B[gc]\n(;W[dd]\n(;B[]\n(;W[]\n))))))))\n",
    ),
    (
        "teeny-go/data/ogs_games/ogs_102.sgf",
        "(;FF[4]\nCA[UTF-8]\nGM[1]\nDT[2018-07-14]\nPC[OGS: https://online-go.com/game/102]\nGN[Fixture game]\nPB[carol]\nPW[dave [x\\]]\nBR[25k]\nWR[20k]\nTM[600]OT[5x30 byo-yomi]\nRE[W+3.5]\nSZ[9]\nKM[5.5]\nRU[Japanese]\n;B[ef]\n(;W[de]\n(;B[fd]\n(;W[cf]\n(;B[dg]\n(;W[ce]\n(;B[]\n(;W[]\n))))))))\n",
    ),
    (
        "teeny-go/data/ogs_games/ogs_103.sgf",
        "\n<!doctype html>\n<html lang=\"en\">\n<head>\n  <title>Server Error (500)</title>\n</head>\n</html>\n",
    ),
    (
        "teeny-go/data/ogs_games/ogs_107.sgf",
        "(;FF[4]\nCA[UTF-8]\nGM[1]\nDT[2019-11-30]\nPC[OGS: https://online-go.com/game/107]\nGN[Fixture game]\nPB[judy]\nPW[KataGo-b20]\nBR[4d]\nWR[29k]\nTM[600]OT[5x30 byo-yomi]\nRE[W+T]\nSZ[9]\nKM[5.5]\nRU[Japanese]\n;B[ef]\n(;W[dd]\n)(;W[cc]\n))\n",
    ),
    (
        "teeny-go/data/strict_ogs_games/ogs_103.sgf",
        "(;FF[4]\nCA[UTF-8]\nGM[1]\nDT[2017-01-09]\nPC[OGS: https://online-go.com/game/103]\nGN[Fixture game]\nPB[erin]\nPW[frank]\nBR[1k]\nWR[0k]\nTM[600]OT[5x30 byo-yomi]\nRE[W+R]\nSZ[9]\nKM[5.5]\nRU[Japanese]\n;B[ec]\nC[erin: hi :) (first game here)\n]\n(;W[ge]\n(;B[eg]\n(;W[cd]\n))))\n",
    ),
    (
        "teeny-go/data/strict_ogs_games/ogs_106.sgf",
        "(;FF[4]\nCA[UTF-8]\nGM[1]\nDT[2020-02-20]\nPC[OGS: https://online-go.com/game/106]\nGN[Fixture game]\nPB[GnuGo]\nPW[ivan]\nBR[?]\nWR[22k]\nTM[600]OT[5x30 byo-yomi]\nRE[B+12.5]\nSZ[9]\nKM[5.5]\nRU[Japanese]\n;B[ee]\n(;W[dc]\n(;B[fg]\n(;W[ch]\n(;B[gc]\n(;W[ff]\n))))))\n",
    ),
    (
        "teeny-go/depreciated/GoSampleData/900001.sgf",
        "(;GM[1]FF[4]SZ[9]KM[7.0]PB[fixture_b]PW[fixture_w]RE[W+Time]GN[900001]\n;B[ee];W[cc];B[gg];W[cg];B[gc];W[dd])\n",
    ),
    (
        "teeny-go/depreciated/GoSampleData/900002.sgf",
        "(;GM[1]FF[4]SZ[9]KM[7.0]PB[fixture_w]PW[fixture_b]RE[B+Resign]GN[900002]\n;B[ee];W[cc];B[gg];W[cg];B[gc];W[dd];B[ff];W[dc];B[fc];W[cd];B[fd];W[ce];B[fg];W[cf];B[gf];W[dg];B[ge];W[eg];B[hd];W[fh];B[he];W[gh])\n",
    ),
];

/// The fixture's folder: [`FIXTURE`] written once into a scratch folder of this test run.
fn fixture() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch("shared-data", "sources");
        for (rel, text) in FIXTURE {
            let path = dir.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    })
    .clone()
}

/// Whether `tool` runs; otherwise says why `test` skips (or fails, under the switch `what`).
fn have(tool: &str, what: &str, test: &str) -> bool {
    let ok = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip_or_fail(what, test, &format!("{tool} not found"), "install it");
    }
    ok
}

/// Runs the script from the project root with `args`.
fn script(args: &[String]) -> Output {
    Command::new("sh")
        .arg(SCRIPT)
        .args(args)
        .current_dir(root())
        .output()
        .unwrap()
}

/// Builds the archives from `teeny` and the fixture's GNU Go and Fuego trees into `out`;
/// fails the test, with the script's output, when it does not succeed.
fn build(teeny: &Path, out: &Path) {
    let f = fixture();
    let o = script(&[
        "--teeny-go".into(),
        s(teeny),
        "--gnugo".into(),
        s(&f.join("gnugo")),
        "--fuego".into(),
        s(&f.join("fuego")),
        "--out".into(),
        s(out),
    ]);
    assert!(
        o.status.success(),
        "{SCRIPT} failed:\n{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

fn unxz(path: &Path) -> Vec<u8> {
    let mut v = Vec::new();
    liblzma::read::XzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_end(&mut v)
        .unwrap();
    v
}

/// An archive's members in order: name and bytes. Checks on the way that every member's
/// metadata is the fixed one that makes the output reproducible.
fn members(path: &Path) -> Vec<(String, Vec<u8>)> {
    let bytes = unxz(path);
    let mut archive = tar::Archive::new(bytes.as_slice());
    let mut out = Vec::new();
    for entry in archive.entries().unwrap() {
        let mut e = entry.unwrap();
        let name = e.path().unwrap().display().to_string();
        let h = e.header();
        assert!(h.as_ustar().is_some(), "{name}: not a ustar header");
        assert_eq!(h.mode().unwrap(), 0o644, "{name}: mode");
        assert_eq!(h.mtime().unwrap(), 0, "{name}: mtime");
        assert_eq!(
            (h.uid().unwrap(), h.gid().unwrap()),
            (0, 0),
            "{name}: owner"
        );
        assert_eq!(h.username().unwrap(), Some(""), "{name}: user name");
        let mut data = Vec::new();
        e.read_to_end(&mut data).unwrap();
        out.push((name, data));
    }
    out
}

fn names(members: &[(String, Vec<u8>)]) -> Vec<&str> {
    members.iter().map(|(n, _)| n.as_str()).collect()
}

/// The index as rows keyed by game id, each a column -> value map; checks the header.
fn index(path: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let text = unxz(path);
    let mut r = csv::Reader::from_reader(text.as_slice());
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        header.join(","),
        "game_id,subsets,rank_source,DT,SZ,HA,KM,RU,RE,BR_raw,WR_raw,BR,WR,BR_num,WR_num,\
         n_moves,n_pass,has_siblings,bot_suspect,TM,OT,PB,PW"
    );
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            let row: BTreeMap<String, String> = header
                .iter()
                .cloned()
                .zip(rec.iter().map(String::from))
                .collect();
            (row["game_id"].clone(), row)
        })
        .collect()
}

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(fixture().join(rel)).unwrap()
}

/// Checks `row` against `expected` pairs of column and value.
fn assert_row(
    rows: &BTreeMap<String, BTreeMap<String, String>>,
    id: &str,
    expected: &[(&str, &str)],
) {
    let row = &rows[id];
    for (col, want) in expected {
        assert_eq!(row[*col], *want, "game {id}, column {col}");
    }
}

#[test]
fn builds_the_archives_from_the_fixture() {
    let test = "builds_the_archives_from_the_fixture";
    if !have("python3", "PYTHON", test) {
        return;
    }
    let dir = scratch("shared-data", "fixture");
    let (a, b) = (dir.join("a"), dir.join("b"));
    build(&fixture().join("teeny-go"), &a);

    // One member per game id; 104 (19x19) and 105 (an error stub only) are gone.
    let ogs = members(&a.join("ogs9x9.tar.xz"));
    assert_eq!(
        names(&ogs),
        ["101", "102", "103", "106", "107"].map(|id| format!("ogs9x9/ogs_{id}.sgf"))
    );
    // Each from the right copy: the 2020 scrape's when real, else the real head copy.
    let from = [
        "teeny-go/data/ogs_dan_games/ogs_101.sgf",
        "teeny-go/data/ogs_games/ogs_102.sgf",
        "teeny-go/data/strict_ogs_games/ogs_103.sgf",
        "teeny-go/data/bot_games/ogs_106.sgf",
        "teeny-go/data/ogs_games/ogs_107.sgf",
    ];
    for ((name, data), src) in ogs.iter().zip(from) {
        assert!(*data == read(src), "{name} is not a copy of {src}");
    }

    // Full 9x9 games only, in source order then path order; the CGOS game of 6 moves stays.
    let engine = members(&a.join("engine9x9.tar.xz"));
    assert_eq!(
        names(&engine),
        [
            "gnugo_regression/regression/games/fixture-long.sgf",
            "gnugo_regression/regression/games/nngs/fixture-full.sgf",
            "fuego_regression/regression/sgf/games/fixture-cgos.sgf",
            "cgos_teenygo_sample/900001.sgf",
            "cgos_teenygo_sample/900002.sgf",
        ]
    );
    assert!(engine[1].1 == read("gnugo/regression/games/nngs/fixture-full.sgf"));
    assert!(engine[3].1 == read("teeny-go/depreciated/GoSampleData/900001.sgf"));

    let rows = index(&a.join("ogs9x9_index.csv.xz"));
    assert_eq!(
        rows.keys().collect::<Vec<_>>(),
        ["101", "102", "103", "106", "107"]
    );
    // The 2020 copy keeps its ranks; the head copy's 27k would have read as 3k.
    assert_row(
        &rows,
        "101",
        &[
            ("subsets", "ogs_dan_games+ogs_games"),
            ("rank_source", "2020"),
            ("BR_raw", "2d"),
            ("WR_raw", "3k"),
            ("BR", "2d"),
            ("WR", "3k"),
            ("BR_num", "2"),
            ("WR_num", "-2"),
            ("n_moves", "8"),
            ("n_pass", "2"),
            ("has_siblings", "0"),
            ("bot_suspect", "0"),
            ("DT", "2019-03-02"),
            ("SZ", "9"),
            ("HA", ""),
            ("KM", "5.5"),
            ("RU", "Japanese"),
            ("RE", "B+R"),
            ("TM", "600"),
            ("OT", "5x30 byo-yomi"),
            ("PB", "alice"),
            ("PW", "bob"),
        ],
    );
    // Head scrape: Nk means (30-N)k; a name's SGF escape is kept as written.
    assert_row(
        &rows,
        "102",
        &[
            ("subsets", "15k_min_ogs_games+ogs_games"),
            ("rank_source", "head"),
            ("BR", "5k"),
            ("WR", "10k"),
            ("BR_num", "-4"),
            ("WR_num", "-9"),
            ("PW", "dave [x\\]"),
        ],
    );
    // The stub's subset still counts; 0k mirrors to 30k; `) (` in a comment is no variation.
    assert_row(
        &rows,
        "103",
        &[
            ("subsets", "ogs_games+strict_ogs_games"),
            ("BR", "29k"),
            ("WR", "30k"),
            ("BR_num", "-28"),
            ("WR_num", "-29"),
            ("n_moves", "4"),
            ("has_siblings", "0"),
        ],
    );
    assert_row(
        &rows,
        "106",
        &[
            ("subsets", "bot_games+strict_ogs_games"),
            ("BR_raw", "?"),
            ("BR", "?"),
            ("BR_num", ""),
            ("WR", "8k"),
            ("bot_suspect", "1"),
        ],
    );
    // Dan ranks are never mirrored; the main line ends at the first variation.
    assert_row(
        &rows,
        "107",
        &[
            ("subsets", "ogs_dan_games+ogs_games"),
            ("rank_source", "head"),
            ("BR", "4d"),
            ("WR", "1k"),
            ("BR_num", "4"),
            ("WR_num", "0"),
            ("n_moves", "2"),
            ("has_siblings", "1"),
            ("bot_suspect", "1"),
        ],
    );

    // Deterministic: a second run gives the same bytes.
    build(&fixture().join("teeny-go"), &b);
    for f in ARCHIVES {
        assert!(
            std::fs::read(a.join(f)).unwrap() == std::fs::read(b.join(f)).unwrap(),
            "{f} differs between two runs"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs git in `dir` with a fixed identity (the machine may have none).
fn git(dir: &Path, args: &[&str]) {
    let o = Command::new("git")
        .args([
            "-c",
            "user.name=akushu test",
            "-c",
            "user.email=test@invalid",
        ])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// In the real teeny-go the dan games and the CGOS samples were deleted from the tree: the
/// script must take them from the last commit that held them, with the same result.
#[test]
fn reads_deleted_folders_from_git_history() {
    let test = "reads_deleted_folders_from_git_history";
    if !have("python3", "PYTHON", test) || !have("git", "GIT", test) {
        return;
    }
    let dir = scratch("shared-data", "history");
    let repo = dir.join("teeny-go");
    copy_tree(&fixture().join("teeny-go"), &repo);
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-qm", "games"]);
    git(&repo, &["rm", "-rq", "data/ogs_dan_games", "depreciated"]);
    git(
        &repo,
        &["commit", "-qm", "delete the dan games and samples"],
    );
    assert!(!repo.join("data/ogs_dan_games").exists());

    build(&repo, &dir.join("from-git"));
    build(&fixture().join("teeny-go"), &dir.join("from-tree"));
    for f in ARCHIVES {
        assert!(
            std::fs::read(dir.join("from-git").join(f)).unwrap()
                == std::fs::read(dir.join("from-tree").join(f)).unwrap(),
            "{f}: built from git history, it differs from the one built from the tree"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A wrong or incomplete checkout is refused with the flag and folder named; `--help` works.
#[test]
fn names_the_missing_folder() {
    let test = "names_the_missing_folder";
    if !have("python3", "PYTHON", test) {
        return;
    }
    let f = fixture();
    let dir = scratch("shared-data", "missing");
    let args = |teeny: &Path, gnugo: &Path| {
        vec![
            "--teeny-go".into(),
            s(teeny),
            "--gnugo".into(),
            s(gnugo),
            "--fuego".into(),
            s(&f.join("fuego")),
            "--out".into(),
            s(&dir.join("out")),
        ]
    };
    let nowhere = dir.join("no-such-gnugo");
    let o = script(&args(&f.join("teeny-go"), &nowhere));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("--gnugo") && err.contains(&s(&nowhere)),
        "{err}"
    );

    // Fuego's tree as GNU Go's: no regression/games in it.
    let o = script(&args(&f.join("teeny-go"), &f.join("fuego")));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("regression/games"), "{err}");

    // A teeny-go tree without the dan games and no git history to find them in.
    let bare = dir.join("teeny-go");
    copy_tree(&f.join("teeny-go/data"), &bare.join("data"));
    std::fs::remove_dir_all(bare.join("data/ogs_dan_games")).unwrap();
    let o = script(&args(&bare, &f.join("gnugo")));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("data/ogs_dan_games") && err.contains("--teeny-go"),
        "{err}"
    );
    assert!(!err.contains("Traceback"), "{err}");
    assert!(
        !dir.join("out/ogs9x9.tar.xz").exists(),
        "wrote an archive anyway"
    );

    let o = script(&["--help".into()]);
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && help.contains("--teeny-go DIR"),
        "{help}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
