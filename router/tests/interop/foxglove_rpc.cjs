// An independent Foxglove client for the `zshm foxglove` services and parameters tests: the
// official protocol client (@foxglove/ws-protocol from npm) over the `ws` package, run with the
// machine's Node.js (tools/test.sh installs both under target/node; the test sets NODE_PATH).
//
// Usage:
//   node foxglove_rpc.cjs URL call SERVICE HEX
//     Once SERVICE is advertised, calls it once with the request bytes HEX (encoding cdr) and
//     prints {"event":"service","service":{...}} then {"event":"response","hex":HEX} or
//     {"event":"failure","message":TEXT}; exits 0.
//   node foxglove_rpc.cjs URL params NAME VALUE_JSON
//     Gets every parameter (again until NAME is among them), subscribes to NAME, sets NAME to VALUE_JSON and waits for the update
//     the server sends for it. Prints {"event":"all","parameters":[...]}, then
//     {"event":"set","parameters":[...]} (the set's answer) and
//     {"event":"update","parameters":[...]} (the subscription's); exits 0.
"use strict";
const { FoxgloveClient } = require("@foxglove/ws-protocol");
const WebSocket = require("ws");

const [url, mode, name, arg] = process.argv.slice(2);
if (!url || !["call", "params"].includes(mode) || !name || arg === undefined) {
  console.error("usage: foxglove_rpc.cjs URL call SERVICE HEX | URL params NAME VALUE_JSON");
  process.exit(2);
}
const say = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
const ws = new WebSocket(url, ["foxglove.sdk.v1"], { maxPayload: 1 << 30 });
const client = new FoxgloveClient({ ws });
const done = () => {
  client.close();
  process.exit(0);
};

client.on("error", (err) => {
  console.error(`foxglove_rpc: ${err && err.message ? err.message : err}`);
});
client.on("close", (event) => {
  console.error(`foxglove_rpc: closed before the end (code ${event.code})`);
  process.exit(1);
});

if (mode === "call") {
  let called = false;
  client.on("advertiseServices", (services) => {
    const service = services.find((s) => s.name === name);
    if (!service || called) {
      return;
    }
    called = true;
    say({ event: "service", service });
    client.sendServiceCallRequest({
      serviceId: service.id,
      callId: 1,
      encoding: "cdr",
      data: new Uint8Array(Buffer.from(arg, "hex")),
    });
  });
  client.on("serviceCallResponse", ({ data }) => {
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    say({ event: "response", hex: bytes.toString("hex") });
    done();
  });
  client.on("serviceCallFailure", ({ message }) => {
    say({ event: "failure", message });
    done();
  });
} else {
  const value = JSON.parse(arg);
  let asked = false;
  let answered = false;
  let updated = false;
  client.on("open", () => {
    client.getParameters([], "all");
  });
  client.on("parameterValues", ({ parameters, id }) => {
    if (!asked && id === "all") {
      if (!parameters.some((p) => p.name === name)) {
        // The node may not be in the server's graph yet: ask again until it is (the test's
        // deadline bounds this).
        setTimeout(() => client.getParameters([], "all"), 200);
        return;
      }
      say({ event: "all", parameters });
      asked = true;
      client.subscribeParameterUpdates([name]);
      client.setParameters([{ name, value }], "set");
    } else if (asked && id === "set") {
      say({ event: "set", parameters });
      answered = true;
    } else if (asked && id === undefined && parameters.some((p) => p.name === name)) {
      // The update may come before the set's answer: both are awaited.
      say({ event: "update", parameters });
      updated = true;
    }
    if (answered && updated) {
      done();
    }
  });
}
