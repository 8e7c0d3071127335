#!/usr/bin/env bash
# Runs a command as a ROS 2 Jazzy process of the prefix tools/ros2/setup.sh made ($ZSHM_ROS2),
# on the RMW named first:
#   tools/ros2/run.sh zenoh python3 talker.py     rclpy on rmw_zenoh_cpp
#   tools/ros2/run.sh zenoh rmw_zenohd            the real rmw_zenohd
#   tools/ros2/run.sh fastrtps python3 talker.py  rclpy on rmw_fastrtps_cpp (Fast DDS)
# `python3` is the prefix's Python, `rmw_zenohd` its router. The wheels' librcl links
# rmw_fastrtps_cpp directly, so the RMW cannot be chosen at run time; rmw_zenoh_cpp is put in
# front with LD_PRELOAD (../shared/research/real_ros2.md §3), and the library path the wheels'
# bootstrap would set is set here, since the preload is resolved before Python starts.
set -euo pipefail
if [ -z "${ZSHM_ROS2:-}" ] || [ ! -x "$ZSHM_ROS2/bin/python" ]; then
  echo "tools/ros2/run.sh: ZSHM_ROS2 does not name a prefix made by tools/ros2/setup.sh (tools/test.sh sets it)" >&2
  exit 2
fi
if [ $# -lt 2 ]; then
  echo "usage: tools/ros2/run.sh zenoh|fastrtps COMMAND [ARGS...]" >&2
  exit 2
fi
rmw=$1 command=$2
shift 2
prefix=$ZSHM_ROS2
libs=$prefix/lib
for dir in "$prefix"/lib/python3.*/site-packages/ros_*.libs; do libs=$libs:$dir; done
export LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export _ROS_WHEELS_BOOTSTRAP_COMPLETE=1 AMENT_PREFIX_PATH=$prefix PYTHONUNBUFFERED=1
case "$command" in
  python3 | python) command=$prefix/bin/python ;;
  rmw_zenohd) command=$prefix/lib/rmw_zenoh_cpp/rmw_zenohd ;;
esac
case "$rmw" in
  zenoh)
    if [ ! -f "$prefix/lib/librmw_zenoh_cpp.so" ]; then
      echo "tools/ros2/run.sh: $prefix has no rmw_zenoh_cpp: run tools/ros2/setup.sh --rmw-zenoh" >&2
      exit 2
    fi
    export RMW_IMPLEMENTATION=rmw_zenoh_cpp LD_PRELOAD=$prefix/lib/librmw_zenoh_cpp.so
    ;;
  fastrtps) export RMW_IMPLEMENTATION=rmw_fastrtps_cpp ;;
  *) echo "tools/ros2/run.sh: unknown RMW '$rmw' (zenoh or fastrtps)" >&2; exit 2 ;;
esac
exec "$command" "$@"
