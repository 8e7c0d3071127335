#!/usr/bin/env python3
"""An independent DDS peer for the bridge tests: Eclipse Cyclone DDS (PyPI `cyclonedds`, whose
wheel bundles the C library), speaking ROS 2's DDS names and types as rmw_cyclonedds_cpp does:
topics `rt/<name>`, types `pkg::msg::dds_::Type_`, XCDR1, and the endpoint USER_DATA
`typehash=RIHS01_...;` that Jazzy's RMWs publish.

Roles (one per run):
  talker     publish std_msgs/String "Hello World: N", N = 1..--count, once a reader matched
  listener   print `heard <hex of the CDR payload>` for each std_msgs/String, until --count
  malformed  publish --count samples of a wrong layout under std_msgs/String's name, then
             --count good ones
  cloud      publish --count PointCloud2 of --width x --height points at --rate
  cloud-listener  receive --count PointCloud2 and print their latency (header stamp to take)
  add-server serve example_interfaces/srv/AddTwoInts on --service as rmw_cyclonedds_cpp does
             (`rq/<name>Request`, `rr/<name>Reply`, the 16-byte request header: client guid
             and sequence number, copied into the reply); `--silent` takes requests and never
             answers; prints `request <a> <b>` for each, stops after --count
  graph      print the ROS nodes other participants announce on ros_discovery_info
  add-client call it once with --a and --b once both endpoints matched; prints `sum <n>` or
             `no reply within <t> s` (exit 1)

--node-name NAME (--namespace NS) makes a talker announce its ROS node on ros_discovery_info as
rmw_cyclonedds_cpp does; --humble makes it (and graph) use Humble's 24-byte GIDs.
--transient-local makes a talker latch its last --depth samples and a listener ask for them.
--keyed makes a talker's String_ a keyed type (its `data` the key: each message an instance of
its own, as a DDS application with `@key` types has).

Every line it prints is flushed. It never leaves the loopback interface: CYCLONEDDS_URI is set
to `lo` unless the caller set it (the tests also run it in a network namespace of their own).
"""

import argparse
import os
import struct
import sys
import time
from dataclasses import dataclass

# Clouds go in 64 KB fragments (loopback's MTU is 64 KiB) with a 4 MB socket buffer, as one
# tunes Cyclone for big messages: with its defaults (1344-byte fragments) one 7 MB cloud takes
# ~90 ms DDS to DDS on the 2-core VM and 5 Hz already queues up; tuned, 15 Hz holds at ~12 ms.
BIG = any(role in sys.argv[1:2] for role in ("cloud", "cloud-listener"))
# --participant-index N fixes the participant's ports (its discovery traffic comes to
# 7410 + 2N on domain 0), so that a test can hold that traffic back. Read here: Cyclone takes
# its configuration from the environment when the module loads.
INDEX = (sys.argv[sys.argv.index("--participant-index") + 1]
         if "--participant-index" in sys.argv[:-1] else None)
os.environ.setdefault(
    "CYCLONEDDS_URI",
    '<CycloneDDS><Domain><General><Interfaces><NetworkInterface name="lo" multicast="true"/>'
    "</Interfaces>"
    + ("<MaxMessageSize>65500B</MaxMessageSize><FragmentSize>64000B</FragmentSize>" if BIG else "")
    + "</General>"
    + ('<Internal><SocketReceiveBufferSize min="4MB"/></Internal>' if BIG else "")
    + (f"<Discovery><ParticipantIndex>{int(INDEX)}</ParticipantIndex></Discovery>" if INDEX else "")
    + "</Domain></CycloneDDS>",
)

from cyclonedds._clayer import ddspy_take, ddspy_write  # noqa: E402
from cyclonedds.core import InstanceState, SampleState, ViewState  # noqa: E402
from cyclonedds.domain import DomainParticipant  # noqa: E402
from cyclonedds.idl import IdlStruct  # noqa: E402
from cyclonedds.idl.annotations import key  # noqa: E402
from cyclonedds.idl.types import array, int32, int64, sequence, uint8, uint32, uint64  # noqa: E402
from cyclonedds.internal import InvalidSample  # noqa: E402
from cyclonedds.pub import DataWriter  # noqa: E402
from cyclonedds.qos import Policy, Qos  # noqa: E402
from cyclonedds.sub import DataReader  # noqa: E402
from cyclonedds.topic import Topic  # noqa: E402
from cyclonedds.util import duration  # noqa: E402

