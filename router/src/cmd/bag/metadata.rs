//! A bag's `metadata.yaml` as rosbag2 (Jazzy, format version 9) writes and reads it, and the
//! `offered_qos_profiles` YAML that it and each MCAP channel carry.
//!
//! Not the MCAP files themselves: see `record` and `play`.

use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};
use zshm::ros::qos::{Durability, History, Liveliness, QosDuration, QosProfile, Reliability};

/// The format version Jazzy's rosbag2 writes.
pub const VERSION: u32 = 9;

/// The file's top-level key.
#[derive(Debug, Serialize, Deserialize)]
pub struct MetadataFile {
    /// Everything.
    pub rosbag2_bagfile_information: BagMetadata,
}

/// `rosbag2_bagfile_information`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BagMetadata {
    /// Format version.
    pub version: u32,
    /// `mcap`.
    pub storage_identifier: String,
    /// The storage files, relative to the bag directory.
    pub relative_file_paths: Vec<String>,
    /// From the first message's log time to the last one's.
    pub duration: Nanoseconds,
    /// The first message's log time.
    pub starting_time: NanosecondsSinceEpoch,
    /// Messages in all files.
    pub message_count: u64,
    /// One entry per topic.
    pub topics_with_message_count: Vec<TopicWithCount>,
    /// `zstd` or empty.
    #[serde(default)]
    pub compression_format: String,
    /// `message`, `file` or empty.
    #[serde(default)]
    pub compression_mode: String,
    /// One entry per storage file.
    #[serde(default)]
    pub files: Vec<FileInformation>,
    /// Free-form key/values (rosbag2 writes `~` when there are none).
    #[serde(default)]
    pub custom_data: Option<std::collections::BTreeMap<String, String>>,
    /// `jazzy`.
    #[serde(default)]
    pub ros_distro: String,
}

/// `{nanoseconds: N}`.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct Nanoseconds {
    /// ns.
    pub nanoseconds: u64,
}

/// `{nanoseconds_since_epoch: N}`.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct NanosecondsSinceEpoch {
    /// ns since the UNIX epoch.
    pub nanoseconds_since_epoch: u64,
}

/// One topic and its count.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TopicWithCount {
    /// What the topic is.
    pub topic_metadata: TopicMetadata,
    /// Messages recorded.
    pub message_count: u64,
}

/// One topic.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TopicMetadata {
    /// Fully qualified name.
    pub name: String,
    /// `pkg/msg/Type`.
    #[serde(rename = "type")]
    pub type_name: String,
    /// `cdr`.
    pub serialization_format: String,
    /// The publishers' QoS: a YAML list in format 9 (a string holding that YAML before), see
    /// [`qos_yaml`] and [`TopicMetadata::qos_text`].
    #[serde(default)]
    pub offered_qos_profiles: serde_yaml::Value,
    /// `RIHS01_…`.
    #[serde(default)]
    pub type_description_hash: String,
}

/// One storage file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileInformation {
    /// Relative path.
    pub path: String,
    /// Its first message's log time.
    pub starting_time: NanosecondsSinceEpoch,
    /// Its span.
    pub duration: Nanoseconds,
    /// Its messages.
    pub message_count: u64,
}

impl TopicMetadata {
    /// `offered_qos_profiles` as YAML text, whichever form the file has.
    pub fn qos_text(&self) -> String {
        match &self.offered_qos_profiles {
            serde_yaml::Value::String(text) => text.clone(),
            serde_yaml::Value::Null => String::new(),
            other => serde_yaml::to_string(other).unwrap_or_default(),
        }
    }
}

/// `offered_qos_profiles` YAML text as the list format 9 stores in `metadata.yaml`.
pub fn qos_value(text: &str) -> serde_yaml::Value {
    serde_yaml::from_str(text).unwrap_or_else(|_| serde_yaml::Value::String(text.to_owned()))
}

impl BagMetadata {
    /// Reads `<dir>/metadata.yaml`.
    pub fn read(dir: &Path) -> anyhow::Result<Self> {
        let path = dir.join("metadata.yaml");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {} (is {} a bag?)", path.display(), dir.display()))?;
        let file: MetadataFile = serde_yaml::from_str(&text)
            .with_context(|| format!("{} is not rosbag2 metadata", path.display()))?;
        let metadata = file.rosbag2_bagfile_information;
        if metadata.storage_identifier != "mcap" {
            anyhow::bail!(
                "{}: storage `{}` is not supported (only mcap)",
                path.display(),
                metadata.storage_identifier
            );
        }
        Ok(metadata)
    }

    /// Writes `<dir>/metadata.yaml` atomically (a temporary file renamed over it), so a reader
    /// or a crash never sees half a file.
    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        let text = serde_yaml::to_string(&MetadataFile {
            rosbag2_bagfile_information: self.clone(),
        })?;
        let tmp = dir.join("metadata.yaml.tmp");
        std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
        std::fs::rename(&tmp, dir.join("metadata.yaml"))
            .with_context(|| format!("cannot write the metadata of {}", dir.display()))?;
        Ok(())
    }
}

/// Why `offered_qos_profiles` does not parse.
#[derive(Debug)]
pub struct QosYamlError(String);

impl std::fmt::Display for QosYamlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bad offered_qos_profiles: {}", self.0)
    }
}

impl std::error::Error for QosYamlError {}

#[derive(Debug, Serialize, Deserialize)]
struct QosEntry {
    history: serde_yaml::Value,
    #[serde(default)]
    depth: u32,
    reliability: serde_yaml::Value,
    durability: serde_yaml::Value,
    deadline: Time,
    lifespan: Time,
    liveliness: serde_yaml::Value,
    liveliness_lease_duration: Time,
    #[serde(default)]
    avoid_ros_namespace_conventions: bool,
}

