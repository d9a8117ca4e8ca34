//! Time control: the clock systems GTP servers announce (`time_settings`,
//! `kgs-time_settings`), a clock that follows `time_left` (or counts down by itself when no
//! controller reports), and the allocator that turns what is left into a budget for one
//! move.
//!
//! The allocator spends main time evenly over the moves a 9x9 game still needs (at least
//! [`MIN_MOVES_LEFT`] of one's own), adds most of a byo-yomi period on top, and always keeps
//! a safety margin for the time the controller and the transport take, so the engine never
//! loses on time while the margin covers that lag.

use anyhow::{Context, bail};

use crate::util::num::MAX_SECONDS;

/// Moves of its own a 9x9 game is expected to last from the start (about 80 plies).
const EXPECTED_OWN_MOVES: f64 = 40.0;
/// The allocator never plans for fewer of its own moves than this while in main time.
pub const MIN_MOVES_LEFT: f64 = 12.0;
/// Seconds kept back from every budget for the controller's and the transport's lag.
pub const DEFAULT_SAFETY: f64 = 0.1;

/// A clock system, as GTP and KGS name them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TimeControl {
    /// No limit.
    None,
    /// `main` seconds for the whole game.
    Absolute { main: f64 },
    /// Japanese byo-yomi: `main` seconds, then `periods` periods of `period` seconds; a move
    /// made within a period keeps it.
    ByoYomi {
        main: f64,
        period: f64,
        periods: u32,
    },
    /// Canadian overtime: `main` seconds, then `stones` moves in every `period` seconds.
    Canadian { main: f64, period: f64, stones: u32 },
}

impl TimeControl {
    /// GTP 2's `time_settings main_time byo_yomi_time byo_yomi_stones` (Canadian overtime;
    /// byo-yomi time 0 = absolute; stones 0 with byo-yomi time = no limit).
    pub fn from_gtp(main: f64, period: f64, stones: u32) -> TimeControl {
        if period <= 0.0 {
            TimeControl::Absolute { main }
        } else if stones == 0 {
            TimeControl::None
        } else {
            TimeControl::Canadian {
                main,
                period,
                stones,
            }
        }
    }

    /// KGS's `kgs-time_settings none | absolute M | byoyomi M P N | canadian M P S`.
    pub fn from_kgs(args: &[&str]) -> anyhow::Result<TimeControl> {
        let num = |i: usize, what: &str| -> anyhow::Result<f64> {
            let text = args.get(i).with_context(|| format!("missing {what}"))?;
            crate::util::num::parse_in(what, text, 0.0, MAX_SECONDS).map_err(anyhow::Error::msg)
        };
        let count = |i: usize, what: &str| -> anyhow::Result<u32> {
            let v = num(i, what)?;
            anyhow::ensure!(v.fract() == 0.0, "{what}: {v} is not a whole number");
            Ok(v as u32)
        };
        let system = args.first().copied().unwrap_or("");
        let tc = match system {
            "none" => TimeControl::None,
            "absolute" => TimeControl::Absolute {
                main: num(1, "main time")?,
            },
            // An overtime of no periods, no stones or no time is no overtime: main time is
            // all there is (else each move would be budgeted a period it does not have).
            "byoyomi" => match (
                num(1, "main time")?,
                num(2, "period time")?,
                count(3, "periods")?,
            ) {
                (main, period, periods) if period > 0.0 && periods > 0 => TimeControl::ByoYomi {
                    main,
                    period,
                    periods,
                },
                (main, ..) => TimeControl::Absolute { main },
            },
            "canadian" => match (
                num(1, "main time")?,
                num(2, "period time")?,
                count(3, "stones")?,
            ) {
                (main, period, stones) if period > 0.0 && stones > 0 => TimeControl::Canadian {
                    main,
                    period,
                    stones,
                },
                (main, ..) => TimeControl::Absolute { main },
            },
            other => bail!("unknown time system `{other}` (none, absolute, byoyomi, canadian)"),
        };
        Ok(tc)
    }

