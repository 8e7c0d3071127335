//! The program's log output: stderr, filtered by `RUST_LOG` (default [`DEFAULT_FILTER`]), coloured
//! only on a terminal, without the upstream lines zshm has diagnosed as benign
//! ([`BenignUpstream`]).

use std::fmt;

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Metadata};
use tracing_subscriber::layer::{Context, Filter};

/// The log filter when `RUST_LOG` is unset. zenoh_config warns about two keys that rmw_zenoh's
/// templates still carry (`routing/router/peers_failover_brokering`, `routing/peer/mode`); our
/// configs keep them so they stay drop-in for rmw_zenoh, so that warning is silenced by default.
/// The Foxglove SDK's warnings and errors are shown: it refuses a client's request with them
/// (a subscription to a channel it does not know, a failed handshake).
pub const DEFAULT_FILTER: &str = "zshm=info,zshm_cli=info,zenoh=warn,zenoh_config=error,foxglove=warn";

/// Installs the program's subscriber.
pub fn init() {
    use std::io::IsTerminal;
    use tracing_subscriber::Layer;
    use tracing_subscriber::filter::FilterExt;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_FILTER));
    let output = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_filter(filter.and(BenignUpstream));
    tracing_subscriber::registry().with(output).init();
}

/// Upstream ERROR lines that report no fault, each diagnosed; everything else passes.
///
/// `Unknown remote interest` (zenoh 1.9's routing, `hat/peer/interests.rs`): a zenoh 1.8 session,
/// as in every released rmw_zenoh_cpp, ends each `liveliness().get()` (an interest in mode
/// Current) and, when it closes, every interest it ever declared with an Interest(Final). zenoh
/// 1.9's router never registers Current interests (they are answered at once and done), so each
/// such Final finds nothing and is logged as an ERROR: one per rmw_zenoh node that exits, while
/// rmw_zenohd (zenoh 1.8) ignores them. Nothing is lost; the line is dropped.
///
/// `Unable to publish link event: session closed` (zenoh 1.9's admin space, `api/admin.rs`): when
/// a session closes, its links close after it, and the admin space tries to publish each link's
/// deletion to the session itself (`Locality::SessionLocal`), which is closed by then. Such lines
/// ended 15 of the first 1,111 `zshm service call` and `zshm param get` runs of the churn soak;
/// nothing outside the closing process would have received the publication. Only this exact text is dropped.
#[derive(Debug, Clone, Copy)]
pub struct BenignUpstream;

/// `(target, message)` of each benign line.
const BENIGN: &[(&str, &str)] = &[
    (
        "zenoh::net::routing::hat::peer::interests",
        "Unknown remote interest",
    ),
    (
        "zenoh::api::admin",
        "Unable to publish link event: session closed",
    ),
];

impl BenignUpstream {
    /// Whether an event of `metadata` whose message is `message` is one of [`BENIGN`].
    fn is_benign(metadata: &Metadata<'_>, message: &str) -> bool {
        *metadata.level() == Level::ERROR
            && BENIGN
                .iter()
                .any(|(target, text)| metadata.target() == *target && message == *text)
    }
}

impl<S> Filter<S> for BenignUpstream {
    fn enabled(&self, _: &Metadata<'_>, _: &Context<'_, S>) -> bool {
        true
    }

    fn event_enabled(&self, event: &Event<'_>, _: &Context<'_, S>) -> bool {
        let metadata = event.metadata();
        if *metadata.level() != Level::ERROR || !BENIGN.iter().any(|(target, _)| metadata.target() == *target)
        {
            return true;
        }
        let mut message = Message(String::new());
        event.record(&mut message);
        !Self::is_benign(metadata, &message.0)
    }
}

/// The `message` field of an event.
struct Message(String);

impl Visit for Message {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use tracing_subscriber::Layer;
    use tracing_subscriber::layer::SubscriberExt;

    use super::*;

    /// Collects the messages of the events that pass the filter.
    fn passed(emit: impl FnOnce()) -> Vec<String> {
        #[derive(Clone, Default)]
        struct Sink(Arc<Mutex<Vec<u8>>>);
        impl std::io::Write for Sink {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.lock().expect("sink").extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let sink = Sink::default();
        let writer = sink.clone();
        let layer = tracing_subscriber::fmt::layer()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .with_filter(BenignUpstream);
        let subscriber = tracing_subscriber::registry().with(layer);
        tracing::subscriber::with_default(subscriber, emit);
        let text = String::from_utf8(sink.0.lock().expect("sink").clone()).expect("utf-8");
        text.lines().map(str::to_owned).collect()
    }

    #[test]
    fn the_unknown_remote_interest_of_a_closing_zenoh_1_8_session_is_dropped() {
        let lines = passed(|| {
            tracing::error!(target: "zenoh::net::routing::hat::peer::interests", id = 3, "Unknown remote interest");
        });
        assert!(lines.is_empty(), "{lines:?}");
    }

    #[test]
    fn the_link_event_a_closed_session_cannot_publish_to_itself_is_dropped() {
        let lines = passed(|| {
            tracing::error!(target: "zenoh::api::admin", "Unable to publish link event: {}", "session closed");
            tracing::error!(target: "zenoh::api::admin", "Unable to publish link event: {}", "no route");
        });
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].contains("no route"), "{lines:?}");
    }

    #[test]
    fn other_errors_of_the_same_target_and_the_same_words_elsewhere_pass() {
        let lines = passed(|| {
            tracing::error!(target: "zenoh::net::routing::hat::peer::interests", "Interest ids cannot be re-used");
            tracing::error!(target: "zenoh::net::routing::hat::router::interests", id = 3, "Unknown remote interest");
            tracing::warn!(target: "zenoh::net::routing::hat::peer::interests", id = 3, "Unknown remote interest");
        });
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(lines[0].contains("Interest ids cannot be re-used"));
    }
}