#[derive(Debug, Serialize, Deserialize)]
struct Time {
    sec: u64,
    nsec: u64,
}

impl From<QosDuration> for Time {
    fn from(d: QosDuration) -> Self {
        Self {
            sec: d.sec,
            nsec: d.nsec,
        }
    }
}

impl From<Time> for QosDuration {
    fn from(t: Time) -> Self {
        Self {
            sec: t.sec,
            nsec: t.nsec,
        }
    }
}

/// The publishers' QoS as rosbag2 (format 9, names not numbers) writes `offered_qos_profiles`.
pub fn qos_yaml(profiles: &[QosProfile]) -> String {
    let name = |s: &str| serde_yaml::Value::String(s.into());
    let entries: Vec<QosEntry> = profiles
        .iter()
        .map(|qos| {
            let (history, depth) = match qos.history {
                History::KeepLast(n) => ("keep_last", n),
                History::KeepAll => ("keep_all", 0),
                History::Unknown => ("unknown", 0),
            };
            QosEntry {
                history: name(history),
                depth,
                reliability: name(match qos.reliability {
                    Reliability::Reliable => "reliable",
                    Reliability::BestEffort => "best_effort",
                }),
                durability: name(match qos.durability {
                    Durability::Volatile => "volatile",
                    Durability::TransientLocal => "transient_local",
                }),
                deadline: qos.deadline.into(),
                lifespan: qos.lifespan.into(),
                liveliness: name(match qos.liveliness {
                    Liveliness::Automatic => "automatic",
                    Liveliness::ManualByTopic => "manual_by_topic",
                }),
                liveliness_lease_duration: qos.liveliness_lease.into(),
                avoid_ros_namespace_conventions: false,
            }
        })
        .collect();
    if entries.is_empty() {
        return "[]".into();
    }
    serde_yaml::to_string(&entries)
        .unwrap_or_default()
        .trim_end()
        .to_owned()
}

/// Parses `offered_qos_profiles`, in either form rosbag2 has written: names (format ≥ 9) or the
/// rmw enum numbers (format ≤ 8).
pub fn parse_qos_yaml(text: &str) -> Result<Vec<QosProfile>, QosYamlError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let entries: Vec<QosEntry> = serde_yaml::from_str(text).map_err(|e| QosYamlError(e.to_string()))?;
    entries.into_iter().map(qos_from_entry).collect()
}

fn enum_value(value: &serde_yaml::Value) -> String {
    match value {
        serde_yaml::Value::String(s) => s.to_ascii_lowercase(),
        serde_yaml::Value::Number(n) => n.to_string(),
        other => format!("{other:?}"),
    }
}

fn qos_from_entry(entry: QosEntry) -> Result<QosProfile, QosYamlError> {
    let bad = |what: &str, value: &serde_yaml::Value| QosYamlError(format!("{what} {}", enum_value(value)));
    // rmw values: 0 system default, 1 the first named value, 2 the second, 3 unknown.
    let history = match enum_value(&entry.history).as_str() {
        "keep_all" | "2" => History::KeepAll,
        "keep_last" | "1" | "0" | "system_default" => History::KeepLast(entry.depth),
        "unknown" | "3" => History::Unknown,
        _ => return Err(bad("history", &entry.history)),
    };
    let reliability = match enum_value(&entry.reliability).as_str() {
        "best_effort" | "2" => Reliability::BestEffort,
        "reliable" | "1" | "0" | "system_default" | "unknown" | "3" | "best_available" | "4" => {
            Reliability::Reliable
        }
        _ => return Err(bad("reliability", &entry.reliability)),
    };
    let durability = match enum_value(&entry.durability).as_str() {
        "transient_local" | "1" => Durability::TransientLocal,
        "volatile" | "2" | "0" | "system_default" | "unknown" | "3" | "best_available" | "4" => {
            Durability::Volatile
        }
        _ => return Err(bad("durability", &entry.durability)),
    };
    let liveliness = match enum_value(&entry.liveliness).as_str() {
        "manual_by_topic" | "3" => Liveliness::ManualByTopic,
        _ => Liveliness::Automatic,
    };
    let infinite_if_zero = |t: Time| {
        if t.sec == 0 && t.nsec == 0 {
            QosDuration::INFINITE
        } else {
            t.into()
        }
    };
    Ok(QosProfile {
        reliability,
        durability,
        history,
        deadline: infinite_if_zero(entry.deadline),
        lifespan: infinite_if_zero(entry.lifespan),
        liveliness,
        liveliness_lease: infinite_if_zero(entry.liveliness_lease_duration),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qos_yaml_roundtrips_and_reads_the_numeric_form() {
        let profiles = [
            QosProfile::default(),
            QosProfile::sensor_data().durability(Durability::TransientLocal),
        ];
        let text = qos_yaml(&profiles);
        assert!(
            text.starts_with("- history: keep_last\n  depth: 10\n  reliability: reliable"),
            "{text}"
        );
        assert_eq!(parse_qos_yaml(&text).unwrap(), profiles);
        let numeric = "- history: 1\n  depth: 5\n  reliability: 2\n  durability: 1\n  deadline:\n    sec: 0\n    nsec: 0\n  lifespan:\n    sec: 0\n    nsec: 0\n  liveliness: 1\n  liveliness_lease_duration:\n    sec: 0\n    nsec: 0\n  avoid_ros_namespace_conventions: false";
        assert_eq!(parse_qos_yaml(numeric).unwrap(), [profiles[1]]);
        assert!(parse_qos_yaml("- history: sometimes").is_err());
    }
}