    /// Seconds of main time.
    fn main(&self) -> f64 {
        match *self {
            TimeControl::None => f64::INFINITY,
            TimeControl::Absolute { main }
            | TimeControl::ByoYomi { main, .. }
            | TimeControl::Canadian { main, .. } => main,
        }
    }
}

/// One side's clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clock {
    pub control: TimeControl,
    /// Main time left, or the time left in the current overtime period when `overtime`.
    pub left: f64,
    /// In overtime: periods left (byo-yomi) or stones still to play in this period
    /// (Canadian).
    pub stones: u32,
    pub overtime: bool,
}

impl Clock {
    /// A clock at the start of a game. With no main time it starts in overtime, so the
    /// first move is budgeted as what it is (a period, or a share of one), not as main
    /// time with nothing left.
    pub fn new(control: TimeControl) -> Clock {
        let mut c = Clock {
            control,
            left: control.main(),
            stones: 0,
            overtime: false,
        };
        // (main time, period, periods or stones a period) of the systems with overtime.
        let overtime = match control {
            TimeControl::ByoYomi {
                main,
                period,
                periods,
            } => Some((main, period, periods)),
            TimeControl::Canadian {
                main,
                period,
                stones,
            } => Some((main, period, stones)),
            _ => None,
        };
        if let Some((main, period, count)) = overtime
            && main <= 0.0
            && count > 0
        {
            c.overtime = true;
            c.left = period;
            c.stones = count;
        }
        c
    }

    /// Whether the clock limits anything.
    pub fn is_limited(&self) -> bool {
        self.control != TimeControl::None
    }

    /// GTP `time_left seconds stones`: stones 0 = main time; otherwise overtime, with
    /// `stones` periods (byo-yomi) or stones in this period (Canadian).
    pub fn set_left(&mut self, seconds: f64, stones: u32) {
        self.left = seconds.max(0.0);
        self.stones = stones;
        self.overtime = stones > 0;
        // A controller may report time left under a system it never announced (GTP allows
        // `time_left` alone): treat it as absolute time, or Canadian overtime.
        if self.control == TimeControl::None {
            self.control = if stones > 0 {
                TimeControl::Canadian {
                    main: 0.0,
                    period: seconds,
                    stones,
                }
            } else {
                TimeControl::Absolute { main: seconds }
            };
        }
    }

    /// Counts a move that took `seconds`; true when the flag fell (the move took more than
    /// the clock allowed, overtime included). Engines call it when no controller reports
    /// `time_left`; the arena's referee keeps the authoritative clocks with it.
    pub fn spend(&mut self, seconds: f64) -> bool {
        match self.control {
            TimeControl::None => false,
            TimeControl::Absolute { .. } => {
                let out = seconds > self.left;
                self.left = (self.left - seconds).max(0.0);
                out
            }
            TimeControl::ByoYomi {
                period, periods, ..
            } => {
                // In overtime `left` is a fresh period, so the whole move counts against it.
                let mut over = if self.overtime {
                    seconds
                } else {
                    seconds - self.left
                };
                if !self.overtime {
                    if over <= 0.0 {
                        self.left -= seconds;
                        return false;
                    }
                    self.overtime = true;
                    self.stones = periods;
                }
                // A move within a period keeps it; each whole period overrun is lost.
                while over >= period && self.stones > 0 {
                    self.stones -= 1;
                    over -= period;
                }
                self.left = period;
                self.stones == 0
            }
            TimeControl::Canadian { period, stones, .. } => {
                let out;
                if !self.overtime {
                    let over = seconds - self.left;
                    if over <= 0.0 {
                        self.left -= seconds;
                        return false;
                    }
                    self.overtime = true;
                    self.stones = stones;
                    self.left = period - over;
                    out = over > period;
                } else {
                    out = seconds > self.left;
                    self.left -= seconds;
                }
                self.stones = self.stones.saturating_sub(1);
                if self.stones == 0 {
                    self.stones = stones;
                    self.left = period;
                }
                out
            }
        }
    }

