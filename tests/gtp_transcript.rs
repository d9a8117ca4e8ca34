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

/// Runs the `akushu gtp` binary with `args`, feeding it `script` on stdin.
fn akushu_gtp(args: &[&str], script: &str) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_akushu"))
        .arg("gtp")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
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
? syntax error: komi: inf is not in the allowed range -500 to 500

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
                .contains("\"sims\": 200")
        );
    }
}

/// A quick spec of every registered engine kind.
fn quick_specs() -> Vec<String> {
    akushu::search::spec::ENGINE_KINDS
        .iter()
        .map(|k| match k.name {
            "uct" | "flat" => format!("{}:sims=20", k.name),
            other => other.to_string(),
        })
        .collect()
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
    for kind in akushu::search::spec::ENGINE_KINDS {
        assert!(help.contains(&format!("{}: ", kind.name)), "{help}");
        for k in (kind.keys)() {
            assert!(
                help.contains(&format!("  {} ", k.name)),
                "{} missing: {help}",
                k.name
            );
        }
    }
}
