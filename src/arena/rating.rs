//! Ratings from match folders: one Bradley-Terry model (logistic Elo, as BayesElo fits)
//! over every game of every folder given, with 95% intervals, anchored on GNU Go 3.8
//! level 10 = 0.
//!
//! A player is identified by what decides its play: the canonical engine spec (a GTP
//! command as written), the checksums of the model directories it loads (recorded in each
//! folder's `match.toml`), the clock the match gave it, and, for a UCT engine recorded before
//! engines gave their networks the last moves, `history=false`. The same spec under another
//! clock, or with other weights, is another player.
//!
//! The fit maximises the likelihood of the results with Hunter's MM iteration, after adding
//! one virtual drawn game to every pair of players that met (BayesElo's prior), so a player
//! that won every game still gets a finite rating. Intervals come from the inverse Fisher
//! information with the anchor held fixed: each is the player's uncertainty relative to the
//! anchor. Players not linked to the anchor by any chain of games are rated against the
//! most-played player of their own group. The table and the chart keep each group apart
//! (`A` is the one linked to GNU Go), since Elo of different groups share no zero.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use anyhow::Context;

use super::runner::{MatchHeader, ResultsDir, a_score};

use crate::util::elo::ELO_PER_NAT;

/// Every game of the match folders found, as results between identified players.
#[derive(Debug, Default, Clone)]
pub struct Results {
    /// Player names, in first-seen order.
    pub players: Vec<String>,
    /// What identifies each player ([`player_key`]), in the same order.
    pub keys: Vec<String>,
    /// For each ordered pair (i < j): games and i's score against j.
    pub pairs: BTreeMap<(usize, usize), (f64, f64)>,
    /// Match folders read.
    pub folders: usize,
    /// Games counted.
    pub games: usize,
    /// Games found again in another folder (a cluster run's shard folders beside the folder
    /// they were merged into) and counted once.
    pub repeats: usize,
    /// Losses on time by a starved machine, left out of the fit: the machine's, not the
    /// engines' ([`super::record::GameRecord::is_starved_forfeit`]).
    pub forfeits: usize,
    /// The counted games identical to, or sharing a long opening with, an earlier counted
    /// game (their SGFs compared: [`super::repeats`]).
    pub repeated: super::repeats::Repeats,
}

impl Results {
    #[cfg(test)]
    fn player(&mut self, name: String) -> usize {
        self.player_as(name.clone(), name)
    }

    /// The player known by `key`, added under the printed `name` when new (the first
    /// spelling seen names it).
    fn player_as(&mut self, key: String, name: String) -> usize {
        match self.keys.iter().position(|k| *k == key) {
            Some(i) => i,
            None => {
                self.keys.push(key);
                self.players.push(name);
                self.players.len() - 1
            }
        }
    }

    /// Adds one game: `score` is `a`'s (1 win, 0.5 draw, 0 loss).
    pub fn add(&mut self, a: usize, b: usize, score: f64) {
        let (key, s) = if a < b {
            ((a, b), score)
        } else {
            ((b, a), 1.0 - score)
        };
        let e = self.pairs.entry(key).or_insert((0.0, 0.0));
        e.0 += 1.0;
        e.1 += s;
        self.games += 1;
    }
}

/// One row of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct Rating {
    pub player: String,
    pub elo: f64,
    /// Half-width of the 95% interval (relative to the reference), 0 for the reference.
    pub margin: f64,
    pub games: f64,
    /// Share of its games won (draws half).
    pub score: f64,
    /// The player its rating is relative to (the anchor, or its group's reference).
    pub reference: String,
}

/// The match folders under `roots` (each root itself or any folder below it holding a
/// `match.toml`), in path order.
pub fn match_folders(roots: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = BTreeSet::new();
    // Each folder once, by what it is: a root given twice, or through a link, is one folder.
    let mut visited = BTreeSet::new();
    let mut stack: Vec<PathBuf> = roots.to_vec();
    while let Some(dir) = stack.pop() {
        if !dir.is_dir() {
            anyhow::bail!("{} is not a folder", dir.display());
        }
        let real = std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone());
        if !visited.insert(real) {
            continue;
        }
        if dir.join("match.toml").is_file() {
            out.insert(dir.clone());
        }
        for entry in
            std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?
        {
            let entry = entry.with_context(|| format!("reading {}", dir.display()))?;
            // Symbolic links are not followed: a link loop cannot make the walk endless.
            if entry.file_type()?.is_dir() {
                stack.push(entry.path());
            }
        }
    }
    Ok(out.into_iter().collect())
}

