//! Seeded mutation testing of every input akushu reads: SGF files, GTP lines, engine specs,
//! experiment TOML files and `.akd` split files. Each case is a valid input bent by a few
//! random edits (bytes flipped, cut, repeated; hostile tokens and numbers spliced in) and
//! handed to the library functions the commands use, in-process. A case must return (an
//! error is fine) without a panic and within a time limit; file-writing cases must leave
//! everything outside their output path as it was.
//!
//! The seed is printed; `AKUSHU_MUTATION_SEED=N` replays a run and `AKUSHU_MUTATION_CASES=N`
//! changes the number of cases per input kind (default 10,000).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use akushu::dataset::format::{SplitWriter, read_split};
use akushu::dataset::{MappedSplit, Position, Split};
use akushu::gtp::GtpServer;
use akushu::rules::Color;
use akushu::search::spec::build_engine;
use akushu::sgf::{ParseConfig, Superko, parse_records};
use akushu::util::rng::FastRng;
use akushu::yose::Problem;

/// Longest a single case may take before it counts as a hang.
const CASE_LIMIT: Duration = Duration::from_secs(20);

fn seed() -> u64 {
    std::env::var("AKUSHU_MUTATION_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_260_101)
}

fn cases() -> usize {
    std::env::var("AKUSHU_MUTATION_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000)
}

/// Runs `case(rng, index)` for `n` cases on a worker thread; the calling thread watches the
/// clock, so a case that hangs fails the test (naming it) instead of hanging the suite. A
/// panic fails the test with the case number and seed.
fn run_cases<F>(kind: &str, n: usize, case: F)
where
    F: Fn(&mut FastRng, usize) + Send + 'static,
{
    let seed = seed();
    eprintln!("{kind}: {n} cases, seed {seed} (AKUSHU_MUTATION_SEED replays)");
    let (tx, rx) = mpsc::channel::<Result<usize, String>>();
    let kind_name = kind.to_string();
    std::thread::Builder::new()
        .name(format!("mutation-{kind}"))
        .spawn(move || {
            for i in 0..n {
                let mut rng = FastRng::for_stream(seed, i as u64 ^ hash(&kind_name));
                let r =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| case(&mut rng, i)));
                let msg = r.map(|_| i).map_err(|e| {
                    e.downcast_ref::<String>()
                        .cloned()
                        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default()
                });
                if tx.send(msg).is_err() {
                    return;
                }
            }
        })
        .unwrap();
    let start = Instant::now();
    for i in 0..n {
        match rx.recv_timeout(CASE_LIMIT) {
            Ok(Ok(_)) => {}
            Ok(Err(msg)) => panic!("{kind} case {i} (seed {seed}) panicked: {msg}"),
            Err(_) => panic!("{kind} case {i} (seed {seed}) ran past {CASE_LIMIT:?}: a hang"),
        }
    }
    eprintln!(
        "{kind}: {n} cases in {:.1} s",
        start.elapsed().as_secs_f64()
    );
}

fn hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

fn pick<'a, T>(rng: &mut FastRng, items: &'a [T]) -> &'a T {
    &items[rng.below(items.len() as u32) as usize]
}

