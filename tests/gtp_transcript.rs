//! GTP sessions: a stored transcript replayed command by command, numbered ids, every kind
//! of bad input answered with `?`, and the binary ending cleanly on `quit` and on EOF.

use std::io::Write;
use std::process::{Command, Stdio};

use akushu::gtp::GtpServer;
use akushu::rules::{Color, Move};
use akushu::search::spec::build_engine;
use akushu::util::rng::FastRng;

fn server(spec: &str) -> GtpServer {
    GtpServer::new(build_engine(spec, 1).unwrap())
}

/// Runs a whole script through `GtpServer::run` and returns the output.
fn session(spec: &str, script: &str) -> String {
    let mut out = Vec::new();
    server(spec).run(script.as_bytes(), &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// The `akushu gtp` binary started with `args`, its stdin and stdout piped.
fn gtp_child(args: &[&str], stderr: Stdio) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_akushu"))
        .arg("gtp")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap()
}

/// `script` written to `child`'s stdin, which is then closed.
fn feed(child: &mut std::process::Child, script: &str) {
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
}

/// Runs the `akushu gtp` binary with `args`, feeding it `script` on stdin.
fn akushu_gtp(args: &[&str], script: &str) -> std::process::Output {
    let mut child = gtp_child(args, Stdio::piped());
    feed(&mut child, script);
    child.wait_with_output().unwrap()
}

/// The transcript: each command followed by its exact reply. `genmove` replies are
/// engine-dependent, so the transcript plays only explicit moves; genmove is tested below.
const TRANSCRIPT: &str = r#"
> protocol_version
= 2

> 1 name
=1 akushu

> known_command genmove
= true

> known_command frobnicate
= false

> boardsize 19
? unacceptable size

> boardsize 9
=

> komi 7.5
=

> play black E5
=

> 7 play w e5
?7 illegal move: point E5 is occupied

> play x D4
? syntax error: invalid color `x`

> play b Z9
? syntax error: invalid GTP vertex "Z9" (expected A1..J9 without I, or pass)

> play b
? syntax error: missing vertex

> play white C3
=

> play b pass
=

> showboard
= 
   A B C D E F G H J
9  . . . . . . . . .  9
8  . . . . . . . . .  8
7  . . . . . . . . .  7
6  . . . . . . . . .  6
5  . . . . X . . . .  5
4  . . . . . . . . .  4
3  . . O . . . . . .  3
2  . . . . . . . . .  2
1  . . . . . . . . .  1
   A B C D E F G H J

> final_score
= W+7.5

> final_status_list alive
= E5 C3

> final_status_list dead
=

> final_status_list sideways
? syntax error: unknown status `sideways`

> time_settings 300 10 1
=

> time_left b 120 0
=

> time_left b lots 0
? syntax error: time: `lots` is not a number (invalid float literal); allowed: 0 to 1000000

> time_left b 1e300 0
? syntax error: time: 1e300 is not in the allowed range 0 to 1000000

> time_left w NaN 0
? syntax error: time: NaN is not in the allowed range 0 to 1000000

> komi inf
? syntax error: komi: inf is not in the allowed range -10000 to 10000

> 42 undo
=42

> undo
=

> undo
=

> undo
? cannot undo

> akushu-pruned b
? this engine has no pruner

> frobnicate now
? unknown command

> 99 quit
=99
"#;

/// Splits the transcript into (command, expected reply) pairs.
fn transcript_pairs() -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    for block in TRANSCRIPT.split("\n> ").map(str::trim_start) {
        let block = block.trim_start_matches("> ");
        if block.trim().is_empty() {
            continue;
        }
        let (cmd, reply) = block.split_once('\n').unwrap();
        pairs.push((
            cmd.to_string(),
            format!("{}\n\n", reply.trim_end_matches('\n')),
        ));
    }
    pairs
}

#[test]
fn transcript_replays_exactly() {
    let pairs = transcript_pairs();
    assert!(pairs.len() > 25);
    let mut s = server("uct:sims=50");
    for (i, (cmd, want)) in pairs.iter().enumerate() {
        let (got, quit) = s.handle_line(cmd).expect("every command gets a reply");
        assert_eq!(&got, want, "command {i}: {cmd}");
        assert_eq!(quit, i == pairs.len() - 1, "only quit ends the session");
    }
    // The same script through `run` stops at quit and ignores what follows.
    let script: String = pairs
        .iter()
        .map(|(c, _)| format!("{c}\n"))
        .collect::<String>()
        + "name\n";
    let out = session("uct:sims=50", &script);
    assert!(out.ends_with("=99\n\n"), "{out}");
}

#[test]
fn list_commands_covers_the_issue_and_known_command_agrees() {
    let out = session("uct:sims=50", "list_commands\n");
    for c in [
        "protocol_version",
        "name",
        "version",
        "known_command",
        "list_commands",
        "quit",
        "boardsize",
        "clear_board",
        "komi",
        "play",
        "genmove",
        "undo",
        "showboard",
        "final_score",
        "final_status_list",
        "time_settings",
        "time_left",
        "kgs-genmove_cleanup",
        "gogui-analyze_commands",
    ] {
        assert!(
            out.lines().any(|l| l.trim_start_matches("= ") == c),
            "{c} missing"
        );
        let k = session("uct:sims=50", &format!("known_command {c}\n"));
        assert_eq!(k, "= true\n\n");
    }
}

