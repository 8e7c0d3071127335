//! Which zenoh releases can share memory with which, and so which rmw_zenoh releases share memory
//! with this zshm.
//!
//! zenoh negotiates shared memory per link when the link opens, in an extension of the
//! transport's Init/Open handshake. zenoh 1.10 changed that extension (the reliable SHM handoff,
//! eclipse-zenoh/zenoh#2646): a 1.10 session and an older one each ignore the other's, and their
//! link silently carries copies over the network. Both sides keep working; only the shared
//! memory is gone. zenoh before 1.10 (1.0 to 1.9) speaks one extension
//! (`zenoh-transport/src/unicast/establishment/ext/shm.rs` is the same file in 1.8.0 and 1.9.0).
//!
//! rmw_zenoh_cpp of every released distribution (Humble 0.1, Jazzy 0.2, Kilted 0.6, Lyrical 0.10)
//! is built on zenoh-c over zenoh 1.8.0 plus fixes (commit 2687c513); Rolling's 0.14 moved to
//! zenoh 1.10.1 (ros2/rmw_zenoh#1068). A zenoh session reports its version in its admin space
//! (`@/<zid>/<whatami>`, field `version`, e.g. `v1.8.0-2687c513 built with rustc …`).

use std::fmt;

/// The shared-memory handshake a zenoh release speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShmHandshake {
    /// zenoh 1.0 to 1.9: what the released distributions' rmw_zenoh speak.
    BeforeHandoff,
    /// zenoh 1.10 and later (#2646): what Rolling's rmw_zenoh 0.14 speaks.
    Handoff,
}

impl ShmHandshake {
    /// The zenoh releases that speak it.
    pub fn releases(self) -> &'static str {
        match self {
            ShmHandshake::BeforeHandoff => "zenoh 1.0 to 1.9",
            ShmHandshake::Handoff => "zenoh 1.10 and later",
        }
    }

    /// The rmw_zenoh_cpp releases that speak it.
    pub fn rmw_zenoh(self) -> &'static str {
        match self {
            ShmHandshake::BeforeHandoff => {
                "the rmw_zenoh_cpp of Humble, Jazzy, Kilted and Lyrical (zenoh 1.8)"
            }
            ShmHandshake::Handoff => "the rmw_zenoh_cpp of Rolling from 0.14 (zenoh 1.10)",
        }
    }
}

/// A zenoh release's version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ZenohVersion {
    /// Major.
    pub major: u32,
    /// Minor.
    pub minor: u32,
    /// Patch.
    pub patch: u32,
}

impl ZenohVersion {
    /// The zenoh this zshm is built on.
    pub fn ours() -> ZenohVersion {
        // zenoh's GIT_VERSION is `v<version>` for a crates.io build.
        ZenohVersion::parse(zenoh::GIT_VERSION).expect("zenoh's own version parses")
    }

    /// Reads a version as zenoh reports it: `1.9.0`, `v1.10.1`, or the admin space's
    /// `v1.8.0-2687c513… built with rustc …`. `None` for anything else.
    ///
    /// ```
    /// use zshm::internal::shm::compat::ZenohVersion;
    /// let v = ZenohVersion::parse("v1.8.0-2687c513 built with rustc 1.93.0").unwrap();
    /// assert_eq!((v.major, v.minor, v.patch), (1, 8, 0));
    /// assert_eq!(ZenohVersion::parse("not a version"), None);
    /// ```
    pub fn parse(text: &str) -> Option<ZenohVersion> {
        let text = text.trim();
        let text = text.strip_prefix('v').unwrap_or(text);
        let core = text.split([' ', '-', '+']).next()?;
        let mut parts = core.split('.');
        let mut number = || parts.next()?.parse::<u32>().ok();
        let version = ZenohVersion {
            major: number()?,
            minor: number()?,
            patch: number()?,
        };
        parts.next().is_none().then_some(version)
    }

    /// The shared-memory handshake this release speaks.
    pub fn handshake(self) -> ShmHandshake {
        if (self.major, self.minor) >= (1, 10) {
            ShmHandshake::Handoff
        } else {
            ShmHandshake::BeforeHandoff
        }
    }

