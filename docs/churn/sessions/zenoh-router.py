# A bare zenoh router from the Python binding (no zshm): python zenoh-router.py ENDPOINT SECONDS
import sys, time, zenoh
c = zenoh.Config()
c.insert_json5("mode", '"router"')
c.insert_json5("listen/endpoints", f'["{sys.argv[1]}"]')
c.insert_json5("scouting/multicast/enabled", "false")
s = zenoh.open(c)
print("up", flush=True)
time.sleep(float(sys.argv[2]))