# REP-2011 hashes, as Jazzy computes them (rmw_zenoh's design.md for String; zshm's interface
# set agrees for both).
STRING_HASH = "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18"
CLOUD_HASH = "RIHS01_9198cabf7da3796ae6fe19c4cb3bdd3525492988c70522628af5daa124bae2b5"


@dataclass
class String_(IdlStruct, typename="std_msgs::msg::dds_::String_"):
    data: str


@dataclass
class KeyedString_(IdlStruct, typename="std_msgs::msg::dds_::String_"):
    # The same bytes as String_ on the wire; the key makes the topic keyed (writer entity kind
    # WITH_KEY, instances).
    data: str
    key("data")


@dataclass
class WrongString_(IdlStruct, typename="std_msgs::msg::dds_::String_"):
    # A u32 where the string's length goes: a length far beyond the payload.
    data: uint32


@dataclass
class Time_(IdlStruct, typename="builtin_interfaces::msg::dds_::Time_"):
    sec: int32
    nanosec: uint32


@dataclass
class Header_(IdlStruct, typename="std_msgs::msg::dds_::Header_"):
    stamp: Time_
    frame_id: str


@dataclass
class PointField_(IdlStruct, typename="sensor_msgs::msg::dds_::PointField_"):
    name: str
    offset: uint32
    datatype: uint8
    count: uint32


@dataclass
class PointCloud2_(IdlStruct, typename="sensor_msgs::msg::dds_::PointCloud2_"):
    header: Header_
    height: uint32
    width: uint32
    fields: sequence[PointField_]
    is_bigendian: bool
    point_step: uint32
    row_step: uint32
    data: sequence[uint8]
    is_dense: bool


# rmw_cyclonedds_cpp writes a request header (the client's guid, the request's sequence number)
# before the request's fields and the server copies it before the response's; as CDR it is two
# 8-byte integers, so declaring them as the first two members gives the same bytes.

@dataclass
class AddTwoIntsRequest_(IdlStruct, typename="example_interfaces::srv::dds_::AddTwoInts_Request_"):
    client_guid: uint64
    sequence_number: int64
    a: int64
    b: int64


@dataclass
class AddTwoIntsResponse_(IdlStruct, typename="example_interfaces::srv::dds_::AddTwoInts_Response_"):
    client_guid: uint64
    sequence_number: int64
    sum: int64


def say(*words):
    print(*words, flush=True)


def qos(args, type_hash):
    policies = [
        Policy.Userdata(data=f"typehash={type_hash};".encode()),
        Policy.DataRepresentation(use_cdrv0_representation=True),
        Policy.History.KeepAll if args.keep_all else Policy.History.KeepLast(args.depth),
    ]
    if args.transient_local:
        # As rmw_cyclonedds_cpp: the durability service keeps what the history keeps (Cyclone's
        # default keeps only the last sample for late joiners).
        policies.append(Policy.Durability.TransientLocal)
        policies.append(Policy.DurabilityService(
            cleanup_delay=0, history=policies[2], max_samples=-1, max_instances=-1,
            max_samples_per_instance=-1))
    if args.best_effort:
        policies.append(Policy.Reliability.BestEffort)
    else:
        policies.append(Policy.Reliability.Reliable(duration(seconds=10)))
    return Qos(*policies)


def wait_matched(what, matched, timeout):
    deadline = time.monotonic() + timeout
    while not matched():
        if time.monotonic() > deadline:
            say(f"no {what} matched within {timeout} s")
            sys.exit(1)
        time.sleep(0.05)


def talk(participant, args, ty, hash_, samples, write=None):
    topic = Topic(participant, args.topic, ty)
    writer = DataWriter(participant, topic, qos=qos(args, hash_))
    _announcement = announce_node(participant, args, [writer]) if args.node_name else None
    say("writer up")
    if not args.no_wait:
        wait_matched("reader", lambda: writer.get_matched_subscriptions(), args.timeout)
        say("matched")
    period = 1.0 / args.rate if args.rate > 0 else 0
    started = time.monotonic()
    for n, sample in enumerate(samples):
        (write or DataWriter.write)(writer, sample)
        if period:
            # On a fixed schedule, so a slow write does not lower the rate.
            time.sleep(max(0.0, started + (n + 1) * period - time.monotonic()))
    say(f"sent {args.count}")
    # Reliable: wait until every reader acknowledged, so that stopping loses nothing.
    if not args.best_effort and not args.no_wait:
        writer.wait_for_acks(duration(seconds=args.timeout))
    time.sleep(args.linger)


