#!/usr/bin/env python3
"""Real ROS 2 Jazzy nodes for the bridge tests: rclpy 7.1.6 on rmw_fastrtps_cpp (Fast DDS 2.14.5,
ROS 2's default middleware), from the pinned wheels that tools/ros2/setup.sh installs. Ordinary
rclpy code, as a robot's nodes are written: nothing here knows about zshm or the bridge, and Fast
DDS runs with its default profile (shared memory and UDPv4).

Roles (one per run; every line printed is flushed):
  talker          publish std_msgs/String "Hello World: N", N = 1..--count, once a subscription
                  matched; `--best-effort` for the sensor-data QoS; `--plain`: std_msgs/Int64 N
                  instead (a plain type: fixed size, what Fast DDS's data-sharing takes)
  listener        print `heard <hex of the CDR>` per std_msgs/String until --count
  cloud           publish --count sensor_msgs/PointCloud2 of --width x --height points whose data
                  is zshm's verifiable pattern (what `zshm cam-latency --verify` checks)
  cloud-listener  take --count PointCloud2, check every byte of each against the pattern of its
                  frame number, print `cloud <n> ok|corrupt`
  server          serve std_srvs/SetBool (flip) or example_interfaces/AddTwoInts (add) on
                  --service; `--silent` takes requests and never answers
  client          call --service once; print `response <hex of the CDR>`, or `timeout` (exit 1)
  param-node      a node with parameters (an int, a string, a double, a read-only bool)
  param-client    rclpy's parameter client against --target: list, get, set, get again
  action-server   serve action_tutorials_interfaces/Fibonacci on --action
  action-client   send a Fibonacci goal of --order, print feedback and the result; `--cancel`
                  cancels after the first feedback
  graph           poll until --expect-node shows up (or --timeout), then print the graph as JSON
"""

import argparse
import json
import struct
import sys
import time

import rclpy
from rclpy.action import ActionClient, ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import HistoryPolicy, QoSProfile, qos_profile_sensor_data
from rcl_interfaces.msg import ParameterDescriptor
from sensor_msgs.msg import PointCloud2, PointField
from std_msgs.msg import Int64, String


def say(*words):
    print(*words, flush=True)


