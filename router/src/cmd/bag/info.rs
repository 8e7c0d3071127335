//! `zshm bag info DIR`: what a bag holds, laid out as `ros2 bag info` (Jazzy) prints it, from
//! its `metadata.yaml`. A file that was never finalised (its recorder was killed) is read
//! through to count what it still holds, and the output says so. Times are UTC.

use std::path::PathBuf;
use std::process::ExitCode;

use super::metadata::BagMetadata;
use super::storage::FileReader;
use super::{bad_input, human_bytes};
use crate::support::out::outln;

/// `zshm bag info`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The bag directory.
    #[arg(value_name = "DIR")]
    pub bag: PathBuf,
}

/// Prints the bag's summary.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let metadata = BagMetadata::read(&args.bag).map_err(|e| bad_input(format!("{e:#}")))?;
    let mut size = 0;
    let mut notes = Vec::new();
    for name in &metadata.relative_file_paths {
        let path = args.bag.join(name);
        size += std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        if !name.ends_with(".mcap") {
            continue;
        }
        if !is_finalised(&path) {
            let mut reader = FileReader::open(&path)?;
            let mut count = 0u64;
            while reader.next_message()?.is_some() {
                count += 1;
            }
            notes.push(format!(
                "{name} was not finalised (recorder killed?): {count} messages readable up to its last complete chunk"
            ));
        }
    }
    let label = |text: &str| format!("{:<19}", format!("{text}:"));
    outln!();
    outln!(
        "{}{}",
        label("Files"),
        metadata.relative_file_paths.join("\n                   ")
    );
    outln!("{}{}", label("Bag size"), human_bytes(size));
    outln!("{}{}", label("Storage id"), metadata.storage_identifier);
    outln!("{}{}", label("ROS Distro"), metadata.ros_distro);
    let start = metadata.starting_time.nanoseconds_since_epoch;
    let duration = metadata.duration.nanoseconds;
    outln!(
        "{}{}.{:09}s",
        label("Duration"),
        duration / 1_000_000_000,
        duration % 1_000_000_000
    );
    outln!("{}{}", label("Start"), stamp(start));
    outln!("{}{}", label("End"), stamp(start + duration));
    outln!("{}{}", label("Messages"), metadata.message_count);
    let width = metadata
        .topics_with_message_count
        .iter()
        .map(|t| t.topic_metadata.name.len())
        .max()
        .unwrap_or(0);
    let type_width = metadata
        .topics_with_message_count
        .iter()
        .map(|t| t.topic_metadata.type_name.len())
        .max()
        .unwrap_or(0);
    for (i, topic) in metadata.topics_with_message_count.iter().enumerate() {
        let head = if i == 0 {
            label("Topic information")
        } else {
            " ".repeat(19)
        };
        outln!(
            "{head}Topic: {:<width$} | Type: {:<type_width$} | Count: {} | Serialization Format: {}",
            topic.topic_metadata.name,
            topic.topic_metadata.type_name,
            topic.message_count,
            topic.topic_metadata.serialization_format
        );
    }
    if metadata.topics_with_message_count.is_empty() {
        outln!("{}", label("Topic information"));
    }
    outln!("{}0", label("Services"));
    outln!("Service information: ");
    if !metadata.compression_mode.is_empty() {
        outln!(
            "{}{} ({})",
            label("Compression"),
            metadata.compression_mode,
            metadata.compression_format
        );
    }
    for note in notes {
        outln!("Note: {note}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether an MCAP file ends with its footer's magic (it was closed properly).
pub fn is_finalised(path: &std::path::Path) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    let mut tail = [0u8; 8];
    file.seek(SeekFrom::End(-8)).is_ok() && file.read_exact(&mut tail).is_ok() && tail == *mcap::MAGIC
}

/// `Dec  1 2026 10:15:10.123456789 (1764584110.123456789)`, UTC.
fn stamp(nanos: u64) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (secs, frac) = (nanos / 1_000_000_000, nanos % 1_000_000_000);
    let (y, mo, d, h, mi, s) = civil(secs);
    format!(
        "{} {d:>2} {y} {h:02}:{mi:02}:{s:02}.{frac:09} ({secs}.{frac:09})",
        MONTHS[(mo - 1) as usize]
    )
}

/// Seconds since the UNIX epoch → (year, month, day, hour, minute, second), UTC.
pub fn civil(secs: u64) -> (i64, u32, u32, u32, u32, u32) {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        y,
        m,
        d,
        (rem / 3600) as u32,
        (rem % 3600 / 60) as u32,
        (rem % 60) as u32,
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn civil_dates() {
        assert_eq!(super::civil(0), (1970, 1, 1, 0, 0, 0));
        assert_eq!(super::civil(1_764_584_110), (2025, 12, 1, 10, 15, 10));
        assert_eq!(
            super::stamp(1_000_000_001),
            "Jan  1 1970 00:00:01.000000001 (1.000000001)"
        );
    }
}