/// One of `items`, as a string slice.
fn word(rng: &mut FastRng, items: &[&'static str]) -> &'static str {
    items[rng.below(items.len() as u32) as usize]
}

/// Numbers a parser must refuse or handle: non-finite, huge, negative, empty, malformed.
const HOSTILE_NUMBERS: &[&str] = &[
    "NaN",
    "nan",
    "inf",
    "-inf",
    "+inf",
    "infinity",
    "1e300",
    "-1e300",
    "1e-300",
    "0",
    "-0",
    "-1",
    "1",
    "2",
    "7",
    "81",
    "82",
    "200",
    "65535",
    "65536",
    "4294967295",
    "4294967296",
    "18446744073709551616",
    "9999999999999999999999",
    "0.5",
    "6.5",
    "-6.5",
    "",
    " ",
    "0x10",
    "1,5",
    "٣",
    "1_000",
    "5000",
    "256",
    "257",
];

/// Edits `bytes` a few times: flips, cuts, repeats, and splices of `tokens`.
fn mutate(rng: &mut FastRng, bytes: &mut Vec<u8>, tokens: &[&[u8]]) {
    let edits = 1 + rng.below(4);
    for _ in 0..edits {
        let len = bytes.len() as u32;
        let at = if len == 0 {
            0
        } else {
            rng.below(len + 1) as usize
        };
        match rng.below(7) {
            0 if !bytes.is_empty() => {
                let i = at.min(bytes.len() - 1);
                bytes[i] ^= 1 << rng.below(8);
            }
            1 => {
                let t = pick(rng, tokens);
                bytes.splice(at..at, t.iter().copied());
            }
            2 if !bytes.is_empty() => {
                let end = (at + 1 + rng.below(16) as usize).min(bytes.len());
                bytes.drain(at.min(end)..end);
            }
            3 => bytes.truncate(at),
            4 if !bytes.is_empty() => {
                // Repeat a slice many times (deep or long inputs).
                let from = at.min(bytes.len() - 1);
                let end = (from + 1 + rng.below(8) as usize).min(bytes.len());
                let piece = bytes[from..end].to_vec();
                let times = [2, 10, 1_000, 20_000][rng.below(4) as usize];
                let mut rep = Vec::with_capacity(piece.len() * times);
                for _ in 0..times {
                    rep.extend_from_slice(&piece);
                }
                bytes.splice(from..from, rep);
            }
            5 => {
                let n = HOSTILE_NUMBERS[rng.below(HOSTILE_NUMBERS.len() as u32) as usize];
                bytes.splice(at..at, n.bytes());
            }
            _ => {
                let b = rng.below(256) as u8;
                bytes.insert(at, b);
            }
        }
    }
}

fn fixture_texts() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sgf");
    let mut out: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sgf" || e == "sgfs"))
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    out.sort();
    out.push(
        b"(;GM[1]FF[4]SZ[9]KM[6.5]RE[W+2.5]AB[cc][gg]AW[cg]PL[W];W[ee];B[dd](;W[ff])(;W[tt]))"
            .to_vec(),
    );
    out
}

const SGF_TOKENS: &[&[u8]] = &[
    b"(",
    b")",
    b";",
    b"[",
    b"]",
    b"\\",
    b"(;",
    b";B[]",
    b";W[tt]",
    b"B[ee]",
    b"W[aa]",
    b"AB[cc]",
    b"AW[cc]",
    b"AE[cc]",
    b"AB[aa:ii]",
    b"SZ[9]",
    b"SZ[19]",
    b"SZ[0]",
    b"SZ[9:5]",
    b"KM[",
    b"HA[",
    b"HA[99]",
    b"PL[B]",
    b"PL[X]",
    b"RE[B+",
    b"BR[3d]",
    b"WR[",
    b"CA[Shift_JIS]",
    b"CA[no-such-charset]",
    b"GM[2]",
    b"FF[3]",
    b"Komi[",
    b"\xEF\xBB\xBF",
    b"\xff\xfe",
    b"\x00",
    b"zz",
    b"jj",
    b"i",
    b";;;;;;;;",
    b"((((((((",
];

#[test]
fn mutated_sgf_files_never_panic_or_hang() {
    let corpus = fixture_texts();
    run_cases("sgf", cases(), move |rng, _| {
        let mut bytes = pick(rng, &corpus).clone();
        mutate(rng, &mut bytes, SGF_TOKENS);
        for lenient in [false, true] {
            for rec in parse_records(&bytes, "m", "m.sgf", ParseConfig { lenient })
                .into_iter()
                .flatten()
            {
                let _ = akushu::sgf::replay::check(&rec, Superko::ByRules);
                let _ = rec.content_key();
            }
        }
        // The analyze/yose reader (bytes, as it reads files).
        if let Ok(p) = Problem::parse(&bytes, "m.sgf") {
            let n = rng.below(p.moves.len() as u32 + 3) as usize;
            if let Ok((board, to_move)) = p.position_after(n) {
                let _ = akushu::cli::analyze::report(
                    &board,
                    to_move,
                    &akushu::board_analysis::EndConfig::default(),
                    n,
                );
            }
        }
    });
}

/// Commands akushu does not answer, besides all it does (`akushu::gtp::COMMANDS`).
const GTP_UNKNOWN: &[&str] = &["reg_genmove", "reg_genmove_analyze", "nonsense", ""];

/// Commands left out of the mutation: `printsgf FILE` would write files named after the
/// random arguments (tests/gtp_transcript.rs covers it).
const GTP_NOT_MUTATED: &[&str] = &["printsgf"];
const GTP_ARGS: &[&str] = &[
    "b", "w", "B", "W", "black", "white", "x", "A1", "J9", "E5", "T19", "Z0", "pass", "PASS",
    "resign", "9", "19", "dead", "alive", "seki", "\u{feff}", "\t", "#", "\x00", "é",
];

#[test]
fn mutated_gtp_lines_never_panic_or_hang() {
    let n = cases();
    // Sessions of 40 lines on a fresh cheap engine; genmove stays rare and small.
    run_cases("gtp", n.div_ceil(40), move |rng, _| {
        let engine = build_engine("uct:sims=16,max_nodes=4000", rng.next_u64()).unwrap();
        let mut server = GtpServer::new(engine);
        for _ in 0..40 {
            let mut line = String::new();
            if rng.below(4) == 0 {
                line.push_str(&rng.below(1000).to_string());
                line.push(' ');
            }
            if rng.below(10) == 0 {
                line.push_str(word(rng, GTP_UNKNOWN));
            } else {
                let command = word(rng, akushu::gtp::COMMANDS);
                if GTP_NOT_MUTATED.contains(&command) {
                    continue;
                }
                line.push_str(command);
            }
            for _ in 0..rng.below(4) {
                line.push(' ');
                if rng.below(2) == 0 {
                    line.push_str(word(rng, HOSTILE_NUMBERS));
                } else {
                    line.push_str(word(rng, GTP_ARGS));
                }
            }
            let mut bytes = line.into_bytes();
            if rng.below(3) == 0 {
                mutate(
                    rng,
                    &mut bytes,
                    &[b" ", b"\t", b"#", b"\r", b"\x00", b"\xff"],
                );
            }
            let _ = server.handle_line(&String::from_utf8_lossy(&bytes));
        }
    });
}

const SPEC_KEYS: &[&str] = &[
    "sims",
    "expand",
    "c",
    "threads",
    "reuse",
    "resign",
    "pass",
    "max_nodes",
    "playout_moves",
    "keep",
    "cache",
    "max_seconds",
    "rave",
    "priors",
    "policy",
    "policy_weight",
    "ladders",
    "prune_count",
    "playout",
    "playout_eval",
    "prune",
    "playout_prune",
    "soft",
    "seed",
    "bogus",
];
/// Each uct key with a value that is valid and cheap.
const VALID_PAIRS: &[(&str, &str)] = &[
    ("sims", "8"),
    ("expand", "2"),
    ("c", "0.4"),
    ("threads", "1"),
    ("reuse", "true"),
    ("resign", "0.1"),
    ("pass", "true"),
    ("max_nodes", "5000"),
    ("playout_moves", "50"),
    ("keep", "1"),
    ("cache", "64"),
    ("max_seconds", "0.01"),
    ("rave", "100"),
    ("priors", "true"),
    ("policy", "nn"),
    ("policy_weight", "10"),
    ("ladders", "true"),
    ("prune_count", "board"),
    ("playout", "heavy"),
    ("prune", "rule:10@0"),
    ("playout_prune", "random:3:0.5"),
    ("soft", "rule:5:10@1"),
];
const SPEC_VALUES: &[&str] = &[
    "rule:41@0",
    "nn:200@0",
    "random:3:0.6",
    "kakeme:10",
    "none:5",
    "nn:/no/such:10",
    "rule:1:41@1",
    "rule:99999:41",
    "rule:NaN",
    "true",
    "false",
    "heavy",
    "territory",
    "leaf",
    "move",
    "board",
    "legal",
    "nn:",
    ":",
    "@",
    "rule:10@",
    "rule:@3",
];

#[test]
fn mutated_engine_specs_never_panic_or_hang() {
    run_cases("spec", cases(), move |rng, _| {
        // Mostly valid uct specs with one or two hostile values, so that many build and
        // search; the rest are anything.
        let kind = if rng.below(4) > 0 {
            "uct"
        } else {
            pick(
                rng,
                &["uct", "flat", "territory", "random", "uct ", "", "gtp"],
            )
        };
        let mut spec = format!("{kind}:");
        let mut used = Vec::new();
        for _ in 0..rng.below(6) {
            let (key, valid) = *pick(rng, VALID_PAIRS);
            if used.contains(&key) {
                continue;
            }
            if !used.is_empty() {
                spec.push(',');
            }
            used.push(key);
            spec.push_str(key);
            spec.push('=');
            match rng.below(8) {
                0 => spec.push_str(word(rng, HOSTILE_NUMBERS)),
                1 => spec.push_str(word(rng, SPEC_VALUES)),
                _ => spec.push_str(valid),
            }
        }
        if rng.below(8) == 0 {
            spec.push(',');
            spec.push_str(word(rng, SPEC_KEYS));
            spec.push('=');
            spec.push_str(word(rng, HOSTILE_NUMBERS));
        }
        let mut bytes = spec.into_bytes();
        if rng.below(4) == 0 {
            mutate(rng, &mut bytes, &[b",", b"=", b":", b"@", b"nn", b"sims=1"]);
        }
        let spec = String::from_utf8_lossy(&bytes).into_owned();
        let _ = akushu::search::spec::resolved_config(&spec);
        let _ = akushu::search::spec::model_dirs(&spec);
        let _ = build_engine(&spec, rng.next_u64());
        // A spec that parses must also search: its budget is cut to a few simulations (a
        // valid `sims=1e8` may take long; time limits, clocks and the rest may not panic).
        if let Ok(mut c) = akushu::search::spec::parse_uct(&spec) {
            c.sims = c.sims.min(8);
            c.threads = c.threads.min(2);
            c.max_nodes = c.max_nodes.min(1 << 16);
            if let Ok(mut e) = akushu::search::uct::UctEngine::new(c, rng.next_u64()) {
                use akushu::search::Engine;
                let secs: f64 = pick(rng, HOSTILE_NUMBERS).parse().unwrap_or(1.0);
                e.set_time_left(akushu::rules::Color::Black, secs, 0);
                let _ = e.genmove(akushu::rules::Color::Black);
            }
        }
    });
}

fn experiment_texts() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments");
    let mut out: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    out.sort();
    out.push(
        b"name='a'\ntitle='t'\n[vars]\na='{a}{a}{a}{a}{a}{a}{a}{a}'\n[players]\nblack='{a}'\nwhite='random'\n[[arm]]\nlabel='x'\n"
            .to_vec(),
    );
    out
}

