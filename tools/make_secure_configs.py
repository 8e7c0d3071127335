#!/usr/bin/env python3
"""Derive configs/secure/*.json5 from configs/ROUTER_CONFIG.json5 and SESSION_CONFIG.json5.

Every change is an exact-once text replacement on the base config (itself rmw_zenoh's Jazzy
template with shared memory on), so the secure configs keep every comment and every other value,
stay loadable by rmw_zenoh, and a base change that breaks a replacement makes this script fail
loudly. A test checks that configs/secure/ is what this script writes.

  tools/make_secure_configs.py [OUT_DIR [CERT_DIR]]

OUT_DIR defaults to configs/secure; CERT_DIR to /etc/zshm/secure (where the configs expect
ca.pem, *.key, *.pem and the credentials files that `zshm certs` writes).
"""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "configs" / "secure"
CERTS = sys.argv[2] if len(sys.argv) > 2 else "/etc/zshm/secure"
OUT.mkdir(parents=True, exist_ok=True)

ROUTER = (ROOT / "configs" / "ROUTER_CONFIG.json5").read_text()
SESSION = (ROOT / "configs" / "SESSION_CONFIG.json5").read_text()

# Topics allowed to cross hosts, per direction (ROS names without leading '/', domain 0).
STATION_TO_ROBOT = ["cmd_vel"]
ROBOT_TO_STATION = ["odom"]
DOMAIN = "0"


def rep(text, old, new, what):
    n = text.count(old)
    if n != 1:
        raise SystemExit(f"{what}: expected exactly one match, found {n}")
    return text.replace(old, new)


# ---------------------------------------------------------------- blocks
TLS_OLD = """        root_ca_certificate: null,
        /// Path to the TLS listening side private key
        listen_private_key: null,
        /// Path to the TLS listening side public certificate
        listen_certificate: null,
        ///  Enables mTLS (mutual authentication), client authentication
        enable_mtls: false,
        /// Path to the TLS connecting side private key
        connect_private_key: null,
        /// Path to the TLS connecting side certificate
        connect_certificate: null,"""


def tls_block(ca, key, cert, mtls, connect_with_cert=True):
    """key/cert used for BOTH sides (every zenoh process listens and connects)."""
    def q(v):
        return f'"{v}"' if v else "null"
    ck, cc = (key, cert) if connect_with_cert else (None, None)
    note = ("\n        /// zshm: enable_mtls=true on the LISTEN side requires a client certificate signed by\n"
            "        /// root_ca_certificate; on the CONNECT side it is what makes zenoh present\n"
            "        /// connect_certificate at all (with false, no client certificate is sent).")
    return f"""        root_ca_certificate: {q(ca)},
        /// Path to the TLS listening side private key
        listen_private_key: {q(key)},
        /// Path to the TLS listening side public certificate
        listen_certificate: {q(cert)},
        ///  Enables mTLS (mutual authentication), client authentication{note}
        enable_mtls: {"true" if mtls else "false"},
        /// Path to the TLS connecting side private key
        connect_private_key: {q(ck)},
        /// Path to the TLS connecting side certificate
        connect_certificate: {q(cc)},"""


USRPWD_OLD = """      usrpwd: {
        user: null,
        password: null,
        /// The path to a file containing the user password dictionary
        dictionary_file: null,
      },"""


def usrpwd_block(user, password, dictionary):
    return f"""      usrpwd: {{
        /// zshm: credentials this process presents when it OPENS a link.
        user: "{user}",
        password: "{password}",
        /// The path to a file containing the user password dictionary
        /// zshm: one `user:password` per line; checked when this process ACCEPTS a link.
        /// NOTE: as soon as user/password OR a dictionary is set, every incoming link must
        /// authenticate; with an empty dictionary all incoming links are refused ("Invalid user"),
        /// so peers (which accept each other) need the dictionary too.
        dictionary_file: "{dictionary}",
      }},"""


PROTOCOLS_OLD = """      /// example, to only enable "tls" and "quic": protocols: ["tls", "quic"],
"""


def protocols(lst):
    return PROTOCOLS_OLD + f"""      /// zshm: whitelist, so that no plain-text transport can be opened or accepted by mistake.
      protocols: [{", ".join(f'"{p}"' for p in lst)}],
"""


ACL_ANCHOR = "  // /// Configure access control (ACL) rules\n"

