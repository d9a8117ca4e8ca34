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
//! search's own, as `kata-analyze` reports it) and principal variation; `rootInfo` is the
//! root's own statistics, its evaluation included (at `maxVisits 1` the value network's win
//! rate of the position, as KataGo's raw-network answer); `ownership` is each point's final owner averaged over the simulations, row by row
//! from the top left; `policy` (every point then pass, -1 where a move is illegal) and each
//! candidate's `prior` are the policy network's move probabilities where the engine has one,
//! as KataGo reports its network's (pass 0: the network rates board points only), else the
//! root's prior share of each candidate.

use serde_json::{Value, json};

use self::protocol::{Answer, Field, MoveInfo, RootInfo, Score};

use crate::rules::{Board, Color, Game, Move, N};
use crate::rules::{MAX_KOMI, komi_in_range};
use crate::search::spec::build_engine;
use crate::search::{Engine, ScoreEstimate};

pub mod protocol;

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
    /// Waiting turns, the next to search on top: a heap, so that a query of 100,000 turns
    /// is taken one turn at a time in O(log n), not by a scan of all that wait.
    queue: std::collections::BinaryHeap<Work>,
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

/// The heap's order: the higher priority first, then the earlier arrival.
impl Ord for Work {
    fn cmp(&self, other: &Work) -> std::cmp::Ordering {
        self.priority
            .cmp(&other.priority)
            .then(other.seq.cmp(&self.seq))
    }
}

