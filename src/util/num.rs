//! Numbers from users (command-line flags, engine-spec keys, GTP arguments, TOML files) are
//! checked once, where they are parsed, against a stated range. NaN never passes (every
//! comparison with it is false) and no range here reaches infinity, so a value that passes
//! is finite and safe to turn into a `Duration`, a loop count or an allocation size.

use std::fmt::{Debug, Display};
use std::str::FromStr;
use std::time::{Duration, Instant};

/// Longest time limit accepted anywhere, in seconds (about 11.6 days).
pub const MAX_SECONDS: f64 = 1e6;
/// Most worker threads accepted by any command.
pub const MAX_THREADS: usize = 256;

/// `value` when `lo <= value <= hi`, else a message naming `name` and the range.
/// (`Debug` prints a float as short as it was written: `1e300`, not 301 digits.)
pub fn check<T: PartialOrd + Display + Debug + Copy>(
    name: &str,
    value: T,
    lo: T,
    hi: T,
) -> Result<T, String> {
    if lo <= value && value <= hi {
        Ok(value)
    } else {
        Err(format!(
            "{name}: {value:?} is not in the allowed range {lo} to {hi}"
        ))
    }
}

/// Parses `text` and checks it lies in `lo..=hi` (NaN and infinities never do).
pub fn parse_in<T>(name: &str, text: &str, lo: T, hi: T) -> Result<T, String>
where
    T: FromStr + PartialOrd + Display + Debug + Copy,
    T::Err: Display,
{
    let value = text
        .trim()
        .parse::<T>()
        .map_err(|e| format!("{name}: `{text}` is not a number ({e}); allowed: {lo} to {hi}"))?;
    check(name, value, lo, hi)
}

/// clap parser for a positive time limit in seconds (`--genmove-timeout`, ...).
pub fn seconds_arg(text: &str) -> Result<f64, String> {
    let v = parse_in("seconds", text, 0.0, MAX_SECONDS)?;
    if v <= 0.0 {
        return Err(format!(
            "seconds: {v} must be above 0 (allowed: above 0 to {MAX_SECONDS})"
        ));
    }
    Ok(v)
}

/// clap parser for a thread count (`--threads`; 0 = one per core).
pub fn threads_arg(text: &str) -> Result<usize, String> {
    parse_in("threads", text, 0, MAX_THREADS)
}

/// clap parser for `--jobs` (games played at once: 1 to the thread limit).
pub fn jobs_arg(text: &str) -> Result<usize, String> {
    parse_in("jobs", text, 1, MAX_THREADS)
}

/// clap parser for a number of synthetic games (`--synthetic-games`: 1 to 1,000,000).
pub fn synthetic_games_arg(text: &str) -> Result<usize, String> {
    parse_in("synthetic games", text, 1, 1_000_000)
}

/// clap parser for a share of games in `0..=1` (`--validation`, `--test`).
pub fn share_arg(text: &str) -> Result<f64, String> {
    parse_in("share", text, 0.0, 1.0)
}

/// `now + seconds`, or `None` (no deadline) when the instant cannot be represented: a
/// last guard for limits that did not come through the parsers above.
pub fn deadline_after(now: Instant, seconds: f64) -> Option<Instant> {
    Duration::try_from_secs_f64(seconds)
        .ok()
        .and_then(|d| now.checked_add(d))
}

/// `seconds` as a `Duration`, saturating: NaN and negatives are zero, huge values the
/// longest representable wait.
pub fn duration_saturating(seconds: f64) -> Duration {
    if seconds.is_nan() || seconds <= 0.0 {
        Duration::ZERO
    } else {
        Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_and_out_of_range_values_are_refused() {
        for bad in ["NaN", "nan", "inf", "-inf", "1e300", "0", "-1", "x", ""] {
            assert!(seconds_arg(bad).is_err(), "{bad}");
        }
        assert_eq!(seconds_arg("2.5"), Ok(2.5));
        assert!(threads_arg("5000").unwrap_err().contains("threads"));
        assert!(share_arg("NaN").is_err());
        let e = parse_in::<u32>("sims", "-3", 1, 10).unwrap_err();
        assert!(e.contains("sims") && e.contains("1 to 10"), "{e}");
    }

    #[test]
    fn deadlines_never_overflow() {
        let now = Instant::now();
        assert!(deadline_after(now, f64::INFINITY).is_none());
        assert!(deadline_after(now, f64::NAN).is_none());
        assert!(deadline_after(now, 1e300).is_none());
        assert!(deadline_after(now, 1.0).is_some());
        assert_eq!(duration_saturating(f64::NAN), Duration::ZERO);
        assert_eq!(duration_saturating(1e300), Duration::MAX);
    }
}
