//! KataGo's JSON analysis protocol (`katago analysis`) for 9x9 under area rules, so
//! analysis GUIs that speak only it (KaTrain) can use akushu's engines.
//!
//! One query per input line; one response per analysed turn per output line. Turns wait in
//! a queue and are searched one at a time, highest `priority` (or per-turn `priorities`)
//! first, ties in order of arrival; input keeps being read between chunks of simulations,
//! so `{"action":"terminate"}` stops a running search (its response reports what was
//! searched) and answers waiting turns with KataGo's `noResults` line, and a search
//! reports partial results every `reportDuringSearchEvery` seconds (`isDuringSearch`
//! true). A query names its `moves` (and `initialStones`,
//! `initialPlayer`), `komi`, `rules`, `boardXSize`/`boardYSize` (9 only), `analyzeTurns`
//! (default: the position after the last move), `maxVisits` (simulations; default
//! [`DEFAULT_VISITS`]), `overrideSettings.maxTime` (seconds), `includeOwnership`,
//! `includePolicy`, `includePVVisits` and `overrideSettings.reportAnalysisWinratesAs`
//! (`BLACK`, the default here as in KataGo's analysis example config, `WHITE` or
//! `SIDETOMOVE`). `{"action":"query_version"}` and
//! `{"action":"terminate"}` are acknowledged as KataGo acknowledges them. One engine serves
//! every turn, reseeded before each, so a turn's answer does not depend on what was asked
//! before it (same seed, same answer). Malformed input gets
//! KataGo's error shape, `{"id":...,"error":...}` (with `"field"` when one field is wrong).
//!
//! Each response's `moveInfos` are the root's candidates by visits with their win rate, the
//! score of the simulations through them (mean and spread of the final area margin: the
//! search's own, as `kata-analyze` reports it) and principal variation; `rootInfo` sums the
//! root; `ownership` is each point's final owner averaged over the simulations, row by row
//! from the top left; `policy` (every point then pass, -1 where a move is illegal) and each
//! candidate's `prior` are the policy network's move probabilities where the engine has one,
//! as KataGo reports its network's (pass 0: the network rates board points only), else the
//! root's prior share of each candidate.

use serde_json::{Value, json};

use crate::rules::{Board, Color, Game, Move, N};
use crate::search::spec::build_engine;
use crate::search::{Engine, ScoreEstimate};
use crate::util::num::MAX_KOMI;

/// Simulations per analysed turn when a query gives no `maxVisits`.
pub const DEFAULT_VISITS: u64 = 2_000;
/// Most simulations one query may ask for per turn.
pub const MAX_VISITS: u64 = 10_000_000;

/// Answers analysis queries with engines built from one spec: queued turns are searched
/// highest `priority` first (ties: the earlier), one at a time, while new input keeps being
/// read between chunks of simulations, so a `terminate` stops a running search and a query
/// of higher priority goes ahead of those still waiting.
pub struct AnalysisServer {
    spec: String,
    seed: u64,
    /// The engine reused for every turn (reseeded, so each turn searches as a fresh engine
    /// would); `None` until the first turn, or when the engine cannot be reseeded.
    engine: Option<Box<dyn Engine>>,
    queue: Vec<Work>,
    next_seq: u64,
    /// The turn being searched, and whether a terminate asked it to stop.
    current: Option<(String, usize)>,
    stop_current: bool,
}

/// How win rates, scores and ownership are oriented.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Perspective {
    Black,
    White,
    SideToMove,
}

/// A query's error in KataGo's shape.
struct QueryError {
    field: Option<&'static str>,
    message: String,
}

fn field_error(field: &'static str, message: impl Into<String>) -> QueryError {
    QueryError {
        field: Some(field),
        message: message.into(),
    }
}

/// A parsed analysis query.
struct Query {
    id: String,
    initial: Game,
    moves: Vec<(Color, Move)>,
    turns: Vec<usize>,
    /// Each turn's priority (`priority`, or `priorities` one per turn).
    priorities: Vec<i64>,
    visits: u64,
    /// `overrideSettings.maxTime`: seconds a turn may search at most.
    max_time: Option<f64>,
    /// `reportDuringSearchEvery`: seconds between partial reports.
    report_every: Option<f64>,
    ownership: bool,
    policy: bool,
    pv_visits: bool,
    perspective: Perspective,
}

