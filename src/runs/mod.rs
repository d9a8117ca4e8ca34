//! Run folders, below every engine: the one resumable, shardable folder of games
//! ([`folder`]) that matches, self-play and labelling runs keep their rows in. It knows no
//! engine (each kind of run tells it what to record through
//! [`EngineRecords`](folder::EngineRecords)), so any room can keep a run without reaching
//! up into the arena.

pub mod folder;
