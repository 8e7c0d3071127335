//! Other zshm bridges, and which one bridges when several see the same DDS domain and the same
//! zenoh network.
//!
//! Two bridges that both see one DDS domain and one zenoh network (two hosts whose routers are
//! connected, say) would each carry every topic, so every subscriber would get each message
//! twice; and each would take the other's bridged endpoints for real ones and carry them back,
//! a loop. So every bridge announces itself on both sides: a liveliness token
//! `@zshm_bridge/<domain>/<started>/<zid>/<participant>` on zenoh, and a DDS writer on the topic
//! `zshm_bridge` (not a ROS topic: ROS tools ignore it). Another bridge seen on both sides is a
//! *twin*; of a set of twins only the oldest bridges, the others stand by and take over when its
//! token goes. A bridge seen on zenoh only (another DDS network, or another domain) is no twin:
//! both bridge, each its own DDS network, which is what two robots with a bridge each want.
//!
//! A new bridge that sees an older bridge on zenoh but not (yet) on DDS waits up to
//! [`DDS_GRACE`] for DDS discovery before it bridges, so that it does not carry a topic for the
//! few seconds DDS discovery takes and then hand it over.

use std::collections::BTreeSet;
use std::time::Duration;

/// The DDS topic every bridge writes, so that other bridges see its participant.
pub(crate) const DDS_MARKER_TOPIC: &str = "zshm_bridge";
/// The type name of [`DDS_MARKER_TOPIC`] (nothing is ever written on it).
pub(crate) const DDS_MARKER_TYPE: &str = "zshm::bridge::Marker";
/// The first chunk of a bridge's liveliness token.
const PREFIX: &str = "@zshm_bridge";
/// How long a new bridge waits for an older bridge it sees on zenoh to show up on DDS.
/// Discovery to a route took 1.3–2.9 s against Cyclone DDS on loopback; RustDDS announces its
/// participant every few seconds.
pub(crate) const DDS_GRACE: Duration = Duration::from_secs(6);

/// A bridge as its liveliness token names it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Announcement {
    /// When it started, in nanoseconds since the Unix epoch: the older bridge bridges.
    pub started: u128,
    /// Its zenoh session's id, as its ROS tokens carry it.
    pub zid: String,
    /// Its DDS participant's GUID prefix, in hex.
    pub participant: String,
}

impl Announcement {
    /// The liveliness token of this bridge on `domain`.
    pub fn token(&self, domain: u32) -> String {
        format!(
            "{PREFIX}/{domain}/{}/{}/{}",
            self.started, self.zid, self.participant
        )
    }

    /// Parses a token made by [`Announcement::token`] (any domain).
    pub fn parse(token: &str) -> Option<Self> {
        let mut parts = token.split('/');
        let (prefix, _domain) = (parts.next()?, parts.next()?);
        let started = parts.next()?.parse().ok()?;
        let (zid, participant) = (parts.next()?, parts.next()?);
        (prefix == PREFIX && parts.next().is_none()).then(|| Self {
            started,
            zid: zid.to_owned(),
            participant: participant.to_owned(),
        })
    }
}

/// The key expression of every bridge's token on `domain`.
pub(crate) fn tokens_of(domain: u32) -> String {
    format!("{PREFIX}/{domain}/**")
}

/// A GUID prefix in hex, as tokens carry it.
pub(crate) fn hex(prefix: &[u8]) -> String {
    prefix.iter().map(|b| format!("{b:02x}")).collect()
}

/// What this bridge does, given the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Role {
    /// Bridges.
    Active,
    /// An older bridge is on zenoh and may be on this DDS network too: bridges nothing until
    /// DDS discovery tells.
    Waiting,
    /// An older twin bridges; this one bridges nothing until it goes.
    Standby {
        /// The twin that bridges.
        active: Announcement,
    },
}

