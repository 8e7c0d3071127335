#!/usr/bin/env python3
"""A small ROS 2 peer that speaks rmw_zenoh's wire protocol, written in Python.

This is an INDEPENDENT implementation of the protocol that rmw_zenoh_cpp (Jazzy,
0.2.x) uses on top of Zenoh, written from the protocol's description and not
from zshm's Rust code. zshm's interop tests run it against the real `zshm`
binaries, so that a mistake shared by zshm's publisher and subscriber (which
would cancel out in a Rust-only test) still shows up.

What it implements:
  * data key expressions `<domain>/<topic>/<dds type>/<type hash>`;
  * liveliness tokens `@ros2_lv/...` for a node (NN) and its publisher (MP) or
    subscription (MS), with names mangled (`/` -> `%`) and one entity counter
    per session shared by node and endpoints;
  * publisher GIDs: XXH3-128 of the endpoint token, 16 bytes little-endian;
  * the 33-byte sample attachment: int64 LE sequence number, int64 LE source
    timestamp (ns since the UNIX epoch), 0x10, then the 16-byte GID;
  * std_msgs/msg/String as little-endian CDR.

Modes (each prints ONE JSON object on stdout and exits 0 iff all went well):
  listen   subscribe like rmw_zenoh, verify every sample (attachment, sequence
           numbers, timestamp, CDR) and that the publisher's GID matches the
           GID computed from the `talker` node's MP liveliness token;
  talk     wait for a matching MS token, then publish `Hello from Python: k`;
  garbage  publish samples a conforming subscriber must drop (no attachment,
           a 10-byte attachment, a truncated CDR payload).
  receive  subscribe to --type (any type rosbags' Jazzy store has, hash from
           rosbags), deserialize each sample with rosbags, serialize it again and
           report whether the bytes are identical, with the decoded values;
  send     publish a fixed sample of --type (Twist, Odometry, TFMessage,
           LaserScan, PointCloud2 of 7 MB), serialized by rosbags.
  serve    offer example_interfaces/srv/AddTwoInts on --topic as rmw_zenoh does
           (a complete queryable, an SS token) and answer --count requests,
           checking each request's attachment and echoing its sequence number
           and client GID in the reply's;
  call     call AddTwoInts --count times as rmw_zenoh does (an SC token, a query
           to ALL_COMPLETE queryables without consolidation, attachment with
           sequence numbers from 1 and the client's GID) and check each reply.
  describe call --topic (a node's `~/get_type_description`, the service Jazzy
           nodes offer) once for --type, with the type's hash from rosbags, and
           print the decoded GetTypeDescription response (rosbags' CDR; the
           request and response types registered from their .srv halves).
  params   read the parameters of node --node (e.g. /sim_camera) as `ros2 param
           dump` would: `<node>/list_parameters` then `<node>/get_parameters`,
           called as `call` calls (SC tokens, the 33-byte attachment), requests
           and replies in CDR by rosbags; prints {name: value}.

Run it (against a router listening on tcp/127.0.0.1:7447):
  python3 -m venv .venv && .venv/bin/pip install -r router/tests/interop/requirements.txt
  .venv/bin/python router/tests/interop/rmw_zenoh_peer.py listen --connect tcp/127.0.0.1:7447 --count 5
  .venv/bin/python router/tests/interop/rmw_zenoh_peer.py talk --connect tcp/127.0.0.1:7447 --count 5
  .venv/bin/python router/tests/interop/rmw_zenoh_peer.py garbage --connect tcp/127.0.0.1:7447 --count 3
"""

import argparse
import hashlib
import json
import queue
import struct
import sys
import threading
import time

import xxhash
import zenoh

STRING_TYPE = "std_msgs::msg::dds_::String_"
STRING_HASH = "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18"
DEFAULT_QOS = "::,10:,:,:,,"  # reliable, volatile, keep_last 10 (rclcpp's default)
KEEP_ALL_QOS = "::2,:,:,:,,"  # reliable, volatile, keep_all
CDR_LE_HEADER = b"\x00\x01\x00\x00"
GID_LEN = 16
ATTACHMENT_LEN = 8 + 8 + 1 + GID_LEN  # 33
MAX_CLOCK_SKEW_NS = 5_000_000_000


# ---------------------------------------------------------------- encodings
def mangle(name):
    """rmw_zenoh's name mangling: every '/' becomes '%' ('/' alone gives '%')."""
    return name.replace("/", "%")


def gid_of(token):
    """Entity GID: XXH3-128 of the liveliness token, 16 bytes, low 64 bits first."""
    return xxhash.xxh3_128_intdigest(token.encode()).to_bytes(GID_LEN, "little")


def encode_string(text):
    data = text.encode("utf-8")
    return CDR_LE_HEADER + struct.pack("<I", len(data) + 1) + data + b"\x00"


