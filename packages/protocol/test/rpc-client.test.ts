import { describe, expect, it } from "vitest";
import { createJsonRpcClientCore, errorFromRpcResponse, type JsonRpcFailure } from "../src/index.js";

const failure = (error: JsonRpcFailure["error"]): JsonRpcFailure => ({ jsonrpc: "2.0", id: 1, error });

describe("errorFromRpcResponse", () => {
  it("takes the LineUp code, message and path from error.data, and keeps the JSON-RPC number and retry hint", () => {
    const error = errorFromRpcResponse(failure({ code: -32001, message: "Server busy", data: { code: "overloaded", message: "queue full", path: "/x", retryable: true } }), "agentSession/list");
    expect(error).toMatchObject({ code: "overloaded", message: "queue full", path: "/x", data: { method: "agentSession/list", rpc: -32001, retryable: true } });
  });

  it("maps a code this version does not know to internal_error and keeps it as wire_code", () => {
    expect(errorFromRpcResponse(failure({ code: -32010, message: "x", data: { code: "from_the_future", message: "new" } }), "m")).toMatchObject({ code: "internal_error", message: "new", data: { wire_code: "from_the_future" } });
  });

  it("without data, names the code after the JSON-RPC number", () => {
    expect(errorFromRpcResponse(failure({ code: -32601, message: "Method not found" }), "m")).toMatchObject({ code: "method_not_found", message: "Method not found" });
    expect(errorFromRpcResponse(failure({ code: -32700, message: "Parse error" }), "m").code).toBe("json_malformed");
    expect(errorFromRpcResponse(failure({ code: -1, message: "odd" }), "m").code).toBe("internal_error");
  });
});

describe("createJsonRpcClientCore", () => {
  const setup = () => {
    const sent: string[] = [];
    const trouble: string[] = [];
    const notes: string[] = [];
    const core = createJsonRpcClientCore({
      send: (text) => sent.push(text),
      timer: { now: () => 0, setTimer: () => () => undefined },
      defaultTimeoutMs: 1_000,
      limits: { maxBytes: 4_096, maxBatch: 8 },
      onNotification: (n) => notes.push(n.method),
      onTrouble: (message) => trouble.push(message),
    });
    return { core, sent, trouble, notes };
  };

  it("answers a request from the peer with method_not_found and reports it, reports late answers and bad frames, dispatches notifications", () => {
    const { core, sent, trouble, notes } = setup();
    core.receive(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" }));
    expect(JSON.parse(sent[0]!)).toMatchObject({ id: 7, error: { code: -32601, data: { code: "method_not_found" } } });
    core.receive(JSON.stringify({ jsonrpc: "2.0", id: 99, result: {} }));
    core.receive("{not json");
    core.receive(JSON.stringify([{ jsonrpc: "2.0", method: "a" }, { jsonrpc: "2.0", method: "b", params: {} }]));
    expect(notes).toEqual(["a", "b"]);
    expect(trouble).toHaveLength(3);
    expect(trouble[1]).toMatch(/no pending request \(id 99\)/);
    expect(trouble[2]).toMatch(/^json_malformed/);
  });

  it("sends what a batch asks for together, as JSON-RPC batches of at most maxBatch, and settles each request from an answering array", async () => {
    const { core, sent } = setup();
    const answers = core.batch(() => {
      const asked = ["s-1", "s-2", "s-3"].map((id) => core.request("agentSession/subscribe", { session_id: id, after_seq: 0 }));
      core.notify("initialized", {});
      // Nested: still one batch.
      asked.push(core.batch(() => core.request("agentSession/subscribe", { session_id: "s-4", after_seq: 0 }), { maxBatch: 1, maxBytes: 10 }));
      expect(sent).toEqual([]);
      return asked;
    }, { maxBatch: 3, maxBytes: 1_000_000 });
    // Five messages, at most three to a frame, in the order asked.
    expect(sent.map((frame) => JSON.parse(frame) as unknown)).toEqual([
      [1, 2, 3].map((id) => ({ jsonrpc: "2.0", id, method: "agentSession/subscribe", params: { session_id: `s-${id}`, after_seq: 0 } })),
      [{ jsonrpc: "2.0", method: "initialized", params: {} }, { jsonrpc: "2.0", id: 4, method: "agentSession/subscribe", params: { session_id: "s-4", after_seq: 0 } }],
    ]);
    // The peer answers a batch with one array, in any order.
    core.receive(JSON.stringify([{ jsonrpc: "2.0", id: 2, result: { n: 2 } }, { jsonrpc: "2.0", id: 1, result: { n: 1 } }, { jsonrpc: "2.0", id: 3, error: { code: -32001, message: "busy", data: { code: "overloaded", message: "busy", retryable: true } } }]));
    core.receive(JSON.stringify([{ jsonrpc: "2.0", id: 4, result: { n: 4 } }]));
    const settled = await Promise.allSettled(answers);
    expect(settled.map((s) => (s.status === "fulfilled" ? s.value : (s.reason as { code: string }).code))).toEqual([{ n: 1 }, { n: 2 }, "overloaded", { n: 4 }]);
    // A batch of one is the message itself; after the batch, each request is a frame again.
    void core.batch(() => core.request("agentSession/list", {}), { maxBatch: 3, maxBytes: 1_000_000 });
    void core.request("agentSession/list", {});
    expect(sent.slice(2).map((frame) => JSON.parse(frame) as { id: number })).toMatchObject([{ id: 5 }, { id: 6 }]);
    // A frame never holds more bytes than the peer takes: with room for two of these requests (and the brackets and
    // comma), three go as two frames; one too big alone still goes, as itself.
    const one = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "agentSession/subscribe", params: { session_id: "s-é", after_seq: 0 } });
    const roomForTwo = 2 * new TextEncoder().encode(one).length + 3;
    core.batch(() => ["s-é", "s-é", "s-é"].forEach((id) => void core.request("agentSession/subscribe", { session_id: id, after_seq: 0 })), { maxBatch: 64, maxBytes: roomForTwo });
    const frames = sent.slice(4);
    expect(frames.map((frame) => (Array.isArray(JSON.parse(frame)) ? (JSON.parse(frame) as unknown[]).length : 1))).toEqual([2, 1]);
    expect(frames.every((frame) => new TextEncoder().encode(frame).length <= roomForTwo)).toBe(true);
    core.batch(() => void core.request("agentSession/subscribe", { session_id: "s-big", after_seq: 0 }), { maxBatch: 64, maxBytes: 10 });
    expect(JSON.parse(sent.at(-1)!)).toMatchObject({ id: 10, params: { session_id: "s-big" } });
  });

  it("rejects pending and later requests once closed, with the close code, and sends nothing more", async () => {
    const { core, sent } = setup();
    const pending = core.request("agentSession/list", {});
    expect(core.pendingCount).toBe(1);
    core.close({ code: 1006, reason: "gone" });
    core.close({ code: 1000, reason: "again" });
    await expect(pending).rejects.toMatchObject({ code: "request_cancelled", message: "agentSession/list: the connection closed (1006 gone)", data: { connection_closed: true, close_code: 1006 } });
    await expect(core.request("after", {})).rejects.toMatchObject({ code: "request_cancelled", data: { close_code: 1006 } });
    core.notify("x");
    expect(sent).toHaveLength(1);
    expect(core.closed).toBe(true);
    expect(core.pendingCount).toBe(0);
  });
});
