//! Printing results to stdout when stdout may be closed early (`akushu ... | head -1`), and
//! notes to stderr when it may be closed too (`akushu ... 2>&1 | head -1`).
//!
//! Rust ignores SIGPIPE, so a write to a closed pipe returns `BrokenPipe` and `println!`
//! panics on it. A command's files matter more than its report, so [`outln!`](crate::outln)
//! and [`out!`](crate::out) drop the text once the reader has gone, and the command goes on
//! to write its outputs and ends quietly.

use std::fmt;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes `args` to stdout; after the reader has closed it, writes nothing.
pub fn write(args: fmt::Arguments<'_>) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|_| out.flush()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            write_err(format_args!(
                "warning: writing to stdout failed: {e}; further output dropped\n"
            ));
        }
        CLOSED.store(true, Ordering::Relaxed);
    }
}

/// Whether stdout was found closed (nothing more is printed).
pub fn closed() -> bool {
    CLOSED.load(Ordering::Relaxed)
}

/// `println!` that survives a closed stdout (see the module doc).
#[macro_export]
macro_rules! outln {
    () => { $crate::util::stdout::write(format_args!("\n")) };
    ($($arg:tt)*) => {
        $crate::util::stdout::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` that survives a closed stdout (see the module doc).
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::util::stdout::write(format_args!($($arg)*)) };
}

/// Writes `args` to stderr, ignoring failure: a note nobody can read is not worth a panic
/// (`eprintln!` panics when stderr is a closed pipe).
pub fn write_err(args: fmt::Arguments<'_>) {
    let _ = std::io::stderr().lock().write_fmt(args);
}

/// `eprintln!` that survives a closed stderr (see [`write_err`]).
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::util::stdout::write_err(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// Sets `flag` once stdout's reader is gone, watched on a thread of its own: a pipe whose
/// reading end closed (`POLLERR`), a terminal or socket hung up (`POLLHUP`), a closed
/// descriptor (`POLLNVAL`). A program that writes only when it has an answer (a GTP engine
/// deep in a search) would otherwise learn it at its next write, long after. Polled for no
/// event, so a file or a terminal that can take output reports nothing; checked every
/// [`WATCH_MS`] milliseconds. No effect outside Unix.
pub fn watch_reader_gone(flag: std::sync::Arc<AtomicBool>) {
    #[cfg(unix)]
    std::thread::spawn(move || {
        loop {
            let mut fd = libc::pollfd {
                fd: libc::STDOUT_FILENO,
                events: 0,
                revents: 0,
            };
            // SAFETY: poll reads and writes only the one pollfd it is given.
            let ready = unsafe { libc::poll(&mut fd, 1, WATCH_MS) };
            if ready > 0 && fd.revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0 {
                flag.store(true, Ordering::Relaxed);
                return;
            }
            if ready < 0 {
                // Interrupted by a signal: wait the interval out and look again.
                std::thread::sleep(std::time::Duration::from_millis(WATCH_MS as u64));
            }
        }
    });
    #[cfg(not(unix))]
    let _ = flag;
}

/// Milliseconds between two looks of [`watch_reader_gone`].
const WATCH_MS: i32 = 200;