/// The name of the player with `spec` in the match recorded by `header`, as the table
/// prints it: the spec's canonical text (a preset by its name) and what else tells players
/// apart (see [`player_key`]).
pub fn player_id(spec: &str, header: &MatchHeader) -> String {
    let canonical = crate::search::spec::canonical_spec(spec).unwrap_or_else(|_| spec.to_string());
    format!("{canonical}{}", identity_suffix(spec, header))
}

/// What makes two players one in the fit: the engine's whole config spelled out (so a preset
/// and the `uct` spec it stands for are one player: `strong4` and its keys written out), its
/// networks' checksums, its history and its clock.
pub fn player_key(spec: &str, header: &MatchHeader) -> String {
    let spelled = match crate::search::spec::parse_uct_kind(spec) {
        Ok(config) => config.to_string(),
        Err(_) => crate::search::spec::canonical_spec(spec).unwrap_or_else(|_| spec.to_string()),
    };
    format!("{spelled}{}", identity_suffix(spec, header))
}

/// The part of a player's identity besides its spec: ` [history=false]` for games recorded
/// before the search gave networks the last moves, each network's directory and whole
/// checksum, and the clock.
fn identity_suffix(spec: &str, header: &MatchHeader) -> String {
    let mut id = String::new();
    let uct = crate::search::spec::parse_uct_kind(spec).ok();
    let recorded = header.engines.get(spec);
    let dirs = crate::search::spec::model_dirs(spec);
    if let (Some(config), Some(recorded)) = (&uct, recorded)
        && config.history
        && super::identity::recorded_history(recorded).is_none()
        && !dirs.is_empty()
    {
        id.push_str(" [history=false]");
    }
    for dir in dirs {
        if let Some(sum) = header.models.get(&dir.display().to_string()) {
            // The whole hash tells weights apart (two networks of one size differ only
            // there).
            id.push_str(&format!(" [{} {}]", dir.display(), sum.hash_hex()));
        }
    }
    let clock = match &header.config.time {
        Some(t) => format!("clock {}", t.system),
        None => "no clock".to_string(),
    };
    format!("{id} ({clock})")
}

/// Reads every game of `folders`, each game once: a game is known by its players, its
/// number and its seed, so the copies a cluster run leaves (shard folders and the merged
/// folder) count once.
pub fn read(folders: &[PathBuf]) -> anyhow::Result<Results> {
    let mut results = Results::default();
    let mut seen: std::collections::HashSet<(usize, usize, u32, u64)> = Default::default();
    let mut moves = Vec::new();
    for (folder, dir) in folders.iter().enumerate() {
        let rd = ResultsDir::new(dir);
        let Some(header) = rd.read_header()? else {
            continue;
        };
        if !rd.csv().exists() {
            crate::errln!(
                "warning: {}: has a match.toml but no games.csv: no game of it is counted",
                dir.display()
            );
        }
        let rows = rd.read_rows()?;
        super::runner::check_rows(&header, &rows, &rd.csv())?;
        let (black, white) = (&header.config.black, &header.config.white);
        let a = results.player_as(player_key(black, &header), player_id(black, &header));
        let b = results.player_as(player_key(white, &header), player_id(white, &header));
        if a == b {
            // A player against itself says nothing about its rating.
            continue;
        }
        for r in &rows {
            if r.is_starved_forfeit() {
                results.forfeits += 1;
                continue;
            }
            if seen.insert((a, b, r.game, r.seed)) {
                results.add(a, b, a_score(r));
                moves.extend(
                    rd.game_moves(&header.config, std::slice::from_ref(r), folder)
                        .into_iter()
                        .map(|mut g| {
                            g.label = format!("{} {}", dir.display(), g.label);
                            g
                        }),
                );
            } else {
                results.repeats += 1;
            }
        }
        results.folders += 1;
    }
    results.repeated = super::repeats::find_repeats(&moves);
    Ok(results)
}