#[test]
fn genmove_replies_with_a_legal_vertex_and_records_it() {
    let mut s = server("uct:sims=300");
    let (reply, _) = s.handle_line("12 genmove b").unwrap();
    let vertex = reply.strip_prefix("=12 ").expect(&reply).trim();
    let mv = Move::from_gtp(vertex).unwrap();
    assert_eq!(s.engine().game().last_move(), Some((Color::Black, mv)));
    let (reply, _) = s.handle_line("kgs-genmove_cleanup white").unwrap();
    assert!(reply.starts_with("= "), "{reply}");
    assert_eq!(s.engine().game().move_count(), 2);
    let (reply, _) = s.handle_line("genmove").unwrap();
    assert!(reply.starts_with("? syntax error"), "{reply}");
    let (reply, _) = s.handle_line("clear_board").unwrap();
    assert_eq!(reply, "=\n\n");
    assert_eq!(s.engine().game().move_count(), 0);
}

#[test]
fn analyze_commands_show_pruner_scores_and_pruned_points() {
    let mut s = server("uct:sims=50,prune=rule:41@0");
    let (list, _) = s.handle_line("gogui-analyze_commands").unwrap();
    assert!(list.contains("akushu-pruner_scores %c") && list.contains("akushu-pruned %c"));
    let (scores, _) = s.handle_line("akushu-pruner_scores b").unwrap();
    let rows: Vec<&str> = scores.trim().lines().skip(1).collect();
    assert_eq!(rows.len(), 9, "{scores}");
    assert!(rows.iter().all(|r| r.split_whitespace().count() == 9));
    // Corner worse than centre for the rule pruner.
    let a9: f32 = rows[0].split_whitespace().next().unwrap().parse().unwrap();
    let e5: f32 = rows[4].split_whitespace().nth(4).unwrap().parse().unwrap();
    assert!(a9 > e5);
    let (pruned, _) = s.handle_line("akushu-pruned b").unwrap();
    let marks = pruned.lines().find(|l| l.starts_with("MARK")).unwrap();
    assert_eq!(marks.split_whitespace().count() - 1, 41, "{pruned}");
    assert!(marks.contains("A9") && !marks.contains("E5"));
    assert!(pruned.contains("rule prunes 41 points"), "{pruned}");
    // Pruning from depth 1 leaves the root whole, and the text says so.
    let mut deep = server("uct:sims=20,prune=rule:41@1");
    let (pruned, _) = deep.handle_line("akushu-pruned b").unwrap();
    assert!(
        pruned.contains("prunes from depth 1: nothing at the root"),
        "{pruned}"
    );
}

#[test]
fn garbage_never_crashes_and_every_line_gets_at_most_one_reply() {
    let mut s = server("uct:sims=20");
    let words = [
        "play",
        "genmove",
        "b",
        "w",
        "pass",
        "E5",
        "J9",
        "I5",
        "A0",
        "boardsize",
        "komi",
        "nan",
        "inf",
        "-3",
        "undo",
        "9",
        "12",
        "quit2",
        "final_status_list",
        "time_left",
        "\t",
        "#",
        "showboard",
        "kgs-genmove_cleanup",
        "akushu-pruned",
        "fixed_handicap",
        "place_free_handicap",
        "set_free_handicap",
        "é",
        "\u{7}",
        "999999999999999999999",
    ];
    let mut rng = FastRng::new(3);
    for _ in 0..3000 {
        let n = rng.below(5) as usize;
        let line: Vec<&str> = (0..n)
            .map(|_| words[rng.below(words.len() as u32) as usize])
            .collect();
        let line = line.join(" ");
        if line.split_whitespace().next() == Some("quit") {
            continue;
        }
        if let Some((reply, _)) = s.handle_line(&line) {
            assert!(
                reply.starts_with('=') || reply.starts_with('?'),
                "{line:?} -> {reply:?}"
            );
            assert!(reply.ends_with("\n\n") && !reply[..reply.len() - 2].contains("\n\n"));
        }
    }
}

#[test]
fn binary_speaks_gtp_and_ends_on_quit_and_on_eof() {
    for (script, ends_with) in [
        (
            "1 name\n2 play b e5\n3 genmove w\n4 quit\n5 name\n",
            "=4\n\n",
        ),
        ("name\nplay b e5\n", "=\n\n"),
    ] {
        let out = akushu_gtp(&["--engine", "uct:sims=200", "--seed", "3"], script);
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.starts_with("=1 akushu\n\n") || text.starts_with("= akushu\n\n"),
            "{text}"
        );
        assert!(text.ends_with(ends_with), "{text}");
        // The resolved config goes to stderr, never into the protocol stream.
        assert!(
            String::from_utf8(out.stderr)
                .unwrap()
                .contains("\"sims\":200")
        );
    }
}

/// A quick spec of every registered engine kind: 20 simulations a move for every kind that
/// counts them (the presets included, whose own counts take minutes a move on a small
/// machine), so each still builds everything its preset names and searches with it.
fn quick_specs() -> Vec<String> {
    akushu::search::spec::ENGINE_KINDS
        .iter()
        .map(|k| {
            if k.keys().iter().any(|key| key.name == "sims") {
                format!("{}:sims=20", k.name)
            } else {
                k.name.to_string()
            }
        })
        .collect()
}

