//! Turns zenoh's error text into a sentence for people.
//!
//! zenoh's `ZError` prints the Rust source location of the error (`... at /root/.cargo/.../
//! config.rs:86.`) and wraps inner errors in their Debug form (`Str("unknown key")`,
//! `Json5Err(Message { msg: "...", location: ... })`). A user fixing a config needs none of that.

/// The readable part of a zenoh error message.
///
/// ```
/// let raw = r#"Str("unknown key") at /root/.cargo/registry/src/x/zenoh-1.10.2/src/api/config.rs:86."#;
/// assert_eq!(zshm::zenoh_text::tidy(raw), "unknown key");
/// ```
pub fn tidy(raw: &str) -> String {
    let mut text = raw.trim().to_owned();
    if let Some(msg) = quoted_after(&text, "msg: \"") {
        text = msg;
    } else if let Some(inner) = quoted_after(&text, "Str(\"") {
        text = inner;
    }
    let text = strip_source_locations(&text).replace(" - Caused by ", ": ");
    text.trim().trim_end_matches('.').trim().to_owned()
}

/// The content of the Debug-quoted string that starts right after `marker`.
fn quoted_after(text: &str, marker: &str) -> Option<String> {
    let start = text.find(marker)? + marker.len();
    let mut out = String::new();
    let mut chars = text[start..].chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            '"' => return Some(out),
            c => out.push(c),
        }
    }
    None
}

/// Removes every ` at <path>.rs:<line>.` zenoh appends.
fn strip_source_locations(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(" at ") {
        let after = &rest[at + 4..];
        let location_end = after.find(".rs:").and_then(|rs| {
            let digits = after[rs + 4..].chars().take_while(char::is_ascii_digit).count();
            (digits > 0 && !after[..rs].contains(' ')).then_some(rs + 4 + digits)
        });
        match location_end {
            Some(end) => {
                out.push_str(&rest[..at]);
                rest = after[end..].strip_prefix('.').unwrap_or(&after[end..]);
            }
            None => {
                out.push_str(&rest[..at + 4]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::tidy;

    #[test]
    fn endpoint_errors_keep_only_the_message() {
        let raw = r#"Json5Err(Message { msg: "Endpoints must be of the form <protocol>/<address>[?<metadata>][#<config>]: bogus at /root/.cargo/registry/src/i/zenoh-protocol-1.10.2/src/core/endpoint.rs:615.", location: Some(Location { line: 1, column: 1 }) }) at /root/.cargo/registry/src/i/zenoh-1.10.2/src/api/config.rs:86."#;
        assert_eq!(
            tidy(raw),
            "Endpoints must be of the form <protocol>/<address>[?<metadata>][#<config>]: bogus"
        );
    }

    #[test]
    fn causes_are_chained_and_locations_dropped() {
        let raw =
            "Unable to create POSIX shm segment at /x/unix.rs:12. - Caused by OS error 30 at /y/z.rs:3.";
        assert_eq!(tidy(raw), "Unable to create POSIX shm segment: OS error 30");
    }

    #[test]
    fn plain_text_is_untouched() {
        assert_eq!(
            tidy("listen at tcp/127.0.0.1:7447 failed"),
            "listen at tcp/127.0.0.1:7447 failed"
        );
    }
}