/// Whether `player` is GNU Go at level 10, the anchor: a `gtp:` player whose command line,
/// split as the arena starts it ([`super::gtp::split_command_line`]), runs a program named
/// `gnugo` (in any folder) with `--level 10`.
pub fn is_anchor(player: &str) -> bool {
    let spec = super::spec::player_spec(player);
    let Some(command) = spec.outside_command() else {
        return false;
    };
    let Ok(words) = super::gtp::split_command_line(command) else {
        return false;
    };
    let program = words
        .first()
        .and_then(|w| std::path::Path::new(w).file_name())
        .and_then(|name| name.to_str());
    program == Some("gnugo") && words.windows(2).any(|w| w[0] == "--level" && w[1] == "10")
}

/// Fits the ratings; `prior` virtual drawn games are added to every pair that met.
pub fn fit(results: &Results, prior: f64) -> Vec<Rating> {
    let n = results.players.len();
    // Games and scores with the prior, both directions.
    let mut games = vec![vec![0.0; n]; n];
    let mut score = vec![0.0; n];
    let mut real_games = vec![0.0; n];
    let mut real_score = vec![0.0; n];
    for (&(i, j), &(g, s)) in &results.pairs {
        games[i][j] += g + prior;
        games[j][i] += g + prior;
        score[i] += s + prior / 2.0;
        score[j] += g - s + prior / 2.0;
        real_games[i] += g;
        real_games[j] += g;
        real_score[i] += s;
        real_score[j] += g - s;
    }
    let groups = connected_groups(n, &games);
    let mut out = Vec::new();
    for group in groups {
        let reference = group
            .iter()
            .copied()
            .find(|&i| is_anchor(&results.players[i]))
            .unwrap_or_else(|| {
                *group
                    .iter()
                    .max_by(|&&a, &&b| real_games[a].total_cmp(&real_games[b]).then(b.cmp(&a)))
                    .expect("groups are not empty")
            });
        let strength = mm_fit(&group, &games, &score);
        let base = strength[&reference].ln();
        let margins = margins(&group, reference, &games, &strength);
        for &i in &group {
            out.push(Rating {
                player: results.players[i].clone(),
                elo: (strength[&i].ln() - base) * ELO_PER_NAT,
                margin: margins.get(&i).copied().unwrap_or(0.0),
                games: real_games[i],
                score: real_score[i] / real_games[i].max(1.0),
                reference: results.players[reference].clone(),
            });
        }
    }
    // The group linked to GNU Go first, then the others by their reference's name; best
    // first within each, so `groups` finds every group as one run.
    out.sort_by(|a, b| {
        (!is_anchor(&a.reference))
            .cmp(&!is_anchor(&b.reference))
            .then(a.reference.cmp(&b.reference))
            .then(b.elo.total_cmp(&a.elo))
            .then(a.player.cmp(&b.player))
    });
    out
}

/// The ratings of `fit`, one slice per group of players that games link (each rated against
/// its own reference, so Elo compare only within a group), in `fit`'s order.
pub fn groups(ratings: &[Rating]) -> Vec<&[Rating]> {
    ratings
        .chunk_by(|a, b| a.reference == b.reference)
        .collect()
}

/// The name of the `k`-th group (0-based) in tables and charts: A, B, ..., Z, AA, AB, ...
pub fn group_name(k: usize) -> String {
    let mut name = String::new();
    let mut k = k + 1;
    while k > 0 {
        k -= 1;
        name.insert(0, char::from(b'A' + (k % 26) as u8));
        k /= 26;
    }
    name
}

/// What a group's Elo are measured from, in words.
pub fn group_reference(group: &[Rating]) -> String {
    let reference = &group[0].reference;
    if is_anchor(reference) {
        "linked to GNU Go 3.8 level 10 (= 0)".to_string()
    } else {
        format!(
            "not linked to GNU Go level 10: rated against its most-played player, `{reference}` \
             (= 0); these Elo do not compare with other groups'"
        )
    }
}

/// The players linked by games, each group in increasing index order.
fn connected_groups(n: usize, games: &[Vec<f64>]) -> Vec<Vec<usize>> {
    let mut seen = vec![false; n];
    let mut groups = Vec::new();
    for start in 0..n {
        if seen[start] {
            continue;
        }
        let mut group = vec![start];
        seen[start] = true;
        let mut k = 0;
        while k < group.len() {
            let i = group[k];
            for j in 0..n {
                if !seen[j] && games[i][j] > 0.0 {
                    seen[j] = true;
                    group.push(j);
                }
            }
            k += 1;
        }
        group.sort_unstable();
        groups.push(group);
    }
    groups
}