/// One turn of a query waiting to be searched.
struct Work {
    query: std::sync::Arc<Query>,
    turn: usize,
    priority: i64,
    /// Arrival order: ties of priority go to the earlier turn.
    seq: u64,
}

/// What the server reads and writes while it searches: the caller's side of the pipe.
pub trait ServerIo {
    /// Writes one response line.
    fn emit(&mut self, line: String);
    /// The input lines that have arrived since the last call, without waiting.
    fn poll(&mut self) -> Vec<String>;
}

/// Simulations searched between two looks at the input (a terminate must stop a search
/// within milliseconds) and at the clock (`reportDuringSearchEvery`, `maxTime`).
const CHUNK: u64 = 256;

fn color_of(text: &str) -> Option<Color> {
    match text {
        "B" | "b" => Some(Color::Black),
        "W" | "w" => Some(Color::White),
        _ => None,
    }
}

/// `[["B","D4"], ...]` as (colour, move) pairs.
fn moves_of(v: &Value, field: &'static str) -> Result<Vec<(Color, Move)>, QueryError> {
    let Some(list) = v.as_array() else {
        return Err(field_error(
            field,
            "expected an array of [player, location] pairs",
        ));
    };
    list.iter()
        .enumerate()
        .map(|(i, pair)| {
            let bad = || field_error(field, format!("entry {i}: expected [\"B\"|\"W\", \"D4\"]"));
            let p = pair.as_array().filter(|p| p.len() == 2).ok_or_else(bad)?;
            let c = p[0].as_str().and_then(color_of).ok_or_else(bad)?;
            let m = p[1]
                .as_str()
                .and_then(|t| Move::from_gtp(t).ok())
                .ok_or_else(|| field_error(field, format!("entry {i}: not a 9x9 location")))?;
            Ok((c, m))
        })
        .collect()
}

/// Whether `rules` (a KataGo rules name, or a rules object as KataGo reads one) scores by
/// area as akushu does: KataGo's area-scoring names, and objects whose `scoring` is `AREA`
/// with no group tax and no button (which akushu would not count).
fn area_rules(rules: &Value) -> bool {
    match rules {
        Value::String(name) => [
            "tromp-taylor",
            "chinese",
            "chinese-ogs",
            "chinese-kgs",
            "area",
            "aga",
            "bga",
            "new-zealand",
        ]
        .contains(&name.to_ascii_lowercase().as_str()),
        Value::Object(o) => {
            let text = |k: &str| {
                o.get(k)
                    .and_then(Value::as_str)
                    .map(str::to_ascii_uppercase)
            };
            text("scoring").as_deref() == Some("AREA")
                && o.get("tax")
                    .is_none_or(|_| text("tax").as_deref() == Some("NONE"))
                && o.get("hasButton").is_none_or(|b| b == &Value::Bool(false))
        }
        _ => false,
    }
}

