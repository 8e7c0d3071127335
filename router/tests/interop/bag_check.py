#!/usr/bin/env python3
"""Reads and writes rosbag2 bags with the independent `rosbags` package, for zshm's bag tests.

rosbags (Ternaris, pure Python, PyPI) implements rosbag2's metadata.yaml and its MCAP storage
plugin on its own, so a bag zshm writes that rosbags reads (and the reverse) is compatible
with more than zshm's own reader.

Modes (each prints ONE JSON object on stdout):
  read DIR            every connection (topic, type, definition, hash, QoS) and every message
                      (topic, log time, length, hex bytes up to 64 KiB else their sha256), in
                      the order the reader yields them;
  write DIR --count N a bag of N std_msgs/msg/String "Hello from rosbags: k" on /chatter,
                      10 ms apart, reliable/volatile/keep_last 10, with rosbags' writer.
"""

import argparse
import hashlib
import json
import struct
import sys
from pathlib import Path

from rosbags.interfaces import (
    Qos,
    QosDurability,
    QosHistory,
    QosLiveliness,
    QosReliability,
    QosTime,
)
from rosbags.rosbag2 import Reader, Writer, StoragePlugin
from rosbags.typesys import Stores, get_typestore

INLINE_LIMIT = 64 * 1024


def qos_dict(q):
    return {
        "history": q.history.name.lower(),
        "depth": q.depth,
        "reliability": q.reliability.name.lower(),
        "durability": q.durability.name.lower(),
    }


def read(args):
    out = {"connections": [], "messages": []}
    with Reader(Path(args.dir)) as reader:
        out["message_count"] = reader.message_count
        out["compression_mode"] = reader.compression_mode
        for c in reader.connections:
            out["connections"].append({
                "topic": c.topic,
                "msgtype": c.msgtype,
                "msgdef": c.msgdef.data,
                "msgdef_format": c.msgdef.format.name,
                "digest": c.digest,
                "msgcount": c.msgcount,
                "serialization_format": c.ext.serialization_format,
                "qos": [qos_dict(q) for q in c.ext.offered_qos_profiles],
            })
        for c, timestamp, data in reader.messages():
            data = bytes(data)
            entry = {"topic": c.topic, "timestamp": timestamp, "len": len(data)}
            if len(data) <= INLINE_LIMIT:
                entry["hex"] = data.hex()
            else:
                entry["sha256"] = hashlib.sha256(data).hexdigest()
            out["messages"].append(entry)
    print(json.dumps(out))


def encode_string(text):
    raw = text.encode() + b"\x00"
    return b"\x00\x01\x00\x00" + struct.pack("<I", len(raw)) + raw


def write(args):
    typestore = get_typestore(Stores.ROS2_JAZZY)
    infinite = QosTime(9223372036, 854775807)
    qos = Qos(QosHistory.KEEP_LAST, 10, QosReliability.RELIABLE, QosDurability.VOLATILE,
              infinite, infinite, QosLiveliness.AUTOMATIC, infinite, False)
    start = 1_700_000_000_000_000_000
    with Writer(Path(args.dir), version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        conn = writer.add_connection("/chatter", "std_msgs/msg/String", typestore=typestore,
                                     offered_qos_profiles=[qos])
        for k in range(1, args.count + 1):
            writer.write(conn, start + k * 10_000_000, encode_string(f"Hello from rosbags: {k}"))
    print(json.dumps({"written": args.count}))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    modes = parser.add_subparsers(dest="mode", required=True)
    r = modes.add_parser("read")
    r.add_argument("dir")
    w = modes.add_parser("write")
    w.add_argument("dir")
    w.add_argument("--count", type=int, required=True)
    args = parser.parse_args(argv)
    {"read": read, "write": write}[args.mode](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
