// zshm patch (PATCHES.md, 4): upstream drops a received message whose shared-memory buffer it
// cannot read with a `debug!` line in the transport (`Error receiving SHM buffer`), so a
// subscriber loses it with no count and, at the default log level, no word. The reader counts
// each one here, by cause, and logs the first of each cause as a warning; zshm reads the counts
// into its statistics (`zshm_shm_unreadable_total`).

use std::sync::atomic::{AtomicU64, Ordering};

/// Why a received buffer could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// The publisher's metadata segment could not be mapped (gone, or no room to map it).
    Metadata,
    /// The publisher's data segment could not be mapped.
    Segment,
    /// The buffer was already invalidated (its publisher reclaimed it: it took the reader's
    /// watchdog as expired) when it arrived.
    Invalidated,
}

impl Cause {
    /// Every cause, in the order of [`counts`].
    pub const ALL: [Cause; 3] = [Cause::Metadata, Cause::Segment, Cause::Invalidated];

    /// A short name (a Prometheus label).
    pub fn label(self) -> &'static str {
        match self {
            Cause::Metadata => "metadata",
            Cause::Segment => "segment",
            Cause::Invalidated => "invalidated",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

static COUNTS: [AtomicU64; 3] = [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)];

/// Buffers this process received and could not read since it started, by cause
/// ([`Cause::ALL`]'s order). Each one's message was dropped.
pub fn counts() -> [u64; 3] {
    [0, 1, 2].map(|i| COUNTS[i].load(Ordering::Relaxed))
}

/// Counts one unreadable buffer; the first of its cause is logged.
pub(crate) fn note(cause: Cause, error: &dyn std::fmt::Display) {
    if COUNTS[cause.index()].fetch_add(1, Ordering::Relaxed) == 0 {
        tracing::warn!(
            "a received shared-memory buffer could not be read ({}: {error}); its message was \
             dropped (counted; later ones of this cause are not logged)",
            cause.label()
        );
    }
}