def decode_string(payload):
    if payload[:4] != CDR_LE_HEADER:
        raise ValueError(f"bad CDR header {payload[:4].hex()}")
    if len(payload) < 8:
        raise ValueError("CDR payload too short for a string length")
    (length,) = struct.unpack_from("<I", payload, 4)
    body = payload[8 : 8 + length]
    if length == 0 or len(body) != length or body[-1] != 0:
        raise ValueError(f"CDR string of length {length} truncated or not NUL-terminated")
    return body[:-1].decode("utf-8")


def encode_attachment(seq, timestamp_ns, gid):
    return struct.pack("<qqB", seq, timestamp_ns, GID_LEN) + gid


def decode_attachment(raw):
    if raw is None:
        raise ValueError("sample has no attachment")
    if len(raw) != ATTACHMENT_LEN or raw[16] != GID_LEN:
        raise ValueError(f"malformed attachment ({len(raw)} bytes): {raw.hex()}")
    seq, timestamp_ns = struct.unpack_from("<qq", raw, 0)
    return seq, timestamp_ns, raw[17:]


def parse_token(token):
    """Split an @ros2_lv token into its fields (None if it is not one)."""
    parts = token.split("/")
    if parts[0] != "@ros2_lv" or len(parts) < 9:
        return None
    fields = dict(zip(["domain", "zid", "nid", "eid", "kind", "enclave", "namespace", "node"], parts[1:9]))
    if len(parts) == 13:
        fields.update(zip(["topic", "type", "hash", "qos"], parts[9:13]))
    return fields


# ---------------------------------------------------------------- the peer
class RosPeer:
    """A Zenoh session with one ROS node on it, declared the way rmw_zenoh does."""

    def __init__(self, connect, domain, node_name, namespace="/", enclave="/", settings=()):
        config = zenoh.Config()
        config.insert_json5("mode", '"peer"')
        config.insert_json5("connect/endpoints", json.dumps([connect]))
        config.insert_json5("listen/endpoints", '["tcp/127.0.0.1:0"]')
        config.insert_json5("scouting/multicast/enabled", "false")
        # As rmw_zenoh's session config: of two peers, only the one with the greater ZID connects.
        # With zenoh's default ("always") both connect at once when the other side follows this
        # rule, and under usrpwd that double handshake can leave them with no link at all.
        config.insert_json5("scouting/gossip/autoconnect_strategy",
                            '{"peer": {"to_router": "always", "to_peer": "greater-zid"}}')
        config.insert_json5("timestamping/enabled", '{"router": true, "peer": true, "client": true}')
        for setting in settings:  # KEY=JSON5, like one pair of rmw_zenoh's ZENOH_CONFIG_OVERRIDE
            key, _, value = setting.partition("=")
            config.insert_json5(key, value)
        self.session = zenoh.open(config)
        self.domain = domain
        self.zid = str(self.session.info.zid())
        self.prefix = f"{domain}/{self.zid}"
        self.node_suffix = f"{mangle(enclave)}/{mangle(namespace)}/{node_name}"
        self.counter = 0
        self.nid = self._next_id()
        self.node_token = f"@ros2_lv/{self.prefix}/{self.nid}/{self.nid}/NN/{self.node_suffix}"
        self.tokens = [self.session.liveliness().declare_token(self.node_token)]

    def _next_id(self):
        value, self.counter = self.counter, self.counter + 1
        return value

    def data_key(self, topic, dds_type=STRING_TYPE, type_hash=STRING_HASH):
        return f"{self.domain}/{topic.strip('/')}/{dds_type}/{type_hash}"

    def declare_endpoint(self, kind, topic, dds_type=STRING_TYPE, type_hash=STRING_HASH, qos=DEFAULT_QOS):
        """Declare an MP/MS token for a topic (std_msgs/String by default); returns (token, gid)."""
        token = (
            f"@ros2_lv/{self.prefix}/{self.nid}/{self._next_id()}/{kind}/{self.node_suffix}/"
            f"{mangle('/' + topic.strip('/'))}/{dds_type}/{type_hash}/{qos}"
        )
        self.tokens.append(self.session.liveliness().declare_token(token))
        return token, gid_of(token)

    def query_tokens(self, timeout=2.0):
        replies = self.session.liveliness().get(f"@ros2_lv/{self.domain}/**", timeout=timeout)
        return sorted({str(r.ok.key_expr) for r in replies if r.ok is not None})

    def endpoints(self, tokens, kind, topic, dds_type=STRING_TYPE, type_hash=STRING_HASH):
        """The tokens of `kind` (MP/MS) on `topic` with that type, from other sessions."""
        found = []
        for token in tokens:
            f = parse_token(token)
            if (f and f["kind"] == kind and f["zid"] != self.zid and f.get("topic") == mangle("/" + topic.strip("/"))
                    and f.get("type") == dds_type and f.get("hash") == type_hash):
                found.append(token)
        return found

    def close(self):
        for token in self.tokens:
            token.undeclare()
        self.session.close()


def emit(result, ok):
    print(json.dumps(result), flush=True)
    return 0 if ok else 1