#[test]
fn quiet_gtp_prints_only_responses() {
    let script = "1 genmove b\n2 quit\n";
    // Without --quiet the header and the configuration go to stderr, for GUI log windows.
    let loud = akushu_gtp(&["--engine", "uct:sims=50"], script);
    assert!(loud.status.success());
    let stderr = String::from_utf8_lossy(&loud.stderr);
    assert!(stderr.starts_with("# akushu gtp --engine"), "{stderr}");
    // With --quiet stderr stays empty and stdout holds the two responses alone.
    let quiet = akushu_gtp(&["--engine", "uct:sims=50", "--quiet"], script);
    assert!(quiet.status.success());
    assert_eq!(String::from_utf8_lossy(&quiet.stderr), "");
    let text = String::from_utf8(quiet.stdout).unwrap();
    assert!(
        text.starts_with("=1 ") && text.ends_with("=2\n\n"),
        "{text}"
    );
    // Errors still reach stderr when quiet.
    let bad = akushu_gtp(&["--engine", "nosuch", "--quiet"], "quit\n");
    assert!(!bad.status.success());
    assert!(!bad.stderr.is_empty());
}

#[test]
fn every_engine_kind_plays_over_gtp_and_in_a_match() {
    let specs = quick_specs();
    assert!(specs.iter().any(|s| s == "random") && specs.iter().any(|s| s == "territory"));
    for spec in &specs {
        // `akushu gtp --engine SPEC`
        let out = akushu_gtp(
            &["--engine", spec, "--seed", "3", "--quiet"],
            "1 genmove b\n2 quit\n",
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "gtp --engine {spec}: {stderr}");
        let reply = text
            .strip_prefix("=1 ")
            .unwrap_or_else(|| panic!("{spec}: {text}"));
        let vertex = reply.lines().next().unwrap();
        assert!(Move::from_gtp(vertex).is_ok(), "{spec}: {text}");
        // The arena's player, as `akushu match` and experiments build it.
        let mut p = akushu::arena::build_player(spec, 3, akushu::arena::GtpTimeouts::default())
            .unwrap_or_else(|e| panic!("match player {spec}: {e}"));
        p.new_game(6.5).unwrap();
        p.genmove(Color::Black)
            .unwrap_or_else(|e| panic!("match player {spec}: {e}"));
    }
}