/// Hunter's MM iteration for Bradley-Terry strengths (gamma) within one group.
fn mm_fit(group: &[usize], games: &[Vec<f64>], score: &[f64]) -> BTreeMap<usize, f64> {
    let mut gamma: BTreeMap<usize, f64> = group.iter().map(|&i| (i, 1.0)).collect();
    for _ in 0..20_000 {
        let mut change = 0f64;
        let mut next = BTreeMap::new();
        for &i in group {
            let denom: f64 = group
                .iter()
                .filter(|&&j| j != i && games[i][j] > 0.0)
                .map(|&j| games[i][j] / (gamma[&i] + gamma[&j]))
                .sum();
            let g = if denom > 0.0 { score[i] / denom } else { 1.0 };
            next.insert(i, g.max(1e-300));
        }
        // Fix the scale (the model only sees ratios): geometric mean 1.
        let mean = next.values().map(|g: &f64| g.ln()).sum::<f64>() / group.len() as f64;
        for (i, g) in next.iter_mut() {
            *g = (g.ln() - mean).exp();
            change = change.max((g.ln() - gamma[i].ln()).abs());
        }
        gamma = next;
        if change < 1e-10 {
            break;
        }
    }
    gamma
}

/// 95% interval half-widths (Elo) of every player of `group` relative to `reference`, from
/// the inverse of the Fisher information with the reference's rating held fixed.
fn margins(
    group: &[usize],
    reference: usize,
    games: &[Vec<f64>],
    gamma: &BTreeMap<usize, f64>,
) -> BTreeMap<usize, f64> {
    let free: Vec<usize> = group.iter().copied().filter(|&i| i != reference).collect();
    let m = free.len();
    let mut info = vec![vec![0.0; m]; m];
    for (a, &i) in free.iter().enumerate() {
        for &j in group {
            if j == i || games[i][j] == 0.0 {
                continue;
            }
            let p = gamma[&i] / (gamma[&i] + gamma[&j]);
            let w = games[i][j] * p * (1.0 - p);
            info[a][a] += w;
            if let Some(b) = free.iter().position(|&f| f == j) {
                info[a][b] -= w;
            }
        }
    }
    let Some(inverse) = invert(info) else {
        return BTreeMap::new();
    };
    free.iter()
        .enumerate()
        .map(|(a, &i)| (i, 1.96 * inverse[a][a].max(0.0).sqrt() * ELO_PER_NAT))
        .collect()
}

/// The inverse of a symmetric positive-definite matrix by Gauss-Jordan elimination with
/// partial pivoting, or `None` when it is singular.
fn invert(mut a: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut inv: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| f64::from(u8::from(i == j))).collect())
        .collect();
    for col in 0..n {
        let pivot = (col..n).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        inv.swap(col, pivot);
        let d = a[col][col];
        for k in 0..n {
            a[col][k] /= d;
            inv[col][k] /= d;
        }
        for row in 0..n {
            if row != col {
                let f = a[row][col];
                if f != 0.0 {
                    for k in 0..n {
                        a[row][k] -= f * a[col][k];
                        inv[row][k] -= f * inv[col][k];
                    }
                }
            }
        }
    }
    Some(inv)
}

/// The ratings table as Markdown: one table per group (see `groups`), its players ranked
/// within it as `A1`, `A2`, ..., `B1`, ...
pub fn table(ratings: &[Rating], results: &Results) -> String {
    let groups = groups(ratings);
    let mut out = format!(
        "Ratings of {} players from {} games in {} match folders (Bradley-Terry, logistic Elo; \
         one virtual draw per pair that met; 95% intervals relative to the group's reference); \
         {} group(s) of players linked by games\n",
        results.players.len(),
        results.games,
        results.folders,
        groups.len()
    );
    if results.forfeits > 0 {
        out.insert_str(
            out.find('\n').expect("a first line"),
            &format!(
                "; {} loss(es) on time by a starved machine (the loser's engine got under a \
                 quarter of its thinking time as CPU) left out",
                results.forfeits
            ),
        );
    }
    if results.repeats > 0 {
        out.insert_str(
            out.find('\n').expect("a first line"),
            &format!(
                "; {} game(s) found again in another folder counted once",
                results.repeats
            ),
        );
    }
    for (k, group) in groups.iter().enumerate() {
        let name = group_name(k);
        out.push_str(&format!(
            "\n**Group {name}**, {} player(s), {}\n\n\
             | # | player | Elo | 95% interval | games | score |\n|---|---|---|---|---|---|\n",
            group.len(),
            group_reference(group)
        ));
        for (rank, r) in group.iter().enumerate() {
            let interval = if r.player == r.reference {
                "reference".to_string()
            } else {
                format!("[{:.0}, {:.0}]", r.elo - r.margin, r.elo + r.margin)
            };
            out.push_str(&format!(
                "| {name}{} | `{}` | {:.0} | {interval} | {:.0} | {:.3} |\n",
                rank + 1,
                r.player,
                r.elo,
                r.games,
                r.score
            ));
        }
    }
    if results.repeated.games > 0 {
        out.push_str(&format!("\n{}\n", results.repeated.describe()));
    }
    out
}

