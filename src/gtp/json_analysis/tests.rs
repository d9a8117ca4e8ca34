use super::*;

fn server() -> AnalysisServer {
    AnalysisServer::new("uct:sims=200", 1).unwrap()
}

fn one(s: &mut AnalysisServer, line: &str) -> Value {
    let out = s.handle_line(line);
    assert_eq!(out.len(), 1, "{out:?}");
    serde_json::from_str(&out[0]).unwrap()
}

#[test]
fn a_katrain_shaped_query_gets_moves_by_visits_root_info_and_ownership() {
    let mut s = server();
    let v = one(
        &mut s,
        r#"{"id":"q1","moves":[["B","E5"],["W","C3"]],"rules":"tromp-taylor","komi":7,
           "boardXSize":9,"boardYSize":9,"maxVisits":300,"includeOwnership":true,
           "includePolicy":true,"analyzeTurns":[2]}"#,
    );
    assert_eq!(v["id"], "q1");
    assert_eq!(v["turnNumber"], 2);
    let infos = v["moveInfos"].as_array().unwrap();
    assert!(!infos.is_empty());
    let visits: Vec<u64> = infos
        .iter()
        .map(|i| i["visits"].as_u64().unwrap())
        .collect();
    assert!(visits.windows(2).all(|w| w[0] >= w[1]), "{visits:?}");
    for (k, i) in infos.iter().enumerate() {
        assert_eq!(i["order"], k);
        assert!(
            i["scoreLead"].is_number() && i["winrate"].is_number(),
            "{i}"
        );
        assert_eq!(i["pv"][0], i["move"]);
    }
    assert_eq!(v["rootInfo"]["currentPlayer"], "B");
    assert_eq!(v["ownership"].as_array().unwrap().len(), 81);
    let policy = v["policy"].as_array().unwrap();
    assert_eq!(policy.len(), 82);
    // E5 and C3 are occupied: illegal, -1 as in KataGo.
    assert_eq!(policy[4 * 9 + 4], -1.0);
    assert!(policy.iter().filter(|p| p.as_f64().unwrap() >= 0.0).count() > 70);
}

/// A query with no turn to analyze is answered (KataGo's warning shape), so a client
/// that waits for one line per query does not wait forever.
#[test]
fn an_empty_list_of_turns_is_answered_with_a_warning() {
    let mut s = server();
    let v = one(
        &mut s,
        r#"{"id":"none","moves":[["B","E5"]],"analyzeTurns":[],"maxVisits":10}"#,
    );
    assert_eq!(v["id"], "none");
    assert_eq!(v["field"], "analyzeTurns");
    assert!(v["warning"].is_string(), "{v}");
    assert!(s.queue.is_empty());
}