# ---------------------------------------------------------------- modes
def listen(args):
    deadline = time.monotonic() + args.timeout
    peer = RosPeer(args.connect, args.domain, "py_listener", settings=args.set)
    seen, seen_lock = set(), threading.Lock()

    def on_token(sample):  # every token ever put, so a talker that already left still counts
        with seen_lock:
            seen.add(str(sample.key_expr))

    watcher = peer.session.liveliness().declare_subscriber(f"@ros2_lv/{args.domain}/**", on_token, history=True)
    inbox = queue.Queue()
    subscriber = peer.session.declare_subscriber(
        peer.data_key(args.topic),
        lambda s: inbox.put((s.payload.to_bytes(), s.attachment.to_bytes() if s.attachment is not None else None)))
    peer.declare_endpoint("MS", args.topic)  # after the subscriber, as rmw_zenoh does

    texts, seqs, gids, errors, last_seq = [], [], set(), [], {}
    while len(texts) < args.count:
        try:
            payload, attachment = inbox.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            errors.append(f"timed out after {args.timeout}s with {len(texts)}/{args.count} messages")
            break
        try:
            seq, stamp, gid = decode_attachment(attachment)
            text = decode_string(payload)
        except ValueError as e:
            errors.append(str(e))
            continue
        if args.joins_late and gid not in last_seq:
            last_seq[gid] = seq - 1  # joined a running publisher: its first sample sets the start
        if seq != last_seq.get(gid, 0) + 1:
            errors.append(f"sequence number {seq} after {last_seq.get(gid, 0)} from GID {gid.hex()}")
        last_seq[gid] = seq
        if abs(stamp - time.time_ns()) > MAX_CLOCK_SKEW_NS:
            errors.append(f"source timestamp {stamp} is more than 5 s away from now")
        texts.append(text)
        seqs.append(seq)
        gids.add(gid)

    queried = set(peer.query_tokens())
    with seen_lock:
        tokens = sorted(seen | queried)
    talker_nodes = [t for t in tokens if (f := parse_token(t)) and f["kind"] == "NN" and f["node"] == "talker"]
    talker_pubs = [t for t in peer.endpoints(tokens, "MP", args.topic) if parse_token(t)["node"] == "talker"]
    if not talker_nodes:
        errors.append("no NN token for node 'talker'")
    if not talker_pubs:
        errors.append(f"no MP token of node 'talker' for {args.topic} with type {STRING_TYPE}")
    for token in talker_pubs:
        f = parse_token(token)
        if f["qos"] != DEFAULT_QOS:
            errors.append(f"MP token QoS {f['qos']!r}, expected {DEFAULT_QOS!r}")
        if not any(parse_token(n)["zid"] == f["zid"] and parse_token(n)["nid"] == f["nid"] for n in talker_nodes):
            errors.append(f"MP token {token} has no NN token with the same zid/nid")
    token_gids = {gid_of(t) for t in talker_pubs}
    if len(gids) > 1:
        errors.append(f"samples came with {len(gids)} different GIDs")
    for gid in gids - token_gids:
        errors.append(f"attachment GID {gid.hex()} matches no MP token of 'talker' "
                      f"(token GIDs: {sorted(g.hex() for g in token_gids)})")

    publisher_gid = next(iter(gids)).hex() if len(gids) == 1 else None
    token_gid = gid_of(talker_pubs[0]).hex() if len(talker_pubs) == 1 else None
    result = {"received": len(texts), "texts": texts, "sequence_numbers": seqs,
              "publisher_gid": publisher_gid, "token_gid": token_gid, "tokens": tokens,
              "ok": not errors, "errors": errors,
              # Whom this peer was connected to at the end: tells "refused" from "slow".
              "routers": [str(z) for z in peer.session.info.routers_zid()],
              "peers": [str(z) for z in peer.session.info.peers_zid()]}
    subscriber.undeclare()
    watcher.undeclare()
    peer.close()
    return emit(result, not errors)


def wait_for_subscribers(peer, topic, deadline, *type_key):
    """Poll liveliness until an MS token for `topic` shows up (rmw_zenoh's discovery)."""
    while time.monotonic() < deadline:
        found = peer.endpoints(peer.query_tokens(timeout=1.0), "MS", topic, *type_key)
        if found:
            return found
        time.sleep(0.2)
    return []


def linger(peer, topic, subscribers, deadline, *type_key):
    """Stay up until those subscribers' tokens are gone (or the deadline), at least 1 s."""
    deadline = max(deadline, time.monotonic() + 1.0)
    time.sleep(0.5)
    while time.monotonic() < deadline:
        if not set(subscribers) & set(peer.endpoints(peer.query_tokens(timeout=1.0), "MS", topic, *type_key)):
            return True
        time.sleep(0.2)
    return False


