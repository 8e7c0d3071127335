"""Generate byte-exact CDR golden fixtures for ROS 2 messages with rosbags.

An implementation independent of zshm (the PyPI package ``rosbags`` 0.11.9,
Jazzy type store) serializes a fixed set of messages to CDR (with the 4-byte
encapsulation header ``00 01 00 00``, little endian) and computes their RIHS01
type hashes. Output, in ``session-lib/tests/data/cdr/``:

* ``<name>.cdr``        the exact serialized bytes of each fixture;
* ``fixtures.json``     name, type, file, len and the message as plain JSON;
  ``uint8[] data`` fields are described, not inlined, as
  ``{"data_formula": "byte i = (i * 31 + 7) % 251", "data_len": N}``
  (or ``{"data_hex": ...}`` for tiny payloads);
* ``type_hashes.json``  type, DDS type name and RIHS01 hash of each type.

Deterministic and idempotent. Run from the repository root:

    python3 -m venv .venv && .venv/bin/pip install -r tools/requirements.txt \
        && .venv/bin/python tools/gen_cdr_fixtures.py
"""

import json
import struct
from pathlib import Path

import numpy as np
from rosbags.typesys import Stores, get_typestore
from rosbags.typesys.base import Nodetype

OUT = Path(__file__).resolve().parent.parent / 'session-lib/tests/data/cdr'
FORMULA = 'byte i = (i * 31 + 7) % 251'
TIME, HEADER, STRING = 'builtin_interfaces/msg/Time', 'std_msgs/msg/Header', 'std_msgs/msg/String'
FIELD, PC2, IMAGE = 'sensor_msgs/msg/PointField', 'sensor_msgs/msg/PointCloud2', 'sensor_msgs/msg/Image'
FLOAT32 = 7  # sensor_msgs/msg/PointField.FLOAT32

ts = get_typestore(Stores.ROS2_JAZZY)


def formula(n):
    return {'data_formula': FORMULA, 'data_len': n}


def stamp(sec, nanosec):
    return {'sec': sec, 'nanosec': nanosec}


def header(sec, nanosec, frame_id):
    return {'stamp': stamp(sec, nanosec), 'frame_id': frame_id}


def field(name, offset):
    return {'name': name, 'offset': offset, 'datatype': FLOAT32, 'count': 1}


def pc2(hdr, height, width, fields, point_step, data, is_dense):
    return {'header': hdr, 'height': height, 'width': width, 'fields': fields,
            'is_bigendian': False, 'point_step': point_step,
            'row_step': width * point_step, 'data': data, 'is_dense': is_dense}


def image(hdr, height, width, encoding, step):
    return {'header': hdr, 'height': height, 'width': width, 'encoding': encoding,
            'is_bigendian': 0, 'step': step, 'data': formula(height * step)}


XYZ = [field('x', 0), field('y', 4), field('z', 8)]
ONE_POINT = struct.pack('<3f', 1.0, 2.0, 3.0).hex()

FIXTURES = [
    ('time', TIME, stamp(1700000000, 123456789)),
    ('time_negative', TIME, stamp(-1, 999999999)),
    ('header_map', HEADER, header(1700000000, 123456789, 'map')),
    ('header_empty_frame', HEADER, header(1700000000, 123456789, '')),
    ('header_long_frame', HEADER, header(1700000000, 123456789, 'camera_depth_optical_frame')),
    ('string_hello', STRING, {'data': 'hello'}),
    ('string_empty', STRING, {'data': ''}),
    ('string_utf8', STRING, {'data': 'héllo wörld ✓'}),
    ('pointfield_x', FIELD, field('x', 0)),
    ('pointfield_rgb', FIELD, field('rgb', 16)),
    ('pointcloud2_empty', PC2, pc2(header(0, 0, ''), 0, 0, [], 0, {'data_hex': ''}, False)),
    ('pointcloud2_one_point', PC2,
     pc2(header(1700000000, 123456789, 'map'), 1, 1, XYZ, 12, {'data_hex': ONE_POINT}, True)),
    ('pointcloud2_large', PC2,
     pc2(header(1700000123, 456, 'camera_depth_optical_frame'), 120, 160,
         XYZ + [field('rgb', 16)], 24, formula(120 * 160 * 24), True)),
    ('image_small', IMAGE, image(header(1700000000, 5, 'camera'), 4, 6, 'rgb8', 18)),
    ('image_large', IMAGE, image(header(1700000000, 5, 'camera'), 120, 160, 'bgra8', 640)),
]

# Independent expectations (hand-checked), asserted below.
EXPECTED = {
    'pointcloud2_empty': 49,
    'header_map': '00010000' '00f15365' '15cd5b07' '04000000' '6d617000',
    'pointcloud2_one_point':
        '0001000000f1536515cd5b07040000006d61700001000000010000000300000002000000'
        '780000000000000007000000010000000200000079000000040000000700000001000000'
        '020000007a000000080000000700000001000000000000000c0000000c0000000c000000'
        '0000803f000000400000404001',
}


def byte_array(spec):
    """Rebuild a uint8[] payload from its JSON description."""
    if 'data_hex' in spec:
        return np.frombuffer(bytes.fromhex(spec['data_hex']), dtype=np.uint8)
    assert spec['data_formula'] == FORMULA
    return ((np.arange(spec['data_len'], dtype=np.int64) * 31 + 7) % 251).astype(np.uint8)


def build(typename, value):
    """Turn a plain-JSON message description into a rosbags message object."""
    kwargs = {}
    for name, (kind, desc) in ts.fielddefs[typename][1]:
        v = value[name]
        if kind == Nodetype.NAME:
            v = build(desc, v)
        elif kind == Nodetype.SEQUENCE and desc[0][0] == Nodetype.NAME:
            v = [build(desc[0][1], item) for item in v]
        elif kind == Nodetype.SEQUENCE and desc[0][1][0] == 'uint8':
            v = byte_array(v)
        kwargs[name] = v
    return ts.types[typename](**kwargs)


def dump_json(path, obj):
    path.write_text(json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + '\n',
                    encoding='utf-8')


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    index = []
    for name, typename, message in FIXTURES:
        data = bytes(ts.serialize_cdr(build(typename, message), typename))
        assert data[:4] == b'\x00\x01\x00\x00', name
        want = EXPECTED.get(name)
        assert want is None or want == (len(data) if isinstance(want, int) else data.hex()), name
        (OUT / f'{name}.cdr').write_bytes(data)
        index.append({'name': name, 'type': typename, 'file': f'{name}.cdr',
                      'len': len(data), 'message': message})
        print(f'{name:24} {typename:30} {len(data):7} bytes')
    dump_json(OUT / 'fixtures.json', index)

    hashes = []
    for typename in (TIME, HEADER, STRING, FIELD, PC2, IMAGE):
        pkg, _, msg = typename.split('/')
        hashes.append({'type': typename, 'dds_type_name': f'{pkg}::msg::dds_::{msg}_',
                       'rihs01': ts.hash_rihs01(typename)})
        print(f'{typename:30} {hashes[-1]["rihs01"]}')
    dump_json(OUT / 'type_hashes.json', hashes)


if __name__ == '__main__':
    main()