ALL_MSGS = ('"put", "delete", "declare_subscriber", "query", "reply", "declare_queryable",\n'
            '          "liveliness_token", "liveliness_query", "declare_liveliness_subscriber"')
DECL_MSGS = ('"declare_subscriber", "declare_queryable", "query", "reply",\n'
             '          "liveliness_token", "liveliness_query", "declare_liveliness_subscriber"')


def kes(topics):
    out = []
    for t in topics:
        out += [f'"{DOMAIN}/{t}/**"', f'"{DOMAIN}/{t}/*/*/@adv/**"']
    return ", ".join(out)


def token_kes(topics):
    # @ros2_lv/<domain>/<zid>/<nid>/<eid>/<kind>/<enclave>/<namespace>/<node>/<topic>/...
    return ", ".join(f'"@ros2_lv/{DOMAIN}/*/*/*/*/*/*/*/%{t.replace("/", "%")}/**"' for t in topics)


def acl_block(me, local_subject, remote_subject, inbound, outbound):
    """ACL for a router. inbound = topics whose data may come IN from the remote host,
    outbound = topics whose data may go OUT to it."""
    def subj(d):
        return ", ".join(f"{k}: [{', '.join(json(v) for v in vs)}]" for k, vs in d.items())
    return f"""  /// zshm ({me} router): only the named topics cross between hosts.
  /// default_permission "deny" + allow rules. The local nodes get an allow-all policy; note
  /// that "**" does NOT match chunks starting with '@' (rmw_zenoh's "@ros2_lv/..." graph tokens
  /// and "<topic>/<type>/<hash>/@adv/..." AdvancedPublisher keys), hence the explicit entries.
  /// A declaration (subscriber, queryable, liveliness subscriber) is only allowed if a rule's key
  /// expression INCLUDES the declared one: a remote subscriber on "**" is dropped as a whole.
  /// Decisions are logged at TRACE, target zenoh::net::routing::interceptor::access_control.
  access_control: {{
    enabled: true,
    default_permission: "deny",
    rules: [
      {{
        id: "local_everything",
        messages: [
          {ALL_MSGS},
        ],
        flows: ["ingress", "egress"],
        permission: "allow",
        key_exprs: ["**", "@ros2_lv/**", "**/@adv/**", "@/**"],
      }},
      {{
        /// data the remote host may send to this host
        id: "inbound_data",
        messages: ["put", "delete"],
        flows: ["ingress"],
        permission: "allow",
        key_exprs: [{", ".join(f'"{DOMAIN}/{t}/**"' for t in inbound)}],
      }},
      {{
        /// data this host may send to the remote host
        id: "outbound_data",
        messages: ["put", "delete"],
        flows: ["egress"],
        permission: "allow",
        key_exprs: [{", ".join(f'"{DOMAIN}/{t}/**"' for t in outbound)}],
      }},
      {{
        /// declarations + AdvancedPublisher/Subscriber plumbing (cache queries, publisher
        /// detection tokens) for the shared topics, both ways
        id: "shared_topic_plumbing",
        messages: [
          {DECL_MSGS},
        ],
        flows: ["ingress", "egress"],
        permission: "allow",
        key_exprs: [{kes(inbound + outbound)}],
      }},
      {{
        /// ROS graph: only the tokens of the shared topics cross (ros2 topic list shows them)
        id: "shared_graph_tokens",
        messages: ["liveliness_token"],
        flows: ["ingress", "egress"],
        permission: "allow",
        key_exprs: [{token_kes(inbound + outbound)}],
      }},
      {{
        /// rmw_zenoh's graph cache subscribes to / queries "@ros2_lv/<domain>/**"
        id: "graph_subscription",
        messages: ["declare_liveliness_subscriber", "liveliness_query"],
        flows: ["ingress", "egress"],
        permission: "allow",
        key_exprs: ["@ros2_lv/{DOMAIN}/**"],
      }},
    ],
    subjects: [
      {{
        /// nodes of this host: on loopback AND presenting the node certificate/user
        id: "local_nodes",
        {subj(local_subject)},
      }},
      {{
        /// the other host's router
        id: "remote_router",
        {subj(remote_subject)},
      }},
    ],
    policies: [
      {{ id: "local", rules: ["local_everything"], subjects: ["local_nodes"] }},
      {{
        id: "remote",
        rules: ["inbound_data", "outbound_data", "shared_topic_plumbing", "shared_graph_tokens", "graph_subscription"],
        subjects: ["remote_router"],
      }},
    ],
  }},

"""