fn parse_query(v: &Value) -> Result<Query, QueryError> {
    let id = match v.get("id") {
        Some(Value::String(s)) => s.clone(),
        _ => return Err(field_error("id", "required field id must be a string")),
    };
    for (field, name) in [("boardXSize", "boardXSize"), ("boardYSize", "boardYSize")] {
        let size = v.get(field).map_or(Some(N as u64), Value::as_u64);
        if size != Some(N as u64) {
            return Err(field_error(
                name,
                format!("akushu analyses 9x9 only, not {}", v[field]),
            ));
        }
    }
    if let Some(r) = v.get("rules")
        && !area_rules(r)
    {
        return Err(field_error(
            "rules",
            format!(
                "akushu scores by area only (tromp-taylor, chinese, chinese-ogs, chinese-kgs, \
                 aga, bga, new-zealand, or a rules object with \"scoring\":\"AREA\"), not {r}"
            ),
        ));
    }
    let komi = match v.get("komi") {
        None => 7.0,
        Some(k) => k
            .as_f64()
            .filter(|k| k.abs() <= f64::from(MAX_KOMI))
            .ok_or_else(|| field_error("komi", "expected a number in -10000..10000"))?
            as f32,
    };
    let mut board = Board::new();
    if let Some(stones) = v.get("initialStones") {
        let (mut black, mut white) = (Vec::new(), Vec::new());
        for (c, m) in moves_of(stones, "initialStones")? {
            let Move::Play(p) = m else {
                return Err(field_error(
                    "initialStones",
                    "a stone needs a location, not pass",
                ));
            };
            // A point given twice (as both colours, say) has no one meaning: refused, as an
            // SGF setup that makes a point both black and white is.
            if black.contains(&p) || white.contains(&p) {
                return Err(field_error(
                    "initialStones",
                    format!("{m} is given more than once"),
                ));
            }
            if c == Color::Black {
                black.push(p)
            } else {
                white.push(p)
            }
        }
        board
            .setup(&black, &white, &[])
            .map_err(|e| field_error("initialStones", e))?;
    }
    let moves = match v.get("moves") {
        Some(m) => moves_of(m, "moves")?,
        None => return Err(field_error("moves", "required field moves is missing")),
    };
    let first = match v.get("initialPlayer") {
        Some(p) => p
            .as_str()
            .and_then(color_of)
            .ok_or_else(|| field_error("initialPlayer", "expected \"B\" or \"W\""))?,
        None => moves.first().map_or(Color::Black, |m| m.0),
    };
    let turns = match v.get("analyzeTurns") {
        None => vec![moves.len()],
        Some(t) => {
            let list = t
                .as_array()
                .ok_or_else(|| field_error("analyzeTurns", "expected an array of turn numbers"))?;
            let mut out = Vec::new();
            for x in list {
                let n = x
                    .as_u64()
                    .filter(|&n| n as usize <= moves.len())
                    .ok_or_else(|| {
                        field_error(
                            "analyzeTurns",
                            format!("turns run from 0 to {}", moves.len()),
                        )
                    })?;
                out.push(n as usize);
            }
            out
        }
    };
    let visits = match v.get("maxVisits") {
        None => DEFAULT_VISITS,
        Some(x) => x
            .as_u64()
            .filter(|&n| (1..=MAX_VISITS).contains(&n))
            .ok_or_else(|| field_error("maxVisits", format!("expected 1 to {MAX_VISITS}")))?,
    };
    let flag = |name: &'static str| -> Result<bool, QueryError> {
        match v.get(name) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(field_error(name, "expected true or false")),
        }
    };
    let seconds = |name: &'static str, x: Option<&Value>| -> Result<Option<f64>, QueryError> {
        match x {
            None => Ok(None),
            Some(x) => x
                .as_f64()
                .filter(|s| s.is_finite() && *s > 0.0 && *s <= 1e6)
                .map(Some)
                .ok_or_else(|| field_error(name, "expected seconds, above 0")),
        }
    };
    let report_every = seconds("reportDuringSearchEvery", v.get("reportDuringSearchEvery"))?;
    let max_time = seconds(
        "overrideSettings",
        v.get("overrideSettings").and_then(|o| o.get("maxTime")),
    )?;
    let priority = |x: &Value, name: &'static str| {
        x.as_i64()
            .ok_or_else(|| field_error(name, "expected an integer priority"))
    };
    let priorities = match (v.get("priorities"), v.get("priority")) {
        (Some(list), _) => {
            let list = list
                .as_array()
                .filter(|l| l.len() == turns.len())
                .ok_or_else(|| {
                    field_error("priorities", "expected one integer per analyzeTurns entry")
                })?;
            list.iter()
                .map(|x| priority(x, "priorities"))
                .collect::<Result<Vec<_>, _>>()?
        }
        (None, Some(p)) => vec![priority(p, "priority")?; turns.len()],
        (None, None) => vec![0; turns.len()],
    };
    let perspective = match v
        .get("overrideSettings")
        .and_then(|o| o.get("reportAnalysisWinratesAs"))
        .map(|p| p.as_str().unwrap_or(""))
    {
        None | Some("BLACK") => Perspective::Black,
        Some("WHITE") => Perspective::White,
        Some("SIDETOMOVE") => Perspective::SideToMove,
        Some(_) => {
            return Err(field_error(
                "overrideSettings",
                "reportAnalysisWinratesAs is BLACK, WHITE or SIDETOMOVE",
            ));
        }
    };
    Ok(Query {
        id,
        initial: Game::from_board(board, first, komi),
        moves,
        turns,
        priorities,
        visits,
        max_time,
        report_every,
        ownership: flag("includeOwnership")?,
        policy: flag("includePolicy")?,
        pv_visits: flag("includePVVisits")?,
        perspective,
    })
}