#[test]
fn mutated_experiment_files_never_panic_or_hang() {
    let corpus = experiment_texts();
    run_cases("toml", cases(), move |rng, _| {
        let mut bytes = pick(rng, &corpus).clone();
        mutate(
            rng,
            &mut bytes,
            &[
                b"\n[match]\nkomi = nan\n",
                b"\ngenmove_timeout_s = inf\n",
                b"games = 0\n",
                b"{",
                b"}",
                b"{sims}",
                b"=",
                b"\"",
                b"'",
                b"[[arm]]\nlabel='z'\n",
                b"\n[quick]\n",
                b"max_moves = 4294967295\n",
                b"command_timeout_s = -1\n",
            ],
        );
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(file) = akushu::arena::experiment::parse(&text, "m.toml") {
            for quick in [false, true] {
                if let Ok(arms) = file.arms(quick) {
                    for arm in arms {
                        let _ = arm.config.validate();
                        let _ = akushu::search::spec::resolved_config(&arm.config.black);
                    }
                }
            }
        }
    });
}

fn sample_split(dir: &Path) -> Vec<u8> {
    let mut w = SplitWriter::create(dir, Split::Train).unwrap();
    let mut rng = FastRng::new(5);
    for g in 0..3u32 {
        // Random games, so that every record holds a legal position.
        let mut board = akushu::rules::Board::new();
        for m in 0..6u16 {
            let color = if m % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            for _ in 0..7 {
                let cand = board.candidates(color, akushu::rules::BOARD);
                if let Some(&i) = cand
                    .as_slice()
                    .get(rng.below(cand.len().max(1) as u32) as usize)
                {
                    board
                        .play(color, akushu::rules::Point::new(i as usize))
                        .unwrap();
                }
            }
            let cells = *board.cells();
            let played = (0..81).find(|&i| cells[i] == 0).unwrap_or(81) as u8;
            let p = Position {
                cells,
                to_move: 1 + (m % 2) as u8,
                played,
                move_number: m,
                last_moves: [akushu::dataset::NO_POINT; 4],
                ko: akushu::dataset::NO_POINT,
                winner: 1,
                black_rank: 3,
                white_rank: -2,
                game: g,
                search: None,
                teacher: None,
            };
            w.push(&p).unwrap();
        }
    }
    w.finish(3).unwrap();
    std::fs::read(akushu::dataset::format::split_path(dir, Split::Train)).unwrap()
}