def pattern(length, seq):
    """zshm's verifiable payload (`zshm_ops::tools::pattern`, which `cam-latency --verify` checks):
    the sequence number, then SplitMix64 words seeded with it (numpy: 7 MB in milliseconds)."""
    import numpy as np
    words = (length + 7) // 8
    with np.errstate(over="ignore"):
        state = (np.arange(1, words, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
                 + np.uint64(seq ^ 0x5A5A5A5AD00DF00D))
        z = (state ^ (state >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
    return (struct.pack("<Q", seq) + z.astype("<u8").tobytes())[:length]


def qos(args):
    if args.best_effort:
        return qos_profile_sensor_data
    if args.keep_all:
        return QoSProfile(history=HistoryPolicy.KEEP_ALL, depth=args.depth)
    return QoSProfile(depth=args.depth)


def spin_until(node, done, timeout):
    deadline = time.monotonic() + timeout
    while not done() and time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.05)
    return done()


def wait_for_subscribers(node, publisher, args):
    if not spin_until(node, lambda: publisher.get_subscription_count() > 0, args.timeout):
        say(f"no subscription matched within {args.timeout} s")
        sys.exit(1)
    say("matched")


def talker(node, args):
    publisher = node.create_publisher(Int64 if args.plain else String, args.topic, qos(args))
    wait_for_subscribers(node, publisher, args)
    reported = None

    def report():
        nonlocal reported
        count = publisher.get_subscription_count()
        if args.report_matches and count != reported:
            say(f"subscriptions {count}")
            reported = count
        return False

    period = 1.0 / args.rate if args.rate else 0
    for i in range(1, args.count + 1):
        publisher.publish(Int64(data=i) if args.plain else String(data=f"Hello World: {i}"))
        say(f"published {i}")
        report()
        if period:
            spin_until(node, report, period)
    spin_until(node, report, args.linger)


def listener(node, args):
    heard = []
    node.create_subscription(String, args.topic, lambda cdr: heard.append(cdr), qos(args), raw=True)
    say("listening")
    told = 0

    def done():
        nonlocal told
        for cdr in heard[told:]:
            say(f"heard {cdr.hex()}")
        told = len(heard)
        return told >= args.count

    ok = spin_until(node, done, args.timeout)
    say(f"heard {told} messages")
    sys.exit(0 if ok else 1)


def cloud(node, args):
    """Clouds of zshm's pattern, numbered in frame_id; the data is built once (pattern number 1,
    what `cam-latency --verify` checks each cloud against), as a camera driver fills a preallocated
    buffer, so that the camera keeps its rate."""
    publisher = node.create_publisher(PointCloud2, args.topic, qos(args))
    wait_for_subscribers(node, publisher, args)
    point_step = 24
    fields = [PointField(name=n, offset=o, datatype=7, count=1)
              for n, o in (("x", 0), ("y", 4), ("z", 8), ("rgb", 16))]
    msg = PointCloud2(height=args.height, width=args.width, fields=fields, is_bigendian=False,
                      point_step=point_step, row_step=point_step * args.width, is_dense=True)
    msg.data = pattern(args.width * args.height * point_step, 1)
    period = 1.0 / args.rate if args.rate else 0
    for i in range(args.count):
        msg.header.frame_id = f"{i:08d}"
        msg.header.stamp = node.get_clock().now().to_msg()
        publisher.publish(msg)
        say(f"published {i}")
        if period:
            time.sleep(period)
    spin_until(node, lambda: False, args.linger)


def cloud_listener(node, args):
    """Checks every byte of each cloud against the pattern its first 8 bytes number, and at the
    end prints `clouds N size S lost L mean X ms p50 Y ms max Z ms` (latency: header stamp to the
    callback, as `dds_peer.py cloud-listener`). `--no-verify` (benchmarks) takes the clouds raw
    and reads only their stamp and number, so what it reports is the time to arrive, not
    rclpy's time to build a 7 MB Python message."""
    clouds = []
    clock = node.get_clock()
    node.create_subscription(PointCloud2, args.topic, lambda msg: clouds.append((msg, clock.now().nanoseconds)),
                             qos(args), raw=args.no_verify)
    say("listening")
    told, latencies, numbers, size = 0, [], [], 0

    def done():
        nonlocal told, size
        for msg, arrived in list(clouds):
            if args.no_verify:
                # The CDR after the 4-byte header: stamp (i32 sec, u32 nanosec), frame_id.
                sec, nanosec, length = struct.unpack_from("<iII", msg, 4)
                frame_id = msg[16:16 + length - 1].decode()
                stamp, size = sec * 1_000_000_000 + nanosec, len(msg)
                numbers.append(int(frame_id) if frame_id.isdigit() else len(numbers))
            else:
                data = msg.data.tobytes() if hasattr(msg.data, "tobytes") else bytes(msg.data)
                seq = struct.unpack_from("<Q", data)[0] if len(data) >= 8 else -1
                stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
                size = len(data)
                # The cloud's number: its frame_id from `cloud`, else the pattern's (`cam-pub`).
                numbers.append(int(msg.header.frame_id) if msg.header.frame_id.isdigit() else seq)
                ok = seq >= 0 and data == pattern(len(data), seq)
                say(f"cloud {seq} {'ok' if ok else 'corrupt'} {len(data)}")
            latencies.append((arrived - stamp) / 1e6)
        # Clouds are dropped once read, so a long-running listener (the churn soak's) holds none.
        told += len(clouds)
        clouds.clear()
        return told >= args.count

    ok = spin_until(node, done, args.timeout)
    if latencies:
        ordered = sorted(latencies)
        lost = numbers[-1] - numbers[0] + 1 - len(numbers)
        say(f"clouds {len(ordered)} size {size} lost {lost} "
            f"mean {sum(ordered) / len(ordered):.2f} ms p50 {ordered[len(ordered) // 2]:.2f} ms "
            f"max {ordered[-1]:.2f} ms")
    sys.exit(0 if ok else 1)


def service_type(args):
    if args.kind == "flip":
        from std_srvs.srv import SetBool
        return SetBool
    from example_interfaces.srv import AddTwoInts
    return AddTwoInts


def server(node, args):
    ty = service_type(args)
    served = 0

    def serve(request, response):
        nonlocal served
        served += 1
        if args.kind == "flip":
            say(f"request {request.data}")
            response.success = not request.data
            response.message = f"was {request.data}"
        else:
            say(f"request {request.a} {request.b}")
            response.sum = request.a + request.b
        if args.silent:
            # rclpy sends whatever the callback returns; a server that never answers is one
            # whose callback never returns within the caller's patience.
            time.sleep(3600)
        return response

    node.create_service(ty, args.service, serve)
    say("serving")
    spin_until(node, lambda: served >= args.count, args.timeout)
    spin_until(node, lambda: False, args.linger)


def client(node, args):
    ty = service_type(args)
    cli = node.create_client(ty, args.service)
    if not cli.wait_for_service(timeout_sec=args.timeout):
        say("no service")
        sys.exit(1)
    say("available")
    request = ty.Request()
    if args.kind == "flip":
        request.data = True
    else:
        request.a, request.b = args.a, args.b
    future = cli.call_async(request)
    rclpy.spin_until_future_complete(node, future, timeout_sec=args.call_timeout)
    if not future.done():
        say("timeout")
        sys.exit(1)
    from rclpy.serialization import serialize_message
    say(f"response {serialize_message(future.result()).hex()}")


def param_node(node, args):
    node.declare_parameter("rate", 15)
    node.declare_parameter("frame", "base_link")
    node.declare_parameter("gain", 0.5, ParameterDescriptor(description="how hard to push"))
    node.declare_parameter("fixed", True, ParameterDescriptor(read_only=True))
    say("parameters declared")
    spin_until(node, lambda: False, args.timeout)


def param_client(node, args):
    from rclpy.parameter_client import AsyncParameterClient
    params = AsyncParameterClient(node, args.target)
    if not params.wait_for_services(timeout_sec=args.timeout):
        say("no parameter services")
        sys.exit(1)

    def call(future):
        rclpy.spin_until_future_complete(node, future, timeout_sec=args.call_timeout)
        if not future.done():
            say("timeout")
            sys.exit(1)
        return future.result()

    names = call(params.list_parameters()).result.names
    say(f"list {' '.join(sorted(names))}")
    values = call(params.get_parameters([args.name])).values
    say(f"get {args.name} {Parameter.from_parameter_msg(_named(args.name, values[0])).value}")
    value = float(args.value) if "." in args.value else int(args.value)
    result = call(params.set_parameters([Parameter(args.name, value=value)])).results[0]
    say(f"set {args.name} {result.successful}")
    values = call(params.get_parameters([args.name])).values
    say(f"get {args.name} {Parameter.from_parameter_msg(_named(args.name, values[0])).value}")


def _named(name, value):
    from rcl_interfaces.msg import Parameter as ParameterMsg
    return ParameterMsg(name=name, value=value)


def action_server(node, args):
    from action_tutorials_interfaces.action import Fibonacci
    goals = 0

    def execute(handle):
        nonlocal goals
        goals += 1
        say(f"goal {handle.request.order}")
        sequence = [0, 1]
        feedback = Fibonacci.Feedback()
        for i in range(1, handle.request.order):
            if handle.is_cancel_requested:
                handle.canceled()
                say("canceled")
                return Fibonacci.Result(sequence=sequence)
            sequence.append(sequence[i] + sequence[i - 1])
            feedback.partial_sequence = sequence
            handle.publish_feedback(feedback)
            time.sleep(args.period)
        handle.succeed()
        return Fibonacci.Result(sequence=sequence)

    ActionServer(node, Fibonacci, args.action, execute,
                 goal_callback=lambda _: GoalResponse.ACCEPT,
                 cancel_callback=lambda _: CancelResponse.ACCEPT,
                 callback_group=ReentrantCallbackGroup())
    say("serving")
    executor = MultiThreadedExecutor()
    executor.add_node(node)
    deadline = time.monotonic() + args.timeout
    while goals < args.count and time.monotonic() < deadline:
        executor.spin_once(timeout_sec=0.05)
    end = time.monotonic() + args.linger
    while time.monotonic() < end:
        executor.spin_once(timeout_sec=0.05)


def action_client(node, args):
    from action_tutorials_interfaces.action import Fibonacci
    from action_msgs.msg import GoalStatus
    cli = ActionClient(node, Fibonacci, args.action)
    if not cli.wait_for_server(timeout_sec=args.timeout):
        say("no action server")
        sys.exit(1)
    feedback = []
    sent = cli.send_goal_async(Fibonacci.Goal(order=args.order),
                               feedback_callback=lambda f: feedback.append(list(f.feedback.partial_sequence)))
    rclpy.spin_until_future_complete(node, sent, timeout_sec=args.call_timeout)
    handle = sent.result()
    if handle is None or not handle.accepted:
        say("goal rejected")
        sys.exit(1)
    say("goal accepted")
    told = 0

    def tell():
        nonlocal told
        for f in feedback[told:]:
            say(f"feedback {f}")
        told = len(feedback)

    if args.cancel:
        spin_until(node, lambda: tell() or told > 0, args.call_timeout)
        cancel = handle.cancel_goal_async()
        rclpy.spin_until_future_complete(node, cancel, timeout_sec=args.call_timeout)
        say(f"cancel {len(cancel.result().goals_canceling) if cancel.done() else 'timeout'}")
    result = handle.get_result_async()
    spin_until(node, lambda: tell() or result.done(), args.call_timeout)
    tell()
    if not result.done():
        say("timeout")
        sys.exit(1)
    status = {GoalStatus.STATUS_SUCCEEDED: "SUCCEEDED", GoalStatus.STATUS_CANCELED: "CANCELED",
              GoalStatus.STATUS_ABORTED: "ABORTED"}.get(result.result().status, "?")
    say(f"result {list(result.result().result.sequence)} {status}")


def graph(node, args):
    def nodes():
        return sorted(f"{ns.rstrip('/')}/{name}" for name, ns in node.get_node_names_and_namespaces())

    spin_until(node, lambda: all(n in nodes() for n in args.expect_node), args.timeout)
    topics = {name: types for name, types in node.get_topic_names_and_types()}
    publishers = {}
    subscriptions = {}
    for topic in args.topic_info:
        for key, infos in ((publishers, node.get_publishers_info_by_topic(topic)),
                           (subscriptions, node.get_subscriptions_info_by_topic(topic))):
            key[topic] = [{
                "node": f"{i.node_namespace.rstrip('/')}/{i.node_name}",
                "type": i.topic_type,
                "type_hash": str(i.topic_type_hash),
                "reliability": i.qos_profile.reliability.name,
                "durability": i.qos_profile.durability.name,
            } for i in infos]
    say(json.dumps({"nodes": nodes(), "topics": topics, "publishers": publishers,
                    "subscriptions": subscriptions}))


ROLES = {"talker": talker, "listener": listener, "cloud": cloud, "cloud-listener": cloud_listener,
         "server": server, "client": client, "param-node": param_node, "param-client": param_client,
         "action-server": action_server, "action-client": action_client, "graph": graph}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("role", choices=sorted(ROLES))
    parser.add_argument("--node-name", default=None, help="default: rclpy_<role>")
    parser.add_argument("--namespace", default="/")
    parser.add_argument("--topic", default="/chatter")
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--rate", type=float, default=10, help="messages per second (0: as fast as it goes)")
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--best-effort", action="store_true")
    parser.add_argument("--plain", action="store_true", help="talker: std_msgs/Int64 instead of String")
    parser.add_argument("--no-verify", action="store_true", help="cloud-listener: latency only")
    parser.add_argument("--keep-all", action="store_true", help="reliable keep-all (for clouds)")
    parser.add_argument("--report-matches", action="store_true",
                        help="talker: print `subscriptions N` whenever the matched count changes")
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=480)
    parser.add_argument("--service", default="/flip")
    parser.add_argument("--kind", choices=["flip", "add"], default="flip")
    parser.add_argument("-a", "--a", type=int, default=2)
    parser.add_argument("-b", "--b", type=int, default=3)
    parser.add_argument("--silent", action="store_true")
    parser.add_argument("--target", default="/zshm_params", help="param-client: the node")
    parser.add_argument("--name", default="rate", help="param-client: the parameter")
    parser.add_argument("--value", default="30", help="param-client: the new value (a dot: a double)")
    parser.add_argument("--action", default="/fibonacci")
    parser.add_argument("--order", type=int, default=5)
    parser.add_argument("--period", type=float, default=0.2, help="action-server: seconds per step")
    parser.add_argument("--cancel", action="store_true")
    parser.add_argument("--expect-node", action="append", default=[])
    parser.add_argument("--topic-info", action="append", default=[])
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--call-timeout", type=float, default=30)
    parser.add_argument("--linger", type=float, default=0)
    args = parser.parse_args()
    rclpy.init()
    node = Node(args.node_name or f"rclpy_{args.role.replace('-', '_')}", namespace=args.namespace)
    try:
        ROLES[args.role](node, args)
    finally:
        node.destroy_node()
        rclpy.try_shutdown()


if __name__ == "__main__":
    main()
