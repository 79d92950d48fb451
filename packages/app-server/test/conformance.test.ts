/**
 * RELIABILITY B7 over the real socket: the JSON-RPC 2.0 specification's error cases and batch
 * rules, the handshake rules, and the frame limits, against a running AppServer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLOSE_CODES } from "@lineup/protocol";
import { agentEnvelope, key, START, startTestServer, TestClient, type Frame, type TestServer } from "./helpers.js";

let server: TestServer;
let deviceToken: string;

beforeAll(async () => {
  server = await startTestServer({ limits: { max_message_bytes: 16_384, max_batch: 8 } });
  deviceToken = server.devCredentials!.device_token;
});
afterAll(async () => server.dispose());

/** The specification's shape: `data` set aside, compared separately. */
const shape = (frame: Frame): Frame => {
  if (Array.isArray(frame)) return frame.map(shape);
  if (frame?.error === undefined) return frame;
  const { data: _data, ...error } = frame.error;
  return { ...frame, error };
};

async function rawExchange(client: TestClient, text: string): Promise<Frame> {
  client.sendRaw(text);
  return client.nextFrame();
}

describe("JSON-RPC 2.0 conformance over the socket", () => {
  it("parse error: -32700, id null", async () => {
    const client = await TestClient.connect(server.url);
    const reply = await rawExchange(client, '{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]');
    expect(shape(reply)).toEqual({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null });
    expect(reply.error.data.code).toBe("json_malformed");
    await client.close();
  });

  it("invalid request, empty batch, invalid batches", async () => {
    const client = await TestClient.connect(server.url);
    const invalid = { jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request" }, id: null };
    expect(shape(await rawExchange(client, '{"jsonrpc": "2.0", "method": 1, "params": "bar"}'))).toEqual(invalid);
    expect(shape(await rawExchange(client, "[]"))).toEqual(invalid);
    expect(shape(await rawExchange(client, "[1]"))).toEqual([invalid]);
    expect(shape(await rawExchange(client, "[1,2,3]"))).toEqual([invalid, invalid, invalid]);
    await client.close();
  });

  it("unknown method before and after the handshake", async () => {
    const client = await TestClient.connect(server.url);
    const before = await rawExchange(client, '{"jsonrpc": "2.0", "method": "foobar", "id": "1"}');
    expect(shape(before)).toEqual({ jsonrpc: "2.0", error: { code: -32601, message: "Method not found" }, id: "1" });
    await client.call("initialize", { protocol_version: "lineup.app-server.v1", client_info: { name: "t" }, token: deviceToken });
    const after = await client.request("foobar");
    expect(shape(after)).toMatchObject({ error: { code: -32601, message: "Method not found" } });
    await client.close();
  });

  it("invalid params: -32602 with a JSON Pointer", async () => {
    const client = await TestClient.open(server, deviceToken);
    const reply = await client.request("agentSession/read", { session_id: "" });
    expect(reply.error).toMatchObject({ code: -32602, message: "Invalid params", data: { code: "invalid_params", path: "/session_id" } });
    const positional = await client.request("agentSession/read", ["s1"]);
    expect(positional.error).toMatchObject({ code: -32602, data: { code: "invalid_params" } });
    await client.close();
  });

  it("a mixed batch: responses for requests and invalid items only, in order", async () => {
    const client = await TestClient.open(server, deviceToken);
    const reply = await rawExchange(
      client,
      JSON.stringify([
        { jsonrpc: "2.0", method: "agentSession/list", id: "1" },
        { jsonrpc: "2.0", method: "initialized" },
        { jsonrpc: "2.0", method: "capability/list", params: {}, id: "2" },
        { foo: "boo" },
        { jsonrpc: "2.0", method: "foo.get", params: { name: "myself" }, id: "5" },
        { jsonrpc: "2.0", method: "agentSession/read", params: { session_id: "missing" }, id: "9" },
      ]),
    );
    expect(Array.isArray(reply)).toBe(true);
    expect(reply.map((r: Frame) => [r.id, r.error?.code ?? "ok"])).toEqual([
      ["1", "ok"],
      ["2", "ok"],
      [null, -32600],
      ["5", -32601],
      ["9", -32004],
    ]);
    expect(reply[1].result.role).toBe("device");
    await client.close();
  });

  it("an all-notification batch gets no reply at all", async () => {
    const client = await TestClient.open(server, deviceToken);
    client.sendRaw(JSON.stringify([{ jsonrpc: "2.0", method: "initialized" }, { jsonrpc: "2.0", method: "notify_hello", params: [7] }]));
    const next = await client.request("agentSession/list");
    expect(client.frames.filter((f) => Array.isArray(f))).toEqual([]);
    expect(client.frames[client.frames.length - 1]).toBe(next);
    await client.close();
  });

  it("a batch longer than max_batch is one Invalid Request", async () => {
    const client = await TestClient.open(server, deviceToken);
    const batch = Array.from({ length: 9 }, (_, i) => ({ jsonrpc: "2.0", method: "agentSession/list", id: i }));
    const reply = await rawExchange(client, JSON.stringify(batch));
    expect(reply).toMatchObject({ id: null, error: { code: -32600, data: { code: "invalid_request" } } });
    await client.close();
  });
});

describe("handshake", () => {
  it("refuses calls before initialize, and a second initialize", async () => {
    const client = await TestClient.connect(server.url);
    expect(await client.refusal("agentSession/list")).toBe("not_initialized");
    expect((await client.request("agentSession/list")).error.code).toBe(-32006);
    await client.call("initialize", { protocol_version: "lineup.app-server.v1", client_info: { name: "t" }, token: deviceToken });
    expect(await client.refusal("initialize", { protocol_version: "lineup.app-server.v1", client_info: { name: "t" }, token: deviceToken })).toBe("already_initialized");
    await client.close();
  });

  it("returns role, identity and limits", async () => {
    const client = await TestClient.connect(server.url);
    const result = await client.call("initialize", { protocol_version: "lineup.app-server.v1", client_info: { name: "t", version: "1" }, token: deviceToken });
    expect(result).toMatchObject({
      protocol_version: "lineup.app-server.v1",
      server_info: { name: "lineup-app-server" },
      role: "device",
      identity: { user_id: "dev-user", device_id: "dev-device" },
      limits: { max_message_bytes: 16_384, max_batch: 8 },
    });
    await client.close();
  });

  it("initialize and a call in one batch: the call sees the new role", async () => {
    const client = await TestClient.connect(server.url);
    const reply = await rawExchange(
      client,
      JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocol_version: "lineup.app-server.v1", client_info: { name: "t" }, token: deviceToken } },
        { jsonrpc: "2.0", id: 2, method: "agentSession/list" },
      ]),
    );
    expect(reply.map((r: Frame) => "result" in r)).toEqual([true, true]);
    await client.close();
  });
});

