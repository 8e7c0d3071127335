#!/usr/bin/env python3
"""Independent CDR / RIHS01 oracle for zshm's generated message code, backed by rosbags.

Protocol: JSON lines. One request object per stdin line, one reply object per stdout line
(flushed after each). Any failure is answered with {"error": "..."}; the process never exits
on bad input, only at EOF.

Ops:
  {"op":"types"}                                  -> {"types":[...]}  message types of rosbags' Jazzy store
  {"op":"register","type":"pkg/srv/X_Request","msg":"<.msg text>"}
                                                  -> {"ok":true}  registers the text under exactly that name;
                                                     bare names resolve to pkg/msg/..., full names
                                                     (pkg/msg/Y, pkg/srv/Y, pkg/action/Y) must be known
  {"op":"hash","type":T}                          -> {"hash":"RIHS01_..."}; for a type that (transitively)
                                                     contains `char` the reply also has "unreliable": rosbags
                                                     hashes char with type id 13 where Jazzy uses 3
  {"op":"roundtrip","type":T,"cdr":"<hex>"}       -> {"cdr":"<hex>","value":V}  deserialize, reserialize
  {"op":"random","type":T,"seed":N,"max_seq":K}   -> {"cdr":"<hex>","value":V}  a random value of T

Canonical value V: a struct is an object with its fields in declaration order (rosbags' names, so an
empty struct shows rosidl's `structure_needs_at_least_one_member`), ints as ints, bools as bools,
floats as Python-repr numbers ("nan", "inf", "-inf" as strings), strings as strings, every array or
sequence (uint8/byte ones too) as a list. `byte` is written unsigned (0..255), as ROS 2 defines octet;
rosbags itself holds byte as int8. `char` is uint8 (0..255).

Limits of rosbags 0.11.x: no wstring (register fails), and the char hash bug above.

Run `python3 rosbags_oracle.py --self-test` for a self-check (exit status 0 when all pass).
"""

from __future__ import annotations

import json
import math
import re
import random
import struct
import subprocess
import sys

import numpy as np
from rosbags.typesys import Stores, get_types_from_msg, get_typestore
from rosbags.typesys.base import Nodetype

TS = get_typestore(Stores.ROS2_JAZZY)
SRV_MANGLED = re.compile(r'^([^/]+)/srv/msg/(.+)$')
STORE_TYPES = sorted(TS.fielddefs)

INT_RANGES = {
    'int8': (-(2**7), 2**7 - 1),
    'uint8': (0, 2**8 - 1),
    'byte': (0, 2**8 - 1),
    'char': (0, 2**8 - 1),
    'int16': (-(2**15), 2**15 - 1),
    'uint16': (0, 2**16 - 1),
    'int32': (-(2**31), 2**31 - 1),
    'uint32': (0, 2**32 - 1),
    'int64': (-(2**63), 2**63 - 1),
    'uint64': (0, 2**64 - 1),
}
DTYPES = {
    'bool': np.bool_,
    'byte': np.int8,  # rosbags' representation of octet
    'char': np.uint8,
    'int8': np.int8,
    'uint8': np.uint8,
    'int16': np.int16,
    'uint16': np.uint16,
    'int32': np.int32,
    'uint32': np.uint32,
    'int64': np.int64,
    'uint64': np.uint64,
    'float32': np.float32,
    'float64': np.float64,
}
TEXT_PIECES = ['a', 'Z', '0', ' ', '_', '/', 'ä', 'ö', 'ü', '→', '日', '本', 'é', 'ß', '😀', '\t', '\n', '"', '\\']
PLACEHOLDER = 'structure_needs_at_least_one_member'
ASCII = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-/.'


class OracleError(Exception):
    pass


def fields_of(name):
    if name not in TS.fielddefs:
        raise OracleError(f'unknown type {name!r}')
    return TS.fielddefs[name][1]


def char_closure(name, seen=None):
    """True if the type contains a char field anywhere."""
    seen = set() if seen is None else seen
    if name in seen:
        return False
    seen.add(name)

    def walk(t):
        kind = t[0]
        if kind == Nodetype.BASE:
            return t[1][0] == 'char'
        if kind == Nodetype.NAME:
            return char_closure(t[1], seen)
        return walk(t[1][0])

    return any(walk(t) for _, t in fields_of(name))


# ---------------------------------------------------------------- canonical JSON