def json(v):
    return f'"{v}"'


FRAGMENTS_OLD = """              /// The maximum deadline limit for multi-fragment messages.
              max_wait_before_drop_fragments: 50000,"""
FRAGMENTS_NEW = """              /// The maximum deadline limit for multi-fragment messages.
              /// zshm secure example: 0.5 s instead of 50 ms. Between hosts a 7 MB point cloud
              /// needs ~60 ms on 1 GbE (25-60 ms over TLS on a loaded 2-core machine); with 50 ms
              /// the router drops such clouds of keep-last topics (rmw_zenoh maps them to
              /// CongestionControl::Drop), counted in zshm_dropped_payload_bytes_total{reason="congestion"}.
              max_wait_before_drop_fragments: 500000,"""


def router(me, other, listen, connect, tls, usr, acl, protos, header):
    t = ROUTER
    t = rep(t, FRAGMENTS_OLD, FRAGMENTS_NEW, "router fragment deadline")
    t = rep(t, "{\n  /// The identifier", "{\n" + header + "  /// The identifier", "header")
    t = rep(t, """    endpoints: [
      // "<proto>/<address>"
    ],""", "    endpoints: [\n" + "".join(f'      "{e}",\n' for e in connect) + "    ],", "router connect")
    t = rep(t, """    endpoints: [
      "tcp/[::]:7447"
    ],""", "    endpoints: [\n" + "".join(f'      "{e}",\n' for e in listen) + "    ],", "router listen")
    t = rep(t, TLS_OLD, tls, "router tls")
    if usr:
        t = rep(t, USRPWD_OLD, usr, "router usrpwd")
    t = rep(t, PROTOCOLS_OLD, protocols(protos), "router protocols")
    t = rep(t, ACL_ANCHOR, acl + ACL_ANCHOR, "router acl")
    return t


def session(connect, listen, tls, usr, protos, header):
    t = SESSION
    t = rep(t, "{\n  /// The identifier", "{\n" + header + "  /// The identifier", "header")
    t = rep(t, '      "tcp/localhost:7447"\n', "".join(f'      "{e}",\n' for e in connect), "session connect")
    t = rep(t, '      "tcp/localhost:0"\n', "".join(f'      "{e}",\n' for e in listen), "session listen")
    t = rep(t, TLS_OLD, tls, "session tls")
    if usr:
        t = rep(t, USRPWD_OLD, usr, "session usrpwd")
    t = rep(t, PROTOCOLS_OLD, protocols(protos), "session protocols")
    return t


def hdr(lines):
    return "".join(f"  /// {'zshm secure example: ' if i == 0 else ''}{l}\n" for i, l in enumerate(lines))


C = CERTS
files = {}
# ---------------------------------------------------------------- mutual TLS
files["mtls/ROBOT_ROUTER_CONFIG.json5"] = router(
    "robot", "station",
    listen=["tls/[::]:7447", "quic/[::]:7447"], connect=[],
    tls=tls_block(f"{C}/ca.pem", f"{C}/robot-router.key", f"{C}/robot-router.pem", True),
    usr=None,
    acl=acl_block("robot", {"interfaces": ["lo"], "cert_common_names": ["robot-node"]},
                  {"cert_common_names": ["station-router"]}, STATION_TO_ROBOT, ROBOT_TO_STATION),
    protos=["tls", "quic"],
    header=hdr(["robot host router (10.0.0.1). mTLS for local nodes (tls/localhost:7447) and for the",
                "control-station router (tls/10.0.0.1:7447 or quic/10.0.0.1:7447). ACL: see access_control."]))
files["mtls/STATION_ROUTER_CONFIG.json5"] = router(
    "station", "robot",
    listen=["tls/localhost:7447"], connect=["tls/10.0.0.1:7447"],
    tls=tls_block(f"{C}/ca.pem", f"{C}/station-router.key", f"{C}/station-router.pem", True),
    usr=None,
    acl=acl_block("station", {"interfaces": ["lo"], "cert_common_names": ["station-node"]},
                  {"cert_common_names": ["robot-router"]}, ROBOT_TO_STATION, STATION_TO_ROBOT),
    protos=["tls", "quic"],
    header=hdr(["control-station router (10.0.0.2). Connects to the robot router over mTLS",
                "(use \"quic/10.0.0.1:7447\" for QUIC); listens on loopback only for its own nodes."]))