#[test]
fn mutated_split_files_never_panic_or_hang() {
    let dir = std::env::temp_dir().join(format!("akushu-mutation-akd-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let good = sample_split(&dir);
    let path = akushu::dataset::format::split_path(&dir, Split::Train);
    let d = dir.clone();
    run_cases("akd", cases(), move |rng, _| {
        let mut bytes = good.clone();
        // Header fields (counts, sizes, checksums) are where lengths come from.
        if rng.below(2) == 0 && bytes.len() > 32 {
            let i = rng.below(32) as usize;
            bytes[i] = rng.below(256) as u8;
        }
        mutate(
            rng,
            &mut bytes,
            &[b"\xff\xff\xff\xff", b"\x00\x00\x00\x00", b"AKD"],
        );
        std::fs::write(&path, &bytes).unwrap();
        // Whatever decodes must rebuild its board: `decode` checks the stones.
        if let Ok(ps) = read_split(&d, Split::Train) {
            for p in ps {
                let _ = p.target();
                let _ = p.board();
            }
        }
        if let Ok(m) = MappedSplit::open(&d, Split::Train) {
            for p in m.iter().take(64).flatten() {
                let _ = p.board();
            }
            let _ = m.get(rng.below(m.len() as u32 + 2) as usize);
        }
    });
    std::fs::remove_dir_all(dir).unwrap();
}

/// Every file under `dir` except below `skip`, with its bytes.
fn snapshot(dir: &Path, skip: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.starts_with(skip) {
                continue;
            }
            let m = std::fs::symlink_metadata(&p).unwrap();
            if m.is_dir() {
                stack.push(p);
            } else if m.is_file() {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            } else {
                out.insert(
                    p.clone(),
                    std::fs::read_link(&p)
                        .unwrap_or_default()
                        .into_os_string()
                        .into_encoded_bytes(),
                );
            }
        }
    }
    out
}