def publish(args, node_name, make_sample):
    """Shared body of `talk` and `garbage`: make_sample(k, gid) -> (payload, attachment|None)."""
    deadline = time.monotonic() + args.timeout
    peer = RosPeer(args.connect, args.domain, node_name, settings=args.set)
    publisher = peer.session.declare_publisher(peer.data_key(args.topic))
    _token, gid = peer.declare_endpoint("MP", args.topic)
    subscribers = wait_for_subscribers(peer, args.topic, deadline)
    if not subscribers:
        peer.close()
        return None, f"no MS token for {args.topic} within {args.timeout}s"
    for k in range(1, args.count + 1):
        payload, attachment = make_sample(k, gid)
        publisher.put(payload, attachment=attachment)
        if k < args.count:
            time.sleep(1.0 / args.rate)
    left = linger(peer, args.topic, subscribers, deadline)
    publisher.undeclare()
    peer.close()
    return left, None


def talk(args):
    def sample(k, gid):
        return encode_string(f"Hello from Python: {k}"), encode_attachment(k, time.time_ns(), gid)

    left, error = publish(args, "py_talker", sample)
    if error:
        return emit({"published": 0, "ok": False, "errors": [error]}, False)
    return emit({"published": args.count, "subscriber_left": left, "ok": True}, True)


def garbage(args):
    valid = iter(range(1, args.count + 1))

    def sample(k, gid):
        kind = (k - 1) % 3
        if kind == 0:  # (a) no attachment at all
            return encode_string(f"garbage {k}: no attachment"), None
        if kind == 1:  # (b) an attachment of the wrong size
            return encode_string(f"garbage {k}: short attachment"), bytes(range(10))
        # (c) a valid attachment, but the CDR string claims 4 GiB and stops after one byte
        return CDR_LE_HEADER + b"\xff\xff\xff\xff\x41", encode_attachment(next(valid), time.time_ns(), gid)

    _left, error = publish(args, "py_garbage", sample)
    if error:
        return emit({"published": 0, "errors": [error]}, False)
    return emit({"published": args.count}, True)


# ---------------------------------------------------------------- any type, through rosbags
def typestore():
    from rosbags.typesys import Stores, get_typestore  # only these modes need rosbags
    return get_typestore(Stores.ROS2_JAZZY)


def type_key(ts, type_name):
    """(DDS name, RIHS01 hash) of `pkg/msg/Type`, as rmw_zenoh puts them in key expressions."""
    pkg, ns, name = type_name.split("/")
    return f"{pkg}::{ns}::dds_::{name}_", ts.hash_rihs01(type_name)


