//! Text for people: zenoh's error messages tidied into sentences, and byte counts.
//!
//! zenoh's `ZError` prints the Rust source location of the error (`... at /root/.cargo/.../
//! config.rs:86.`) and wraps inner errors in their Debug form (`Str("unknown key")`,
//! `Json5Err(Message { msg: "...", location: ... })`). A user fixing a config needs none of that.

/// The readable part of a zenoh error message.
///
/// ```
/// let raw = r#"Str("unknown key") at /root/.cargo/registry/src/x/zenoh-1.10.2/src/api/config.rs:86."#;
/// assert_eq!(zshm::internal::text::tidy(raw), "unknown key");
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

/// Formats a byte count for people: `512 B`, `64.0 KiB`, `64.1 MiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// Formats a duration for people in seconds: `2 s`, `0.5 s`, `1.25 s`.
pub fn seconds(duration: std::time::Duration) -> String {
    format!("{} s", duration.as_secs_f64())
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
    fn human_bytes_picks_the_unit() {
        assert_eq!(super::human_bytes(512), "512 B");
        assert_eq!(super::human_bytes(65536), "64.0 KiB");
        assert_eq!(super::human_bytes(67_174_400), "64.1 MiB");
    }

    #[test]
    fn seconds_read_as_people_write_them() {
        use std::time::Duration;
        assert_eq!(super::seconds(Duration::from_secs(2)), "2 s");
        assert_eq!(super::seconds(Duration::from_millis(1500)), "1.5 s");
    }

    #[test]
    fn plain_text_is_untouched() {
        assert_eq!(
            tidy("listen at tcp/127.0.0.1:7447 failed"),
            "listen at tcp/127.0.0.1:7447 failed"
        );
    }
}
