/**
 * RELIABILITY B7 (unit tier): every example of the JSON-RPC 2.0 specification, section 7, run
 * through decodeJsonRpc + answerFrame with the specification's own toy methods. The replies must
 * equal the specification's, apart from the `data` member LineUp adds to error objects (which the
 * specification allows), and that `data` carries the LineUp code.
 */
import { describe, expect, it } from "vitest";
import {
  answerFrame,
  decodeJsonRpc,
  jsonRpcFailure,
  jsonRpcSuccess,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonValue,
} from "@lineup/protocol";

/** The specification's example methods. */
function respond(request: JsonRpcRequest): JsonRpcResponse {
  const p = request.params;
  switch (request.method) {
    case "subtract":
      if (Array.isArray(p)) return jsonRpcSuccess(request.id, (p[0] as number) - (p[1] as number));
      if (p !== undefined) return jsonRpcSuccess(request.id, (p["minuend"] as number) - (p["subtrahend"] as number));
      break;
    case "sum":
      if (Array.isArray(p)) return jsonRpcSuccess(request.id, (p as number[]).reduce((a, b) => a + b, 0));
      break;
    case "get_data":
      return jsonRpcSuccess(request.id, ["hello", 5]);
  }
  return jsonRpcFailure(request.id, { code: "method_not_found", message: `method "${request.method}" does not exist` });
}

const notified: string[] = [];
async function exchange(text: string): Promise<unknown> {
  return answerFrame(decodeJsonRpc(text), respond, (n) => notified.push(n.method));
}

/** Removes `data` from error objects so replies compare with the specification's text. */
function withoutData(reply: unknown): unknown {
  if (Array.isArray(reply)) return reply.map(withoutData);
  if (typeof reply === "object" && reply !== null && "error" in reply) {
    const { data: _data, ...error } = (reply as { error: { data?: unknown } }).error;
    return { ...reply, error };
  }
  return reply;
}

const spec = (text: string) => JSON.parse(text) as JsonValue;