# Humble's rmw_dds_common GIDs are 24 bytes (the GUID, then zeros), Jazzy's 16; decided before
# the type is built, as for a real node, by the distribution it runs (`--humble`).
GID_SIZE = 24 if "--humble" in sys.argv else 16


@dataclass
class Gid_(IdlStruct, typename="rmw_dds_common::msg::dds_::Gid_"):
    data: array[uint8, GID_SIZE]


@dataclass
class NodeEntitiesInfo_(IdlStruct, typename="rmw_dds_common::msg::dds_::NodeEntitiesInfo_"):
    node_namespace: str
    node_name: str
    reader_gid_seq: sequence[Gid_]
    writer_gid_seq: sequence[Gid_]


@dataclass
class ParticipantEntitiesInfo_(IdlStruct, typename="rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_"):
    gid: Gid_
    node_entities_info_seq: sequence[NodeEntitiesInfo_]


def announce_node(participant, args, writers):
    """Publishes the participant's node on ros_discovery_info, as rmw_cyclonedds_cpp does
    (reliable, transient local, keep last 1; Jazzy's 16-byte GIDs, Humble's 24 with --humble)."""
    topic = Topic(participant, "ros_discovery_info", ParticipantEntitiesInfo_)
    qos = Qos(Policy.Reliability.Reliable(duration(seconds=10)), Policy.Durability.TransientLocal,
              Policy.History.KeepLast(1))
    writer = DataWriter(participant, topic, qos=qos)
    gid = lambda entity: Gid_(data=list(entity.guid.bytes) + [0] * (GID_SIZE - 16))  # noqa: E731
    node = NodeEntitiesInfo_(node_namespace=args.namespace, node_name=args.node_name,
                             reader_gid_seq=[], writer_gid_seq=[gid(w) for w in writers])
    writer.write(ParticipantEntitiesInfo_(gid=gid(participant), node_entities_info_seq=[node]))
    return writer


def graph(participant, args):
    """Prints `node <namespace> <name> readers=<n> writers=<n>` for each node other participants
    announce on ros_discovery_info (each line once), until --count lines or --timeout."""
    topic = Topic(participant, "ros_discovery_info", ParticipantEntitiesInfo_)
    qos = Qos(Policy.Reliability.Reliable(duration(seconds=10)), Policy.Durability.TransientLocal,
              Policy.History.KeepLast(1))
    reader = DataReader(participant, topic, qos=qos)
    say("listening")
    told = set()
    deadline = time.monotonic() + args.timeout
    while len(told) < args.count and time.monotonic() < deadline:
        taken = ddspy_take(reader._ref, SampleState.Any | ViewState.Any | InstanceState.Any, 64)
        for data, info in taken if not isinstance(taken, int) else []:
            if not info.valid_data:
                continue
            try:
                sample = ParticipantEntitiesInfo_.deserialize(data)
            except Exception:  # noqa: BLE001 (the other distribution's GID size, as a real node drops it)
                say("undecodable ros_discovery_info sample")
                continue
            for node in sample.node_entities_info_seq:
                line = (f"node {node.node_namespace} {node.node_name} "
                        f"readers={len(node.reader_gid_seq)} writers={len(node.writer_gid_seq)}")
                if line not in told:
                    told.add(line)
                    say(line)
        time.sleep(0.05)
    sys.exit(0 if len(told) >= args.count else 1)


def string_type(typename):
    """std_msgs/String's layout under another type name (--type-name)."""
    @dataclass
    class Renamed(IdlStruct, typename=typename):
        data: str
    return Renamed


def talker(participant, args):
    ty = string_type(args.type_name) if args.type_name else KeyedString_ if args.keyed else String_
    samples = (ty(data=f"Hello World: {i}") for i in range(1, args.count + 1))
    talk(participant, args, ty, STRING_HASH, samples)


def malformed(participant, args):
    topic = Topic(participant, args.topic, WrongString_)
    writer = DataWriter(participant, topic, qos=qos(args, STRING_HASH))
    wait_matched("reader", lambda: writer.get_matched_subscriptions(), args.timeout)
    for _ in range(args.count):
        writer.write(WrongString_(data=1000))
    writer.wait_for_acks(duration(seconds=args.timeout))
    say(f"sent {args.count} malformed")
    # The good samples come from another participant (Cyclone keeps one type per topic name in a
    # participant), while the bad writer stays, so the bridge's route stays the same.
    other = DomainParticipant(args.domain, qos=Qos(Policy.Userdata(data=b"enclave=/;")))
    talker(other, args)
    del writer


