// An independent Foxglove client for the `zshm foxglove` tests: the official protocol client
// (@foxglove/ws-protocol from npm) over the `ws` package, run with the machine's Node.js.
// tools/test.sh installs both under target/node; the test points NODE_PATH there.
//
// Usage: node foxglove_client.cjs URL TOPIC COUNT [--stall]
//   Subscribes to TOPIC once it is advertised, prints one JSON line per event on stdout:
//   {"event":"advertised", "channel": {...}}   the channel as the server described it
//   {"event":"subscribed"}                     the subscribe request is sent
//   {"event":"message","len":N,"sha256":HEX[,"hex":HEX]}   each message (hex when small)
//   {"event":"done","received":N}              after COUNT messages; then exits 0
//   With --stall the client stops reading its socket right after subscribing (a browser tab
//   that froze) and stays until killed.
"use strict";
const crypto = require("node:crypto");
const { FoxgloveClient } = require("@foxglove/ws-protocol");
const WebSocket = require("ws");

const [url, topic, countText, mode] = process.argv.slice(2);
const count = Number(countText);
if (!url || !topic || !Number.isInteger(count)) {
  console.error("usage: foxglove_client.cjs URL TOPIC COUNT [--stall]");
  process.exit(2);
}
const stall = mode === "--stall";
const say = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

// The foxglove crate's server negotiates `foxglove.sdk.v1` (the protocol of
// `foxglove.websocket.v1` under the SDK's name); the client takes whichever the socket offers.
const ws = new WebSocket(url, ["foxglove.sdk.v1"], { maxPayload: 1 << 30 });
const client = new FoxgloveClient({ ws });
let subscription = null;
let received = 0;

client.on("advertise", (channels) => {
  const channel = channels.find((c) => c.topic === topic);
  if (!channel || subscription !== null) {
    return;
  }
  say({ event: "advertised", channel });
  subscription = client.subscribe(channel.id);
  say({ event: "subscribed" });
  if (stall) {
    // Stop reading: the kernel's buffers fill, then the server's queue for this client.
    ws._socket.pause();
    // A paused socket does not keep Node's event loop alive; this does, until the test kills us.
    setInterval(() => {}, 1 << 30);
  }
});

client.on("message", ({ subscriptionId, data }) => {
  if (subscriptionId !== subscription) {
    return;
  }
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const line = {
    event: "message",
    len: bytes.length,
    sha256: crypto.createHash("sha256").update(bytes).digest("hex"),
  };
  if (bytes.length <= 1024) {
    line.hex = Buffer.from(bytes).toString("hex");
  }
  say(line);
  received += 1;
  if (received === count) {
    say({ event: "done", received });
    client.close();
  }
});

client.on("error", (err) => {
  console.error(`foxglove_client: ${err && err.message ? err.message : err}`);
});

client.on("close", (event) => {
  if (received < count) {
    console.error(`foxglove_client: closed after ${received} of ${count} messages (code ${event.code})`);
    process.exit(1);
  }
  process.exit(0);
});