def canon_float(x):
    x = float(x)
    if math.isnan(x):
        return 'nan'
    if math.isinf(x):
        return 'inf' if x > 0 else '-inf'
    return x


def canon_base(base, v):
    if base == 'bool':
        return bool(v)
    if base in ('float32', 'float64'):
        return canon_float(v)
    if base == 'string':
        return str(v)
    if base == 'byte':
        return int(v) & 0xFF
    return int(v)


def canon(t, v):
    kind = t[0]
    if kind == Nodetype.BASE:
        return canon_base(t[1][0], v)
    if kind == Nodetype.NAME:
        return canon_struct(t[1], v)
    inner = t[1][0]
    return [canon(inner, e) for e in v]


def canon_struct(name, obj):
    return {fname: canon(t, getattr(obj, fname)) for fname, t in fields_of(name)}


# ---------------------------------------------------------------- random values


def rand_int(rng, base):
    lo, hi = INT_RANGES[base]
    r = rng.random()
    if r < 0.15:
        return lo
    if r < 0.30:
        return hi
    if r < 0.40:
        return 0
    if r < 0.55:
        return max(lo, min(hi, rng.randint(-3, 3)))
    return rng.randint(lo, hi)


F64_SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, 1e300, -1e300, 5e-324, -5e-324, 2.2250738585072014e-308,
               1.7976931348623157e308, -1.7976931348623157e308, 3.141592653589793, 1e-300, 123456789.125]
F32_SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, 3.4028234663852886e38, -3.4028234663852886e38, 1.401298464324817e-45,
               1.1754943508222875e-38, 1e30, -1e-30, 3.1415927410125732]


def rand_float(rng, base):
    r = rng.random()
    special = F32_SPECIAL if base == 'float32' else F64_SPECIAL
    if r < 0.4:
        x = rng.choice(special)
    elif r < 0.6:
        x = rng.uniform(-1000.0, 1000.0)
    else:
        x = None
    if x is not None:
        return float(np.float32(x)) if base == 'float32' else x
    while True:  # a random finite bit pattern
        if base == 'float32':
            x = struct.unpack('<f', struct.pack('<I', rng.getrandbits(32)))[0]
        else:
            x = struct.unpack('<d', struct.pack('<Q', rng.getrandbits(64)))[0]
        if math.isfinite(x):
            return x


def rand_string(rng, bound):
    if bound:  # bounds count bytes: keep bounded strings ASCII
        r = rng.random()
        n = 0 if r < 0.2 else bound if r < 0.4 else rng.randint(0, bound)
        return ''.join(rng.choice(ASCII) for _ in range(n))
    r = rng.random()
    if r < 0.2:
        return ''
    if r < 0.35:
        return 'äöü→日本'
    return ''.join(rng.choice(TEXT_PIECES) for _ in range(rng.randint(1, 24)))


def rand_base(rng, base, bound):
    """Returns the canonical value of a random primitive."""
    if base == 'bool':
        return rng.random() < 0.5
    if base in INT_RANGES:
        return rand_int(rng, base)
    if base in ('float32', 'float64'):
        return rand_float(rng, base)
    if base == 'string':
        return rand_string(rng, bound)
    raise OracleError(f'unsupported primitive {base!r}')


def seq_len(rng, bound, max_seq):
    cap = bound if bound else max_seq
    r = rng.random()
    if r < 0.2:
        return 0
    if r < 0.4:
        return cap
    return rng.randint(0, cap)


def to_rosbags_base(base, v):
    if base == 'byte':
        return v - 256 if v > 127 else v
    return v


def rand_value(rng, t, max_seq):
    """Returns (rosbags object, canonical value)."""
    kind = t[0]
    if kind == Nodetype.BASE:
        base, bound = t[1]
        v = rand_base(rng, base, bound)
        return to_rosbags_base(base, v), v
    if kind == Nodetype.NAME:
        return rand_struct(rng, t[1], max_seq)
    inner, n = t[1]
    length = n if kind == Nodetype.ARRAY else seq_len(rng, n, max_seq)
    pairs = [rand_value(rng, inner, max_seq) for _ in range(length)]
    objs = [p[0] for p in pairs]
    vals = [p[1] for p in pairs]
    if inner[0] == Nodetype.BASE and inner[1][0] in DTYPES:
        objs = np.array(objs, dtype=DTYPES[inner[1][0]])
    return objs, vals