def pattern(length, seq):
    """zshm's verifiable payload (`zshm_ops::tools::pattern`, which `cam-latency --verify` checks):
    the sequence number, then SplitMix64 words seeded with it."""
    mask = (1 << 64) - 1
    state = seq ^ 0x5A5A5A5AD00DF00D
    words = bytearray(struct.pack("<Q", seq))
    while len(words) < length:
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        words += struct.pack("<Q", z ^ (z >> 31))
    return bytes(words[:length])


def cloud(participant, args):
    """Clouds serialized once and only stamped per message: the binding's generic path spends
    tens of milliseconds per 7 MB cloud, which would swamp the latency being measured. The stamp
    (header.stamp, bytes 4..12 after the encapsulation header) is written last, just before the
    cloud goes to Cyclone, as a camera driver stamps a frame; frame_id carries the number, fixed
    width, so the layout never moves."""
    point_step = 24
    fields = [
        PointField_(name=n, offset=o, datatype=7, count=1) for n, o in (("x", 0), ("y", 4), ("z", 8), ("rgb", 16))
    ]
    payload = pattern(args.width * args.height * point_step, 1)
    template = PointCloud2_(
        header=Header_(stamp=Time_(sec=0, nanosec=0), frame_id="00000000"),
        height=args.height,
        width=args.width,
        fields=fields,
        is_bigendian=False,
        point_step=point_step,
        row_step=point_step * args.width,
        data=payload,
        is_dense=True,
    )
    buffer = bytearray(template.serialize())
    buffer.extend(b"\0" * (-len(buffer) % 4))  # as DataWriter.write pads

    def write(writer, i):
        buffer[16:24] = f"{i:08d}".encode()
        now = time.time_ns()
        buffer[4:12] = struct.pack("<iI", now // 1_000_000_000, now % 1_000_000_000)
        ret = ddspy_write(writer._ref, buffer)
        if ret < 0:
            raise RuntimeError(f"dds_write: {ret}")

    talk(participant, args, PointCloud2_, CLOUD_HASH, range(args.count), write=write)


def cloud_listener(participant, args):
    """Takes clouds as raw CDR and reads only their stamp and number, so what it reports is the
    time to arrive, not the binding's time to decode 7 MB."""
    topic = Topic(participant, args.topic, PointCloud2_)
    reader = DataReader(participant, topic, qos=qos(args, CLOUD_HASH))
    say("listening")
    latencies, sizes, numbers = [], [], []
    mask = SampleState.Any | ViewState.Any | InstanceState.Any
    deadline = time.monotonic() + args.timeout
    while len(latencies) < args.count and time.monotonic() < deadline:
        taken = ddspy_take(reader._ref, mask, 4)
        for data, info in taken if not isinstance(taken, int) else []:
            if not info.valid_data:
                continue  # a writer left, not a cloud
            now = time.time_ns()
            sec, nanosec = struct.unpack_from("<iI", data, 4)
            latencies.append((now - (sec * 1_000_000_000 + nanosec)) / 1e6)
            sizes.append(len(data))
            numbers.append(int(bytes(data[16:24])))
        time.sleep(0.0005)
    lost = (numbers[-1] - numbers[0] + 1 - len(numbers)) if numbers else 0
    ordered = sorted(latencies)
    if ordered:
        p50 = ordered[len(ordered) // 2]
        mean = sum(ordered) / len(ordered)
        say(f"clouds {len(ordered)} size {sizes[0]} lost {lost} mean {mean:.2f} ms p50 {p50:.2f} ms "
            f"max {ordered[-1]:.2f} ms")
    sys.exit(0 if len(latencies) >= args.count else 1)


def listener(participant, args):
    topic = Topic(participant, args.topic, String_)
    reader = DataReader(participant, topic, qos=qos(args, STRING_HASH))
    say("listening")
    heard = 0
    told = set()
    deadline = time.monotonic() + args.timeout
    while heard < args.count and time.monotonic() < deadline:
        for handle in reader.get_matched_publications():
            if handle not in told:
                told.add(handle)
                data = reader.get_matched_publication_data(handle)
                say(f"matched {data.topic_name} {data.type_name}")
        for sample in reader.take(N=64):
            if isinstance(sample, InvalidSample):
                continue  # no data: an instance's state changed (its writer left)
            say(f"heard {sample.serialize().hex()} {sample.data}")
            heard += 1
        time.sleep(0.01)
    say(f"heard {heard} messages")
    sys.exit(0 if heard >= args.count else 1)


def service_topics(participant, args):
    name = args.service.strip("/")
    return (Topic(participant, f"rq/{name}Request", AddTwoIntsRequest_),
            Topic(participant, f"rr/{name}Reply", AddTwoIntsResponse_))


def service_qos():
    return Qos(Policy.DataRepresentation(use_cdrv0_representation=True),
               Policy.Reliability.Reliable(duration(seconds=10)), Policy.History.KeepLast(10))


def add_server(participant, args):
    requests, replies = service_topics(participant, args)
    reader = DataReader(participant, requests, qos=service_qos())
    writer = DataWriter(participant, replies, qos=service_qos())
    say("serving")
    served = 0
    deadline = time.monotonic() + args.timeout
    while served < args.count and time.monotonic() < deadline:
        for request in reader.take(N=16):
            # A writer that leaves (a client gone) arrives as a sample without data.
            if isinstance(request, InvalidSample):
                continue
            say(f"request {request.a} {request.b}")
            served += 1
            if not args.silent:
                writer.write(AddTwoIntsResponse_(client_guid=request.client_guid,
                                                 sequence_number=request.sequence_number,
                                                 sum=request.a + request.b))
        time.sleep(0.01)
    if not args.silent:
        writer.wait_for_acks(duration(seconds=args.timeout))
    time.sleep(args.linger)


def add_client(participant, args):
    requests, replies = service_topics(participant, args)
    writer = DataWriter(participant, requests, qos=service_qos())
    reader = DataReader(participant, replies, qos=service_qos())
    wait_matched("service server", lambda: writer.get_matched_subscriptions()
                 and reader.get_matched_publications(), args.timeout)
    say("matched")
    guid = 0x0123456789ABCDEF
    writer.write(AddTwoIntsRequest_(client_guid=guid, sequence_number=1, a=args.a, b=args.b))
    deadline = time.monotonic() + args.timeout
    while time.monotonic() < deadline:
        for reply in reader.take(N=16):
            if isinstance(reply, InvalidSample):
                continue
            if reply.client_guid == guid and reply.sequence_number == 1:
                say(f"sum {reply.sum}")
                return
        time.sleep(0.01)
    say(f"no reply within {args.timeout} s")
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("role", choices=["talker", "listener", "malformed", "cloud", "cloud-listener",
                                         "add-server", "add-client", "graph"])
    parser.add_argument("--service", default="add_two_ints")
    parser.add_argument("--silent", action="store_true", help="add-server: never answer")
    parser.add_argument("-a", "--a", type=int, default=2)
    parser.add_argument("-b", "--b", type=int, default=3)
    parser.add_argument("--topic", default="rt/chatter")
    parser.add_argument("--node-name", help="talker: announce this ROS node on ros_discovery_info")
    parser.add_argument("--namespace", default="/", help="with --node-name")
    parser.add_argument("--humble", action="store_true",
                        help="ros_discovery_info with Humble's 24-byte GIDs (talker --node-name, graph)")
    parser.add_argument("--type-name", help="talker: publish String's layout under this DDS type name")
    parser.add_argument("--domain", type=int, default=0)
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--rate", type=float, default=0, help="messages per second (0: as fast as possible)")
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--keep-all", action="store_true")
    parser.add_argument("--best-effort", action="store_true")
    parser.add_argument("--transient-local", action="store_true",
                        help="keep the last --depth samples for late readers / ask writers for theirs")
    parser.add_argument("--no-wait", action="store_true", help="talk without waiting for a reader")
    parser.add_argument("--keyed", action="store_true", help="talker: a keyed String_ (data is the key)")
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--participant-index", type=int,
                        help="fix the participant's index (and so its ports); read at start")
    parser.add_argument("--linger", type=float, default=0, help="seconds to stay after the last message")
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=480)
    args = parser.parse_args()
    participant = DomainParticipant(args.domain, qos=Qos(Policy.Userdata(data=b"enclave=/;")))
    {"talker": talker, "listener": listener, "malformed": malformed, "cloud": cloud,
     "cloud-listener": cloud_listener, "add-server": add_server, "graph": graph,
     "add-client": add_client}[args.role](participant, args)


if __name__ == "__main__":
    main()