#[test]
fn dataset_builds_from_mutated_files_touch_only_their_output() {
    let corpus = fixture_texts();
    let dir = std::env::temp_dir().join(format!("akushu-mutation-build-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("in")).unwrap();
    std::fs::write(dir.join("bystander.txt"), "not akushu's").unwrap();
    std::fs::create_dir_all(dir.join("theirs")).unwrap();
    std::fs::write(dir.join("theirs/manifest.json"), "{}").unwrap();
    let d = dir.clone();
    // Fewer cases: each one is a whole build (thread pool, temporary folder, rename).
    run_cases("build", (cases() / 25).max(40), move |rng, i| {
        let mut bytes = pick(rng, &corpus).clone();
        mutate(rng, &mut bytes, SGF_TOKENS);
        let input = d.join("in").join(format!("g{}.sgf", i % 4));
        std::fs::write(&input, &bytes).unwrap();
        // The output: a fresh path, the dataset of an earlier case, someone else's folder,
        // the input itself, or a file.
        let choice = rng.below(5);
        let out = match choice {
            0 => d.join(format!("ds{i}")),
            1 | 2 => d.join("ds"),
            3 => d.join("theirs"),
            _ => [input.clone(), d.join("bystander.txt"), d.join("in")][rng.below(3) as usize]
                .clone(),
        };
        // Only akushu's own outputs may change; for the others nothing at all may.
        let writable = if choice <= 2 {
            out.clone()
        } else {
            d.join("nothing")
        };
        let before = snapshot(&d, &writable);
        let cfg = akushu::dataset::BuildConfig {
            inputs: vec![input.clone()],
            threads: 1,
            ..Default::default()
        };
        let _ = akushu::dataset::build::build(&cfg, &out, false);
        let after = snapshot(&d, &writable);
        assert_eq!(
            before,
            after,
            "case {i}: a file outside {} changed",
            out.display()
        );
        let _ = std::fs::remove_dir_all(d.join(format!("ds{i}")));
    });
    std::fs::remove_dir_all(dir).unwrap();
}
