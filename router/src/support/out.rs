//! Lines on stdout for the commands. `println!` panics when stdout's reader has gone away
//! (`zshm cam-latency | head -3`, or `demo` no longer reading a child it is stopping); here that
//! is a request to stop, like SIGTERM, so the command ends through its usual clean path (session
//! closed, children stopped, segments removed) and exits 0.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once stdout could not be written: later lines are dropped without trying.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Prints a line on stdout like `println!`; see the module documentation for a closed stdout.
macro_rules! outln {
    () => {
        $crate::support::out::line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::support::out::line(format_args!($($arg)*))
    };
}

pub(crate) use outln;

/// Writes `args` and a newline on stdout (line-buffered, so the line leaves at once).
pub fn line(args: std::fmt::Arguments<'_>) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    let written = stdout
        .write_fmt(args)
        .and_then(|()| stdout.write_all(b"\n"))
        .and_then(|()| stdout.flush());
    if let Err(err) = written
        && !CLOSED.swap(true, Ordering::Relaxed)
    {
        if err.kind() != std::io::ErrorKind::BrokenPipe {
            tracing::warn!("cannot write to stdout ({err}): stopping");
        }
        // The kernel's name for a write to a pipe nobody reads (Rust ignores the signal itself
        // and returns EPIPE).
        super::shutdown::request("SIGPIPE");
    }
}
