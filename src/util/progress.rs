//! The progress bars' shared style (indicatif, on stderr): a `{rate}` key that prints whole
//! numbers with thousands separators (`120,588/s`), where indicatif's `{per_sec}` prints
//! three decimals that change every redraw and mean nothing at these rates.

use indicatif::{HumanCount, ProgressState, ProgressStyle};

/// A rate as the bars print it: rounded to a whole number, thousands separated.
pub fn rate_text(per_sec: f64) -> String {
    // A bar that has not measured yet reports 0 or a non-finite rate.
    let whole = if per_sec.is_finite() && per_sec > 0.0 {
        per_sec.round() as u64
    } else {
        0
    };
    format!("{}/s", HumanCount(whole))
}

/// `template` as a style, with `{rate}` available beside indicatif's own keys.
pub fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .expect("valid template")
        .with_key(
            "rate",
            |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&rate_text(state.per_sec()));
            },
        )
}

/// The bar of a run of `len` units (`what` names them: `games`, `self-play games`,
/// `positions`), hidden unless `show`.
pub fn progress_bar(len: u64, show: bool, what: &str) -> indicatif::ProgressBar {
    if !show {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template(&format!(
            "{{elapsed_precise}} [{{bar:30}}] {{pos}}/{{len}} {what}, eta {{eta}} {{msg}}"
        ))
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_whole_numbers_with_thousands_separators() {
        assert_eq!(rate_text(120_588.479), "120,588/s");
        assert_eq!(rate_text(999.5), "1,000/s");
        assert_eq!(rate_text(3.2), "3/s");
        assert_eq!(rate_text(f64::INFINITY), "0/s");
        assert_eq!(rate_text(f64::NAN), "0/s");
    }
}