/// Reads the folders under `roots`, fits and returns (results, ratings).
pub fn rate(roots: &[PathBuf]) -> anyhow::Result<(Results, Vec<Rating>)> {
    let folders = match_folders(roots)?;
    anyhow::ensure!(
        !folders.is_empty(),
        "no match folders (with a match.toml) under {}",
        roots
            .iter()
            .map(|p: &PathBuf| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let results = read(&folders)?;
    let ratings = fit(&results, 1.0);
    Ok((results, ratings))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::elo::expected_score;
    use crate::util::rng::FastRng;

    /// A cluster run leaves its shard folders beside the folder they were merged into, and a
    /// folder may be named twice or through a link: every game counts once.
    #[test]
    fn a_game_found_in_several_folders_counts_once() {
        let work = std::env::temp_dir().join(format!("akushu-rate-once-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&work);
        let source = std::path::Path::new("report/runs/random_pruning/x=41");
        let text = std::fs::read_to_string(source.join("games.csv")).unwrap();
        let (header, rows) = text.split_once('\n').unwrap();
        let rows: Vec<&str> = rows.lines().collect();
        let half = rows.len() / 2;
        // The merged folder and its two shards, as `scripts/cluster-merge.sh` leaves them.
        for (name, part) in [
            ("merged", &rows[..]),
            ("shard-0", &rows[..half]),
            ("shard-1", &rows[half..]),
        ] {
            let dir = work.join(name);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::copy(source.join("match.toml"), dir.join("match.toml")).unwrap();
            let csv = format!("{header}\n{}\n", part.join("\n"));
            std::fs::write(dir.join("games.csv"), csv).unwrap();
        }
        let (alone, _) = rate(&[work.join("merged")]).unwrap();
        assert_eq!(alone.games, rows.len());
        let (all, _) = rate(std::slice::from_ref(&work)).unwrap();
        assert_eq!((all.games, all.repeats), (rows.len(), rows.len()));
        assert_eq!(all.pairs, alone.pairs);
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(work.join("merged"), work.join("link")).unwrap();
            let twice = [work.join("merged"), work.join("link"), work.join("merged")];
            let (once, _) = rate(&twice).unwrap();
            assert_eq!((once.folders, once.games), (1, rows.len()));
        }
        std::fs::remove_dir_all(&work).unwrap();
    }

    /// Losses on time by a starved machine are the machine's: the value loop's second gate
    /// (37 of its 100 games lost that way) rates on the other 63 and says how many it left.
    #[test]
    fn losses_on_time_by_a_starved_machine_are_left_out_of_the_fit() {
        let gate = std::path::PathBuf::from("report/loops/value/gen-002/gate");
        let (results, ratings) = rate(std::slice::from_ref(&gate)).unwrap();
        assert_eq!((results.games, results.forfeits), (63, 37));
        let text = table(&ratings, &results);
        assert!(
            text.contains("37 loss(es) on time by a starved machine"),
            "{text}"
        );
    }

    /// Two networks of one size differ only in their hash: the same spec over either is two
    /// players (the size alone once made them one).
    #[test]
    fn networks_are_told_apart_by_their_whole_checksum() {
        let spec = "uct:sims=10,prune=nn:models/x:65@1";
        let mut header = MatchHeader {
            program: crate::runs::folder::ProgramInfo::current(),
            config: super::super::runner::MatchConfig {
                black: spec.into(),
                ..Default::default()
            },
            engines: BTreeMap::new(),
            models: BTreeMap::from([(
                "models/x".to_string(),
                "fnv1a64:0123456789abcdef bytes:4096".parse().unwrap(),
            )]),
            outside: BTreeMap::new(),
            plan: None,
        };
        let one = player_id(spec, &header);
        assert!(one.contains("0123456789abcdef"), "{one}");
        header.models.insert(
            "models/x".to_string(),
            "fnv1a64:0123456789abcd00 bytes:4096".parse().unwrap(),
        );
        assert_ne!(one, player_id(spec, &header));
        assert_ne!(player_key(spec, &header), {
            let mut h = header.clone();
            h.models.insert(
                "models/x".to_string(),
                "fnv1a64:0123456789abcdef bytes:4096".parse().unwrap(),
            );
            player_key(spec, &h)
        });
        // A preset and its keys spelled out are one player, printed as first seen.
        let preset = MatchHeader {
            config: super::super::runner::MatchConfig {
                black: "strong4".into(),
                ..Default::default()
            },
            models: BTreeMap::new(),
            ..header.clone()
        };
        let spelled = crate::search::spec::parse_uct_kind("strong4")
            .unwrap()
            .to_string();
        assert!(spelled.starts_with("uct:"), "{spelled}");
        assert_eq!(
            player_key("strong4", &preset),
            player_key(&spelled, &preset)
        );
        let mut r = Results::default();
        let a = r.player_as(player_key("strong4", &preset), "strong4".into());
        let b = r.player_as(player_key(&spelled, &preset), spelled.clone());
        assert_eq!((a, b, r.players.len()), (0, 0, 1));
    }

    /// Rows the runner never writes are refused by `rate` and `match summarize` alike, each
    /// named by its file and line: a winner that is not B, W or draw; a black_player that is
    /// neither A nor B (or not the one the plan gives); a game twice; a game beyond the
    /// match's count.
    #[test]
    fn forged_or_repeated_rows_are_refused() {
        let work = std::env::temp_dir().join(format!("akushu-rate-forged-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&work);
        let source = std::path::Path::new("report/runs/random_pruning/x=41");
        let text = std::fs::read_to_string(source.join("games.csv")).unwrap();
        let (head, rows) = text.split_once('\n').unwrap();
        let rows: Vec<&str> = rows.lines().take(8).collect();
        // Row 2 (game 2) forged one field at a time; fields: game,black,white,black_player,
        // winner,... (the specs are quoted and hold commas, so edit after them).
        let edit = |field: usize, value: &str| -> String {
            let row = rows[1];
            let end_of_specs = row.rfind("\",").unwrap() + 2;
            let (specs, rest) = row.split_at(end_of_specs);
            let mut cells: Vec<&str> = rest.split(',').collect();
            cells[field] = value;
            format!("{specs}{}", cells.join(","))
        };
        let cases = [
            ("winner", edit(1, "X"), "winner \"X\""),
            ("black-player", edit(0, "C"), "black_player \"C\""),
            ("repeated", rows[1].to_string(), "there twice"),
            (
                "game-999",
                rows[1].replacen("2,", "999,", 1),
                "not one of the match's games",
            ),
        ];
        for (name, forged, says) in cases {
            let dir = work.join(name);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::copy(source.join("match.toml"), dir.join("match.toml")).unwrap();
            let mut lines = rows.clone();
            if name == "repeated" {
                lines.push(&forged);
            } else {
                lines[1] = &forged;
            }
            let csv = format!("{head}\n{}\n", lines.join("\n"));
            std::fs::write(dir.join("games.csv"), csv).unwrap();
            let e = format!("{:#}", rate(std::slice::from_ref(&dir)).unwrap_err());
            assert!(
                e.contains(says) && e.contains("games.csv: row"),
                "{name}: {e}"
            );
            let e = format!("{:#}", super::super::runner::resummarize(&dir).unwrap_err());
            assert!(e.contains(says), "{name}: {e}");
        }
        std::fs::remove_dir_all(&work).unwrap();
    }

    /// Players of known Elo (an anchor named as GNU Go at level 10 among them) play
    /// seeded games; the fit recovers each within its interval, and a player nobody links
    /// to the anchor is rated against its own group.
    #[test]
    fn recovers_known_strengths_within_the_intervals() {
        let truth = [0.0, 150.0, -100.0, 300.0];
        let mut r = Results::default();
        let names = ["gtp:gnugo --mode gtp --level 10", "a", "b", "c"];
        let ids: Vec<usize> = names.iter().map(|n| r.player(n.to_string())).collect();
        let mut rng = FastRng::new(9);
        for (i, j) in [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3), (0, 3)] {
            let p = expected_score(truth[i] - truth[j]);
            for _ in 0..400 {
                r.add(ids[i], ids[j], f64::from(u8::from(rng.unit() < p)));
            }
        }
        let lone = r.player("d".into());
        let other = r.player("e".into());
        for _ in 0..10 {
            r.add(lone, other, 1.0);
        }
        let ratings = fit(&r, 1.0);
        let get = |name: &str| ratings.iter().find(|x| x.player == name).unwrap().clone();
        assert_eq!(get(names[0]).elo, 0.0);
        assert_eq!(get(names[0]).margin, 0.0);
        for (k, name) in names.iter().enumerate().skip(1) {
            let x = get(name);
            assert!(
                (x.elo - truth[k]).abs() <= x.margin,
                "{name}: {} ± {} against {}",
                x.elo,
                x.margin,
                truth[k]
            );
            assert!(x.margin > 10.0 && x.margin < 80.0, "{name}: {}", x.margin);
            assert!(is_anchor(&x.reference));
        }
        // 10 wins and the prior's draw: a finite gap, rated within their own group.
        let (d, e) = (get("d"), get("e"));
        let gap = d.elo - e.elo;
        assert!(gap.is_finite() && gap > 100.0, "{d:?} {e:?}");
        assert!(!is_anchor(&d.reference) && d.reference == e.reference);
        assert_eq!(d.games, 10.0);
        // Two groups, the one linked to GNU Go first, each its own table ranked from 1.
        let groups = groups(&ratings);
        assert_eq!(groups.iter().map(|g| g.len()).collect::<Vec<_>>(), [4, 2]);
        assert!(is_anchor(&groups[0][0].reference));
        assert_eq!(groups[0][0].player, "c", "best first");
        let text = table(&ratings, &r);
        assert!(text.contains("2 group(s)"), "{text}");
        assert!(
            text.contains("| A1 | `c` |") && text.contains("| B1 | `d` |"),
            "{text}"
        );
        assert!(
            text.contains("**Group B**, 2 player(s), not linked"),
            "{text}"
        );
        assert_eq!(
            [0, 1, 25, 26, 27, 701].map(group_name),
            ["A", "B", "Z", "AA", "AB", "ZZ"]
        );
    }

    /// A game is stored once per pair, under the lower index, with the lower index's score:
    /// a game added with its players in the other order (`add(1, 0, s)`) counts `1 - s` for
    /// player 0. Three wins of player 1 added as (1, 0) and one win of player 0 added as
    /// (0, 1) are four games in which player 0 scored 1, and the fit puts player 1 ahead.
    #[test]
    fn a_game_added_with_its_players_swapped_counts_for_the_right_player() {
        let mut r = Results::default();
        let (a, b) = (r.player("a".into()), r.player("b".into()));
        for _ in 0..3 {
            r.add(b, a, 1.0);
        }
        r.add(a, b, 1.0);
        r.add(b, a, 0.5);
        assert_eq!(r.pairs.len(), 1);
        assert_eq!(r.pairs[&(a, b)], (5.0, 1.5));
        assert_eq!(r.games, 5);
        let ratings = fit(&r, 1.0);
        let get = |name: &str| ratings.iter().find(|x| x.player == name).unwrap().clone();
        assert_eq!(get("a").score, 1.5 / 5.0);
        assert_eq!(get("b").score, 3.5 / 5.0);
        assert!(get("b").elo > get("a").elo, "{ratings:?}");
    }

    #[test]
    fn inverse_of_a_small_matrix() {
        let inv = invert(vec![vec![4.0, 1.0], vec![1.0, 3.0]]).unwrap();
        let want = [[3.0 / 11.0, -1.0 / 11.0], [-1.0 / 11.0, 4.0 / 11.0]];
        for i in 0..2 {
            for j in 0..2 {
                assert!((inv[i][j] - want[i][j]).abs() < 1e-12);
            }
        }
        assert!(invert(vec![vec![1.0, 1.0], vec![1.0, 1.0]]).is_none());
    }
}
