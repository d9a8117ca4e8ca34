//! An experiment's plan: the games each arm still has to play and the time they should take.

use super::*;

/// What `experiment run` is about to do for one arm.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmPlan {
    pub label: String,
    pub dir: PathBuf,
    pub planned: u32,
    /// Games already in `dir` (they are not played again).
    pub done: u32,
    /// Seconds per game from recorded games of the same players: those in `dir`, else
    /// those in the committed record.
    pub estimate: Option<Recorded>,
    /// The games in `dir` decide the arm's sequential test: nothing is left to play.
    pub decided: bool,
}

impl ArmPlan {
    pub fn remaining(&self) -> u32 {
        if self.decided {
            return 0;
        }
        self.planned.saturating_sub(self.done)
    }
}

/// The plan of every arm of `file`: results go to `out/<name>/<arm>`, and an arm with no
/// games there yet is timed from `record/<name>/<arm>` (the committed runs).
pub fn plan_arms(
    file: &ExperimentFile,
    quick: bool,
    out: &Path,
    record: &Path,
) -> anyhow::Result<Vec<ArmPlan>> {
    let mut plans = Vec::new();
    // An arm that reads another experiment's games costs nothing here.
    for arm in file
        .arms(quick)?
        .into_iter()
        .filter(|a| a.same_games_as.is_none())
    {
        let dir = out.join(&file.name).join(slug(&arm.label));
        let here = recorded_games(&arm.config, &dir)?;
        let estimate = match &here {
            Some(r) => Some(r.clone()),
            None => recorded_games(&arm.config, &record.join(&file.name).join(slug(&arm.label)))?,
        };
        plans.push(ArmPlan {
            label: arm.label.clone(),
            dir,
            planned: arm.config.games,
            done: here.as_ref().map_or(0, |r| r.games),
            decided: here.is_some_and(|r| r.decided),
            estimate,
        });
    }
    Ok(plans)
}

/// Seconds as `45 s`, `12 min` or `3.5 h`.
pub fn human_seconds(s: f64) -> String {
    if s < 90.0 {
        format!("{s:.0} s")
    } else if s < 5400.0 {
        format!("{:.0} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}

/// Seconds to play what `p` has left with `jobs` games at once (its recorded seconds per
/// game / jobs), or `None` without a record.
pub(super) fn arm_seconds(p: &ArmPlan, jobs: usize) -> Option<f64> {
    let r = p.estimate.as_ref()?;
    Some(f64::from(p.remaining()) * r.seconds_per_game / jobs.max(1) as f64)
}

/// The estimated seconds to play what `plans` have left with `jobs` games at once, and how
/// many arms with games to play have no estimate.
pub fn plan_estimate(plans: &[ArmPlan], jobs: usize) -> (f64, usize) {
    plans
        .iter()
        .filter(|p| p.remaining() > 0)
        .fold((0.0, 0), |(s, unknown), p| match arm_seconds(p, jobs) {
            Some(t) => (s + t, unknown),
            None => (s, unknown + 1),
        })
}

/// The plan as text: one line per arm and a total. The time assumes `jobs` games at once,
/// each as long as the recorded mean of its arm (recorded on whatever machine and with
/// whatever parallelism the record had).
pub fn plan_text(name: &str, plans: &[ArmPlan], jobs: usize) -> String {
    let mut text = String::new();
    for p in plans {
        let time = match (&p.estimate, arm_seconds(p, jobs), p.remaining()) {
            (_, _, 0) if p.decided => {
                "its sequential test has decided, nothing to play".to_string()
            }
            (_, _, 0) => "nothing to play".to_string(),
            (Some(r), Some(s), _) => format!(
                "about {} ({:.2} s a game, mean of {} recorded in {})",
                human_seconds(s),
                r.seconds_per_game,
                r.games,
                r.csv.display()
            ),
            _ => "no estimate (no recorded games of this arm)".to_string(),
        };
        text += &format!(
            "[{name}] plan {}: {} games, {} already in {}, {} to play: {time}\n",
            p.label,
            p.planned,
            p.done,
            p.dir.display(),
            p.remaining(),
        );
    }
    let planned: u32 = plans.iter().map(|p| p.planned).sum();
    let remaining: u32 = plans.iter().map(ArmPlan::remaining).sum();
    let mut total = format!(
        "[{name}] plan total: {planned} games in {} arm(s), {remaining} to play",
        plans.len()
    );
    let (seconds, unknown) = plan_estimate(plans, jobs);
    let timed = plans
        .iter()
        .any(|p| p.remaining() > 0 && p.estimate.is_some());
    if remaining > 0 && !timed {
        total += ": no estimate (no recorded games of these arms)";
    } else if remaining > 0 {
        total += &format!(
            ", {}{} with {} game(s) at once (recorded seconds per game / --jobs; the records may come from other jobs or another machine)",
            if unknown > 0 { "at least " } else { "about " },
            human_seconds(seconds),
            jobs.max(1)
        );
        if unknown > 0 {
            total += &format!("; {unknown} arm(s) without an estimate");
        }
    }
    text + &total + "\n"
}