def rand_struct(rng, name, max_seq):
    cls = TS.types[name]
    kwargs, value = {}, {}
    fdefs = fields_of(name)
    for fname, t in fdefs:
        if fname == PLACEHOLDER and len(fdefs) == 1:
            kwargs[fname] = value[fname] = 0  # rosidl always writes 0 there
            continue
        kwargs[fname], value[fname] = rand_value(rng, t, max_seq)
    return cls(**kwargs), value


# ---------------------------------------------------------------- ops


def referenced(t, out):
    kind = t[0]
    if kind == Nodetype.NAME:
        out.add(t[1])
    elif kind in (Nodetype.ARRAY, Nodetype.SEQUENCE):
        referenced(t[1][0], out)


def unmangle(t):
    """rosbags' msg parser turns a reference `pkg/srv/X` into `pkg/srv/msg/X`; undo that."""
    kind = t[0]
    if kind == Nodetype.NAME:
        return (kind, SRV_MANGLED.sub(r'\1/srv/\2', t[1]))
    if kind in (Nodetype.ARRAY, Nodetype.SEQUENCE):
        return (kind, (unmangle(t[1][0]), t[1][1]))
    return t


def op_register(req):
    full, text = req.get('type'), req.get('msg')
    if not isinstance(full, str) or not isinstance(text, str):
        raise OracleError('register needs "type" and "msg" strings')
    parts = full.split('/')
    if len(parts) != 3 or parts[1] not in ('msg', 'srv', 'action') or not all(parts):
        raise OracleError(f'type must be pkg/(msg|srv|action)/Name, got {full!r}')
    pkg, _, short = parts
    parsed = get_types_from_msg(text, f'{pkg}/msg/{short}')
    typs = {full if k == f'{pkg}/msg/{short}' else k: (c, [(fn, unmangle(t)) for fn, t in f]
                                                        or [(PLACEHOLDER, (Nodetype.BASE, ('uint8', 0)))])
            for k, (c, f) in parsed.items()}
    for name, (_, fdefs) in typs.items():
        refs = set()
        for _, t in fdefs:
            referenced(t, refs)
        for r in refs:
            if r not in TS.fielddefs and r not in typs:
                hint = ' (rosbags has no wstring)' if r.endswith('/wstring') else ''
                raise OracleError(f'{name} references unknown type {r!r}{hint}')
    if full in TS.fielddefs and TS.fielddefs[full] != typs[full]:
        raise OracleError(f'{full} is already registered with a different definition')
    TS.register(typs)
    return {'ok': True}


def op_hash(req):
    name = req.get('type')
    fields_of(name)
    out = {'hash': TS.hash_rihs01(name)}
    if char_closure(name):
        out['unreliable'] = 'type contains char: rosbags hashes char as type id 13, Jazzy uses 3'
    return out


def op_roundtrip(req):
    name, hexdata = req.get('type'), req.get('cdr')
    fields_of(name)
    if not isinstance(hexdata, str):
        raise OracleError('roundtrip needs "cdr" as a hex string')
    try:
        data = bytes.fromhex(hexdata)
    except ValueError as exc:
        raise OracleError(f'bad hex: {exc}') from None
    obj = TS.deserialize_cdr(data, name)
    return {'cdr': bytes(TS.serialize_cdr(obj, name)).hex(), 'value': canon_struct(name, obj)}


def op_random(req):
    name = req.get('type')
    seed, max_seq = req.get('seed', 0), req.get('max_seq', 4)
    fields_of(name)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise OracleError('"seed" must be an integer')
    if not isinstance(max_seq, int) or isinstance(max_seq, bool) or max_seq < 0:
        raise OracleError('"max_seq" must be a non-negative integer')
    rng = random.Random(seed)
    obj, _ = rand_struct(rng, name, max_seq)
    return {'cdr': bytes(TS.serialize_cdr(obj, name)).hex(), 'value': canon_struct(name, obj)}


OPS = {
    'types': lambda req: {'types': STORE_TYPES},
    'register': op_register,
    'hash': op_hash,
    'roundtrip': op_roundtrip,
    'random': op_random,
}


def handle(req):
    try:
        if not isinstance(req, dict):
            raise OracleError('request must be a JSON object')
        op = req.get('op')
        if op not in OPS:
            raise OracleError(f'unknown op {op!r}')
        return OPS[op](req)
    except Exception as exc:  # noqa: BLE001  never crash on bad input
        return {'error': f'{type(exc).__name__}: {exc}'}