files["mtls/ROBOT_SESSION_CONFIG.json5"] = session(
    connect=["tls/localhost:7447"], listen=["tls/localhost:0"],
    tls=tls_block(f"{C}/ca.pem", f"{C}/robot-node.key", f"{C}/robot-node.pem", True),
    usr=None, protos=["tls", "quic"],
    header=hdr(["ROS 2 nodes on the robot host (ZENOH_SESSION_CONFIG_URI). Nodes are peers that also",
                "accept each other, so the node certificate is used for both listen and connect."]))
files["mtls/STATION_SESSION_CONFIG.json5"] = session(
    connect=["tls/localhost:7447"], listen=["tls/localhost:0"],
    tls=tls_block(f"{C}/ca.pem", f"{C}/station-node.key", f"{C}/station-node.pem", True),
    usr=None, protos=["tls", "quic"],
    header=hdr(["ROS 2 nodes on the control station (ZENOH_SESSION_CONFIG_URI)."]))

# ---------------------------------------------------------------- usrpwd (+ server-auth TLS)
files["usrpwd/ROBOT_ROUTER_CONFIG.json5"] = router(
    "robot", "station",
    listen=["tls/[::]:7447"], connect=[],
    tls=tls_block(f"{C}/ca.pem", f"{C}/robot-router.key", f"{C}/robot-router.pem", False, connect_with_cert=False),
    usr=usrpwd_block("robot-router", "CHANGE-ME-robot-router", f"{C}/robot-credentials.txt"),
    acl=acl_block("robot", {"interfaces": ["lo"], "usernames": ["robot-node"]},
                  {"usernames": ["station-router"]}, STATION_TO_ROBOT, ROBOT_TO_STATION),
    protos=["tcp", "tls", "quic"],
    header=hdr(["robot router, user/password alternative: TLS with server authentication only",
                "(encryption + router identity), clients authenticate with usrpwd."]))
files["usrpwd/STATION_ROUTER_CONFIG.json5"] = router(
    "station", "robot",
    listen=["tls/localhost:7447"], connect=["tls/10.0.0.1:7447"],
    tls=tls_block(f"{C}/ca.pem", f"{C}/station-router.key", f"{C}/station-router.pem", False, connect_with_cert=False),
    usr=usrpwd_block("station-router", "CHANGE-ME-station-router", f"{C}/station-credentials.txt"),
    # the station OPENS the link to the robot, so it learns no username for it; the robot
    # router's server certificate CN is known on the opening side, so match on that.
    acl=acl_block("station", {"interfaces": ["lo"], "usernames": ["station-node"]},
                  {"cert_common_names": ["robot-router"]}, ROBOT_TO_STATION, STATION_TO_ROBOT),
    protos=["tcp", "tls", "quic"],
    header=hdr(["control-station router, user/password alternative."]))
files["usrpwd/ROBOT_SESSION_CONFIG.json5"] = session(
    connect=["tls/localhost:7447"], listen=["tcp/localhost:0"],
    tls=tls_block(f"{C}/ca.pem", None, None, False, connect_with_cert=False),
    usr=usrpwd_block("robot-node", "CHANGE-ME-robot-node", f"{C}/robot-node-credentials.txt"),
    protos=["tcp", "tls", "quic"],
    header=hdr(["ROS 2 nodes on the robot, user/password alternative. Node-to-node links stay on",
                "loopback TCP (usrpwd-authenticated); the link to the router is TLS (server auth)."]))
files["usrpwd/STATION_SESSION_CONFIG.json5"] = session(
    connect=["tls/localhost:7447"], listen=["tcp/localhost:0"],
    tls=tls_block(f"{C}/ca.pem", None, None, False, connect_with_cert=False),
    usr=usrpwd_block("station-node", "CHANGE-ME-station-node", f"{C}/station-node-credentials.txt"),
    protos=["tcp", "tls", "quic"],
    header=hdr(["ROS 2 nodes on the control station, user/password alternative."]))

for name, text in files.items():
    p = OUT / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