describe("frame limits", () => {
  it("a frame over max_message_bytes gets message_too_large and the connection stays usable", async () => {
    const client = await TestClient.open(server, deviceToken);
    const big = JSON.stringify({ jsonrpc: "2.0", id: 77, method: "agentSession/list", params: { cursor: "x".repeat(20_000) } });
    const reply = await rawExchange(client, big);
    expect(reply).toMatchObject({ id: null, error: { code: -32600, data: { code: "message_too_large" } } });
    expect((await client.call("agentSession/list")).sessions).toBeInstanceOf(Array);
    await client.close();
  });

  it("a frame over twice the limit closes the socket with 1009", async () => {
    const client = await TestClient.open(server, deviceToken);
    client.sendRaw("x".repeat(40_000));
    expect((await client.closed).code).toBe(CLOSE_CODES.message_too_big);
  });

  it("a binary frame is an Invalid Request", async () => {
    const client = await TestClient.open(server, deviceToken);
    client.sendRaw(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"agentSession/list"}'), true);
    const reply = await client.nextFrame();
    expect(reply).toMatchObject({ id: null, error: { code: -32600, data: { code: "invalid_request" } } });
    await client.close();
  });

  it("a __proto__ key is refused before dispatch, and nothing is polluted", async () => {
    const client = await TestClient.open(server, deviceToken);
    const reply = await rawExchange(client, '{"jsonrpc":"2.0","id":1,"method":"agentSession/list","params":{"__proto__":{"polluted":true}}}');
    expect(reply).toMatchObject({ id: null, error: { code: -32600, data: { code: "json_forbidden_key" } } });
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    await client.close();
  });
});