def handle_line(line):
    try:
        req = json.loads(line)
    except ValueError as exc:
        return {'error': f'bad JSON: {exc}'}
    return handle(req)


def dump(obj):
    try:
        return json.dumps(obj, ensure_ascii=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        return json.dumps({'error': f'could not encode reply: {exc}'})


def serve():
    sys.stdin.reconfigure(encoding='utf-8', errors='replace')
    for line in sys.stdin:
        if not line.strip():
            continue
        sys.stdout.write(dump(handle_line(line)) + '\n')
        sys.stdout.flush()


# ---------------------------------------------------------------- self-test


def self_test():
    failures = []

    def check(label, cond, detail=''):
        if not cond:
            failures.append(f'{label}: {detail}')
            print(f'FAIL {label} {detail}')

    def ok(req):
        rep = handle(req)
        check(f'{req.get("op")} {req.get("type")}', 'error' not in rep, rep.get('error', ''))
        return rep

    hdr = '00010000'
    types = ok({'op': 'types'})['types']
    check('types count', len(types) == 162, str(len(types)))
    check('String hash', ok({'op': 'hash', 'type': 'std_msgs/msg/String'}).get('hash') ==
          'RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18')
    check('Char flagged', 'unreliable' in ok({'op': 'hash', 'type': 'std_msgs/msg/Char'}))
    check('String not flagged', 'unreliable' not in ok({'op': 'hash', 'type': 'std_msgs/msg/String'}))

    # service halves and action types through register
    for name, text in [
        ('example_interfaces/srv/AddTwoInts_Request', 'int64 a\nint64 b\n'),
        ('example_interfaces/srv/AddTwoInts_Response', 'int64 sum\n'),
        ('example_interfaces/action/Fibonacci_Goal', 'int32 order\n'),
        ('example_interfaces/action/Fibonacci_Result', 'int32[] sequence\n'),
        ('example_interfaces/action/Fibonacci_Feedback', 'int32[] sequence\n'),
        ('example_interfaces/action/Fibonacci_SendGoal_Request',
         'unique_identifier_msgs/UUID goal_id\nexample_interfaces/action/Fibonacci_Goal goal\n'),
        ('example_interfaces/action/Fibonacci_GetResult_Response',
         'int8 status\nexample_interfaces/action/Fibonacci_Result result\n'),
        ('example_interfaces/action/Fibonacci_FeedbackMessage',
         'unique_identifier_msgs/UUID goal_id\nexample_interfaces/action/Fibonacci_Feedback feedback\n'),
        ('rcl_interfaces/srv/SetParameters_Request', 'Parameter[] parameters\n'),
        ('std_srvs/srv/Empty_Request', ''),
        ('example_interfaces/msg/UsesSrv', 'example_interfaces/srv/AddTwoInts_Request[<=1] request\n'),
    ]:
        check(f'register {name}', ok({'op': 'register', 'type': name, 'msg': text}) == {'ok': True})
    check('register empty again', handle({'op': 'register', 'type': 'std_srvs/srv/Empty_Request', 'msg': ''}) ==
          {'ok': True})
    check('register again (same text)', handle({'op': 'register', 'type': 'example_interfaces/srv/AddTwoInts_Response',
                                                'msg': 'int64 sum\n'}) == {'ok': True})
    for name, want in [
        ('example_interfaces/srv/AddTwoInts_Request', '000c5fd92d6b2e1a05949348f584d6d652adea1e92d691792011ac2273508302'),
        ('example_interfaces/srv/AddTwoInts_Response', 'de5c030d4af33cba2749310b249737b631594703f9300495f48bffb2b44dcc2f'),
        ('example_interfaces/action/Fibonacci_FeedbackMessage',
         'c1de71afd52e49a89c53d8262366884185bc0a02f78ce051c4e46b0a7fe59bb2'),
        ('rcl_interfaces/msg/ParameterEvent', '043e627780fcad87a22d225bc2a037361dba713fca6a6b9f4b869a5aa0393204'),
        ('action_msgs/msg/GoalStatusArray', '6c1684b00f177d37438febe6e709fc4e2b0d4248dca4854946f9ed8b30cda83e'),
    ]:
        got = ok({'op': 'hash', 'type': name}).get('hash')
        check(f'hash {name}', got == 'RIHS01_' + want, str(got))

    # golden payloads (research §1)
    golden = [
        ('example_interfaces/srv/AddTwoInts_Request', hdr + '02' + '00' * 7 + '03' + '00' * 7, {'a': 2, 'b': 3}, 20),
        ('example_interfaces/action/Fibonacci_SendGoal_Request', hdr + bytes(range(16)).hex() + '05000000',
         {'goal_id': {'uuid': list(range(16))}, 'goal': {'order': 5}}, 24),
        ('example_interfaces/action/Fibonacci_GetResult_Response',
         hdr + '04000000' + '06000000' + ''.join(struct.pack('<i', v).hex() for v in [0, 1, 1, 2, 3, 5]),
         {'status': 4, 'result': {'sequence': [0, 1, 1, 2, 3, 5]}}, 36),
        ('std_msgs/msg/Empty', hdr + '00', {'structure_needs_at_least_one_member': 0}, 5),
        ('std_srvs/srv/Empty_Request', hdr + '00', {'structure_needs_at_least_one_member': 0}, 5),
        ('std_msgs/msg/String', hdr + '10000000' + 'äöü→日本'.encode().hex() + '00', {'data': 'äöü→日本'}, 24),
        ('std_msgs/msg/Byte', hdr + 'c8', {'data': 200}, 5),
        ('std_msgs/msg/Char', hdr + 'c8', {'data': 200}, 5),
    ]
    for name, hexdata, value, size in golden:
        rep = ok({'op': 'roundtrip', 'type': name, 'cdr': hexdata})
        check(f'golden {name} bytes', rep.get('cdr') == hexdata, f'{rep.get("cdr")} != {hexdata}')
        check(f'golden {name} value', rep.get('value') == value, str(rep.get('value')))
        if size is not None:
            check(f'golden {name} size', len(hexdata) // 2 == size, str(len(hexdata) // 2))
    check('String golden length', len('äöü→日本'.encode()) + 1 == 0x10)

    # SetParameters_Request{[{"foo", INTEGER 5}]}: 64 bytes, i64 5 at payload offset 16
    P = TS.types
    val = P['rcl_interfaces/msg/ParameterValue'](
        type=2, bool_value=False, integer_value=5, double_value=0.0, string_value='',
        byte_array_value=np.array([], dtype=np.int8), bool_array_value=np.array([], dtype=np.bool_),
        integer_array_value=np.array([], dtype=np.int64), double_array_value=np.array([], dtype=np.float64),
        string_array_value=[])
    msg = P['rcl_interfaces/srv/SetParameters_Request'](parameters=[P['rcl_interfaces/msg/Parameter'](name='foo', value=val)])
    raw = bytes(TS.serialize_cdr(msg, 'rcl_interfaces/srv/SetParameters_Request'))
    check('SetParameters_Request size', len(raw) == 64, str(len(raw)))
    check('SetParameters_Request i64 at 16', raw[4 + 16:4 + 24] == struct.pack('<q', 5), raw.hex())
    rep = ok({'op': 'roundtrip', 'type': 'rcl_interfaces/srv/SetParameters_Request', 'cdr': raw.hex()})
    check('SetParameters_Request roundtrip', rep.get('cdr') == raw.hex())
    check('SetParameters_Request value', rep.get('value', {}).get('parameters', [{}])[0].get('value', {}).get(
        'integer_value') == 5)

    # float canonical form
    rep = ok({'op': 'roundtrip', 'type': 'std_msgs/msg/Float64', 'cdr': hdr + struct.pack('<d', -0.0).hex()})
    check('float64 -0.0', json.dumps(rep.get('value')) == '{"data": -0.0}', json.dumps(rep.get('value')))
    rep = ok({'op': 'roundtrip', 'type': 'std_msgs/msg/Float32', 'cdr': hdr + struct.pack('<f', float('nan')).hex()})
    check('float32 nan', rep.get('value') == {'data': 'nan'}, str(rep.get('value')))
    rep = ok({'op': 'roundtrip', 'type': 'std_msgs/msg/Float32', 'cdr': hdr + struct.pack('<f', 0.1).hex()})
    check('float32 0.1 exact', rep.get('value') == {'data': float(np.float32(0.1))}, str(rep.get('value')))

    # random values: every store type plus the registered ones, several seeds
    names = types + ['example_interfaces/srv/AddTwoInts_Request', 'example_interfaces/action/Fibonacci_SendGoal_Request',
                     'rcl_interfaces/srv/SetParameters_Request', 'std_srvs/srv/Empty_Request']
    seen_empty = seen_full = False
    for name in names:
        for seed in range(6):
            rep = ok({'op': 'random', 'type': name, 'seed': seed, 'max_seq': 3})
            if 'error' in rep:
                break
            rep2 = handle({'op': 'random', 'type': name, 'seed': seed, 'max_seq': 3})
            check(f'random {name} deterministic', rep == rep2)
            back = ok({'op': 'roundtrip', 'type': name, 'cdr': rep['cdr']})
            check(f'random {name}/{seed} bytes stable', back.get('cdr') == rep['cdr'])
            check(f'random {name}/{seed} value stable', back.get('value') == rep['value'])
            json.dumps(rep, allow_nan=False)
    for seed in range(40):
        rep = ok({'op': 'random', 'type': 'sensor_msgs/msg/PointCloud2', 'seed': seed, 'max_seq': 5})
        n = len(rep['value']['data'])
        seen_empty |= n == 0
        seen_full |= n == 5
        check('PointCloud2 data len', 0 <= n <= 5, str(n))
        check('PointCloud2 uint8 list', all(isinstance(b, int) and 0 <= b <= 255 for b in rep['value']['data']))
    check('PointCloud2 saw empty and full sequences', seen_empty and seen_full)
    check('srv reference kept', TS.fielddefs['example_interfaces/msg/UsesSrv'][1][0][1][1][0][1] ==
          'example_interfaces/srv/AddTwoInts_Request')
    check('Empty placeholder is 0', ok({'op': 'random', 'type': 'std_msgs/msg/Empty', 'seed': 3})['value'] ==
          {PLACEHOLDER: 0})
    # bounded sequences and bounded strings respect their bounds
    for seed in range(30):
        v = ok({'op': 'random', 'type': 'rcl_interfaces/msg/ParameterDescriptor', 'seed': seed, 'max_seq': 7})['value']
        check('bounded seq <=1', len(v['floating_point_range']) <= 1 and len(v['integer_range']) <= 1)
        v = ok({'op': 'random', 'type': 'type_description_interfaces/msg/IndividualTypeDescription', 'seed': seed,
                'max_seq': 2})['value']
        check('string<=255', len(v['type_name'].encode()) <= 255)
        v = ok({'op': 'random', 'type': 'sensor_msgs/msg/CameraInfo', 'seed': seed, 'max_seq': 2})['value']
        check('fixed arrays', len(v['k']) == 9 and len(v['p']) == 12)

    # bad input: errors, never crashes
    for bad in ['not json', '[]', '{"op":"nope"}', '{"op":"hash","type":"no/msg/Such"}',
                '{"op":"roundtrip","type":"std_msgs/msg/String","cdr":"zz"}',
                '{"op":"roundtrip","type":"std_msgs/msg/String","cdr":"00010000ff"}',
                '{"op":"roundtrip","type":"std_msgs/msg/String"}',
                '{"op":"random","type":"std_msgs/msg/String","seed":"x"}',
                '{"op":"register","type":"a_msgs/msg/W","msg":"wstring w\\n"}',
                '{"op":"register","type":"a_msgs/msg/U","msg":"Unknown u\\n"}',
                '{"op":"register","type":"bad","msg":""}',
                '{"op":"register","type":"example_interfaces/srv/AddTwoInts_Response","msg":"int32 sum\\n"}']:
        rep = handle_line(bad)
        check(f'bad input {bad}', 'error' in rep, str(rep))

    # the process speaks the JSON-lines protocol
    proc = subprocess.run([sys.executable, __file__], input='{"op":"hash","type":"std_msgs/msg/String"}\nxx\n'
                          '{"op":"random","type":"std_msgs/msg/String","seed":1,"max_seq":2}\n',
                          capture_output=True, text=True, timeout=120)
    lines = proc.stdout.splitlines()
    check('protocol lines', len(lines) == 3 and proc.returncode == 0, repr(proc.stdout) + proc.stderr)
    if len(lines) == 3:
        check('protocol hash', json.loads(lines[0]).get('hash', '').startswith('RIHS01_df668c74'))
        check('protocol error', 'error' in json.loads(lines[1]))
        check('protocol random', 'cdr' in json.loads(lines[2]))

    print(f'{len(failures)} failure(s)' if failures else 'self-test passed')
    return 1 if failures else 0


if __name__ == '__main__':
    if '--self-test' in sys.argv[1:]:
        sys.exit(self_test())
    serve()
