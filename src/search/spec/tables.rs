//! The key tables of the small kinds: `flat`, `territory` and `random`.

use super::*;

/// Every key of `flat:` specs, in the order they are printed.
pub static FLAT_KEYS: &[Key<FlatConfig>] = &[
    Key {
        name: "sims",
        value: ValueType::Whole {
            lo: 1,
            hi: 1_000_000_000,
        },
        doc: "Simulations (playouts) per move.",
        set: |c, v| {
            c.sims = v.whole();
            Ok(())
        },
        get: |c| some(c.sims),
    },
    Key {
        name: "c",
        value: ValueType::Real32 { lo: 0.0, hi: 100.0 },
        doc: "UCB exploration constant.",
        set: |c, v| {
            c.c = v.real32();
            Ok(())
        },
        get: |c| some(c.c),
    },
    Key {
        name: "resign",
        value: ValueType::Real32 { lo: 0.0, hi: 1.0 },
        doc: "Resign below this win rate (0 = never).",
        set: |c, v| {
            c.resign = v.real32();
            Ok(())
        },
        get: |c| some(c.resign),
    },
    Key {
        name: "pass",
        value: ValueType::Bool,
        doc: "Pass after the opponent passed when the area count already wins.",
        set: |c, v| {
            c.pass_when_ahead = v.boolean();
            Ok(())
        },
        get: |c| some(c.pass_when_ahead),
    },
    Key {
        name: "playout_moves",
        value: ValueType::Whole { lo: 1, hi: 100_000 },
        doc: "Playout length cap in moves.",
        set: |c, v| {
            c.playout_moves = v.whole();
            Ok(())
        },
        get: |c| some(c.playout_moves),
    },
];

/// The keys of `territory:` specs (its own seed; `None` = the game's).
pub static TERRITORY_KEYS: &[Key<Option<u64>>] = &[Key {
    name: "seed",
    value: ValueType::Whole {
        lo: 0,
        hi: u64::MAX,
    },
    doc: "The player's own seed (default: the game's seed).",
    set: |s, v| {
        *s = Some(v.whole());
        Ok(())
    },
    get: |s| s.map(|n| n.to_string()),
}];

/// Longest pause the random mover may take per move, in milliseconds (one hour).
pub(super) const MAX_DELAY_MS: u64 = 3_600_000;

/// The keys of `random:` specs.
pub static RANDOM_KEYS: &[Key<RandomConfig>] = &[
    Key {
        name: "delay_ms",
        value: ValueType::Whole {
            lo: 0,
            hi: MAX_DELAY_MS,
        },
        doc: "Milliseconds to sleep before each move (lets tests interrupt a match).",
        set: |c, v| {
            c.delay_ms = v.whole();
            Ok(())
        },
        get: |c| some(c.delay_ms),
    },
    Key {
        name: "seed",
        value: ValueType::Whole {
            lo: 0,
            hi: u64::MAX,
        },
        doc: "The engine's own seed (default: the game's): every game then replays one stream.",
        set: |c, v| {
            c.seed = Some(v.whole());
            Ok(())
        },
        get: |c| c.seed.map(|n| n.to_string()),
    },
];
