//! A teacher that knows Go: positions labelled by a stronger engine over KataGo's JSON
//! analysis protocol.
//!
//! [`client`] runs the teacher's process and speaks the protocol; [`history`] turns a
//! dataset's records back into the game so far; [`label`] is the resumable, shardable
//! labelling run (`akushu dataset label`) that writes a dataset of format version 3;
//! [`suite`] makes a balanced opening suite for matches (`akushu match openings`).

pub mod client;
pub mod history;
pub mod label;
pub mod suite;
