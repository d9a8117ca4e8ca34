//! `akushu analysis --engine SPEC`: KataGo's JSON analysis protocol on stdin/stdout (see
//! `gtp::json_analysis`), for GUIs such as KaTrain. Logs go to stderr.

use std::io::{Write, stdin, stdout};

use clap::Args;

use crate::gtp::json_analysis::{AnalysisServer, ServerIo};

#[derive(Debug, Clone, Args)]
pub struct AnalysisArgs {
    /// Engine spec (a uct or strong kind: they keep the scores and owners analysis reports;
    /// the default, the strongest, takes them from its value network).
    #[arg(long, default_value = crate::search::spec::DEFAULT_ENGINE)]
    pub engine: String,
    /// Seed of the engine's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Longest query line read, in bytes (as `gtp` reads commands): a client that never sends a
/// newline cannot fill the memory.
const MAX_LINE: u64 = 1 << 20;

/// What stands for a line over [`MAX_LINE`]: not JSON, so it gets KataGo's parse error.
const TOO_LONG: &str = "query line longer than 1 MiB (dropped)";

/// The server's pipe: responses to stdout (flushed line by line, a GUI waits on them) and
/// input lines from the reader thread.
struct Pipe {
    out: std::io::StdoutLock<'static>,
    input: std::sync::mpsc::Receiver<String>,
    /// Set when the reader reached the end of input.
    closed: bool,
}

impl Pipe {
    /// Every line that has arrived, without waiting.
    fn drain(&mut self) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            match self.input.try_recv() {
                Ok(l) => lines.push(l),
                Err(std::sync::mpsc::TryRecvError::Empty) => return lines,
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    self.closed = true;
                    return lines;
                }
            }
        }
    }
}

impl ServerIo for Pipe {
    fn emit(&mut self, line: String) {
        // A client that has gone away ends the server: nobody reads the answers.
        if writeln!(self.out, "{line}")
            .and_then(|_| self.out.flush())
            .is_err()
        {
            std::process::exit(0);
        }
    }
    fn emit_all(&mut self, lines: Vec<String>) {
        if lines.is_empty() {
            return;
        }
        // One write for them all: stdout's line buffer would make one call of each line.
        let mut text = lines.join("\n");
        text.push('\n');
        if self
            .out
            .write_all(text.as_bytes())
            .and_then(|_| self.out.flush())
            .is_err()
        {
            std::process::exit(0);
        }
    }
    fn poll(&mut self) -> Vec<String> {
        self.drain()
    }
}

pub fn run(args: AnalysisArgs) -> anyhow::Result<()> {
    crate::errln!(
        "# akushu analysis --engine {} --seed {}: KataGo's JSON analysis protocol, 9x9, area rules",
        args.engine,
        args.seed
    );
    let mut server = AnalysisServer::new(&args.engine, args.seed)?;
    crate::util::exit_with_parent();
    crate::errln!("Started, ready to begin handling requests");
    // Input is read on its own thread so that a terminate or a query of higher priority is
    // seen while a search runs.
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        use crate::util::lines::{CappedLine, read_capped_line};
        let mut input = stdin().lock();
        loop {
            let line = match read_capped_line(&mut input, MAX_LINE) {
                Ok(Some(CappedLine::Line(l))) => l,
                // An unreadable line (invalid UTF-8) is answered as KataGo answers bad JSON.
                Ok(Some(CappedLine::NotUtf8)) => String::from("\u{fffd}"),
                Ok(Some(CappedLine::TooLong)) => TOO_LONG.to_string(),
                Ok(None) => return,
                Err(e) => {
                    // Input that cannot be read (a directory, a broken pipe) ends it, as
                    // the end of input does; it is never read again and again.
                    crate::errln!("akushu analysis: reading stdin: {e}: no more input");
                    return;
                }
            };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let mut pipe = Pipe {
        out: stdout().lock(),
        input: rx,
        closed: false,
    };
    loop {
        for line in pipe.drain() {
            let replies = server.submit(&line);
            pipe.emit_all(replies);
        }
        if server.run_next(&mut pipe) {
            continue;
        }
        if pipe.closed {
            // As KataGo does at the end of input: every queued query was finished first.
            return Ok(());
        }
        // Nothing to search: wait for the next line.
        match pipe.input.recv() {
            Ok(line) => {
                let replies = server.submit(&line);
                pipe.emit_all(replies);
            }
            Err(_) => pipe.closed = true,
        }
    }
}