    /// Seconds to think about the next move, `None` when the clock does not limit;
    /// `own_moves` = moves this side made so far. Never more than what is left minus the
    /// safety margin (at least a hundredth of a second, so a move is always made).
    pub fn budget(&self, own_moves: u32, safety: f64) -> Option<f64> {
        // Keep the margin back; once a share is too small for that, spend half of it, so the
        // clock decays instead of running out.
        let usable = |t: f64| {
            if t > 2.0 * safety {
                t - safety
            } else {
                (t / 2.0).max(0.01)
            }
        };
        let moves_left = (EXPECTED_OWN_MOVES - f64::from(own_moves)).max(MIN_MOVES_LEFT);
        let b = match self.control {
            TimeControl::None => return None,
            TimeControl::Absolute { .. } => usable(self.left / moves_left),
            TimeControl::ByoYomi { period, .. } => {
                // A period is renewed by every move made within it: spend most of one each
                // move, plus a share of what main time is left.
                let main = if self.overtime { 0.0 } else { self.left };
                usable(main / moves_left + period * 0.8).min(usable(main + period))
            }
            TimeControl::Canadian { period, stones, .. } => {
                if self.overtime {
                    let stones = self.stones.max(1);
                    usable(self.left / f64::from(stones))
                } else {
                    let overtime_share = period / f64::from(stones.max(1));
                    usable(self.left / moves_left + overtime_share * 0.8)
                        .min(usable(self.left + overtime_share))
                }
            }
        };
        Some(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtp_time_settings_name_the_system() {
        assert_eq!(
            TimeControl::from_gtp(60.0, 0.0, 0),
            TimeControl::Absolute { main: 60.0 }
        );
        assert_eq!(TimeControl::from_gtp(60.0, 10.0, 0), TimeControl::None);
        assert_eq!(
            TimeControl::from_gtp(0.0, 5.0, 1),
            TimeControl::Canadian {
                main: 0.0,
                period: 5.0,
                stones: 1
            }
        );
    }

    #[test]
    fn kgs_time_settings_parse_and_refuse() {
        assert_eq!(
            TimeControl::from_kgs(&["byoyomi", "300", "30", "5"]).unwrap(),
            TimeControl::ByoYomi {
                main: 300.0,
                period: 30.0,
                periods: 5
            }
        );
        assert_eq!(TimeControl::from_kgs(&["none"]).unwrap(), TimeControl::None);

        for bad in [
            &["fischer", "1"][..],
            &["absolute"],
            &["canadian", "1", "2", "2.5"],
            &["byoyomi", "1", "nan", "3"],
        ] {
            assert!(TimeControl::from_kgs(bad).is_err(), "{bad:?}");
        }
    }

    /// Plays a whole game of `moves` own moves, each taking exactly its budget plus `lag`,
    /// and returns whether the clock ever ran out.
    fn runs_out(control: TimeControl, moves: u32, lag: f64) -> bool {
        let mut clock = Clock::new(control);
        (0..moves).any(|k| {
            let b = clock.budget(k, DEFAULT_SAFETY).unwrap();
            clock.spend(b + lag)
        })
    }

    #[test]
    fn the_flag_falls_when_a_move_overruns() {
        let mut abs = Clock::new(TimeControl::Absolute { main: 1.0 });
        assert!(!abs.spend(0.6));
        assert!(abs.spend(0.6));
        let mut byo = Clock::new(TimeControl::ByoYomi {
            main: 1.0,
            period: 2.0,
            periods: 2,
        });
        assert!(!byo.spend(2.5), "main time and half a period");
        assert_eq!((byo.overtime, byo.stones), (true, 2));
        assert!(!byo.spend(2.5), "one period lost");
        assert_eq!(byo.stones, 1);
        assert!(byo.spend(2.0), "the last period used up");
        let mut can = Clock::new(TimeControl::Canadian {
            main: 0.0,
            period: 3.0,
            stones: 2,
        });
        assert!(!can.spend(1.0));
        assert!(!can.spend(1.9), "2.9 s for 2 stones");
        assert!(!can.spend(1.0), "a new period");
        assert!(can.spend(2.5), "3.5 s for 2 stones");
    }

    #[test]
    fn the_allocator_never_loses_on_time_within_its_margin() {
        let systems = [
            TimeControl::Absolute { main: 60.0 },
            TimeControl::Absolute { main: 10.0 },
            TimeControl::ByoYomi {
                main: 30.0,
                period: 5.0,
                periods: 1,
            },
            TimeControl::ByoYomi {
                main: 0.0,
                period: 1.0,
                periods: 1,
            },
            TimeControl::ByoYomi {
                main: 30.0,
                period: 5.0,
                periods: 3,
            },
            TimeControl::Canadian {
                main: 0.0,
                period: 5.0,
                stones: 1,
            },
            TimeControl::Canadian {
                main: 20.0,
                period: 30.0,
                stones: 10,
            },
        ];
        for control in systems {
            // 100 own moves is far longer than any 9x9 game. With overtime the lag may take
            // nearly the whole margin; absolute time pays every lag from the same pot, so it
            // is checked with the search's own overshoot (a deadline is checked every 64
            // simulations, a few milliseconds).
            let lag = match control {
                TimeControl::Absolute { .. } => 0.005,
                _ => DEFAULT_SAFETY * 0.9,
            };
            assert!(!runs_out(control, 100, lag), "{control:?}");
        }
    }

    #[test]
    fn budgets_use_the_time_there_is() {
        let b = Clock::new(TimeControl::Canadian {
            main: 0.0,
            period: 5.0,
            stones: 1,
        })
        .budget(0, DEFAULT_SAFETY)
        .unwrap();
        // Zero main time: the first move already is in overtime, a whole period less the
        // safety margin.
        assert!((b - (5.0 - DEFAULT_SAFETY)).abs() < 1e-9, "{b}");
        // `--time-per-move 0.25`: 0.15 s, not the 0.1 a main-time reading would give.
        let per_move = Clock::new(TimeControl::Canadian {
            main: 0.0,
            period: 0.25,
            stones: 1,
        });
        assert!((per_move.budget(0, DEFAULT_SAFETY).unwrap() - 0.15).abs() < 1e-9);
        let mut c = Clock::new(TimeControl::Canadian {
            main: 0.0,
            period: 5.0,
            stones: 1,
        });
        c.set_left(5.0, 1);
        let b = c.budget(10, DEFAULT_SAFETY).unwrap();
        assert!((b - (5.0 - DEFAULT_SAFETY)).abs() < 1e-9, "{b}");
        let abs = Clock::new(TimeControl::Absolute { main: 120.0 });
        let early = abs.budget(0, DEFAULT_SAFETY).unwrap();
        assert!(early > 2.0 && early < 3.5, "{early}");
        assert_eq!(Clock::new(TimeControl::None).budget(0, 0.25), None);
    }

    /// Byo-yomi budgets one period whatever the number of periods: a move that overran a
    /// period would lose it, and the spare periods are insurance, not thinking time.
    #[test]
    fn byo_yomi_budgets_one_period_however_many_there_are() {
        let byo = |main: f64, periods: u32| {
            Clock::new(TimeControl::ByoYomi {
                main,
                period: 5.0,
                periods,
            })
        };
        for periods in [1, 3, 5] {
            // In main time: a 40th of the main time and 0.8 of a period, less the margin.
            let b = byo(40.0, periods).budget(0, DEFAULT_SAFETY).unwrap();
            assert!(
                (b - (1.0 + 4.0 - DEFAULT_SAFETY)).abs() < 1e-9,
                "{periods}: {b}"
            );
            // In overtime: 0.8 of the period.
            let b = byo(0.0, periods).budget(0, DEFAULT_SAFETY).unwrap();
            assert!((b - (4.0 - DEFAULT_SAFETY)).abs() < 1e-9, "{periods}: {b}");
        }
    }

    #[test]
    fn time_left_without_settings_limits_the_move() {
        let mut c = Clock::new(TimeControl::None);
        c.set_left(30.0, 0);
        assert!(c.budget(0, DEFAULT_SAFETY).unwrap() < 30.0 / MIN_MOVES_LEFT);
        let mut c = Clock::new(TimeControl::None);
        c.set_left(4.0, 2);
        let b = c.budget(0, DEFAULT_SAFETY).unwrap();
        assert!((b - (2.0 - DEFAULT_SAFETY)).abs() < 1e-9, "{b}");
    }
}
