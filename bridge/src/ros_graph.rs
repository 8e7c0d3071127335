//! `ros_discovery_info`: the DDS RMWs' ROS graph. DDS discovery knows participants and their
//! readers and writers, not ROS nodes; rmw_cyclonedds_cpp and rmw_fastrtps_cpp publish, per
//! participant, which node each reader and writer belongs to (`rmw_dds_common/msg/
//! ParticipantEntitiesInfo`, reliable, transient local), so that `ros2 node list` works. The
//! bridge reads it to declare a DDS publisher's zenoh side under its own node's name.
//!
//! Parsed by hand: the type is small, fixed and not one zshm ships (it is an RMW-internal type),
//! and the GID inside is 24 bytes in Humble and 16 in Jazzy, which a generated decoder would not
//! tell apart.

use std::collections::HashMap;

/// The DDS topic.
pub(crate) const TOPIC: &str = "ros_discovery_info";
/// Its DDS type name.
pub(crate) const TYPE: &str = "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_";

/// A ROS node as the DDS side names it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct NodeName {
    /// Its namespace, `/` at the root.
    pub namespace: String,
    /// Its name.
    pub name: String,
}

/// One `ParticipantEntitiesInfo`: a participant's nodes and their endpoints' GUIDs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParticipantInfo {
    /// The participant's GUID.
    pub participant: [u8; 16],
    /// Each node, with the GUIDs of its readers and writers.
    pub nodes: Vec<(NodeName, Vec<[u8; 16]>)>,
    /// The size of its GIDs: 24 (Humble) or 16 (Jazzy and later).
    pub gid_size: usize,
}

/// A CDR reader over a payload's body (after the 4-byte header), alignment relative to it.
struct Cdr<'a> {
    body: &'a [u8],
    at: usize,
    little_endian: bool,
}

impl Cdr<'_> {
    fn bytes(&mut self, n: usize) -> Option<&[u8]> {
        let bytes = self.body.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(bytes)
    }

    fn u32(&mut self) -> Option<u32> {
        self.at = self.at.next_multiple_of(4);
        let raw: [u8; 4] = self.bytes(4)?.try_into().ok()?;
        Some(if self.little_endian {
            u32::from_le_bytes(raw)
        } else {
            u32::from_be_bytes(raw)
        })
    }

    fn string(&mut self) -> Option<String> {
        let len = self.u32()? as usize;
        let bytes = self.bytes(len)?;
        let text = bytes.strip_suffix(&[0])?;
        String::from_utf8(text.to_vec()).ok()
    }

    fn gid(&mut self, size: usize) -> Option<[u8; 16]> {
        self.bytes(size)?.get(..16)?.try_into().ok()
    }

    fn gids(&mut self, size: usize) -> Option<Vec<[u8; 16]>> {
        let count = self.u32()? as usize;
        // A count the payload cannot hold is garbage, not a reason to allocate it.
        if count > self.body.len() / size.max(1) {
            return None;
        }
        (0..count).map(|_| self.gid(size)).collect()
    }
}

/// Parses a sample's body; `None` when it is not a `ParticipantEntitiesInfo` of either GID size.
pub(crate) fn parse(body: &[u8], little_endian: bool) -> Option<ParticipantInfo> {
    [16, 24]
        .into_iter()
        .find_map(|gid_size| parse_with(body, little_endian, gid_size))
}

fn parse_with(body: &[u8], little_endian: bool, gid_size: usize) -> Option<ParticipantInfo> {
    let mut cdr = Cdr {
        body,
        at: 0,
        little_endian,
    };
    let participant = cdr.gid(gid_size)?;
    let count = cdr.u32()? as usize;
    if count > body.len() {
        return None;
    }
    let mut nodes = Vec::new();
    for _ in 0..count {
        let namespace = cdr.string()?;
        let name = cdr.string()?;
        let mut endpoints = cdr.gids(gid_size)?;
        endpoints.extend(cdr.gids(gid_size)?);
        nodes.push((NodeName { namespace, name }, endpoints));
    }
    // Only padding may follow.
    (body.len() - cdr.at < 4 || body[cdr.at..].iter().all(|b| *b == 0)).then_some(ParticipantInfo {
        participant,
        nodes,
        gid_size,
    })
}

/// A node with the GUIDs of its readers and of its writers.
pub(crate) type AnnouncedNode = (NodeName, Vec<[u8; 16]>, Vec<[u8; 16]>);

/// The CDR body (after the 4-byte header, little-endian) of `info`, with GIDs of `gid_size`
/// bytes (16, Jazzy's; 24, Humble's: the GUID and zeros, as rmw_dds_common fills them), every
/// endpoint listed as a reader (`reader_gid_seq`) or writer as `nodes` says.
pub(crate) fn encode(participant: [u8; 16], nodes: &[AnnouncedNode], gid_size: usize) -> Vec<u8> {
    fn align(out: &mut Vec<u8>) {
        while !out.len().is_multiple_of(4) {
            out.push(0);
        }
    }
    fn u32_(out: &mut Vec<u8>, n: usize) {
        align(out);
        out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
    }
    fn string(out: &mut Vec<u8>, text: &str) {
        u32_(out, text.len() + 1);
        out.extend_from_slice(text.as_bytes());
        out.push(0);
    }
    let gid = |out: &mut Vec<u8>, guid: &[u8; 16]| {
        out.extend_from_slice(guid);
        out.resize(out.len() + gid_size.saturating_sub(16), 0);
    };
    let mut out = Vec::new();
    gid(&mut out, &participant);
    u32_(&mut out, nodes.len());
    for (node, readers, writers) in nodes {
        string(&mut out, &node.namespace);
        string(&mut out, &node.name);
        for gids in [readers, writers] {
            u32_(&mut out, gids.len());
            gids.iter().for_each(|guid| gid(&mut out, guid));
        }
    }
    out
}

