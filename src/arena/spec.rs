//! A player's name as text, parsed: an in-process engine spec or an outside engine's `gtp:`
//! command line. Below every other file of the arena, which all classify players through it.

/// A player as a match, an experiment or a rating names it: an in-process engine spec
/// (built by `search::spec::build_engine`), or `gtp:` and the command line of an outside GTP engine. The
/// one place that reads the `gtp:` prefix; the text it was parsed from prints back with
/// [`Display`](std::fmt::Display) (trimmed).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PlayerSpec {
    /// An engine spec (`strong8:max_seconds=0.1`, `uct:sims=1000`, ...).
    Engine(String),
    /// An outside engine's command line, without the `gtp:` before it.
    Outside(String),
}

/// The prefix that names an outside engine's command line.
const OUTSIDE_PREFIX: &str = "gtp:";

impl PlayerSpec {
    /// The outside engine's command line; `None` for an in-process engine.
    pub fn outside_command(&self) -> Option<&str> {
        match self {
            PlayerSpec::Outside(command) => Some(command),
            PlayerSpec::Engine(_) => None,
        }
    }
}

impl std::str::FromStr for PlayerSpec {
    type Err = std::convert::Infallible;

    /// Every text names a player; whether an engine spec builds is for `build_engine`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        Ok(match text.strip_prefix(OUTSIDE_PREFIX) {
            Some(command) => PlayerSpec::Outside(command.trim().to_string()),
            None => PlayerSpec::Engine(text.to_string()),
        })
    }
}

impl std::fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlayerSpec::Engine(spec) => f.write_str(spec),
            PlayerSpec::Outside(command) => write!(f, "{OUTSIDE_PREFIX}{command}"),
        }
    }
}

// Recorded as its text (`match.toml`, experiment files).
crate::serde_as_text!(PlayerSpec);

/// A player's spec parsed (infallibly).
pub fn player_spec(text: &str) -> PlayerSpec {
    text.parse().unwrap_or_else(|never| match never {})
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `gtp:` and a command line name an outside engine (spaces around it dropped); any
    /// other text an engine spec; both print back as the trimmed text and serialise as it.
    #[test]
    fn a_player_is_an_engine_spec_or_an_outside_command() {
        let outside = player_spec("  gtp: gnugo --mode gtp --level 10 ");
        assert_eq!(
            outside,
            PlayerSpec::Outside("gnugo --mode gtp --level 10".into())
        );
        assert_eq!(
            outside.outside_command(),
            Some("gnugo --mode gtp --level 10")
        );
        assert_eq!(outside.to_string(), "gtp:gnugo --mode gtp --level 10");
        let engine = player_spec(" strong8:max_seconds=0.1");
        assert_eq!(engine, PlayerSpec::Engine("strong8:max_seconds=0.1".into()));
        assert_eq!(engine.outside_command(), None);
        for text in [
            "strong8:max_seconds=0.1",
            "gtp:katago gtp -model b6c96.bin.gz",
        ] {
            let spec = player_spec(text);
            assert_eq!(spec.to_string(), text);
            let json = serde_json::to_string(&spec).unwrap();
            assert_eq!(json, serde_json::to_string(text).unwrap());
            assert_eq!(serde_json::from_str::<PlayerSpec>(&json).unwrap(), spec);
        }
        // A `gtp` engine kind without the colon is no outside engine.
        assert_eq!(player_spec("gtpx"), PlayerSpec::Engine("gtpx".into()));
    }
}