def to_plain(obj):
    """A rosbags message as JSON-able data: dicts in field order, arrays as lists."""
    import dataclasses
    import numpy as np
    if dataclasses.is_dataclass(obj):
        return {f.name: to_plain(getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.name != "__msgtype__"}
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (list, tuple)):
        return [to_plain(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    return obj


def receive(args):
    ts = typestore()
    dds_type, type_hash = type_key(ts, args.type)
    deadline = time.monotonic() + args.timeout
    peer = RosPeer(args.connect, args.domain, "py_receiver", settings=args.set)
    inbox = queue.Queue()
    subscriber = peer.session.declare_subscriber(
        peer.data_key(args.topic, dds_type, type_hash),
        lambda s: inbox.put((s.payload.to_bytes(), s.attachment.to_bytes() if s.attachment is not None else None)))
    peer.declare_endpoint("MS", args.topic, dds_type, type_hash)
    messages, errors = [], []
    while len(messages) < args.count:
        try:
            payload, attachment = inbox.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            errors.append(f"timed out after {args.timeout}s with {len(messages)}/{args.count} messages")
            break
        try:
            decode_attachment(attachment)
            msg = ts.deserialize_cdr(payload, args.type)
            again = bytes(ts.serialize_cdr(msg, args.type))
        except Exception as e:  # noqa: BLE001  report, do not crash
            errors.append(f"{type(e).__name__}: {e}")
            continue
        if again != payload:
            errors.append(f"rosbags re-serialized {again.hex()} from {payload.hex()}")
        messages.append({"cdr": payload.hex(), "value": to_plain(msg)})
    subscriber.undeclare()
    peer.close()
    return emit({"received": len(messages), "messages": messages, "ok": not errors, "errors": errors}, not errors)


def sample_message(ts, type_name):
    """The fixed sample `send` publishes (values exact in binary, so printed text is predictable)."""
    import numpy as np
    T = ts.types
    Time, Header = T["builtin_interfaces/msg/Time"], T["std_msgs/msg/Header"]
    Vector3, Quaternion = T["geometry_msgs/msg/Vector3"], T["geometry_msgs/msg/Quaternion"]
    header = Header(stamp=Time(sec=12, nanosec=345), frame_id="odom")
    twist = T["geometry_msgs/msg/Twist"](linear=Vector3(x=0.5, y=0.0, z=0.0), angular=Vector3(x=0.0, y=0.0, z=-1.25))
    if type_name == "geometry_msgs/msg/Twist":
        return twist
    if type_name == "nav_msgs/msg/Odometry":
        pose = T["geometry_msgs/msg/Pose"](position=T["geometry_msgs/msg/Point"](x=1.5, y=-2.0, z=0.0),
                                           orientation=Quaternion(x=0.0, y=0.0, z=0.0, w=1.0))
        cov = np.zeros(36, dtype=np.float64)
        cov[0] = 0.25
        return T["nav_msgs/msg/Odometry"](
            header=header, child_frame_id="base_link",
            pose=T["geometry_msgs/msg/PoseWithCovariance"](pose=pose, covariance=cov),
            twist=T["geometry_msgs/msg/TwistWithCovariance"](twist=twist, covariance=np.zeros(36, dtype=np.float64)))
    if type_name == "tf2_msgs/msg/TFMessage":
        transform = T["geometry_msgs/msg/Transform"](translation=Vector3(x=1.0, y=2.0, z=0.0),
                                                     rotation=Quaternion(x=0.0, y=0.0, z=0.0, w=1.0))
        return T["tf2_msgs/msg/TFMessage"](transforms=[T["geometry_msgs/msg/TransformStamped"](
            header=header, child_frame_id="base_link", transform=transform)])
    if type_name == "sensor_msgs/msg/LaserScan":
        return T["sensor_msgs/msg/LaserScan"](
            header=Header(stamp=Time(sec=12, nanosec=345), frame_id="laser"), angle_min=-1.5, angle_max=1.5,
            angle_increment=0.015625, time_increment=0.0, scan_time=0.125, range_min=0.25, range_max=30.0,
            ranges=np.array([1.0 + 0.25 * i for i in range(200)], dtype=np.float32),
            intensities=np.array([], dtype=np.float32))
    if type_name == "sensor_msgs/msg/PointCloud2":
        PointField = T["sensor_msgs/msg/PointField"]
        width = 640 * 480
        fields = [PointField(name=n, offset=4 * i, datatype=7, count=1) for i, n in enumerate("xyz")]
        return T["sensor_msgs/msg/PointCloud2"](
            header=Header(stamp=Time(sec=12, nanosec=345), frame_id="camera"), height=1, width=width,
            fields=fields, is_bigendian=False, point_step=24, row_step=24 * width,
            data=(np.arange(24 * width) % 251).astype(np.uint8), is_dense=True)
    raise SystemExit(f"send: no sample for {type_name}")


def send(args):
    ts = typestore()
    dds_type, type_hash = type_key(ts, args.type)
    payload = bytes(ts.serialize_cdr(sample_message(ts, args.type), args.type))
    deadline = time.monotonic() + args.timeout
    peer = RosPeer(args.connect, args.domain, "py_sender", settings=args.set)
    # As rmw_zenoh: reliable KEEP_LAST publishes with congestion control DROP (zenoh's default),
    # reliable KEEP_ALL (--keep-all) with BLOCK, which never drops.
    congestion = zenoh.CongestionControl.BLOCK if args.keep_all else zenoh.CongestionControl.DROP
    publisher = peer.session.declare_publisher(peer.data_key(args.topic, dds_type, type_hash),
                                               congestion_control=congestion)
    qos = KEEP_ALL_QOS if args.keep_all else DEFAULT_QOS
    _token, gid = peer.declare_endpoint("MP", args.topic, dds_type, type_hash, qos)
    subscribers = wait_for_subscribers(peer, args.topic, deadline, dds_type, type_hash)
    if not subscribers:
        peer.close()
        return emit({"published": 0, "ok": False, "errors": [f"no MS token for {args.topic} within {args.timeout}s"]},
                    False)
    for k in range(1, args.count + 1):
        publisher.put(payload, attachment=encode_attachment(k, time.time_ns(), gid))
        if k < args.count:
            time.sleep(1.0 / args.rate)
    left = linger(peer, args.topic, subscribers, deadline, dds_type, type_hash)
    publisher.undeclare()
    peer.close()
    return emit({"published": args.count, "bytes": len(payload), "sha256": hashlib.sha256(payload).hexdigest(),
                 "subscriber_left": left, "ok": True}, True)


ADD_TWO_INTS_TYPE = "example_interfaces::srv::dds_::AddTwoInts_"
ADD_TWO_INTS_HASH = "RIHS01_e118de6bf5eeb66a2491b5bda11202e7b68f198d6f67922cf30364858239c81a"
SERVICES_QOS = "::,10:,:,:,,"  # rmw_qos_profile_services_default: reliable, volatile, keep_last 10


def encode_two_ints(a, b):
    """AddTwoInts_Request / two int64: CDR LE header, then the values (8-aligned from the body)."""
    return CDR_LE_HEADER + struct.pack("<qq", a, b)


def serve(args):
    deadline = time.monotonic() + args.timeout
    peer = RosPeer(args.connect, args.domain, "py_add_two_ints_server", settings=args.set)
    key = peer.data_key(args.topic, ADD_TWO_INTS_TYPE, ADD_TWO_INTS_HASH)
    inbox = queue.Queue()
    queryable = peer.session.declare_queryable(key, inbox.put, complete=True)
    peer.declare_endpoint("SS", args.topic, ADD_TWO_INTS_TYPE, ADD_TWO_INTS_HASH)
    ss_token = peer.tokens[-1]
    served, errors, clients, held = [], [], set(), []
    while len(served) < args.count:
        try:
            query = inbox.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            errors.append(f"timed out after {args.timeout}s with {len(served)}/{args.count} requests")
            break
        try:
            seq, _stamp, gid = decode_attachment(query.attachment.to_bytes() if query.attachment else None)
            payload = query.payload.to_bytes() if query.payload is not None else b""
            if payload[:4] != CDR_LE_HEADER or len(payload) < 20:
                raise ValueError(f"not an AddTwoInts request: {payload.hex()}")
            a, b = struct.unpack_from("<qq", payload, 4)
        except Exception as e:  # noqa: BLE001  report, do not crash
            errors.append(f"{type(e).__name__}: {e}")
            query.drop()
            continue
        if args.silent:  # a server that hangs: keeps the query open, never answers
            held.append(query)
            served.append({"a": a, "b": b, "sequence_number": seq, "client_gid": gid.hex()})
            print(json.dumps({"holding": len(held)}), flush=True)
            continue
        if args.withdraw_first is not None and len(served) + 1 == args.count:
            # A server shutting down mid-call: its token is gone before its last reply leaves.
            peer.tokens.remove(ss_token)
            ss_token.undeclare()
            time.sleep(args.withdraw_first)
        query.reply(key, CDR_LE_HEADER + struct.pack("<q", a + b),
                    attachment=encode_attachment(seq, time.time_ns(), gid))
        query.drop()  # ends the query now, not when Python collects it
        clients.add(gid.hex())
        served.append({"a": a, "b": b, "sequence_number": seq, "client_gid": gid.hex()})
    # Leaving at once would race the last reply against the SS token's withdrawal (they may take
    # different links, and a client that sees the server gone first ends its call with an error):
    # stay until the clients' SC tokens are gone, at most a few seconds.
    linger_until = min(deadline, time.monotonic() + 5.0)
    while (not args.silent and time.monotonic() < linger_until
           and peer.endpoints(peer.query_tokens(timeout=1.0), "SC", args.topic, ADD_TWO_INTS_TYPE,
                              ADD_TWO_INTS_HASH)):
        time.sleep(0.05)
    queryable.undeclare()
    peer.close()
    return emit({"served": len(served), "requests": served, "clients": sorted(clients), "ok": not errors,
                 "errors": errors}, not errors)


def call(args):
    deadline = time.monotonic() + args.timeout
    peer = RosPeer(args.connect, args.domain, "py_add_two_ints_client", settings=args.set)
    key = peer.data_key(args.topic, ADD_TWO_INTS_TYPE, ADD_TWO_INTS_HASH)
    _token, gid = peer.declare_endpoint("SC", args.topic, ADD_TWO_INTS_TYPE, ADD_TWO_INTS_HASH)
    # rmw_zenoh's service_server_is_available: an SS token with the same name and type.
    while not peer.endpoints(peer.query_tokens(timeout=1.0), "SS", args.topic, ADD_TWO_INTS_TYPE,
                             ADD_TWO_INTS_HASH):
        if time.monotonic() > deadline:
            peer.close()
            return emit({"called": 0, "ok": False, "errors": [f"no SS token for {args.topic}"]}, False)
        time.sleep(0.1)
    results, errors = [], []
    for seq in range(1, args.count + 1):
        a, b = seq, 1000 * seq
        replies = peer.session.get(key, payload=encode_two_ints(a, b),
                                   attachment=encode_attachment(seq, time.time_ns(), gid),
                                   target=zenoh.QueryTarget.ALL_COMPLETE,
                                   consolidation=zenoh.ConsolidationMode.NONE,
                                   timeout=max(0.1, deadline - time.monotonic()))
        answers = [r.ok for r in replies if r.ok is not None]
        if len(answers) != 1:
            errors.append(f"call {seq}: {len(answers)} replies")
            continue
        reply = answers[0]
        try:
            r_seq, _stamp, r_gid = decode_attachment(reply.attachment.to_bytes() if reply.attachment else None)
            body = reply.payload.to_bytes()
            (total,) = struct.unpack_from("<q", body, 4)
        except Exception as e:  # noqa: BLE001
            errors.append(f"call {seq}: {type(e).__name__}: {e}")
            continue
        if (r_seq, r_gid, total, body[:4]) != (seq, gid, a + b, CDR_LE_HEADER):
            errors.append(f"call {seq}: reply seq {r_seq} gid {r_gid.hex()} sum {total} header {body[:4].hex()}")
        results.append({"a": a, "b": b, "sum": total, "sequence_number": r_seq, "reply_key": str(reply.key_expr)})
    peer.close()
    return emit({"called": len(results), "results": results, "client_gid": gid.hex(), "ok": not errors,
                 "errors": errors}, not errors)


GET_TYPE_DESCRIPTION_TYPE = "type_description_interfaces::srv::dds_::GetTypeDescription_"
GET_TYPE_DESCRIPTION_HASH = "RIHS01_69b9c19c1021405984cc60dbbb1edceb147a6538b411d812ba6afabeed962cd5"
# The halves of type_description_interfaces/srv/GetTypeDescription.srv (rosbags has no srv types).
GET_TYPE_DESCRIPTION_REQUEST = "string type_name\nstring type_hash\nbool include_type_sources true\n"
GET_TYPE_DESCRIPTION_RESPONSE = (
    "bool successful\nstring failure_reason\n"
    "type_description_interfaces/TypeDescription type_description\n"
    "type_description_interfaces/TypeSource[] type_sources\n"
    "type_description_interfaces/KeyValue[] extra_information\n"
)


def describe(args):
    from rosbags.typesys import get_types_from_msg
    ts = typestore()
    request_type = "type_description_interfaces/msg/PyGetTypeDescriptionRequest"
    response_type = "type_description_interfaces/msg/PyGetTypeDescriptionResponse"
    ts.register(get_types_from_msg(GET_TYPE_DESCRIPTION_REQUEST, request_type))
    ts.register(get_types_from_msg(GET_TYPE_DESCRIPTION_RESPONSE, response_type))
    _dds, type_hash = type_key(ts, args.type)
    deadline = time.monotonic() + args.timeout
    peer = RosPeer(args.connect, args.domain, "py_type_description_client", settings=args.set)
    key = peer.data_key(args.topic, GET_TYPE_DESCRIPTION_TYPE, GET_TYPE_DESCRIPTION_HASH)
    _token, gid = peer.declare_endpoint("SC", args.topic, GET_TYPE_DESCRIPTION_TYPE, GET_TYPE_DESCRIPTION_HASH)
    while not peer.endpoints(peer.query_tokens(timeout=1.0), "SS", args.topic, GET_TYPE_DESCRIPTION_TYPE,
                             GET_TYPE_DESCRIPTION_HASH):
        if time.monotonic() > deadline:
            peer.close()
            return emit({"ok": False, "errors": [f"no SS token for {args.topic}"]}, False)
        time.sleep(0.1)
    request = ts.types[request_type](type_name=args.type, type_hash=type_hash, include_type_sources=True)
    replies = peer.session.get(key, payload=bytes(ts.serialize_cdr(request, request_type)),
                               attachment=encode_attachment(1, time.time_ns(), gid),
                               target=zenoh.QueryTarget.ALL_COMPLETE,
                               consolidation=zenoh.ConsolidationMode.NONE,
                               timeout=max(0.1, deadline - time.monotonic()))
    answers = [r.ok for r in replies if r.ok is not None]
    if len(answers) != 1:
        peer.close()
        return emit({"ok": False, "errors": [f"{len(answers)} replies"]}, False)
    r_seq, _stamp, r_gid = decode_attachment(answers[0].attachment.to_bytes() if answers[0].attachment else None)
    response = ts.deserialize_cdr(bytes(answers[0].payload.to_bytes()), response_type)
    peer.close()
    errors = [] if (r_seq, r_gid) == (1, gid) else [f"reply attachment seq {r_seq} gid {r_gid.hex()}"]
    return emit({"requested_hash": type_hash, "response": to_plain(response), "ok": not errors,
                 "errors": errors}, not errors)
# rcl_interfaces' service types (Jazzy): rosbags' store has their messages but not the request
# and response types, which are registered here from their definitions (rcl_interfaces/srv/*.srv).
# The hashes are the services' RIHS01, as `ros2 service info` and rmw_zenoh's keys show them.
PARAM_SERVICES = {
    "ListParameters": (
        "RIHS01_3e6062bfbb27bfb8730d4cef2558221f51a11646d78e7bb30a1e83afac3aad9d",
        "string[] prefixes\nuint64 depth\n",
        "rcl_interfaces/msg/ListParametersResult result\n",
    ),
    "GetParameters": (
        "RIHS01_bf9803d5c74cf989a5de3e0c2e99444599a627c7ff75f97b8c05b01003675cbc",
        "string[] names\n",
        "rcl_interfaces/msg/ParameterValue[] values\n",
    ),
}


def param_value(value):
    """rcl_interfaces/msg/ParameterValue as plain data, by its type field (ParameterType.msg)."""
    field = {1: "bool_value", 2: "integer_value", 3: "double_value", 4: "string_value", 5: "byte_array_value",
             6: "bool_array_value", 7: "integer_array_value", 8: "double_array_value",
             9: "string_array_value"}.get(value.type)
    return None if field is None else to_plain(getattr(value, field))


def params(args):
    from rosbags.typesys import get_types_from_msg
    ts = typestore()
    registered = {}  # rosbags files them under its own normalised name, e.g. pkg/srv/msg/X
    for name, (_hash, request, response) in PARAM_SERVICES.items():
        for part, text in (("Request", request), ("Response", response)):
            types = get_types_from_msg(text, f"rcl_interfaces/srv/{name}_{part}")
            ts.register(types)
            registered[f"{name}_{part}"] = next(iter(types))
    deadline = time.monotonic() + args.timeout
    peer = RosPeer(args.connect, args.domain, "py_param_client", settings=args.set)
    node = "/" + args.node.strip("/")
    errors, seq = [], 0

    def call_service(name, request):
        nonlocal seq
        type_hash, _, _ = PARAM_SERVICES[name]
        dds_type = f"rcl_interfaces::srv::dds_::{name}_"
        service = f"{node}/{''.join('_' + c.lower() if c.isupper() else c for c in name).lstrip('_')}"
        key = peer.data_key(service, dds_type, type_hash)
        _token, gid = peer.declare_endpoint("SC", service, dds_type, type_hash)
        while not peer.endpoints(peer.query_tokens(timeout=1.0), "SS", service, dds_type, type_hash):
            if time.monotonic() > deadline:
                raise TimeoutError(f"no SS token for {service}")
            time.sleep(0.1)
        seq += 1
        payload = bytes(ts.serialize_cdr(request, registered[f"{name}_Request"]))
        replies = peer.session.get(key, payload=payload, attachment=encode_attachment(seq, time.time_ns(), gid),
                                   target=zenoh.QueryTarget.ALL_COMPLETE,
                                   consolidation=zenoh.ConsolidationMode.NONE,
                                   timeout=max(0.1, deadline - time.monotonic()))
        answers = [r.ok for r in replies if r.ok is not None]
        if len(answers) != 1:
            raise ValueError(f"{service}: {len(answers)} replies")
        r_seq, _stamp, r_gid = decode_attachment(answers[0].attachment.to_bytes() if answers[0].attachment else None)
        if (r_seq, r_gid) != (seq, gid):
            raise ValueError(f"{service}: reply attachment seq {r_seq} gid {r_gid.hex()}, sent {seq} {gid.hex()}")
        return ts.deserialize_cdr(answers[0].payload.to_bytes(), registered[f"{name}_Response"])

    values = {}
    try:
        types = ts.types
        listed = call_service("ListParameters", types[registered["ListParameters_Request"]](prefixes=[], depth=0))
        names = list(listed.result.names)
        got = call_service("GetParameters", types[registered["GetParameters_Request"]](names=names))
        if len(got.values) != len(names):
            errors.append(f"{len(names)} names listed, {len(got.values)} values returned")
        values = {n: param_value(v) for n, v in zip(names, got.values)}
    except Exception as e:  # noqa: BLE001  report, do not crash
        errors.append(f"{type(e).__name__}: {e}")
    peer.close()
    return emit({"node": node, "parameters": values, "ok": not errors, "errors": errors}, not errors)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    modes = parser.add_subparsers(dest="mode", required=True)
    for name, func in (("listen", listen), ("talk", talk), ("garbage", garbage), ("receive", receive),
                       ("send", send), ("serve", serve), ("call", call), ("describe", describe),
                       ("params", params)):
        p = modes.add_parser(name)
        p.set_defaults(func=func)
        p.add_argument("--connect", required=True, help="router endpoint, e.g. tcp/127.0.0.1:7447")
        p.add_argument("--count", type=int, required=name not in ("describe", "params"), default=1,
                       help="number of messages (or requests)")
        p.add_argument("--topic", default="/chatter")
        p.add_argument("--domain", type=int, default=0)
        p.add_argument("--timeout", type=float, default=30.0, help="seconds before giving up")
        p.add_argument("--set", action="append", default=[], metavar="KEY=JSON5",
                       help="a config setting, e.g. transport/auth/usrpwd/user=\"alice\" (repeatable)")
        if name == "serve":
            p.add_argument("--silent", action="store_true", help="hold every request, never answer")
            p.add_argument("--withdraw-first", type=float, metavar="SECONDS",
                           help="before the last reply, withdraw the SS token and wait SECONDS")
        if name == "params":
            p.add_argument("--node", required=True, help="the node's full name, e.g. /sim_camera")
        if name in ("receive", "send", "describe"):
            p.add_argument("--type", required=True, help="pkg/msg/Type, e.g. geometry_msgs/msg/Twist")
        if name == "send":
            p.add_argument("--keep-all", action="store_true",
                           help="reliable KEEP_ALL: block when the link is congested instead of dropping")
        if name == "listen":
            p.add_argument("--joins-late", action="store_true",
                           help="the talker is already running: sequence numbers start where we join")
        elif name not in ("receive", "serve", "call", "describe", "params"):
            p.add_argument("--rate", type=float, default=10.0, help="messages per second")
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