/// The latest `ParticipantEntitiesInfo` of every participant, and which node each endpoint is.
#[derive(Debug, Default)]
pub(crate) struct DdsNodes {
    participants: HashMap<[u8; 12], ParticipantInfo>,
    endpoints: HashMap<[u8; 16], NodeName>,
    humble: bool,
}

impl DdsNodes {
    /// Takes a participant's new info (it replaces the old one whole).
    pub fn update(&mut self, info: ParticipantInfo) {
        let mut prefix = [0u8; 12];
        prefix.copy_from_slice(&info.participant[..12]);
        // A sample without nodes parses at either size; one with nodes tells the domain's ROS.
        if !info.nodes.is_empty() {
            self.humble = info.gid_size == 24;
        }
        self.participants.insert(prefix, info);
        self.endpoints = self
            .participants
            .values()
            .flat_map(|p| &p.nodes)
            .flat_map(|(node, guids)| guids.iter().map(move |guid| (*guid, node.clone())))
            .collect();
    }

    /// The GID size the domain's DDS nodes read: Humble's 24 once a Humble node announced
    /// itself, else Jazzy's 16 (the two distributions do not share a DDS graph).
    pub fn gid_size(&self) -> usize {
        if self.humble { 24 } else { 16 }
    }

    /// Whether the participant of endpoint `guid` announced itself (with nodes or without).
    pub fn knows_participant(&self, guid: &[u8; 16]) -> bool {
        let mut prefix = [0u8; 12];
        prefix.copy_from_slice(&guid[..12]);
        self.participants.contains_key(&prefix)
    }

    /// The node of the endpoint `guid`, if its participant said.
    pub fn node_of(&self, guid: &[u8; 16]) -> Option<&NodeName> {
        self.endpoints.get(guid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string(out: &mut Vec<u8>, text: &str) {
        while !out.len().is_multiple_of(4) {
            out.push(0);
        }
        out.extend_from_slice(&(text.len() as u32 + 1).to_le_bytes());
        out.extend_from_slice(text.as_bytes());
        out.push(0);
    }

    fn info(gid_size: usize) -> Vec<u8> {
        let mut out = vec![7u8; 16];
        out.resize(gid_size, 0);
        out.extend_from_slice(&1u32.to_le_bytes());
        string(&mut out, "/robot");
        string(&mut out, "talker");
        while !out.len().is_multiple_of(4) {
            out.push(0);
        }
        out.extend_from_slice(&0u32.to_le_bytes()); // no readers
        out.extend_from_slice(&1u32.to_le_bytes());
        let mut writer = [7u8; 16];
        writer[15] = 3;
        out.extend_from_slice(&writer);
        out.resize(out.len() + gid_size - 16, 0);
        out
    }

    #[test]
    fn jazzy_and_humble_gids_both_parse_and_name_the_writer() {
        for gid_size in [16, 24] {
            let parsed = parse(&info(gid_size), true).unwrap();
            let mut nodes = DdsNodes::default();
            nodes.update(parsed);
            let mut writer = [7u8; 16];
            writer[15] = 3;
            let node = nodes.node_of(&writer).unwrap();
            assert_eq!(
                (node.namespace.as_str(), node.name.as_str()),
                ("/robot", "talker")
            );
            assert_eq!(nodes.node_of(&[0; 16]), None);
            assert_eq!(nodes.gid_size(), gid_size, "what the bridge writes back");
        }
    }

    #[test]
    fn what_the_bridge_writes_parses_back() {
        let node = NodeName {
            namespace: "/".into(),
            name: "talker".into(),
        };
        for gid_size in [16, 24] {
            let nodes = [(node.clone(), vec![[2; 16]], vec![[3; 16], [4; 16]])];
            let body = encode([1; 16], &nodes, gid_size);
            let parsed = parse(&body, true).unwrap();
            assert_eq!(parsed.participant, [1; 16]);
            assert_eq!(parsed.gid_size, gid_size);
            assert_eq!(
                parsed.nodes,
                vec![(node.clone(), vec![[2; 16], [3; 16], [4; 16]])]
            );
        }
        // Humble's layout, byte for byte: a 24-byte participant GID, then the node count.
        let body = encode([1; 16], &[], 24);
        assert_eq!(body.len(), 28);
        assert_eq!(&body[16..], &[0; 12]);
    }

    #[test]
    fn garbage_does_not_parse() {
        assert_eq!(parse(&[1, 2, 3], true), None);
        let mut huge = vec![0u8; 16];
        huge.extend_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(parse(&huge, true), None);
        let mut truncated = info(16);
        truncated.truncate(truncated.len() - 5);
        assert_eq!(parse(&truncated, true), None);
    }
}