describe("HTTP", () => {
  it("answers /healthz and /readyz, and 404 elsewhere", async () => {
    expect(await (await fetch(`${server.httpUrl}/healthz`)).json()).toEqual({ status: "ok" });
    const ready = await fetch(`${server.httpUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect((await fetch(`${server.httpUrl}/nope`)).status).toBe(404);
  });
});

describe("batch frames to a client that takes them (receive_batches in initialized)", () => {
  /** Every message in `frames`, in order: a batch frame gives its items. */
  const messages = (frames: readonly Frame[]): Frame[] => frames.flatMap((frame) => (Array.isArray(frame) ? frame : [frame]));

  /** A device connection; with `batches`, it declares them. Subscribes to `sessionId` and waits for its catch-up's end. */
  async function caughtUpFrames(sessionId: string, batches?: { max_batch: number; max_message_bytes: number }): Promise<Frame[]> {
    const client = await TestClient.connect(server.url);
    const init = await client.call("initialize", { protocol_version: "lineup.app-server.v1", client_info: { name: "t" }, token: deviceToken });
    expect(init.features).toContain("batch-frames");
    client.notify("initialized", batches === undefined ? {} : { receive_batches: batches });
    const from = client.frames.length;
    client.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: 500, method: "agentSession/subscribe", params: { session_id: sessionId, after_seq: 0 } }));
    await client.waitFor((frame) => messages([frame]).some((m) => m.method === "agentSession/caughtUp"));
    const frames = client.frames.slice(from);
    await client.close();
    return frames;
  }

  it("a catch-up leaves in batch frames within both sides' limits, every message once and in order; a client that did not ask gets a frame each", async () => {
    const device = await TestClient.open(server, deviceToken);
    const agent = await TestClient.open(server, server.devCredentials!.agent_token);
    const sessionId = key("batched");
    await device.call("agentSession/start", START(sessionId));
    await device.close();
    for (let i = 0; i < 30; i++) {
      const envelope = agentEnvelope(sessionId, `m-${i}`);
      // Two messages near half the server's frame limit: no batch holds them together.
      if (i === 10 || i === 11) (envelope["payload"] as { text: string }).text = "x".repeat(7_000);
      await agent.call("agentSession/envelope/send", { session_id: sessionId, idempotency_key: key("send"), envelope });
    }
    await agent.close();

    const plain = await caughtUpFrames(sessionId);
    const wide = await caughtUpFrames(sessionId, { max_batch: 1024, max_message_bytes: 4 * 1024 * 1024 });
    const narrow = await caughtUpFrames(sessionId, { max_batch: 2, max_message_bytes: 4_096 });

    // The same messages in the same order (the subscription's answer, 31 events by seq, the caught-up notice); the
    // agent's presence comes whenever its connection changes, so it is left out.
    const sequence = (frames: readonly Frame[]) => messages(frames).filter((m) => m.method !== "agentSession/presence").map((m) => (m.id === 500 ? "answer" : m.method === "agentSession/event" ? m.params.seq : m.method));
    const expected = sequence(plain);
    expect(expected.filter((m) => typeof m === "number")).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
    expect(expected).toContain("answer");
    expect(expected.at(-1)).toBe("agentSession/caughtUp");
    expect(sequence(wide)).toEqual(expected);
    expect(sequence(narrow)).toEqual(expected);

    // Without receive_batches: one message per frame.
    expect(plain.every((frame) => !Array.isArray(frame))).toBe(true);
    // Within the server's limits (8 messages, 16 KiB) for the client that takes more, and the client's own for the other.
    const within = (frames: readonly Frame[], maxBatch: number, maxBytes: number) =>
      frames.every((frame) => !Array.isArray(frame) || (frame.length <= maxBatch && Buffer.byteLength(JSON.stringify(frame)) <= maxBytes));
    expect(within(wide, 8, 16_384)).toBe(true);
    expect(within(narrow, 2, 4_096)).toBe(true);
    expect(wide.length).toBeLessThanOrEqual(Math.ceil(expected.length / 8) + 4);
    expect(narrow.some((frame) => Array.isArray(frame) && frame.length === 2)).toBe(true);
    // A message larger than the client's bound still comes, alone.
    expect(narrow.filter((frame) => !Array.isArray(frame) && JSON.stringify(frame).length > 4_096)).toHaveLength(2);
  });
});
