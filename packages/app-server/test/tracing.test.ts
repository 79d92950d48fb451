/**
 * OpenTelemetry spans of one agent tool call. The scenario (support/tracing-scenario.ts) runs in a process of
 * its own, with OpenTelemetry's real SDK registered there as an application would: an AppServer, the agent
 * SDK calling a device's tool, the device answering with the call's terminal error, then a refused request; and
 * a testkit Runtime whose app serves one call and refuses another.
 */
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

interface SpanRecord {
  readonly name: string;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly links: readonly string[];
  readonly status: number;
  readonly attributes: Record<string, unknown>;
}

// @opentelemetry/api's SpanKind and SpanStatusCode.
const SERVER = 1;
const CLIENT = 2;
const ERROR = 2;

describe("OpenTelemetry spans", () => {
  it("trace an agent tool call at both ends: request spans with the call id, the commit as the server span's child, the error codes, the Runtime's commits", () => {
    const scenario = join(import.meta.dirname, "support", "tracing-scenario.ts");
    const run = spawnSync(process.execPath, ["--conditions=source", "--import", "tsx", scenario], { cwd: resolve(import.meta.dirname, "..", "..", ".."), encoding: "utf8", timeout: 120_000 });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const { callId, ended, refused, runtime, spans } = JSON.parse(run.stdout) as { callId: string; ended: string; refused: string; runtime: { ok: string; refused: string; refusedCode: string }; spans: SpanRecord[] };
    expect(ended).toBe("app_disabled");
    expect(refused).toBe("session_not_found");

    const send = (kind: number, type: string): SpanRecord[] =>
      spans.filter((s) => s.kind === kind && s.name === "agentSession/envelope/send" && s.attributes["lineup.call_id"] === callId && s.attributes["lineup.envelope_type"] === type);
    // The agent's call: its CLIENT span and the server's SERVER span, each naming the call.
    const [agentCall] = send(CLIENT, "lineup.tool.invoke");
    const [serverCall] = send(SERVER, "lineup.tool.invoke");
    for (const span of [agentCall, serverCall]) {
      expect(span?.attributes).toMatchObject({ "rpc.system": "jsonrpc", "rpc.method": "agentSession/envelope/send" });
      expect(span?.status).not.toBe(ERROR);
    }
    // The write transaction that stored it is the server span's child, in its trace.
    const commit = spans.filter((s) => s.name === "store.commit" && s.parentSpanId === serverCall!.spanId);
    expect(commit).toHaveLength(1);
    expect(commit[0]!.traceId).toBe(serverCall!.traceId);
    expect(commit[0]!.attributes["lineup.writes"]).toBeGreaterThanOrEqual(1);

    // The device's terminal error for the call carries the call's error code at both ends.
    for (const kind of [CLIENT, SERVER]) expect(send(kind, "lineup.tool.error")[0]?.attributes["lineup.tool_error_code"]).toBe("app_disabled");

    // A refused request ends both its spans with the LineUp code, the JSON-RPC number and an error status.
    const reads = spans.filter((s) => s.name === "inventory/read");
    expect(reads.map((s) => s.kind).sort()).toEqual([SERVER, CLIENT]);
    for (const span of reads) {
      expect(span.attributes).toMatchObject({ "lineup.error_code": "session_not_found", "rpc.jsonrpc.error_code": -32004 });
      expect(span.status).toBe(ERROR);
    }

    // The Runtime's side: each call's span from the hand-off to the app's terminal report, the refused one with its code.
    const toolCall = (id: string) => spans.filter((s) => s.name === "lineup.tool_call" && s.attributes["lineup.call_id"] === id);
    expect(toolCall(runtime.ok)).toEqual([expect.objectContaining({ status: 0, attributes: { "lineup.call_id": runtime.ok, "lineup.app_scope": "notes", "lineup.tool": "notes.count" } })]);
    expect(runtime.refusedCode).toBe("handler_failed");
    expect(toolCall(runtime.refused)).toEqual([expect.objectContaining({ status: ERROR, attributes: expect.objectContaining({ "lineup.tool": "notes.do", "lineup.error_code": "handler_failed" }) as unknown })]);

    // The Runtime's own store commits: each group commit of its loop is a span counting its inputs and writes.
    const commits = spans.filter((s) => s.name === "runtime.commit");
    expect(commits.length).toBeGreaterThanOrEqual(2);
    for (const span of commits) {
      expect(span.status).not.toBe(ERROR);
      expect(span.attributes["lineup.inputs"]).toBeGreaterThanOrEqual(1);
      expect(span.attributes["lineup.writes"]).toBeGreaterThanOrEqual(1);
    }
  }, 150_000);
});