/// Rounds for the output (KataGo prints floats of this precision).
fn r(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

impl AnalysisServer {
    pub fn new(spec: &str, seed: u64) -> anyhow::Result<AnalysisServer> {
        // Built once here so a bad spec fails before any query.
        let mut engine = build_engine(spec, seed)?;
        if engine.analyzer().is_none() {
            anyhow::bail!("engine `{spec}` has no analysis (use a uct or strong engine)");
        }
        Ok(AnalysisServer {
            spec: spec.to_string(),
            seed,
            engine: Some(engine),
            queue: Vec::new(),
            next_seq: 0,
            current: None,
            stop_current: false,
        })
    }

    /// Reads one input line and answers it as far as it can be answered at once (errors,
    /// actions); the turns of a valid query join the queue for [`AnalysisServer::run_next`].
    pub fn submit(&mut self, line: &str) -> Vec<String> {
        let line = line.trim();
        if line.is_empty() {
            return Vec::new();
        }
        let v: Value = match serde_json::from_str(line) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) => return vec![json!({"error": "expected a JSON object"}).to_string()],
            Err(e) => {
                return vec![json!({"error": format!("could not parse json: {e}")}).to_string()];
            }
        };
        let id = v.get("id").cloned().unwrap_or(Value::Null);
        match v.get("action").and_then(Value::as_str) {
            Some("query_version") => {
                return vec![
                    json!({
                        "id": id, "action": "query_version",
                        "version": format!("akushu {}", env!("CARGO_PKG_VERSION")),
                        "git_hash": ""
                    })
                    .to_string(),
                ];
            }
            Some(action @ ("terminate" | "terminate_all")) => {
                return self.terminate(&v, action == "terminate_all");
            }
            Some("clear_cache") => {
                return vec![json!({"id": id, "action": "clear_cache"}).to_string()];
            }
            Some(other) => {
                return vec![
                    json!({"id": id, "field": "action", "error": format!("unknown action {other}")})
                        .to_string(),
                ];
            }
            None => {}
        }
        match parse_query(&v) {
            Ok(q) if q.turns.is_empty() => {
                // KataGo queues nothing and writes nothing for `"analyzeTurns": []`, so its
                // client waits for an answer that never comes: say so in KataGo's warning
                // shape instead.
                vec![
                    json!({"id": id, "field": "analyzeTurns",
                           "warning": "no turn to analyze: the query gets no other response"})
                    .to_string(),
                ]
            }
            Ok(q) => {
                let q = std::sync::Arc::new(q);
                for (&turn, &priority) in q.turns.iter().zip(&q.priorities) {
                    self.queue.push(Work {
                        query: q.clone(),
                        turn,
                        priority,
                        seq: self.next_seq,
                    });
                    self.next_seq += 1;
                }
                Vec::new()
            }
            Err(e) => {
                let mut out = json!({"id": id, "error": e.message});
                if let Some(f) = e.field {
                    out["field"] = json!(f);
                }
                vec![out.to_string()]
            }
        }
    }

    /// `terminate` / `terminate_all`: waiting turns that match are answered with KataGo's
    /// `noResults` line and dropped; a matching turn being searched stops at its next chunk
    /// and reports what it has. The action itself is echoed back first.
    fn terminate(&mut self, v: &Value, all: bool) -> Vec<String> {
        let target = if all {
            None
        } else {
            match v.get("terminateId").and_then(Value::as_str) {
                Some(t) => Some(t.to_string()),
                None => {
                    return vec![
                        json!({"id": v.get("id").cloned().unwrap_or(Value::Null),
                               "field": "terminateId",
                               "error": "required field terminateId must be a string"})
                        .to_string(),
                    ];
                }
            }
        };
        let turns: Option<Vec<u64>> = v
            .get("turnNumbers")
            .and_then(Value::as_array)
            .map(|t| t.iter().filter_map(Value::as_u64).collect());
        let hit = |id: &str, turn: usize| {
            target.as_deref().is_none_or(|t| t == id)
                && turns.as_ref().is_none_or(|t| t.contains(&(turn as u64)))
        };
        let mut out = vec![v.to_string()];
        let (dropped, kept): (Vec<Work>, Vec<Work>) = std::mem::take(&mut self.queue)
            .into_iter()
            .partition(|w| hit(&w.query.id, w.turn));
        self.queue = kept;
        for w in dropped {
            out.push(
                json!({"id": w.query.id, "isDuringSearch": false, "noResults": true,
                       "turnNumber": w.turn})
                .to_string(),
            );
        }
        if let Some((id, turn)) = &self.current
            && hit(id, *turn)
        {
            self.stop_current = true;
        }
        out
    }

    /// Whether turns wait to be searched.
    pub fn has_work(&self) -> bool {
        !self.queue.is_empty()
    }

    /// Searches the waiting turn of highest priority (the earliest of equals), reading
    /// `io`'s new input between chunks of simulations and writing partial reports
    /// (`reportDuringSearchEvery`) and the final response to it. False when nothing waits.
    pub fn run_next(&mut self, io: &mut dyn ServerIo) -> bool {
        let Some(best) = (0..self.queue.len()).min_by_key(|&i| {
            let w = &self.queue[i];
            (std::cmp::Reverse(w.priority), w.seq)
        }) else {
            return false;
        };
        let work = self.queue.remove(best);
        self.current = Some((work.query.id.clone(), work.turn));
        self.stop_current = false;
        let line = match self.analyse_turn(&work.query, work.turn, io) {
            Ok(v) => v.to_string(),
            Err(message) => {
                json!({"id": work.query.id, "turnNumber": work.turn, "error": message}).to_string()
            }
        };
        self.current = None;
        io.emit(line);
        true
    }

    /// Answers one input line completely: its immediate replies, then every waiting turn
    /// searched to the end (no input is read meanwhile). For tests and one-shot use.
    pub fn handle_line(&mut self, line: &str) -> Vec<String> {
        let mut io = Collect(self.submit(line));
        while self.run_next(&mut io) {}
        io.0
    }

    /// An engine for a new turn: the reused one, reseeded, or a new one where the engine
    /// cannot be reseeded.
    fn engine_for_turn(&mut self) -> Result<Box<dyn Engine>, String> {
        if let Some(mut e) = self.engine.take()
            && e.reseed(self.seed)
        {
            return Ok(e);
        }
        build_engine(&self.spec, self.seed).map_err(|e| e.to_string())
    }

    /// Searches the position after `turn` moves and builds its response.
    fn analyse_turn(
        &mut self,
        q: &Query,
        turn: usize,
        io: &mut dyn ServerIo,
    ) -> Result<Value, String> {
        let mut engine = self.engine_for_turn()?;
        let result = self.search_turn(engine.as_mut(), q, turn, io);
        self.engine = Some(engine);
        result
    }

    /// Sets up the position, then searches it in chunks of [`CHUNK`] simulations up to
    /// `maxVisits` (or `maxTime`, or a terminate), reading new input and reporting
    /// between chunks.
    fn search_turn(
        &mut self,
        engine: &mut dyn Engine,
        q: &Query,
        turn: usize,
        io: &mut dyn ServerIo,
    ) -> Result<Value, String> {
        engine.new_game(q.initial.komi());
        if q.initial.board() != &Board::new() || q.initial.to_move() != Color::Black {
            engine.set_game(q.initial.clone())?;
        }
        for (i, &(c, m)) in q.moves.iter().take(turn).enumerate() {
            engine
                .play(c, m)
                .map_err(|e| format!("move {} ({}) is illegal: {e}", i + 1, m.to_gtp()))?;
        }
        let to_move = q
            .moves
            .get(turn)
            .map(|m| m.0)
            .unwrap_or_else(|| engine.game().to_move());
        let start = std::time::Instant::now();
        let mut last_report = start;
        let (mut sims, mut searched) = (0, 0);
        while searched < q.visits {
            for line in io.poll() {
                for reply in self.submit(&line) {
                    io.emit(reply);
                }
            }
            if self.stop_current
                || q.max_time
                    .is_some_and(|t| start.elapsed().as_secs_f64() >= t)
            {
                break;
            }
            let chunk = CHUNK.min(q.visits - searched);
            let analyzer = engine.analyzer().ok_or("this engine has no analysis")?;
            sims += analyzer.analyze_sims(to_move, chunk);
            searched += chunk;
            if let Some(every) = q.report_every
                && searched < q.visits
                && last_report.elapsed().as_secs_f64() >= every
            {
                last_report = std::time::Instant::now();
                io.emit(respond(engine, q, turn, to_move, sims, true)?.to_string());
            }
        }
        if sims == 0 {
            // Stopped before any simulation: KataGo's shape for a turn with no results.
            return Ok(
                json!({"id": q.id, "isDuringSearch": false, "noResults": true,
                             "turnNumber": turn}),
            );
        }
        respond(engine, q, turn, to_move, sims, false)
    }
}

