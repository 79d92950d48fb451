/**
 * protocol: full envelope ingress (safe parse with limits + frame and payload schema validation
 * + semantic checks) beside plain JSON.parse of the same bytes. Target ≥ 0.5× the rate.
 */
import { decodeEnvelope, decodeJson } from "@lineup/protocol";
import { machine, pairedSync, type SuiteResult } from "../lib.js";

function sampleEnvelopes(): Record<string, string> {
  const message = {
    v: 1,
    id: "msg-01HZX3J9K7Q2",
    type: "lineup.message",
    timestamp: "2026-11-30T06:00:00.000Z",
    sender: { kind: "agent", id: "agent-demo" },
    target: { kind: "app", app_scope: "chat" },
    scope: { app_scope: "chat", conversation_id: "conv-01HZX3J9K7Q2" },
    correlation: { reply_to: "msg-01HZX3J9K7Q1", sequence: 42 },
    payload: {
      format: "markdown",
      text: "## Plan for today\n\n" + "- **Review** the whiteboard sketch and the notes from yesterday's call.\n".repeat(9),
    },
  };
  const invoke = {
    v: 1,
    id: "msg-01HZX3J9K7Q3",
    type: "lineup.tool.invoke",
    timestamp: "2026-11-30T06:00:01.000Z",
    sender: { kind: "agent", id: "agent-demo" },
    target: { kind: "app", app_scope: "whiteboard" },
    scope: { app_scope: "whiteboard", conversation_id: "conv-01HZX3J9K7Q2", instance_id: "inst-7" },
    correlation: { call_id: "call-01HZX3J9K7Q3", inventory_revision: "17" },
    payload: {
      method: "board.add_shapes",
      contract_version: "1",
      arguments: {
        shapes: Array.from({ length: 8 }, (_, i) => ({ kind: "rect", x: 10 * i, y: 20 * i, w: 100, h: 60, stroke: "#335577", label: `box ${i}` })),
      },
    },
  };
  return { message: JSON.stringify(message), tool_invoke: JSON.stringify(invoke) };
}

export async function run(): Promise<SuiteResult> {
  const samples = sampleEnvelopes();
  const results = [];
  for (const [name, text] of Object.entries(samples)) {
    const check = decodeEnvelope(text);
    if (!check.ok) throw new Error(`bench sample ${name} is invalid: ${check.error.message}`);
    let sink = 0;
    const paired = pairedSync(
      () => {
        const r = decodeEnvelope(text);
        if (r.ok) sink++;
      },
      () => {
        const v = JSON.parse(text) as unknown;
        if (v !== null) sink++;
      },
    );
    if (sink === 0) throw new Error("unreachable");
    results.push({
      metric: `envelope_ingress_${name}`,
      unit: "envelopes/s",
      value: Math.round(paired.ours),
      baseline: "json_parse_same_bytes",
      baseline_value: Math.round(paired.baseline),
      ratio: Number(paired.ratio.toFixed(3)),
      target_ratio: 0.5,
      higher_is_better: true,
      bytes: new TextEncoder().encode(text).byteLength,
      rounds: paired.rounds,
    });
  }
  const text = samples["message"]!;
  const jsonOnly = pairedSync(
    () => void decodeJson(text),
    () => void JSON.parse(text),
  );
  results.push({
    metric: "safe_json_decode_message",
    unit: "docs/s",
    value: Math.round(jsonOnly.ours),
    baseline: "json_parse_same_bytes",
    baseline_value: Math.round(jsonOnly.baseline),
    ratio: Number(jsonOnly.ratio.toFixed(3)),
    target_ratio: 0.5,
    higher_is_better: true,
    rounds: jsonOnly.rounds,
  });
  return { suite: "protocol", machine: machine(), results };
}