#[test]
fn every_turn_asked_is_answered_and_versions_and_terminations_are_acknowledged() {
    let mut s = server();
    let out = s.handle_line(
        r#"{"id":"t","moves":[["B","E5"],["W","C3"],["B","G7"]],"maxVisits":50,"analyzeTurns":[0,1,3]}"#,
    );
    let turns: Vec<u64> = out
        .iter()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["turnNumber"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(turns, [0, 1, 3]);
    let v = one(&mut s, r#"{"id":"v","action":"query_version"}"#);
    assert_eq!(v["action"], "query_version");
    let v = one(
        &mut s,
        r#"{"id":"x","action":"terminate","terminateId":"t"}"#,
    );
    assert_eq!(v["terminateId"], "t");
}

#[test]
fn malformed_queries_get_katago_errors_naming_the_field() {
    let mut s = server();
    for (line, field) in [
        (r#"{"id":"a","moves":[],"boardXSize":19}"#, "boardXSize"),
        (r#"{"id":"a","moves":[],"rules":"japanese"}"#, "rules"),
        (r#"{"id":"a","moves":[["B","Z9"]]}"#, "moves"),
        (r#"{"id":"a","moves":[],"maxVisits":0}"#, "maxVisits"),
        (
            r#"{"id":"a","moves":[],"analyzeTurns":[3]}"#,
            "analyzeTurns",
        ),
        (r#"{"moves":[]}"#, "id"),
    ] {
        let v = one(&mut s, line);
        assert!(v["error"].is_string(), "{line}: {v}");
        assert_eq!(v["field"], field, "{line}: {v}");
    }
    let v = one(&mut s, "{not json");
    assert!(v["error"].as_str().unwrap().contains("parse"), "{v}");
    // An illegal move is the turn's error, with the id.
    let v = one(&mut s, r#"{"id":"b","moves":[["B","E5"],["W","E5"]]}"#);
    assert_eq!(v["id"], "b");
    assert!(v["error"].as_str().unwrap().contains("illegal"), "{v}");
}

/// KataGo's area-scoring rules are taken by every name it gives them and as rules
/// objects; territory scoring, a group tax or a button are refused on the field.
#[test]
fn area_rules_are_taken_in_each_of_katago_s_spellings() {
    let mut s = AnalysisServer::new("uct:sims=5", 1).unwrap();
    for rules in [
        r#""chinese-ogs""#,
        r#""Chinese-KGS""#,
        r#""bga""#,
        r#"{"scoring":"AREA","ko":"POSITIONAL","suicide":false,"tax":"NONE","hasButton":false,"whiteHandicapBonus":"0"}"#,
        r#"{"scoring":"area"}"#,
    ] {
        let v = one(
            &mut s,
            &format!(r#"{{"id":"r","moves":[],"maxVisits":5,"rules":{rules}}}"#),
        );
        assert!(v["moveInfos"].is_array(), "{rules}: {v}");
    }
    for rules in [
        r#""japanese""#,
        r#""stone-scoring""#,
        r#"{"scoring":"TERRITORY"}"#,
        r#"{"scoring":"AREA","tax":"ALL"}"#,
        r#"{"scoring":"AREA","hasButton":true}"#,
        r#"{"ko":"SIMPLE"}"#,
        "7",
    ] {
        let v = one(
            &mut s,
            &format!(r#"{{"id":"r","moves":[],"maxVisits":5,"rules":{rules}}}"#),
        );
        assert_eq!(v["field"], "rules", "{rules}: {v}");
    }
}

#[test]
fn a_side_ahead_is_ahead_from_every_perspective() {
    // A settled position: black's two-eyed rows 1-6 (with a dead white stone at E3),
    // white's rows 8-9, row 7 open. Black leads by about 36 - 7 = 29 points.
    let rows = [
        ". W . W . W . W .",
        "W W W W W W W W W",
        ". . . . . . . . .",
        "B B B B B B B B B",
        ". B . B . B . B .",
        "B B B B B B B B B",
        ". B . . W . . B .",
        "B B B B B B B B B",
        ". B . B . B . B .",
    ];
    let mut stones = Vec::new();
    for (r, line) in rows.iter().enumerate() {
        for (c, cell) in line.split(' ').enumerate() {
            let vertex = format!("{}{}", "ABCDEFGHJ".as_bytes()[c] as char, 9 - r);
            match cell {
                "B" => stones.push(format!(r#"["B","{vertex}"]"#)),
                "W" => stones.push(format!(r#"["W","{vertex}"]"#)),
                _ => {}
            }
        }
    }
    let stones = stones.join(",");
    let ask = |persp: &str| {
        format!(
            r#"{{"id":"p","moves":[],"initialStones":[{stones}],"initialPlayer":"W","komi":7,
                "maxVisits":2000,"includeOwnership":true,
                "overrideSettings":{{"reportAnalysisWinratesAs":"{persp}"}}}}"#
        )
    };
    let mut s = server();
    let black = one(&mut s, &ask("BLACK"));
    let white = one(&mut s, &ask("WHITE"));
    let lead_b = black["rootInfo"]["scoreLead"].as_f64().unwrap();
    let lead_w = white["rootInfo"]["scoreLead"].as_f64().unwrap();
    assert!((20.0..36.0).contains(&lead_b), "{lead_b}");
    assert!((-36.0..-20.0).contains(&lead_w), "{lead_w}");
    // A black stone (A6) is black's, the dead white stone (E3) too, a white stone (A8)
    // white's: +1, +1, -1 for black and the opposite for white.
    let at = |v: &Value, vertex: &str| -> f64 {
        v["ownership"][Move::from_gtp(vertex).unwrap().index()]
            .as_f64()
            .unwrap()
    };
    assert!(at(&black, "A6") > 0.95 && at(&black, "E3") > 0.8 && at(&black, "A8") < -0.95);
    assert!(at(&white, "A6") < -0.95 && at(&white, "A8") > 0.95);
    assert_eq!(white["rootInfo"]["currentPlayer"], "W");
}

/// `initialStones` for a diagram of rows 9 to 1 (`B`, `W` or `.` per point).
fn initial_stones(rows: &[&str; 9]) -> String {
    let mut stones = Vec::new();
    for (r, line) in rows.iter().enumerate() {
        for (c, cell) in line.split(' ').enumerate() {
            let vertex = format!("{}{}", "ABCDEFGHJ".as_bytes()[c] as char, 9 - r);
            if cell == "B" || cell == "W" {
                stones.push(format!(r#"["{cell}","{vertex}"]"#));
            }
        }
    }
    stones.join(",")
}

/// Every score of a response (the root's and each move's `scoreLead` and `scoreMean`),
/// for moves searched enough to have settled.
fn scores(v: &Value) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    for field in ["scoreLead", "scoreMean"] {
        out.push((
            format!("rootInfo.{field}"),
            v["rootInfo"][field].as_f64().unwrap(),
        ));
        for i in v["moveInfos"].as_array().unwrap() {
            if i["visits"].as_u64().unwrap() >= 20 {
                let mv = i["move"].as_str().unwrap();
                out.push((format!("{mv}.{field}"), i[field].as_f64().unwrap()));
            }
        }
    }
    out
}

/// Scores are reported for the side `reportAnalysisWinratesAs` names, in the root's
/// figures and every move's alike: in a position white leads by about 36 + 7 = 43 points
/// (36 points of area, row 7 shared, komi 7), with white to move `WHITE` and `SIDETOMOVE`
/// report about +43 everywhere and `BLACK` about -43; with black to move, `BLACK` and
/// `SIDETOMOVE` report about -43 and `WHITE` about +43.
#[test]
fn every_move_s_score_is_for_the_side_the_query_asks() {
    // The settled position of `a_side_ahead_is_ahead_from_every_perspective` with the
    // colours swapped: white's two-eyed rows 1-6 (a dead black stone at E3), black's
    // rows 8-9.
    let stones = initial_stones(&[
        ". B . B . B . B .",
        "B B B B B B B B B",
        ". . . . . . . . .",
        "W W W W W W W W W",
        ". W . W . W . W .",
        "W W W W W W W W W",
        ". W . . B . . W .",
        "W W W W W W W W W",
        ". W . W . W . W .",
    ]);
    let mut s = server();
    for (player, persp, white_ahead_reads) in [
        ("W", "WHITE", 1.0),
        ("W", "SIDETOMOVE", 1.0),
        ("W", "BLACK", -1.0),
        ("B", "BLACK", -1.0),
        ("B", "SIDETOMOVE", -1.0),
        ("B", "WHITE", 1.0),
    ] {
        let v = one(
            &mut s,
            &format!(
                r#"{{"id":"p","moves":[],"initialStones":[{stones}],"initialPlayer":"{player}",
                    "komi":7,"maxVisits":1000,
                    "overrideSettings":{{"reportAnalysisWinratesAs":"{persp}"}}}}"#
            ),
        );
        assert_eq!(v["rootInfo"]["currentPlayer"], player, "{v}");
        let scores = scores(&v);
        assert!(scores.len() > 4, "{player} to move, {persp}: {scores:?}");
        for (what, score) in scores {
            let lead = score * white_ahead_reads;
            assert!(
                (34.0..52.0).contains(&lead),
                "{player} to move, as {persp}: {what} = {score}"
            );
        }
    }
}

/// A client script: input lines handed over at given poll calls, output collected.
struct Script {
    /// (poll call at which the line arrives, line)
    input: Vec<(usize, String)>,
    polls: usize,
    out: Vec<Value>,
}

impl ServerIo for Script {
    fn emit(&mut self, line: String) {
        self.out.push(serde_json::from_str(&line).unwrap());
    }
    fn poll(&mut self) -> Vec<String> {
        self.polls += 1;
        let (now, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.input)
            .into_iter()
            .partition(|(at, _)| *at <= self.polls);
        self.input = later;
        now.into_iter().map(|(_, l)| l).collect()
    }
}

fn script(input: Vec<(usize, &str)>) -> Script {
    Script {
        input: input.into_iter().map(|(a, l)| (a, l.to_string())).collect(),
        polls: 0,
        out: Vec::new(),
    }
}

#[test]
fn waiting_turns_go_by_priority_then_arrival() {
    let mut s = server();
    for line in [
        r#"{"id":"low","moves":[],"maxVisits":20}"#,
        r#"{"id":"high","moves":[],"maxVisits":20,"priority":3}"#,
        r#"{"id":"mixed","moves":[["B","E5"]],"maxVisits":20,"analyzeTurns":[0,1],"priorities":[1,4]}"#,
        r#"{"id":"low2","moves":[],"maxVisits":20}"#,
    ] {
        assert!(s.submit(line).is_empty());
    }
    let mut io = script(Vec::new());
    while s.run_next(&mut io) {}
    let order: Vec<(String, u64)> = io
        .out
        .iter()
        .map(|v| {
            (
                v["id"].as_str().unwrap().to_string(),
                v["turnNumber"].as_u64().unwrap(),
            )
        })
        .collect();
    let want = [
        ("mixed", 1),
        ("high", 0),
        ("mixed", 0),
        ("low", 0),
        ("low2", 0),
    ];
    assert_eq!(
        order,
        want.map(|(i, t)| (i.to_string(), t)).to_vec(),
        "highest priority first, ties by arrival"
    );
    let e = one(
        &mut s,
        r#"{"id":"p","moves":[],"analyzeTurns":[0],"priorities":[1,2]}"#,
    );
    assert_eq!(e["field"], "priorities");
}

#[test]
fn a_terminate_stops_the_running_search_and_drops_waiting_turns() {
    let mut s = server();
    s.submit(r#"{"id":"long","moves":[],"maxVisits":1000000,"reportDuringSearchEvery":0.001}"#);
    s.submit(r#"{"id":"queued","moves":[["B","E5"]],"maxVisits":50,"analyzeTurns":[0,1]}"#);
    // The terminate arrives at the 4th look at the input, three chunks into the search.
    let mut io = script(vec![
        (4, r#"{"id":"t","action":"terminate","terminateId":"long"}"#),
        (
            4,
            r#"{"id":"t2","action":"terminate","terminateId":"queued","turnNumbers":[1]}"#,
        ),
    ]);
    assert!(s.run_next(&mut io));
    let last = io.out.last().unwrap();
    assert_eq!(last["id"], "long");
    assert_eq!(last["isDuringSearch"], false);
    let visits = last["rootInfo"]["visits"].as_u64().unwrap();
    assert!(
        (1..=3 * CHUNK).contains(&visits),
        "stopped after three chunks of {CHUNK}: {visits}"
    );
    let during = io
        .out
        .iter()
        .filter(|v| v["isDuringSearch"] == true)
        .count();
    assert!(
        during >= 1,
        "partial reports while it searched: {:?}",
        io.out
    );
    assert!(
        io.out
            .iter()
            .any(|v| v["action"] == "terminate" && v["id"] == "t")
    );
    assert!(
        io.out
            .iter()
            .any(|v| v["id"] == "queued" && v["turnNumber"] == 1 && v["noResults"] == true)
    );
    // The other turn of the queued query still runs.
    let mut rest = script(Vec::new());
    assert!(s.run_next(&mut rest));
    assert_eq!(rest.out[0]["id"], "queued");
    assert_eq!(rest.out[0]["turnNumber"], 0);
    assert!(!s.has_work());
}

#[test]
fn a_reused_engine_answers_as_a_fresh_one_whatever_came_before() {
    let query =
        r#"{"id":"q","moves":[["B","E5"],["W","C3"]],"maxVisits":700,"includeOwnership":true}"#;
    let fresh = server().handle_line(query);
    let mut busy = server();
    busy.handle_line(r#"{"id":"other","moves":[["B","D4"]],"maxVisits":900}"#);
    assert_eq!(busy.handle_line(query), fresh, "same seed, same answer");
    assert_eq!(busy.handle_line(query), fresh);
}

#[test]
fn max_time_ends_a_search_early() {
    let mut s = server();
    let start = std::time::Instant::now();
    let v = one(
        &mut s,
        r#"{"id":"m","moves":[],"maxVisits":10000000,"overrideSettings":{"maxTime":0.2}}"#,
    );
    assert!(start.elapsed().as_secs_f64() < 5.0);
    let visits = v["rootInfo"]["visits"].as_u64().unwrap();
    assert!(visits > 0 && visits < 10_000_000, "{visits}");
}

/// The policy is the network's move probabilities, as `eval` computes them for the same
/// position (last moves included), not the search's prior visits: KaTrain draws it. Also
/// each candidate's `prior`, for Black and for White to move.
#[test]
fn the_policy_is_the_networks_move_probabilities_as_eval_gives_them() {
    use crate::net::NetPruner;
    use crate::net::scorer::PositionScorer;
    let files = ["tests/fixtures/sgf/ogs_style.sgf".into()];
    let (positions, skipped) = crate::net::data::sgf_positions(&files);
    assert_eq!(skipped, []);
    let net = NetPruner::load_named("nnq:models/cnn-human-5x32-gpu2").unwrap();
    let mut s = AnalysisServer::new("strong3:sims=30", 1).unwrap();
    let mut moves: Vec<Value> = Vec::new();
    let mut colours = Vec::new();
    for (k, pos) in positions.iter().enumerate().take(12) {
        let board = pos.board();
        let mut bad = [0f32; N * N];
        net.score(pos, &board, &mut bad);
        let query = json!({"id": format!("p{k}"), "moves": moves, "komi": 6.5,
            "maxVisits": 30, "includePolicy": true});
        let v = one(&mut s, &query.to_string());
        let policy: Vec<f64> = v["policy"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_f64().unwrap())
            .collect();
        assert_eq!(policy.len(), N * N + 1);
        assert_eq!(policy[N * N], 0.0, "the network does not rate the pass");
        let mut legal_sum = 0.0;
        for (i, &p) in policy[..N * N].iter().enumerate() {
            if board.is_legal(pos.color(), crate::rules::Point::new(i)) {
                let want = 1.0 - f64::from(bad[i]);
                assert!(
                    (p - want).abs() <= 1e-6,
                    "position {k}, point {i}: {p} vs {want}"
                );
                legal_sum += p;
            } else {
                assert_eq!(p, -1.0, "position {k}, point {i} is illegal");
            }
        }
        assert!((legal_sum - 1.0).abs() < 1e-4, "{legal_sum}");
        for info in v["moveInfos"].as_array().unwrap() {
            let mv = Move::from_gtp(info["move"].as_str().unwrap()).unwrap();
            let want = policy[mv.index()].max(0.0);
            assert!(
                (info["prior"].as_f64().unwrap() - want).abs() <= 1e-6,
                "{info}"
            );
        }
        colours.push(pos.color());
        let mv = Move::from_index(pos.played as usize).unwrap();
        let c = if pos.color() == Color::Black {
            "B"
        } else {
            "W"
        };
        moves.push(json!([c, mv.to_gtp()]));
    }
    assert!(colours.contains(&Color::White) && colours.contains(&Color::Black));
}

/// At `maxVisits 1` a value-network engine answers as KataGo does: `rootInfo` carries the
/// network's own win rate of the position (for the side to move, as `SIDETOMOVE` asks) and
/// one visit, not a constant 0.5 with none; a second visit moves it. The labeller's default
/// is one visit, so this is the label an `akushu analysis` teacher gives.
#[test]
fn one_visit_reports_the_value_network_s_win_rate_of_the_position() {
    use crate::net::NetPruner;
    use crate::prune::{PruneContext, Pruner};
    let files = ["tests/fixtures/sgf/ogs_style.sgf".into()];
    let (positions, skipped) = crate::net::data::sgf_positions(&files);
    assert_eq!(skipped, []);
    let model = "nnq:models/cnn-distilled-b6c96-6x64-cosine3";
    let net = NetPruner::load_named(model).unwrap();
    let spec = format!("uct:select=puct,policy={model},value={model},value_mix=1,history=true");
    let mut s = AnalysisServer::new(&spec, 1).unwrap();
    let mut moves: Vec<(Color, Move)> = Vec::new();
    let mut values = Vec::new();
    for (k, pos) in positions.iter().enumerate().take(10) {
        let board = pos.board();
        // The network's view: the position, its side to move and its last two moves.
        let recent: Vec<Move> = moves.iter().rev().take(2).rev().map(|m| m.1).collect();
        let mut bad = [0f32; N * N];
        let want = net
            .badness_value(
                &PruneContext {
                    board: &board,
                    to_move: pos.color(),
                    recent: &recent,
                },
                &mut bad,
            )
            .expect("the network has a value head");
        let listed: Vec<Value> = moves
            .iter()
            .map(|&(c, m)| json!([if c == Color::Black { "B" } else { "W" }, m.to_gtp()]))
            .collect();
        let query = json!({"id": format!("p{k}"), "moves": listed, "komi": 6.5, "maxVisits": 1,
            "overrideSettings": {"reportAnalysisWinratesAs": "SIDETOMOVE"}});
        let v = one(&mut s, &query.to_string());
        let root = &v["rootInfo"];
        assert_eq!(root["visits"], 1, "{v}");
        let got = root["winrate"].as_f64().unwrap();
        // The tree keeps a value in steps of 1/65534.
        assert!(
            (got - f64::from(want)).abs() <= 2e-5,
            "position {k}: {got} vs the network's {want}"
        );
        values.push(got);
        let two = one(
            &mut s,
            &query
                .to_string()
                .replace("\"maxVisits\":1", "\"maxVisits\":2"),
        );
        assert_eq!(two["rootInfo"]["visits"], 2, "{two}");
        moves.push((pos.color(), Move::from_index(pos.played as usize).unwrap()));
    }
    values.dedup();
    assert!(values.len() > 5, "one value for every position: {values:?}");
}

/// A terminate whose `turnNumbers` is not a list of turn numbers is refused naming the
/// field, and stops nothing: read as absent it would end every turn of the query.
#[test]
fn a_terminate_with_turn_numbers_that_are_no_list_is_refused_and_stops_nothing() {
    let mut s = server();
    s.submit(r#"{"id":"q","moves":[["B","E5"]],"maxVisits":5,"analyzeTurns":[0,1]}"#);
    for turns in [r#"1"#, r#""all""#, r#"null"#, r#"[0,"one"]"#, r#"[-1]"#] {
        let line =
            format!(r#"{{"id":"t","action":"terminate","terminateId":"q","turnNumbers":{turns}}}"#);
        let out = s.submit(&line);
        assert_eq!(out.len(), 1, "{turns}: {out:?}");
        let v: Value = serde_json::from_str(&out[0]).unwrap();
        assert_eq!(v["field"], "turnNumbers", "{turns}: {v}");
        assert!(v["error"].as_str().unwrap().contains("turnNumbers"), "{v}");
    }
    let mut io = script(Vec::new());
    while s.run_next(&mut io) {}
    let answered: Vec<_> = io.out.iter().map(|v| v["turnNumber"].clone()).collect();
    assert_eq!(answered, [json!(0), json!(1)]);
    assert!(io.out.iter().all(|v| v.get("noResults").is_none()));
}

/// An `action` that is not one of KataGo's spellings (another case, a number, null) is an
/// unknown action, not a query missing its moves.
#[test]
fn actions_of_the_wrong_type_or_case_are_unknown_actions() {
    let mut s = server();
    for action in [
        r#""QUERY_VERSION""#,
        r#""Terminate""#,
        "5",
        "null",
        "[]",
        r#""""#,
    ] {
        let v = one(&mut s, &format!(r#"{{"id":"a","action":{action}}}"#));
        assert_eq!(v["field"], "action", "{action}: {v}");
        assert!(
            v["error"].as_str().unwrap().starts_with("unknown action"),
            "{action}: {v}"
        );
    }
}

/// One line that queues 100,000 turns, then a terminate naming them all: every waiting turn
/// gets its `noResults` line, in the order the turns arrived, and nothing is left.
#[test]
fn a_terminate_clears_a_hundred_thousand_waiting_turns() {
    let mut s = server();
    let n = 100_000;
    let turns = vec!["0"; n].join(",");
    let query = format!(r#"{{"id":"big","moves":[],"maxVisits":5,"analyzeTurns":[{turns}]}}"#);
    assert!(s.submit(&query).is_empty());
    assert!(s.has_work());
    let numbers = ["0"; 3].join(",");
    let out = s.submit(&format!(
        r#"{{"id":"t","action":"terminate","terminateId":"big","turnNumbers":[{numbers}]}}"#
    ));
    assert_eq!(out.len(), n + 1, "the echo and one line a turn");
    assert!(out[1..].iter().all(|l| l.contains(r#""noResults":true"#)));
    assert!(!s.has_work());
}