    /// Whether a session of this release and one of `other` can share memory.
    pub fn shares_memory_with(self, other: ZenohVersion) -> bool {
        self.handshake() == other.handshake()
    }
}

impl fmt::Display for ZenohVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// Why a peer of another zenoh cannot share memory with this zshm, and what to run instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionMismatch {
    /// This process's zenoh.
    pub ours: ZenohVersion,
    /// The peer's.
    pub theirs: ZenohVersion,
}

impl fmt::Display for VersionMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "it runs zenoh {}, which cannot share memory with this process's zenoh {} (zenoh 1.10 changed \
             the shared-memory handshake, eclipse-zenoh/zenoh#2646)",
            self.theirs, self.ours
        )
    }
}

impl VersionMismatch {
    /// What to do about it: run processes of one handshake on each side.
    pub fn remedy(&self) -> String {
        let (ours, theirs) = (self.ours.handshake(), self.theirs.handshake());
        let zshm = match theirs {
            ShmHandshake::BeforeHandoff => "zshm's default build (zenoh 1.9)",
            ShmHandshake::Handoff => {
                "zshm built on zenoh 1.10 (`tools/zenoh-line.sh 1.10`, then `cargo build --release`)"
            }
        };
        format!(
            "use {zshm} with that process ({}), or run {} beside this one ({})",
            theirs.rmw_zenoh(),
            ours.rmw_zenoh(),
            ours.releases()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_as_zenoh_reports_them_parse() {
        let cases = [
            ("1.9.0", (1, 9, 0)),
            ("v1.10.1", (1, 10, 1)),
            (
                "v1.8.0-2687c51352121f006e3a603ce07925a8ad0b295c built with rustc 1.93.0 (254b59607 2026-01-19)",
                (1, 8, 0),
            ),
            ("v1.10.2 built with rustc 1.95.0", (1, 10, 2)),
            ("1.9.0+dev", (1, 9, 0)),
        ];
        for (text, (major, minor, patch)) in cases {
            assert_eq!(
                ZenohVersion::parse(text),
                Some(ZenohVersion { major, minor, patch }),
                "{text}"
            );
        }
    }

    #[test]
    fn what_is_not_a_version_is_none() {
        for text in ["", "v", "1.9", "1.9.x", "1.9.0.1", "unknown", "v1..0"] {
            assert_eq!(ZenohVersion::parse(text), None, "{text}");
        }
    }

    #[test]
    fn the_handoff_separates_1_10_from_earlier_releases() {
        let v = |text| ZenohVersion::parse(text).unwrap();
        assert!(v("1.8.0").shares_memory_with(v("1.9.0")));
        assert!(v("1.10.1").shares_memory_with(v("1.10.2")));
        assert!(v("1.11.0").shares_memory_with(v("1.10.0")));
        assert!(!v("1.9.0").shares_memory_with(v("1.10.0")));
        assert!(!v("1.10.2").shares_memory_with(v("1.8.0")));
    }

    #[test]
    fn the_mismatch_names_both_versions_and_the_matching_rmw_zenoh() {
        let v = |text| ZenohVersion::parse(text).unwrap();
        let rolling = VersionMismatch {
            ours: v("1.9.0"),
            theirs: v("1.10.1"),
        };
        let text = format!("{rolling}; fix: {}", rolling.remedy());
        assert!(
            text.contains("zenoh 1.10.1") && text.contains("zenoh 1.9.0"),
            "{text}"
        );
        assert!(
            text.contains("Rolling") && text.contains("zenoh-line.sh 1.10"),
            "{text}"
        );
        let jazzy = VersionMismatch {
            ours: v("1.10.2"),
            theirs: v("1.8.0"),
        };
        assert!(jazzy.remedy().contains("Jazzy"), "{}", jazzy.remedy());
    }

    #[test]
    fn this_build_knows_its_zenoh() {
        assert!(ZenohVersion::ours().major >= 1);
    }
}