/// A [`ServerIo`] that collects the output and has no further input.
struct Collect(Vec<String>);

impl ServerIo for Collect {
    fn emit(&mut self, line: String) {
        self.0.push(line);
    }
    fn poll(&mut self) -> Vec<String> {
        Vec::new()
    }
}

/// KataGo's score fields from a score for the side to move (`flip`: for the other side).
/// scoreLead repeats the mean: akushu has no separate lead model.
fn put_score(v: &mut Value, s: ScoreEstimate, flip: bool) {
    let mean = f64::from(if flip { -s.mean } else { s.mean });
    v["scoreMean"] = json!(r(mean));
    v["scoreLead"] = json!(r(mean));
    v["scoreStdev"] = json!(r(f64::from(s.stdev)));
}

/// Runs the search and writes one response.
/// The response for the search so far (`during`: a partial report, more to come), after
/// `sims` simulations.
fn respond(
    engine: &mut dyn Engine,
    q: &Query,
    turn: usize,
    to_move: Color,
    sims: u64,
    during: bool,
) -> Result<Value, String> {
    let analyzer = engine.analyzer().ok_or("this engine has no analysis")?;
    // Win rates and scores come for the side to move; flip them to the asked perspective.
    let flip = match q.perspective {
        Perspective::Black => to_move == Color::White,
        Perspective::White => to_move == Color::Black,
        Perspective::SideToMove => false,
    };
    let wr = |w: f32| f64::from(if flip { 1.0 - w } else { w });
    let sc = |s: f32| f64::from(if flip { -s } else { s });
    let candidates = analyzer.candidates(to_move, 12);
    let mut infos = Vec::new();
    for (order, c) in candidates.iter().enumerate() {
        let mut info = json!({
            "move": c.mv.to_gtp(),
            "visits": c.visits,
            "winrate": r(wr(c.winrate)),
            "prior": r(f64::from(c.prior)),
            "lcb": r(wr(c.lcb)),
            "utility": r(2.0 * wr(c.winrate) - 1.0),
            "order": order,
            "pv": c.pv.iter().map(|m| m.to_gtp()).collect::<Vec<_>>(),
        });
        if let Some(s) = c.score {
            put_score(&mut info, s, flip);
        }
        if q.pv_visits {
            // The variation's own visits are not kept beyond its first move.
            info["pvVisits"] = json!([c.visits]);
        }
        infos.push(info);
    }
    let visits: u32 = candidates.iter().map(|c| c.visits).sum();
    let root_wr = if visits > 0 {
        candidates
            .iter()
            .map(|c| f64::from(c.winrate) * f64::from(c.visits))
            .sum::<f64>()
            / f64::from(visits)
    } else {
        0.5
    };
    let root_wr = if flip { 1.0 - root_wr } else { root_wr };
    let mut root = json!({
        "visits": visits,
        "winrate": r(root_wr),
        "utility": r(2.0 * root_wr - 1.0),
        "currentPlayer": if to_move == Color::Black { "B" } else { "W" },
        "simulations": sims,
    });
    if let Some(s) = analyzer.root_score(to_move) {
        put_score(&mut root, s, flip);
    }
    let mut out = json!({
        "id": q.id,
        "isDuringSearch": during,
        "turnNumber": turn,
        "moveInfos": infos,
        "rootInfo": root,
    });
    if q.ownership
        && let Some(own) = analyzer.ownership(to_move)
    {
        out["ownership"] = json!(own.iter().map(|&v| r(sc(v))).collect::<Vec<_>>());
    }
    if q.policy
        && let Some(p) = analyzer.root_policy(to_move)
    {
        out["policy"] = json!(p.iter().map(|&v| r(f64::from(v))).collect::<Vec<_>>());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
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
        use crate::net::curve::PositionScorer;
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
}