#[test]
fn gtp_help_lists_every_key_of_every_kind() {
    let out = Command::new(env!("CARGO_BIN_EXE_akushu"))
        .args(["gtp", "--help"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    // The per-move cap without time settings is said, with its default.
    let cap = help.split("--move-cap").nth(1).unwrap_or("");
    assert!(cap.contains("[default: 10]"), "{help}");
    for kind in akushu::search::spec::ENGINE_KINDS.iter() {
        assert!(help.contains(&format!("{}: ", kind.name)), "{help}");
        for k in kind.keys() {
            assert!(
                help.contains(&format!("  {} ", k.name)),
                "{} missing: {help}",
                k.name
            );
        }
    }
}

/// The reply of `command` on `s`.
fn reply(s: &mut GtpServer, command: &str) -> String {
    s.handle_line(command).expect("a reply").0
}

#[test]
fn handicap_commands_place_black_stones_with_white_to_move() {
    let mut s = server("uct:sims=50");
    for (command, want) in [
        (
            "fixed_handicap 1",
            "? invalid number of stones: fixed_handicap takes 2 to 9 on 9x9, not 1\n\n",
        ),
        (
            "fixed_handicap 10",
            "? invalid number of stones: fixed_handicap takes 2 to 9 on 9x9, not 10\n\n",
        ),
        (
            "fixed_handicap two",
            "? syntax error: bad number of stones `two`\n\n",
        ),
        ("komi 0.5", "=\n\n"),
        ("3 fixed_handicap 4", "=3 C3 G7 C7 G3\n\n"),
        ("fixed_handicap 2", "? board not empty\n\n"),
        // Setup stones are not moves: undo has nothing to take back.
        ("undo", "? cannot undo\n\n"),
        // Area scoring counts the stones and the empty points only black reaches.
        ("final_score", "= B+80.5\n\n"),
        ("clear_board", "=\n\n"),
        ("play b e5", "=\n\n"),
        ("set_free_handicap A1 B2", "? board not empty\n\n"),
        ("clear_board", "=\n\n"),
        (
            "set_free_handicap A1",
            "? bad vertex list: set_free_handicap takes 2 to 80 vertices, got 1\n\n",
        ),
        (
            "set_free_handicap A1 a1",
            "? bad vertex list: set_free_handicap: A1 given twice\n\n",
        ),
        (
            "set_free_handicap A1 pass",
            "? bad vertex list: set_free_handicap: pass is not a point\n\n",
        ),
        ("set_free_handicap A1 J9 E5", "=\n\n"),
        ("clear_board", "=\n\n"),
        (
            "place_free_handicap 1",
            "? invalid number of stones: place_free_handicap takes 2 to 80, not 1\n\n",
        ),
        // More stones than the engine's pattern: GTP lets it place fewer.
        ("place_free_handicap 20", "= C3 G7 C7 G3 C5 G5 E3 E7 E5\n\n"),
    ] {
        assert_eq!(reply(&mut s, command), want, "{command}");
    }
    let game = s.engine().game();
    assert_eq!(game.to_move(), Color::White);
    assert_eq!(game.board().stones(Color::Black).count_ones(), 9);
    assert_eq!(game.move_count(), 0);
    let mv = reply(&mut s, "genmove w");
    assert!(
        Move::from_gtp(mv.trim_start_matches("= ").trim()).is_ok(),
        "{mv}"
    );
    assert_eq!(s.engine().game().move_count(), 1);
    // A handicap needs an engine that can start from a set-up position: every kind can.
    for spec in quick_specs() {
        let mut s = server(&spec);
        assert_eq!(reply(&mut s, "fixed_handicap 2"), "= C3 G7\n\n", "{spec}");
        // Komi set after the handicap keeps the stones.
        assert_eq!(reply(&mut s, "komi 0.5"), "=\n\n", "{spec}");
        let game = s.engine().game();
        assert_eq!(game.to_move(), Color::White, "{spec}");
        assert_eq!(game.board().stones(Color::Black).count_ones(), 2, "{spec}");
        assert_eq!(game.komi(), 0.5, "{spec}");
    }
}

fn fixture(name: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/gtp")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn loadsgf_reads_setup_moves_komi_and_move_number() {
    let path = fixture("handicap_game.sgf");
    let mut s = server("uct:sims=50");
    assert_eq!(reply(&mut s, &format!("loadsgf {path}")), "=\n\n");
    let game = s.engine().game();
    assert_eq!(game.move_count(), 4);
    assert_eq!(game.board().stones(Color::Black).count_ones(), 3);
    assert_eq!(game.board().stones(Color::White).count_ones(), 2);
    assert_eq!(game.komi(), 0.5);
    assert_eq!(game.to_move(), Color::White);
    // The position before move 2: the handicap and white's first move.
    assert_eq!(reply(&mut s, &format!("loadsgf {path} 2")), "=\n\n");
    let game = s.engine().game();
    assert_eq!(
        game.moves(),
        &[(Color::White, Move::from_gtp("E5").unwrap())]
    );
    assert_eq!(game.board().stones(Color::Black).count_ones(), 2);
    assert_eq!(reply(&mut s, &format!("loadsgf {path} 1")), "=\n\n");
    assert_eq!(s.engine().game().move_count(), 0);
    assert_eq!(s.engine().game().to_move(), Color::White);
    // Errors name the command and the file.
    let bad = reply(&mut s, &format!("loadsgf {path} 0"));
    assert!(
        bad.starts_with("? syntax error: loadsgf move_number"),
        "{bad}"
    );
    let missing = reply(&mut s, "loadsgf /nonexistent/game.sgf");
    assert!(
        missing.starts_with("? cannot load file: loadsgf `/nonexistent/game.sgf`"),
        "{missing}"
    );
    let dir = std::env::temp_dir().join(format!("akushu-loadsgf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.sgf");
    std::fs::write(&big, "(;GM[1]FF[4]SZ[19];B[pd];W[dp])").unwrap();
    let refused = reply(&mut s, &format!("loadsgf {}", big.display()));
    assert!(
        refused.contains("loadsgf") && refused.contains("board size 19"),
        "{refused}"
    );
    // A refused file leaves the game as it was.
    assert_eq!(
        s.engine().game().board().stones(Color::Black).count_ones(),
        2
    );
    assert_eq!(
        reply(&mut s, "loadsgf"),
        "? syntax error: missing file name\n\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn printsgf_parses_back_and_round_trips_through_loadsgf() {
    let mut s = server("uct:sims=50");
    for command in [
        "komi 3.5",
        "fixed_handicap 2",
        "play w e5",
        "play b d4",
        "play w pass",
    ] {
        assert!(reply(&mut s, command).starts_with('='), "{command}");
    }
    let printed = reply(&mut s, "printsgf");
    let sgf = printed
        .strip_prefix("= ")
        .and_then(|t| t.strip_suffix("\n\n"))
        .expect(&printed);
    let rec = akushu::sgf::parse_record(sgf.as_bytes(), "printed", "printsgf").unwrap();
    assert_eq!(rec.moves, s.engine().game().moves());
    assert_eq!(rec.komi, Some(3.5));
    assert_eq!(rec.handicap, 2);
    assert_eq!(rec.setup_black.len(), 2);
    assert_eq!(rec.first_player, Some(Color::White));

    let dir = std::env::temp_dir().join(format!("akushu-printsgf-{}", std::process::id()));
    let file = dir.join("sub/game.sgf");
    // printsgf writes into a folder that exists; it creates none.
    assert!(reply(&mut s, &format!("printsgf {}", file.display())).starts_with("? printsgf"));
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    assert_eq!(
        reply(&mut s, &format!("printsgf {}", file.display())),
        "=\n\n"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim_end(), sgf);
    let board = reply(&mut s, "showboard");
    assert_eq!(reply(&mut s, "clear_board"), "=\n\n");
    assert_eq!(reply(&mut s, "komi 6.5"), "=\n\n");
    assert_eq!(
        reply(&mut s, &format!("loadsgf {}", file.display())),
        "=\n\n"
    );
    assert_eq!(reply(&mut s, "showboard"), board);
    assert_eq!(s.engine().game().komi(), 3.5);
    assert_eq!(reply(&mut s, "printsgf"), printed);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Checks one Leela Zero (or KataGo) info line: every candidate's fields in order, values
/// in range, vertices on the board, a variation starting with the move. Returns the
/// candidates' visits.
fn check_info_line(line: &str, kata: bool) -> Vec<u32> {
    let mut visits = Vec::new();
    for (k, cand) in line.split("info ").skip(1).enumerate() {
        let words: Vec<&str> = cand.split_whitespace().collect();
        let keys: Vec<&str> = words.iter().step_by(2).copied().collect();
        let want: &[&str] = if kata {
            &[
                "move",
                "visits",
                "utility",
                "winrate",
                "scoreMean",
                "scoreStdev",
                "scoreLead",
                "prior",
                "lcb",
                "order",
                "pv",
            ]
        } else {
            &["move", "visits", "winrate", "prior", "lcb", "order", "pv"]
        };
        assert_eq!(&keys[..want.len()], want, "{cand}");
        let value = |key: &str| words[words.iter().position(|w| *w == key).unwrap() + 1];
        let mv = Move::from_gtp(value("move")).unwrap();
        let v: u32 = value("visits").parse().unwrap();
        assert!(v > 0, "{cand}");
        visits.push(v);
        assert_eq!(value("order"), k.to_string());
        for key in ["winrate", "prior", "lcb"] {
            if kata {
                let x: f32 = value(key).parse().unwrap();
                assert!((0.0..=1.0).contains(&x), "{key} {x}");
            } else {
                let x: u32 = value(key).parse().unwrap();
                assert!(x <= 10_000, "{key} {x}");
            }
        }
        let pv_at = words.iter().position(|w| *w == "pv").unwrap();
        let pv: Vec<Move> = words[pv_at + 1..]
            .iter()
            .map(|w| Move::from_gtp(w).unwrap())
            .collect();
        assert_eq!(pv.first(), Some(&mv), "{cand}");
    }
    assert!(!visits.is_empty(), "{line}");
    assert!(
        visits.windows(2).all(|w| w[0] >= w[1]),
        "best first: {line}"
    );
    visits
}

#[test]
fn lz_analyze_and_kata_analyze_print_info_lines_in_their_formats() {
    let mut s = server("uct:sims=50");
    assert_eq!(reply(&mut s, "play b e5"), "=\n\n");
    // Without a next line to wait for, handle_line runs one search chunk and ends.
    let out = reply(&mut s, "7 lz-analyze w 10");
    let body = out.strip_prefix("=7\n").expect(&out);
    let line = body.strip_suffix("\n\n").expect(&out);
    assert!(!line.contains('\n'), "one info line: {out}");
    assert!(!line.contains("move E5 "), "occupied point listed: {line}");
    check_info_line(line, false);
    // The tree is kept: a second analysis of the same position adds visits.
    let first: u32 = check_info_line(line, false).iter().sum();
    let again = reply(&mut s, "lz-analyze w 10");
    let second: u32 = check_info_line(again.trim(), false).iter().sum();
    assert!(second > first, "{first} then {second}");

    let kata = reply(&mut s, "kata-analyze interval 5 maxmoves 3");
    let line = kata.strip_prefix("=\n").unwrap().trim_end();
    assert!(check_info_line(line, true).len() <= 3, "{line}");
    // Analysis searches; it does not play.
    assert_eq!(s.engine().game().move_count(), 1);

    let bad = reply(&mut s, "lz-analyze b interval");
    assert_eq!(
        bad,
        "? syntax error: lz-analyze: `interval` needs a value\n\n"
    );
    let bad = reply(&mut s, "lz-analyze b 10 avoid b");
    assert!(
        bad.starts_with("? syntax error: lz-analyze: unknown argument `avoid`"),
        "{bad}"
    );
}

/// A settled position, white to move: black owns rows 1-6 (two-eyed, with a dead white
/// stone at E3), white rows 8-9, row 7 is open. Black's area lead is 54 - 18 = 36 less komi
/// 7, give or take row 7: about 29 points.
#[test]
fn kata_analyze_reports_the_playouts_score_and_ownership() {
    let path = fixture("settled_black_ahead.sgf");
    let mut s = server("uct:sims=1000000");
    assert_eq!(reply(&mut s, &format!("loadsgf {path}")), "=\n\n");
    let out = reply(&mut s, "kata-analyze w 20 ownership true");
    let line = out.strip_prefix("=\n").unwrap().trim_end();
    let (infos, owners) = line.split_once(" ownership ").expect(line);
    let own: Vec<f64> = owners
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(own.len(), 81, "{owners}");
    let at = |v: &str| own[Move::from_gtp(v).unwrap().index()];
    // White's living group is white's, black's is not, the dead white stone is black's.
    assert!(at("A8") > 0.95 && at("J8") > 0.95, "{owners}");
    assert!(at("A6") < -0.95 && at("H2") < -0.95, "{owners}");
    assert!(at("E3") < -0.8, "dead stone: {}", at("E3"));
    // Each move's score: white's margin, black about 29 ahead.
    let mut weighted = 0.0;
    let mut visits = 0.0;
    for cand in infos.split("info ").skip(1) {
        let words: Vec<&str> = cand.split_whitespace().collect();
        let value = |key: &str| -> f64 {
            words[words.iter().position(|w| *w == key).expect(cand) + 1]
                .parse()
                .unwrap()
        };
        let (mean, lead, sd) = (value("scoreMean"), value("scoreLead"), value("scoreStdev"));
        assert!((-36.0..-22.0).contains(&mean) && lead == mean, "{cand}");
        assert!((0.0..6.0).contains(&sd), "{cand}");
        weighted += value("visits") * mean;
        visits += value("visits");
    }
    // The same simulations give the scores and the owners: white's mean margin is the sum of
    // white's ownership plus komi.
    let from_owners = own.iter().sum::<f64>() + 7.0;
    assert!(
        (weighted / visits - from_owners).abs() < 0.05,
        "{} vs {from_owners}",
        weighted / visits
    );
    // Without `ownership true` no ownership is sent; leela's format carries no score.
    let plain = reply(&mut s, "kata-analyze w 5");
    assert!(
        plain.contains("scoreLead") && !plain.contains("ownership"),
        "{plain}"
    );
    assert!(!reply(&mut s, "lz-analyze w 5").contains("score"));
}

#[test]
fn genmove_analyze_prints_info_then_play_and_plays_the_move() {
    let mut s = server("uct:sims=300");
    for command in ["lz-genmove_analyze b 10", "genmove_analyze w"] {
        let out = reply(&mut s, command);
        let body = out.strip_prefix("=\n").expect(&out);
        let mut lines = body.lines();
        check_info_line(lines.next().unwrap(), false);
        let played = lines.next().unwrap().strip_prefix("play ").expect(&out);
        let mv = Move::from_gtp(played).unwrap();
        assert_eq!(s.engine().game().last_move().map(|m| m.1), Some(mv));
        assert!(out.ends_with(&format!("play {played}\n\n")), "{out}");
    }
    assert_eq!(s.engine().game().move_count(), 2);
}

#[test]
fn engines_without_analysis_refuse_it_and_do_not_list_it() {
    let mut s = server("random");
    assert_eq!(
        reply(&mut s, "lz-analyze b 10"),
        "? analysis not supported\n\n"
    );
    assert_eq!(
        reply(&mut s, "3 kata-analyze 10"),
        "?3 analysis not supported\n\n"
    );
    assert_eq!(reply(&mut s, "known_command lz-analyze"), "= false\n\n");
    assert!(!reply(&mut s, "list_commands").contains("lz-analyze"));
    assert_eq!(reply(&mut s, "known_command loadsgf"), "= true\n\n");
    let mut uct = server("uct:sims=50");
    let list = reply(&mut uct, "list_commands");
    for c in [
        "lz-analyze",
        "kata-analyze",
        "lz-genmove_analyze",
        "genmove_analyze",
        "loadsgf",
        "printsgf",
        "fixed_handicap",
        "place_free_handicap",
        "set_free_handicap",
    ] {
        assert!(list.lines().any(|l| l.trim_start_matches("= ") == c), "{c}");
        assert_eq!(reply(&mut uct, &format!("known_command {c}")), "= true\n\n");
    }
}

#[test]
fn binary_analysis_runs_until_the_next_line_then_answers_it() {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_akushu"))
        .args(["gtp", "--engine", "uct:sims=100", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    stdin.write_all(b"play b e5\n5 lz-analyze w 5\n").unwrap();
    assert_eq!(lines.next().unwrap().unwrap(), "=");
    assert_eq!(lines.next().unwrap().unwrap(), "");
    assert_eq!(lines.next().unwrap().unwrap(), "=5");
    // The analysis goes on while no line arrives: several updates, visits growing.
    let mut totals = Vec::new();
    while totals.len() < 3 {
        let line = lines.next().unwrap().unwrap();
        totals.push(check_info_line(&line, false).iter().sum::<u32>());
    }
    assert!(totals.windows(2).all(|w| w[0] < w[1]), "{totals:?}");
    // Any line stops it: the response ends with a blank line, then that line is answered.
    stdin.write_all(b"6 name\n").unwrap();
    let mut rest = Vec::new();
    loop {
        let line = lines.next().unwrap().unwrap();
        if line == "=6 akushu" {
            break;
        }
        rest.push(line);
    }
    assert_eq!(rest.last().map(String::as_str), Some(""), "{rest:?}");
    assert!(
        rest[..rest.len() - 1]
            .iter()
            .all(|l| l.starts_with("info move ")),
        "{rest:?}"
    );
    // The stdin pipe stays open: quit alone must end the process.
    stdin.write_all(b"quit\n").unwrap();
    assert!(child.wait().unwrap().success());
}

/// `loadsgf` reads regular files only, through a bounded reader: a FIFO (which would block
/// forever) and a device such as `/dev/zero` (size 0, endless) are refused at once, and a
/// Latin-1 record without `CA` keeps its result and first move.
#[test]
fn loadsgf_refuses_what_is_not_a_regular_file_and_reads_latin1() {
    let dir = std::env::temp_dir().join(format!("akushu-gtp-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("f.sgf");
    let made = Command::new("mkfifo").arg(&fifo).status();
    let mut s = server("uct:sims=50");
    if made.is_ok_and(|st| st.success()) {
        let r = reply(&mut s, &format!("loadsgf {}", fifo.display()));
        assert!(
            r.starts_with("? cannot load file") && r.contains("not a regular file"),
            "{r}"
        );
    }
    let r = reply(&mut s, "loadsgf /dev/zero");
    assert!(r.contains("not a regular file"), "{r}");
    let latin = dir.join("latin.sgf");
    std::fs::write(&latin, b"(;SZ[9]KM[6.5]PW[\xC6r\xF8];B[ee];W[cc])").unwrap();
    assert_eq!(
        reply(&mut s, &format!("loadsgf {}", latin.display())),
        "=\n\n"
    );
    let game = s.engine().game();
    assert_eq!(game.move_count(), 2);
    assert_eq!(
        game.moves()[0],
        (Color::Black, Move::from_gtp("E5").unwrap())
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// At the end of a game (two passes) `final_status_list dead` names the stones the search
/// expects to die and `final_score` counts without them, so a GUI's count agrees with the
/// search; before the end the board counts as it stands.
#[test]
fn final_score_and_dead_stones_come_from_the_search_at_the_end() {
    let path = fixture("settled_black_ahead.sgf");
    let mut s = server("uct:sims=10000");
    assert_eq!(reply(&mut s, &format!("loadsgf {path}")), "=\n\n");
    // Before the end: the dead white stone at E3 still counts (and spoils black's points
    // around it): 49 - 19 - 7.
    assert_eq!(reply(&mut s, "final_status_list dead"), "=\n\n");
    assert_eq!(reply(&mut s, "final_score"), "= B+23\n\n");
    reply(&mut s, "play w pass");
    reply(&mut s, "play b pass");
    assert_eq!(reply(&mut s, "final_status_list dead"), "= E3\n\n");
    // Without it black has rows 1 to 6 whole: 54 - 18 - 7.
    assert_eq!(reply(&mut s, "final_score"), "= B+29\n\n");
    let alive = reply(&mut s, "final_status_list alive");
    assert!(
        alive.contains("A8") && alive.contains("A6") && !alive.contains("E3"),
        "{alive}"
    );
    // The search left the game as it was: both passes are still there to undo.
    assert_eq!(s.engine().game().move_count(), 2);
}

/// With pondering on, the engine searches the opponent's replies after its own move until
/// the next line arrives (here at once: one short chunk), so the next move starts from a
/// bigger tree; off, nothing searches between commands.
#[test]
fn pondering_searches_the_opponents_reply_until_the_next_command() {
    let visits = |ponder: bool| -> u32 {
        let mut s = GtpServer::new(build_engine("uct:sims=2000", 1).unwrap()).with_ponder(ponder);
        assert!(reply(&mut s, "genmove b").starts_with("= "));
        let a = s.engine_mut().analyzer().unwrap();
        a.candidates(Color::White, 1).iter().map(|c| c.visits).sum()
    };
    let (off, on) = (visits(false), visits(true));
    assert!(on > off, "pondering added no search: {off} then {on}");
    // The binary answers the next command at once while it ponders.
    let out = akushu_gtp(
        &["--engine", "uct:sims=2000", "--ponder", "--quiet"],
        "genmove b\nname\nquit\n",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("= akushu"), "{text}");
}

/// A search of many minutes: the tests below see it end long before.
const ENDLESS: &str = "uct:sims=100000000";

/// Waits for `child` at most `secs` seconds; kills it and fails when it runs on. The bound is
/// generous (the search it cuts would run for many minutes), so a loaded machine passes.
fn exits_within(child: &mut std::process::Child, secs: u64, what: &str) {
    let start = std::time::Instant::now();
    while start.elapsed() < std::time::Duration::from_secs(secs) {
        if child.try_wait().unwrap().is_some() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("{what}: still running after {secs} s");
}

fn endless_gtp(extra: &[&str]) -> std::process::Child {
    let mut args = vec!["--engine", ENDLESS, "--quiet", "--move-cap", "0"];
    args.extend_from_slice(extra);
    gtp_child(&args, Stdio::null())
}

/// Input that ends without `quit` while a `genmove` searches: the controller is gone, so
/// the search ends at its next check, its move is still answered, and the engine exits.
#[test]
fn a_search_ends_when_the_input_closes_without_quit() {
    use std::io::Read;
    let mut child = endless_gtp(&[]);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"1 genmove b\n").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    drop(stdin);
    exits_within(&mut child, 20, "gtp after its input closed");
    let mut text = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    let vertex = text.strip_prefix("=1 ").expect(&text).trim();
    assert!(Move::from_gtp(vertex).is_ok(), "{text}");
}

/// The controller closes its end of stdout but keeps the input open: nobody reads the
/// answer, so the search ends at once (not at its end, when the answer is written).
#[test]
fn a_search_ends_when_nobody_reads_stdout() {
    let mut child = endless_gtp(&[]);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"genmove b\n").unwrap();
    drop(child.stdout.take());
    exits_within(&mut child, 20, "gtp with its stdout closed");
    drop(stdin);
}

/// The process that started the engine is killed (`kill -9` of a GUI's shell): the engine,
/// its input still open, exits instead of searching on for nobody.
#[test]
#[cfg(unix)]
fn a_search_ends_when_the_parent_is_killed() {
    use std::io::BufRead;
    // A background job of a non-interactive shell reads /dev/null: the shell's input is
    // handed over through descriptor 3.
    let mut shell = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "exec 3<&0; \"$0\" gtp --engine {ENDLESS} --quiet --move-cap 0 <&3 3<&- & echo $!; wait"
        ))
        .arg(env!("CARGO_BIN_EXE_akushu"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = shell.stdin.take().unwrap();
    let mut out = std::io::BufReader::new(shell.stdout.take().unwrap());
    let mut pid = String::new();
    out.read_line(&mut pid).unwrap();
    let pid: u32 = pid.trim().parse().expect(&pid);
    stdin.write_all(b"genmove b\n").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    shell.kill().unwrap();
    shell.wait().unwrap();
    // Gone, or a zombie nobody reaps (a container's init may not): either has exited.
    let running = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
            !s.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
    };
    let start = std::time::Instant::now();
    while running() && start.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    if running() {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        panic!("gtp {pid} still running 20 s after its parent was killed");
    }
    drop(stdin);
}

/// Without time settings a move is capped (`--move-cap`), however many visits the engine
/// may run; once the controller sends time settings, its clock rules instead of the cap.
#[test]
fn a_move_is_capped_until_the_controller_sends_time_settings() {
    let run = |cap: &str, script: &str| {
        let start = std::time::Instant::now();
        let mut child = gtp_child(
            &["--engine", ENDLESS, "--quiet", "--move-cap", cap],
            Stdio::null(),
        );
        feed(&mut child, script);
        exits_within(&mut child, 30, &format!("--move-cap {cap}: {script:?}"));
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let moved = text.lines().any(|l| {
            l.strip_prefix("= ")
                .is_some_and(|v| Move::from_gtp(v).is_ok())
        });
        assert!(moved && text.ends_with("=\n\n"), "{text}");
        start.elapsed().as_secs_f64()
    };
    run("0.5", "genmove b\nquit\n");
    // The controller's clock: about 2 s for the move, the cap of 0.1 s lifted.
    let secs = run("0.1", "time_settings 0 2 1\ngenmove b\nquit\n");
    assert!(secs >= 1.0, "the cap ruled over time_settings: {secs:.2} s");
}

/// GTP ends no game at two passes: `play` after them is a move (KataGo and GNU Go accept
/// it), and the engine plays on from there.
#[test]
fn play_after_two_passes_is_accepted() {
    for spec in ["uct:sims=50", "flat:sims=50", "random", "territory"] {
        let mut s = server(spec);
        for command in ["play b pass", "play w pass", "play b e5"] {
            assert_eq!(reply(&mut s, command), "=\n\n", "{spec}: {command}");
        }
        assert!(!s.engine().game().is_over(), "{spec}");
        let mv = reply(&mut s, "genmove w");
        assert!(mv.starts_with("= ") && !mv.contains("pass"), "{spec}: {mv}");
        // Two more passes end it again; undo takes the moves back one by one.
        assert_eq!(reply(&mut s, "play b pass"), "=\n\n");
        assert_eq!(reply(&mut s, "play w pass"), "=\n\n");
        assert!(s.engine().game().is_over(), "{spec}");
        assert_eq!(s.engine().game().move_count(), 6, "{spec}");
    }
}

/// `loadsgf` refusals say what is wrong: a point set up as both colours, and a komi that is
/// no number, whether `sgf-parse` reads it (`nan`) or not (`six and a half`): one message.
#[test]
fn loadsgf_names_a_contradictory_setup_and_an_unreadable_komi() {
    let dir = std::env::temp_dir().join(format!("akushu-loadsgf-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut s = server("uct:sims=50");
    let mut load = |name: &str, sgf: &str| {
        let path = dir.join(name);
        std::fs::write(&path, sgf).unwrap();
        let answer = reply(&mut s, &format!("loadsgf {}", path.display()));
        (answer, s.engine().game().komi())
    };
    let (both, _) = load("both.sgf", "(;GM[1]SZ[9]AB[cc][dd]AW[cc];W[ee])");
    assert!(
        both.starts_with("? cannot load file: loadsgf")
            && both.contains("setup point cc is both black (AB) and white (AW)")
            && !both.contains("not on the 9x9 board"),
        "{both}"
    );
    for (km, shown) in [
        ("six and a half", "six and a half"),
        ("nan", "NaN"),
        ("1e300", "1e300"),
    ] {
        let (r, _) = load("komi.sgf", &format!("(;GM[1]SZ[9]KM[{km}];B[ee])"));
        assert!(
            r.starts_with("? cannot load file: loadsgf")
                && r.contains(&format!("komi KM[{shown}] is not a number of points")),
            "KM[{km}]: {r}"
        );
    }
    // Komi that reads as a number is kept, an empty one is no komi.
    assert_eq!(
        load("ok.sgf", "(;GM[1]SZ[9]KM[7 points];B[ee])"),
        ("=\n\n".to_string(), 7.0)
    );
    assert_eq!(load("empty.sgf", "(;GM[1]SZ[9]KM[];B[ee])").0, "=\n\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A lost position at a short clock: white to move against 60 black stones. No search of
/// 0.1 s or 1 s reaches strong8's `resign_visits` (500) on its best move, but the win rate
/// stays below `resign` move after move, so it resigns after `resign_turns` (3) such moves.
#[test]
fn strong8_resigns_a_lost_game_at_short_clocks() {
    let black: Vec<String> = (1..=7)
        .flat_map(|row| "ABCDEFGHJ".chars().map(move |c| format!("{c}{row}")))
        .filter(|v| !["B2", "E2", "H2"].contains(&v.as_str()))
        .collect();
    assert_eq!(black.len(), 60);
    for period in ["0.1", "1"] {
        let mut s = server("strong8");
        let setup = format!("set_free_handicap {}", black.join(" "));
        assert_eq!(reply(&mut s, &setup), "=\n\n");
        let clock = format!("time_settings 0 {period} 1");
        assert_eq!(reply(&mut s, &clock), "=\n\n");
        let mut answers = Vec::new();
        while answers.len() < 5 && answers.last() != Some(&"= resign\n\n".to_string()) {
            if !answers.is_empty() {
                assert_eq!(reply(&mut s, "play b pass"), "=\n\n");
            }
            answers.push(reply(&mut s, "genmove w"));
        }
        assert!(
            answers.len() <= 3 && answers.last().unwrap() == "= resign\n\n",
            "{period} s a move: {answers:?}"
        );
    }
}

/// `gtp` and `analysis` play the one default engine, `DEFAULT_ENGINE`, when no `--engine` is
/// given.
#[test]
fn gtp_and_analysis_default_to_the_one_default_engine() {
    use akushu::search::spec::DEFAULT_ENGINE;
    use clap::Parser;
    #[derive(Parser)]
    struct Gtp {
        #[command(flatten)]
        args: akushu::cli::gtp::GtpArgs,
    }
    #[derive(Parser)]
    struct Analysis {
        #[command(flatten)]
        args: akushu::cli::analysis::AnalysisArgs,
    }
    assert_eq!(Gtp::parse_from(["gtp"]).args.engine, DEFAULT_ENGINE);
    assert_eq!(
        Analysis::parse_from(["analysis"]).args.engine,
        DEFAULT_ENGINE
    );
}