impl PartialOrd for Work {
    fn partial_cmp(&self, other: &Work) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Two waiting turns are the same turn only when they arrived as one (`seq` is unique).
impl PartialEq for Work {
    fn eq(&self, other: &Work) -> bool {
        self.seq == other.seq
    }
}

impl Eq for Work {}

/// What the server reads and writes while it searches: the caller's side of the pipe.
pub trait ServerIo {
    /// Writes one response line.
    fn emit(&mut self, line: String);
    /// Writes several response lines (a terminate's answers for every waiting turn); a pipe
    /// flushes once for them all.
    fn emit_all(&mut self, lines: Vec<String>) {
        for line in lines {
            self.emit(line);
        }
    }
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
        Some(k) => k.as_f64().filter(|k| komi_in_range(*k)).ok_or_else(|| {
            field_error(
                "komi",
                format!("expected a number in -{MAX_KOMI}..{MAX_KOMI}"),
            )
        })? as f32,
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
            queue: std::collections::BinaryHeap::new(),
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
            Ok(_) => return vec![refusal(Field::Absent, None, "expected a JSON object")],
            Err(e) => {
                return vec![refusal(
                    Field::Absent,
                    None,
                    format!("could not parse json: {e}"),
                )];
            }
        };
        let id = echoed_id(&v);
        // Only a string spelled as KataGo spells it is an action; any other value given as
        // `action` (a number, null, another case) is an unknown action, not a query.
        let action = match v.get("action") {
            None => None,
            Some(Value::String(a)) => Some(a.as_str()),
            Some(other) => {
                return vec![refusal(
                    id,
                    Some("action"),
                    format!("unknown action {other}"),
                )];
            }
        };
        match action {
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
                return vec![refusal(
                    id,
                    Some("action"),
                    format!("unknown action {other}"),
                )];
            }
            None => {}
        }
        match parse_query(&v) {
            Ok(q) if q.turns.is_empty() => {
                // KataGo queues nothing and writes nothing for `"analyzeTurns": []`, so its
                // client waits for an answer that never comes: say so in KataGo's warning
                // shape instead.
                vec![
                    Answer {
                        id,
                        field: "analyzeTurns".to_string().into(),
                        warning: "no turn to analyze: the query gets no other response"
                            .to_string()
                            .into(),
                        ..Answer::default()
                    }
                    .line(),
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
            Err(e) => vec![refusal(id, e.field, e.message)],
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
                    return vec![refusal(
                        echoed_id(v),
                        Some("terminateId"),
                        "required field terminateId must be a string",
                    )];
                }
            }
        };
        // `turnNumbers` narrows the terminate to those turns; anything but a list of turn
        // numbers is refused, as a wrong `terminateId` is, rather than read as "every turn".
        let turns: Option<std::collections::HashSet<u64>> = match v.get("turnNumbers") {
            None => None,
            Some(t) => match t
                .as_array()
                .and_then(|t| t.iter().map(Value::as_u64).collect::<Option<_>>())
            {
                Some(set) => Some(set),
                None => {
                    return vec![refusal(
                        echoed_id(v),
                        Some("turnNumbers"),
                        "turnNumbers must be an array of turn numbers",
                    )];
                }
            },
        };
        let hit = |id: &str, turn: usize| {
            target.as_deref().is_none_or(|t| t == id)
                && turns.as_ref().is_none_or(|t| t.contains(&(turn as u64)))
        };
        let mut out = vec![v.to_string()];
        let (mut dropped, kept): (Vec<Work>, Vec<Work>) = std::mem::take(&mut self.queue)
            .into_vec()
            .into_iter()
            .partition(|w| hit(&w.query.id, w.turn));
        self.queue = kept.into();
        // Answered in the order they arrived, as they were queued.
        dropped.sort_unstable_by_key(|w| w.seq);
        for w in dropped {
            out.push(no_results_answer(&w.query.id, w.turn).line());
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
        let Some(work) = self.queue.pop() else {
            return false;
        };
        self.current = Some((work.query.id.clone(), work.turn));
        self.stop_current = false;
        let line = match self.analyse_turn(&work.query, work.turn, io) {
            Ok(answer) => answer.line(),
            Err(message) => Answer {
                id: work.query.id.clone().into(),
                turn_number: (work.turn as u64).into(),
                error: message.into(),
                ..Answer::default()
            }
            .line(),
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
    ) -> Result<Answer, String> {
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
    ) -> Result<Answer, String> {
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
                let replies = self.submit(&line);
                io.emit_all(replies);
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
                io.emit(respond(engine, q, turn, to_move, sims, true)?.line());
            }
        }
        if sims == 0 {
            // Stopped before any simulation: KataGo's shape for a turn with no results.
            return Ok(no_results_answer(&q.id, turn));
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

/// A turn answered without results (terminated before any simulation), in KataGo's shape.
fn no_results_answer(id: &str, turn: usize) -> Answer {
    Answer {
        id: id.to_string().into(),
        is_during_search: false.into(),
        no_results: true.into(),
        turn_number: (turn as u64).into(),
        ..Answer::default()
    }
}

/// A query's `id` as an error echoes it: whatever the query held, `null` where none.
fn echoed_id(v: &Value) -> Field<String> {
    Field::from_json(v.get("id").cloned().unwrap_or(Value::Null))
}

/// An error line in KataGo's shape: the query's id, the message, and the field at fault
/// where one is.
fn refusal(id: Field<String>, field: Option<&str>, message: impl Into<String>) -> String {
    Answer {
        id,
        field: field.map_or(Field::Absent, |f| f.to_string().into()),
        error: message.into().into(),
        ..Answer::default()
    }
    .line()
}

/// KataGo's score fields from a score for the side to move (`flip`: for the other side).
/// scoreLead repeats the mean: akushu has no separate lead model.
fn score_fields(s: ScoreEstimate, flip: bool) -> Score {
    let mean = r(f64::from(if flip { -s.mean } else { s.mean }));
    Score {
        score_lead: mean.into(),
        score_mean: mean.into(),
        score_stdev: r(f64::from(s.stdev)).into(),
    }
}

/// The response for the search so far (`during`: a partial report, more to come), after
/// `sims` simulations.
fn respond(
    engine: &mut dyn Engine,
    q: &Query,
    turn: usize,
    to_move: Color,
    sims: u64,
    during: bool,
) -> Result<Answer, String> {
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
    let infos: Vec<MoveInfo> = candidates
        .iter()
        .enumerate()
        .map(|(order, c)| MoveInfo {
            mv: c.mv.to_gtp().into(),
            visits: c.visits.into(),
            winrate: r(wr(c.winrate)).into(),
            prior: r(f64::from(c.prior)).into(),
            lcb: r(wr(c.lcb)).into(),
            utility: r(2.0 * wr(c.winrate) - 1.0).into(),
            order: order.into(),
            pv: c.pv.iter().map(|m| m.to_gtp()).collect::<Vec<_>>().into(),
            score: c
                .score
                .map_or_else(Score::default, |s| score_fields(s, flip)),
            // The variation's own visits are not kept beyond its first move.
            pv_visits: if q.pv_visits {
                vec![c.visits].into()
            } else {
                Field::Absent
            },
        })
        .collect();
    // The root's own statistics, its evaluation included, as KataGo's rootInfo: at
    // `maxVisits 1` the value network's win rate of the position, not a constant. An engine
    // without them gives the candidates' visit-weighted mean.
    let through: u32 = candidates.iter().map(|c| c.visits).sum();
    let (visits, root_wr) = match analyzer.root_winrate(to_move) {
        Some((v, w)) => (v, f64::from(w)),
        None if through > 0 => (
            through,
            candidates
                .iter()
                .map(|c| f64::from(c.winrate) * f64::from(c.visits))
                .sum::<f64>()
                / f64::from(through),
        ),
        None => (0, 0.5),
    };
    let root_wr = if flip { 1.0 - root_wr } else { root_wr };
    let root = RootInfo {
        visits: visits.into(),
        winrate: r(root_wr).into(),
        utility: r(2.0 * root_wr - 1.0).into(),
        current_player: if to_move == Color::Black { "B" } else { "W" }
            .to_string()
            .into(),
        simulations: sims.into(),
        score: analyzer
            .root_score(to_move)
            .map_or_else(Score::default, |s| score_fields(s, flip)),
    };
    // Asked of the engine only when the query wants them.
    let ownership = match q.ownership.then(|| analyzer.ownership(to_move)).flatten() {
        Some(own) => own.iter().map(|&v| r(sc(v))).collect::<Vec<_>>().into(),
        None => Field::Absent,
    };
    let policy = match q.policy.then(|| analyzer.root_policy(to_move)).flatten() {
        Some(p) => p
            .iter()
            .map(|&v| r(f64::from(v)))
            .collect::<Vec<_>>()
            .into(),
        None => Field::Absent,
    };
    Ok(Answer {
        id: q.id.clone().into(),
        is_during_search: during.into(),
        turn_number: (turn as u64).into(),
        move_infos: infos.into(),
        root_info: root.into(),
        ownership,
        policy,
        ..Answer::default()
    })
}

#[cfg(test)]
mod tests;