/// The role of `me` among `others` (their tokens on zenoh), `on_dds` the participants seen
/// writing the marker topic, `running` how long `me` has been up. Returns the role and the twins,
/// whose endpoints are never bridged.
pub(crate) fn role(
    me: &Announcement,
    others: &[Announcement],
    on_dds: &BTreeSet<String>,
    running: Duration,
) -> (Role, Vec<Announcement>) {
    let twins: Vec<Announcement> = others
        .iter()
        .filter(|other| other.zid != me.zid && on_dds.contains(&other.participant))
        .cloned()
        .collect();
    let older = |other: &&Announcement| (other.started, &other.zid) < (me.started, &me.zid);
    if let Some(oldest) = twins.iter().filter(older).min() {
        return (
            Role::Standby {
                active: oldest.clone(),
            },
            twins,
        );
    }
    let older_elsewhere = others.iter().filter(older).any(|o| o.zid != me.zid);
    let role = if older_elsewhere && running < DDS_GRACE {
        Role::Waiting
    } else {
        Role::Active
    };
    (role, twins)
}

/// A change of this bridge's role worth telling the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RoleChange {
    /// An older twin bridges (its zid); this one stands by.
    Standby(String),
    /// The twin this one stood by for went (its zid); this one bridges again.
    TakingOver(String),
}

/// This bridge's role as other bridges come and go: [`role`] applied to each look at both
/// sides, with what it must remember between looks.
#[derive(Debug)]
pub(crate) struct Election {
    me: Announcement,
    role: Role,
    /// The DDS participants seen writing the bridges' marker topic, kept while DDS or zenoh
    /// still shows them: RustDDS's snapshot of remote writers can miss an entry for a moment,
    /// and a bridge that went leaves its endpoints in DDS discovery until its lease ends.
    bridges_on_dds: BTreeSet<String>,
    /// Those of them that were twins (on zenoh too), kept as long: their endpoints are never
    /// taken for real ones. A bridge seen on DDS only bridges another zenoh network, and what
    /// it writes on DDS is as real to this one as any DDS node's.
    twin_participants: BTreeSet<String>,
}

impl Election {
    /// A bridge that announces itself as `me` and bridges until told otherwise.
    pub fn new(me: Announcement) -> Self {
        Self {
            me,
            role: Role::Active,
            bridges_on_dds: BTreeSet::new(),
            twin_participants: BTreeSet::new(),
        }
    }

    /// Whether this bridge bridges now.
    pub fn is_active(&self) -> bool {
        self.role == Role::Active
    }

    /// Whether the DDS participant (GUID prefix in hex) is a twin's.
    pub fn is_twin_participant(&self, participant: &str) -> bool {
        self.twin_participants.contains(participant)
    }