describe("JSON-RPC 2.0 specification examples", () => {
  it("rpc call with positional parameters", async () => {
    expect(await exchange('{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}')).toEqual(spec('{"jsonrpc": "2.0", "result": 19, "id": 1}'));
    expect(await exchange('{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}')).toEqual(spec('{"jsonrpc": "2.0", "result": -19, "id": 2}'));
  });

  it("rpc call with named parameters", async () => {
    expect(await exchange('{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}')).toEqual(spec('{"jsonrpc": "2.0", "result": 19, "id": 3}'));
    expect(await exchange('{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}')).toEqual(spec('{"jsonrpc": "2.0", "result": 19, "id": 4}'));
  });

  it("a notification gets no reply", async () => {
    notified.length = 0;
    expect(await exchange('{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}')).toBeUndefined();
    expect(await exchange('{"jsonrpc": "2.0", "method": "foobar"}')).toBeUndefined();
    expect(notified).toEqual(["update", "foobar"]);
  });

  it("rpc call of non-existent method", async () => {
    const reply = await exchange('{"jsonrpc": "2.0", "method": "foobar", "id": "1"}');
    expect(withoutData(reply)).toEqual(spec('{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"}'));
    expect(reply).toMatchObject({ error: { data: { code: "method_not_found" } } });
  });

  it("rpc call with invalid JSON", async () => {
    const reply = await exchange('{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]');
    expect(withoutData(reply)).toEqual(spec('{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}'));
    expect(reply).toMatchObject({ error: { data: { code: "json_malformed" } } });
  });

  it("rpc call with invalid Request object", async () => {
    const reply = await exchange('{"jsonrpc": "2.0", "method": 1, "params": "bar"}');
    expect(withoutData(reply)).toEqual(spec('{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}'));
    expect(reply).toMatchObject({ error: { data: { code: "invalid_request" } } });
  });

  it("rpc call Batch, invalid JSON", async () => {
    const reply = await exchange('[\n  {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},\n  {"jsonrpc": "2.0", "method"\n]');
    expect(withoutData(reply)).toEqual(spec('{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}'));
  });

  it("rpc call with an empty Array", async () => {
    const reply = await exchange("[]");
    expect(Array.isArray(reply)).toBe(false);
    expect(withoutData(reply)).toEqual(spec('{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}'));
  });

  it("rpc call with an invalid Batch (but not empty)", async () => {
    expect(withoutData(await exchange("[1]"))).toEqual(spec('[{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}]'));
  });

  it("rpc call with invalid Batch", async () => {
    const one = { jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request" }, id: null };
    expect(withoutData(await exchange("[1,2,3]"))).toEqual([one, one, one]);
  });

  it("rpc call Batch", async () => {
    const reply = await exchange(`[
        {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
        {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
        {"foo": "boo"},
        {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
        {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
    ]`);
    expect(withoutData(reply)).toEqual(
      spec(`[
        {"jsonrpc": "2.0", "result": 7, "id": "1"},
        {"jsonrpc": "2.0", "result": 19, "id": "2"},
        {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
        {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "5"},
        {"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"}
    ]`),
    );
  });

  it("rpc call Batch (all notifications) returns nothing", async () => {
    const reply = await exchange(`[
        {"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}
    ]`);
    expect(reply).toBeUndefined();
  });
});

describe("decodeJsonRpc beyond the specification's examples", () => {
  it("classifies requests, notifications and responses", () => {
    const decoded = decodeJsonRpc(
      '[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b","params":{}},{"jsonrpc":"2.0","id":2,"result":null},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}]',
    );
    expect(decoded.kind).toBe("batch");
    if (decoded.kind === "batch") expect(decoded.items.map((i) => i.kind)).toEqual(["request", "notification", "response", "response"]);
  });

  it("refuses a wrong jsonrpc version but echoes a valid id", () => {
    const decoded = decodeJsonRpc('{"jsonrpc":"1.0","id":7,"method":"a"}');
    expect(decoded).toMatchObject({ kind: "single", item: { kind: "invalid", response: { id: 7, error: { code: -32600 } } } });
  });

  it("refuses an id of the wrong type with id null", () => {
    const decoded = decodeJsonRpc('{"jsonrpc":"2.0","id":{"x":1},"method":"a"}');
    expect(decoded).toMatchObject({ kind: "single", item: { kind: "invalid", response: { id: null, error: { code: -32600 } } } });
  });

  it("refuses unknown members, scalar params, and a response with both result and error", () => {
    for (const text of [
      '{"jsonrpc":"2.0","id":1,"method":"a","extra":true}',
      '{"jsonrpc":"2.0","id":1,"method":"a","params":"bar"}',
      '{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}}',
      '{"jsonrpc":"2.0","id":1}',
    ]) {
      const decoded = decodeJsonRpc(text);
      expect(decoded, text).toMatchObject({ kind: "single", item: { kind: "invalid", error: { code: "invalid_request" } } });
    }
  });

  it("refuses a frame over the size limit as message_too_large, id null, before parsing", () => {
    const text = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "a", params: { s: "x".repeat(2_000) } });
    const decoded = decodeJsonRpc(text, { maxBytes: 1_024 });
    expect(decoded).toMatchObject({ kind: "invalid", error: { code: "message_too_large" }, response: { id: null, error: { code: -32600 } } });
    expect(decodeJsonRpc(text, { maxBytes: text.length }).kind).toBe("single");
  });

  it("counts the UTF-8 bytes of a text frame, not its UTF-16 units, near the limit", () => {
    // 600 characters of "é" are 1,200 UTF-8 bytes: under the limit by length, over it in bytes.
    const text = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "a", params: { s: "é".repeat(600) } });
    const bytes = new TextEncoder().encode(text).length;
    expect(text.length).toBeLessThan(1_024);
    expect(decodeJsonRpc(text, { maxBytes: 1_024 })).toMatchObject({ kind: "invalid", error: { code: "message_too_large", message: `frame of ${bytes} bytes exceeds 1024` } });
    expect(decodeJsonRpc(text, { maxBytes: bytes }).kind).toBe("single");
    expect(decodeJsonRpc(text, { maxBytes: bytes - 1 }).kind).toBe("invalid");
  });

  it("refuses a batch over maxBatch as one error", () => {
    const batch = JSON.stringify(Array.from({ length: 5 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "a" })));
    expect(decodeJsonRpc(batch, { maxBatch: 4 })).toMatchObject({ kind: "invalid", response: { id: null, error: { code: -32600, data: { code: "invalid_request" } } } });
    expect(decodeJsonRpc(batch, { maxBatch: 5 }).kind).toBe("batch");
  });

  it("refuses depth bombs and forbidden keys without throwing", () => {
    expect(decodeJsonRpc("[".repeat(100_000) + "]".repeat(100_000))).toMatchObject({ kind: "invalid", error: { code: "json_too_deep" }, response: { id: null } });
    const polluted = decodeJsonRpc('{"jsonrpc":"2.0","id":1,"method":"a","params":{"__proto__":{"polluted":1}}}');
    expect(polluted).toMatchObject({ kind: "invalid", error: { code: "json_forbidden_key" } });
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("maps invalid UTF-8 bytes to a parse error", () => {
    expect(decodeJsonRpc(new Uint8Array([0x7b, 0xff, 0x7d]))).toMatchObject({ kind: "invalid", response: { id: null, error: { code: -32700 } } });
  });

  it("puts the LineUp detail in data and uses the detail as message for server codes", () => {
    const failure = jsonRpcFailure(3, { code: "session_not_found", message: "no session s1", path: "/session_id" });
    expect(failure).toEqual({ jsonrpc: "2.0", id: 3, error: { code: -32004, message: "no session s1", data: { code: "session_not_found", message: "no session s1", path: "/session_id", retryable: false } } });
    expect(jsonRpcFailure(null, { code: "overloaded", message: "queue full" }).error.code).toBe(-32001);
  });
});