    /// Takes a look at the other bridges: `bridges` as their tokens on zenoh announce them (this
    /// one's may be among them), `on_dds` the DDS participants seen writing [`DDS_MARKER_TOPIC`]
    /// now, `running` how long this bridge has been up. Returns the twins and the change of
    /// role, if any.
    pub fn elect(
        &mut self,
        bridges: &[Announcement],
        on_dds: BTreeSet<String>,
        running: Duration,
    ) -> (Vec<Announcement>, Option<RoleChange>) {
        let others: Vec<Announcement> = bridges
            .iter()
            .filter(|other| **other != self.me)
            .cloned()
            .collect();
        self.bridges_on_dds
            .retain(|p| on_dds.contains(p) || others.iter().any(|o| o.participant == *p));
        self.bridges_on_dds.extend(on_dds);
        let (role, twins) = role(&self.me, &others, &self.bridges_on_dds, running);
        let on_dds = &self.bridges_on_dds;
        self.twin_participants.retain(|p| on_dds.contains(p));
        self.twin_participants
            .extend(twins.iter().map(|twin| twin.participant.clone()));
        let mut change = None;
        if role != self.role {
            tracing::info!(from = ?self.role, to = ?role, "bridge role");
            change = match (&self.role, &role) {
                (_, Role::Standby { active }) => Some(RoleChange::Standby(active.zid.clone())),
                (Role::Standby { active }, Role::Active) => Some(RoleChange::TakingOver(active.zid.clone())),
                (_, Role::Waiting) => {
                    tracing::info!(
                        "an older zshm bridge is on zenoh: waiting up to {DDS_GRACE:?} to see whether it is on this DDS network too"
                    );
                    None
                }
                _ => None,
            };
            self.role = role;
        }
        (twins, change)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bridge(started: u128, zid: &str) -> Announcement {
        Announcement {
            started,
            zid: zid.into(),
            participant: format!("p{zid}"),
        }
    }

    #[test]
    fn a_token_parses_back() {
        let me = bridge(1_700_000_000_123_456_789, "a1b2");
        assert_eq!(Announcement::parse(&me.token(7)), Some(me.clone()));
        assert_eq!(Announcement::parse("@ros2_lv/0/a/b/c"), None);
        assert_eq!(Announcement::parse(&format!("{}/extra", me.token(0))), None);
    }

    #[test]
    fn the_oldest_twin_bridges_and_the_others_stand_by() {
        let (old, new) = (bridge(1, "b"), bridge(2, "a"));
        let on_dds: BTreeSet<String> = [old.participant.clone(), new.participant.clone()].into();
        let long = DDS_GRACE * 2;
        let (role_new, twins) = role(&new, std::slice::from_ref(&old), &on_dds, long);
        assert_eq!(role_new, Role::Standby { active: old.clone() });
        assert_eq!(twins, vec![old.clone()]);
        let (role_old, twins) = role(&old, std::slice::from_ref(&new), &on_dds, long);
        assert_eq!(role_old, Role::Active);
        assert_eq!(twins, vec![new]);
    }

    #[test]
    fn an_older_bridge_on_zenoh_only_is_waited_for_then_ignored() {
        let (old, new) = (bridge(1, "b"), bridge(2, "a"));
        let nothing = BTreeSet::new();
        let others = std::slice::from_ref(&old);
        assert_eq!(role(&new, others, &nothing, Duration::ZERO).0, Role::Waiting);
        let (after, twins) = role(&new, others, &nothing, DDS_GRACE);
        assert_eq!(after, Role::Active);
        assert!(
            twins.is_empty(),
            "not on this DDS network: its endpoints are real ones here"
        );
    }

    #[test]
    fn an_election_stands_by_for_an_older_twin_and_takes_over_when_it_goes() {
        let (old, me) = (bridge(1, "b"), bridge(2, "a"));
        let mut election = Election::new(me.clone());
        let long = DDS_GRACE * 2;
        let both = [old.clone(), me.clone()];
        let (twins, change) = election.elect(&both, [old.participant.clone()].into(), long);
        assert_eq!(change, Some(RoleChange::Standby("b".into())));
        assert_eq!(twins, std::slice::from_ref(&old));
        assert!(!election.is_active());
        assert!(election.is_twin_participant(&old.participant));
        // RustDDS's snapshot misses the marker for a moment: still a twin while zenoh shows it.
        let (_, change) = election.elect(&both, BTreeSet::new(), long);
        assert_eq!(change, None);
        assert!(election.is_twin_participant(&old.participant));
        // Its token goes, then its DDS endpoints: this one bridges again.
        let (twins, change) = election.elect(std::slice::from_ref(&me), BTreeSet::new(), long);
        assert_eq!(change, Some(RoleChange::TakingOver("b".into())));
        assert!(twins.is_empty() && election.is_active());
        assert!(!election.is_twin_participant(&old.participant));
    }

    #[test]
    fn a_bridge_alone_or_with_newer_ones_bridges_at_once() {
        let me = bridge(5, "m");
        assert_eq!(role(&me, &[], &BTreeSet::new(), Duration::ZERO).0, Role::Active);
        let newer = bridge(9, "n");
        assert_eq!(
            role(
                &me,
                std::slice::from_ref(&newer),
                &BTreeSet::new(),
                Duration::ZERO
            )
            .0,
            Role::Active
        );
        assert_eq!(
            role(&me, std::slice::from_ref(&me), &BTreeSet::new(), Duration::ZERO).0,
            Role::Active
        );
    }
}
